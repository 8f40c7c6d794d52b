/*
 * Targets as they cross the boundary, and teardown: every get_target
 * honours the host's struct_size (the first release's size, a newer host's
 * larger struct, nonsense), every unit given a target checks it the way a
 * create checks its config, and a unit another unit holds says
 * XLAT_ERR_BUSY when destroyed, until the holder is rewired or gone
 * (doc/composition.md, "Teardown").
 */
#include "least_fixture.h"

/* The first release's xlat_target, as a host built against it has it. */
typedef struct target_v0 {
    uint32_t struct_size;
    int (*translate)(void *unit, const xlat_req *req, xlat_done_fn done, void *user);
    void *unit;
    int (*wait)(void *unit, xlat_event_fn fn, void *user);
    uint32_t unit_id;
} target_v0;

/* A newer host's: one more field at the tail. */
typedef struct target_newer {
    xlat_target known;
    uint64_t later;
} target_newer;

/* One unit of each kind with a get_target, over one context. */
typedef struct units {
    xlat_ctx *ctx;
    counting_alloc ca;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_fixed *fixed;
    xlat_link *link;
    xlat_tlb *l1, *l2;
    xlat_walker *walker;
    xlat_iommu *iommu;
    xlat_gmmu *gmmu;
} units;

static units u;

static void make_units(void)
{
    memset(&u, 0, sizeof(u));
    counting_alloc_init(&u.ca);
    u.ctx = test_ctx(11, &u.ca);
    test_table(u.ctx, &u.mem, &u.pt);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "mem";
    fc.latency = 20;
    ck_assert_int_eq(xlat_fixed_create(u.ctx, &fc, &u.fixed), XLAT_OK);
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.name = "pcie";
    ck_assert_int_eq(xlat_link_create(u.ctx, &lc, &u.link), XLAT_OK);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.name = "l1";
    ck_assert_int_eq(xlat_tlb_create(u.ctx, &tc, &u.l1), XLAT_OK);
    tc.name = "l2";
    ck_assert_int_eq(xlat_tlb_create(u.ctx, &tc, &u.l2), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.name = "walkers";
    wc.pt = u.pt;
    ck_assert_int_eq(xlat_walker_create(u.ctx, &wc, &u.walker), XLAT_OK);
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.name = "iommu";
    ic.gpus = 2;
    ic.walk = &wc;
    ck_assert_int_eq(xlat_iommu_create(u.ctx, &ic, &u.iommu), XLAT_OK);
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.name = "gmmu";
    gc.walker = u.walker;
    ck_assert_int_eq(xlat_gmmu_create(u.ctx, &gc, &u.gmmu), XLAT_OK);
}

/* Everything still alive goes with the context, whatever holds what. */
static void end_units(void)
{
    xlat_ctx_destroy(u.ctx);
    ck_assert_uint_eq(u.ca.live_bytes, 0);
    ck_assert_uint_eq(u.ca.allocs, u.ca.frees);
}

/* get_target of every kind, by name, for the table-driven tests. */
typedef int (*get_fn)(void *unit, xlat_target *out);
static struct kind {
    const char *name;
    get_fn get;
    void **unit;
} kinds[] = {
    {"fixed", (get_fn)xlat_fixed_get_target, (void **)&u.fixed},
    {"link", (get_fn)xlat_link_get_target, (void **)&u.link},
    {"tlb", (get_fn)xlat_tlb_get_target, (void **)&u.l2},
    {"walker", (get_fn)xlat_walker_get_target, (void **)&u.walker},
    {"iommu", (get_fn)xlat_iommu_get_target, (void **)&u.iommu},
    {"gmmu", (get_fn)xlat_gmmu_get_target, (void **)&u.gmmu},
};

START_TEST(first_release_size_is_pinned)
{
    /* through unit_id, whatever padding an ABI adds after it */
    ck_assert_uint_eq(XLAT_TARGET_SIZE_V0, offsetof(target_v0, unit_id) + sizeof(uint32_t));
    ck_assert_uint_eq(sizeof(xlat_target), sizeof(target_v0));
    xlat_target init = XLAT_TARGET_INIT;
    ck_assert_uint_eq(init.struct_size, sizeof(xlat_target));
    ck_assert_ptr_null(init.translate);
    ck_assert_uint_eq(init.unit_id, 0);
}
END_TEST

/* A host built against the first release gets a whole target; the bytes
 * after its struct are never written. */
START_TEST(get_target_fills_a_first_release_struct)
{
    make_units();
    struct kind *k = &kinds[_i];
    struct {
        target_v0 t;
        unsigned char canary[16];
    } v0;
    memset(&v0, 0xA5, sizeof(v0));
    v0.t.struct_size = XLAT_TARGET_SIZE_V0;
    ck_assert_int_eq(k->get(*k->unit, (xlat_target *)&v0.t), XLAT_OK);
    ck_assert_uint_eq(v0.t.struct_size, XLAT_TARGET_SIZE_V0);
    ck_assert_ptr_nonnull(v0.t.translate);
    ck_assert_ptr_eq(v0.t.unit, *k->unit);
    ck_assert_uint_eq(v0.t.unit_id, xlat_unit_id(u.ctx, *k->unit));
    ck_assert_str_eq(xlat_unit_kind(u.ctx, v0.t.unit_id), k->name);
    for (size_t i = 0; i < sizeof(v0.canary); i++)
        ck_assert_uint_eq(v0.canary[i], 0xA5);
    /* and it works as a target */
    ck_assert_int_eq(xlat_tlb_set_next(u.l1, (const xlat_target *)&v0.t), XLAT_OK);
    end_units();
}
END_TEST

/* A newer host's larger struct: what this library does not know is zeroed,
 * struct_size stays the host's, and the target is accepted back. */
START_TEST(get_target_zero_fills_a_newer_struct)
{
    make_units();
    struct kind *k = &kinds[_i];
    target_newer n;
    memset(&n, 0xA5, sizeof(n));
    n.known.struct_size = sizeof(n);
    ck_assert_int_eq(k->get(*k->unit, &n.known), XLAT_OK);
    ck_assert_uint_eq(n.known.struct_size, sizeof(n));
    ck_assert_uint_eq(n.later, 0);
    ck_assert_ptr_eq(n.known.unit, *k->unit);
    ck_assert_int_eq(xlat_link_set_next(u.link, &n.known), XLAT_OK);
    /* a newer field set: this library cannot honour it, and says so */
    n.later = 1;
    ck_assert_int_eq(xlat_link_set_next(u.link, &n.known), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(u.ctx), "newer libxlat"));
    end_units();
}
END_TEST

