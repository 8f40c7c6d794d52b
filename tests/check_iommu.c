/* The IOMMU on its own: two TLB levels, an unbounded TLB, page requests
 * batched to the host, refusals, and every error path. */
#include "testutil.h"
#include <xlat/experimental.h> /* preloads and the papers' rules, outside the stable API */

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_iommu *iommu;
    xlat_resp done[16];
    int n;
    xlat_iommu_fault faults[16];
    size_t nfaults, batches;
} h;

static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(3, NULL);
    test_table(h.ctx, &h.mem, &h.pt);
    for (uint64_t p = 0; p < 8; p++)
        ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, p << 12, 0x900 + p, 12, XLAT_PERM_R),
                         XLAT_OK);
}

static void teardown(void)
{
    xlat_iommu_destroy(h.iommu);
    xlat_pagetable_destroy(h.pt);
    xlat_physmem_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    h.done[h.n++] = *r;
}

static void on_faults(void *user, xlat_iommu *m, const xlat_iommu_fault *f, size_t n)
{
    (void)user;
    (void)m;
    for (size_t i = 0; i < n; i++)
        h.faults[h.nfaults++] = f[i];
    h.batches++;
}

static int send(uint64_t id, uint64_t vaddr, uint16_t gpu)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .gpu = gpu};
    return xlat_iommu_translate(h.iommu, &req, on_done, NULL);
}

/* Table 2's IOMMU over h.pt: `c` with its walkers' template `w`. */
static void iommu_config(xlat_iommu_config *c, xlat_walker_config *w)
{
    xlat_iommu_walker_config_init(w);
    w->pt = h.pt;
    xlat_iommu_config_init(c);
    c->walk = w;
}

static void make(xlat_iommu_config *c)
{
    ck_assert_msg(xlat_iommu_create(h.ctx, c, &h.iommu) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
}

START_TEST(two_levels)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.tlb_entries = 2; /* the neighborhood paper's 32/256, scaled down */
    c.tlb_ways = 2;
    c.tlb_latency = 5;
    c.tlb2_entries = 8;
    c.tlb2_ways = 8;
    c.tlb2_latency = 20;
    make(&c);
    for (uint64_t p = 0; p < 3; p++) { /* walks fill both levels */
        send(p, p << 12, 0);
        xlat_advance(h.ctx, 1000);
    }
    ck_assert_uint_eq(h.done[0].completed - h.done[0].issued, 5 + 20 + 500);
    send(10, 2 << 12, 0); /* in the first level */
    send(11, 0, 0);       /* evicted from the first, still in the second */
    xlat_advance(h.ctx, 100);
    ck_assert_uint_eq(h.done[3].completed - h.done[3].issued, 5);
    ck_assert_uint_eq(h.done[4].completed - h.done[4].issued, 25);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.tlb_hits, 2);
    ck_assert_uint_eq(st.tlb2_hits, 1);
    ck_assert_uint_eq(st.walks, 3);
}
END_TEST

START_TEST(unbounded_tlb)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.tlb_entries = 0; /* the "infinite IOMMU TLB" upper bound */
    make(&c);
    for (uint64_t p = 0; p < 8; p++)
        send(p, p << 12, (uint16_t)(p % 4));
    xlat_advance(h.ctx, 10000);
    for (uint64_t p = 0; p < 8; p++)
        send(10 + p, p << 12, 0);
    xlat_advance(h.ctx, 10000);
    ck_assert_int_eq(h.n, 16);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.tlb_hits, 8);
    ck_assert_uint_eq(xlat_tlb_count(xlat_iommu_tlb(h.iommu)), 8);
}
END_TEST

START_TEST(page_requests_are_batched)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.fault_fn = on_faults;
    c.fault_batch = 2;
    c.fault_timeout = 1000;
    make(&c);
    send(1, 0x20000, 2); /* not mapped */
    send(2, 0x21000, 3);
    send(3, 0x40000, 1);
    xlat_advance(h.ctx, 800);
    ck_assert_uint_eq(h.batches, 1);
    ck_assert_uint_eq(h.nfaults, 2);
    ck_assert_uint_eq(h.faults[0].gpu, 2);
    ck_assert_uint_eq(h.faults[1].vaddr, 0x21000);
    xlat_advance(h.ctx, 1000); /* the third waits for the timeout */
    ck_assert_uint_eq(h.batches, 2);
    ck_assert_uint_eq(h.nfaults, 3);
    ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 0x20000, 0x777, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, h.faults[0].token, XLAT_OK), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, h.faults[1].token, XLAT_ERR_FAULT), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, h.faults[2].token, XLAT_ERR_PERM), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, h.faults[2].token, XLAT_OK), XLAT_ERR_NOT_FOUND);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 3);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_FAULT);
    ck_assert_int_eq(h.done[1].status, XLAT_ERR_PERM);
    ck_assert_int_eq(h.done[2].status, XLAT_OK);
    ck_assert_uint_eq(h.done[2].pfn, 0x777);
}
END_TEST

