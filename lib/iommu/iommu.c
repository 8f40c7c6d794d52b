/*
 * The IOMMU: ATS requests look up the IOMMU TLB; a miss goes to the page
 * walkers and, when the inclusion policy names one (least-TLB's Local TLB
 * tracker), to another GPU's L2 as well.
 * The pending table (one record per request) lets the first valid answer
 * win and drops the later one ("Improving Address Translation in Multi-GPUs
 * via Sharing and Spilling aware TLB Design" §4.1).
 */
#include <stdio.h>

#include "iommu_internal.h"
#include "unit_target.h"
#include "../walk/walker_target.h"
#include "../tlb/tlb_id.h"

static void lookup_done(void *arg);
static void lookup2_done(void *arg);
static void walk_at_once(void *arg);
static void issue_walk(struct iommu_req *r);
static void probe_answered(void *ctx, const xlat_tlb_entry *hit);

void xlat_iommu_config_init_sized(xlat_iommu_config *out, size_t size)
{
    xlat_iommu_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "iommu";
    cfg->gpus = 4;
    cfg->buffer_entries = 256;
    cfg->tlb_entries = 4096;
    cfg->tlb_ways = 64;
    cfg->tlb_latency = 200;
    cfg->inclusion = XLAT_INCL_MOSTLY;
    cfg->tracker_entries = 2048;
    cfg->tracker_fp_bits = 4;
    cfg->tracker_bucket = 4;
    cfg->remote_latency = 120;
    cfg->spill_counter = 1;
    cfg->spill_rx = XLAT_SPILL_CUMULATIVE;
    cfg->exclude_owner = true;
    cfg->fault_batch = 1;
    xlat__config_out(out, size, &full, sizeof(full));
}

void xlat_iommu_walker_config_init_sized(xlat_walker_config *out, size_t size)
{
    xlat_walker_config full, *cfg = &full;
    xlat_walker_config_init(cfg);
    cfg->name = "iommu.walker";
    cfg->mem_latency = 125; /* 4 reads: the paper's 500-cycle walk */
    xlat__config_out(out, size, &full, sizeof(full));
}

static const struct incl_policy *incl_policy(xlat_incl incl, bool multi_app)
{
    switch (incl) {
    case XLAT_INCL_MOSTLY: return &xlat__incl_mostly;
    case XLAT_INCL_INCLUSIVE: return &xlat__incl_inclusive;
    case XLAT_INCL_EXCLUSIVE: return &xlat__incl_exclusive;
    case XLAT_INCL_LEAST: return multi_app ? &xlat__incl_least_multi : &xlat__incl_least;
    default: return NULL;
    }
}

static int check_config(xlat_ctx *ctx, const xlat_iommu_config *c)
{
    const char *n = c->name ? c->name : "iommu";
    if (!c->walk)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "iommu %s: cfg.walk is NULL (the walkers' template, with walk->pt,"
                          " is required)", n);
    if (c->gpus == 0 || c->gpus > IOMMU_MAX_GPUS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "iommu %s: gpus must be 1..%d, not %u", n,
                          IOMMU_MAX_GPUS, c->gpus);
    if (!incl_policy(c->inclusion, c->multi_app))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "iommu %s: unknown inclusion policy %d", n,
                          (int)c->inclusion);
    if (c->tlb2_entries && c->inclusion != XLAT_INCL_MOSTLY)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "iommu %s: a second-level IOMMU TLB needs the mostly-inclusive policy", n);
    if (c->no_tlb && (c->inclusion != XLAT_INCL_MOSTLY || c->tlb2_entries))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "iommu %s: without an IOMMU TLB (no_tlb) only the mostly-inclusive"
                          " policy and no second-level TLB make sense", n);
    if ((unsigned)c->spill_rx > XLAT_SPILL_OCCUPANCY)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "iommu %s: unknown spill receiver rule (spill_rx) %d",
                          n, (int)c->spill_rx);
    if (c->buffer_entries == 0 || c->fault_batch == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "iommu %s: buffer_entries and fault_batch must be >= 1", n);
    return xlat__clock_check(ctx, "iommu", n, c->clock_num, c->clock_den);
}

