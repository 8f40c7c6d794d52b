/* libxlat's cuckoo filter against a minimal one written here for the
 * purpose: 12-bit fingerprints, 4-slot buckets, one hash mix per key, each
 * bucket read with one 8-byte load and tested with the has-zero-lane trick
 * (a speed-of-light lookup, after the layout of Fan et al., "Cuckoo
 * Filter: Practically Better Than Bloom", §5). Both hold the same keys at
 * 95% load of the same slot count, at about 4 K, 125 K and 32 M keys.
 *
 * The comparison is kept fair:
 * - xlat_cuckoo_contains() is an out-of-line library call, so the
 *   reference lookup and insert are out-of-line functions (REF_CALL) that
 *   take their table by pointer, called from the same loop shape;
 * - the loops hold both filters' pointers the same way: &c->ref is a
 *   constant offset from c, so libxlat's handle is read out of c once,
 *   before its loop, not once per call (reloaded after every call, the
 *   handle started each lookup's chain of dependent loads one load later,
 *   which cost about 10% at 32 M keys, where that chain decides the speed);
 * - both see the same keys in the same order;
 * - rounds interleave (reference, libxlat, reference, ...), and what is
 *   reported is each one's median time and the median of the per-round
 *   ratios, which cancels most of a shared machine's drift;
 * - the reference has no error handling, rollback or NULL check; libxlat
 *   keeps all of them, and its hash (one mix of the key XOR a per-filter
 *   key, and a per-filter multiplier for the alternate bucket, pinned by
 *   the library's exact tests) is part of what is measured.
 */
#include <string.h>

#include "bench.h"

#define REF_FP_BITS 12
#define REF_SLOTS 4
#define REF_BUCKET_BYTES 6    /* 4 × 12 bits */
#define REF_MAX_KICKS 500
#define REF_ROUNDS 7
#define REF_LOOKUPS (1u << 22) /* per round: long enough to time, short at 32 M */
#define REF_LOW UINT64_C(0x001001001001)   /* bit 0 of each 12-bit lane */
#define REF_HIGH UINT64_C(0x800800800800)  /* bit 11 of each lane */

/* Out of line like a library call, and taking the filter by pointer as
 * libxlat does: gcc's noipa also stops it from passing the table and mask
 * in registers instead (a clone no library call can have). */
#if defined(__GNUC__) && !defined(__clang__)
#define REF_CALL __attribute__((noinline, noipa))
#else
#define REF_CALL __attribute__((noinline))
#endif

typedef struct ref_filter {
    uint8_t *table; /* buckets × 6 bytes, then 2 spare bytes for the last 8-byte load */
    uint64_t mask;  /* buckets - 1 */
    uint64_t rng;   /* kick choices */
} ref_filter;

/* ---- the reference filter ---------------------------------------------- */

/* Index from the low bits, fingerprint (1..4095) from the high 32 bits of
 * one mix of the key, alternate bucket from a multiply of the fingerprint. */
static inline uint64_t ref_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static inline uint64_t ref_fingerprint(uint64_t h)
{
    return (((h >> 32) * 4095) >> 32) + 1;
}

static inline uint64_t ref_alt(const ref_filter *r, uint64_t i, uint64_t fp)
{
    return i ^ ((fp * UINT64_C(0x9E3779B97F4A7C15)) >> 32 & r->mask);
}

static inline uint64_t ref_bucket(const ref_filter *r, uint64_t i)
{
    uint64_t w;
    memcpy(&w, r->table + i * REF_BUCKET_BYTES, sizeof(w));
    return w;
}

static inline void ref_bucket_store(ref_filter *r, uint64_t i, uint64_t w)
{
    memcpy(r->table + i * REF_BUCKET_BYTES, &w, sizeof(w));
}

/* The lanes of `w` equal to 0, marked at their top bit (exact for the
 * lowest); the next bucket's bits above them never reach them. */
static inline uint64_t ref_zero_lanes(uint64_t w)
{
    return (w - REF_LOW) & ~w & REF_HIGH;
}

