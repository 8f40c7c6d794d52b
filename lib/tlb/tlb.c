/* The TLB as a structure: placement, lookup, insert, invalidation. */
#include "clock.h"
#include "tlb_internal.h"
#include "unit_target.h"

/* An unbounded TLB doubles its sets when one set overflows; wide sets let
 * it reach a high load before that happens. */
#define UNBOUNDED_WAYS 32
#define UNBOUNDED_SETS 16

void xlat_tlb_config_init_sized(xlat_tlb_config *out, size_t size)
{
    xlat_tlb_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "tlb";
    cfg->entries = 64;
    cfg->ways = 4;
    cfg->repl = XLAT_REPL_LRU;
    cfg->latency = 1;
    cfg->mshrs = 4;
    cfg->ports = 1;
    cfg->index = XLAT_TLB_INDEX_MODULO;
    xlat__config_out(out, size, &full, sizeof(full));
}

static const struct tlb_repl_ops *repl_ops(xlat_repl repl)
{
    switch (repl) {
    case XLAT_REPL_LRU: return &xlat__repl_lru;
    case XLAT_REPL_FIFO: return &xlat__repl_fifo;
    case XLAT_REPL_RANDOM: return &xlat__repl_random;
    case XLAT_REPL_PLRU: return &xlat__repl_plru;
    default: return NULL;
    }
}

static int check_config(xlat_ctx *ctx, const xlat_tlb_config *c)
{
    const char *n = c->name ? c->name : "tlb";
    if (!repl_ops(c->repl))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "tlb %s: unknown replacement policy (repl) %d", n,
                          (int)c->repl);
    if ((unsigned)c->index > XLAT_TLB_INDEX_HASH)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "tlb %s: unknown index policy (index) %d", n, (int)c->index);
    if (c->mshrs == 0 || c->ports == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "tlb %s: mshrs (%u) and ports (%u) must be >= 1",
                          n, c->mshrs, c->ports);
    int rc = xlat__clock_check(ctx, "tlb", n, c->clock_num, c->clock_den);
    if (rc != XLAT_OK)
        return rc;
    if (c->entries == 0)
        return XLAT_OK; /* unbounded: ways and policy do not apply */
    if (c->ways == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "tlb %s: ways must be >= 1", n);
    if (c->entries % c->ways)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "tlb %s: ways (%u) must divide entries (%u)", n,
                          c->ways, c->entries);
    if (c->repl == XLAT_REPL_PLRU && !xlat__is_pow2(c->ways))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "tlb %s: PLRU needs a power-of-two number of ways, not %u", n, c->ways);
    return XLAT_OK;
}

int xlat__tlb_arrays_alloc(xlat_tlb *t, uint32_t sets, struct tlb_way **way, uint64_t **state)
{
    *way = xlat__calloc(t->ctx, 1, xlat__tlb_way_bytes(sets, t->ways));
    *state = xlat__calloc(t->ctx, (size_t)sets * t->repl_words, sizeof(**state));
    if (*way && *state)
        return XLAT_OK;
    xlat__tlb_arrays_free(t, sets, *way, *state);
    *way = NULL;
    *state = NULL;
    return XLAT_ERR_NOMEM;
}

void xlat__tlb_arrays_free(xlat_tlb *t, uint32_t sets, struct tlb_way *way, uint64_t *state)
{
    xlat__free(t->ctx, way, xlat__tlb_way_bytes(sets, t->ways));
    xlat__free(t->ctx, state, (size_t)sets * t->repl_words * sizeof(*state));
}

static void free_arrays(xlat_tlb *t)
{
    xlat__tlb_arrays_free(t, t->sets, t->way, t->repl_state);
    t->way = NULL;
    t->tag = NULL;
    t->repl_state = NULL;
}

static int init_storage(xlat_tlb *t)
{
    if (xlat__tlb_unbounded(t)) {
        /* An ideal TLB is a hashed table that doubles instead of evicting. */
        t->cfg.index = XLAT_TLB_INDEX_HASH;
        t->ways = UNBOUNDED_WAYS;
        t->repl = &xlat__repl_random; /* never asked for a victim; keeps no state */
        xlat__tlb_set_geometry(t, UNBOUNDED_SETS);
    } else {
        t->ways = t->cfg.ways;
        t->repl = repl_ops(t->cfg.repl);
        xlat__tlb_set_geometry(t, t->cfg.entries / t->cfg.ways);
    }
    t->repl_words = (uint32_t)t->repl->state_words(t->ways);
    int rc = xlat__tlb_arrays_alloc(t, t->sets, &t->way, &t->repl_state);
    t->tag = t->way ? xlat__tlb_tags_after(t->way, t->sets, t->ways) : NULL;
    return rc;
}

static void tlb_free(xlat_tlb *t)
{
    xlat__tlb_notify_gone(t);
    xlat__reg_remove(t->ctx, &t->reg);
    xlat__tlb_timed_release(t);
    xlat__tlb_hooks_release(t->ctx, &t->evict_listeners);
    xlat__tlb_hooks_release(t->ctx, &t->inval_observers);
    xlat__tlb_hooks_release(t->ctx, &t->gone_watchers);
    free_arrays(t);
    xlat__busy_forget(t->ctx, t->name);
    xlat__strfree(t->ctx, t->name);
    xlat__free(t->ctx, t, sizeof(*t));
}

int xlat_tlb_create(xlat_ctx *ctx, const xlat_tlb_config *cfg, xlat_tlb **out)
{
    xlat_tlb_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_tlb_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_tlb_config_init(&c);
    /* The first released config ended at `index`; later fields keep their defaults. */
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_TLB_CONFIG_SIZE_V0,
                               "xlat_tlb_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_tlb *t = xlat__alloc(ctx, sizeof(*t));
    if (!t)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_tlb_create: out of memory");
    t->ctx = ctx;
    t->cfg = c;
    t->name = xlat__strdup(ctx, c.name ? c.name : "tlb");
    t->cfg.name = t->name;
    xlat__rng_stream(ctx, &t->rng);
    /* The timed unit is allocated by the first call that needs it. */
    if (!t->name || init_storage(t) != XLAT_OK) {
        tlb_free(t);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_tlb_create: out of memory for %s",
                          c.name ? c.name : "tlb");
    }
    xlat__reg_add(ctx, &t->reg, &xlat__tlb_reg_ops, t, t->name, 0);
    *out = t;
    return XLAT_OK;
}

int xlat_tlb_destroy(xlat_tlb *t)
{
    if (!t)
        return XLAT_OK;
    int rc = xlat__reg_unheld(t->ctx, &t->reg, "tlb");
    if (rc == XLAT_OK)
        tlb_free(t);
    return rc;
}

int xlat_tlb_lookup(xlat_tlb *t, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    if (!t)
        return XLAT_ERR_INVAL;
    struct tlb_way *w = xlat__tlb_find(t, pasid, vaddr, 1);
    t->stats.accesses++;
    if (!w) {
        t->stats.misses++;
        return XLAT_ERR_NOT_FOUND;
    }
    t->stats.hits++;
    if (out)
        xlat__tlb_way_to_entry(w, out);
    return XLAT_OK;
}

int xlat_tlb_probe(const xlat_tlb *t, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    if (!t)
        return XLAT_ERR_INVAL;
    struct tlb_way *w = xlat__tlb_find((xlat_tlb *)t, pasid, vaddr, 0);
    if (!w)
        return XLAT_ERR_NOT_FOUND;
    if (out)
        xlat__tlb_way_to_entry(w, out);
    return XLAT_OK;
}
