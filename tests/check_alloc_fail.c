/*
 * Allocation-failure loops over every create of the library: fail the k-th
 * allocation for k = 1, 2, ... until the create succeeds. Each failing
 * create returns XLAT_ERR_NOMEM, says why in xlat_ctx_errmsg(), writes
 * nothing to *out and leaks nothing; the successful one is destroyed and
 * must leave the allocator where it found it.
 */
#include "testutil.h"

/* What one create needs: the objects it builds on are made before the loop
 * (with the allocator working) and torn down after it. */
typedef struct deps {
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *walker;
} deps;

typedef int (*make_fn)(xlat_ctx *ctx, deps *d, void **out);
typedef int (*unmake_fn)(void *obj);

static void fail_loop(make_fn make, unmake_fn unmake, const char *what)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(7, &ca);
    deps d = {0};
    test_table(ctx, &d.mem, &d.pt);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = d.pt;
    ck_assert_int_eq(xlat_walker_create(ctx, &wc, &d.walker), XLAT_OK);
    /* The context's event pool keeps what units reserved in it (it never
     * shrinks; xlat_ctx_destroy frees it): one create beforehand grows it,
     * so that the loop counts only what the create itself holds. */
    void *warm = NULL;
    ck_assert_int_eq(make(ctx, &d, &warm), XLAT_OK);
    ck_assert_int_eq(unmake(warm), XLAT_OK);
    int rc = XLAT_ERR_NOMEM;
    long k;
    for (k = 1; k < 100000 && rc == XLAT_ERR_NOMEM; k++) {
        size_t live = ca.live_bytes, allocs = ca.allocs, frees = ca.frees;
        void *obj = (void *)&ca; /* must stay untouched on failure */
        ca.fail_after = k - 1; /* k - 1 allocations succeed, the k-th fails */
        rc = make(ctx, &d, &obj);
        ca.fail_after = -1;
        if (rc == XLAT_OK) {
            ck_assert_int_eq(unmake(obj), XLAT_OK);
        } else {
            ck_assert_msg(rc == XLAT_ERR_NOMEM, "%s, k=%ld: rc %d (%s)", what, k, rc,
                          xlat_ctx_errmsg(ctx));
            ck_assert_msg(obj == (void *)&ca, "%s, k=%ld: *out written on failure", what, k);
            ck_assert_msg(xlat_ctx_errmsg(ctx)[0] != '\0', "%s, k=%ld: no message", what, k);
        }
        ck_assert_msg(ca.live_bytes == live && ca.allocs - allocs == ca.frees - frees,
                      "%s, k=%ld: leaked %zu bytes", what, k, ca.live_bytes - live);
    }
    ck_assert_msg(rc == XLAT_OK, "%s never succeeded", what);
    ck_assert_msg(k > 2, "%s allocated nothing", what);
    xlat_walker_destroy(d.walker);
    xlat_pagetable_destroy(d.pt);
    xlat_physmem_destroy(d.mem);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}

static int make_tlb(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    return xlat_tlb_create(ctx, &c, (xlat_tlb **)out);
}

static int make_cuckoo(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_cuckoo_config c;
    xlat_cuckoo_config_init(&c);
    return xlat_cuckoo_create(ctx, &c, (xlat_cuckoo **)out);
}

static int make_fixed(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_fixed_config c;
    xlat_fixed_config_init(&c);
    c.max_outstanding = 8;
    return xlat_fixed_create(ctx, &c, (xlat_fixed **)out);
}

static int make_link(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_link_config c;
    xlat_link_config_init(&c);
    return xlat_link_create(ctx, &c, (xlat_link **)out);
}

static int make_physmem(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_physmem_config c;
    xlat_physmem_config_init(&c);
    return xlat_physmem_create(ctx, &c, (xlat_physmem **)out);
}

static int make_pagetable(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_pagetable_config c;
    xlat_pagetable_config_init(&c);
    c.mem = d->mem;
    return xlat_pagetable_create(ctx, &c, (xlat_pagetable **)out);
}

static int make_pwc(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_pwc_config c;
    xlat_pwc_config_init(&c);
    return xlat_pwc_create(ctx, &c, (xlat_pwc **)out);
}

static int make_walker(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = d->pt;
    return xlat_walker_create(ctx, &c, (xlat_walker **)out);
}

static void iommu_config(xlat_iommu_config *c, xlat_walker_config *w, deps *d, xlat_incl incl)
{
    xlat_iommu_walker_config_init(w);
    w->pt = d->pt;
    xlat_iommu_config_init(c);
    c->walk = w;
    c->tlb_entries = 64;
    c->tlb_ways = 8;
    c->inclusion = incl;
}

