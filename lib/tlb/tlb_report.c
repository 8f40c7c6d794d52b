/* The TLB's reporting calls: sizes, contents, callbacks and counters. */
#include "tlb_internal.h"
#include "tlb_id.h"

size_t xlat_tlb_count(const xlat_tlb *t) { return t ? t->count : 0; }

size_t xlat_tlb_capacity(const xlat_tlb *t) { return t ? (size_t)t->sets * t->ways : 0; }

uint32_t xlat_tlb_sets(const xlat_tlb *t) { return t ? t->sets : 0; }

const char *xlat_tlb_name(const xlat_tlb *t) { return t ? t->name : ""; }

uint32_t xlat__tlb_id(const xlat_tlb *t) { return t->reg.id; }

size_t xlat_tlb_memory(const xlat_tlb *t)
{
    if (!t)
        return 0;
    return sizeof(*t) + strlen(t->name) + 1 + xlat__tlb_way_bytes(t->sets, t->ways) +
           (size_t)t->sets * t->repl_words * sizeof(uint64_t) +
           xlat__tlb_hooks_bytes(&t->evict_listeners) +
           xlat__tlb_hooks_bytes(&t->inval_observers) + xlat__tlb_timed_bytes(t);
}

int xlat_tlb_set_foreach(const xlat_tlb *t, uint32_t set,
                         void (*fn)(void *user, const xlat_tlb_entry *e), void *user)
{
    if (!t || !fn || set >= t->sets)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_tlb_set_foreach: %s", !t ? "NULL tlb" : !fn ? "NULL fn"
                                                                            : "set out of range");
    /* A reporting call, not a hot path: it may allocate the order buffer. */
    uint32_t *order = xlat__calloc(t->ctx, t->ways, sizeof(*order));
    if (!order)
        return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "xlat_tlb_set_foreach: out of memory");
    t->repl->order(t, xlat__tlb_set_state(t, set), order);
    const struct tlb_way *base = t->way + (size_t)set * t->ways;
    for (uint32_t i = 0; i < t->ways; i++) {
        if (base[order[i]].page_shift == 0)
            continue;
        xlat_tlb_entry e;
        xlat__tlb_way_to_entry(&base[order[i]], &e);
        fn(user, &e);
    }
    xlat__free(t->ctx, order, t->ways * sizeof(*order));
    return XLAT_OK;
}

void xlat_tlb_set_evict_fn(xlat_tlb *t, xlat_tlb_evict_fn fn, void *user)
{
    if (!t)
        return;
    t->evict_fn = fn;
    t->evict_user = user;
}

void xlat_tlb_stats_get(const xlat_tlb *t, xlat_tlb_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, t ? &t->stats : NULL, sizeof(t->stats));
}

void xlat_tlb_stats_reset(xlat_tlb *t)
{
    if (!t)
        return;
    memset(&t->stats, 0, sizeof(t->stats));
    xlat__tlb_latency_reset(t);
}

/* Counters by name (doc/statistics.md): one line per member of xlat_tlb_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_tlb_stats, accesses),
    XLAT__COUNTER(xlat_tlb_stats, hits),
    XLAT__COUNTER(xlat_tlb_stats, misses),
    XLAT__COUNTER(xlat_tlb_stats, mshr_merges),
    XLAT__COUNTER(xlat_tlb_stats, refusals),
    XLAT__COUNTER(xlat_tlb_stats, inserts),
    XLAT__COUNTER(xlat_tlb_stats, updates),
    XLAT__COUNTER(xlat_tlb_stats, evictions),
    XLAT__COUNTER(xlat_tlb_stats, invalidations),
    XLAT__COUNTER(xlat_tlb_stats, faults),
};

static void stats_foreach(const void *t, const struct xlat__stats_sink *sink)
{
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *t) { xlat_tlb_stats_reset(t); }
static void destroy(void *t) { (void)xlat_tlb_destroy(t); }
static void latency(const void *t, xlat_latency_hist *out) { xlat__tlb_latency(t, out); }

const struct xlat__reg_ops xlat__tlb_reg_ops = {"tlb", stats_foreach, stats_reset, destroy,
                                                latency, NULL};
