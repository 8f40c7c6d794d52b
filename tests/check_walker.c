/* The walker pool: the Figure 8 walk-through of "Neighborhood-aware address
 * translation for irregular GPU applications" step by step, FCFS with and
 * without a page walk cache, faults, the host's memory, refusals. */
#include "walk_fixture.h"

/* Figure 8's three requests (the extract's reconstruction, §D.1): VA0 and
 * VA1 share every upper entry and one leaf line; VA2 shares the L4 and L3
 * entries and the L2 line. Nodes: root 0x100, L3 0x200, L2 0x300, L1 0x400
 * (VA0, VA1) and 0x500 (VA2). */
static const uint64_t va0 = 0x7AA8C5289000ull, va1 = 0x7AA8C528A000ull, va2 = 0x7AA8C5410000ull;
static const uint64_t node_pfns[] = {0x100, 0x200, 0x300, 0x400, 0x500};
static walk_fixture f;

static void fig8_table(void)
{
    wf_memory(&f, node_pfns, 5);
    wf_table(&f);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, va0, 0x057, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, va1, 0x058, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, va2, 0x0C3, 12, XLAT_PERM_R), XLAT_OK);
    uint64_t root;
    ck_assert_int_eq(xlat_pagetable_root(f.pt, 1, &root), XLAT_OK);
    ck_assert_uint_eq(root, 0x100);
}

static bool fig8_fill = true; /* coalesce_fill_pwc */

static void fig8_pool(bool coalesce, uint32_t pwc_entries)
{
    fig8_table();
    if (pwc_entries)
        wf_pwc(&f, pwc_entries, 0);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.walkers = 2;
    c.mem_latency = 1; /* the unit latency M of the walk-through */
    c.coalesce = coalesce;
    c.coalesce_fill_pwc = fig8_fill;
    wf_pool(&f, &c);
    ck_assert_int_eq(wf_send(&f, 0, va0), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 1, va1), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, va2), XLAT_OK);
}

static void teardown(void) { wf_destroy(&f); }

static void expect_buffered(size_t i, uint64_t id, uint32_t pl, uint64_t pa, bool cl)
{
    xlat_walk_info info;
    ck_assert_int_eq(xlat_walker_buffered_info(f.pool, i, &info, sizeof(info)), XLAT_OK);
    ck_assert_uint_eq(info.id, id);
    ck_assert_uint_eq(info.level, pl);
    ck_assert_uint_eq(info.node_pfn, pa);
    ck_assert_int_eq(info.cl, cl);
}

static void expect_service(uint32_t w, uint64_t id, uint32_t level, uint64_t node)
{
    xlat_walk_info info;
    ck_assert_int_eq(xlat_walker_service_info(f.pool, w, &info, sizeof(info)), XLAT_OK);
    ck_assert_uint_eq(info.id, id);
    ck_assert_uint_eq(info.level, level);
    ck_assert_uint_eq(info.node_pfn, node);
}