/* No size, a size below the first release's, garbage, NULL: refused with a
 * message that says how to start the struct. */
START_TEST(get_target_refuses_what_is_not_a_size)
{
    make_units();
    struct kind *k = &kinds[_i];
    const uint32_t bad[] = {0, 8, XLAT_TARGET_SIZE_V0 - 1, 0xA5A5A5A5u};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        xlat_target t;
        memset(&t, 0x5A, sizeof(t));
        t.struct_size = bad[i];
        ck_assert_int_eq(k->get(*k->unit, &t), XLAT_ERR_INVAL);
        ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(u.ctx), "XLAT_TARGET_INIT"));
        ck_assert_uint_eq(t.struct_size, bad[i]); /* untouched */
    }
    ck_assert_int_eq(k->get(*k->unit, NULL), XLAT_ERR_INVAL);
    xlat_target t = XLAT_TARGET_INIT;
    ck_assert_int_eq(k->get(NULL, &t), XLAT_ERR_INVAL);
    end_units();
}
END_TEST

static int answers;
static void count_answer(void *user, const xlat_resp *r)
{
    (void)user;
    (void)r;
    answers++;
}

/* Every unit given a target checks it as a create checks a config. */
START_TEST(units_check_the_targets_they_are_given)
{
    make_units();
    xlat_target t = TEST_TARGET(fixed, u.fixed);
    t.struct_size = 0;
    ck_assert_int_eq(xlat_tlb_set_next(u.l2, &t), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(u.ctx), "struct_size"));
    ck_assert_int_eq(xlat_link_set_next(u.link, &t), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_set_iommu(u.gmmu, &t), XLAT_ERR_INVAL);
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    ck_assert_int_eq(xlat_target_translate(&t, &req, count_answer, NULL), XLAT_ERR_INVAL);
    t.struct_size = sizeof(t);
    ck_assert_int_eq(xlat_target_translate(&t, &req, count_answer, NULL), XLAT_OK);
    xlat_advance(u.ctx, 20);
    ck_assert_int_eq(answers, 1);
    answers = 0;
    /* a host's own target names no unit (unit_id 0) and holds nothing */
    t.unit_id = 0;
    ck_assert_int_eq(xlat_tlb_set_next(u.l2, &t), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_OK);
    u.fixed = NULL;
    end_units();
}
END_TEST

