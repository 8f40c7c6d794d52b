/* The walker pool's edges: faults and their resumption, the host's memory
 * model, a full buffer, large pages, permissions and creation errors. */
#include "walk_fixture.h"

static walk_fixture f;
static const uint64_t no_pfns[1] = {0};

static void pool(uint32_t walkers, uint32_t queue, bool coalesce, xlat_walk_fault_fn fault_fn,
                 xlat_mem_read_fn mem_read)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.walkers = walkers;
    c.queue_entries = queue;
    c.mem_latency = 10;
    c.coalesce = coalesce;
    c.fault_fn = fault_fn;
    c.fault_user = &f;
    c.mem_read = mem_read;
    c.mem_user = &f;
    wf_pool(&f, &c);
}

static void setup(void)
{
    wf_memory(&f, no_pfns, 0);
    wf_table(&f);
}

static void teardown(void) { wf_destroy(&f); }

static uint64_t fault_token;
static xlat_walk_fault last_fault;
static int faults;

static void on_fault(void *user, xlat_walker *p, const xlat_walk_fault *flt)
{
    (void)user;
    (void)p;
    last_fault = *flt;
    fault_token = flt->token;
    faults++;
}

START_TEST(fault_then_map_and_resume)
{
    faults = 0;
    pool(1, 4, false, on_fault, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x200000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 7, 0x201000), XLAT_OK); /* same L1 node, no leaf */
    wf_run_until(&f, 40);
    ck_assert_int_eq(faults, 1);
    ck_assert_uint_eq(last_fault.id, 7);
    ck_assert_uint_eq(last_fault.level, 1);
    ck_assert_uint_eq(last_fault.vaddr, 0x201000);
    ck_assert_int_eq(f.ndone, 0);
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 1); /* the walker waits for the host */
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token + 1, XLAT_OK), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x201000, 0x901, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_OK), XLAT_OK);
    wf_run_until(&f, 50);
    ck_assert_int_eq(f.ndone, 1);
    ck_assert_int_eq(f.done[0].status, XLAT_OK);
    ck_assert_uint_eq(f.done[0].pfn, 0x901);
    ck_assert_uint_eq(f.done[0].completed, 50); /* the leaf re-read: 10 cycles */
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_OK), XLAT_ERR_NOT_FOUND);
}
END_TEST

START_TEST(fault_resumed_with_error_and_without_callback)
{
    faults = 0;
    pool(1, 4, false, on_fault, NULL);
    ck_assert_int_eq(wf_send(&f, 1, 0x5000), XLAT_OK); /* no table at all for PASID 1 */
    wf_run_until(&f, 1);
    ck_assert_int_eq(faults, 1);
    ck_assert_uint_eq(last_fault.level, 4);
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_ERR_FAULT), XLAT_OK);
    ck_assert_int_eq(f.ndone, 1);
    ck_assert_int_eq(f.done[0].status, XLAT_ERR_FAULT);
    xlat_walker_destroy(f.pool);
    f.pool = NULL;
    pool(1, 4, false, NULL, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x0, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x5000), XLAT_OK);
    wf_run_until(&f, 100);
    ck_assert_int_eq(f.ndone, 2);
    ck_assert_int_eq(f.done[1].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(f.done[1].completed, 41); /* sent at cycle 1 */
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.faults, 1);
}
END_TEST

/* The host's memory: answers each read 7 cycles later, refusing every
 * other new read once. */
static uint64_t tokens[64];
static int ntokens, refuse_next;

static int host_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    (void)user;
    ck_assert_uint_eq(bytes, 64);
    ck_assert_uint_eq(paddr & 63, 0);
    if ((refuse_next ^= 1))
        return XLAT_ERR_AGAIN;
    tokens[ntokens++] = token;
    return XLAT_OK;
}

START_TEST(host_memory_model)
{
    ntokens = refuse_next = 0;
    pool(2, 4, false, NULL, host_read);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x40000000, 0x777, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 1, 0x40000000), XLAT_OK);
    for (int level = 4; level >= 1; level--) {
        wf_run_until(&f, xlat_now(f.ctx) + 1); /* the first try was refused */
        ck_assert_int_eq(ntokens, 5 - level);
        ck_assert_int_eq(xlat_walker_mem_done(f.pool, tokens[ntokens - 1] ^ (1ull << 40)),
                         XLAT_ERR_NOT_FOUND);
        ck_assert_int_eq(xlat_walker_mem_done(f.pool, tokens[ntokens - 1]), XLAT_OK);
        ck_assert_int_eq(xlat_walker_mem_done(f.pool, tokens[ntokens - 1]), XLAT_ERR_NOT_FOUND);
    }
    ck_assert_int_eq(f.ndone, 1);
    ck_assert_uint_eq(f.done[0].pfn, 0x777);
    ck_assert_uint_eq(f.done[0].completed, 4);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.mem_retries, 4);
    ck_assert_uint_eq(st.reads, 4);
}
END_TEST

