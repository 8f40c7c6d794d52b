/*
 * F-Barre's filters (§V-A.2): the LCF follows the L2's exact pages; each
 * change of the L2 sends one filter-update message per page of the
 * entry's group to every peer, whose RCF of this chiplet takes them.
 * Delivery is best effort: no acknowledgement, a random loss, a bounded
 * queue at the sender; the oracle of Fig 19 has none of those.
 */
#include "fbarre_unit.h"

#define MSG_VPN_BITS 40
#define MSG_VPN_MASK ((1ull << MSG_VPN_BITS) - 1)

uint64_t xlat_fbarre_msg_encode(const xlat_fbarre_msg *m)
{
    if (!m)
        return 0;
    return (uint64_t)(m->add ? 1 : 0) << 43 | (uint64_t)(m->sender & 7) << MSG_VPN_BITS |
           (m->vpn & MSG_VPN_MASK);
}

void xlat_fbarre_msg_decode(uint64_t payload, xlat_fbarre_msg *out)
{
    if (!out)
        return;
    out->add = payload >> 43 & 1;
    out->sender = (uint8_t)(payload >> MSG_VPN_BITS & 7);
    out->vpn = payload & MSG_VPN_MASK;
}

/* ---- the outbox: one ring, in the order messages reach their peers ---- */

int xlat__fb_outbox_init(struct xlat_fbarre *fb)
{
    const xlat_fbarre_config *c = &fb->cfg;
    /* Unsent ones, plus those on the wire (a rate's worth per cycle of
     * latency), plus the cycle being sent. */
    uint64_t cap = (uint64_t)c->msg_queue + (uint64_t)c->msgs_per_cycle * (c->msg_latency + 1) + 1;
    if (cap > UINT32_MAX / 2)
        return xlat__fail(fb->unit.ctx, XLAT_ERR_INVAL, "fbarre %s: outbox of %llu messages (msg_queue, plus"
                          " msgs_per_cycle per cycle of msg_latency) is above 2^31",
                          fb->unit.name, (unsigned long long)cap);
    fb->out.ring = xlat__calloc(fb->unit.ctx, cap, sizeof(*fb->out.ring));
    fb->out.cap = (uint32_t)cap;
    return fb->out.ring ? XLAT_OK : XLAT_ERR_NOMEM;
}

void xlat__fb_outbox_fini(struct xlat_fbarre *fb)
{
    if (fb->out.ring)
        xlat__free(fb->unit.ctx, fb->out.ring, fb->out.cap * sizeof(*fb->out.ring));
    fb->out.ring = NULL;
}

void xlat__fb_outbox_drop_all(struct xlat_fbarre *fb)
{
    fb->st.msgs_dropped += fb->out.count;
    fb->out.count = 0; /* the armed event finds nothing due */
}

/* Messages of this chiplet's queue not sent by the end of this cycle. */
static uint64_t unsent(const struct xlat_fbarre *fb, uint64_t now)
{
    const struct fb_outbox *o = &fb->out;
    if (o->count == 0 || o->slot_cycle <= now)
        return 0;
    return (o->slot_cycle - now - 1) * fb->cfg.msgs_per_cycle + o->slot_used;
}

/* The cycle the next message leaves: this one, or the first with room. */
static uint64_t send_slot(struct xlat_fbarre *fb, uint64_t now)
{
    struct fb_outbox *o = &fb->out;
    if (o->count == 0 || o->slot_cycle < now) {
        o->slot_cycle = now;
        o->slot_used = 0;
    } else if (o->slot_used == fb->cfg.msgs_per_cycle) {
        o->slot_cycle++;
        o->slot_used = 0;
    }
    o->slot_used++;
    return o->slot_cycle;
}

static bool lost(struct xlat_fbarre *fb)
{
    if (fb->cfg.drop_prob <= 0)
        return false;
    double u = (double)(xlat__rng_next(&fb->rng) >> 11) * 0x1.0p-53; /* [0, 1) */
    return u < fb->cfg.drop_prob;
}

static void deliver_due(void *arg);

static void arm(struct xlat_fbarre *fb)
{
    struct fb_outbox *o = &fb->out;
    if (o->armed || o->count == 0)
        return;
    o->armed = 1;
    xlat__unit_post_at(&fb->unit, o->ring[o->head].due, deliver_due, fb);
}