static int make_tlb(struct xlat_iommu *m, xlat_tlb **out, const char *suffix, uint32_t entries,
                    uint32_t ways)
{
    char name[96];
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    snprintf(name, sizeof(name), "%s%s", m->u.name, suffix);
    c.name = name;
    c.entries = entries;
    c.ways = entries ? ways : 0;
    c.mshrs = 1;
    c.latency = 0;
    return xlat_tlb_create(m->u.ctx, &c, out);
}

/* The policy's state, owned by the policy from init to fini; its size
 * grows with the GPUs (one block: no allocation per GPU). */
static size_t incl_state_bytes(const struct xlat_iommu *m)
{
    return m->incl->state_size + m->incl->state_per_gpu * m->cfg.gpus;
}

static int incl_init(struct xlat_iommu *m)
{
    xlat__iommu_services_init(m);
    m->incl_state = xlat__calloc(m->u.ctx, 1, incl_state_bytes(m));
    if (!m->incl_state)
        return XLAT_ERR_NOMEM;
    int rc = m->incl->init ? m->incl->init(m->incl_state, &m->services) : XLAT_OK;
    if (rc != XLAT_OK) {
        if (m->incl->fini)
            m->incl->fini(m->incl_state); /* init may have built part of its state */
        xlat__free(m->u.ctx, m->incl_state, incl_state_bytes(m));
        m->incl_state = NULL;
    }
    return rc;
}

static void incl_fini(struct xlat_iommu *m)
{
    if (!m->incl_state)
        return;
    if (m->incl->fini)
        m->incl->fini(m->incl_state);
    xlat__free(m->u.ctx, m->incl_state, incl_state_bytes(m));
    m->incl_state = NULL;
}

/* Request records: one per request in the ATS buffer, and one per walk the
 * walkers can hold (walkers + buffered), for a request already answered by
 * a remote hit whose walk still runs. A request answered by its walk whose
 * probe is still on its way also keeps its record, which no configuration
 * bounds: translate refuses when every record is taken. */
static size_t record_bound(const xlat_iommu_config *c)
{
    return (size_t)c->buffer_entries + c->walk->walkers + c->walk->queue_entries;
}

/*
 * The most events the IOMMU can have pending at once:
 * - buffer_entries lookups: a request has one lookup (or second-level
 *   lookup) pending only before it is answered, and unanswered requests
 *   are at most buffer_entries (admission);
 * - one per default-port probe in flight: each holds one object of the
 *   fixed probe pool (record_bound objects), also when a host calls the
 *   default port itself;
 * - one walk-queue retry (wq_parked: at most one at a time), one victim
 *   hand-off (victims_scheduled), one fault-batch timeout (fault_timer) and
 *   one wake of refused senders put off to the next cycle (rewake).
 * The walks run on the walkers' own events. The skeleton adds one wake-up
 * per waiter slot: senders are woken at most once a cycle, so the wake-ups
 * of one wake have all fired before the next.
 */
static size_t event_bound(const xlat_iommu_config *c)
{
    return (size_t)c->buffer_entries + record_bound(c) + 4;
}

/* The skeleton without the event budget: that is reserved last (reserve),
 * since the context's event pool, once grown, stays grown, and a create
 * that fails must leave nothing behind. */
static int unit_init(struct xlat_iommu *m, xlat_ctx *ctx)
{
    struct xlat__unit_spec spec = {
        .kind = "iommu", .name = m->cfg.name ? m->cfg.name : "iommu",
        .req_size = sizeof(struct iommu_req), .reqs = record_bound(&m->cfg), .fixed = 1,
        .clock_num = m->cfg.clock_num, .clock_den = m->cfg.clock_den,
    };
    int rc = xlat__unit_init(&m->u, ctx, &spec);
    m->cfg.name = m->u.name;
    return rc;
}