START_TEST(full_buffer_refuses)
{
    pool(1, 2, false, NULL, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 1, 0), XLAT_OK); /* starts at once */
    ck_assert_int_eq(wf_send(&f, 2, 0), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 3, 0), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 4, 0), XLAT_ERR_AGAIN);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "no buffer room"));
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 2);
    wf_run_until(&f, 200);
    ck_assert_int_eq(f.ndone, 3);
    ck_assert_uint_eq(f.done[2].completed, 120);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.queue_cycles, 40 + 80);
    ck_assert_uint_eq(st.service_cycles, 120);
    ck_assert_uint_eq(st.queue_hist[0], 1);  /* 0 cycles */
    ck_assert_uint_eq(st.queue_hist[6], 1);  /* 40: [32, 64) */
    ck_assert_uint_eq(st.queue_hist[7], 1);  /* 80: [64, 128) */
    ck_assert_uint_eq(st.service_hist[6], 3);
}
END_TEST

START_TEST(large_pages_coalesce_at_level_two)
{
    pool(2, 8, true, NULL, NULL);
    for (uint64_t i = 0; i < 8; i++) /* eight 2 MiB pages: one level-2 line */
        ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, i << 21, 0x10 + i, 21,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    for (uint64_t i = 0; i < 8; i++)
        ck_assert_int_eq(wf_send(&f, i, (i << 21) | 0x1234), XLAT_OK);
    wf_run_until(&f, 100);
    ck_assert_int_eq(f.ndone, 8);
    for (uint64_t i = 0; i < 8; i++) {
        const xlat_resp *r = wf_done(&f, i);
        ck_assert_uint_eq(r->page_shift, 21);
        ck_assert_uint_eq(r->pfn, 0x10 + i);
        ck_assert_uint_eq(r->paddr, ((0x10 + i) << 21) | 0x1234);
        ck_assert_uint_eq(r->completed, 30);
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, 3);
    ck_assert_uint_eq(st.coalesced, 7);
}
END_TEST

START_TEST(permission_fault_carries_translation)
{
    pool(1, 4, false, NULL, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x3000, 0x42, 12, XLAT_PERM_R), XLAT_OK);
    xlat_req req = {.id = 9, .vaddr = 0x3008, .pasid = 1, .access = XLAT_ACCESS_WRITE};
    ck_assert_int_eq(xlat_walker_translate(f.pool, &req, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_walker_translate(NULL, &req, NULL, NULL), XLAT_ERR_INVAL);
    xlat_target t = TEST_TARGET(walker, f.pool);
    ck_assert_int_eq(xlat_target_translate(&t, NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(wf_send(&f, 1, 0x3008), XLAT_OK);
    ck_assert_int_eq(wf_send_req(&f, &req), XLAT_OK);
    wf_run_until(&f, 100);
    ck_assert_int_eq(f.done[0].status, XLAT_OK);
    ck_assert_uint_eq(f.done[0].perm, XLAT_PERM_R); /* not writable, not executable */
    ck_assert_str_eq(test_resolver(f.ctx, &f.done[0]), "walker");
    ck_assert_int_eq(f.done[1].status, XLAT_ERR_PERM);
    ck_assert_uint_eq(f.done[1].pfn, 0x42);
}
END_TEST

/* Neighborhood coalescing (seed-002 note §A.5 step 5): a neighbour whose
 * entry in the fetched line is not present faults at once from that line
 * instead of walking again to re-read it. Without a handler it is answered
 * XLAT_ERR_FAULT with the line's leaves: 4 reads, both answers at t40
 * (re-reading took a second walk: 5 reads, the fault at t50). */
START_TEST(neighbour_fault_from_the_same_line)
{
    pool(2, 4, true, NULL, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x200000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 1, 0x200000), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x201000), XLAT_OK); /* same leaf line, not mapped */
    wf_run_until(&f, 100);
    ck_assert_int_eq(f.ndone, 2);
    ck_assert_uint_eq(f.done[0].id, 1);
    ck_assert_int_eq(f.done[0].status, XLAT_OK);
    ck_assert_uint_eq(f.done[0].completed, 40);
    ck_assert_uint_eq(f.done[1].id, 2);
    ck_assert_int_eq(f.done[1].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(f.done[1].completed, 40);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, 4);
    ck_assert_uint_eq(st.walks, 1);
    ck_assert_uint_eq(st.faults, 1);
    ck_assert_uint_eq(st.coalesced, 0);
    ck_assert_uint_eq(st.partial_coalesces, 3);
}
END_TEST

