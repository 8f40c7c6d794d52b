/*
 * A run's report as JSON (through libjansson: keys documented and stable,
 * doc/xlat-sim.md), as a CSV row, and as the compare table.
 */
#include <errno.h>
#include <string.h>

#include "report.h"

const char *const sim_json_summary_keys[] = {
    "requests", "cycles", "issued", "warmup", "refusals", "wakeups", "faults", "latency",
    "l1", "l2", "iommu_tlb", "remote", "walks", "gmmu", "mcm", "outcomes", "tenants", "host",
    NULL};

static json_t *level_json(const sim_level *l)
{
    return json_pack("{s:I, s:I, s:f}", "accesses", (json_int_t)l->accesses, "hits",
                     (json_int_t)l->hits, "hit_rate", sim_rate(l->hits, l->accesses));
}

static json_t *outcomes_json(const sim_result *res)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < res->noutcomes; i++)
        json_object_set_new(o, res->outcome[i].name, json_integer((json_int_t)res->outcome[i].n));
    return o;
}

static json_t *tenants_json(const sim_result *res)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < res->ntenants; i++) {
        const sim_tenant *t = &res->tenant[i];
        json_array_append_new(a, json_pack("{s:i, s:I, s:f, s:I, s:I}", "pasid", (int)t->pasid,
                                           "requests", (json_int_t)t->requests, "latency_mean",
                                           sim_rate(t->latency_sum, t->requests), "latency_max",
                                           (json_int_t)t->latency_max, "walked",
                                           (json_int_t)t->walked));
    }
    return a;
}

static json_t *summary_json(const sim_summary *s)
{
    const sim_result *r = s->res;
    json_t *latency = json_pack("{s:f, s:I, s:I, s:I, s:I}", "mean", s->lat_mean, "p50",
                                (json_int_t)s->lat_p50, "p90", (json_int_t)s->lat_p90, "p99",
                                (json_int_t)s->lat_p99, "max", (json_int_t)s->lat_max);
    json_t *remote = json_pack("{s:I, s:I, s:I, s:I}", "probes", (json_int_t)s->remote_probes,
                               "hits", (json_int_t)s->remote_hits, "ring_probes",
                               (json_int_t)s->ring_probes, "ring_hits", (json_int_t)s->ring_hits);
    json_t *walks = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "iommu", (json_int_t)s->iommu_walks,
                              "gmmu", (json_int_t)s->gmmu_walks, "page_table_reads",
                              (json_int_t)s->pt_reads, "coalesced", (json_int_t)s->coalesced,
                              "pec_answers", (json_int_t)s->pec_answers, "stolen",
                              (json_int_t)s->stolen);
    json_t *host = json_pack("{s:f, s:f, s:I}", "seconds", r->host_seconds, "requests_per_second",
                             sim_requests_per_second(r), "pages_mapped", (json_int_t)r->pages_mapped);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, "
                     "s:{s:I, s:I}, s:{s:I, s:I}, s:o, s:o, s:o}",
                     "requests", (json_int_t)s->requests, "cycles", (json_int_t)s->cycles,
                     "issued", (json_int_t)r->issued, "warmup", (json_int_t)r->warmup,
                     "refusals", (json_int_t)r->refusals, "wakeups", (json_int_t)r->wakeups,
                     "faults", (json_int_t)r->faults, "latency", latency, "l1", level_json(&s->l1),
                     "l2", level_json(&s->l2), "iommu_tlb", level_json(&s->iommu_tlb),
                     "remote", remote, "walks", walks, "gmmu", "local", (json_int_t)s->gmmu_local,
                     "remote", (json_int_t)s->gmmu_remote, "mcm", "local_hits",
                     (json_int_t)s->mcm_local_hits, "peer_hits", (json_int_t)s->mcm_peer_hits,
                     "outcomes", outcomes_json(r), "tenants", tenants_json(r), "host", host);
}

