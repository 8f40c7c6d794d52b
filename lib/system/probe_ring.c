/*
 * The L2 TLB probing baseline of least-TLB §5.5 (Valkyrie's probing extended
 * to L2 TLBs): the GPUs' L2 TLBs form a ring, and an L2 miss first asks the
 * two neighbours; only when both miss does the request go to the IOMMU.
 */
#include "system_internal.h"

struct ring_req {
    void *free_link;
    struct ring_stop *stop;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t arrival;
};

static void probed(void *arg);

/* Sends a request both neighbours missed on to the GMMU or the link,
 * waiting for room if they refuse. */
static void forward(void *arg)
{
    struct ring_req *r = arg;
    struct ring_stop *stop = r->stop;
    int rc = stop->below.translate(stop->below.unit, &r->req, r->done, r->user);
    if (rc == XLAT_ERR_AGAIN)
        rc = xlat__target_retry(stop->sys->ctx, &stop->below, forward, r);
    else if (rc == XLAT_OK) {
        xlat__pool_put(&stop->reqs, r);
        return;
    }
    if (rc != XLAT_OK) { /* never lose an accepted request */
        xlat_resp fail = {.id = r->req.id, .vaddr = r->req.vaddr, .pasid = r->req.pasid,
                          .status = rc, .issued = r->arrival, .completed = stop->sys->ctx->now};
        xlat_done_fn done = r->done;
        void *user = r->user;
        xlat__pool_put(&stop->reqs, r);
        done(user, &fail);
    }
}

static int owned_event(void *stop, xlat_event_fn fn, void *user)
{
    return (fn == probed || fn == forward) && ((struct ring_req *)user)->stop == stop;
}

static int ring_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct ring_stop *stop = unit;
    struct xlat_system *s = stop->sys;
    struct ring_req *r = xlat__pool_get(&stop->reqs);
    if (!r || xlat_schedule(s->ctx, s->cfg.probe_latency, probed, r) != XLAT_OK) {
        if (r)
            xlat__pool_put(&stop->reqs, r);
        return xlat__fail(s->ctx, XLAT_ERR_NOMEM, "probing ring: out of memory");
    }
    r->stop = stop;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->arrival = s->ctx->now;
    s->st.probes++;
    return XLAT_OK;
}

/* The neighbour (ring order: left, then right) holding the translation. */
static xlat_tlb *holder(const struct xlat_system *s, uint32_t gpu, const xlat_req *req,
                        xlat_tlb_entry *e)
{
    uint32_t g = s->cfg.gpus;
    uint32_t n[2] = {(gpu + g - 1) % g, (gpu + 1) % g};
    for (int i = 0; i < 2; i++)
        if (n[i] != gpu && xlat_tlb_probe(s->l2[n[i]], req->pasid, req->vaddr, e) == XLAT_OK)
            return s->l2[n[i]];
    return NULL;
}

static void probed(void *arg)
{
    struct ring_req *r = arg;
    struct ring_stop *stop = r->stop;
    struct xlat_system *s = stop->sys;
    xlat_tlb_entry e;
    xlat_tlb *from = holder(s, stop->gpu, &r->req, &e);
    if (!from) { /* both missed: on towards the IOMMU */
        forward(r);
        return;
    }
    s->st.probe_hits++;
    xlat_resp resp = {.id = r->req.id, .vaddr = r->req.vaddr, .pasid = r->req.pasid,
                      .issued = r->arrival, .completed = s->ctx->now,
                      .resolver = xlat_tlb_name(from)};
    xlat__resp_translate(&resp, &e, r->req.vaddr, r->req.access);
    xlat_done_fn done = r->done;
    void *user = r->user;
    xlat__pool_put(&stop->reqs, r);
    done(user, &resp);
}

int xlat__ring_create(struct xlat_system *s, uint32_t gpu, const xlat_target *below,
                      xlat_target *out)
{
    struct ring_stop *stop = xlat__alloc(s->ctx, sizeof(*stop));
    if (!stop)
        return XLAT_ERR_NOMEM;
    stop->sys = s;
    stop->gpu = gpu;
    stop->below = *below;
    s->ring[gpu] = stop;
    if (xlat__pool_init(&stop->reqs, s->ctx, sizeof(struct ring_req), 32) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    out->translate = ring_translate;
    out->unit = stop;
    out->wait = NULL;
    return XLAT_OK;
}

void xlat__ring_destroy(struct xlat_system *s, uint32_t gpu)
{
    struct ring_stop *stop = s->ring[gpu];
    if (!stop)
        return;
    xlat__cancel_events(s->ctx, owned_event, stop);
    xlat__pool_release(&stop->reqs);
    xlat__free(s->ctx, stop, sizeof(*stop));
    s->ring[gpu] = NULL;
}
