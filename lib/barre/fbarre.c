/*
 * F-Barre's per-chiplet unit: configuration, creation (everything it can
 * need inside tick is reserved here), wiring and statistics. The flow is
 * in fbarre_flow.c and fbarre_serve.c, the filters in fbarre_filter.c.
 */
#include "../tlb/tlb_id.h"
#include "fbarre_unit.h"
#include "unit_target.h"

#define MAX_FILTER_ROWS (1u << 20)

static const struct xlat__reg_ops reg_ops;

void xlat_fbarre_config_init_sized(xlat_fbarre_config *out, size_t size)
{
    xlat_fbarre_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "fbarre";
    cfg->chiplets = 4;
    cfg->filter_rows = 256; /* Table II: 9-bit fingerprints, 4-way, 256 rows */
    cfg->filter_ways = 4;
    cfg->fp_bits = 9;
    cfg->tlb_latency = 10; /* Table II's L2 TLB lookup */
    cfg->pec_latency = 1;
    cfg->msg_latency = 32; /* Table II's inter-chip network */
    cfg->msg_queue = 64;
    cfg->msgs_per_cycle = 1;
    cfg->max_outstanding = 64;
    cfg->peer_slots = 64;
    cfg->pec_entries = 5; /* §V-A.3: a 5-entry PEC buffer per chiplet */
    xlat__config_out(out, size, &full, sizeof(full));
}

static int bad(xlat_ctx *ctx, const xlat_fbarre_config *c, const char *what)
{
    return xlat__fail(ctx, XLAT_ERR_INVAL, "fbarre %s: %s", c->name ? c->name : "fbarre", what);
}

static int check_config(xlat_ctx *ctx, const xlat_fbarre_config *c)
{
    if (c->chiplets < 2 || c->chiplets > XLAT_FBARRE_MAX_CHIPLETS)
        return bad(ctx, c, "chiplets is outside 2..8");
    if (c->chiplet >= c->chiplets)
        return bad(ctx, c, "chiplet is not below chiplets");
    if (c->expanded && c->chiplets > 4)
        return bad(ctx, c, "the expanded layout has room for 4 chiplets");
    if (!xlat__is_pow2(c->filter_rows) || c->filter_rows > MAX_FILTER_ROWS)
        return bad(ctx, c, "filter_rows is not a power of two up to 2^20");
    if (c->filter_ways < 1 || c->filter_ways > 8)
        return bad(ctx, c, "filter_ways is outside 1..8");
    if (c->msgs_per_cycle == 0 || c->max_outstanding == 0 || c->peer_slots == 0)
        return bad(ctx, c, "msgs_per_cycle, max_outstanding and peer_slots must be at least 1");
    if (!(c->drop_prob >= 0 && c->drop_prob <= 1))
        return bad(ctx, c, "drop_prob is outside [0, 1]");
    if (c->pec_entries < 1 || c->pec_entries > 1024) /* the PEC buffer's own bounds */
        return bad(ctx, c, "pec_entries is outside 1..1024");
    return xlat__clock_check(ctx, "fbarre", c->name ? c->name : "fbarre", c->clock_num,
                             c->clock_den);
}

/* One filter of exactly rows × ways slots: the cuckoo filter sizes its
 * table from a capacity at its target load, so ask for that load. */
static int make_filter(struct xlat_fbarre *fb, uint32_t g)
{
    const xlat_fbarre_config *c = &fb->cfg;
    static const uint16_t permille[9] = {0, 450, 840, 920, 950, 950, 950, 950, 950};
    uint64_t slots = (uint64_t)c->filter_rows * c->filter_ways;
    xlat_cuckoo_config cc;
    xlat_cuckoo_config_init(&cc);
    cc.fp_bits = c->fp_bits;
    cc.bucket_size = c->filter_ways;
    cc.capacity = (uint32_t)(slots * permille[c->filter_ways] / 1000);
    if (cc.capacity == 0)
        cc.capacity = 1;
    int rc = xlat_cuckoo_create(fb->unit.ctx, &cc, &fb->filter[g]);
    if (rc == XLAT_OK && xlat_cuckoo_slots(fb->filter[g]) != slots)
        return xlat__fail(fb->unit.ctx, XLAT_ERR_INVAL, "fbarre %s: a filter of %llu slots",
                          fb->unit.name, (unsigned long long)slots);
    return rc;
}

