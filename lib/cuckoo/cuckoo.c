/*
 * The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
 * Filter: Practically Better Than Bloom" (CoNEXT 2014), written from the
 * paper's description: partial-key cuckoo hashing over a power-of-two table
 * of bit-packed fingerprints, with a failed insert rolled back instead of
 * parked in a victim stash.
 */
#include "internal.h"
#include "registry.h"
#include "xlat/cuckoo.h"

/* Highest number of buckets: keeps slot counts within 35 bits and every
 * bucket index within 32, far beyond what a simulated structure needs. */
#define CUCKOO_MAX_BUCKETS (UINT64_C(1) << 32)

struct xlat_cuckoo {
    xlat_ctx *ctx;
    xlat_cuckoo_config cfg;
    uint64_t *table;      /* slots × f bits, slot s at bits [s·f, s·f + f) */
    size_t table_words;
    uint8_t *undo;        /* slot kicked at each step of the insert in progress */
    uint64_t mask;        /* buckets - 1 */
    uint32_t b;           /* slots per bucket */
    uint32_t f;           /* fingerprint bits */
    uint64_t fp_mask;     /* 2^f - 1: the number of nonzero fingerprints */
    size_t count;
    uint64_t key_index;   /* hash keys drawn from the context's seed */
    uint64_t key_fp;
    uint64_t key_alt;
    xlat_rng rng;         /* kick choices */
    xlat_rng rng_start;   /* rng as it was after create, restored by clear */
    struct xlat__reg reg;
};

void xlat_cuckoo_config_init_sized(xlat_cuckoo_config *out, size_t size)
{
    xlat_cuckoo_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->capacity = 1024;
    cfg->fp_bits = 12;
    cfg->bucket_size = 4;
    cfg->max_kicks = 500;
    xlat__config_out(out, size, &full, sizeof(full));
}

/* ---- the packed table ------------------------------------------------- */

/* Fingerprints straddle 64-bit words when f does not divide 64. Reading and
 * writing whole aligned words keeps every access aligned and in bounds: the
 * second word is touched only when the field really extends into it, and a
 * field that does never ends past the last word. Shifts stay below 64
 * because a straddling field starts at a bit offset of at least 33. */
static inline uint32_t slot_get(const xlat_cuckoo *cf, uint64_t bit)
{
    size_t w = (size_t)(bit >> 6);
    unsigned off = (unsigned)(bit & 63);
    uint64_t v = cf->table[w] >> off;
    if (off + cf->f > 64)
        v |= cf->table[w + 1] << (64 - off);
    return (uint32_t)(v & cf->fp_mask);
}

static inline void slot_set(xlat_cuckoo *cf, uint64_t bit, uint32_t fp)
{
    size_t w = (size_t)(bit >> 6);
    unsigned off = (unsigned)(bit & 63);
    uint64_t m = cf->fp_mask;
    cf->table[w] = (cf->table[w] & ~(m << off)) | ((uint64_t)fp << off);
    if (off + cf->f > 64) {
        unsigned sh = 64 - off;
        cf->table[w + 1] = (cf->table[w + 1] & ~(m >> sh)) | ((uint64_t)fp >> sh);
    }
}

static inline uint64_t slot_bit(const xlat_cuckoo *cf, uint64_t bucket, uint32_t slot)
{
    return (bucket * cf->b + slot) * cf->f;
}

/* Slot of `fp` in `bucket`, or -1. Searching for 0 finds an empty slot. */
static int bucket_find(const xlat_cuckoo *cf, uint64_t bucket, uint32_t fp)
{
    uint64_t bit = slot_bit(cf, bucket, 0);
    for (uint32_t s = 0; s < cf->b; s++, bit += cf->f)
        if (slot_get(cf, bit) == fp)
            return (int)s;
    return -1;
}

/* Stores `fp` in an empty slot of `bucket`, the lowest one; false if full. */
static bool bucket_put(xlat_cuckoo *cf, uint64_t bucket, uint32_t fp)
{
    int s = bucket_find(cf, bucket, 0);
    if (s < 0)
        return false;
    slot_set(cf, slot_bit(cf, bucket, (uint32_t)s), fp);
    return true;
}

/* ---- hashing (paper §3.1, partial-key cuckoo hashing) ------------------ */