static void send_msg(struct xlat_fbarre *fb, uint32_t dest, uint32_t pasid, uint64_t payload)
{
    struct fb_outbox *o = &fb->out;
    uint64_t now = fb->unit.ctx->now;
    bool oracle = fb->cfg.oracle != 0;
    if (!fb->peer[dest].deliver || o->count == o->cap ||
        (!oracle && (unsent(fb, now) >= fb->cfg.msg_queue || lost(fb)))) {
        fb->st.msgs_dropped++;
        return;
    }
    /* Due cycles stay in ring order: the oracle's are now + latency, and
     * send slots only move forward. */
    uint64_t leaves = oracle ? now : send_slot(fb, now);
    struct fb_msg *m = &o->ring[(o->head + o->count++) % o->cap];
    m->due = xlat__unit_due(&fb->unit, fb->cfg.msg_latency) + (leaves - now);
    m->payload = payload;
    m->dest = dest;
    m->pasid = pasid;
    fb->st.msgs_sent++;
    arm(fb);
}

static void deliver_due(void *arg)
{
    struct xlat_fbarre *fb = arg;
    struct fb_outbox *o = &fb->out;
    o->armed = 0;
    while (o->count && o->ring[o->head].due <= fb->unit.ctx->now) {
        struct fb_msg m = o->ring[o->head]; /* off the ring before the port runs */
        o->head = (o->head + 1) % o->cap;
        o->count--;
        fb->peer[m.dest].deliver(fb->peer[m.dest].deliver_user, m.pasid, m.payload);
    }
    arm(fb);
}

/* ---- filter upkeep --------------------------------------------------- */

static void tell_peers(struct xlat_fbarre *fb, const xlat_tlb_entry *e, bool add)
{
    uint64_t pages[FB_GROUP_MAX];
    unsigned n = xlat__fb_group_pages(fb, e, pages);
    xlat_fbarre_msg m = {.add = add, .sender = (uint8_t)fb->cfg.chiplet};
    for (uint32_t x = 0; x < fb->cfg.chiplets; x++) {
        if (x == fb->cfg.chiplet)
            continue;
        for (unsigned i = 0; i < n; i++) {
            m.vpn = pages[i];
            send_msg(fb, x, e->pasid, xlat_fbarre_msg_encode(&m));
        }
    }
}

void xlat__fb_note_insert(struct xlat_fbarre *fb, const xlat_tlb_entry *e)
{
    if (xlat_cuckoo_insert(fb->filter[fb->cfg.chiplet], xlat__fb_key(e->pasid, e->vpn)) != XLAT_OK)
        fb->st.filter_full++;
    tell_peers(fb, e, true);
}

void xlat__fb_l2_evicted(void *fbarre, xlat_tlb *tlb, const xlat_tlb_entry *victim)
{
    struct xlat_fbarre *fb = fbarre;
    (void)tlb;
    (void)xlat_cuckoo_remove(fb->filter[fb->cfg.chiplet], xlat__fb_key(victim->pasid, victim->vpn));
    tell_peers(fb, victim, false);
}

int xlat_fbarre_l2_inserted(xlat_fbarre *fb, const xlat_tlb_entry *e)
{
    if (!fb || !e)
        return xlat__fail(fb ? fb->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_fbarre_l2_inserted: NULL %s", fb ? "entry" : "fbarre");
    xlat__fb_note_insert(fb, e);
    return XLAT_OK;
}

int xlat_fbarre_l2_removed(xlat_fbarre *fb, const xlat_tlb_entry *e)
{
    if (!fb || !e)
        return xlat__fail(fb ? fb->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_fbarre_l2_removed: NULL %s", fb ? "entry" : "fbarre");
    xlat__fb_l2_evicted(fb, fb->l2, e);
    return XLAT_OK;
}

void xlat_fbarre_receive(void *fbarre, uint32_t pasid, uint64_t payload)
{
    struct xlat_fbarre *fb = fbarre;
    xlat_fbarre_msg m;
    xlat_fbarre_msg_decode(payload, &m);
    if (!fb || m.sender >= fb->cfg.chiplets || m.sender == fb->cfg.chiplet)
        return;
    xlat_cuckoo *rcf = fb->filter[m.sender];
    uint64_t key = xlat__fb_key(pasid, m.vpn);
    fb->st.msgs_received++;
    if (m.add && xlat_cuckoo_insert(rcf, key) != XLAT_OK)
        fb->st.filter_full++;
    else if (!m.add)
        (void)xlat_cuckoo_remove(rcf, key); /* a delete whose add was lost finds nothing */
}

int xlat_fbarre_shootdown(xlat_fbarre *fb)
{
    if (!fb)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_shootdown: NULL fbarre");
    for (uint32_t g = 0; g < fb->cfg.chiplets; g++)
        xlat_cuckoo_clear(fb->filter[g]);
    (void)xlat_pec_buffer_clear(fb->pec);
    xlat__fb_outbox_drop_all(fb);
    fb->st.shootdowns++;
    return XLAT_OK;
}
