/*
 * The L2's requests through F-Barre (§V-A, Example 5): the filters are
 * probed at once (❶); an LCF hit is tried in the chiplet's own L2 first
 * (local coalesced translation); else an RCF hit sends the request to that
 * peer (❷-❻); else, or after the peer's NACK, it takes the ATS path.
 * Every step is an event of the record, so nothing answers inside the
 * call, and a record has one event or one downstream call at a time.
 */
#include "fbarre_unit.h"

#define PAGE_SHIFT 12

static void probe_filters(void *arg);

int xlat__fb_admit(struct xlat_fbarre *fb, struct xlat_pool *pool, const xlat_req *req,
                   xlat_done_fn done, void *user, const char *full, struct fb_req **out)
{
    if (!fb || !req || !done)
        return xlat__fail(fb ? fb->unit.ctx : NULL, XLAT_ERR_INVAL, "xlat_fbarre translate: NULL %s",
                          !fb ? "fbarre" : !req ? "req" : "done");
    int rc = xlat__req_check(fb->unit.ctx, req, "xlat_fbarre translate");
    if (rc != XLAT_OK)
        return rc;
    struct fb_req *r = xlat__pool_take(pool);
    if (!r)
        return xlat__unit_busy(&fb->unit, full);
    *r = (struct fb_req){.fb = fb, .req = *req, .done = done, .user = user,
                         .issued = fb->unit.ctx->now, .peer = FB_NO_PEER};
    *out = r;
    return XLAT_OK;
}

int xlat__fb_translate(void *fbarre, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct xlat_fbarre *fb = fbarre;
    struct fb_req *r;
    int rc = xlat__fb_admit(fb, fb ? &fb->unit.reqs : NULL, req, done, user,
                            "max_outstanding requests in flight", &r);
    if (rc != XLAT_OK)
        return rc;
    fb->st.requests++;
    xlat__unit_post(&fb->unit, fb->cfg.filter_latency, probe_filters, r);
    return XLAT_OK;
}

int xlat__fb_wait(void *fbarre, xlat_event_fn fn, void *user)
{
    struct xlat_fbarre *fb = fbarre;
    return xlat__unit_wait(&fb->unit, fn, user);
}

/* Answers r->resp and frees the record. The L2 fills in `done`; a fill it
 * kept (an invalidation in flight may keep it out) joins the LCF and is
 * told to the peers then, as the insert port of §V-A.2. */
static void finish(struct fb_req *r)
{
    struct xlat_fbarre *fb = r->fb;
    xlat_resp resp = r->resp;
    resp.issued = r->issued;
    resp.completed = fb->unit.ctx->now;
    xlat_done_fn done = r->done;
    void *user = r->user;
    uint32_t pasid = r->req.pasid;
    uint64_t vaddr = r->req.vaddr;
    bool may_fill = (resp.status == XLAT_OK || resp.status == XLAT_ERR_PERM) && fb->l2 &&
                    xlat_tlb_probe(fb->l2, pasid, vaddr, NULL) != XLAT_OK;
    xlat__unit_req_put(&fb->unit, r);
    xlat__unit_wake(&fb->unit);
    xlat__unit_answered(&fb->unit, resp.completed - resp.issued);
    done(user, &resp);
    xlat_tlb_entry e;
    if (may_fill && fb->l2 && xlat_tlb_probe(fb->l2, pasid, vaddr, &e) == XLAT_OK &&
        e.pfn == resp.pfn)
        xlat__fb_note_insert(fb, &e);
}

static void answer_ev(void *arg) { finish(arg); }

/* ---- the ATS path ---------------------------------------------------- */

/* §V-A.3: an answer whose PTE names a group brings the data object's PEC
 * entry, which the chiplet keeps; libxlat asks the PEC source for it. A
 * peer's answer brings it too (the paper is silent; without it a chiplet
 * that got a page from a peer could not tell the peers its group). */
