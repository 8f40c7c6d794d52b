/* Page walk caches. An entry of level k is a "page" of 2^level_shift(k)
 * bytes whose frame is the level k-1 node: the tag (pasid, vaddr >>
 * level_shift(k)) is a TLB's, so a per-level PWC is one small array per
 * cached level and a unified PWC is one array holding several page sizes
 * (pwc_array.h). Lookups try the deepest level first: the longest-prefix
 * match. */
#include <stdio.h>

#include "internal.h"
#include "pwc_array.h"
#include "registry.h"
#include "unit_target.h"
#include "xlat/pagetable.h"
#include "xlat/pwc.h"

/* Slots of the config's per-level arrays (index 0: the unified cache). */
#define PWC_SLOTS 8
/* The widest virtual address xlat_pagetable_create() accepts: a PWC has the
 * geometry of the table it caches. */
#define PWC_MAX_VA_BITS 57

_Static_assert(XLAT_PT_MAX_LEVELS < PWC_SLOTS, "pwc arrays must index every level");
_Static_assert(sizeof(((xlat_pwc_config *)0)->entries) == PWC_SLOTS * sizeof(uint32_t),
               "PWC_SLOTS must match xlat_pwc_config.entries");

struct xlat_pwc {
    xlat_ctx *ctx;
    char *name;
    xlat_pwc_config cfg;
    struct pwc_array *of_level[PWC_SLOTS]; /* the cache that holds level k; NULL: not kept */
    uint8_t shift[PWC_SLOTS];               /* level_shift(k), for each level */
    struct pwc_array cache[PWC_SLOTS];      /* the distinct caches, deepest level first */
    uint32_t ncache;
    xlat_pwc_stats stats;
    struct xlat__reg reg;
};

void xlat_pwc_config_init_sized(xlat_pwc_config *out, size_t size)
{
    xlat_pwc_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "pwc";
    cfg->org = XLAT_PWC_PER_LEVEL;
    cfg->levels = 4;
    cfg->bits_per_level = 9;
    cfg->page_shift = 12;
    cfg->entries[0] = 32;
    /* Every level a table may have, so raising `levels` alone keeps 16 per level. */
    for (uint32_t k = 2; k <= XLAT_PT_MAX_LEVELS; k++)
        cfg->entries[k] = 16;
    cfg->repl = XLAT_REPL_LRU;
    cfg->latency = 1;
    xlat__config_out(out, size, &full, sizeof(full));
}

static uint8_t level_shift(const xlat_pwc_config *c, uint32_t level)
{
    return (uint8_t)(c->page_shift + c->bits_per_level * (level - 1));
}

/* The config slots that hold caches: 0 for unified, else levels 2..levels. */
static void slot_range(const xlat_pwc_config *c, uint32_t *first, uint32_t *last)
{
    *first = c->org == XLAT_PWC_UNIFIED ? 0 : 2;
    *last = c->org == XLAT_PWC_UNIFIED ? 0 : c->levels;
}

static void slot_label(uint32_t slot, char *buf, size_t size)
{
    if (slot == 0)
        snprintf(buf, size, "unified");
    else
        snprintf(buf, size, "level %u", slot);
}

static uint32_t slot_ways(const xlat_pwc_config *c, uint32_t slot)
{
    return c->ways[slot] ? c->ways[slot] : c->entries[slot];
}

static int check_geometry(xlat_ctx *ctx, const xlat_pwc_config *c, const char *n)
{
    if ((unsigned)c->org > XLAT_PWC_UNIFIED)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: unknown organisation (org) %d", n, (int)c->org);
    if (c->levels < 2 || c->levels > XLAT_PT_MAX_LEVELS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: levels %u is outside 2..%d", n, c->levels,
                          XLAT_PT_MAX_LEVELS);
    if (c->bits_per_level < 1 || c->bits_per_level > 9)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: bits_per_level %u is outside 1..9", n,
                          c->bits_per_level);
    if (c->page_shift != 12)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: page_shift %u is not 12", n,
                          c->page_shift);
    /* Bounds above keep this product small; it also keeps level_shift < 64. */
    if (c->page_shift + c->levels * c->bits_per_level > PWC_MAX_VA_BITS)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "pwc %s: %u levels of %u bits make a %u-bit address, beyond %d", n,
                          c->levels, c->bits_per_level,
                          c->page_shift + c->levels * c->bits_per_level, PWC_MAX_VA_BITS);
    if ((unsigned)c->repl > XLAT_REPL_PLRU)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: unknown replacement policy (repl) %d", n,
                          (int)c->repl);
    return XLAT_OK;
}

/* The arrays trust their geometry: every slot in use is checked here,
 * with a message that names the level. */