/* i1 = hash(x) and the fingerprint come from one keyed 64-bit mix of the
 * key; the fingerprint re-mixes it so that it is independent of the low
 * bits used as the index. 0 marks an empty slot, so fingerprints take the
 * 2^f - 1 nonzero values, each equally often (up to 2^-32 of bias from the
 * modulo); f <= 32, so 2^f - 1 never overflows 64-bit arithmetic. */
static void hash_key(const xlat_cuckoo *cf, uint64_t key, uint64_t *i1, uint32_t *fp)
{
    uint64_t h = xlat__mix64(key ^ cf->key_index);
    *i1 = h & cf->mask;
    *fp = (uint32_t)(xlat__mix64(h ^ cf->key_fp) % cf->fp_mask + 1);
}

/* i2 = i1 XOR hash(fp). On a power-of-two table the XOR is an involution,
 * alt(alt(i, fp), fp) == i, which is what lets a kicked fingerprint find its
 * other bucket, and lets a failed insert walk its kicks backwards. The two
 * buckets coincide when hash(fp) & mask is 0. */
static inline uint64_t alt_index(const xlat_cuckoo *cf, uint64_t i, uint32_t fp)
{
    return i ^ (xlat__mix64(fp ^ cf->key_alt) & cf->mask);
}

/* ---- insertion with rollback ------------------------------------------ */

/* Undoes the `n` kicks of a failed relocate(). It holds the last evicted
 * fingerprint `fp`, which was heading for bucket `i`. Kick k wrote the
 * fingerprint then in hand into slot undo[k] of its bucket and took the one
 * there; walking the steps in reverse puts each evicted fingerprint back
 * and takes the written one into hand again, so the table ends exactly as
 * it was and the original fingerprint is in hand. */
static void relocate_undo(xlat_cuckoo *cf, uint64_t i, uint32_t fp, uint32_t n)
{
    while (n-- > 0) {
        i = alt_index(cf, i, fp); /* the bucket fp was kicked from */
        uint64_t bit = slot_bit(cf, i, cf->undo[n]);
        uint32_t written = slot_get(cf, bit);
        slot_set(cf, bit, fp);
        fp = written;
    }
}

/* Paper §3.1, Algorithm 1: with both buckets full, kick a random
 * fingerprint of bucket `i` to its alternate bucket, and repeat with the
 * fingerprint evicted there, up to max_kicks times. Unlike the paper's
 * reference code, which parks the last victim in a one-entry stash and
 * reports success, a failure is undone so that nothing is lost and the
 * caller learns about it on this very call. */
static int relocate(xlat_cuckoo *cf, uint64_t i, uint32_t fp)
{
    uint32_t n;
    for (n = 0; n < cf->cfg.max_kicks; n++) {
        uint32_t s = (uint32_t)xlat__rng_below(&cf->rng, cf->b);
        uint64_t bit = slot_bit(cf, i, s);
        uint32_t victim = slot_get(cf, bit);
        slot_set(cf, bit, fp);
        cf->undo[n] = (uint8_t)s;
        fp = victim;
        i = alt_index(cf, i, fp);
        if (bucket_put(cf, i, fp))
            return XLAT_OK;
    }
    relocate_undo(cf, i, fp, n);
    return XLAT_ERR_FULL;
}

int xlat_cuckoo_insert(xlat_cuckoo *cf, uint64_t key)
{
    uint64_t i1;
    uint32_t fp;
    if (!cf)
        return XLAT_ERR_INVAL;
    hash_key(cf, key, &i1, &fp);
    uint64_t i2 = alt_index(cf, i1, fp);
    if (bucket_put(cf, i1, fp) || (i2 != i1 && bucket_put(cf, i2, fp))) {
        cf->count++;
        return XLAT_OK;
    }
    /* Algorithm 1: start the kicks from either bucket at random. */
    uint64_t start = (xlat__rng_next(&cf->rng) >> 63) ? i2 : i1;
    int rc = relocate(cf, start, fp);
    if (rc == XLAT_OK)
        cf->count++;
    return rc;
}

int xlat_cuckoo_insert_unique(xlat_cuckoo *cf, uint64_t key)
{
    if (!cf)
        return XLAT_ERR_INVAL;
    if (xlat_cuckoo_contains(cf, key))
        return XLAT_ERR_EXIST;
    return xlat_cuckoo_insert(cf, key);
}

/* ---- lookup and deletion (paper §3.2 and §3.3, Algorithms 2 and 3) ---- */

/* Finds a copy of the key's fingerprint: its bucket and slot. When the two
 * buckets coincide the bucket is searched once. */