static int build_parts(struct xlat_fbarre *fb)
{
    const xlat_fbarre_config *c = &fb->cfg;
    int rc = xlat__pool_init_fixed(&fb->serving, fb->unit.ctx, sizeof(struct fb_req), c->peer_slots);
    for (uint32_t g = 0; g < c->chiplets && rc == XLAT_OK; g++)
        rc = make_filter(fb, g);
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    pc.name = fb->unit.name;
    pc.entries = c->pec_entries;
    if (rc == XLAT_OK)
        rc = xlat_pec_buffer_create(fb->unit.ctx, &pc, &fb->pec);
    if (rc == XLAT_OK)
        rc = xlat__fb_outbox_init(fb);
    return rc;
}

static void fbarre_free(struct xlat_fbarre *fb)
{
    xlat_ctx *ctx = fb->unit.ctx;
    xlat__reg_remove(ctx, &fb->reg);
    (void)xlat_fbarre_attach_l2(fb, NULL);
    xlat__target_release(ctx, &fb->next, fb->cfg.max_outstanding);
    for (uint32_t g = 0; g < XLAT_FBARRE_MAX_CHIPLETS; g++) {
        xlat__target_release(ctx, &fb->peer[g].path, fb->cfg.max_outstanding);
        (void)xlat_cuckoo_destroy(fb->filter[g]);
    }
    (void)xlat_pec_buffer_destroy(fb->pec);
    xlat__fb_outbox_fini(fb);
    xlat__pool_release(&fb->serving);
    xlat__unit_fini(&fb->unit);
    xlat__free(ctx, fb, sizeof(*fb));
}

int xlat_fbarre_create(xlat_ctx *ctx, const xlat_fbarre_config *cfg, xlat_fbarre **out)
{
    xlat_fbarre_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_fbarre_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_fbarre_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_FBARRE_CONFIG_SIZE_V0,
                               "xlat_fbarre_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_fbarre *fb = xlat__alloc(ctx, sizeof(*fb));
    if (!fb)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_fbarre_create: out of memory");
    /* One event per record (each has one step pending at a time), and the outbox's. */
    struct xlat__unit_spec spec = {
        .kind = "fbarre", .name = c.name ? c.name : "fbarre", .req_size = sizeof(struct fb_req),
        .reqs = c.max_outstanding, .fixed = 1,
        .events = (size_t)c.max_outstanding + c.peer_slots + 1,
        .clock_num = c.clock_num, .clock_den = c.clock_den,
    };
    if ((rc = xlat__unit_init(&fb->unit, ctx, &spec)) != XLAT_OK) {
        xlat__free(ctx, fb, sizeof(*fb));
        return rc;
    }
    fb->cfg = c;
    fb->cfg.name = fb->unit.name;
    xlat__rng_stream(ctx, &fb->rng);
    const struct xlat__reg *outer = xlat__reg_adopt(ctx, &fb->reg); /* its filters and PEC buffer */
    rc = build_parts(fb);
    xlat__reg_restore(ctx, outer);
    if (rc != XLAT_OK) {
        fbarre_free(fb);
        return rc == XLAT_ERR_NOMEM ? xlat__fail(ctx, rc, "xlat_fbarre_create: out of memory") : rc;
    }
    xlat__reg_add(ctx, &fb->reg, &reg_ops, fb, fb->unit.name, fb->unit.id);
    *out = fb;
    return XLAT_OK;
}

