/*
 * What a run reports: the summary figures gathered from the units' uniform
 * statistics (xlat_stats_foreach()) by the role of each unit, printed as
 * text, written as JSON (libjansson) and as a CSV row.
 */
#ifndef XLAT_SIM_REPORT_H
#define XLAT_SIM_REPORT_H

#include <jansson.h>

#include "run.h"

typedef struct sim_level {
    uint64_t accesses, hits;
} sim_level;

typedef struct sim_summary {
    const char *preset, *source, *mode;
    uint64_t seed;
    uint32_t gpus, cus;
    uint64_t requests, cycles;
    double lat_mean;
    uint64_t lat_p50, lat_p90, lat_p99, lat_max;
    sim_level l1, l2, iommu_tlb;
    uint64_t remote_probes, remote_hits, ring_probes, ring_hits;
    uint64_t iommu_walks, gmmu_walks, pt_reads, coalesced, pec_answers, stolen;
    uint64_t gmmu_local, gmmu_remote;
    uint64_t mcm_local_hits, mcm_peer_hits;
    const sim_result *res;
} sim_summary;

void sim_summarize(const sim_world *w, const sim_result *res, const char *source,
                   sim_summary *out);
double sim_rate(uint64_t part, uint64_t whole);
/* Requests (warm-up included) per second of host time. */
double sim_requests_per_second(const sim_result *res);

void sim_print_summary(FILE *f, const sim_summary *s);
/* The run as a JSON object (new reference); NULL when out of memory. */
json_t *sim_json(sim_world *w, const sim_summary *s);
/* Writes `root` to `path` ("-": stdout); -1 with err. */
int sim_json_write(json_t *root, const char *path, sim_error *err);
/* Appends one row to `f` (the header first when `header`). */
void sim_csv_row(FILE *f, const sim_summary *s, bool header);
/* compare: one table, a column per run. */
void sim_print_compare(FILE *f, const sim_summary *s, size_t n);

/* The JSON keys of "summary", in order (the stable list doc/xlat-sim.md gives). */
extern const char *const sim_json_summary_keys[];

#endif /* XLAT_SIM_REPORT_H */
