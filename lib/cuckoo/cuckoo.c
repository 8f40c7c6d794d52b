/*
 * The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo
 * Filter: Practically Better Than Bloom" (CoNEXT 2014), written from the
 * paper's description: partial-key cuckoo hashing over a power-of-two table
 * of bit-packed fingerprints, with a failed insert rolled back instead of
 * parked in a victim stash.
 */
#include "cuckoo_internal.h"

/* Highest number of buckets: keeps slot counts within 35 bits and every
 * bucket index within 32, far beyond what a simulated structure needs. */
#define CUCKOO_MAX_BUCKETS (UINT64_C(1) << 32)

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
    cf->key_alt = xlat__rng_next(&cf->rng) | 1; /* an odd multiplier */
    cf->rng_start = cf->rng;
}

static int alloc_filter(xlat_ctx *ctx, const xlat_cuckoo_config *c, size_t words,
                        xlat_cuckoo **out)
{
    xlat_cuckoo *cf = xlat__alloc(ctx, sizeof(*cf));
    if (!cf)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_cuckoo_create: out of memory");
    cf->table = xlat__calloc(ctx, words + CUCKOO_PAD_WORDS, sizeof(uint64_t));
    cf->undo = cf->table ? xlat__alloc(ctx, c->max_kicks) : NULL;
    if (!cf->undo) {
        xlat__free(ctx, cf->table, (words + CUCKOO_PAD_WORDS) * sizeof(uint64_t));
        xlat__free(ctx, cf, sizeof(*cf));
        return xlat__fail(ctx, XLAT_ERR_NOMEM,
                          "xlat_cuckoo_create: out of memory for a %zu-byte table and a"
                          " %u-byte undo log",
                          (words + CUCKOO_PAD_WORDS) * sizeof(uint64_t), c->max_kicks);
    }
    cf->table_words = words;
    *out = cf;
    return XLAT_OK;
}

static void destroy(void *cf) { (void)xlat_cuckoo_destroy(cf); }

/* A filter counts nothing: it is registered to be named and torn down. */
static const struct xlat__reg_ops reg_ops = {"cuckoo", NULL, NULL, destroy, NULL, NULL};

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
    for (uint32_t lane = 0; lane < 4 && lane * cf->f < 64; lane++)
        cf->lane_ones |= UINT64_C(1) << lane * cf->f;
    cf->ops = *xlat__cuckoo_shape(cf->f, cf->b);
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
    xlat__free(ctx, cf->table, (cf->table_words + CUCKOO_PAD_WORDS) * sizeof(uint64_t));
    xlat__free(ctx, cf, sizeof(*cf));
    return XLAT_OK;
}

void xlat_cuckoo_clear(xlat_cuckoo *cf)
{
    if (!cf)
        return;
    memset(cf->table, 0, (cf->table_words + CUCKOO_PAD_WORDS) * sizeof(uint64_t));
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
    return sizeof(*cf) + (cf->table_words + CUCKOO_PAD_WORDS) * sizeof(uint64_t) +
           cf->cfg.max_kicks;
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
