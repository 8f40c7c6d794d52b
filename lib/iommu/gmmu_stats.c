/* The GMMU's counters by name (doc/statistics.md): one line per uint64_t
 * member of xlat_gmmu_stats, routed and decisions by route (index =
 * xlat_gmmu_routing). The two accuracy sums are doubles, not counters:
 * they stay with xlat_gmmu_stats_get(). */
#include "gmmu_internal.h"

_Static_assert(XLAT_GMMU_ROUTES == 3, "the table below names every route");
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_gmmu_stats, requests),
    XLAT__COUNTER(xlat_gmmu_stats, refusals),
    XLAT__COUNTER(xlat_gmmu_stats, completed),
    XLAT__COUNTER(xlat_gmmu_stats, local),
    XLAT__COUNTER(xlat_gmmu_stats, remote),
    XLAT__COUNTER(xlat_gmmu_stats, failed),
    XLAT__COUNTER(xlat_gmmu_stats, latency_cycles),
    XLAT__COUNTER_AT(xlat_gmmu_stats, routed, 0), XLAT__COUNTER_AT(xlat_gmmu_stats, routed, 1),
    XLAT__COUNTER_AT(xlat_gmmu_stats, routed, 2),
    XLAT__COUNTER(xlat_gmmu_stats, gmmu_walks),
    XLAT__COUNTER(xlat_gmmu_stats, wasted_walks),
    XLAT__COUNTER(xlat_gmmu_stats, iommu_requests),
    XLAT__COUNTER(xlat_gmmu_stats, parallel),
    XLAT__COUNTER(xlat_gmmu_stats, discarded_gmmu),
    XLAT__COUNTER(xlat_gmmu_stats, discarded_iommu),
    XLAT__COUNTER(xlat_gmmu_stats, gmmu_retries),
    XLAT__COUNTER(xlat_gmmu_stats, iommu_retries),
    XLAT__COUNTER(xlat_gmmu_stats, touched_local),
    XLAT__COUNTER(xlat_gmmu_stats, touched_remote),
    XLAT__COUNTER(xlat_gmmu_stats, epochs),
    XLAT__COUNTER(xlat_gmmu_stats, epochs_held),
    XLAT__COUNTER_AT(xlat_gmmu_stats, decisions, 0), XLAT__COUNTER_AT(xlat_gmmu_stats, decisions, 1),
    XLAT__COUNTER_AT(xlat_gmmu_stats, decisions, 2),
    XLAT__COUNTER(xlat_gmmu_stats, pred_local_epochs),
    XLAT__COUNTER(xlat_gmmu_stats, pred_local_hits),
    XLAT__COUNTER(xlat_gmmu_stats, pred_local_total),
    XLAT__COUNTER(xlat_gmmu_stats, pred_remote_epochs),
    XLAT__COUNTER(xlat_gmmu_stats, pred_remote_hits),
    XLAT__COUNTER(xlat_gmmu_stats, pred_remote_total),
};

static void stats_foreach(const void *g, const struct xlat__stats_sink *sink)
{
    xlat_gmmu_stats st;
    xlat_gmmu_stats_get(g, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *g) { xlat_gmmu_stats_reset(g); }
static void destroy(void *g) { (void)xlat_gmmu_destroy(g); }
static void latency(const void *g, xlat_latency_hist *out)
{
    *out = ((const xlat_gmmu *)g)->u.latency;
}

const struct xlat__reg_ops xlat__gmmu_reg_ops = {"gmmu", stats_foreach, stats_reset, destroy,
                                                 latency, NULL};