START_TEST(full_buffer_refuses)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.buffer_entries = 2;
    make(&c);
    ck_assert_int_eq(send(1, 0, 0), XLAT_OK);
    ck_assert_int_eq(send(2, 0, 1), XLAT_OK);
    ck_assert_int_eq(send(3, 0, 2), XLAT_ERR_AGAIN);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "ATS buffer is full"));
    ck_assert_int_eq(send(4, 0, 9), XLAT_ERR_INVAL); /* unknown GPU */
    xlat_advance(h.ctx, 2000);
    ck_assert_int_eq(h.n, 2);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
}
END_TEST

/* A tracker entry for an address space without a page table: the walk
 * faults at once, the probe comes later. Each fault must give its ATS
 * buffer slot back (it used to stay taken, and a 2-entry buffer refused
 * every later request with XLAT_ERR_AGAIN forever). */
START_TEST(faults_free_their_slots)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.buffer_entries = 2;
    c.inclusion = XLAT_INCL_LEAST;
    make(&c);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = tc.ways = 4;
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 1, l2), XLAT_OK);
    xlat_tlb_entry e = {.pasid = 9, .vpn = 5, .pfn = 0x55, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    xlat_tlb_invalidate(l2, 9, 5 << 12); /* the probe will miss */
    for (uint64_t i = 0; i < 2; i++) {
        xlat_req req = {.id = i, .vaddr = 5 << 12, .pasid = 9, .gpu = 0};
        ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done, NULL), XLAT_OK);
    }
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 2);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_FAULT);
    ck_assert_int_eq(h.done[1].status, XLAT_ERR_FAULT);
    ck_assert_int_eq(send(2, 3 << 12, 0), XLAT_OK);
    ck_assert_int_eq(send(3, 4 << 12, 1), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 4);
    ck_assert_int_eq(h.done[2].status, XLAT_OK);
    ck_assert_uint_eq(h.done[3].pfn, 0x904);
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* The completion rule: the IOMMU answers from inside xlat_tick/xlat_advance,
 * never from inside the xlat_iommu_translate() that handed it the request,
 * even with a zero-cycle lookup, and from inside its callbacks a sender may
 * send again. */
static int inside_translate, answered_inside, resent;

static void on_done_resend(void *user, const xlat_resp *r)
{
    (void)user;
    answered_inside += inside_translate;
    h.done[h.n++] = *r;
    if (!resent++) {
        inside_translate = 1;
        xlat_req req = {.id = 7, .vaddr = 7 << 12, .pasid = 1, .gpu = 0};
        ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done_resend, NULL), XLAT_OK);
        inside_translate = 0;
    }
}

START_TEST(never_answers_inside_translate)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.tlb_latency = 0;
    make(&c);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 6, .pfn = 0x906, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 0, &e), XLAT_OK);
    answered_inside = resent = 0;
    for (uint64_t p = 5; p <= 6; p++) { /* a miss (walked) and a hit */
        xlat_req req = {.id = p, .vaddr = p << 12, .pasid = 1, .gpu = 0};
        inside_translate = 1;
        ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done_resend, NULL), XLAT_OK);
        inside_translate = 0;
    }
    ck_assert_int_eq(h.n, 0);
    xlat_advance(h.ctx, 2000);
    ck_assert_int_eq(h.n, 3);
    ck_assert_int_eq(answered_inside, 0);
    ck_assert_uint_eq(h.done[0].id, 6);
    ck_assert_uint_eq(h.done[0].completed, 0);
    ck_assert_uint_eq(h.done[1].id, 5);
    ck_assert_uint_eq(h.done[1].completed, 500);
    ck_assert_uint_eq(h.done[2].id, 7);
}
END_TEST