int xlat_fbarre_destroy(xlat_fbarre *fb)
{
    if (!fb)
        return XLAT_OK;
    int rc = xlat__reg_unheld(fb->unit.ctx, &fb->reg, "fbarre");
    if (rc == XLAT_OK)
        fbarre_free(fb);
    return rc;
}

/* ---- wiring ------------------------------------------------------------ */

static void l2_gone(void *fbarre, xlat_tlb *t)
{
    struct xlat_fbarre *fb = fbarre;
    if (fb->l2 == t)
        (void)xlat_fbarre_attach_l2(fb, NULL);
}

int xlat_fbarre_attach_l2(xlat_fbarre *fb, xlat_tlb *l2)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_attach_l2: NULL fbarre");
    if (l2 && xlat_tlb_evict_listen(l2, xlat__fb_l2_evicted, fb) != XLAT_OK)
        return xlat__fail(fb->unit.ctx, XLAT_ERR_NOMEM, "fbarre %s: out of memory", fb->unit.name);
    if (l2 && xlat__tlb_watch_gone(l2, l2_gone, fb) != XLAT_OK) {
        (void)xlat_tlb_evict_unlisten(l2, xlat__fb_l2_evicted, fb);
        return xlat__fail(fb->unit.ctx, XLAT_ERR_NOMEM, "fbarre %s: out of memory", fb->unit.name);
    }
    if (fb->l2) {
        (void)xlat_tlb_evict_unlisten(fb->l2, xlat__fb_l2_evicted, fb);
        xlat__tlb_unwatch_gone(fb->l2, l2_gone, fb);
    }
    fb->l2 = l2;
    return XLAT_OK;
}

int xlat_fbarre_set_next(xlat_fbarre *fb, const xlat_target *next)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_set_next: NULL fbarre");
    /* every record may be forwarded at once, to the next level or a peer */
    return xlat__target_hold(fb->unit.ctx, &fb->next, next, fb->cfg.max_outstanding,
                             "xlat_fbarre_set_next");
}

int xlat_fbarre_set_peer(xlat_fbarre *fb, uint32_t peer, const xlat_target *path,
                         xlat_fbarre_msg_fn deliver, void *deliver_user)
{
    if (!fb || peer >= fb->cfg.chiplets || peer == fb->cfg.chiplet)
        return xlat__fail(fb ? fb->unit.ctx : NULL, XLAT_ERR_INVAL, "xlat_fbarre_set_peer: %s",
                          !fb ? "NULL fbarre" : "peer is not another chiplet of the package");
    int rc = xlat__target_hold(fb->unit.ctx, &fb->peer[peer].path, path, fb->cfg.max_outstanding,
                               "xlat_fbarre_set_peer");
    if (rc != XLAT_OK)
        return rc;
    fb->peer[peer].deliver = deliver;
    fb->peer[peer].deliver_user = deliver_user;
    return XLAT_OK;
}

int xlat_fbarre_set_pec_source(xlat_fbarre *fb, xlat_fbarre_pec_source_fn fn, void *user)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_set_pec_source: NULL fbarre");
    fb->pec_source = fn;
    fb->pec_source_user = user;
    return XLAT_OK;
}

int xlat_fbarre_pec_from_buffer(void *pec_buffer, uint32_t pasid, uint64_t vpn, xlat_pec_entry *out)
{
    return xlat_pec_buffer_lookup(pec_buffer, pasid, vpn, out);
}

int xlat_fbarre_get_target(xlat_fbarre *fb, xlat_target *out)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_get_target: NULL fbarre");
    xlat_target mine = {sizeof(mine), xlat__fb_translate, fb, xlat__fb_wait, fb->unit.id};
    return xlat__target_get(fb->unit.ctx, out, &mine, "xlat_fbarre_get_target");
}