static bool find_key(const xlat_cuckoo *cf, uint64_t key, uint64_t *bucket, int *slot)
{
    uint64_t i1;
    uint32_t fp;
    hash_key(cf, key, &i1, &fp);
    int s = bucket_find(cf, i1, fp);
    if (s >= 0) {
        *bucket = i1;
        *slot = s;
        return true;
    }
    uint64_t i2 = alt_index(cf, i1, fp);
    if (i2 == i1 || (s = bucket_find(cf, i2, fp)) < 0)
        return false;
    *bucket = i2;
    *slot = s;
    return true;
}

bool xlat_cuckoo_contains(const xlat_cuckoo *cf, uint64_t key)
{
    uint64_t bucket;
    int slot;
    return cf && find_key(cf, key, &bucket, &slot);
}

/* Algorithm 3: removing any one matching copy is correct for a key that was
 * inserted, since every copy of its fingerprint in its two buckets is
 * interchangeable with the one it added. */
int xlat_cuckoo_remove(xlat_cuckoo *cf, uint64_t key)
{
    uint64_t bucket;
    int slot;
    if (!cf)
        return XLAT_ERR_INVAL;
    if (!find_key(cf, key, &bucket, &slot))
        return XLAT_ERR_NOT_FOUND;
    slot_set(cf, slot_bit(cf, bucket, (uint32_t)slot), 0);
    cf->count--;
    return XLAT_OK;
}

/* ---- creation and accessors ------------------------------------------- */

/* Load, in thousandths, at which `b`-slot buckets are sized. The paper
 * (§5.1) reports about 50%, 84%, 95% and 98% reachable with 1, 2, 4 and 8
 * slots and 500 kicks; this filter's first failures measured at 49-51%,
 * 87%, 94%, 96% and 99% for 1, 2, 3, 4 and 8 slots. Each target stays below
 * its measured limit so that `capacity` keys fit; from 4 slots on it is
 * capped at 95%, the paper's operating point. */
static uint64_t target_load_permille(uint32_t b)
{
    static const uint16_t permille[9] = {0, 450, 840, 920, 950, 950, 950, 950, 950};
    return permille[b];
}

static int check_config(xlat_ctx *ctx, const xlat_cuckoo_config *c)
{
    if (c->capacity == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_cuckoo_create: capacity is 0");
    if (c->fp_bits < 4 || c->fp_bits > 32)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_cuckoo_create: fp_bits %u is outside 4..32", c->fp_bits);
    if (c->bucket_size < 1 || c->bucket_size > 8)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_cuckoo_create: bucket_size %u is outside 1..8", c->bucket_size);
    if (c->max_kicks == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_cuckoo_create: max_kicks is 0");
    return XLAT_OK;
}

/* The smallest power-of-two bucket count that holds `capacity` keys at the
 * target load, and the 64-bit words of the packed table. */
static int plan_table(xlat_ctx *ctx, const xlat_cuckoo_config *c, uint64_t *buckets,
                      size_t *words)
{
    uint64_t per_bucket = c->bucket_size * target_load_permille(c->bucket_size);
    uint64_t need = ((uint64_t)c->capacity * 1000 + per_bucket - 1) / per_bucket;
    uint64_t n = 1;
    while (n < need && n < CUCKOO_MAX_BUCKETS * 2)
        n <<= 1;
    if (n > CUCKOO_MAX_BUCKETS)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_cuckoo_create: capacity %u with bucket_size %u needs more"
                          " than 2^32 buckets",
                          c->capacity, c->bucket_size);
    uint64_t bits = n * c->bucket_size * c->fp_bits; /* at most 2^40 */
    uint64_t w = (bits + 63) / 64;
    if (w > SIZE_MAX / sizeof(uint64_t) || n * c->bucket_size > SIZE_MAX)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_cuckoo_create: capacity %u needs a table of %llu bytes,"
                          " more than this platform can address",
                          c->capacity, (unsigned long long)(w * 8));
    *buckets = n;
    *words = (size_t)w;
    return XLAT_OK;
}

/* Hash keys and the kick generator come from one stream of the context's
 * seed: reproducible for a seed, different across seeds and filters. */
static void seed_filter(xlat_cuckoo *cf)
{
    xlat__rng_stream(cf->ctx, &cf->rng);
    cf->key_index = xlat__rng_next(&cf->rng);
    cf->key_fp = xlat__rng_next(&cf->rng);
    cf->key_alt = xlat__rng_next(&cf->rng);
    cf->rng_start = cf->rng;
}