REF_CALL static bool ref_contains(const ref_filter *r, uint64_t key)
{
    uint64_t h = ref_mix(key);
    uint64_t i1 = h & r->mask, fp = ref_fingerprint(h);
    uint64_t i2 = ref_alt(r, i1, fp), lanes = fp * REF_LOW;
    return (ref_zero_lanes(ref_bucket(r, i1) ^ lanes) | ref_zero_lanes(ref_bucket(r, i2) ^ lanes)) != 0;
}

/* Puts fp in the lowest empty slot of bucket i; false when it is full. */
static inline bool ref_put(ref_filter *r, uint64_t i, uint64_t fp)
{
    uint64_t w = ref_bucket(r, i);
    uint64_t empty = ref_zero_lanes(w);
    if (!empty)
        return false;
    unsigned lane = (unsigned)__builtin_ctzll(empty) / REF_FP_BITS;
    ref_bucket_store(r, i, w | fp << (lane * REF_FP_BITS));
    return true;
}

/* Fan et al.'s Algorithm 1; a failure drops the last victim (the filter
 * here is never filled past 95%, where none fails). */
REF_CALL static bool ref_insert(ref_filter *r, uint64_t key)
{
    uint64_t h = ref_mix(key);
    uint64_t i = h & r->mask, fp = ref_fingerprint(h);
    if (ref_put(r, i, fp) || ref_put(r, ref_alt(r, i, fp), fp))
        return true;
    for (int n = 0; n < REF_MAX_KICKS; n++) {
        unsigned lane = (unsigned)(bench_rand(&r->rng) & (REF_SLOTS - 1)) * REF_FP_BITS;
        uint64_t w = ref_bucket(r, i);
        uint64_t victim = w >> lane & 0xFFF;
        ref_bucket_store(r, i, (w & ~(UINT64_C(0xFFF) << lane)) | fp << lane);
        fp = victim;
        i = ref_alt(r, i, fp);
        if (ref_put(r, i, fp))
            return true;
    }
    return false;
}

/* ---- the harness --------------------------------------------------------- */

/* Inserted keys have bit 63 clear, absent ones set. */
static uint64_t key_of(uint64_t i, bool present)
{
    uint64_t k = ref_mix(i + 1) & ~(UINT64_C(1) << 63);
    return present ? k : k | UINT64_C(1) << 63;
}

typedef struct ref_case {
    const char *name;
    uint32_t slots_log2;
    uint32_t keys;
    ref_filter ref;
    xlat_ctx *ctx;
    xlat_cuckoo *cf;
    uint64_t *probe; /* REF_LOOKUPS keys, cycling through the key set */
} ref_case;

static double time_ref_lookups(const ref_case *c, uint64_t *hits)
{
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < REF_LOOKUPS; i++)
        *hits += ref_contains(&c->ref, c->probe[i]);
    return bench_seconds() - t0;
}

static double time_xlat_lookups(const ref_case *c, uint64_t *hits)
{
    const xlat_cuckoo *cf = c->cf; /* in a register, as &c->ref is */
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < REF_LOOKUPS; i++)
        *hits += xlat_cuckoo_contains(cf, c->probe[i]);
    return bench_seconds() - t0;
}

static double time_ref_inserts(ref_case *c, uint32_t *failed)
{
    memset(c->ref.table, 0, (c->ref.mask + 1) * REF_BUCKET_BYTES + 2);
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < c->keys; i++)
        *failed += !ref_insert(&c->ref, key_of(i, true));
    return bench_seconds() - t0;
}

static double time_xlat_inserts(ref_case *c, uint32_t *failed)
{
    xlat_cuckoo *cf = c->cf;
    xlat_cuckoo_clear(cf);
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < c->keys; i++)
        *failed += xlat_cuckoo_insert(cf, key_of(i, true)) != XLAT_OK;
    return bench_seconds() - t0;
}

/* Two rows, reference then libxlat, with libxlat's speed over the
 * reference's (median of the per-round ratios) in libxlat's note. */
