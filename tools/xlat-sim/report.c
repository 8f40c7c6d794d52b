/*
 * The summary of a run: each unit's counters (xlat_stats_foreach()) added
 * up by the unit's role, so that "L1 hit rate" is every CU's L1 together,
 * "walks" every walker of that level, whatever the system looks like.
 */
#include <string.h>

#include "report.h"

typedef struct gather {
    const sim_world *w;
    sim_summary *s;
} gather;

static bool is(const char *a, const char *b) { return strcmp(a, b) == 0; }

static void add_level(sim_level *l, const char *counter, uint64_t v)
{
    if (is(counter, "accesses"))
        l->accesses += v;
    else if (is(counter, "hits"))
        l->hits += v;
}

static void add_walker(sim_summary *s, uint64_t *walks, const char *counter, uint64_t v)
{
    if (is(counter, "walks"))
        *walks += v;
    else if (is(counter, "reads"))
        s->pt_reads += v;
    else if (is(counter, "coalesced"))
        s->coalesced += v;
    else if (is(counter, "pec_answers"))
        s->pec_answers += v;
    else if (is(counter, "stolen"))
        s->stolen += v;
}

static void add_iommu(sim_summary *s, const char *counter, uint64_t v)
{
    if (is(counter, "requests"))
        s->iommu_tlb.accesses += v;
    else if (is(counter, "tlb_hits"))
        s->iommu_tlb.hits += v;
    else if (is(counter, "remote_probes"))
        s->remote_probes += v;
    else if (is(counter, "remote_hits"))
        s->remote_hits += v;
}

static void add_other(sim_summary *s, sim_role role, const char *kind, const char *counter,
                      uint64_t v)
{
    if (role == SIM_ROLE_GMMU && is(counter, "local"))
        s->gmmu_local += v;
    else if (role == SIM_ROLE_GMMU && is(counter, "remote"))
        s->gmmu_remote += v;
    else if (role == SIM_ROLE_MCM && is(counter, "local_hits"))
        s->mcm_local_hits += v;
    else if (role == SIM_ROLE_MCM && is(counter, "peer_hits"))
        s->mcm_peer_hits += v;
    else if (is(kind, "system") && is(counter, "probes"))
        s->ring_probes += v;
    else if (is(kind, "system") && is(counter, "probe_hits"))
        s->ring_hits += v;
}

static void gather_counter(void *user, uint32_t id, const char *kind, const char *name,
                           const char *counter, uint64_t v)
{
    (void)name;
    gather *g = user;
    sim_summary *s = g->s;
    sim_role role = id < g->w->nroles ? g->w->roles[id].role : SIM_ROLE_NONE;
    switch (role) {
    case SIM_ROLE_L1: add_level(&s->l1, counter, v); break;
    case SIM_ROLE_L2: add_level(&s->l2, counter, v); break;
    case SIM_ROLE_IOMMU_TLB: add_iommu(s, counter, v); break;
    case SIM_ROLE_IOMMU_WALK: add_walker(s, &s->iommu_walks, counter, v); break;
    case SIM_ROLE_GMMU_WALK: add_walker(s, &s->gmmu_walks, counter, v); break;
    default: add_other(s, role, kind, counter, v); break;
    }
}