/* With a handler the neighbour's fault is raised at t40 from the same line
 * (its entry 0x1003008 in the leaf node 0x1003); it keeps its buffer slot
 * and no walker. Resumed with XLAT_OK after mapping, its walk starts at
 * that entry: one read, answered at t55. Resumed with an error, it is
 * answered with it at once. */
START_TEST(neighbour_fault_with_handler)
{
    faults = 0;
    pool(2, 4, true, on_fault, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x200000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 1, 0x200000), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x201000), XLAT_OK);
    wf_run_until(&f, 40);
    ck_assert_int_eq(faults, 1);
    ck_assert_uint_eq(last_fault.id, 2);
    ck_assert_uint_eq(last_fault.level, 1);
    ck_assert_uint_eq(last_fault.vaddr, 0x201000);
    ck_assert_uint_eq(last_fault.entry_paddr, 0x1003008);
    ck_assert_int_eq(f.ndone, 1);
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 0);
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 1);
    ck_assert_int_eq(xlat_walker_mem_done(f.pool, fault_token), XLAT_ERR_NOT_FOUND);
    wf_run_until(&f, 45);
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 0); /* parked: no walker takes it */
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x201000, 0x901, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_OK), XLAT_OK);
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_OK), XLAT_ERR_NOT_FOUND);
    xlat_walk_info info;
    ck_assert_int_eq(xlat_walker_service_info(f.pool, 0, &info, sizeof(info)), XLAT_OK);
    ck_assert_uint_eq(info.id, 2);
    ck_assert_uint_eq(info.level, 1);
    ck_assert_uint_eq(info.node_pfn, 0x1003);
    wf_run_until(&f, 100);
    ck_assert_int_eq(f.ndone, 2);
    ck_assert_int_eq(f.done[1].status, XLAT_OK);
    ck_assert_uint_eq(f.done[1].pfn, 0x901);
    ck_assert_uint_eq(f.done[1].completed, 55);
    ck_assert_int_eq(wf_send(&f, 3, 0x200000), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 4, 0x203000), XLAT_OK);
    wf_run_until(&f, 140);
    ck_assert_int_eq(faults, 2);
    ck_assert_uint_eq(last_fault.id, 4);
    ck_assert_int_eq(xlat_walker_fault_resume(f.pool, fault_token, XLAT_ERR_PERM), XLAT_OK);
    ck_assert_int_eq(f.ndone, 4);
    ck_assert_int_eq(f.done[3].status, XLAT_ERR_PERM);
    ck_assert_uint_eq(f.done[3].completed, 140);
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 0);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, 9);
    ck_assert_uint_eq(st.walks, 3);
    ck_assert_uint_eq(st.faults, 2);
}
END_TEST

/* Two pages of a 4-bit-per-level table walked through a PWC; returns the
 * walker create status, and the two frames when it succeeds. */