static json_t *config_json(const sim_config *cfg)
{
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    json_t *root = json_object();
    for (size_t i = 0; root && i < n; i++) {
        char buf[1100];
        if (sim_config_get(cfg, k[i].section, k[i].key, buf, sizeof(buf)) != 0)
            continue;
        json_t *sec = json_object_get(root, k[i].section);
        if (!sec) {
            sec = json_object();
            json_object_set_new(root, k[i].section, sec);
        }
        json_object_set_new(sec, k[i].key, json_string(buf));
    }
    return root;
}

/* Every counter of every unit, by unit name: the uniform statistics. */
static void unit_counter(void *user, uint32_t id, const char *kind, const char *name,
                         const char *counter, uint64_t v)
{
    (void)id;
    json_t *units = user;
    json_t *u = json_object_get(units, name);
    if (!u) {
        u = json_pack("{s:s, s:{}}", "kind", kind, "counters");
        json_object_set_new(units, name, u);
    }
    json_object_set_new(json_object_get(u, "counters"), counter, json_integer((json_int_t)v));
}

json_t *sim_json(sim_world *w, const sim_summary *s)
{
    json_t *units = json_object();
    if (units)
        xlat_stats_foreach(w->ctx, unit_counter, units);
    return json_pack("{s:{s:s, s:i}, s:{s:s, s:s, s:s, s:I, s:i, s:i}, s:o, s:o, s:o}",
                     "xlat_sim", "version", xlat_version_string(), "format", 1,
                     "run", "preset", s->preset, "source", s->source, "mode", s->mode, "seed",
                     (json_int_t)s->seed, "gpus", (int)s->gpus, "cus", (int)s->cus,
                     "summary", summary_json(s), "config", config_json(&w->cfg), "units", units);
}

int sim_json_write(json_t *root, const char *path, sim_error *err)
{
    if (!root)
        return sim_fail(err, "%s: out of memory building the JSON report", path);
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
    int rc = strcmp(path, "-") == 0 ? json_dumpf(root, stdout, flags) : json_dump_file(root, path, flags);
    if (rc != 0)
        return sim_fail(err, "%s: cannot write: %s", path, strerror(errno));
    if (strcmp(path, "-") == 0)
        fputc('\n', stdout);
    return 0;
}

void sim_csv_row(FILE *f, const sim_summary *s, bool header)
{
    if (header)
        fprintf(f, "preset,source,mode,seed,gpus,cus,requests,cycles,latency_mean,latency_p50,"
                   "latency_p99,l1_hit_rate,l2_hit_rate,iommu_tlb_hit_rate,remote_hits,"
                   "iommu_walks,gmmu_walks,page_table_reads,coalesced,pec_answers,mcm_local_hits,"
                   "mcm_peer_hits,refusals,host_seconds\n");
    fprintf(f, "%s,\"%s\",%s,%llu,%u,%u,%llu,%llu,%.3f,%llu,%llu,%.6f,%.6f,%.6f,%llu,%llu,%llu,"
               "%llu,%llu,%llu,%llu,%llu,%llu,%.3f\n",
            s->preset, s->source, s->mode, (unsigned long long)s->seed, s->gpus, s->cus,
            (unsigned long long)s->requests, (unsigned long long)s->cycles, s->lat_mean,
            (unsigned long long)s->lat_p50, (unsigned long long)s->lat_p99,
            sim_rate(s->l1.hits, s->l1.accesses), sim_rate(s->l2.hits, s->l2.accesses),
            sim_rate(s->iommu_tlb.hits, s->iommu_tlb.accesses), (unsigned long long)s->remote_hits,
            (unsigned long long)s->iommu_walks, (unsigned long long)s->gmmu_walks,
            (unsigned long long)s->pt_reads, (unsigned long long)s->coalesced,
            (unsigned long long)s->pec_answers, (unsigned long long)s->mcm_local_hits,
            (unsigned long long)s->mcm_peer_hits, (unsigned long long)s->res->refusals,
            s->res->host_seconds);
}