static int reserve(struct xlat_iommu *m)
{
    size_t n = event_bound(&m->cfg);
    if (xlat__events_reserve(m->u.ctx, n) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    m->u.events += n; /* given back by xlat__unit_fini */
    return XLAT_OK;
}

/* What the IOMMU keeps per GPU, for the GPUs it is configured with. */
static int alloc_gpus(struct xlat_iommu *m)
{
    uint32_t n = m->cfg.gpus;
    m->port = xlat__calloc(m->u.ctx, n, sizeof(*m->port));
    m->tlb_port = xlat__calloc(m->u.ctx, n, sizeof(*m->tlb_port));
    m->l2 = xlat__calloc(m->u.ctx, n, sizeof(*m->l2));
    m->listener = xlat__calloc(m->u.ctx, n, sizeof(*m->listener));
    if (!m->port || !m->tlb_port || !m->l2 || !m->listener)
        return XLAT_ERR_NOMEM;
    for (uint32_t g = 0; g < n; g++)
        m->listener[g] = (struct l2_listener){m, g};
    return XLAT_OK;
}

static void free_gpus(struct xlat_iommu *m)
{
    uint32_t n = m->cfg.gpus;
    xlat__free(m->u.ctx, m->port, n * sizeof(*m->port));
    xlat__free(m->u.ctx, m->tlb_port, n * sizeof(*m->tlb_port));
    xlat__free(m->u.ctx, m->l2, n * sizeof(*m->l2));
    xlat__free(m->u.ctx, m->listener, n * sizeof(*m->listener));
}

static int build(struct xlat_iommu *m)
{
    int rc = alloc_gpus(m);
    if (rc == XLAT_OK && !m->cfg.no_tlb)
        rc = make_tlb(m, &m->tlb, "", m->cfg.tlb_entries, m->cfg.tlb_ways);
    if (rc == XLAT_OK && m->cfg.tlb2_entries)
        rc = make_tlb(m, &m->tlb2, ".l2", m->cfg.tlb2_entries, m->cfg.tlb2_ways);
    m->walk.fault_fn = m->cfg.fault_fn ? xlat__iommu_walk_fault : NULL;
    m->walk.fault_user = m;
    if (rc == XLAT_OK)
        rc = xlat_walker_create(m->u.ctx, &m->walk, &m->walker);
    m->walk.name = NULL; /* the walker holds its own copies; the caller's may go */
    m->walk.dwspp = NULL;
    m->walk.pec_base_pfn = NULL;
    if (rc == XLAT_OK)
        rc = incl_init(m);
    if (rc == XLAT_OK)
        rc = xlat__iommu_victims_init(m);
    if (rc == XLAT_OK)
        rc = xlat__iommu_faults_init(m);
    if (rc == XLAT_OK) /* at most one probe per record */
        rc = xlat__pool_init_fixed(&m->probes, m->u.ctx, sizeof(struct tlb_probe),
                                   record_bound(&m->cfg));
    return rc == XLAT_OK ? reserve(m) : rc;
}

static void walks_room(void *arg);

/* The walkers' wake-up of a parked walk queue is the walkers' event. */
static int woken_walks(void *iommu, xlat_event_fn fn, void *user)
{
    return fn == walks_room && user == iommu;
}

static void l2_gone(void *listener, xlat_tlb *t);

/* GPU `gpu`'s L2 is no longer the IOMMU's to listen to. */
static void forget_l2(struct xlat_iommu *m, uint32_t gpu)
{
    xlat_tlb_evict_unlisten(m->l2[gpu], xlat__iommu_l2_evicted, &m->listener[gpu]);
    xlat__tlb_unwatch_gone(m->l2[gpu], l2_gone, &m->listener[gpu]);
    m->l2[gpu] = NULL;
}

uint32_t xlat__iommu_l2_gpu(const struct xlat_iommu *m, uint32_t gpu, const xlat_tlb *l2)
{
    for (uint32_t g = 0; m->l2_aliased && g < gpu; g++)
        if (m->l2[g] == l2)
            return g;
    return gpu;
}

/* An attached L2 is being destroyed: the IOMMU detaches it, so that a host
 * may destroy its GPUs' TLBs before or after the IOMMU. A default port
 * over it goes too (that GPU has no L2 from now on); probes in flight to
 * it arrive as misses. A host's own port stays, as the host attached it. */
static void l2_gone(void *listener, xlat_tlb *t)
{
    const struct l2_listener *who = listener;
    struct xlat_iommu *m = who->iommu;
    /* A TLB attached for one GPU is that GPU's alone: no search. */
    uint32_t first = m->l2_aliased ? 0 : who->gpu, end = m->l2_aliased ? m->cfg.gpus : who->gpu + 1;
    for (uint32_t g = first; g < end; g++) {
        if (m->l2[g] != t)
            continue;
        forget_l2(m, g);
        xlat__iommu_tlb_port_gone(m, g);
    }
}

static void iommu_free(xlat_ctx *ctx, struct xlat_iommu *m)
{
    xlat__reg_remove(ctx, &m->reg);
    xlat__cancel_events(ctx, woken_walks, m);
    for (uint32_t g = 0; m->l2 && g < m->cfg.gpus; g++)
        if (m->l2[g])
            forget_l2(m, g);
    xlat_walker_destroy(m->walker);
    xlat_tlb_destroy(m->tlb);
    xlat_tlb_destroy(m->tlb2);
    incl_fini(m);
    xlat__pool_release(&m->probes);
    xlat__free(ctx, m->victims, m->victims_cap * sizeof(*m->victims));
    xlat__free(ctx, m->faults, m->cfg.fault_batch * sizeof(*m->faults));
    free_gpus(m);
    xlat__unit_fini(&m->u); /* cancels its own events */
    xlat__free(ctx, m, sizeof(*m));
}

/* The IOMMU's own copy of the walkers' template, taken at create so that
 * the caller's may go away; an older host's shorter template keeps the
 * defaults in the fields it does not know. The walkers are the IOMMU's:
 * a template that names no clock of its own runs them at the IOMMU's. */
static int copy_walk(xlat_ctx *ctx, xlat_iommu_config *c, xlat_walker_config *w)
{
    xlat_iommu_walker_config_init(w);
    int rc = xlat__config_copy(ctx, w, sizeof(*w), c->walk, XLAT_WALKER_CONFIG_SIZE_V0,
                               "xlat_iommu_config.walk");
    if (w->clock_num == 0 && w->clock_den == 0) {
        w->clock_num = c->clock_num;
        w->clock_den = c->clock_den;
    }
    c->walk = w;
    return rc;
}

int xlat_iommu_create(xlat_ctx *ctx, const xlat_iommu_config *cfg, xlat_iommu **out)
{
    xlat_iommu_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_iommu_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_iommu_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_IOMMU_CONFIG_SIZE_V0, "xlat_iommu_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    xlat_walker_config w;
    if (rc == XLAT_OK)
        rc = copy_walk(ctx, &c, &w);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_iommu *m = xlat__alloc(ctx, sizeof(*m));
    if (!m)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_iommu_create: out of memory for iommu %s",
                          c.name ? c.name : "iommu");
    m->cfg = c;
    m->walk = w;
    m->cfg.walk = &m->walk;
    m->incl = incl_policy(c.inclusion, c.multi_app);
    m->woke_at = UINT64_MAX; /* no wake yet, not even at cycle 0 */
    rc = unit_init(m, ctx);
    const struct xlat__reg *outer = xlat__reg_adopt(ctx, &m->reg); /* its TLBs, walkers, trackers */
    if (rc == XLAT_OK)
        rc = build(m);
    xlat__reg_restore(ctx, outer);
    if (rc != XLAT_OK) {
        iommu_free(ctx, m);
        return rc == XLAT_ERR_NOMEM ? xlat__fail(ctx, rc,
                                                 "xlat_iommu_create: out of memory for iommu %s",
                                                 c.name ? c.name : "iommu")
                                    : rc;
    }
    xlat__reg_add(ctx, &m->reg, &xlat__iommu_reg_ops, m, m->u.name, m->u.id);
    *out = m;
    return XLAT_OK;
}