/* GPU 0's L2 holding the page, and a second GPU's request for it waiting
 * for walker room when the probe answers: the walk left parked must not
 * run (and release the record) once more. The in-service count wrapped and
 * an idle IOMMU refused everything with "the ATS buffer is full". */
START_TEST(probe_answers_a_parked_walk)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.inclusion = XLAT_INCL_LEAST;
    c.remote_latency = 1;
    wc.walkers = 1;
    wc.queue_entries = 1;
    make(&c);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = tc.ways = 4;
    tc.name = "gpu0.l2";
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 0, l2), XLAT_OK);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 5, .pfn = 0x905, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 0, &e), XLAT_OK);
    ck_assert_int_eq(send(1, 1 << 12, 1), XLAT_OK);
    ck_assert_int_eq(send(2, 2 << 12, 1), XLAT_OK);
    ck_assert_int_eq(send(3, 5 << 12, 1), XLAT_OK);
    xlat_advance(h.ctx, 5000);
    ck_assert_int_eq(h.n, 3);
    ck_assert_uint_eq(h.done[0].id, 3); /* the remote hit, at 200 + 1 */
    ck_assert_uint_eq(h.done[0].completed, 201);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[0]), "gpu0.l2");
    ck_assert_uint_eq(h.done[1].completed, 700);
    ck_assert_uint_eq(h.done[2].completed, 1200);
    for (uint64_t i = 0; i < 4; i++)
        ck_assert_msg(send(10 + i, i << 12, 0) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    xlat_advance(h.ctx, 5000);
    ck_assert_int_eq(h.n, 7);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 0);
    ck_assert_uint_eq(st.remote_hits, 1);
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* least-TLB Algorithm 1: "if hit in L2_TLB_x: abort IOMMU thread (PTW)",
 * and §4.1: the pending entry goes when the first answer arrives. GPU 1's
 * L2 holds pages 0-7 and GPU 0 asks for pages 0-8 with one walker: the
 * walk of page 0 is already on the walker (it finishes, discarded, at 700),
 * the queued walks of pages 1-7 are dropped, page 8 walks next (700-1200),
 * and the answered requests' buffer slots are free at once (320). */
START_TEST(remote_hits_abort_queued_walks)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.buffer_entries = 9;
    c.inclusion = XLAT_INCL_LEAST;
    wc.walkers = 1;
    make(&c);
    ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 8 << 12, 0x908, 12, XLAT_PERM_R), XLAT_OK);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = tc.ways = 8;
    tc.name = "gpu1.l2";
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 1, l2), XLAT_OK);
    for (uint64_t p = 0; p < 8; p++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = p, .pfn = 0x900 + p, .page_shift = 12,
                            .perm = XLAT_PERM_R};
        ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    }
    for (uint64_t p = 0; p <= 8; p++)
        ck_assert_int_eq(send(p, p << 12, 0), XLAT_OK);
    ck_assert_int_eq(send(9, 0, 0), XLAT_ERR_AGAIN);
    xlat_advance(h.ctx, 321);
    ck_assert_int_eq(h.n, 8);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(h.done[i].id, (uint64_t)i);
        ck_assert_uint_eq(h.done[i].completed, 320);
        ck_assert_str_eq(test_resolver(h.ctx, &h.done[i]), "gpu1.l2");
    }
    ck_assert_int_eq(send(9, 3 << 12, 0), XLAT_OK); /* 9 slots, 1 in service */
    xlat_advance(h.ctx, 2000);
    ck_assert_int_eq(h.n, 10);
    ck_assert_uint_eq(h.done[8].id, 9); /* a remote hit (521 + 120), its walk dropped */
    ck_assert_uint_eq(h.done[8].completed, 641);
    ck_assert_uint_eq(h.done[9].id, 8);
    ck_assert_uint_eq(h.done[9].completed, 1200);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.walks, 2);
    ck_assert_uint_eq(st.walks_aborted, 8);
    ck_assert_uint_eq(st.late_discarded, 1);
    ck_assert_uint_eq(st.remote_hits, 9);
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* An L2 for GPU `gpu` of `entries` (fully associative), attached. */
static xlat_tlb *attach_l2(uint32_t gpu, uint32_t entries, const char *name)
{
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = tc.ways = entries;
    tc.name = name;
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, gpu, l2), XLAT_OK);
    return l2;
}