static int alloc_filter(xlat_ctx *ctx, const xlat_cuckoo_config *c, size_t words,
                        xlat_cuckoo **out)
{
    xlat_cuckoo *cf = xlat__alloc(ctx, sizeof(*cf));
    if (!cf)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_cuckoo_create: out of memory");
    cf->table = xlat__calloc(ctx, words, sizeof(uint64_t));
    cf->undo = cf->table ? xlat__alloc(ctx, c->max_kicks) : NULL;
    if (!cf->undo) {
        xlat__free(ctx, cf->table, words * sizeof(uint64_t));
        xlat__free(ctx, cf, sizeof(*cf));
        return xlat__fail(ctx, XLAT_ERR_NOMEM,
                          "xlat_cuckoo_create: out of memory for a %zu-byte table and a"
                          " %u-byte undo log",
                          words * sizeof(uint64_t), c->max_kicks);
    }
    cf->table_words = words;
    *out = cf;
    return XLAT_OK;
}

static void destroy(void *cf) { (void)xlat_cuckoo_destroy(cf); }

/* A filter counts nothing: it is registered to be named and torn down. */
static const struct xlat__reg_ops reg_ops = {"cuckoo", NULL, NULL, destroy, NULL};

int xlat_cuckoo_create(xlat_ctx *ctx, const xlat_cuckoo_config *cfg, xlat_cuckoo **out)
{
    xlat_cuckoo_config c;
    xlat_cuckoo *cf = NULL;
    uint64_t buckets = 0;
    size_t words = 0;
    if (!ctx)
        return XLAT_ERR_INVAL;
    if (!cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_cuckoo_create: %s is NULL",
                          !cfg ? "cfg" : "out");
    xlat_cuckoo_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_CUCKOO_CONFIG_SIZE_V0, "xlat_cuckoo_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc == XLAT_OK)
        rc = plan_table(ctx, &c, &buckets, &words);
    if (rc == XLAT_OK)
        rc = alloc_filter(ctx, &c, words, &cf);
    if (rc != XLAT_OK)
        return rc;
    cf->ctx = ctx;
    cf->cfg = c;
    cf->mask = buckets - 1;
    cf->b = c.bucket_size;
    cf->f = c.fp_bits;
    cf->fp_mask = (UINT64_C(1) << c.fp_bits) - 1;
    seed_filter(cf);
    xlat__reg_add(ctx, &cf->reg, &reg_ops, cf, NULL, 0);
    *out = cf;
    return XLAT_OK;
}

int xlat_cuckoo_destroy(xlat_cuckoo *cf)
{
    if (!cf)
        return XLAT_OK; /* nothing holds a filter: it has no next level */
    xlat_ctx *ctx = cf->ctx;
    xlat__reg_remove(ctx, &cf->reg);
    xlat__free(ctx, cf->undo, cf->cfg.max_kicks);
    xlat__free(ctx, cf->table, cf->table_words * sizeof(uint64_t));
    xlat__free(ctx, cf, sizeof(*cf));
    return XLAT_OK;
}

void xlat_cuckoo_clear(xlat_cuckoo *cf)
{
    if (!cf)
        return;
    memset(cf->table, 0, cf->table_words * sizeof(uint64_t));
    cf->count = 0;
    cf->rng = cf->rng_start;
}

size_t xlat_cuckoo_count(const xlat_cuckoo *cf) { return cf ? cf->count : 0; }

size_t xlat_cuckoo_slots(const xlat_cuckoo *cf)
{
    return cf ? (size_t)((cf->mask + 1) * cf->b) : 0;
}

uint32_t xlat_cuckoo_fp_bits(const xlat_cuckoo *cf) { return cf ? cf->f : 0; }

size_t xlat_cuckoo_memory(const xlat_cuckoo *cf)
{
    if (!cf)
        return 0;
    return sizeof(*cf) + cf->table_words * sizeof(uint64_t) + cf->cfg.max_kicks;
}

/* Chains the count and then every table word, in order, through the mixer:
 * the same fingerprints in other slots give another digest, which is what a
 * check of byte-identical state needs. */
uint64_t xlat_cuckoo_digest(const xlat_cuckoo *cf)
{
    if (!cf)
        return 0;
    uint64_t h = xlat__mix64(cf->count);
    for (size_t w = 0; w < cf->table_words; w++)
        h = xlat__mix64(h ^ cf->table[w]);
    return h;
}