/* Holds on the units the IOMMU built (its TLBs, walkers, trackers). It
 * wires none of them to another, so each is a host's unit given one as
 * its next level (xlat_iommu_walker(), xlat_iommu_tlb() and their
 * get_target), which would be left calling into freed memory. */
static uint32_t holds_on_parts(const struct xlat_iommu *m)
{
    uint32_t n = 0;
    for (const struct xlat__reg *r = m->u.ctx->reg_head; r; r = r->next)
        if (r->owner == &m->reg)
            n += r->held;
    return n;
}

void xlat__iommu_forget_holds(struct xlat_iommu *m)
{
    for (struct xlat__reg *r = m->u.ctx->reg_head; r; r = r->next)
        if (r->owner == &m->reg)
            r->held = 0;
}

int xlat_iommu_destroy(xlat_iommu *m)
{
    if (!m)
        return XLAT_OK;
    int rc = xlat__reg_unheld(m->u.ctx, &m->reg, "iommu");
    uint32_t parts = rc == XLAT_OK ? holds_on_parts(m) : 0;
    if (parts)
        rc = xlat__fail(m->u.ctx, XLAT_ERR_BUSY,
                        "iommu %s: its TLB or walkers are still the next level of %u unit(s);"
                        " set their next level elsewhere (or NULL) or destroy them first",
                        m->reg.name, parts);
    if (rc == XLAT_OK)
        iommu_free(m->u.ctx, m);
    return rc;
}

