/*
 * Running a source's requests through a world: timed (every CU issues its
 * requests at their trace cycle or its issue rate, stalls on back-pressure
 * until its L1 wakes it) or functional (one request at a time, in order),
 * with what the run measured.
 */
#ifndef XLAT_SIM_RUN_H
#define XLAT_SIM_RUN_H

#include <stdio.h>

#include "world.h"

#define SIM_MAX_OUTCOMES 160
#define SIM_MAX_TENANTS 64
/* Latencies below this are counted exactly; longer ones in a sorted tail. */
#define SIM_LAT_EXACT 4096

typedef struct sim_outcome_count {
    char name[16];              /* "L1", "REMOTE:3", ... */
    uint64_t n;
} sim_outcome_count;

typedef struct sim_tenant {
    uint32_t pasid;
    uint64_t requests, latency_sum, latency_max;
    uint64_t walked;            /* resolved by a walk or the PEC logic */
} sim_tenant;

/* Exact latency distribution: counts below SIM_LAT_EXACT, the rest kept. */
typedef struct sim_latency {
    uint64_t count, sum, max;
    uint64_t exact[SIM_LAT_EXACT];
    uint64_t *tail;
    size_t ntail, tail_cap;
} sim_latency;

typedef struct sim_result {
    uint64_t requests;          /* completed after the warm-up */
    uint64_t issued;            /* accepted by an L1 (warm-up included) */
    uint64_t warmup;            /* completed before the statistics were reset */
    uint64_t refusals;          /* L1 refusals (each a CU stall) */
    uint64_t wakeups;           /* stalled CUs woken by their L1 */
    uint64_t faults;            /* answers that were not a translation */
    uint64_t start_cycle, end_cycle; /* the measured span */
    sim_latency lat;
    sim_outcome_count outcome[SIM_MAX_OUTCOMES];
    size_t noutcomes;
    sim_tenant tenant[SIM_MAX_TENANTS];
    size_t ntenants;
    uint64_t pages_mapped;
    double host_seconds;
} sim_result;

typedef struct sim_run_opts {
    FILE *log;                  /* --log-requests (NULL: none) */
    bool progress;              /* a progress line on stderr */
} sim_run_opts;

/* Runs `src` through `w` as w->cfg.run says; -1 with err on a source error
 * or a mapping failure (the run stops, what completed is in *res). */
int sim_run(sim_world *w, sim_source *src, const sim_run_opts *opts, sim_result *res,
            sim_error *err);
void sim_result_free(sim_result *res);

/* run_stats.c, for run.c: one answer counted; the warm-up over; the tail sorted. */
void sim_result_count(sim_result *res, uint32_t pasid, const char *outcome, uint64_t latency,
                      bool failed);
void sim_result_restart(sim_result *res, uint64_t now);
void sim_result_finish(sim_result *res);

/* The q-quantile (0..1) of the measured latencies, in cycles. */
uint64_t sim_latency_quantile(const sim_latency *l, double q);

#endif /* XLAT_SIM_RUN_H */
