/*
 * The issue loop's state, shared by run.c (records, answers, the source,
 * functional mode) and run_timed.c (the CUs of timed mode).
 */
#ifndef XLAT_SIM_RUNNER_H
#define XLAT_SIM_RUNNER_H

#include "run.h"

/* A CU's queue of requests read from the source and not yet accepted. */
#define SIM_CU_QUEUE 256
#define SIM_REC_BLOCK 1024

typedef struct runner runner;
typedef struct sim_cu sim_cu;

/* One accepted request until its answer. */
typedef struct sim_rec {
    runner *run;
    sim_cu *cu;                 /* NULL in functional mode */
    sim_request r;
    uint64_t seq;               /* its place in the source: the id the system sees */
    uint64_t accepted;          /* cycle the L1 accepted it */
    bool answered;
    struct sim_rec *next_free;
} sim_rec;

typedef struct sim_rec_block {
    struct sim_rec_block *next;
    sim_rec rec[SIM_REC_BLOCK];
} sim_rec_block;

/* Where a CU is: exactly one of these at any time. */
typedef enum sim_cu_state {
    SIM_CU_EMPTY,               /* nothing queued */
    SIM_CU_READY,               /* in the ready ring: issues this cycle */
    SIM_CU_TIMED,               /* in the heap: issues at `due` */
    SIM_CU_STALLED,             /* refused: waits for its L1's wake-up */
    SIM_CU_FULL                 /* cu_outstanding requests in flight */
} sim_cu_state;

struct sim_cu {
    runner *run;
    uint32_t gpu, cu;
    xlat_target l1;
    sim_request q[SIM_CU_QUEUE];
    uint32_t head, len;
    uint64_t next_issue;        /* untimed sources: the issue interval's next slot */
    uint64_t due;               /* SIM_CU_TIMED: when */
    uint32_t outstanding;
    sim_cu_state state;
};

typedef struct sim_due {
    uint64_t at;
    uint32_t cu;
} sim_due;

struct runner {
    sim_world *w;
    sim_source *src;
    const sim_run_opts *opts;
    sim_result *res;
    sim_error *err;
    sim_cu *cus;
    uint32_t ncus;
    uint32_t *ready;            /* ring of CU indices, ncus slots */
    uint32_t ready_head, ready_len;
    sim_due *heap;              /* min-heap by `at`, ncus slots */
    uint32_t heap_len;
    sim_request peek;           /* read, its CU's queue full */
    bool have_peek;
    bool src_done, failed;
    uint64_t read, seq, completed, inflight;
    sim_rec *free_recs;
    sim_rec_block *blocks;
    double last_progress;
};

bool sim_runner_read(runner *r, sim_request *out);
void sim_runner_answered(runner *r, sim_rec *rec, const xlat_resp *resp);
int sim_run_timed(runner *r);
void sim_runner_free(runner *r);
sim_rec *sim_rec_get(runner *r);
void sim_rec_put(runner *r, sim_rec *rec);

#endif /* XLAT_SIM_RUNNER_H */