/* The tracker asks one key per page size in use: with only 4 KiB pages
 * tracked, a partition of 512 four-bit fingerprints (the default 2048
 * split among 4 GPUs) filled to capacity answers about 0.24 of the other
 * pages positive, near least-TLB's 0.2 (§4.1); it answered about 0.55
 * when every lookup also tried the 2 MiB and 1 GiB keys. (2300 of 10000
 * before the cuckoo filter hashed a key with one mix rather than three.) */
START_TEST(tracker_false_positive_rate)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.inclusion = XLAT_INCL_LEAST;
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 512, "gpu1.l2");
    for (uint64_t i = 0; i < 512; i++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = 0x10000 + i * 7, .pfn = i, .page_shift = 12};
        ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    }
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.tracker_full, 0);
    int positive = 0;
    for (uint64_t i = 0; i < 10000; i++)
        positive += xlat_iommu_tracked(h.iommu, 1, 1, (0x80000 + i) << 12);
    ck_assert_int_eq(positive, 2361); /* 0.24 */
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* The exact tracker (Barre Chord §VII-A's "ideal" filter): a partition of
 * 1024 keys (4096 split among 4 GPUs) holds every page its L2 does and
 * nothing else, through fills, refills, shootdowns of half of them (the
 * runs of its table shift back) and a capacity that refuses the 1025th. */
START_TEST(tracker_exact_has_no_false_positive)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.inclusion = XLAT_INCL_LEAST;
    c.tracker_exact = true;
    c.tracker_entries = 4096;
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 2048, "gpu1.l2");
    for (uint64_t i = 0; i < 1024; i++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = 0x10000 + i * 7, .pfn = i, .page_shift = 12};
        ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
        ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK); /* held once */
    }
    for (uint64_t i = 0; i < 1024; i += 2)
        ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, (0x10000 + i * 7) << 12), 1);
    for (uint64_t i = 0; i < 1024; i++)
        ck_assert_int_eq(xlat_iommu_tracked(h.iommu, 1, 1, (0x10000 + i * 7) << 12), i % 2);
    int positive = 0;
    for (uint64_t i = 0; i < 10000; i++)
        positive += xlat_iommu_tracked(h.iommu, 1, 1, (0x80000 + i) << 12);
    ck_assert_int_eq(positive, 0);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.tracker_full, 0);
    for (uint64_t i = 0; i < 513; i++) { /* 512 held + 512 = capacity; one more is refused */
        xlat_tlb_entry e = {.pasid = 2, .vpn = i, .pfn = i, .page_shift = 12};
        ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    }
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.tracker_full, 1);
    ck_assert(!xlat_iommu_tracked(h.iommu, 1, 2, 512ull << 12));
    ck_assert(xlat_iommu_tracked(h.iommu, 1, 2, 511ull << 12));
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* A probe that misses deletes the key it was sent for, whatever its page
 * size; it used to delete the 4 KiB key only, so a false positive on a
 * 2 MiB key stayed for its whole region. */
START_TEST(probe_miss_deletes_the_probed_key)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.inclusion = XLAT_INCL_LEAST;
    c.tracker_fp_bits = 16;
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 8, "gpu1.l2");
    xlat_tlb_entry e = {.pasid = 1, .vpn = 0, .pfn = 0x4, .page_shift = 21, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    xlat_tlb_flush(l2); /* a GPU flush: the tracker is not told (§4.4) */
    ck_assert(xlat_iommu_tracked(h.iommu, 1, 1, 3 << 12));
    ck_assert_int_eq(send(1, 3 << 12, 0), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].pfn, 0x903);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.remote_misses, 1);
    ck_assert(!xlat_iommu_tracked(h.iommu, 1, 1, 3 << 12));
    ck_assert(!xlat_iommu_tracked(h.iommu, 1, 1, 0x1FF000));
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* Flush and invalidate count the entries they remove: the IOMMU TLB's for a
 * flush (an L2 is the GPU's to flush), the IOMMU's and the L2s' for an
 * invalidation; 0 when nothing is held. */
START_TEST(flush_and_invalidate_count_entries)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.inclusion = XLAT_INCL_LEAST;
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 8, "gpu1.l2");
    xlat_tlb_entry e = {.pasid = 1, .vpn = 2, .pfn = 0x902, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 0, &e), XLAT_OK);
    e.vpn = 3;
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 0, &e), XLAT_OK);
    e.vpn = 4;
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    ck_assert(xlat_iommu_tracked(h.iommu, 1, 1, 4 << 12));
    ck_assert_int_eq(xlat_iommu_flush(h.iommu), 2);
    ck_assert_uint_eq(xlat_tlb_count(xlat_iommu_tlb(h.iommu)), 0);
    ck_assert_uint_eq(xlat_tlb_count(l2), 1);
    ck_assert(!xlat_iommu_tracked(h.iommu, 1, 1, 4 << 12)); /* reset (§4.4) */
    ck_assert_int_eq(xlat_iommu_flush(h.iommu), 0);
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, 2 << 12), 0);
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, 4 << 12), 1);
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, 4 << 12), 0);
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* An invalidation deletes a tracker key only where an L2 held the page: a
 * page that no L2 holds but whose fingerprint collides with a tracked page
 * must not take that page's fingerprint with it (it used to be deleted
 * from every GPU's partition). */
