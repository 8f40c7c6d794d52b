#include "walk_fixture.h"

void wf_memory(walk_fixture *f, const uint64_t *free_pfns, int n)
{
    memset(f, 0, sizeof(*f));
    f->ctx = test_ctx(1, NULL);
    xlat_region_config region = {.base_pfn = 0x100, .frames = 0x100000 - 0x100};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 1;
    pc.region = &region;
    ck_assert_int_eq(xlat_physmem_create(f->ctx, &pc, &f->mem), XLAT_OK);
    /* Take every frame below 0x1000 but the listed ones. */
    for (uint64_t pfn = 0x100; pfn < 0x1000; pfn++) {
        int listed = 0;
        for (int i = 0; i < n; i++)
            listed |= free_pfns[i] == pfn;
        if (!listed)
            ck_assert_int_eq(xlat_physmem_take(f->mem, pfn, 1), XLAT_OK);
    }
}

void wf_table(walk_fixture *f)
{
    xlat_pagetable_config c;
    xlat_pagetable_config_init(&c);
    c.mem = f->mem;
    ck_assert_int_eq(xlat_pagetable_create(f->ctx, &c, &f->pt), XLAT_OK);
}

void wf_pwc(walk_fixture *f, uint32_t entries, uint32_t latency)
{
    xlat_pwc_config c;
    xlat_pwc_config_init(&c);
    for (uint32_t l = 2; l <= 4; l++)
        c.entries[l] = entries;
    c.latency = latency;
    ck_assert_int_eq(xlat_pwc_create(f->ctx, &c, &f->pwc), XLAT_OK);
}

static void on_event(void *user, const xlat_walk_event *ev)
{
    walk_fixture *f = user;
    ck_assert_int_lt(f->nev, WF_MAX * 4);
    f->ev[f->nev++] = *ev;
}

void wf_pool(walk_fixture *f, xlat_walker_config *cfg)
{
    cfg->pt = f->pt;
    cfg->pwc = f->pwc;
    cfg->trace_fn = on_event;
    cfg->trace_user = f;
    ck_assert_msg(xlat_walker_create(f->ctx, cfg, &f->pool) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(f->ctx));
}

static void on_done(void *user, const xlat_resp *r)
{
    walk_fixture *f = user;
    ck_assert_int_lt(f->ndone, WF_MAX);
    f->done[f->ndone++] = *r;
}

int wf_send(walk_fixture *f, uint64_t id, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .access = XLAT_ACCESS_READ};
    return wf_send_req(f, &req);
}

int wf_send_req(walk_fixture *f, const xlat_req *req)
{
    return xlat_walker_translate(f->pool, req, on_done, f);
}

void wf_run_until(walk_fixture *f, uint64_t cycle)
{
    ck_assert_uint_ge(cycle, xlat_now(f->ctx));
    ck_assert_int_eq(xlat_advance(f->ctx, cycle - xlat_now(f->ctx)), XLAT_OK);
}

void wf_destroy(walk_fixture *f)
{
    xlat_walker_destroy(f->pool);
    xlat_pwc_destroy(f->pwc);
    xlat_pagetable_destroy(f->pt);
    xlat_physmem_destroy(f->mem);
    xlat_ctx_destroy(f->ctx);
}

const xlat_resp *wf_done(const walk_fixture *f, uint64_t id)
{
    for (int i = 0; i < f->ndone; i++)
        if (f->done[i].id == id)
            return &f->done[i];
    return NULL;
}