int xlat_iommu_attach_l2(xlat_iommu *m, uint32_t gpu, xlat_tlb *l2)
{
    if (!m || !l2 || gpu >= m->cfg.gpus)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_attach_l2: %s",
                          !m ? "NULL iommu" : !l2 ? "NULL l2" : "gpu out of range");
    /* The IOMMU hears of the L2's victims as one listener among any the
     * host adds: neither disconnects the other. */
    struct l2_listener *who = &m->listener[gpu];
    if (xlat_tlb_evict_listen(l2, xlat__iommu_l2_evicted, who) != XLAT_OK)
        return xlat__fail(m->u.ctx, XLAT_ERR_NOMEM, "iommu %s: out of memory", m->u.name);
    if (xlat__tlb_watch_gone(l2, l2_gone, who) != XLAT_OK) {
        xlat_tlb_evict_unlisten(l2, xlat__iommu_l2_evicted, who);
        return xlat__fail(m->u.ctx, XLAT_ERR_NOMEM, "iommu %s: out of memory", m->u.name);
    }
    if (m->l2[gpu])
        forget_l2(m, gpu);
    for (uint32_t g = 0; g < m->cfg.gpus && !m->l2_aliased; g++)
        m->l2_aliased = g != gpu && m->l2[g] == l2;
    m->l2[gpu] = l2;
    xlat__iommu_tlb_port(m, gpu, l2);
    return XLAT_OK;
}

/* ---- the request flow ------------------------------------------------ */

void xlat__iommu_native(struct xlat_iommu *m, xlat_tlb_entry *e)
{
    /* least-TLB's fields are the IOMMU's to set; Barre Chord's (the walk's
     * group information, the data object) go on with the translation. */
    e->meta = (xlat_meta){.object_id = e->meta.object_id, .coal_info = e->meta.coal_info};
    if (m->incl->native)
        m->incl->native(m->incl_state, e);
}

static void drain_walks(struct xlat_iommu *m);

static void rewake_event(void *arg);

/* Room freed: the refused senders retry. The skeleton posts one wake-up
 * per waiter; waking at most once a cycle keeps them within the budget
 * (the wake-ups of one wake have all fired before the next), and room
 * freed after this cycle's wake wakes the senders refused since at the
 * next cycle. */
static void wake_senders(struct xlat_iommu *m)
{
    if (xlat__waitq_empty(&m->u.waitq))
        return;
    if (m->woke_at != m->u.ctx->now) {
        m->woke_at = m->u.ctx->now;
        xlat__unit_wake(&m->u);
    } else if (!m->rewake) {
        m->rewake = true;
        xlat__unit_post(&m->u, 1, rewake_event, m);
    }
}

static void rewake_event(void *arg)
{
    struct xlat_iommu *m = arg;
    m->rewake = false;
    wake_senders(m);
}

/* The record goes back to the pool once nothing refers to it any more: a
 * walk on a walker or a probe may answer after the request was served.
 * Senders refused for want of a record are woken when one frees. */
static void free_if_idle(struct iommu_req *r)
{
    struct xlat_iommu *m = r->iommu;
    if (!r->answered || r->walk_out || r->probe_out || r->queued)
        return;
    xlat__unit_req_put(&m->u, r);
    if (m->records_short) {
        m->records_short = false;
        wake_senders(m);
    }
}