double sim_rate(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

double sim_requests_per_second(const sim_result *res)
{
    return res->host_seconds > 0 ? (double)(res->requests + res->warmup) / res->host_seconds : 0.0;
}

void sim_summarize(const sim_world *w, const sim_result *res, const char *source,
                   sim_summary *out)
{
    memset(out, 0, sizeof(*out));
    out->preset = w->cfg.preset[0] ? w->cfg.preset : "(none)";
    out->source = source;
    out->mode = w->cfg.run.mode == SIM_MODE_FUNCTIONAL ? "functional" : "timed";
    out->seed = w->cfg.run.seed;
    out->gpus = w->gpus;
    out->cus = w->cfg.system.cus;
    out->requests = res->requests;
    out->cycles = res->end_cycle - res->start_cycle;
    out->lat_mean = res->lat.count ? (double)res->lat.sum / (double)res->lat.count : 0.0;
    out->lat_p50 = sim_latency_quantile(&res->lat, 0.50);
    out->lat_p90 = sim_latency_quantile(&res->lat, 0.90);
    out->lat_p99 = sim_latency_quantile(&res->lat, 0.99);
    out->lat_max = res->lat.max;
    out->res = res;
    gather g = {w, out};
    xlat_stats_foreach(w->ctx, gather_counter, &g);
}

static void print_level(FILE *f, const char *name, const sim_level *l)
{
    if (l->accesses)
        fprintf(f, "  %-16s hit rate %6.2f%%  (%llu of %llu)\n", name,
                100.0 * sim_rate(l->hits, l->accesses), (unsigned long long)l->hits,
                (unsigned long long)l->accesses);
}

static void print_outcomes(FILE *f, const sim_result *res)
{
    fprintf(f, "  %-16s", "resolved by");
    for (size_t i = 0; i < res->noutcomes; i++)
        fprintf(f, "%s%s %.2f%%", i ? ", " : " ", res->outcome[i].name,
                100.0 * sim_rate(res->outcome[i].n, res->requests));
    fputc('\n', f);
}

static void print_tenants(FILE *f, const sim_result *res)
{
    if (res->ntenants < 2)
        return;
    for (size_t i = 0; i < res->ntenants; i++) {
        const sim_tenant *t = &res->tenant[i];
        fprintf(f, "  tenant pasid %-3u %llu requests, latency mean %.1f max %llu, %.2f%% walked\n",
                t->pasid, (unsigned long long)t->requests, sim_rate(t->latency_sum, t->requests),
                (unsigned long long)t->latency_max, 100.0 * sim_rate(t->walked, t->requests));
    }
}

void sim_print_summary(FILE *f, const sim_summary *s)
{
    const sim_result *res = s->res;
    fprintf(f, "xlat-sim: preset %s, %s, %s mode, %u GPUs x %u CUs, seed %llu\n", s->preset,
            s->source, s->mode, s->gpus, s->cus, (unsigned long long)s->seed);
    fprintf(f, "  %-16s %llu (after a warm-up of %llu), %llu cycles\n", "requests",
            (unsigned long long)s->requests, (unsigned long long)res->warmup,
            (unsigned long long)s->cycles);
    fprintf(f, "  %-16s mean %.1f  p50 %llu  p90 %llu  p99 %llu  max %llu cycles\n", "latency",
            s->lat_mean, (unsigned long long)s->lat_p50, (unsigned long long)s->lat_p90,
            (unsigned long long)s->lat_p99, (unsigned long long)s->lat_max);
    print_level(f, "L1 TLB", &s->l1);
    print_level(f, "L2 TLB", &s->l2);
    print_level(f, "IOMMU TLB", &s->iommu_tlb);
    if (s->remote_probes || s->ring_probes)
        fprintf(f, "  %-16s %llu of %llu probes hit (least-TLB), %llu of %llu (probing ring)\n",
                "remote L2", (unsigned long long)s->remote_hits,
                (unsigned long long)s->remote_probes, (unsigned long long)s->ring_hits,
                (unsigned long long)s->ring_probes);
    fprintf(f, "  %-16s %llu IOMMU, %llu GMMU; %llu page-table reads, %llu coalesced, %llu PEC answers\n",
            "walks", (unsigned long long)s->iommu_walks, (unsigned long long)s->gmmu_walks,
            (unsigned long long)s->pt_reads, (unsigned long long)s->coalesced,
            (unsigned long long)s->pec_answers);
    if (s->gmmu_local || s->gmmu_remote)
        fprintf(f, "  %-16s %llu answered locally, %llu by the IOMMU\n", "GMMU",
                (unsigned long long)s->gmmu_local, (unsigned long long)s->gmmu_remote);
    if (s->mcm_local_hits || s->mcm_peer_hits)
        fprintf(f, "  %-16s %llu local hits, %llu peer hits\n", "F-Barre",
                (unsigned long long)s->mcm_local_hits, (unsigned long long)s->mcm_peer_hits);
    print_outcomes(f, res);
    print_tenants(f, res);
    fprintf(f, "  %-16s %.3f s, %.0f requests/s; %llu refusals, %llu pages mapped\n", "host",
            res->host_seconds, sim_requests_per_second(res), (unsigned long long)res->refusals,
            (unsigned long long)res->pages_mapped);
}