static int make_iommu(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_iommu_config c;
    xlat_walker_config w;
    iommu_config(&c, &w, d, XLAT_INCL_MOSTLY);
    return xlat_iommu_create(ctx, &c, (xlat_iommu **)out);
}

static int make_iommu_least(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_iommu_config c;
    xlat_walker_config w;
    iommu_config(&c, &w, d, XLAT_INCL_LEAST);
    return xlat_iommu_create(ctx, &c, (xlat_iommu **)out);
}

static int make_gmmu(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    c.walker = d->walker;
    return xlat_gmmu_create(ctx, &c, (xlat_gmmu **)out);
}

static int make_system(xlat_ctx *ctx, deps *d, void **out)
{
    xlat_iommu_config ic;
    xlat_walker_config w;
    iommu_config(&ic, &w, d, XLAT_INCL_LEAST);
    xlat_system_config c;
    xlat_system_config_init(&c);
    c.gpus = 2;
    c.cus = 2;
    c.iommu = &ic;
    c.probe_ring = true;
    return xlat_system_create(ctx, &c, (xlat_system **)out);
}

static int make_fbarre(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    return xlat_fbarre_create(ctx, &c, (xlat_fbarre **)out);
}

static int make_fbarre_mesh(xlat_ctx *ctx, deps *d, void **out)
{
    (void)d;
    xlat_fbarre_mesh_config c;
    xlat_fbarre_mesh_config_init(&c);
    c.chiplets = 3;
    return xlat_fbarre_mesh_create(ctx, &c, (xlat_fbarre_mesh **)out);
}

#define LOOP_TEST(name, make, unmake)                                                         \
    START_TEST(name) { fail_loop(make, (unmake_fn)(unmake), #name); }                         \
    END_TEST

LOOP_TEST(fail_tlb, make_tlb, xlat_tlb_destroy)
LOOP_TEST(fail_cuckoo, make_cuckoo, xlat_cuckoo_destroy)
LOOP_TEST(fail_fixed, make_fixed, xlat_fixed_destroy)
LOOP_TEST(fail_link, make_link, xlat_link_destroy)
LOOP_TEST(fail_physmem, make_physmem, xlat_physmem_destroy)
LOOP_TEST(fail_pagetable, make_pagetable, xlat_pagetable_destroy)
LOOP_TEST(fail_pwc, make_pwc, xlat_pwc_destroy)
LOOP_TEST(fail_walker, make_walker, xlat_walker_destroy)
LOOP_TEST(fail_iommu, make_iommu, xlat_iommu_destroy)
LOOP_TEST(fail_iommu_least, make_iommu_least, xlat_iommu_destroy)
LOOP_TEST(fail_gmmu, make_gmmu, xlat_gmmu_destroy)
LOOP_TEST(fail_system, make_system, xlat_system_destroy)
LOOP_TEST(fail_fbarre, make_fbarre, xlat_fbarre_destroy)
LOOP_TEST(fail_fbarre_mesh, make_fbarre_mesh, xlat_fbarre_mesh_destroy)

/* The context itself: its own allocations come from the allocator it is
 * given, so the loop is over xlat_ctx_create. */
START_TEST(fail_ctx)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx_config cfg;
    xlat_ctx_config_init(&cfg);
    cfg.allocator = &ca.hooks;
    int rc = XLAT_ERR_NOMEM;
    long k;
    for (k = 1; rc == XLAT_ERR_NOMEM; k++) {
        xlat_ctx *ctx = (xlat_ctx *)&ca;
        ca.fail_after = k - 1;
        rc = xlat_ctx_create(&cfg, &ctx);
        ca.fail_after = -1;
        if (rc == XLAT_OK)
            xlat_ctx_destroy(ctx);
        else
            ck_assert_ptr_eq(ctx, (xlat_ctx *)&ca);
        ck_assert_uint_eq(ca.live_bytes, 0);
    }
    ck_assert_int_eq(rc, XLAT_OK);
}
END_TEST

Suite *alloc_fail_suite(void)
{
    Suite *s = suite_create("alloc_fail");
    TCase *tc = test_case(s, "every create");
    tcase_add_test(tc, fail_ctx);
    tcase_add_test(tc, fail_tlb);
    tcase_add_test(tc, fail_cuckoo);
    tcase_add_test(tc, fail_fixed);
    tcase_add_test(tc, fail_link);
    tcase_add_test(tc, fail_physmem);
    tcase_add_test(tc, fail_pagetable);
    tcase_add_test(tc, fail_pwc);
    tcase_add_test(tc, fail_walker);
    tcase_add_test(tc, fail_iommu);
    tcase_add_test(tc, fail_iommu_least);
    tcase_add_test(tc, fail_gmmu);
    tcase_add_test(tc, fail_system);
    tcase_add_test(tc, fail_fbarre);
    tcase_add_test(tc, fail_fbarre_mesh);
    return s;
}