static void wq_unlink(struct xlat_iommu *m, struct iommu_req *r)
{
    if (r->qprev)
        r->qprev->qnext = r->qnext;
    else
        m->wq_head = r->qnext;
    if (r->qnext)
        r->qnext->qprev = r->qprev;
    else
        m->wq_tail = r->qprev;
    r->qprev = r->qnext = NULL;
    r->queued = 0;
}

static void wq_push(struct xlat_iommu *m, struct iommu_req *r, bool front)
{
    r->queued = 1;
    r->qprev = front ? NULL : m->wq_tail;
    r->qnext = front ? m->wq_head : NULL;
    if (r->qprev)
        r->qprev->qnext = r;
    else
        m->wq_head = r;
    if (r->qnext)
        r->qnext->qprev = r;
    else
        m->wq_tail = r;
}

/* Serves `r` with translation `e` (NULL: `status`) resolved by `resolver`.
 * Its ATS buffer slot frees now (least-TLB §4.1: the pending entry is
 * removed when the first answer arrives), and a walk it still had queued
 * is dropped (Algorithm 1: "abort IOMMU thread (PTW)"). */
static void answer(struct iommu_req *r, const xlat_tlb_entry *e, int status, uint32_t resolver)
{
    struct xlat_iommu *m = r->iommu;
    xlat_resp resp;
    xlat__resp_init(&resp, &r->req, status, resolver);
    resp.issued = r->arrival;
    resp.completed = m->u.ctx->now;
    if (e && status == XLAT_OK) {
        xlat_tlb_entry out = *e;
        xlat__iommu_native(m, &out); /* what the policy marks on a fresh translation */
        xlat__resp_translate(&resp, &out, r->req.vaddr, r->req.access);
        if (m->incl->on_answer)
            m->incl->on_answer(m->incl_state, r->req.gpu, e);
    }
    r->answered = 1;
    if (r->queued) {
        wq_unlink(m, r);
        m->st.walks_aborted++;
    }
    m->in_service--;
    wake_senders(m);
    xlat__unit_answered(&m->u, resp.completed - resp.issued);
    xlat_done_fn done = r->done;
    void *user = r->user;
    free_if_idle(r);
    done(user, &resp);
}

int xlat_iommu_translate(xlat_iommu *m, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!m || !req || !done)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_translate: NULL %s",
                          !m ? "iommu" : !req ? "req" : "done");
    if (req->gpu >= m->cfg.gpus)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL,
                          "xlat_iommu_translate: request from an unknown GPU (gpu %u of %u)",
                          req->gpu, m->cfg.gpus);
    int rc = xlat__req_check(m->u.ctx, req, "xlat_iommu_translate");
    if (rc != XLAT_OK)
        return rc;
    if (m->in_service >= m->cfg.buffer_entries) {
        m->st.refusals++;
        return xlat__unit_busy(&m->u, "the ATS buffer is full");
    }
    /* Every field is set here but walk_resp, which a walk's answer
     * writes before its event reads it: the record's 176 bytes are not
     * zeroed first. */
    struct iommu_req *r = xlat__unit_req_take(&m->u);
    if (!r) { /* answered requests whose walk or probe is still out hold them */
        m->st.refusals++;
        m->records_short = true;
        return xlat__unit_busy(&m->u, "every request record is taken");
    }
    r->iommu = m;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->arrival = m->u.ctx->now;
    r->walk_out = r->probe_out = r->answered = r->queued = 0;
    r->probe_gpu = -1;
    r->qprev = r->qnext = NULL;
    m->in_service++;
    m->st.requests++;
    /* Without a TLB the walk is queued in this cycle, yet never inside
     * this call: the walkers may refuse it with an answer. */
    if (m->cfg.no_tlb)
        xlat__unit_post(&m->u, 0, walk_at_once, r);
    else
        xlat__unit_post(&m->u, m->cfg.tlb_latency, lookup_done, r);
    return XLAT_OK;
}

static void walk_at_once(void *arg) { issue_walk(arg); }

/* The TLB is read when its latency has passed, so an invalidation during
 * the lookup is seen. */