static void fill_pec(struct xlat_fbarre *fb, const xlat_resp *resp)
{
    xlat_pec_entry d;
    if ((resp->status != XLAT_OK && resp->status != XLAT_ERR_PERM) || !fb->pec_source ||
        resp->page_shift != PAGE_SHIFT || !xlat__fb_in_group(fb, resp->meta.coal_info))
        return;
    if (fb->pec_source(fb->pec_source_user, resp->pasid, resp->vaddr >> PAGE_SHIFT, &d) ==
            XLAT_OK &&
        xlat_pec_buffer_insert(fb->pec, &d) == XLAT_OK)
        fb->st.pec_fills++;
}

static void ats_answered(void *arg, const xlat_resp *resp)
{
    struct fb_req *r = arg;
    r->resp = *resp;
    fill_pec(r->fb, resp);
    finish(r);
}

static void send_ats(void *arg)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    if (!fb->next.translate) {
        xlat__resp_init(&r->resp, &r->req, XLAT_ERR_NOT_FOUND, fb->unit.id);
        finish(r);
        return;
    }
    int rc = fb->next.translate(fb->next.unit, &r->req, ats_answered, r);
    if (rc == XLAT_OK) {
        fb->st.ats_requests++;
    } else if (rc == XLAT_ERR_AGAIN) { /* the record's one event: retry next cycle */
        xlat__unit_post(&fb->unit, 1, send_ats, r);
    } else { /* refused for good: answered, never lost */
        xlat__resp_init(&r->resp, &r->req, rc, fb->unit.id);
        finish(r);
    }
}

/* ---- the peer path --------------------------------------------------- */

static void peer_answered(void *arg, const xlat_resp *resp)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    if (resp->status == XLAT_OK) {
        fb->st.peer_hits++;
        r->resp = *resp;
        fill_pec(fb, resp); /* the peer's answer brings the entry, as an ATS answer does */
        finish(r);
        return;
    }
    /* A NACK: the RCF hit was false (a fingerprint collision, a lost
     * delete); serial fallback to the ATS. */
    fb->st.nacks_received++;
    fb->st.rcf_false_positives[r->peer]++;
    send_ats(r);
}

static void ask_peer(void *arg)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    const xlat_target *path = &fb->peer[r->peer].path;
    int rc = path->translate ? path->translate(path->unit, &r->req, peer_answered, r)
                             : XLAT_ERR_STATE;
    if (rc == XLAT_ERR_AGAIN)
        xlat__unit_post(&fb->unit, 1, ask_peer, r);
    else if (rc != XLAT_OK)
        send_ats(r);
}

/* ---- ❶: the filters ---------------------------------------------------- */

/* The lowest peer whose RCF holds the page (the paper leaves the choice
 * among several hits open). */
static uint32_t rcf_peer(const struct xlat_fbarre *fb, const xlat_req *req)
{
    uint64_t key = xlat__fb_key(req->pasid, req->vaddr >> PAGE_SHIFT);
    for (uint32_t x = 0; x < fb->cfg.chiplets; x++)
        if (x != fb->cfg.chiplet && fb->peer[x].path.translate &&
            xlat_cuckoo_contains(fb->filter[x], key))
            return x;
    return FB_NO_PEER;
}

static void beyond_chiplet(void *arg)
{
    struct fb_req *r = arg;
    if (r->peer != FB_NO_PEER)
        ask_peer(r);
    else
        send_ats(r);
}

static void probe_filters(void *arg)
{
    struct fb_req *r = arg;
    struct xlat_fbarre *fb = r->fb;
    r->peer = rcf_peer(fb, &r->req);
    xlat_tlb_entry e;
    unsigned lookups;
    bool hit = xlat__fb_search(fb, &r->req, false, &e, &lookups);
    uint64_t spent = (uint64_t)lookups * fb->cfg.tlb_latency;
    fb->st.lcf_false_positives += lookups - hit;
    if (!hit) {
        xlat__unit_post(&fb->unit, spent, beyond_chiplet, r);
        return;
    }
    fb->st.local_hits++;
    xlat__resp_init(&r->resp, &r->req, XLAT_OK, fb->unit.id);
    xlat__resp_translate(&r->resp, &e, r->req.vaddr, r->req.access);
    xlat__unit_post(&fb->unit, spent + fb->cfg.pec_latency, answer_ev, r);
}
