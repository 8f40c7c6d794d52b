/* A page table and a walker pool for the walker suites: physical memory
 * whose free frames are handed out in a known order, a 4-level table, an
 * optional PWC, and a recorder of completions and trace events. */
#ifndef XLAT_WALK_FIXTURE_H
#define XLAT_WALK_FIXTURE_H

#include "testutil.h"

#define WF_MAX 256

typedef struct walk_fixture {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *pool;
    xlat_resp done[WF_MAX];
    int ndone;
    xlat_walk_event ev[WF_MAX * 4];
    int nev;
} walk_fixture;

/* Physical memory of one region [0x100, 0x100000) where only the frames in
 * `free_pfns` (and everything from 0x1000 up) are free, so page-table nodes
 * get exactly those frames in order. */
void wf_memory(walk_fixture *f, const uint64_t *free_pfns, int n);
/* A 4-level x86-64 table over f->mem. */
void wf_table(walk_fixture *f);
/* A per-level PWC for levels 4..2 with `entries` each and `latency`. */
void wf_pwc(walk_fixture *f, uint32_t entries, uint32_t latency);
/* The pool; `cfg` has been filled by the caller except pt, pwc and trace. */
void wf_pool(walk_fixture *f, xlat_walker_config *cfg);
/* Sends a read of `vaddr` with `id` in PASID 1; returns the status. */
int wf_send(walk_fixture *f, uint64_t id, uint64_t vaddr);
/* Sends `req` as it is. */
int wf_send_req(walk_fixture *f, const xlat_req *req);
void wf_run_until(walk_fixture *f, uint64_t cycle);
void wf_destroy(walk_fixture *f);
/* The completion of request `id`, or NULL. */
const xlat_resp *wf_done(const walk_fixture *f, uint64_t id);

#endif