START_TEST(fig8_full_coalescing_step_by_step)
{
    fig8_pool(true, 0);
    /* (b) Req0 on PTW0 at L4; Req1 and Req2 could be served by it: CL set,
     * PTW1 stays idle. */
    expect_service(0, 0, 4, 0x100);
    ck_assert_int_eq(xlat_walker_service_info(f.pool, 1, NULL, 0), XLAT_ERR_INVAL);
    xlat_walk_info info;
    ck_assert_int_eq(xlat_walker_service_info(f.pool, 1, &info, sizeof(info)), XLAT_ERR_NOT_FOUND);
    expect_buffered(0, 1, 0, 0, true);
    expect_buffered(1, 2, 0, 0, true);
    wf_run_until(&f, 1); /* L4 line read: both reach the L3 node */
    expect_service(0, 0, 3, 0x200);
    expect_buffered(0, 1, 4, 0x200, true);
    expect_buffered(1, 2, 4, 0x200, true);
    wf_run_until(&f, 2);
    expect_service(0, 0, 2, 0x300);
    expect_buffered(0, 1, 3, 0x300, true);
    expect_buffered(1, 2, 3, 0x300, true);
    /* (c) After the L2 line, Req2's L1 node is known and PTW0's leaf line
     * cannot serve it: CL clears and PTW1 starts it at L1. */
    wf_run_until(&f, 3);
    expect_service(0, 0, 1, 0x400);
    expect_service(1, 2, 1, 0x500);
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 1);
    expect_buffered(0, 1, 2, 0x400, true);
    /* (d) PTW0's leaf line answers Req0 and Req1; PTW1 answers Req2. */
    wf_run_until(&f, 4);
    ck_assert_int_eq(f.ndone, 3);
    for (uint64_t id = 0; id < 3; id++)
        ck_assert_uint_eq(wf_done(&f, id)->completed, 4);
    ck_assert_uint_eq(wf_done(&f, 0)->pfn, 0x057);
    ck_assert_uint_eq(wf_done(&f, 1)->pfn, 0x058);
    ck_assert_uint_eq(wf_done(&f, 2)->pfn, 0x0C3);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, 5);
    ck_assert_uint_eq(st.walks, 2);
    ck_assert_uint_eq(st.coalesced, 1);
    ck_assert_uint_eq(st.partial_coalesces, 6); /* Req1 and Req2 at L4, L3, L2 */
    /* The five distinct lines, in the order read. */
    const uint64_t lines[] = {0x100780, 0x200500, 0x300140, 0x400440, 0x500080};
    int n = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == XLAT_WALK_READ) {
            ck_assert_int_lt(n, 5);
            ck_assert_uint_eq(f.ev[i].line_paddr, lines[n++]);
        }
    ck_assert_int_eq(n, 5);
}
END_TEST

static uint64_t fig8_reads(bool coalesce, uint32_t pwc_entries, uint64_t *t0, uint64_t *t1,
                           uint64_t *t2)
{
    fig8_pool(coalesce, pwc_entries);
    wf_run_until(&f, 20);
    ck_assert_int_eq(f.ndone, 3);
    *t0 = wf_done(&f, 0)->completed;
    *t1 = wf_done(&f, 1)->completed;
    *t2 = wf_done(&f, 2)->completed;
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    return st.reads;
}

START_TEST(fig8_fcfs_without_pwc)
{
    uint64_t t0, t1, t2;
    ck_assert_uint_eq(fig8_reads(false, 0, &t0, &t1, &t2), 12);
    ck_assert_uint_eq(t0, 4);
    ck_assert_uint_eq(t1, 4);
    ck_assert_uint_eq(t2, 8);
}
END_TEST

START_TEST(fig8_fcfs_with_cold_pwc)
{
    uint64_t t0, t1, t2;
    /* Req2 finds the L3 entry of Req0's walk cached: L2 and L1 remain. */
    ck_assert_uint_eq(fig8_reads(false, 16, &t0, &t1, &t2), 10);
    ck_assert_uint_eq(t0, 4);
    ck_assert_uint_eq(t1, 4);
    ck_assert_uint_eq(t2, 6);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.pwc_lookups, 3);
    ck_assert_uint_eq(st.pwc_hits[3], 1);
    ck_assert_uint_eq(st.reads_level[4], 2);
    ck_assert_uint_eq(st.reads_level[1], 3);
}
END_TEST

START_TEST(fig8_coalescing_with_cold_pwc)
{
    uint64_t t0, t1, t2;
    ck_assert_uint_eq(fig8_reads(true, 16, &t0, &t1, &t2), 5);
    ck_assert_uint_eq(t2, 4);
}
END_TEST

/* Upper-level entries obtained through coalescing fill the PWC (seed-002
 * note §A.3) when coalesce_fill_pwc is set. In Figure 8 Req2's L2 entry
 * (to L1 node 0x500) comes only from PTW0's L2 line: Req2 then starts at
 * L1 from its PA and never reads it. With the knob, it is the fourth fill
 * (after PTW0's L4, L3, L2 entries), and a later request in node 0x500,
 * sent at t30, hits it at level 2: one read, done at t31. Without, the
 * deepest hit is the L3 entry: two reads, done at t32. The Figure 8 outcome (5 reads, all
 * at t4) is the same either way. */
