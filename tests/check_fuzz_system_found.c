/* What tests/fuzz/fuzz_system.c found, pinned as exact tests (its crash
 * inputs replay under tests/fuzz/corpus/system/ too).
 *
 * The IOMMU answered an ATS request from inside xlat_iommu_fault_done()
 * when the host refused a page request outside tick/advance: the walker
 * answers inside xlat_walker_fault_resume(), as its header allows, and the
 * IOMMU passed that answer on at once, inside the host's call. Every
 * answer of the IOMMU now comes from inside tick/advance, in the cycle
 * the host answered the page request. */
#include "testutil.h"

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_iommu *iommu;
    xlat_resp done[4];
    int n;
    xlat_iommu_fault faults[4];
    size_t nfaults;
} h;

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
}

/* An IOMMU of 4-read walks of 10 cycles that hands page requests to the
 * host one at a time, its TLB 20 cycles; page 0 is mapped, page 1 not. */
static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(1, NULL);
    test_table(h.ctx, &h.mem, &h.pt);
    ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 0, 0x500, 12, XLAT_PERM_R), XLAT_OK);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = h.pt;
    wc.mem_latency = 10;
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.gpus = 1;
    c.walk = &wc;
    c.tlb_latency = 20;
    c.fault_fn = on_faults;
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &c, &h.iommu), XLAT_OK);
}

static void teardown(void)
{
    ck_assert_int_eq(xlat_iommu_destroy(h.iommu), XLAT_OK);
    xlat_pagetable_destroy(h.pt);
    xlat_physmem_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
}

/* Request 1 for page 1 faults; the host holds the page request until
 * cycle 500. */
static uint64_t held_fault(void)
{
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_advance(h.ctx, 500), XLAT_OK);
    ck_assert_uint_eq(h.nfaults, 1);
    ck_assert_int_eq(h.n, 0);
    return h.faults[0].token;
}

START_TEST(refused_page_request_answers_inside_advance)
{
    uint64_t token = held_fault();
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, token, XLAT_ERR_FAULT), XLAT_OK);
    ck_assert_int_eq(h.n, 0); /* not inside the host's call */
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, token, XLAT_ERR_FAULT), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_advance(h.ctx, 0), XLAT_OK);
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].id, 1);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(h.done[0].completed, 500); /* the cycle the host answered it */
}
END_TEST

/* Resumed after mapping, the walk reads the entry again (10 cycles). */
START_TEST(resumed_page_request_walks_on)
{
    uint64_t token = held_fault();
    ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 0x1000, 0x501, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, token, XLAT_OK), XLAT_OK);
    ck_assert_int_eq(h.n, 0);
    ck_assert_int_eq(xlat_advance(h.ctx, 100), XLAT_OK);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(h.done[0].status, XLAT_OK);
    ck_assert_uint_eq(h.done[0].pfn, 0x501);
    ck_assert_uint_eq(h.done[0].completed, 510);
}
END_TEST

/* The IOMMU keeps its room: a refused page request frees its buffer slot
 * once answered, so a one-slot IOMMU takes the next request. */
START_TEST(refused_page_request_frees_its_slot)
{
    xlat_iommu_destroy(h.iommu);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = h.pt;
    wc.mem_latency = 10;
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.gpus = 1;
    c.walk = &wc;
    c.tlb_latency = 20;
    c.buffer_entries = 1;
    c.fault_fn = on_faults;
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &c, &h.iommu), XLAT_OK);
    uint64_t token = held_fault();
    xlat_req req = {.id = 2, .vaddr = 0, .pasid = 1};
    ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done, NULL), XLAT_ERR_AGAIN);
    ck_assert_int_eq(xlat_iommu_fault_done(h.iommu, token, XLAT_ERR_FAULT), XLAT_OK);
    ck_assert_int_eq(xlat_advance(h.ctx, 1), XLAT_OK);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(xlat_iommu_translate(h.iommu, &req, on_done, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_advance(h.ctx, 2000), XLAT_OK);
    ck_assert_int_eq(h.n, 2);
    ck_assert_int_eq(h.done[1].status, XLAT_OK);
    ck_assert_uint_eq(h.done[1].pfn, 0x500);
}
END_TEST

Suite *fuzz_system_found_suite(void)
{
    Suite *s = suite_create("fuzz_system_found");
    TCase *tc = test_case(s, "iommu_fault_done");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, refused_page_request_answers_inside_advance);
    tcase_add_test(tc, resumed_page_request_walks_on);
    tcase_add_test(tc, refused_page_request_frees_its_slot);
    return s;
}
