/*
 * The L2 TLB probing baseline of least-TLB §5.5 (Valkyrie's probing extended
 * to L2 TLBs): the GPUs' L2 TLBs form a ring, and an L2 miss first asks the
 * two neighbours; only when both miss does the request go to the IOMMU.
 */
#include <stdio.h>

#include "system_internal.h"
#include "unit_target.h"
#include "../tlb/tlb_id.h"

struct ring_req {
    struct xlat_delay_item wait; /* first: the record is its delay item */
    struct ring_stop *stop;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t arrival;
};

/* Sends a request both neighbours missed on to the GMMU or the link,
 * waiting for room if they refuse (its one event while it waits). */
static void forward(void *arg)
{
    struct ring_req *r = arg;
    struct ring_stop *stop = r->stop;
    int rc = stop->below.translate(stop->below.unit, &r->req, r->done, r->user);
    if (rc == XLAT_ERR_AGAIN) {
        if (!stop->below.wait || stop->below.wait(stop->below.unit, forward, r) != XLAT_OK)
            xlat__unit_post(&stop->unit, 1, forward, r);
        return;
    }
    xlat_done_fn done = r->done;
    void *user = r->user;
    xlat_resp fail;
    xlat__resp_init(&fail, &r->req, rc, stop->unit.id);
    fail.issued = r->arrival;
    fail.completed = stop->sys->ctx->now;
    xlat__unit_req_put(&stop->unit, r);
    xlat__unit_wake(&stop->unit); /* a record is free for the L2 above */
    if (rc != XLAT_OK) { /* refused for good: answer it, never lose it */
        xlat__unit_answered(&stop->unit, fail.completed - fail.issued);
        done(user, &fail);
    }
}

static int ring_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct ring_stop *stop = unit;
    struct xlat_system *s = stop->sys;
    struct ring_req *r = xlat__unit_req_get(&stop->unit);
    if (!r) /* more than the L2 above can have outstanding */
        return xlat__unit_busy(&stop->unit, "every probe record is busy");
    r->stop = stop;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->arrival = s->ctx->now;
    s->st.probes++;
    xlat__delay_push(&stop->probes, &r->wait);
    return XLAT_OK;
}

static int ring_wait(void *unit, xlat_event_fn fn, void *user)
{
    struct ring_stop *stop = unit;
    return xlat__unit_wait(&stop->unit, fn, user);
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

static void probed(struct xlat_delay *line, struct xlat_delay_item *item)
{
    struct ring_req *r = (struct ring_req *)item;
    struct ring_stop *stop = r->stop;
    (void)line;
    struct xlat_system *s = stop->sys;
    xlat_tlb_entry e;
    xlat_tlb *from = holder(s, stop->gpu, &r->req, &e);
    if (!from) { /* both missed: on towards the IOMMU */
        forward(r);
        return;
    }
    s->st.probe_hits++;
    xlat_resp resp;
    xlat__resp_init(&resp, &r->req, XLAT_OK, xlat__tlb_id(from));
    resp.issued = r->arrival;
    resp.completed = s->ctx->now;
    xlat__resp_translate(&resp, &e, r->req.vaddr, r->req.access);
    xlat_done_fn done = r->done;
    void *user = r->user;
    xlat__unit_answered(&stop->unit, resp.completed - resp.issued);
    xlat__unit_req_put(&stop->unit, r);
    xlat__unit_wake(&stop->unit); /* a record is free for the L2 above */
    done(user, &resp);
}

/* A stop serves the misses of one L2 TLB: it holds at most as many
 * requests as that L2 has MSHRs, and has at most one event per request
 * (waiting for room below) plus its delay line's. */
int xlat__ring_create(struct xlat_system *s, uint32_t gpu, const xlat_target *below,
                      xlat_target *out)
{
    struct ring_stop *stop = xlat__alloc(s->ctx, sizeof(*stop));
    if (!stop)
        return XLAT_ERR_NOMEM;
    char name[32];
    snprintf(name, sizeof(name), "gpu%u.ring", gpu);
    struct xlat__unit_spec spec = {
        .kind = "probing ring", .name = name, .req_size = sizeof(struct ring_req),
        .reqs = s->tmpl.l2.mshrs, .fixed = 1, .events = (size_t)s->tmpl.l2.mshrs + 1,
    };
    int rc = xlat__unit_init(&stop->unit, s->ctx, &spec);
    if (rc != XLAT_OK) {
        xlat__free(s->ctx, stop, sizeof(*stop));
        return rc;
    }
    stop->sys = s;
    stop->gpu = gpu;
    stop->below = (xlat_target)XLAT_TARGET_INIT;
    /* Held as a next level: a link below makes room for the L2's misses. */
    rc = xlat__target_hold(s->ctx, &stop->below, below, s->tmpl.l2.mshrs, "system");
    if (rc != XLAT_OK) {
        xlat__unit_fini(&stop->unit);
        xlat__free(s->ctx, stop, sizeof(*stop));
        return rc;
    }
    xlat__delay_init(&stop->probes, &stop->unit, s->cfg.probe_latency, probed);
    s->ring[gpu] = stop;
    /* Unit id 0: a stop is the system's part, not a unit of the registry. */
    *out = (xlat_target){sizeof(*out), ring_translate, stop, ring_wait, 0};
    return XLAT_OK;
}

void xlat__ring_destroy(struct xlat_system *s, uint32_t gpu)
{
    struct ring_stop *stop = s->ring[gpu];
    if (!stop)
        return;
    xlat__target_release(s->ctx, &stop->below, s->tmpl.l2.mshrs);
    xlat__unit_fini(&stop->unit);
    xlat__free(s->ctx, stop, sizeof(*stop));
    s->ring[gpu] = NULL;
}
