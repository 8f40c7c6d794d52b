/* The cuckoo filter against a counting multiset of the keys inserted:
 * random widths (4..32 bits), bucket sizes (1..8), capacities and kick
 * budgets; insert, insert_unique, contains, remove and clear. What must
 * hold: no false negatives, a remove of an inserted key succeeds, count()
 * is successful inserts minus removes, a refused insert (FULL, EXIST) or a
 * remove that found nothing leaves the table exactly as it was (digest),
 * and a key with 2 x bucket_size copies refuses another. Bad configs are
 * refused with INVAL and a message. */
#include <string.h>

#include "fuzz.h"

/* Distinct keys an input can hold: ops are at most one per input byte. */
#define MAX_KEYS 1024

typedef struct multiset {
    uint64_t key[MAX_KEYS];
    uint32_t copies[MAX_KEYS];
    size_t n;       /* distinct keys, copies > 0 or not */
    size_t total;   /* copies of every key */
} multiset;

static size_t ms_find(const multiset *m, uint64_t key)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->key[i] == key)
            return i;
    return m->n;
}

static uint32_t ms_copies(const multiset *m, uint64_t key)
{
    size_t i = ms_find(m, key);
    return i < m->n ? m->copies[i] : 0;
}

static void ms_add(multiset *m, uint64_t key)
{
    size_t i = ms_find(m, key);
    if (i == m->n) { /* room: the driver stops at MAX_KEYS */
        m->key[m->n] = key;
        m->copies[m->n++] = 0;
    }
    m->copies[i]++;
    m->total++;
}

/* The key with copies of number `pick` among the held ones (wrapping). */
static int ms_pick(const multiset *m, uint32_t pick, uint64_t *key)
{
    size_t held = 0;
    for (size_t i = 0; i < m->n; i++)
        held += m->copies[i] > 0;
    if (held == 0)
        return 0;
    pick %= (uint32_t)held;
    for (size_t i = 0; i < m->n; i++)
        if (m->copies[i] > 0 && pick-- == 0) {
            *key = m->key[i];
            return 1;
        }
    return 0;
}

/* A small key space, so that copies and collisions happen; the high bits
 * keep hashing honest. */
static uint64_t read_key(fuzz_input *in)
{
    uint64_t k = fuzz_u8(in);
    return k & 0x80 ? k | (uint64_t)fuzz_u32(in) << 8 : k;
}

static void check_config_refusal(xlat_ctx *ctx, fuzz_input *in)
{
    xlat_cuckoo_config cfg;
    xlat_cuckoo *cf = NULL;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = fuzz_u8(in) % 4;
    cfg.fp_bits = fuzz_u8(in) % 40;
    cfg.bucket_size = fuzz_u8(in) % 10;
    cfg.max_kicks = fuzz_u8(in) % 3;
    int valid = cfg.capacity >= 1 && cfg.fp_bits >= 4 && cfg.fp_bits <= 32 &&
                cfg.bucket_size >= 1 && cfg.bucket_size <= 8 && cfg.max_kicks >= 1;
    int rc = xlat_cuckoo_create(ctx, &cfg, &cf);
    FUZZ_CHECK(rc == (valid ? XLAT_OK : XLAT_ERR_INVAL), "create(cap %u fp %u b %u kicks %u): %d",
               cfg.capacity, cfg.fp_bits, cfg.bucket_size, cfg.max_kicks, rc);
    if (!valid)
        FUZZ_CHECK(xlat_ctx_errmsg(ctx)[0] != '\0', "refused without a message");
    xlat_cuckoo_destroy(cf);
}

static void check_all_present(const xlat_cuckoo *cf, const multiset *m)
{
    for (size_t i = 0; i < m->n; i++)
        FUZZ_CHECK(m->copies[i] == 0 || xlat_cuckoo_contains(cf, m->key[i]),
                   "false negative for key 0x%llx (%u copies)", (unsigned long long)m->key[i],
                   m->copies[i]);
    FUZZ_CHECK(xlat_cuckoo_count(cf) == m->total, "count %zu, inserted %zu",
               xlat_cuckoo_count(cf), m->total);
}

static void do_insert(xlat_cuckoo *cf, multiset *m, uint64_t key, uint32_t bucket_size)
{
    uint64_t before = xlat_cuckoo_digest(cf);
    int rc = xlat_cuckoo_insert(cf, key);
    if (rc == XLAT_OK) {
        FUZZ_CHECK(ms_copies(m, key) < 2 * bucket_size, "a copy beyond 2 x bucket_size went in");
        ms_add(m, key);
        return;
    }
    FUZZ_CHECK(rc == XLAT_ERR_FULL, "insert: %d", rc);
    FUZZ_CHECK(xlat_cuckoo_digest(cf) == before, "a refused insert changed the table");
}