START_TEST(invalidate_spares_other_keys)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.inclusion = XLAT_INCL_LEAST;
    c.tracker_entries = 8; /* 4 slots per partition: collisions are easy to find */
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 8, "gpu1.l2");
    xlat_tlb_entry e = {.pasid = 1, .vpn = 2, .pfn = 0x902, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    uint64_t twin = 0;
    for (uint64_t p = 0x100; p < 0x10000 && !twin; p++)
        if (xlat_iommu_tracked(h.iommu, 1, 1, p << 12))
            twin = p;
    ck_assert_uint_ne(twin, 0);
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, twin << 12), 0);
    ck_assert(xlat_iommu_tracked(h.iommu, 1, 1, 2 << 12));
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, 2 << 12), 1); /* held: deleted */
    ck_assert(!xlat_iommu_tracked(h.iommu, 1, 1, 2 << 12));
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

/* An entry the IOMMU TLB refuses (a page number too wide for its page
 * size) is not preloaded: the call fails and no GPU's Eviction Counter or
 * occupancy counts it (it returned XLAT_OK and counted an eviction). */
START_TEST(preload_refused)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.inclusion = XLAT_INCL_LEAST;
    for (int rule = 0; rule < 2; rule++) {
        c.spill_rx = rule ? XLAT_SPILL_OCCUPANCY : XLAT_SPILL_CUMULATIVE;
        make(&c);
        xlat_tlb_entry e = {.pasid = 1, .vpn = 1ull << 52, .pfn = 1, .page_shift = 12};
        ck_assert_int_eq(xlat_iommu_preload(h.iommu, 2, &e), XLAT_ERR_INVAL);
        ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 2), 0);
        ck_assert_uint_eq(xlat_tlb_count(xlat_iommu_tlb(h.iommu)), 0);
        e.vpn = 7;
        ck_assert_int_eq(xlat_iommu_preload(h.iommu, 2, &e), XLAT_OK);
        ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 2), 1);
        xlat_iommu_destroy(h.iommu);
        h.iommu = NULL;
    }
}
END_TEST

/* One TLB attached for two GPUs: its victims count for the lower of them
 * (the GPU comes with the IOMMU's listener, not from a search of every
 * GPU's L2, so the lower one is looked up only when a TLB is shared), and
 * its teardown detaches it from both. */
static void l2_victim(xlat_tlb *l2, uint64_t vpn)
{
    xlat_tlb_entry e = {.pasid = 1, .vpn = vpn, .pfn = 0x900 + vpn, .page_shift = 12,
                        .perm = XLAT_PERM_R}, victim;
    ck_assert_int_ge(xlat_tlb_insert(l2, &e, &victim), 0);
    xlat_tick(h.ctx); /* the IOMMU hands its victims on */
}

START_TEST(shared_l2_victims_count_for_the_lower_gpu)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.inclusion = XLAT_INCL_LEAST;
    make(&c);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = tc.ways = 1;
    xlat_tlb *l2, *other;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &other), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 2, l2), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 1, l2), XLAT_OK);
    l2_victim(l2, 1);
    l2_victim(l2, 2); /* page 1 leaves: one victim, heard by both GPUs' listeners */
    ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 1), 2);
    ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 2), 0);
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 1, other), XLAT_OK);
    l2_victim(l2, 3); /* GPU 2's alone now */
    ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 2), 1);
    l2_victim(other, 4);
    l2_victim(other, 5);
    ck_assert_uint_eq(xlat_iommu_eviction_counter(h.iommu, 1), 3);
    xlat_tlb_destroy(l2);
    xlat_l2_port port = XLAT_L2_PORT_INIT;
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 2, &port), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 1, &port), XLAT_OK);
    xlat_tlb_destroy(other);
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 1, &port), XLAT_ERR_INVAL);
}
END_TEST