int xlat_fbarre_get_peer_target(xlat_fbarre *fb, xlat_target *out)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_get_peer_target: NULL fbarre");
    /* No wait hook: a link polls a refusing peer each cycle. */
    xlat_target mine = {sizeof(mine), xlat__fb_serve, fb, NULL, fb->unit.id};
    return xlat__target_get(fb->unit.ctx, out, &mine, "xlat_fbarre_get_peer_target");
}

/* ---- inspection and statistics ---------------------------------------- */

bool xlat_fbarre_filter_contains(const xlat_fbarre *fb, uint32_t filter, uint32_t pasid,
                                 uint64_t vpn)
{
    return fb && filter < fb->cfg.chiplets &&
           xlat_cuckoo_contains(fb->filter[filter], xlat__fb_key(pasid, vpn));
}

size_t xlat_fbarre_filter_count(const xlat_fbarre *fb, uint32_t filter)
{
    return fb && filter < fb->cfg.chiplets ? xlat_cuckoo_count(fb->filter[filter]) : 0;
}

int xlat_fbarre_pec_lookup(xlat_fbarre *fb, uint32_t pasid, uint64_t vpn, xlat_pec_entry *out)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_pec_lookup: NULL fbarre");
    return xlat_pec_buffer_lookup(fb->pec, pasid, vpn, out);
}

void xlat_fbarre_stats_get(const xlat_fbarre *fb, xlat_fbarre_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, fb ? &fb->st : NULL, sizeof(fb->st));
}

void xlat_fbarre_stats_reset(xlat_fbarre *fb)
{
    if (!fb)
        return;
    memset(&fb->st, 0, sizeof(fb->st));
    xlat__unit_latency_reset(&fb->unit);
}

/* Counters by name (doc/statistics.md): one line per member of xlat_fbarre_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_fbarre_stats, requests),
    XLAT__COUNTER(xlat_fbarre_stats, local_hits),
    XLAT__COUNTER(xlat_fbarre_stats, peer_hits),
    XLAT__COUNTER(xlat_fbarre_stats, ats_requests),
    XLAT__COUNTER(xlat_fbarre_stats, lcf_false_positives),
    XLAT__COUNTER_AT4(xlat_fbarre_stats, rcf_false_positives, 0, 1, 2, 3),
    XLAT__COUNTER_AT4(xlat_fbarre_stats, rcf_false_positives, 4, 5, 6, 7),
    XLAT__COUNTER(xlat_fbarre_stats, nacks_received),
    XLAT__COUNTER(xlat_fbarre_stats, peer_requests),
    XLAT__COUNTER(xlat_fbarre_stats, peer_answers),
    XLAT__COUNTER(xlat_fbarre_stats, nacks_sent),
    XLAT__COUNTER(xlat_fbarre_stats, msgs_sent),
    XLAT__COUNTER(xlat_fbarre_stats, msgs_dropped),
    XLAT__COUNTER(xlat_fbarre_stats, msgs_received),
    XLAT__COUNTER(xlat_fbarre_stats, filter_full),
    XLAT__COUNTER(xlat_fbarre_stats, pec_fills),
    XLAT__COUNTER(xlat_fbarre_stats, shootdowns),
};
_Static_assert(XLAT__ARRAY_LEN(xlat_fbarre_stats, rcf_false_positives) == 8,
               "the counter table spells out 8 RCFs");

static void stats_foreach(const void *fb, const struct xlat__stats_sink *sink)
{
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &((const struct xlat_fbarre *)fb)->st);
}

static void stats_reset(void *fb) { xlat_fbarre_stats_reset(fb); }
static void destroy(void *fb) { (void)xlat_fbarre_destroy(fb); }

static void latency(const void *fb, xlat_latency_hist *out)
{
    *out = ((const struct xlat_fbarre *)fb)->unit.latency;
}

static const struct xlat__reg_ops reg_ops = {"fbarre", stats_foreach, stats_reset, destroy,
                                             latency, NULL};