static void lookup_done(void *arg)
{
    struct iommu_req *r = arg;
    struct xlat_iommu *m = r->iommu;
    xlat_tlb_entry e;
    if (xlat_tlb_lookup(m->tlb, r->req.pasid, r->req.vaddr, &e) == XLAT_OK) {
        m->st.tlb_hits++;
        if (m->incl->on_hit)
            m->incl->on_hit(m->incl_state, &e);
        answer(r, &e, XLAT_OK, m->u.id);
    } else if (m->tlb2) {
        xlat__unit_post(&m->u, m->cfg.tlb2_latency, lookup2_done, r);
    } else {
        issue_walk(r);
    }
}

static void lookup2_done(void *arg)
{
    struct iommu_req *r = arg;
    struct xlat_iommu *m = r->iommu;
    xlat_tlb_entry e;
    if (xlat_tlb_lookup(m->tlb2, r->req.pasid, r->req.vaddr, &e) != XLAT_OK) {
        issue_walk(r);
        return;
    }
    m->st.tlb_hits++;
    m->st.tlb2_hits++;
    xlat_tlb_insert(m->tlb, &e, NULL); /* mostly-inclusive between the two levels */
    answer(r, &e, XLAT_OK, m->u.id);
}

static void walk_done(void *user, const xlat_resp *resp);

static void walk_done_event(void *arg)
{
    struct iommu_req *r = arg;
    walk_done(r, &r->walk_resp);
}

/* A walk answers outside an advance when the host resolves its page
 * request (xlat_iommu_fault_done()): the answer waits for a zero-delay
 * event, since every answer of the IOMMU comes from inside tick/advance.
 * The record stays busy meanwhile (walk_out), and the event takes the
 * lookup's place in the budget (the request is in service, its lookup
 * done). An answered request's walk calls no one back: it ends at once. */
static void walk_done(void *user, const xlat_resp *resp)
{
    struct iommu_req *r = user;
    struct xlat_iommu *m = r->iommu;
    if (!m->u.ctx->in_advance && !r->answered) {
        r->walk_resp = *resp;
        xlat__unit_post(&m->u, 0, walk_done_event, r);
        return;
    }
    r->walk_out = 0;
    if (r->answered) {
        m->st.late_discarded++;
        free_if_idle(r);
    } else {
        xlat_tlb_entry e = {.pasid = r->req.pasid, .page_shift = resp->page_shift,
                            .vpn = r->req.vaddr >> resp->page_shift, .pfn = resp->pfn,
                            .perm = resp->perm,
                            .meta = resp->meta}; /* the walk's group information goes on */
        bool valid = resp->status == XLAT_OK || resp->status == XLAT_ERR_PERM;
        xlat__iommu_native(m, &e);
        if (valid && m->incl->on_walk)
            m->incl->on_walk(m->incl_state, &e, r->req.gpu);
        m->st.walk_answers++;
        answer(r, valid ? &e : NULL, valid ? XLAT_OK : resp->status, resp->resolver);
    }
    drain_walks(m); /* a walker is free */
}

/* The probe is marked outstanding before the call: the port may answer
 * inside it, and `r` may be released by the time it returns. */
static void send_probe(struct xlat_iommu *m, struct iommu_req *r, uint32_t x)
{
    const xlat_l2_port *p = &m->port[x];
    r->probe_gpu = (int32_t)x;
    r->probe_out = 1;
    m->st.remote_probes++;
    if (p->probe(p->probe_user, r->req.pasid, r->req.vaddr, probe_answered, r) != XLAT_OK) {
        r->probe_out = 0; /* not sent: the walk answers */
        m->st.remote_probes--;
    }
}

/* A miss: the walk is queued; the policy may name an L2 to probe as well.
 * The walk is queued first, so that a hit answered inside the probe call
 * drops it. */
static void issue_walk(struct iommu_req *r)
{
    struct xlat_iommu *m = r->iommu;
    int x = m->incl->remote_gpu ? m->incl->remote_gpu(m->incl_state, &r->req) : -1;
    wq_push(m, r, false);
    if (x >= 0 && (uint32_t)x < m->cfg.gpus && m->port[x].probe)
        send_probe(m, r, (uint32_t)x);
    drain_walks(m);
}