static int check_slot(xlat_ctx *ctx, const xlat_pwc_config *c, const char *n, uint32_t slot)
{
    uint32_t entries = c->entries[slot], ways = slot_ways(c, slot);
    char what[24];
    if (entries == 0)
        return XLAT_OK; /* disabled: its ways do not matter */
    slot_label(slot, what, sizeof(what));
    if (entries % ways)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pwc %s: %s: ways (%u) must divide entries (%u)",
                          n, what, ways, entries);
    if (c->repl == XLAT_REPL_PLRU && !xlat__is_pow2(ways))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "pwc %s: %s: PLRU needs a power-of-two number of ways, not %u", n, what,
                          ways);
    return XLAT_OK;
}

static int check_config(xlat_ctx *ctx, const xlat_pwc_config *c)
{
    const char *n = c->name ? c->name : "pwc";
    int rc = check_geometry(ctx, c, n);
    uint32_t first, last;
    if (rc != XLAT_OK)
        return rc;
    slot_range(c, &first, &last);
    for (uint32_t s = first; s <= last && rc == XLAT_OK; s++)
        rc = check_slot(ctx, c, n, s);
    return rc;
}

/* Creates the caches deepest level first, the order lookups try them in
 * (and the order their random streams were drawn in when they were TLBs). */
static int build_caches(xlat_pwc *p)
{
    uint32_t first, last;
    slot_range(&p->cfg, &first, &last);
    for (uint32_t k = 2; k <= p->cfg.levels; k++)
        p->shift[k] = level_shift(&p->cfg, k);
    for (uint32_t s = first; s <= last; s++) {
        if (p->cfg.entries[s] == 0)
            continue;
        struct pwc_array *a = &p->cache[p->ncache];
        int rc = xlat__pwc_array_init(p->ctx, a, p->cfg.entries[s], slot_ways(&p->cfg, s),
                                      p->cfg.repl);
        if (rc != XLAT_OK)
            return rc;
        p->ncache++;
        for (uint32_t k = 2; k <= p->cfg.levels; k++)
            if (s == 0 || s == k)
                p->of_level[k] = a;
    }
    return XLAT_OK;
}

static const struct xlat__reg_ops reg_ops;

static void pwc_free(xlat_pwc *p)
{
    xlat__reg_remove(p->ctx, &p->reg);
    for (uint32_t i = 0; i < p->ncache; i++)
        xlat__pwc_array_fini(p->ctx, &p->cache[i]);
    xlat__strfree(p->ctx, p->name);
    xlat__free(p->ctx, p, sizeof(*p));
}

int xlat_pwc_create(xlat_ctx *ctx, const xlat_pwc_config *cfg, xlat_pwc **out)
{
    xlat_pwc_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pwc_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_pwc_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_PWC_CONFIG_SIZE_V0, "xlat_pwc_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_pwc *p = xlat__alloc(ctx, sizeof(*p));
    if (!p)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_pwc_create: out of memory");
    p->ctx = ctx;
    p->cfg = c;
    p->name = xlat__strdup(ctx, c.name ? c.name : "pwc");
    p->cfg.name = p->name;
    /* The config is checked, so a cache can only fail for memory. */
    rc = p->name ? build_caches(p) : XLAT_ERR_NOMEM;
    if (rc != XLAT_OK) {
        pwc_free(p);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_pwc_create: out of memory for %s",
                          c.name ? c.name : "pwc");
    }
    xlat__reg_add(ctx, &p->reg, &reg_ops, p, p->name, 0);
    *out = p;
    return XLAT_OK;
}

int xlat_pwc_destroy(xlat_pwc *p)
{
    if (!p)
        return XLAT_OK;
    int rc = xlat__reg_unheld(p->ctx, &p->reg, "pwc");
    if (rc == XLAT_OK)
        pwc_free(p);
    return rc;
}

/* The deepest cached level for vaddr, or 0. Levels are tried deepest
 * first, so the first hit is the longest prefix. Only the entry used is
 * touched: the walk does not read the shallower ones. */
static uint32_t find(xlat_pwc *p, uint32_t pasid, uint64_t vaddr, int touch, xlat_pwc_hit *hit)
{
    for (uint32_t k = 2; k <= p->cfg.levels; k++) {
        struct pwc_array *a = p->of_level[k];
        if (!a)
            continue;
        const struct pwc_way *w = xlat__pwc_array_find(a, pasid, vaddr >> p->shift[k],
                                                       p->shift[k], touch);
        if (!w)
            continue;
        hit->level = k;
        hit->next_level = k - 1;
        hit->node_pfn = w->node_pfn;
        return k;
    }
    return 0;
}