START_TEST(fig8_coalescing_fills_pwc)
{
    bool fill = _i;
    uint64_t t0, t1, t2;
    fig8_fill = fill;
    ck_assert_uint_eq(fig8_reads(true, 16, &t0, &t1, &t2), 5);
    fig8_fill = true;
    ck_assert_uint_eq(t0, 4);
    ck_assert_uint_eq(t1, 4);
    ck_assert_uint_eq(t2, 4);
    xlat_pwc_stats ps;
    xlat_pwc_stats_get(f.pwc, &ps, sizeof(ps));
    ck_assert_uint_eq(ps.fills, fill ? 4 : 3);
    const uint64_t va3 = va2 + 0x8000; /* node 0x500, another leaf line */
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, va3, 0x0C4, 12, XLAT_PERM_R), XLAT_OK);
    wf_run_until(&f, 30);
    ck_assert_int_eq(wf_send(&f, 3, va3), XLAT_OK);
    wf_run_until(&f, 40);
    ck_assert_uint_eq(wf_done(&f, 3)->pfn, 0x0C4);
    ck_assert_uint_eq(wf_done(&f, 3)->completed, fill ? 31 : 32);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, fill ? 6 : 7);
    ck_assert_uint_eq(st.pwc_hits[2], fill ? 1 : 0);
    ck_assert_uint_eq(st.pwc_hits[3], fill ? 0 : 1);
}
END_TEST

/* Coalescing is level-generic: a 5-level table with three requests in one
 * leaf line and one in the same level-3 line only. */
START_TEST(five_levels)
{
    static const uint64_t none[1] = {0};
    wf_memory(&f, none, 0);
    xlat_pagetable_config c;
    xlat_pagetable_config_init(&c);
    c.mem = f.mem;
    c.levels = 5;
    ck_assert_int_eq(xlat_pagetable_create(f.ctx, &c, &f.pt), XLAT_OK);
    const uint64_t base = 0x00F0000000000000ull, far = base + (5ull << 21);
    for (uint64_t i = 0; i < 3; i++)
        ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, base + i * 4096, 0x900 + i, 12, XLAT_PERM_R),
                         XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, far, 0x9FF, 12, XLAT_PERM_R), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.walkers = 4;
    wc.mem_latency = 1;
    wc.coalesce = true;
    wf_pool(&f, &wc);
    for (uint64_t i = 0; i < 3; i++)
        ck_assert_int_eq(wf_send(&f, i, base + i * 4096), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 3, far), XLAT_OK);
    wf_run_until(&f, 10);
    ck_assert_int_eq(f.ndone, 4);
    for (uint64_t i = 0; i < 3; i++)
        ck_assert_uint_eq(wf_done(&f, i)->completed, 5);
    /* The far page shares levels 5..3 and its own L2 entry's line: it
     * starts at L1 when the L2 line is read (cycle 4) and ends at 5. */
    ck_assert_uint_eq(wf_done(&f, 3)->completed, 5);
    ck_assert_uint_eq(wf_done(&f, 3)->pfn, 0x9FF);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.reads, 6);
    ck_assert_uint_eq(st.reads_level[5], 1);
    ck_assert_uint_eq(st.reads_level[1], 2);
    ck_assert_uint_eq(st.coalesced, 2);
}
END_TEST

Suite *walker_suite(void)
{
    Suite *s = suite_create("walker");
    TCase *tc = test_case(s, "figure8");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, fig8_full_coalescing_step_by_step);
    tcase_add_test(tc, fig8_fcfs_without_pwc);
    tcase_add_test(tc, fig8_fcfs_with_cold_pwc);
    tcase_add_test(tc, fig8_coalescing_with_cold_pwc);
    tcase_add_loop_test(tc, fig8_coalescing_fills_pwc, 0, 2);
    tcase_add_test(tc, five_levels);
    return s;
}