static void do_insert_unique(xlat_cuckoo *cf, multiset *m, uint64_t key)
{
    uint64_t before = xlat_cuckoo_digest(cf);
    int seemed = xlat_cuckoo_contains(cf, key);
    int rc = xlat_cuckoo_insert_unique(cf, key);
    FUZZ_CHECK((rc == XLAT_ERR_EXIST) == seemed, "insert_unique %d, contains %d", rc, seemed);
    if (rc == XLAT_OK)
        ms_add(m, key);
    else
        FUZZ_CHECK(xlat_cuckoo_digest(cf) == before, "a refused insert_unique changed the table");
    FUZZ_CHECK(rc == XLAT_OK || rc == XLAT_ERR_EXIST || rc == XLAT_ERR_FULL, "insert_unique: %d",
               rc);
}

static void do_remove_held(xlat_cuckoo *cf, multiset *m, uint32_t pick)
{
    uint64_t key;
    if (!ms_pick(m, pick, &key))
        return;
    int rc = xlat_cuckoo_remove(cf, key);
    FUZZ_CHECK(rc == XLAT_OK, "remove of inserted key 0x%llx: %d", (unsigned long long)key, rc);
    m->copies[ms_find(m, key)]--;
    m->total--;
    check_all_present(cf, m);
}

/* Only a key the filter says it does not hold: removing one it seems to
 * hold may take another key's fingerprint (documented). */
static void do_remove_absent(xlat_cuckoo *cf, uint64_t key)
{
    if (xlat_cuckoo_contains(cf, key))
        return;
    uint64_t before = xlat_cuckoo_digest(cf);
    FUZZ_CHECK(xlat_cuckoo_remove(cf, key) == XLAT_ERR_NOT_FOUND, "removed an absent key");
    FUZZ_CHECK(xlat_cuckoo_digest(cf) == before, "a failed remove changed the table");
}

static void run_ops(xlat_cuckoo *cf, multiset *m, fuzz_input *in, uint32_t bucket_size)
{
    while (fuzz_more(in) && m->n < MAX_KEYS) {
        uint8_t op = fuzz_u8(in);
        switch (op % 8) {
        case 0: case 1: case 2:
            do_insert(cf, m, read_key(in), bucket_size);
            break;
        case 3:
            do_insert_unique(cf, m, read_key(in));
            break;
        case 4: {
            uint64_t key = read_key(in);
            FUZZ_CHECK(ms_copies(m, key) == 0 || xlat_cuckoo_contains(cf, key),
                       "false negative for 0x%llx", (unsigned long long)key);
            break;
        }
        case 5:
            do_remove_held(cf, m, fuzz_u8(in));
            break;
        case 6:
            do_remove_absent(cf, read_key(in));
            break;
        default:
            if (op == 0xff) { /* rare: everything goes */
                xlat_cuckoo_clear(cf);
                memset(m->copies, 0, sizeof(m->copies));
                m->total = 0;
            }
            break;
        }
        FUZZ_CHECK(xlat_cuckoo_count(cf) == m->total, "count %zu, inserted %zu",
                   xlat_cuckoo_count(cf), m->total);
    }
    check_all_present(cf, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    xlat_ctx_config cc;
    xlat_ctx *ctx;
    xlat_ctx_config_init(&cc);
    cc.seed = fuzz_u32(&in);
    if (xlat_ctx_create(&cc, &ctx) != XLAT_OK)
        return 0;
    check_config_refusal(ctx, &in);
    xlat_cuckoo_config cfg;
    xlat_cuckoo *cf;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = 1 + fuzz_u16(&in) % 512;
    cfg.fp_bits = 4 + fuzz_u8(&in) % 29;
    cfg.bucket_size = 1 + fuzz_u8(&in) % 8;
    cfg.max_kicks = 1 + fuzz_u16(&in) % 600;
    int rc = xlat_cuckoo_create(ctx, &cfg, &cf);
    FUZZ_CHECK(rc == XLAT_OK, "create: %s", xlat_ctx_errmsg(ctx));
    FUZZ_CHECK(xlat_cuckoo_fp_bits(cf) == cfg.fp_bits, "fp_bits %u", xlat_cuckoo_fp_bits(cf));
    FUZZ_CHECK(xlat_cuckoo_slots(cf) >= cfg.capacity, "%zu slots for %u keys",
               xlat_cuckoo_slots(cf), cfg.capacity);
    multiset *m = calloc(1, sizeof(*m));
    if (m)
        run_ops(cf, m, &in, cfg.bucket_size);
    free(m);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
    return 0;
}
