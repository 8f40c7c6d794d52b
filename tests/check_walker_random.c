/* Randomized walker invariants (short runs; make check-long runs more):
 * every accepted request is answered exactly once and correctly, and with
 * the PWC off neighborhood coalescing never reads more than FCFS. */
#include "testutil.h"
#include "walk_random.h"

#include <stdlib.h>

static void assert_sound(const walk_random_result *r, uint64_t n)
{
    ck_assert_uint_eq(r->accepted, n);
    ck_assert_uint_eq(r->once, n);
    ck_assert_uint_eq(r->never, 0);
    ck_assert_uint_eq(r->twice_or_more, 0);
    ck_assert_uint_eq(r->wrong, 0);
}

START_TEST(coalescing_never_reads_more_without_pwc)
{
    const uint64_t n = 6000;
    walk_random_result fcfs, nbh;
    walk_random_run(100 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, false, false, &fcfs);
    walk_random_run(100 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, true, false, &nbh);
    assert_sound(&fcfs, n);
    assert_sound(&nbh, n);
    ck_assert_uint_le(nbh.reads, fcfs.reads);
    ck_assert_uint_gt(nbh.coalesced, 0);
}
END_TEST

START_TEST(coalescing_with_pwc_is_sound)
{
    const uint64_t n = 6000;
    walk_random_result fcfs, nbh;
    walk_random_run(200 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, false, true, &fcfs);
    walk_random_run(200 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, true, true, &nbh);
    assert_sound(&fcfs, n);
    assert_sound(&nbh, n);
    ck_assert_uint_gt(fcfs.reads, 0);
    ck_assert_uint_gt(nbh.reads, 0);
}
END_TEST

/* ---- the coalescing queue, differential ------------------------------- */

/* A coalescing pool under a random irregular workload with a deep buffer
 * (bursts of up to 64 requests over clustered pages of 4 PASIDs, some not
 * mapped: with a fault handler, the host maps half of them and fails the
 * others). What it did is folded into one digest: every trace event (who
 * started when, which neighbours each read advanced, in order), every
 * answer and the final statistics, the tenants' too. */
#define DIFF_PAGES 2048
#define DIFF_FAULTS 2048

typedef struct diff_run {
    xlat_ctx *ctx;
    xlat_pagetable *pt;
    xlat_walker *pool;
    uint32_t *seen;
    uint64_t digest, wrong;
    uint64_t fault_token[DIFF_FAULTS], fault_va[DIFF_FAULTS];
    uint32_t fault_pasid[DIFF_FAULTS], faults;
} diff_run;

static uint64_t diff_va(uint64_t i)
{
    return 0x200000000ull + (i / 16) * (64ull << 20) + (i % 16) * 4096 * 3;
}

static void fold(diff_run *d, uint64_t v)
{
    d->digest = (d->digest ^ v) * 0x100000001b3ull; /* FNV-1a over words */
}

static void diff_trace(void *user, const xlat_walk_event *ev)
{
    diff_run *d = user;
    fold(d, ev->kind);
    fold(d, ev->cycle);
    fold(d, ev->id);
    fold(d, (uint64_t)(int64_t)ev->walker);
    fold(d, ev->level);
    fold(d, ev->line_paddr);
    fold(d, ev->stolen);
    fold(d, (uint64_t)(int64_t)ev->status);
}

static void diff_done(void *user, const xlat_resp *r)
{
    diff_run *d = user;
    d->seen[r->id]++;
    fold(d, r->id);
    fold(d, (uint64_t)(int64_t)r->status);
    fold(d, r->paddr);
    fold(d, r->issued);
    fold(d, r->completed);
    xlat_tlb_entry e;
    if (r->status == XLAT_OK &&
        (xlat_pagetable_lookup(d->pt, r->pasid, r->vaddr, &e) != XLAT_OK || e.pfn != r->pfn))
        d->wrong++;
}

static void diff_fault(void *user, xlat_walker *pool, const xlat_walk_fault *f)
{
    diff_run *d = user;
    (void)pool;
    ck_assert_uint_lt(d->faults, DIFF_FAULTS);
    d->fault_token[d->faults] = f->token;
    d->fault_va[d->faults] = f->vaddr;
    d->fault_pasid[d->faults++] = f->pasid;
}

/* The host's driver: maps every other faulting page, fails the rest. */
static void diff_resume(diff_run *d)
{
    for (uint32_t k = 0; k < d->faults; k++) {
        uint64_t page = d->fault_va[k] >> 12;
        int status = XLAT_ERR_FAULT;
        if (page % 2 == 0) {
            xlat_tlb_entry e;
            if (xlat_pagetable_lookup(d->pt, d->fault_pasid[k], d->fault_va[k], &e) != XLAT_OK)
                ck_assert_int_eq(xlat_pagetable_map(d->pt, d->fault_pasid[k], page << 12,
                                                    0x80000 + (page & 0xffff) * 4 +
                                                        d->fault_pasid[k],
                                                    12, XLAT_PERM_R),
                                 XLAT_OK);
            status = XLAT_OK;
        }
        ck_assert_int_eq(xlat_walker_fault_resume(d->pool, d->fault_token[k], status), XLAT_OK);
    }
    d->faults = 0;
}