/* No IOMMU TLB (Barre Chord's Table II): a request goes to the walk queue
 * in the cycle it comes, whatever tlb_latency says, and a walk fills
 * nothing. Two walkers of 4 x 125 cycles:
 *   ids 0, 1, 2 at 0 (pages 0, 1, 2): 0 and 1 walk 0..500, 2 waits, 500..1000
 *   id 3 at 1000 (page 0 again): no fill to hit, walked 1000..1500        */
START_TEST(no_tlb_walks_at_once)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    wc.walkers = 2;
    c.no_tlb = true;
    c.tlb_latency = 200; /* ignored */
    make(&c);
    ck_assert_ptr_null(xlat_iommu_tlb(h.iommu));
    for (uint64_t p = 0; p < 3; p++)
        ck_assert_int_eq(send(p, p << 12, 0), XLAT_OK);
    ck_assert_int_eq(h.n, 0); /* never inside translate */
    xlat_advance(h.ctx, 1000);
    send(3, 0, 1);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 4);
    uint64_t completed[4] = {500, 500, 1000, 1500};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(h.done[i].id, (uint64_t)i);
        ck_assert_uint_eq(h.done[i].completed, completed[i]);
        ck_assert_uint_eq(h.done[i].pfn, 0x900 + (uint64_t)(i % 3));
    }
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.walks, 4);
    ck_assert_uint_eq(st.tlb_hits, 0);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 7, .pfn = 1, .page_shift = 12};
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 0, &e), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "no TLB"));
    ck_assert_int_eq(xlat_iommu_flush(h.iommu), 0);
    ck_assert_int_eq(xlat_iommu_invalidate(h.iommu, 1, 0), 0);
}
END_TEST

/* Without a TLB only mostly-inclusive makes sense: the other policies say
 * what the IOMMU TLB holds. A second level is refused as well. */
START_TEST(no_tlb_refuses_tlb_policies)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.no_tlb = true;
    xlat_incl refused[] = {XLAT_INCL_INCLUSIVE, XLAT_INCL_EXCLUSIVE, XLAT_INCL_LEAST};
    for (size_t i = 0; i < 3; i++) {
        c.inclusion = refused[i];
        ck_assert_int_eq(xlat_iommu_create(h.ctx, &c, &h.iommu), XLAT_ERR_INVAL);
        ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "no_tlb"));
        ck_assert_ptr_null(h.iommu);
    }
    c.inclusion = XLAT_INCL_MOSTLY;
    c.tlb2_entries = 8;
    c.tlb2_ways = 8;
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &c, &h.iommu), XLAT_ERR_INVAL);
    ck_assert_ptr_null(h.iommu);
}
END_TEST

/* Each inclusion policy owns its state (least-TLB's tracker partitions,
 * counters): created with the IOMMU, freed with it, and an allocation
 * failure at any point of the creation leaves nothing behind. */
/* The context's event pool is grown first: it stays grown once an IOMMU
 * has reserved its budget on it (the context's, not the IOMMU's, memory). */
START_TEST(policy_state_fails_cleanly)
{
    static const struct { xlat_incl incl; bool multi; long allocs; } policy[] = {
        {XLAT_INCL_MOSTLY, false, 0}, {XLAT_INCL_EXCLUSIVE, false, 0},
        {XLAT_INCL_LEAST, false, 12}, {XLAT_INCL_LEAST, true, 12}};
    long plain = 0;
    for (size_t i = 0; i < sizeof(policy) / sizeof(policy[0]); i++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        xlat_ctx *ctx = test_ctx(3, &ca);
        xlat_physmem *mem;
        xlat_pagetable *pt;
        test_table(ctx, &mem, &pt);
        test_grow_events(ctx, 8192); /* the context's, kept after a failed create */
        size_t base_live = ca.live_bytes;
        xlat_iommu_config c;
        xlat_walker_config wc;
        iommu_config(&c, &wc);
        wc.pt = pt;
        c.inclusion = policy[i].incl;
        c.multi_app = policy[i].multi;
        xlat_iommu *m = NULL;
        long k;
        for (k = 0; k < 1000; k++) {
            ca.fail_after = k;
            int rc = xlat_iommu_create(ctx, &c, &m);
            if (rc == XLAT_OK)
                break;
            ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
            ck_assert_uint_eq(ca.live_bytes, base_live);
        }
        ca.fail_after = -1;
        if (i == 0)
            plain = k;
        /* least-TLB's state adds its tracker: a filter per GPU (4), each
         * a handle, a table and an undo log. */
        ck_assert_int_eq(k, plain + policy[i].allocs);
        xlat_iommu_destroy(m);
        ck_assert_uint_eq(ca.live_bytes, base_live);
        xlat_pagetable_destroy(pt);
        xlat_physmem_destroy(mem);
        xlat_ctx_destroy(ctx);
        ck_assert_uint_eq(ca.live_bytes, 0);
    }
}
END_TEST