int xlat_pwc_lookup(xlat_pwc *p, uint32_t pasid, uint64_t vaddr, xlat_pwc_hit *out)
{
    xlat_pwc_hit h;
    if (!p)
        return XLAT_ERR_INVAL;
    p->stats.lookups++;
    if (!find(p, pasid, vaddr, 1, &h)) {
        p->stats.misses++;
        return XLAT_ERR_NOT_FOUND;
    }
    p->stats.hits[h.level]++;
    if (out)
        *out = h;
    return XLAT_OK;
}

int xlat_pwc_probe(const xlat_pwc *p, uint32_t pasid, uint64_t vaddr, xlat_pwc_hit *out)
{
    xlat_pwc_hit h;
    if (!p)
        return XLAT_ERR_INVAL;
    if (!find((xlat_pwc *)p, pasid, vaddr, 0, &h)) /* touches nothing */
        return XLAT_ERR_NOT_FOUND;
    if (out)
        *out = h;
    return XLAT_OK;
}

int xlat_pwc_fill(xlat_pwc *p, uint32_t pasid, uint64_t vaddr, uint32_t level, uint64_t node_pfn)
{
    if (!p)
        return XLAT_ERR_INVAL;
    if (level < 2 || level > p->cfg.levels)
        return xlat__fail(p->ctx, XLAT_ERR_INVAL,
                          "pwc %s: cannot fill level %u; cached levels are 2..%u", p->name, level,
                          p->cfg.levels);
    struct pwc_array *a = p->of_level[level];
    if (!a)
        return XLAT_OK; /* a disabled level keeps nothing, and counts no fill */
    /* Bounded caches and a checked geometry: the fill cannot fail. */
    int evicted = xlat__pwc_array_fill(a, pasid, vaddr >> p->shift[level], p->shift[level],
                                       node_pfn);
    p->stats.fills++;
    p->stats.evictions += (uint64_t)evicted;
    return XLAT_OK;
}

int xlat_pwc_invalidate(xlat_pwc *p, uint32_t pasid, uint64_t vaddr)
{
    if (!p)
        return XLAT_ERR_INVAL;
    /* A unified cache may drop one entry per level: the count says so. */
    int removed = 0;
    for (uint32_t i = 0; i < p->ncache; i++)
        removed += xlat__pwc_array_invalidate(&p->cache[i], pasid, vaddr);
    return removed;
}

int xlat_pwc_invalidate_pasid(xlat_pwc *p, uint32_t pasid)
{
    if (!p)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (uint32_t i = 0; i < p->ncache; i++)
        removed += xlat__pwc_array_invalidate_pasid(&p->cache[i], pasid);
    return removed;
}

int xlat_pwc_flush(xlat_pwc *p)
{
    if (!p)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (uint32_t i = 0; i < p->ncache; i++)
        removed += xlat__pwc_array_flush(&p->cache[i]);
    return removed;
}

uint32_t xlat_pwc_latency(const xlat_pwc *p) { return p ? p->cfg.latency : 0; }

int xlat_pwc_geometry(const xlat_pwc *p, uint32_t *levels, uint32_t *bits_per_level,
                      uint32_t *page_shift)
{
    if (!p)
        return XLAT_ERR_INVAL;
    if (levels)
        *levels = p->cfg.levels;
    if (bits_per_level)
        *bits_per_level = p->cfg.bits_per_level;
    if (page_shift)
        *page_shift = p->cfg.page_shift;
    return XLAT_OK;
}

void xlat_pwc_stats_get(const xlat_pwc *p, xlat_pwc_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, p ? &p->stats : NULL, sizeof(p->stats));
}

void xlat_pwc_stats_reset(xlat_pwc *p)
{
    if (p)
        memset(&p->stats, 0, sizeof(p->stats));
}

/* Counters by name (doc/statistics.md): one line per member of
 * xlat_pwc_stats, hits by level (index = level). */
_Static_assert(XLAT__ARRAY_LEN(xlat_pwc_stats, hits) == 8, "the table below names every level");
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_pwc_stats, lookups),
    XLAT__COUNTER(xlat_pwc_stats, misses),
    XLAT__COUNTER_AT4(xlat_pwc_stats, hits, 0, 1, 2, 3),
    XLAT__COUNTER_AT4(xlat_pwc_stats, hits, 4, 5, 6, 7),
    XLAT__COUNTER(xlat_pwc_stats, fills),
    XLAT__COUNTER(xlat_pwc_stats, evictions),
};

static void stats_foreach(const void *p, const struct xlat__stats_sink *sink)
{
    xlat_pwc_stats st;
    xlat_pwc_stats_get(p, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *p) { xlat_pwc_stats_reset(p); }
static void destroy(void *p) { (void)xlat_pwc_destroy(p); }

static const struct xlat__reg_ops reg_ops = {"pwc", stats_foreach, stats_reset, destroy, NULL, NULL};
