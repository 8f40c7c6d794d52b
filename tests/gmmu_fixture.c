/* The GMMU tests' world (see gmmu_fixture.h). */
#include "gmmu_fixture.h"

gfix gf;

int gf_iommu_resolve(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    if (vaddr >= NOWHERE_VA)
        return XLAT_ERR_FAULT;
    out->pfn = (vaddr >> 12) + BASE_PFN;
    return XLAT_OK;
}

/* A GPU's local page table walked by `walkers` walkers (mem_latency per
 * read, so a full walk is 4 x mem_latency) and an IOMMU path of fixed
 * latency that knows every page. */
void gf_world(uint32_t mem_latency, uint32_t walkers, uint32_t queue, uint32_t iommu_latency,
              uint32_t iommu_max)
{
    memset(&gf, 0, sizeof(gf));
    counting_alloc_init(&gf.ca);
    gf.ctx = test_ctx(3, &gf.ca);
    test_table(gf.ctx, &gf.mem, &gf.pt);
    for (uint64_t p = 0; p < LOCAL_PAGES; p++)
        ck_assert_int_eq(xlat_pagetable_map(gf.pt, PASID, LOCAL_VA(p), p + BASE_PFN, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.name = "gpu0.walker";
    wc.pt = gf.pt;
    wc.walkers = walkers;
    wc.queue_entries = queue;
    wc.mem_latency = mem_latency;
    ck_assert_int_eq(xlat_walker_create(gf.ctx, &wc, &gf.walker), XLAT_OK);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "iommu";
    fc.latency = iommu_latency;
    fc.max_outstanding = iommu_max;
    fc.resolve = gf_iommu_resolve;
    ck_assert_int_eq(xlat_fixed_create(gf.ctx, &fc, &gf.iommu), XLAT_OK);
}

/* The D.2 world: G = 100 (4 reads of 25), 2P + I = 1100. */
void gf_d2_world(void) { gf_world(25, 64, 256, 1100, 0); }

static void gf_on_epoch(void *user, const xlat_gmmu_epoch *e)
{
    (void)user;
    ck_assert_int_lt(gf.nlog, 16);
    gf.log[gf.nlog++] = *e;
}

void gf_cfg(xlat_gmmu_config *c, xlat_gmmu_mode mode, xlat_gmmu_routing first, uint64_t epoch)
{
    xlat_gmmu_config_init(c);
    c->name = "gpu0.gmmu";
    c->walker = gf.walker;
    c->mode = mode;
    c->initial_route = first;
    c->epoch_cycles = epoch;
    c->local_base = BASE_PFN << 12;
    c->local_size = (uint64_t)LOCAL_PAGES << 12;
    c->epoch_fn = gf_on_epoch;
}

void gf_with(const xlat_gmmu_config *c)
{
    ck_assert_msg(xlat_gmmu_create(gf.ctx, c, &gf.g) == XLAT_OK, "%s", xlat_ctx_errmsg(gf.ctx));
    xlat_target t = TEST_TARGET(fixed, gf.iommu);
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, &t), XLAT_OK);
}

void gf_gmmu(xlat_gmmu_mode mode, xlat_gmmu_routing first, uint64_t epoch)
{
    xlat_gmmu_config c;
    gf_cfg(&c, mode, first, epoch);
    gf_with(&c);
}

void gf_teardown(void)
{
    xlat_gmmu_destroy(gf.g);
    xlat_walker_destroy(gf.walker);
    xlat_fixed_destroy(gf.iommu);
    xlat_pagetable_destroy(gf.pt);
    xlat_physmem_destroy(gf.mem);
    xlat_ctx_destroy(gf.ctx);
    if (gf.ctx)
        ck_assert_uint_eq(gf.ca.live_bytes, 0);
    memset(&gf, 0, sizeof(gf));
}

void gf_on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_msg(!gf.in_translate, "done called from inside xlat_gmmu_translate");
    ck_assert_int_lt(gf.ndone, MAXDONE);
    gf.done[gf.ndone++] = *r;
}

int gf_send_pasid(uint64_t id, uint64_t va, uint32_t pasid)
{
    xlat_req req = {.id = id, .vaddr = va, .pasid = pasid, .access = XLAT_ACCESS_READ};
    gf.in_translate = 1;
    int rc = xlat_gmmu_translate(gf.g, &req, gf_on_done, NULL);
    gf.in_translate = 0;
    return rc;
}

void gf_send(uint64_t id, uint64_t va) { ck_assert_int_eq(gf_send_pasid(id, va, PASID), XLAT_OK); }

void gf_run_until(uint64_t cycle)
{
    ck_assert_uint_ge(cycle, xlat_now(gf.ctx));
    ck_assert_int_eq(xlat_advance(gf.ctx, cycle - xlat_now(gf.ctx)), XLAT_OK);
}

void gf_drain(void)
{
    while (xlat_next_event(gf.ctx) != XLAT_NEVER)
        gf_run_until(xlat_next_event(gf.ctx));
}

const xlat_resp *gf_answer(uint64_t id)
{
    const xlat_resp *found = NULL;
    for (int i = 0; i < gf.ndone; i++) {
        if (gf.done[i].id != id)
            continue;
        ck_assert_msg(!found, "request %llu answered twice", (unsigned long long)id);
        found = &gf.done[i];
    }
    ck_assert_msg(found != NULL, "request %llu not answered", (unsigned long long)id);
    return found;
}

const char *gf_resolver(const xlat_resp *r)
{
    return r->resolver ? test_resolver(gf.ctx, r) : "host.iommu";
}

void gf_expect(uint64_t id, uint64_t completed, int status, const char *resolver)
{
    const xlat_resp *r = gf_answer(id);
    ck_assert_uint_eq(r->completed, completed);
    ck_assert_int_eq(r->status, status);
    ck_assert_str_eq(gf_resolver(r), resolver);
    if (status == XLAT_OK)
        ck_assert_uint_eq(r->pfn, (r->vaddr >> 12) + BASE_PFN);
}

xlat_gmmu_stats gf_stats(void)
{
    xlat_gmmu_stats st;
    xlat_gmmu_stats_get(gf.g, &st, sizeof(st));
    return st;
}

/* The note's epoch sequence, driven through the timed unit: epochs of 2000
 * cycles with (5,45), (3,30), (40,40), (0,0), (95,2). */
void gf_send_mix(uint64_t *id, int local, int remote)
{
    for (int i = 0; i < local; i++)
        gf_send((*id)++, LOCAL_VA(i % LOCAL_PAGES));
    for (int i = 0; i < remote; i++)
        gf_send((*id)++, REMOTE_VA(i));
}

/* §3's ideal scheme: each request to the right MMU, nothing wasted. */
bool gf_oracle_local(void *user, uint32_t gpu, const xlat_req *req)
{
    ck_assert_ptr_eq(user, &gf);
    ck_assert_uint_eq(gpu, 0);
    return req->pasid == PASID && req->vaddr < LOCAL_VA(LOCAL_PAGES);
}

TCase *gf_case(Suite *s, const char *name)
{
    TCase *tc = test_case(s, name);
    tcase_add_checked_fixture(tc, NULL, gf_teardown);
    return tc;
}