/* A host interconnect of 50 cycles interposed on GPU 1's L2 port: it wraps
 * the default port and delivers each probe's answer 50 cycles after the L2
 * gave it. Remote hits then arrive 50 cycles later: 200 (IOMMU TLB) + 120
 * (remote_latency) + 50. */
typedef struct hop {
    xlat_l2_answer_fn answer;
    void *actx;
    bool hit;
    xlat_tlb_entry e;
} hop;

static struct {
    xlat_l2_port inner;
    hop hops[4];
    int n;
} net;

static void hop_deliver(void *arg)
{
    hop *p = arg;
    p->answer(p->actx, p->hit ? &p->e : NULL);
}

static void hop_back(void *ctx, const xlat_tlb_entry *hit)
{
    hop *p = ctx;
    p->hit = hit != NULL;
    if (hit)
        p->e = *hit;
    ck_assert_int_eq(xlat_schedule(h.ctx, 50, hop_deliver, p), XLAT_OK);
}

static int hop_probe(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_answer_fn answer,
                     void *actx)
{
    (void)user;
    hop *p = &net.hops[net.n++ % 4];
    p->answer = answer;
    p->actx = actx;
    return net.inner.probe(net.inner.probe_user, pasid, vaddr, hop_back, p);
}

START_TEST(interconnect_on_the_l2_port)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.gpus = 2;
    c.inclusion = XLAT_INCL_LEAST;
    make(&c);
    xlat_tlb *l2 = attach_l2(1, 8, "gpu1.l2");
    xlat_tlb_entry e = {.pasid = 1, .vpn = 5, .pfn = 0x905, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 1, &e), XLAT_OK);
    ck_assert_int_eq(send(1, 5 << 12, 0), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_uint_eq(h.done[0].completed - h.done[0].issued, 320);
    net.inner = (xlat_l2_port)XLAT_L2_PORT_INIT;
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 1, &net.inner), XLAT_OK);
    xlat_l2_port wrapped = net.inner;
    wrapped.probe = hop_probe;
    ck_assert_int_eq(xlat_iommu_attach_l2_port(h.iommu, 1, &wrapped), XLAT_OK);
    ck_assert_int_eq(send(2, 5 << 12, 0), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 2);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[1]), "gpu1.l2");
    ck_assert_uint_eq(h.done[1].completed - h.done[1].issued, 370);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(h.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.remote_hits, 2);
    wrapped.insert = NULL;
    ck_assert_int_eq(xlat_iommu_attach_l2_port(h.iommu, 1, &wrapped), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 0, &net.inner), XLAT_ERR_INVAL);
    /* sized: a port without a struct_size is refused both ways */
    wrapped.insert = net.inner.insert;
    wrapped.struct_size = 0;
    ck_assert_int_eq(xlat_iommu_attach_l2_port(h.iommu, 1, &wrapped), XLAT_ERR_INVAL);
    xlat_l2_port unsized;
    memset(&unsized, 0, sizeof(unsized));
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 1, &unsized), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "XLAT_L2_PORT_INIT"));
    /* a first-release host's port: everything through `unit` */
    struct {
        xlat_l2_port p;
        unsigned char canary[8];
    } v0;
    memset(&v0, 0xA5, sizeof(v0));
    v0.p.struct_size = XLAT_L2_PORT_SIZE_V0;
    ck_assert_int_eq(xlat_iommu_l2_port(h.iommu, 1, &v0.p), XLAT_OK);
    ck_assert_ptr_eq(v0.p.probe, hop_probe);
    ck_assert_uint_eq(v0.p.unit, xlat_unit_id(h.ctx, l2));
    ck_assert_uint_eq(v0.canary[0], 0xA5);
    ck_assert_int_eq(xlat_iommu_l2_victim(h.iommu, 2, &e), XLAT_ERR_INVAL);
    xlat_iommu_destroy(h.iommu);
    h.iommu = NULL;
    xlat_tlb_destroy(l2);
}
END_TEST