static void probe_answered(void *ctx, const xlat_tlb_entry *hit)
{
    struct iommu_req *r = ctx;
    struct xlat_iommu *m = r->iommu;
    uint32_t x = (uint32_t)r->probe_gpu;
    r->probe_out = 0;
    if (r->answered) {
        m->st.late_discarded++;
        free_if_idle(r);
        return;
    }
    xlat_tlb_entry e = hit ? *hit : (xlat_tlb_entry){0};
    if (m->incl->on_remote)
        m->incl->on_remote(m->incl_state, x, &r->req, hit != NULL, &e);
    if (hit) {
        m->st.remote_hits++;
        answer(r, &e, XLAT_OK, m->port[x].unit);
    } else {
        m->st.remote_misses++; /* the walk goes on */
    }
    drain_walks(m);
}

/* ---- the walk queue ---------------------------------------------------
 * Walks reach the walkers in arrival order. A walk raced by a remote probe
 * leaves this queue only when a walker can start it at once: while it waits
 * here a remote hit can still abort it (least-TLB Algorithm 1), whereas the
 * walkers' buffer cannot give a request back. Later walks wait behind it,
 * so the walkers see the order they would have seen; a walk already on a
 * walker runs to its end and its answer is discarded. Without probes
 * (every other policy) each walk is handed over as it arrives. "A walker can
 * start it" is judged on the whole pool (an idle walker, nothing buffered):
 * under a partitioned scheduler the walk may still wait in the walkers'
 * buffer, where it can no longer be aborted (it is then discarded). */

static bool walker_free_now(const struct xlat_iommu *m)
{
    return xlat_walker_busy(m->walker) < m->cfg.walk->walkers && !xlat_walker_buffered(m->walker);
}

/* Hands r's walk to the walkers. The walker may answer inside the call and
 * `r` may be released by then, so its state is set first. */
static int hand_over(struct xlat_iommu *m, struct iommu_req *r)
{
    wq_unlink(m, r);
    r->walk_out = 1;
    m->st.walks++;
    int rc = xlat_walker_translate(m->walker, &r->req, walk_done, r);
    if (rc == XLAT_OK)
        return XLAT_OK;
    r->walk_out = 0;
    m->st.walks--;
    if (rc == XLAT_ERR_AGAIN) { /* the walkers' buffer is full: first in line again */
        wq_push(m, r, true);
        return rc;
    }
    answer(r, NULL, rc, m->u.id);
    return XLAT_OK;
}

/* The head of the walk queue is retried when the walkers have room:
 * through their wait hook, or next cycle when they have no hook or it
 * refuses. Cannot fail: the poll is one of the IOMMU's reserved events. */
static void park_walks(struct xlat_iommu *m)
{
    xlat_target walkers = xlat__walker_target(m->walker);
    m->wq_parked = true;
    if (!walkers.wait || walkers.wait(walkers.unit, walks_room, m) != XLAT_OK)
        xlat__unit_post(&m->u, 1, walks_room, m);
}

static void walks_room(void *arg)
{
    struct xlat_iommu *m = arg;
    m->wq_parked = false;
    drain_walks(m);
}

static void drain_walks(struct xlat_iommu *m)
{
    if (m->wq_draining || m->wq_parked)
        return;
    m->wq_draining = true;
    struct iommu_req *r;
    while ((r = m->wq_head) != NULL && (!r->probe_out || walker_free_now(m))) {
        if (hand_over(m, r) == XLAT_ERR_AGAIN) {
            park_walks(m);
            break;
        }
    }
    m->wq_draining = false;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_iommu_translate(unit, req, done, user);
}

static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    struct xlat_iommu *m = unit;
    return xlat__unit_wait(&m->u, fn, user);
}

int xlat_iommu_get_target(xlat_iommu *m, xlat_target *out)
{
    if (!m)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_iommu_get_target: NULL iommu");
    xlat_target mine = {sizeof(mine), target_translate, m, target_wait, m->u.id};
    return xlat__target_get(m->u.ctx, out, &mine, "xlat_iommu_get_target");
}
