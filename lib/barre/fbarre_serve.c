/*
 * A peer's request at this chiplet (§V-A, Example 5 ❸-❻): the PEC logic
 * computes the page's candidates (the page itself first, for an entry the
 * L2 holds exactly), the LCF filters them, each hit costs one lookup of
 * the L2, and the first entry of the page's group gives the frame; when
 * none does, a NACK (::XLAT_ERR_NOT_FOUND) goes back. Peers' requests have
 * their own records, so that two chiplets asking each other never wait on
 * each other's room.
 */
#include "fbarre_unit.h"

static void serve_search(void *arg);

int xlat__fb_serve(void *fbarre, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct xlat_fbarre *fb = fbarre;
    struct fb_req *r;
    int rc = xlat__fb_admit(fb, fb ? &fb->serving : NULL, req, done, user,
                            "peer_slots peer requests in service", &r);
    if (rc != XLAT_OK)
        return rc;
    fb->st.peer_requests++;
    xlat__unit_post(&fb->unit, fb->cfg.pec_latency, serve_search, r); /* ❸ */
    return XLAT_OK;
}

static void serve_answer(void *arg)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    xlat_resp resp = r->resp;
    resp.issued = r->issued;
    resp.completed = fb->unit.ctx->now;
    xlat_done_fn done = r->done;
    void *user = r->user;
    xlat__pool_put(&fb->serving, r);
    xlat__unit_answered(&fb->unit, resp.completed - resp.issued); /* a peer's, answered too */
    done(user, &resp);
}

static void serve_search(void *arg)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    xlat_tlb_entry e;
    unsigned lookups;
    bool hit = xlat__fb_search(fb, &r->req, true, &e, &lookups); /* ❹ ❺ */
    uint64_t spent = (uint64_t)lookups * fb->cfg.tlb_latency;
    fb->st.lcf_false_positives += lookups - hit;
    if (!hit) {
        fb->st.nacks_sent++;
        xlat__resp_init(&r->resp, &r->req, XLAT_ERR_NOT_FOUND, fb->unit.id);
        xlat__unit_post(&fb->unit, spent, serve_answer, r);
        return;
    }
    fb->st.peer_answers++;
    xlat__resp_init(&r->resp, &r->req, XLAT_OK, fb->unit.id);
    xlat__resp_translate(&r->resp, &e, r->req.vaddr, r->req.access);
    xlat__unit_post(&fb->unit, spent + fb->cfg.pec_latency, serve_answer, r); /* ❻ */
}
