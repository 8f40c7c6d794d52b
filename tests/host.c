#include "host.h"

enum { ANSWER_XLATE, ANSWER_READ, ANSWER_FAULT, ANSWER_PRI };

void host_init(host *h, xlat_ctx *ctx, int later)
{
    memset(h, 0, sizeof(*h));
    h->ctx = ctx;
    h->later = later;
    h->pfn_offset = 0x100;
    h->fault_pfn = 0x9000;
}

void host_done(void *user, const xlat_resp *resp)
{
    host *h = user;
    if (h->in_call)
        h->breaches++;
    if (xlat_advance(h->ctx, 1) != XLAT_ERR_STATE)
        h->breaches++;
    ck_assert_uint_lt(resp->id, HOST_MAX);
    h->answers[resp->id]++;
    h->status[resp->id] = resp->status;
    h->paddr[resp->id] = resp->paddr;
    h->completed[resp->id] = resp->completed;
}

static void answer(host_slot *s)
{
    host *h = s->h;
    h->callouts++;
    switch (s->kind) {
    case ANSWER_XLATE:
        s->resp.completed = xlat_now(h->ctx);
        s->done(s->user, &s->resp);
        break;
    case ANSWER_READ:
        ck_assert_int_eq(xlat_walker_mem_done(h->walker, s->token), XLAT_OK);
        break;
    case ANSWER_FAULT:
        ck_assert_int_eq(xlat_walker_fault_resume(h->walker, s->token, XLAT_OK), XLAT_OK);
        break;
    case ANSWER_PRI:
        ck_assert_int_eq(xlat_iommu_fault_done(h->iommu, s->token, XLAT_OK), XLAT_OK);
        break;
    }
}

static void answer_event(void *arg) { answer(arg); }

/* Answers now, or queues the answer for the next cycle. */
static void call_out(host *h, host_slot *s)
{
    if (!h->later) {
        answer(s);
        return;
    }
    host_slot *q = &h->slot[h->slots++ % HOST_MAX];
    *q = *s;
    ck_assert_int_eq(xlat_schedule(h->ctx, 1, answer_event, q), XLAT_OK);
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    host *h = unit;
    host_slot s = {.h = h, .kind = ANSWER_XLATE, .done = done, .user = user};
    s.resp.id = req->id;
    s.resp.vaddr = req->vaddr;
    s.resp.pasid = req->pasid;
    s.resp.status = XLAT_OK;
    s.resp.page_shift = 12;
    s.resp.pfn = (req->vaddr >> 12) + h->pfn_offset;
    s.resp.paddr = (s.resp.pfn << 12) | (req->vaddr & 0xfff);
    s.resp.perm = XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U;
    s.resp.issued = xlat_now(h->ctx);
    s.resp.resolver = 0; /* the host is no unit of the context */
    call_out(h, &s);
    return XLAT_OK;
}

xlat_target host_target(host *h)
{
    xlat_target t = {sizeof(t), target_translate, h, NULL, 0};
    return t;
}

static int mem_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    host *h = user;
    (void)paddr;
    (void)bytes;
    host_slot s = {.h = h, .kind = ANSWER_READ, .token = token};
    call_out(h, &s);
    return XLAT_OK;
}

static void walk_fault(void *user, xlat_walker *pool, const xlat_walk_fault *f)
{
    host *h = user;
    h->walker = pool;
    ck_assert_int_eq(xlat_pagetable_map(h->pt, f->pasid, f->vaddr, h->fault_pfn++, 12,
                                        XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_U),
                     XLAT_OK);
    host_slot s = {.h = h, .kind = ANSWER_FAULT, .token = f->token};
    call_out(h, &s);
}

void host_memory_config(host *h, xlat_walker_config *cfg)
{
    cfg->mem_read = mem_read;
    cfg->mem_user = h;
}

void host_walker_config(host *h, xlat_walker_config *cfg)
{
    host_memory_config(h, cfg);
    cfg->fault_fn = walk_fault;
    cfg->fault_user = h;
    h->pt = cfg->pt;
}

static void page_requests(void *user, xlat_iommu *iommu, const xlat_iommu_fault *faults, size_t n)
{
    host *h = user;
    h->iommu = iommu;
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(xlat_pagetable_map(h->pt, faults[i].pasid, faults[i].vaddr,
                                            h->fault_pfn++, 12,
                                            XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_U),
                         XLAT_OK);
        host_slot s = {.h = h, .kind = ANSWER_PRI, .token = faults[i].token};
        call_out(h, &s);
    }
}

void host_iommu_config(host *h, xlat_iommu_config *cfg)
{
    cfg->fault_fn = page_requests;
    cfg->fault_user = h;
    h->pt = cfg->walk->pt;
}

int host_send(host *h, const xlat_target *t, uint64_t id, uint64_t vaddr, uint32_t pasid)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = pasid, .access = XLAT_ACCESS_READ};
    h->in_call = 1;
    int rc = xlat_target_translate(t, &req, host_done, h);
    h->in_call = 0;
    return rc;
}

size_t host_answered(const host *h)
{
    size_t n = 0;
    for (size_t i = 0; i < HOST_MAX; i++)
        n += (size_t)h->answers[i];
    return n;
}

void host_run(host *h, size_t n, uint64_t limit)
{
    for (uint64_t c = 0; c < limit && host_answered(h) < n; c++)
        ck_assert_int_eq(xlat_tick(h->ctx), XLAT_OK);
}