/* A target copied before its unit was destroyed names a unit that is gone:
 * refused, not followed. */
START_TEST(a_target_of_a_destroyed_unit_is_refused)
{
    make_units();
    xlat_target t = TEST_TARGET(fixed, u.fixed);
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_OK);
    u.fixed = NULL;
    ck_assert_int_eq(xlat_tlb_set_next(u.l2, &t), XLAT_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(u.ctx), "was destroyed"));
    ck_assert_int_eq(xlat_link_set_next(u.link, &t), XLAT_ERR_NOT_FOUND);
    end_units();
}
END_TEST

/* L1 -> L2 -> responder, the L2 answering the L1's misses. */
static void wire_l1_l2(void)
{
    xlat_target to_fixed = TEST_TARGET(fixed, u.fixed), to_l2 = TEST_TARGET(tlb, u.l2);
    ck_assert_int_eq(xlat_tlb_set_next(u.l2, &to_fixed), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(u.l1, &to_l2), XLAT_OK);
}

static void send_l1(uint64_t id)
{
    xlat_req req = {.id = id, .vaddr = id << 12, .pasid = 1};
    ck_assert_int_eq(xlat_tlb_translate(u.l1, &req, count_answer, NULL), XLAT_OK);
}

START_TEST(a_held_unit_is_busy_and_keeps_working)
{
    make_units();
    wire_l1_l2();
    size_t live = u.ca.live_bytes;
    ck_assert_int_eq(xlat_tlb_destroy(u.l2), XLAT_ERR_BUSY);
    ck_assert_str_eq(xlat_ctx_errmsg(u.ctx),
                     "tlb l2: still the next level of 1 unit(s); set their next level"
                     " elsewhere (or NULL) or destroy them first");
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_ERR_BUSY);
    ck_assert_uint_eq(u.ca.live_bytes, live); /* nothing was freed */
    answers = 0;
    send_l1(1);
    xlat_advance(u.ctx, 200);
    ck_assert_int_eq(answers, 1); /* L1, L2 and responder all still there */
    end_units();
}
END_TEST

/* Destroying upstream first releases the holds; so does rewiring. */
START_TEST(rewiring_or_destroying_the_holder_releases)
{
    make_units();
    wire_l1_l2();
    xlat_target to_fixed = TEST_TARGET(fixed, u.fixed);
    ck_assert_int_eq(xlat_tlb_set_next(u.l1, &to_fixed), XLAT_OK); /* L1 -> responder */
    ck_assert_int_eq(xlat_tlb_set_next(u.l1, &to_fixed), XLAT_OK); /* again: one hold */
    ck_assert_int_eq(xlat_tlb_destroy(u.l2), XLAT_OK);
    u.l2 = NULL;
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_ERR_BUSY); /* the L1 holds it */
    ck_assert_int_eq(xlat_tlb_set_next(u.l1, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_OK);
    u.fixed = NULL;
    end_units();
}
END_TEST