static void diff_build(diff_run *d, xlat_physmem **mem, xlat_pwc **pwc, xlat_walk_sched sched,
                       bool with_pwc, bool faults)
{
    d->ctx = test_ctx(1, NULL);
    test_table(d->ctx, mem, &d->pt);
    for (uint32_t pasid = 0; pasid < 4; pasid++)
        for (uint64_t i = 0; i < DIFF_PAGES; i++)
            if ((i * 7 + pasid) % 13)
                ck_assert_int_eq(xlat_pagetable_map(d->pt, pasid, diff_va(i),
                                                    0x10000 + i * 4 + pasid, 12, XLAT_PERM_R),
                                 XLAT_OK);
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    if (with_pwc)
        ck_assert_int_eq(xlat_pwc_create(d->ctx, &pc, pwc), XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = d->pt;
    c.pwc = *pwc;
    c.sched = sched;
    c.tenants = 2;
    c.walkers = 4;
    c.queue_entries = 1024;
    c.mem_latency = 30;
    c.coalesce = true;
    c.trace_fn = diff_trace;
    c.trace_user = d;
    c.fault_fn = faults ? diff_fault : NULL;
    c.fault_user = d;
    ck_assert_int_eq(xlat_walker_create(d->ctx, &c, &d->pool), XLAT_OK);
}

/* Sends `n` requests (a refused one is retried every cycle), then runs
 * until nothing is left; returns the digest. */
static uint64_t diff_run_once(uint64_t seed, uint64_t n, xlat_walk_sched sched, bool with_pwc,
                              bool faults)
{
    diff_run *d = calloc(1, sizeof(*d));
    xlat_physmem *mem = NULL;
    xlat_pwc *pwc = NULL;
    ck_assert_ptr_nonnull(d);
    d->seen = calloc(n, sizeof(*d->seen));
    d->digest = 0xcbf29ce484222325ull;
    diff_build(d, &mem, &pwc, sched, with_pwc, faults);
    uint64_t s = seed, id = 0;
    while (id < n) {
        uint64_t burst = test_rand(&s) % 64, base = test_rand(&s) % DIFF_PAGES;
        if (test_rand(&s) % 2) /* the host answers faults at various times */
            diff_resume(d);
        for (uint64_t b = 0; b < burst && id < n; b++, id++) {
            uint64_t page = (base + test_rand(&s) % 48) % DIFF_PAGES;
            xlat_req req = {.id = id, .pasid = (uint32_t)(test_rand(&s) % 4),
                            .vaddr = diff_va(page) + (test_rand(&s) & 0xfff)};
            while (xlat_walker_translate(d->pool, &req, diff_done, d) != XLAT_OK) {
                diff_resume(d);
                xlat_tick(d->ctx);
            }
        }
        if (test_rand(&s) % 2)
            diff_resume(d);
        /* Now and then a lull: the walkers fall idle with held-back requests. */
        xlat_advance(d->ctx, test_rand(&s) % 8 ? test_rand(&s) % 80 : test_rand(&s) % 400);
    }
    for (diff_resume(d); xlat_next_event(d->ctx) != XLAT_NEVER; diff_resume(d))
        xlat_advance(d->ctx, xlat_next_event(d->ctx) - xlat_now(d->ctx) + 1);
    for (uint64_t i = 0; i < n; i++)
        ck_assert_uint_eq(d->seen[i], 1); /* every accepted request answered exactly once */
    ck_assert_uint_eq(d->wrong, 0);
    xlat_walker_stats st;
    xlat_walker_stats_get(d->pool, &st, sizeof(st));
    ck_assert_uint_eq(st.completed, n);
    fold(d, st.reads);
    fold(d, st.walks);
    fold(d, st.coalesced);
    fold(d, st.partial_coalesces);
    fold(d, st.faults);
    fold(d, xlat_now(d->ctx));
    for (uint32_t t = 0; t < 2; t++) {
        xlat_walker_tenant_stats ts;
        xlat_walker_tenant_stats_get(d->pool, t, &ts, sizeof(ts));
        fold(d, ts.queue_cycles);
        fold(d, ts.stolen);
        fold(d, ts.steals);
        fold(d, ts.interleave);
        fold(d, ts.interleave_max);
    }
    uint64_t digest = d->digest;
    xlat_walker_destroy(d->pool);
    xlat_pwc_destroy(pwc);
    xlat_pagetable_destroy(d->pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(d->ctx);
    free(d->seen);
    free(d);
    return digest;
}

/* The digests of the library before the neighbourhood index (base commit
 * b0a3096, whose coalescing scanned the whole buffer at every read and
 * pick), computed with that library: the index must change nothing. Run
 * _i: scheduler _i % 4 (FCFS, partition, DWS, DWS++), PWC for _i >= 4,
 * the fault handler when (_i ^ _i / 4) is odd. */
static const uint64_t diff_pinned[8] = {
    0x46f2cc5e5f23bf47ull, 0x90968234f6afa2d2ull, 0x1de0d9c0224c3d6cull,
    0x98c2ec408aaf3b79ull, 0x9359b5b38b71ee45ull, 0x81a8e0496938be7full,
    0x947abeb85195ae17ull, 0x227ed61b3a13cd82ull,
};

static const xlat_walk_sched diff_sched[4] = {XLAT_SCHED_FCFS, XLAT_SCHED_PARTITION,
                                              XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};

static uint64_t diff_case(int i)
{
    return diff_run_once(300 + (uint64_t)i, 4000, diff_sched[i % 4], i >= 4, ((i ^ i / 4) & 1) != 0);
}

START_TEST(coalescing_queue_matches_the_scanning_one)
{
    ck_assert_uint_eq(diff_case(_i), diff_pinned[_i]);
}
END_TEST

Suite *walker_random_suite(void)
{
    Suite *s = suite_create("walker_random");
    TCase *tc = test_case(s, "invariants");
    tcase_add_loop_test(tc, coalescing_never_reads_more_without_pwc, 0, 3);
    tcase_add_loop_test(tc, coalescing_with_pwc_is_sound, 0, 2);
    tcase_add_loop_test(tc, coalescing_queue_matches_the_scanning_one, 0, 8);
    return s;
}
