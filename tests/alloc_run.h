/*
 * Allocation-failure loops over whole scenarios (tests/check_alloc_run.c):
 * a scenario builds units on a context whose allocator fails the k-th
 * allocation (or every one from the k-th on), runs traffic through what it
 * could build, drains the clock and destroys everything. The loop checks
 * what no failure may break: each failing call says XLAT_ERR_NOMEM with a
 * message, every accepted request is answered once and right, nothing is
 * allocated while requests run, and nothing leaks.
 */
#ifndef XLAT_TEST_ALLOC_RUN_H
#define XLAT_TEST_ALLOC_RUN_H

#include <stdbool.h>

#include "testutil.h"

#define AR_MAX 4096 /* requests of one run */
#define AR_FAULT UINT64_MAX /* expected pfn of a request that must fault */

/* ck_assert_msg() at no cost when it holds: Check logs every assertion it
 * passes (a write per call), which hundreds of runs of hundreds of
 * requests would turn into most of the suite's time. */
#define AR_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

/* The same, naming the condition; and of a call that must succeed. */
#define AR_ASSERT(cond) AR_CHECK(cond, "%s", #cond)
#define AR_OK(call) AR_CHECK((call) == XLAT_OK, "%s failed", #call)

typedef struct ar_run {
    counting_alloc ca;
    xlat_ctx *ctx;
    const char *name;
    long k;
    bool only;     /* fail the k-th allocation only, not every one after */
    bool in_call;  /* the scenario is inside a unit's translate */
    bool running;  /* between ar_run_begin() and ar_run_end() */
    char mark[256]; /* ar_mark()'s message */
    size_t attempts; /* allocations tried when the run phase began */
    uint64_t sent, taken, answered;
    uint8_t accepted[AR_MAX];
    uint8_t answers[AR_MAX];
    uint64_t pfn[AR_MAX]; /* the frame each request must get, or AR_FAULT */
} ar_run;

typedef void (*ar_scenario_fn)(ar_run *r);
typedef int (*ar_translate_fn)(void *unit, const xlat_req *req, xlat_done_fn done, void *user);

/* Leaves a known message in xlat_ctx_errmsg() (a refused NULL argument),
 * so that ar_ok() can tell a failure's own message from an older one. */
void ar_mark(ar_run *r);
/* True when rc is XLAT_OK. Otherwise asserts it is XLAT_ERR_NOMEM, with a
 * message of its own since ar_mark(), while the allocator is failing, and
 * returns false. */
bool ar_ok(ar_run *r, int rc, const char *what);

/* A call that may fail for want of memory, tried a second time when it
 * does: after a single failure the context must work again. */
#define AR_TRY(r, what, call)                                                  \
    ((ar_mark(r), ar_ok((r), (call), (what))) || (ar_mark(r), ar_ok((r), (call), (what))))

/* Sends `req` (its id set here) through `fn`, expecting frame `pfn` (or
 * AR_FAULT: a fault); returns translate's code, asserting it is XLAT_OK or
 * XLAT_ERR_AGAIN. */
int ar_send(ar_run *r, ar_translate_fn fn, void *unit, xlat_req *req, uint64_t pfn);
/* The same, through a target. */
int ar_send_target(ar_run *r, const xlat_target *t, xlat_req *req, uint64_t pfn);
/* ar_send() until the unit takes the request, a cycle at a time. */
void ar_send_taken(ar_run *r, ar_translate_fn fn, void *unit, xlat_req *req, uint64_t pfn);

/* The run phase: no allocation may happen between the two. */
void ar_run_begin(ar_run *r);
void ar_run_end(ar_run *r);
/* Advances until no event is pending. */
void ar_drain(ar_run *r);

/* Runs `fn` for k = 1, 2, ... failing the k-th allocation only, then
 * every allocation from the k-th on, each until the scenario runs without
 * an injected failure. Prints and returns the failure points tried. */
long ar_loop(const char *name, ar_scenario_fn fn);

/* The failure points of every ar_loop() since ar_totals_begin(), summed
 * across Check's forked test processes, printed by ar_totals_end(). */
void ar_totals_begin(void);
void ar_totals_end(void);

#endif

/* Building blocks of the scenarios (alloc_run_units.c). */
#define AR_PASID 1
#define AR_PFN(vpn) (0x10000ull + (vpn)) /* the frame every scenario maps page vpn to */

/* Physical memory and a page table on it; false when either is missing
 * (whichever was made is in *mem, *pt, NULL otherwise). */
bool ar_table(ar_run *r, xlat_physmem **mem, xlat_pagetable **pt);
/* Maps pages 0..n-1 of AR_PASID at AR_PFN(vpn), each tried twice; mapped[vpn]
 * says which are. A map that failed must have changed nothing. */
void ar_map(ar_run *r, xlat_pagetable *pt, uint64_t n, bool *mapped);
void ar_table_destroy(xlat_physmem *mem, xlat_pagetable *pt);
/* A fixed responder answering AR_PFN(vpn) after `latency` cycles, at most
 * 32 requests at once. */
bool ar_fixed(ar_run *r, uint32_t latency, xlat_fixed **out);

/* The scenarios. */
void ar_scenario_tlb(ar_run *r);
void ar_scenario_link(ar_run *r);
void ar_scenario_link_deep(ar_run *r);
void ar_scenario_fixed_deep(ar_run *r);
void ar_scenario_cuckoo(ar_run *r);
void ar_scenario_pagetable(ar_run *r);
void ar_scenario_pwc(ar_run *r);
void ar_scenario_walker_fcfs(ar_run *r);
void ar_scenario_walker_coalesce(ar_run *r);
void ar_scenario_walker_partition(ar_run *r);
void ar_scenario_walker_dws(ar_run *r);
void ar_scenario_walker_dwspp(ar_run *r);
void ar_scenario_gmmu_distributed(ar_run *r);
void ar_scenario_gmmu_dynamic(ar_run *r);
void ar_scenario_gmmu_centralized(ar_run *r);

/* Whole systems (alloc_run_systems.c). */
void ar_scenario_iommu_least(ar_run *r);
void ar_scenario_iommu_exclusive(ar_run *r);
void ar_scenario_system_mostly(ar_run *r);
void ar_scenario_system_inclusive(ar_run *r);
void ar_scenario_system_exclusive(ar_run *r);
void ar_scenario_system_least(ar_run *r);
void ar_scenario_system_least_multi_app(ar_run *r);
void ar_scenario_system_probe_ring(ar_run *r);
void ar_scenario_system_gmmu(ar_run *r);
void ar_scenario_system_deep(ar_run *r);
void ar_scenario_barre(ar_run *r);
void ar_scenario_fbarre(ar_run *r);