START_TEST(upstream_first_destroys_everything)
{
    make_units();
    wire_l1_l2();
    xlat_target to_iommu = TEST_TARGET(iommu, u.iommu), to_link = TEST_TARGET(link, u.link);
    ck_assert_int_eq(xlat_link_set_next(u.link, &to_iommu), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_set_iommu(u.gmmu, &to_link), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_destroy(u.iommu), XLAT_ERR_BUSY);
    ck_assert_int_eq(xlat_link_destroy(u.link), XLAT_ERR_BUSY);
    ck_assert_int_eq(xlat_walker_destroy(u.walker), XLAT_ERR_BUSY); /* the GMMU's */
    ck_assert_int_eq(xlat_pagetable_destroy(u.pt), XLAT_ERR_BUSY); /* the walkers' */
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(u.ctx), "pagetable"));
    ck_assert_int_eq(xlat_physmem_destroy(u.mem), XLAT_ERR_BUSY);  /* the table's */
    ck_assert_int_eq(xlat_tlb_destroy(u.l1), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(u.l2), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_destroy(u.fixed), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_destroy(u.gmmu), XLAT_OK);
    ck_assert_int_eq(xlat_link_destroy(u.link), XLAT_OK);
    ck_assert_int_eq(xlat_walker_destroy(u.walker), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_destroy(u.iommu), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_destroy(u.pt), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_destroy(u.mem), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(NULL), XLAT_OK);
    end_units();
}
END_TEST

/* A holder made before the unit it holds: the context's destroy still
 * takes both, and leaks nothing (end_units() counts). */
START_TEST(ctx_destroy_takes_held_units_in_any_order)
{
    make_units();
    wire_l1_l2(); /* l1 (older) holds l2 (newer) */
    xlat_target to_l1 = TEST_TARGET(tlb, u.l1);
    ck_assert_int_eq(xlat_gmmu_set_iommu(u.gmmu, &to_l1), XLAT_OK); /* newer holds older */
    answers = 0;
    send_l1(1); /* in flight when everything goes */
    end_units();
}
END_TEST

/* An L2 attached to an IOMMU may go first: the IOMMU detaches it, keeps
 * answering, and a probe in flight to it arrives as a miss. */
START_TEST(an_attached_l2_destroyed_first_is_detached)
{
    least_fixture f;
    lf_build(&f, 4, 4, XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE);
    ck_assert_str_eq(lf_access(&f, 0, 0x1), "WALK");
    xlat_l2_port port = XLAT_L2_PORT_INIT;
    ck_assert_int_eq(xlat_iommu_l2_port(f.iommu, 1, &port), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(f.l2[1]), XLAT_OK);
    f.l2[1] = NULL;
    ck_assert_int_eq(xlat_iommu_l2_port(f.iommu, 1, &port), XLAT_ERR_INVAL);
    /* GPU 0's own page again, and a page GPU 1 will never hold */
    ck_assert_str_eq(lf_access(&f, 0, 0x1), "L2");
    ck_assert_str_eq(lf_access(&f, 2, 0x2), "WALK");
    lf_destroy(&f); /* the IOMMU goes after the other L2s, with nothing left of GPU 1 */
}
END_TEST

Suite *target_suite(void)
{
    Suite *s = suite_create("target");
    TCase *tc = tcase_create("sized");
    tcase_add_test(tc, first_release_size_is_pinned);
    const int n = (int)(sizeof(kinds) / sizeof(kinds[0]));
    tcase_add_loop_test(tc, get_target_fills_a_first_release_struct, 0, n);
    tcase_add_loop_test(tc, get_target_zero_fills_a_newer_struct, 0, n);
    tcase_add_loop_test(tc, get_target_refuses_what_is_not_a_size, 0, n);
    tcase_add_test(tc, units_check_the_targets_they_are_given);
    tcase_add_test(tc, a_target_of_a_destroyed_unit_is_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("teardown");
    tcase_add_test(tc, a_held_unit_is_busy_and_keeps_working);
    tcase_add_test(tc, rewiring_or_destroying_the_holder_releases);
    tcase_add_test(tc, upstream_first_destroys_everything);
    tcase_add_test(tc, ctx_destroy_takes_held_units_in_any_order);
    tcase_add_test(tc, an_attached_l2_destroyed_first_is_detached);
    suite_add_tcase(s, tc);
    return s;
}
