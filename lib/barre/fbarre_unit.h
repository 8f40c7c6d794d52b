/*
 * F-Barre's per-chiplet unit ("Barre Chord" §V-A), shared by its files:
 * fbarre.c (lifecycle, wiring, statistics), fbarre_flow.c (the L2's
 * requests: local path, peer path, ATS), fbarre_serve.c (peers' requests),
 * fbarre_filter.c (LCF/RCF upkeep and the message outbox) and
 * fbarre_group.c (the group calculations both sides share).
 *
 * It lives in lib/barre: it uses the TLB, the cuckoo filter and the link
 * (lower layers) and Barre's PEC calculation and buffer (its own folder),
 * and nothing above; lib/system holds topology only.
 */
#ifndef XLAT_BARRE_FBARRE_UNIT_H
#define XLAT_BARRE_FBARRE_UNIT_H

#include "registry.h"
#include "unit.h"
#include "xlat/cuckoo.h"
#include "xlat/fbarre.h"

#define FB_NO_PEER UINT32_MAX
/* Pages of one group: 16 positions of up to 4 merged pages. */
#define FB_GROUP_MAX 64

/* A filter-update message in the outbox: sent, or waiting for its slot. */
struct fb_msg {
    uint64_t due; /* context cycle it reaches the peer */
    uint64_t payload;
    uint32_t dest, pasid;
};

struct fb_outbox {
    struct fb_msg *ring;
    uint32_t cap, head, count;
    uint64_t slot_cycle; /* the latest send cycle handed out, and how many it took */
    uint32_t slot_used;
    int armed;
};

struct fb_peer {
    xlat_target path;
    xlat_fbarre_msg_fn deliver;
    void *deliver_user;
};

/* One request in flight: the L2's own, or a peer's being served. */
struct fb_req {
    struct xlat_fbarre *fb;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    uint32_t peer;  /* the RCF that hit, or FB_NO_PEER */
    xlat_resp resp; /* the answer, once known */
};

struct xlat_fbarre {
    struct xlat__unit unit;      /* records: the L2's requests */
    struct xlat_pool serving;    /* records: peers' requests */
    xlat_fbarre_config cfg;
    xlat_target next;
    struct fb_peer peer[XLAT_FBARRE_MAX_CHIPLETS];
    xlat_cuckoo *filter[XLAT_FBARRE_MAX_CHIPLETS]; /* [chiplet]: the LCF, else RCF */
    xlat_pec_buffer *pec;
    xlat_fbarre_pec_source_fn pec_source;
    void *pec_source_user;
    xlat_tlb *l2;
    struct fb_outbox out;
    xlat_rng rng;
    xlat_fbarre_stats st;
    struct xlat__reg reg;
};

/* fbarre_group.c: the group arithmetic of both sides. */
uint64_t xlat__fb_key(uint32_t pasid, uint64_t vpn);
/* Whether group information (xlat_meta::coal_info) names more than one chiplet. */
bool xlat__fb_in_group(const struct xlat_fbarre *fb, uint16_t coal_info);
/* Looks for p's frame among p's candidates (p itself first when
 * `with_self`) that the LCF holds, one L2 lookup each; `*lookups` counts
 * them. True with `*out` p's translation when one gives it. */
bool xlat__fb_search(struct xlat_fbarre *fb, const xlat_req *req, bool with_self,
                     xlat_tlb_entry *out, unsigned *lookups);
/* The pages of e's group that the RCFs of the peers track (e's own first);
 * returns their number (at least 1). */
unsigned xlat__fb_group_pages(struct xlat_fbarre *fb, const xlat_tlb_entry *e,
                              uint64_t pages[FB_GROUP_MAX]);

/* fbarre_filter.c */
int xlat__fb_outbox_init(struct xlat_fbarre *fb);
void xlat__fb_outbox_fini(struct xlat_fbarre *fb);
void xlat__fb_outbox_drop_all(struct xlat_fbarre *fb);
void xlat__fb_l2_evicted(void *fbarre, xlat_tlb *tlb, const xlat_tlb_entry *victim);
void xlat__fb_note_insert(struct xlat_fbarre *fb, const xlat_tlb_entry *e);

/* fbarre_flow.c and fbarre_serve.c */
/* Checks a request and takes a record for it from `pool` (the L2's or the
 * peers'): *out set and XLAT_OK, or the refusal (XLAT_ERR_AGAIN when the
 * pool is full, `full` saying why). */
int xlat__fb_admit(struct xlat_fbarre *fb, struct xlat_pool *pool, const xlat_req *req,
                   xlat_done_fn done, void *user, const char *full, struct fb_req **out);
int xlat__fb_translate(void *fbarre, const xlat_req *req, xlat_done_fn done, void *user);
int xlat__fb_wait(void *fbarre, xlat_event_fn fn, void *user);
int xlat__fb_serve(void *fbarre, const xlat_req *req, xlat_done_fn done, void *user);

#endif