static void report(const ref_case *c, const char *what, double ops, double *t_ref,
                   double *t_xlat, int rounds, const char *extra)
{
    char row[96], note[128];
    double ratio[REF_ROUNDS];
    for (int r = 0; r < rounds; r++)
        ratio[r] = t_ref[r] / t_xlat[r];
    double speed = bench_median(ratio, rounds);
    snprintf(row, sizeof(row), "cuckoo_ref %s: %s, reference", c->name, what);
    bench_row(row, ops, bench_median(t_ref, rounds), extra);
    snprintf(row, sizeof(row), "cuckoo_ref %s: %s, libxlat", c->name, what);
    snprintf(note, sizeof(note), "libxlat/reference %.2f (median of %d rounds)", speed, rounds);
    bench_row(row, ops, bench_median(t_xlat, rounds), note);
}

/* Fills both filters (timed, `rounds` times from empty), then times
 * present and absent lookups. */
static void run_case(ref_case *c, int insert_rounds)
{
    double t_ref[REF_ROUNDS], t_xlat[REF_ROUNDS];
    uint32_t failed = 0;
    for (int r = 0; r < insert_rounds; r++) {
        t_ref[r] = time_ref_inserts(c, &failed);
        t_xlat[r] = time_xlat_inserts(c, &failed);
    }
    char note[96];
    snprintf(note, sizeof(note), "%u keys at load %.3f, %u failed", c->keys,
             (double)c->keys / (double)(UINT64_C(1) << c->slots_log2), failed);
    report(c, "insert", c->keys, t_ref, t_xlat, insert_rounds, note);
    for (int present = 1; present >= 0; present--) {
        for (uint32_t i = 0; i < REF_LOOKUPS; i++)
            c->probe[i] = key_of(i % c->keys, present);
        uint64_t hits_ref = 0, hits_xlat = 0;
        for (int r = 0; r < REF_ROUNDS; r++) {
            t_ref[r] = time_ref_lookups(c, &hits_ref);
            t_xlat[r] = time_xlat_lookups(c, &hits_xlat);
        }
        const double all = (double)REF_LOOKUPS * REF_ROUNDS;
        snprintf(note, sizeof(note), "found: reference %.3f%%, libxlat %.3f%%",
                 100.0 * (double)hits_ref / all, 100.0 * (double)hits_xlat / all);
        report(c, present ? "lookup, present" : "lookup, absent", REF_LOOKUPS, t_ref, t_xlat,
               REF_ROUNDS, note);
    }
}

static bool make_case(ref_case *c)
{
    xlat_cuckoo_config cfg;
    uint64_t buckets = (UINT64_C(1) << c->slots_log2) / REF_SLOTS;
    c->ref.mask = buckets - 1;
    c->ref.rng = 1;
    c->ref.table = calloc(buckets * REF_BUCKET_BYTES + 2, 1);
    c->probe = malloc(REF_LOOKUPS * sizeof(uint64_t));
    if (!c->ref.table || !c->probe || xlat_ctx_create(NULL, &c->ctx) != XLAT_OK)
        return false;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = c->keys;
    if (xlat_cuckoo_create(c->ctx, &cfg, &c->cf) != XLAT_OK) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(c->ctx));
        return false;
    }
    if (xlat_cuckoo_slots(c->cf) != (size_t)1 << c->slots_log2)
        fprintf(stderr, "bench: cuckoo_ref: %zu slots, not 2^%u\n", xlat_cuckoo_slots(c->cf),
                c->slots_log2);
    return true;
}

static void free_case(ref_case *c)
{
    xlat_cuckoo_destroy(c->cf);
    xlat_ctx_destroy(c->ctx);
    free(c->ref.table);
    free(c->probe);
}

void bench_cuckoo_ref(void)
{
    /* 95% of 2^12, 2^17 and 2^25 slots; the largest takes 48 MiB per filter. */
    ref_case cases[] = {
        {"4K", 12, 3891, {0}, NULL, NULL, NULL},
        {"125K", 17, 124518, {0}, NULL, NULL, NULL},
        {"32M", 25, 31876710, {0}, NULL, NULL, NULL},
    };
    printf("\n-- cuckoo filter against a minimal reference (f12 b4, 95%% load) --\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (make_case(&cases[i]))
            run_case(&cases[i], cases[i].slots_log2 > 20 ? 3 : 5);
        free_case(&cases[i]);
    }
}