static int create_rc(xlat_iommu_config *c)
{
    xlat_iommu *m = NULL;
    int rc = xlat_iommu_create(h.ctx, c, &m);
    xlat_iommu_destroy(m);
    return rc;
}

START_TEST(errors)
{
    xlat_iommu_config c;
    xlat_walker_config wc;
    iommu_config(&c, &wc);
    c.walk = NULL;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "iommu iommu: cfg.walk is NULL (the walkers'"
                                             " template, with walk->pt, is required)");
    c.walk = &wc;
    wc.pt = NULL;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL); /* no page table */
    wc.pt = h.pt;
    c.gpus = 0;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.gpus = 1025; /* above the limit, 1024 (an NVLink domain) */
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.gpus = 4;
    c.inclusion = (xlat_incl)7;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.inclusion = XLAT_INCL_LEAST;
    c.tlb2_entries = 8;
    c.tlb2_ways = 8;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "mostly-inclusive"));
    c.tlb2_entries = 0;
    c.tracker_entries = 3; /* cannot be split among 4 GPUs */
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.tracker_entries = 2048;
    c.buffer_entries = 0;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.buffer_entries = 16;
    c.tlb_ways = 3;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.tlb_ways = 64;
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    xlat_iommu *m = NULL;
    ck_assert_int_eq(xlat_iommu_create(NULL, &c, &m), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_create(h.ctx, NULL, &m), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &c, NULL), XLAT_ERR_INVAL);
    make(&c);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 1, .pfn = 1, .page_shift = 12};
    ck_assert_int_eq(xlat_iommu_attach_l2(h.iommu, 4, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 4, &e), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_preload_l2(h.iommu, 0, &e), XLAT_ERR_INVAL); /* no L2 */
    e.page_shift = 3;
    ck_assert_int_eq(xlat_iommu_preload(h.iommu, 0, &e), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_translate(NULL, NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_fault_done(NULL, 0, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_iommu_invalidate(NULL, 0, 0), XLAT_ERR_INVAL);
    ck_assert_ptr_null(xlat_iommu_tlb(NULL));
    ck_assert_ptr_null(xlat_iommu_walker(NULL));
    ck_assert(!xlat_iommu_tracked(NULL, 0, 0, 0));
    ck_assert_uint_eq(xlat_iommu_eviction_counter(NULL, 0), 0);
    xlat_iommu_stats st = {.walks = 3};
    xlat_iommu_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.walks, 0);
    ck_assert_int_eq(xlat_iommu_flush(NULL), XLAT_ERR_INVAL);
    xlat_iommu_destroy(NULL);
    xlat_iommu_config_init(NULL);
}
END_TEST

Suite *iommu_suite(void)
{
    Suite *s = suite_create("iommu");
    TCase *tc = test_case(s, "unit");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, two_levels);
    tcase_add_test(tc, unbounded_tlb);
    tcase_add_test(tc, page_requests_are_batched);
    tcase_add_test(tc, full_buffer_refuses);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, faults_free_their_slots);
    tcase_add_test(tc, never_answers_inside_translate);
    tcase_add_test(tc, probe_answers_a_parked_walk);
    tcase_add_test(tc, remote_hits_abort_queued_walks);
    tcase_add_test(tc, tracker_false_positive_rate);
    tcase_add_test(tc, probe_miss_deletes_the_probed_key);
    tcase_add_test(tc, invalidate_spares_other_keys);
    tcase_add_test(tc, flush_and_invalidate_count_entries);
    tcase_add_test(tc, preload_refused);
    tcase_add_test(tc, shared_l2_victims_count_for_the_lower_gpu);
    tcase_add_test(tc, policy_state_fails_cleanly);
    tcase_add_test(tc, interconnect_on_the_l2_port);
    tcase_add_test(tc, no_tlb_walks_at_once);
    tcase_add_test(tc, no_tlb_refuses_tlb_policies);
    tcase_add_test(tc, tracker_exact_has_no_false_positive);
    return s;
}