static int walk_4bit(uint32_t pwc_bits, uint64_t *pfn_a, uint64_t *pfn_b)
{
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = f.mem;
    tc.bits_per_level = 4;
    xlat_pagetable *pt4;
    ck_assert_int_eq(xlat_pagetable_create(f.ctx, &tc, &pt4), XLAT_OK);
    /* Level-2 prefixes (vaddr >> 16) differ; under 9-bit tags (>> 21) they do not. */
    ck_assert_int_eq(xlat_pagetable_map(pt4, 1, 0x10000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(pt4, 1, 0x20000, 0x901, 12, XLAT_PERM_R), XLAT_OK);
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    pc.bits_per_level = pwc_bits;
    ck_assert_int_eq(xlat_pwc_create(f.ctx, &pc, &f.pwc), XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = pt4;
    c.pwc = f.pwc;
    c.walkers = 1;
    c.mem_latency = 10;
    int rc = xlat_walker_create(f.ctx, &c, &f.pool);
    if (rc == XLAT_OK) {
        ck_assert_int_eq(wf_send(&f, 1, 0x10000), XLAT_OK);
        ck_assert_int_eq(wf_send(&f, 2, 0x20000), XLAT_OK);
        wf_run_until(&f, 200);
        ck_assert_int_eq(f.ndone, 2);
        *pfn_a = f.done[0].pfn;
        *pfn_b = f.done[1].pfn;
        xlat_walker_destroy(f.pool);
        f.pool = NULL;
    }
    xlat_pwc_destroy(f.pwc);
    f.pwc = NULL;
    xlat_pagetable_destroy(pt4);
    return rc;
}

/* Regression: a walker accepted a PWC whose geometry differs from the
 * table's and then answered with another page's frame (the second walk
 * hit the first one's level-2 entry under 9-bit tags). */
START_TEST(pwc_geometry_must_match_table)
{
    uint64_t a = 0, b = 0;
    ck_assert_int_eq(walk_4bit(9, &a, &b), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(f.ctx),
                     "walker walker: the page walk cache's geometry (4 levels, 9 bits per level, "
                     "page shift 12) differs from the page table's (4, 4, 12)");
    ck_assert_int_eq(walk_4bit(4, &a, &b), XLAT_OK);
    ck_assert_uint_eq(a, 0x900);
    ck_assert_uint_eq(b, 0x901);
    uint32_t levels = 0, bits = 0, shift = 0;
    ck_assert_int_eq(xlat_pwc_geometry(NULL, &levels, &bits, &shift), XLAT_ERR_INVAL);
}
END_TEST

static int create_rc(xlat_walker_config *c)
{
    xlat_walker *p = NULL;
    int rc = xlat_walker_create(f.ctx, c, &p);
    xlat_walker_destroy(p);
    return rc;
}

START_TEST(create_errors)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL); /* no page table */
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "no page table"));
    c.pt = f.pt;
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c.walkers = 0;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.walkers = 8;
    c.queue_entries = 0;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.queue_entries = 16;
    c.line_bytes = 48;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.line_bytes = 64;
    c.sched = (xlat_walk_sched)9;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.sched = XLAT_SCHED_FCFS;
    c.tenants = 0;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.tenants = 65;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    c.tenants = 3; /* FCFS needs no split of walkers */
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c.struct_size = 8;
    ck_assert_int_eq(create_rc(&c), XLAT_ERR_INVAL);
    xlat_walker *p = NULL;
    ck_assert_int_eq(xlat_walker_create(NULL, &c, &p), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_walker_create(f.ctx, NULL, &p), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_walker_create(f.ctx, &c, NULL), XLAT_ERR_INVAL);
    xlat_walker_destroy(NULL);
    xlat_walker_config_init(NULL);
    ck_assert_uint_eq(xlat_walker_buffered(NULL), 0);
    ck_assert_uint_eq(xlat_walker_busy(NULL), 0);
    ck_assert_int_eq(xlat_walker_mem_done(NULL, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_walker_fault_resume(NULL, 0, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_walker_set_tenant(NULL, 0, 0), XLAT_ERR_INVAL);
    xlat_walker_stats st = {.walks = 3};
    xlat_walker_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.walks, 0);
    xlat_walker_tenant_stats ts;
    ck_assert_int_eq(xlat_walker_tenant_stats_get(NULL, 0, &ts, sizeof(ts)), XLAT_ERR_INVAL);
    xlat_walker_stats_reset(NULL);
}
END_TEST

START_TEST(tenants_by_pasid)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.tenants = 4;
    wf_pool(&f, &c);
    ck_assert_int_eq(xlat_walker_set_tenant(f.pool, 9, 2), XLAT_OK);
    ck_assert_int_eq(xlat_walker_set_tenant(f.pool, 9, 3), XLAT_OK);
    ck_assert_int_eq(xlat_walker_set_tenant(f.pool, 10, 4), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 9, 0x1000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 9};
    ck_assert_int_eq(xlat_walker_translate(f.pool, &req, NULL, NULL), XLAT_ERR_INVAL);
    xlat_walker_tenant_stats ts;
    ck_assert_int_eq(xlat_walker_tenant_stats_get(f.pool, 4, &ts, sizeof(ts)), XLAT_ERR_INVAL);
    for (uint32_t pasid = 0; pasid < 300; pasid++)
        if (pasid != 9)
            xlat_walker_set_tenant(f.pool, pasid, 1);
    ck_assert_int_eq(xlat_walker_set_tenant(f.pool, 1000, 1), XLAT_ERR_FULL);
}
END_TEST

Suite *walker_io_suite(void)
{
    Suite *s = suite_create("walker_io");
    TCase *tc = test_case(s, "edges");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fault_then_map_and_resume);
    tcase_add_test(tc, fault_resumed_with_error_and_without_callback);
    tcase_add_test(tc, host_memory_model);
    tcase_add_test(tc, full_buffer_refuses);
    tcase_add_test(tc, large_pages_coalesce_at_level_two);
    tcase_add_test(tc, permission_fault_carries_translation);
    tcase_add_test(tc, neighbour_fault_from_the_same_line);
    tcase_add_test(tc, neighbour_fault_with_handler);
    tcase_add_test(tc, create_errors);
    tcase_add_test(tc, pwc_geometry_must_match_table);
    tcase_add_test(tc, tenants_by_pasid);
    return s;
}
