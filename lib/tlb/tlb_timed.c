/*
 * The TLB as a timed unit: ports, hits in flight, MSHRs and the miss path
 * to the next target, over the TLB array. A request is looked up when it is
 * accepted; the answer (hit) or the forwarded miss leaves `latency` cycles
 * later. Misses on the same (PASID, 4 KiB page) share one MSHR and are
 * answered in the cycle the fill arrives.
 *
 * The unit is allocated by the first call that needs it (set_next,
 * target), never by a lookup, so a TLB used only as a structure (a page
 * walk cache, an IOMMU TLB) carries none of it. Its latency and its ports
 * count cycles of its own clock (clock_num/clock_den; doc/clocks.md). It hears of invalidations
 * as an observer of the array.
 *
 * Every hit of a TLB waits the same latency, so hits complete in the order
 * they were accepted: they wait in a ring of `hit_limit` slots (the bound
 * on hits in flight), and the hits accepted for the same cycle (a batch)
 * share one timing-wheel event instead of one each. A batch closes when
 * the TLB schedules anything else for its cycle, so the TLB's own events
 * keep the order they had with one event per hit.
 *
 * The unit is built on the core skeleton (struct xlat__unit): its events
 * carry its id and come out of a budget reserved when the unit is
 * allocated, so nothing it does inside tick can fail for want of memory
 * (see event_budget()).
 */
#include "tlb_internal.h"
#include "unit.h"
#include "unit_target.h"

_Static_assert(XLAT_ACCESS_ATOMIC == 3, "hit_resp() masks an access with 3");

#define MSHR_PAGE_SHIFT 12 /* misses are merged per smallest page */
#define INVAL_RING 16      /* invalidations a fill can check against */

/* A hit in flight: its request and the entry it hit, as it was then. */
struct tlb_hit {
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    uint64_t inval_seq; /* invalidations seen at acceptance */
    uint64_t batch;     /* the event that answers it */
    struct tlb_way way;
};

/* A request waiting on an MSHR (a miss, or a hit whose entry was removed
 * before its answer). */
struct tlb_pending {
    struct tlb_pending *next; /* waiter list of an MSHR */
    xlat_tlb *tlb;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    bool stale; /* a hit out of the ring: it keeps its hit slot until answered */
};

struct tlb_mshr {
    xlat_tlb *tlb;
    struct tlb_timed *timed; /* tlb->timed, here so that a fill asks for both at once */
    uint32_t index;     /* its place: key[index] is its key */
    uint32_t held;      /* requests waiting on it, at most mshr_targets */
    uint64_t inval_seq; /* invalidations seen when it was allocated */
    xlat_req fwd;
    struct tlb_pending *head, *tail;
    /* While the next level refuses its forward, the MSHR waits in a queue
     * (blocked_next); once the forward is taken, it keeps its first
     * waiter's sender (head->user), which a fill asks for before its
     * insert: the MSHR stays 88 bytes. */
    union {
        struct tlb_mshr *blocked_next;
        void *first_user;
    };
};
_Static_assert(sizeof(struct tlb_mshr) == 88, "an MSHR is 88 bytes");

/* What a miss compares with each MSHR is kept apart from the rest of the
 * MSHR, in 16 bytes an MSHR after them (MSHR_KEY_BYTES): first every
 * MSHR's page, then every PASID, then a tag byte each (a hash of both, 0
 * while the MSHR is free; the bytes after the last tag stay 0). A scan of
 * the MSHRs (a refusal's whole work when they are all busy) compares the
 * tags 16 at once and reads a key only where its tag matches. Which MSHRs
 * are busy is kept elsewhere too: free_bits, or the index's free list. */
#define MSHR_KEY_BYTES 16
_Static_assert(MSHR_KEY_BYTES - sizeof(uint64_t) - sizeof(uint32_t) == 4,
               "4 bytes of tag and padding an MSHR: a block of 16 tags from 4 MSHRs on");

/* Laid out by use, in cache lines (allocated 64-byte aligned): line 0
 * holds what every request and fill reads (ports, MSHRs, the open batch),
 * line 1 the miss path's next level and the queue of refused forwards,
 * line 2 the skeleton's start (its context, clock and owner place: what
 * every post reads), then the rest of the skeleton (records, waiting
 * senders, latency histogram), the hit ring, and last the invalidations a
 * fill checks only when one came while it was outstanding. A miss of a
 * TLB the host's caches do not hold (one L1 of thousands) reads a few
 * lines, not one per field. */
struct tlb_timed {
    xlat_tlb *tlb;
    struct tlb_mshr *mshr;
    uint64_t *key_page;       /* the keys, in the same allocation as mshr, after it */
    uint32_t busy;
    uint32_t mshr_targets;    /* requests one MSHR holds at most */
    uint64_t port_cycle;
    uint32_t port_used;
    uint32_t hit_tail;        /* the ring's next free slot (in port_used's padding) */
    uint64_t batch_cycle;     /* the latest batch's cycle while it takes more hits, else XLAT_NEVER */
    union {
        uint32_t free_top;    /* indexed MSHRs: 1 + the free list's first, 0 none */
        uint32_t free_bits;   /* scanned MSHRs: bit i set while MSHR i is free */
    };
    bool hit_refused;         /* a hit was refused for want of a slot: wake on an answer */
    xlat_target next;
    uint64_t inval_seq;
    /* Forwards the next level refused, oldest first: they wait behind one
     * wake-up of this TLB's at the next level rather than one each, so a
     * next level with many senders (an L2 under every CU's L1) remembers
     * one per sender TLB, and wakes them in order. */
    struct tlb_mshr *blocked_head, *blocked_tail;
    bool blocked_waiting;     /* a wake-up (or next-cycle retry) of the queue is pending */
    struct xlat__unit unit;   /* records: misses and stale hits; waiting senders */
    struct tlb_hit *hit;      /* ring of hit_limit slots, oldest at hit_head */
    uint32_t hit_head, hits, hit_limit;
    uint32_t stale;           /* stale hits out of the ring, not answered yet */
    uint64_t batch;           /* the latest batch of hits */
    /* The latest invalidations, so that a fill can tell whether one that
     * came while it was outstanding covers it. */
    struct tlb_shootdown recent[INVAL_RING];
};

_Static_assert(offsetof(struct tlb_timed, inval_seq) / 64 == 1,
               "fetch_fill_lines() fetches the invalidation count with line 1");

/* Most senders one TLB remembers, however many ports it has. */
#define XLAT_TLB_MAX_WAITERS 4096

static void drain_hits(void *arg);
static void wake_senders(xlat_tlb *t);
static void retry_stale(void *arg);
static void forward_miss(void *arg);
static const char *join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay);

/* ---- the MSHR index -------------------------------------------------- */

/* From this many MSHRs on, a miss finds the MSHR of its page through a
 * hash index instead of a scan of every MSHR's key: an L2 TLB under many
 * CUs has hundreds of MSHRs, and the scan was about a fifth of a whole
 * system's host time. Below it, a scan of a few 16-byte keys costs less
 * than the hash. The index lives after the keys, in the MSHRs' allocation:
 * per MSHR a link (its bucket's chain while busy, the free list while
 * free), then the buckets' heads; a link or head is 1 + an MSHR's place,
 * 0 for none. Which free MSHR a miss takes is not observable. */
#define MSHR_INDEX_MIN 32

static inline bool mshr_indexed(uint32_t n) { return n >= MSHR_INDEX_MIN; }

/* A power of two, at least one bucket per MSHR. */
static inline uint64_t index_buckets(uint32_t n)
{
    return (uint64_t)1 << (64 - __builtin_clzll((uint64_t)n - 1));
}

/* The MSHRs, their keys and, when indexed, the index. */
static size_t mshr_bytes(uint32_t n)
{
    size_t bytes = (size_t)n * (sizeof(struct tlb_mshr) + MSHR_KEY_BYTES);
    if (mshr_indexed(n))
        bytes += ((size_t)n + index_buckets(n)) * sizeof(uint32_t);
    return bytes;
}

/* The PASIDs and the tags of the MSHRs' keys (the pages are key_page). */
static inline uint32_t *key_pasid(const struct tlb_timed *tm, uint32_t n)
{
    return (uint32_t *)(tm->key_page + n);
}

static inline uint8_t *key_tag(const struct tlb_timed *tm, uint32_t n)
{
    return (uint8_t *)(key_pasid(tm, n) + n);
}

/* The tag of a miss on (pasid, page): never 0, the mark of a free MSHR. */
static inline uint8_t key_tag_of(uint32_t pasid, uint64_t page)
{
    return xlat__tlb_tag(page ^ (uint64_t)pasid << 40);
}

static inline uint32_t *index_next(const struct tlb_timed *tm, uint32_t n)
{
    return (uint32_t *)((char *)tm->key_page + (size_t)n * MSHR_KEY_BYTES);
}

static inline uint32_t *index_head(const struct tlb_timed *tm, uint32_t n)
{
    return index_next(tm, n) + n;
}

static inline uint64_t bucket_of(uint32_t n, uint32_t pasid, uint64_t page)
{
    uint64_t h = (page ^ (uint64_t)pasid << 40) * 0x9E3779B97F4A7C15ull;
    return (h >> 32) & (index_buckets(n) - 1);
}

/* Every MSHR free, in order; every bucket empty (the allocation is zeroed). */
static void index_init(struct tlb_timed *tm, uint32_t n)
{
    uint32_t *next = index_next(tm, n);
    for (uint32_t i = 0; i + 1 < n; i++)
        next[i] = i + 2;
    next[n - 1] = 0;
    tm->free_top = 1;
}

/* MSHR `i`, the free list's first (find_indexed()'s *free_one), now busy
 * with its key set: off the free list, into its bucket. */
static __attribute__((noinline)) void index_take(struct tlb_timed *tm, uint32_t n, uint32_t i)
{
    uint32_t *next = index_next(tm, n);
    uint32_t *head = &index_head(tm, n)[bucket_of(n, key_pasid(tm, n)[i], tm->key_page[i])];
    tm->free_top = next[i];
    next[i] = *head;
    *head = i + 1;
}

/* Busy MSHR `i`, being freed: out of its bucket, onto the free list. Its
 * key (pasid, page) comes from the caller, which has it at hand in the
 * MSHR's forward: the key arrays' lines are cold by the time a fill
 * comes back in a system of many GPUs. */
static __attribute__((noinline)) void index_drop(struct tlb_timed *tm, uint32_t n, uint32_t i,
                                                 uint32_t pasid, uint64_t page)
{
    uint32_t *next = index_next(tm, n);
    uint32_t *link = &index_head(tm, n)[bucket_of(n, pasid, page)];
    while (*link != i + 1)
        link = &next[*link - 1];
    *link = next[i];
    next[i] = tm->free_top;
    tm->free_top = i + 1;
}

/* ---- the unit's life ------------------------------------------------- */

/* Hits in flight at most: the configured number, or every port over the
 * latency, up to XLAT_TLB_HITS_PER_PORT per port. */
static uint32_t hit_limit(const xlat_tlb_config *c)
{
    if (c->hits_in_flight)
        return c->hits_in_flight;
    uint64_t per_port = (uint64_t)c->latency + 1;
    if (per_port > XLAT_TLB_HITS_PER_PORT)
        per_port = XLAT_TLB_HITS_PER_PORT;
    uint64_t n = per_port * c->ports;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Senders the TLB remembers for its wake-up: 64 a port. A TLB with more
 * ports is shared by more senders (an L2 under every CU's L1, one wake-up
 * each: see forward_miss), and a sender it cannot remember polls every
 * cycle. */
static size_t waiter_count(const xlat_tlb_config *c)
{
    uint64_t n = (uint64_t)XLAT_WAITQ_CAPACITY * c->ports;
    return n > XLAT_TLB_MAX_WAITERS ? XLAT_TLB_MAX_WAITERS : (size_t)n;
}

static void invalidated(void *user, const struct tlb_shootdown *sd)
{
    struct tlb_timed *tm = user;
    tm->inval_seq++;
    tm->recent[tm->inval_seq % INVAL_RING] = *sd;
}

/* The most events the unit can have pending at once:
 * - one per batch of hits in the ring: a batch's event is posted with its
 *   first hit and fires before any hit of the batch leaves the ring, so
 *   every pending one has at least one hit of its own in the ring;
 * - one per stale hit waiting for an MSHR (its retry next cycle), and a
 *   stale hit is out of the ring: with the hits in the ring, at most
 *   hit_limit (see stale_hit());
 * - one per MSHR: its forward, then its retry or, through the next level's
 *   wait hook, the next level's wake-up, which this budget covers (the
 *   contract: a sender's budget covers the wake-ups it waits for).
 * Wake-ups this unit posts for the senders waiting on it, and the retry it
 * posts for a sender refused for its ports, are theirs to count. */
static size_t event_budget(const struct tlb_timed *tm, const xlat_tlb_config *c)
{
    return (size_t)tm->hit_limit + c->mshrs;
}

/* Requests one MSHR can hold (the configured number, or the default). */
static uint32_t mshr_targets(const xlat_tlb_config *c)
{
    return c->mshr_targets ? c->mshr_targets : XLAT_TLB_MSHR_TARGETS;
}

/* Request records the unit can need at once, so that its pool is fixed:
 * every stale hit holds a hit slot (hit_limit of them, the hits in the
 * ring included), and every miss sits in an MSHR that holds at most
 * mshr_targets requests (stale hits that joined it included). A miss that
 * cannot get into an MSHR is refused in translate, so taking a record
 * inside tick never fails and translate never allocates. */
static size_t record_count(const struct tlb_timed *tm, const xlat_tlb_config *c)
{
    return (size_t)tm->hit_limit + (size_t)c->mshrs * tm->mshr_targets;
}

/* Allocates everything of `tm`; on failure the caller releases it. */
static int timed_init(xlat_tlb *t, struct tlb_timed *tm)
{
    tm->tlb = t;
    tm->port_cycle = XLAT_NEVER;
    tm->batch_cycle = XLAT_NEVER;
    tm->hit_limit = hit_limit(&t->cfg);
    tm->mshr_targets = mshr_targets(&t->cfg);
    tm->hit = xlat__calloc(t->ctx, tm->hit_limit, sizeof(*tm->hit));
    tm->mshr = xlat__alloc(t->ctx, mshr_bytes(t->cfg.mshrs));
    if (!tm->hit || !tm->mshr)
        return XLAT_ERR_NOMEM;
    tm->key_page = (uint64_t *)(tm->mshr + t->cfg.mshrs);
    if (mshr_indexed(t->cfg.mshrs))
        index_init(tm, t->cfg.mshrs);
    else
        tm->free_bits = (uint32_t)(((uint64_t)1 << t->cfg.mshrs) - 1);
    for (uint32_t i = 0; i < t->cfg.mshrs; i++) {
        tm->mshr[i].tlb = t;
        tm->mshr[i].timed = tm;
        tm->mshr[i].index = i;
    }
    struct xlat__unit_spec spec = {
        .kind = "tlb", .name = t->name, .req_size = sizeof(struct tlb_pending),
        .reqs = record_count(tm, &t->cfg), .fixed = 1, .events = event_budget(tm, &t->cfg),
        .clock_num = t->cfg.clock_num, .clock_den = t->cfg.clock_den,
        .waiters = waiter_count(&t->cfg),
    };
    if (xlat__unit_init(&tm->unit, t->ctx, &spec) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    return xlat__tlb_observe(t, invalidated, tm);
}

int xlat__tlb_timed_ensure(xlat_tlb *t)
{
    if (t->timed)
        return XLAT_OK;
    t->timed = xlat__alloc(t->ctx, sizeof(*t->timed));
    if (t->timed && timed_init(t, t->timed) == XLAT_OK)
        return XLAT_OK;
    xlat__tlb_timed_release(t);
    return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for the timed unit",
                      t->name);
}

void xlat__tlb_timed_release(xlat_tlb *t)
{
    struct tlb_timed *tm = t->timed;
    if (!tm)
        return;
    xlat__tlb_unobserve(t, invalidated, tm);
    xlat__target_release(t->ctx, &tm->next, t->cfg.mshrs);
    if (tm->unit.name) /* initialised (a failed init released itself) */
        xlat__unit_fini(&tm->unit); /* cancels its pending events */
    xlat__free(t->ctx, tm->mshr, mshr_bytes(t->cfg.mshrs));
    xlat__free(t->ctx, tm->hit, tm->hit_limit * sizeof(*tm->hit));
    xlat__free(t->ctx, tm, sizeof(*tm));
    t->timed = NULL;
}

size_t xlat__tlb_timed_bytes(const xlat_tlb *t)
{
    const struct tlb_timed *tm = t->timed;
    if (!tm)
        return 0;
    return sizeof(*tm) + mshr_bytes(t->cfg.mshrs) +
           (size_t)tm->hit_limit * sizeof(*tm->hit) + xlat__unit_bytes(&tm->unit) +
           strlen(tm->unit.name) + 1;
}

int xlat_tlb_set_next(xlat_tlb *t, const xlat_target *next)
{
    if (!t)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_tlb_set_next: NULL tlb");
    /* Checked before the timed unit is built: a refused target changes nothing. */
    int rc = xlat__target_check(t->ctx, next, "xlat_tlb_set_next");
    if (rc == XLAT_OK)
        rc = xlat__tlb_timed_ensure(t);
    if (rc != XLAT_OK)
        return rc;
    /* each MSHR forwards one miss at a time */
    return xlat__target_hold(t->ctx, &t->timed->next, next, t->cfg.mshrs, "xlat_tlb_set_next");
}

void xlat__tlb_latency(const xlat_tlb *t, xlat_latency_hist *out)
{
    if (t->timed)
        *out = t->timed->unit.latency;
    else /* a TLB used as a structure answers no requests */
        memset(out, 0, sizeof(*out));
}

void xlat__tlb_latency_reset(xlat_tlb *t)
{
    if (t->timed)
        xlat__unit_latency_reset(&t->timed->unit);
}

uint32_t xlat_tlb_mshrs_busy(const xlat_tlb *t) { return t && t->timed ? t->timed->busy : 0; }

/* ---- answers --------------------------------------------------------- */

/* The answer to `req`, accepted at `issued`, from translation `e` (or a
 * failure `status`). */
static void make_resp(xlat_resp *r, const xlat_req *req, uint64_t issued,
                      const xlat_tlb_entry *e, int status, uint32_t resolver)
{
    xlat__resp_init(r, req, status, resolver);
    r->issued = issued;
    if (status == XLAT_OK)
        xlat__resp_translate(r, e, req->vaddr, req->access);
}

/* The answer to hit `h`, from the way as it was when the hit was accepted:
 * the one answer every hit makes, so each field is set once, from the way
 * itself, without zeroing the answer or going through an entry first. */
static void hit_resp(xlat_resp *r, const struct tlb_hit *h, uint32_t resolver)
{
    const struct tlb_way *w = &h->way;
    r->id = h->req.id;
    r->vaddr = h->req.vaddr;
    r->pasid = h->req.pasid;
    /* The access was checked at acceptance (at most XLAT_ACCESS_ATOMIC, 3):
     * the mask tells the compiler, which then looks its permission up
     * without a bound check. */
    xlat__resp_frame(r, w->pfn, w->page_shift, w->perm, h->req.vaddr,
                     (xlat_access)(h->req.access & 3));
    r->meta = xlat__tlb_way_meta(w);
    r->issued = h->issued;
    r->completed = 0; /* send_answer's */
    r->resolver = resolver;
}

/* Counts and sends answer `r` (its record already released, so the
 * callback may send new requests). */
static void send_answer(xlat_tlb *t, xlat_done_fn done, void *user, xlat_resp *r)
{
    r->completed = t->ctx->now;
    if (r->status != XLAT_OK)
        t->stats.faults++;
    xlat__unit_answered(&t->timed->unit, r->completed - r->issued); /* issued: this TLB's */
    done(user, r);
}

/* A hit in flight was answered: a sender refused for want of a hit slot
 * may try again. */
static void hit_slot_freed(xlat_tlb *t)
{
    if (t->timed->hit_refused) {
        t->timed->hit_refused = false;
        wake_senders(t);
    }
}

/* Answers waiter `p` from `e` (or with `status`), recycling the record first. */
static void answer_pending(xlat_tlb *t, struct tlb_pending *p, const xlat_tlb_entry *e,
                           int status, uint32_t resolver)
{
    xlat_resp r;
    make_resp(&r, &p->req, p->issued, e, status, resolver);
    xlat_done_fn done = p->done;
    void *user = p->user;
    bool was_hit = p->stale;
    xlat__unit_req_put(&t->timed->unit, p);
    if (was_hit) {
        t->timed->stale--;
        hit_slot_freed(t);
    }
    send_answer(t, done, user, &r);
}

/* Posts one of the TLB's own events (within its budget: cannot fail). One
 * at the cycle of the open batch closes it: hits accepted after it get an
 * event after it. */
static void own_post(xlat_tlb *t, uint64_t delay, xlat_event_fn fn, void *arg)
{
    uint64_t due = xlat__unit_due(&t->timed->unit, delay);
    if (due == t->timed->batch_cycle)
        t->timed->batch_cycle = XLAT_NEVER;
    xlat__unit_post_at(&t->timed->unit, due, fn, arg);
}

/* Room freed: the senders waiting retry, after the batch open now. */
static void wake_senders(xlat_tlb *t)
{
    if (t->timed->batch_cycle == t->ctx->now)
        t->timed->batch_cycle = XLAT_NEVER;
    xlat__unit_wake(&t->timed->unit);
}

/* ---- hits ------------------------------------------------------------ */

/* The entry the TLB holds now for `req`, if any. */
static bool entry_now(xlat_tlb *t, const xlat_req *req, xlat_tlb_entry *e)
{
    struct tlb_way *w = xlat__tlb_find(t, req->pasid, req->vaddr, 0);
    if (w)
        xlat__tlb_way_to_entry(w, e);
    return w != NULL;
}

/* A stale hit the TLB no longer holds goes on as a miss; with every MSHR
 * busy it looks again next cycle. */
static void wait_for_mshr(xlat_tlb *t, struct tlb_pending *p)
{
    if (join_miss(t, p, 0))
        own_post(t, 1, retry_stale, p);
}

static void retry_stale(void *arg)
{
    struct tlb_pending *p = arg;
    xlat_tlb_entry e;
    if (entry_now(p->tlb, &p->req, &e))
        answer_pending(p->tlb, p, &e, XLAT_OK, p->tlb->reg.id);
    else
        wait_for_mshr(p->tlb, p);
}

/* Takes the oldest hit out of the ring. Its hit slot is freed by the
 * caller once it is answered (a stale hit sent on keeps it). */
static void pop_hit(struct tlb_timed *tm)
{
    if (++tm->hit_head == tm->hit_limit)
        tm->hit_head = 0;
    tm->hits--;
}

/* Hit `h` (a copy of the oldest in the ring) was accepted before an
 * invalidation: it is answered from what the TLB holds now, or sent on as
 * a miss, never answered with a removed entry. Until it is answered it
 * still counts as a hit in flight, which bounds the stale hits (and their
 * records and retries) by hit_limit: the record is there (record_count()). */
static void stale_hit(xlat_tlb *t, const struct tlb_hit *h)
{
    xlat_tlb_entry e;
    if (entry_now(t, &h->req, &e)) {
        xlat_resp r;
        pop_hit(t->timed);
        hit_slot_freed(t);
        make_resp(&r, &h->req, h->issued, &e, XLAT_OK, t->reg.id);
        send_answer(t, h->done, h->user, &r);
        return;
    }
    struct tlb_pending *p = xlat__unit_req_get(&t->timed->unit);
    pop_hit(t->timed);
    t->timed->stale++;
    p->stale = true;
    p->tlb = t;
    p->req = h->req;
    p->done = h->done;
    p->user = h->user;
    p->issued = h->issued;
    wait_for_mshr(t, p);
}

/* Answers the oldest hit, accepted since the latest invalidation, at
 * `now`; its slot is free before the callback runs. send_answer()'s work,
 * inline: this is every hit's answer. The hits of a batch were accepted in
 * the same cycle (but for a scaled clock), so *bucket, the latency bucket
 * of the hits accepted at *seen, is computed once a batch. */
static inline void answer_oldest_hit(xlat_tlb *t, struct tlb_timed *tm, uint64_t now,
                                     uint64_t *seen, uint32_t *bucket)
{
    const struct tlb_hit *h = &tm->hit[tm->hit_head];
    xlat_resp r;
    hit_resp(&r, h, t->reg.id);
    r.completed = now;
    xlat_done_fn done = h->done;
    void *user = h->user;
    pop_hit(tm);
    if (tm->hit_refused) /* hit_slot_freed(), from the `tm` at hand */
        hit_slot_freed(t);
    if (r.status != XLAT_OK)
        t->stats.faults++;
    if (r.issued != *seen) {
        *seen = r.issued;
        *bucket = xlat__latency_bucket(now - r.issued);
    }
    tm->unit.latency.bucket[*bucket]++; /* xlat__unit_answered() */
    done(user, &r);
}

/* The event of one batch: answers its hits, oldest first. Hits accepted
 * from now on (by the callbacks, at latency 0) form a new batch with an
 * event of its own, after every event already due this cycle. Time does
 * not move while it runs (no advance inside an event). */
static void drain_hits(void *arg)
{
    struct tlb_timed *tm = arg;
    xlat_tlb *t = tm->tlb;
    uint64_t now = t->ctx->now, seen = XLAT_NEVER;
    uint32_t bucket = 0;
    uint64_t batch = tm->hit[tm->hit_head].batch;
    if (tm->batch_cycle == now)
        tm->batch_cycle = XLAT_NEVER;
    while (tm->hits) {
        const struct tlb_hit *h = &tm->hit[tm->hit_head];
        if (h->batch != batch)
            break;
        if (__builtin_expect(h->inval_seq != tm->inval_seq, 0)) {
            struct tlb_hit stale = *h;
            stale_hit(t, &stale);
        } else {
            answer_oldest_hit(t, tm, now, &seen, &bucket);
        }
    }
}

/* Opens a batch for the hit just queued, due at `due`: its event. Out of
 * line, so that the hit path keeps nothing live across a call. */
static __attribute__((noinline)) void open_batch(struct tlb_timed *tm, uint64_t due)
{
    tm->batch++;
    tm->batch_cycle = due;
    xlat__unit_post_at(&tm->unit, due, drain_hits, tm);
}

/* Puts a hit of `req` on way `w` at the end of the ring, in the open batch
 * of its cycle or in a new one with its own event. */
static inline void queue_hit(xlat_tlb *t, const struct tlb_way *w, const xlat_req *req,
                             xlat_done_fn done, void *user)
{
    struct tlb_timed *tm = t->timed;
    uint64_t now = t->ctx->now;
    uint64_t due = xlat__unit_due(&tm->unit, t->cfg.latency);
    bool opens = due != tm->batch_cycle;
    struct tlb_hit *h = &tm->hit[tm->hit_tail];
    tm->hit_tail = tm->hit_tail + 1 == tm->hit_limit ? 0 : tm->hit_tail + 1;
    h->req = *req;
    h->done = done;
    h->user = user;
    h->issued = now;
    h->inval_seq = tm->inval_seq;
    h->batch = tm->batch + opens;
    h->way = *w;
    tm->hits++;
    if (opens)
        open_batch(tm, due);
}

static int refuse(xlat_tlb *t, const char *why)
{
    t->stats.refusals++;
    return xlat__busy(t->ctx, "tlb", t->name, why); /* as xlat__unit_busy, one call less */
}

/* The hit path: nothing after the batch's event is posted, so that it
 * keeps nothing live across a call. */
static inline int accept_hit(xlat_tlb *t, struct tlb_way *w, const xlat_req *req,
                             xlat_done_fn done, void *user)
{
    struct tlb_timed *tm = t->timed;
    if (tm->hits + tm->stale == tm->hit_limit) {
        tm->hit_refused = true;
        return refuse(t, "every hit slot is in flight");
    }
    xlat__tlb_touch(t, w); /* only once the hit is accepted */
    t->stats.hits++;
    t->stats.accesses++;
    tm->port_used++;
    queue_hit(t, w, req, done, user);
    return XLAT_OK;
}

/* ---- misses ---------------------------------------------------------- */

/* Frees the MSHR, then answers every waiter from `e` or with `status`. */
static void complete_mshr(struct tlb_mshr *m, const xlat_tlb_entry *e, int status,
                          uint32_t resolver)
{
    xlat_tlb *t = m->tlb;
    /* A busy MSHR always has a waiter: open_mshr() puts the first. Its
     * sender was asked for as the fill began (fetch_fill_lines()). */
    struct tlb_pending *p = m->head;
    m->head = m->tail = NULL;
    if (mshr_indexed(t->cfg.mshrs))
        index_drop(t->timed, t->cfg.mshrs, m->index, m->fwd.pasid,
                   m->fwd.vaddr >> MSHR_PAGE_SHIFT);
    else
        t->timed->free_bits |= 1u << m->index;
    key_tag(t->timed, t->cfg.mshrs)[m->index] = 0;
    m->held = 0;
    t->timed->busy--;
    wake_senders(t); /* an MSHR is free again */
    while (p) {
        struct tlb_pending *next = p->next;
        answer_pending(t, p, e, status, resolver);
        p = next;
    }
}

/* invalidated_since() once some invalidation has come since `since`: the
 * ring's scan. Out of line, as it is rare while a miss is outstanding. */
static __attribute__((noinline)) bool invalidated_in_ring(const struct tlb_timed *tm,
                                                          uint64_t since, uint32_t pasid,
                                                          uint64_t vaddr, uint8_t page_shift)
{
    if (tm->inval_seq - since > INVAL_RING)
        return true;
    uint8_t shift = page_shift ? page_shift : 30;
    for (uint64_t seq = since + 1; seq <= tm->inval_seq; seq++) {
        const struct tlb_shootdown *sd = &tm->recent[seq % INVAL_RING];
        if (sd->all || (sd->pasid == pasid &&
                        (sd->whole_space || sd->vaddr >> shift == vaddr >> shift)))
            return true;
    }
    return false;
}

/* Does an invalidation since the MSHR was allocated cover (pasid, vaddr)?
 * `page_shift` 0: the page size is unknown, so any address of the same
 * 1 GiB region counts. Too many invalidations since: assume it does.
 * None since, nearly always: answered inline, one compare (every fill and
 * every merge into an MSHR asks; a call for it cost about ten
 * instructions more). */
static inline bool invalidated_since(const struct tlb_timed *tm, uint64_t since, uint32_t pasid,
                                     uint64_t vaddr, uint8_t page_shift)
{
    return tm->inval_seq != since && invalidated_in_ring(tm, since, pasid, vaddr, page_shift);
}

/* What a fill reads besides MSHR `m`. In a system of many GPUs the MSHR,
 * its TLB, its timed unit and its first waiter have all left the host's
 * caches by the time the answer comes, and the fill reached the timed
 * unit through the TLB and the waiter only after the insert: the host
 * waited for them one after the other. Asked for together as soon as the
 * MSHR is read, they are one wait. Inlined always: gcc 12 -O2 dropped the
 * prefetches of a call to a function that does nothing else. */
static inline __attribute__((always_inline)) void fetch_fill_lines(const struct tlb_mshr *m)
{
    __builtin_prefetch(m->tlb);                      /* line 0: the sets, for the insert */
    __builtin_prefetch(m->timed);                    /* line 0: the MSHRs' state */
    __builtin_prefetch((const char *)m->timed + 64); /* line 1: the invalidation count */
    __builtin_prefetch(m->head);                     /* the first waiter, answered next */
    __builtin_prefetch(m->first_user);               /* its sender: a lower TLB's MSHR */
    __builtin_prefetch((const char *)m->first_user + 64); /* its next line (88 bytes) */
}

static void fill_done(void *arg, const xlat_resp *down)
{
    struct tlb_mshr *m = arg;
    fetch_fill_lines(m);
    xlat_tlb_entry e = {
        .pasid = m->fwd.pasid, .vpn = m->fwd.vaddr >> down->page_shift, .pfn = down->pfn,
        .page_shift = down->page_shift, .perm = down->perm, .meta = down->meta,
    };
    /* A permission fault still carries a valid translation: fill it and let
     * each waiter's own access decide. */
    int status = down->status == XLAT_ERR_PERM ? XLAT_OK : down->status;
    bool stale = invalidated_since(m->timed, m->inval_seq, m->fwd.pasid, m->fwd.vaddr,
                                   down->page_shift);
    if (status == XLAT_OK && !stale && xlat_tlb_insert(m->tlb, &e, NULL) < 0)
        status = XLAT_ERR_INVAL; /* the next level answered an impossible page size */
    complete_mshr(m, &e, status, status == XLAT_ERR_INVAL ? m->tlb->reg.id : down->resolver);
}

/* Sends m's miss down: XLAT_OK (taken, or answered for good: a missing or
 * refusing next level answers its requests, never loses them) or
 * XLAT_ERR_AGAIN (the next level is busy; nothing happened). */
static int send_down(struct tlb_mshr *m)
{
    xlat_tlb *t = m->tlb;
    if (!t->timed->next.translate) {
        complete_mshr(m, NULL, XLAT_ERR_NOT_FOUND, t->reg.id);
        return XLAT_OK;
    }
    const xlat_target *next = &t->timed->next;
    int rc = next->translate(next->unit, &m->fwd, fill_done, m);
    if (rc != XLAT_OK && rc != XLAT_ERR_AGAIN)
        complete_mshr(m, NULL, rc, t->reg.id); /* refused for good: answered, never lost */
    return rc == XLAT_ERR_AGAIN ? rc : XLAT_OK;
}

static void drain_blocked(void *arg);

/* The queue waits for the next level's wake-up, or retries next cycle. */
static void wait_blocked(xlat_tlb *t)
{
    struct tlb_timed *tm = t->timed;
    const xlat_target *next = &tm->next;
    tm->blocked_waiting = true;
    if (!next->wait || next->wait(next->unit, drain_blocked, t) != XLAT_OK)
        own_post(t, 1, drain_blocked, t);
}

/* The next level may take more: the refused forwards go, oldest first,
 * until it refuses again. */
static void drain_blocked(void *arg)
{
    xlat_tlb *t = arg;
    struct tlb_timed *tm = t->timed;
    tm->blocked_waiting = false;
    while (tm->blocked_head) {
        struct tlb_mshr *m = tm->blocked_head, *after = m->blocked_next;
        /* Before the send: its answers' callbacks may take the MSHR again,
         * and open_mshr() then sets first_user for the new miss. */
        m->first_user = m->head->user;
        if (send_down(m) == XLAT_ERR_AGAIN) {
            m->blocked_next = after; /* still queued */
            wait_blocked(t);
            return;
        }
        tm->blocked_head = after;
        if (!tm->blocked_head)
            tm->blocked_tail = NULL;
    }
}

/* A miss goes down now, unless older refused ones are waiting: then it
 * queues behind them, so the next level sees the misses in order. */
static void forward_miss(void *arg)
{
    struct tlb_mshr *m = arg;
    xlat_tlb *t = m->tlb;
    struct tlb_timed *tm = t->timed;
    if (!tm->blocked_head && send_down(m) == XLAT_OK)
        return;
    m->blocked_next = NULL;
    if (tm->blocked_tail)
        tm->blocked_tail->blocked_next = m;
    else
        tm->blocked_head = m;
    tm->blocked_tail = m;
    if (!tm->blocked_waiting)
        wait_blocked(t);
}

/* Does busy MSHR `i` take a new miss on (pasid, page)? A miss
 * outstanding across an invalidation is not joined, so that nothing
 * accepted after the invalidation is answered from a walk that began
 * before it. */
static bool mshr_takes(const struct tlb_timed *tm, uint32_t n, uint32_t i, uint32_t pasid,
                       uint64_t page)
{
    return tm->key_page[i] == page && key_pasid(tm, n)[i] == pasid &&
           !invalidated_since(tm, tm->mshr[i].inval_seq, pasid, page << MSHR_PAGE_SHIFT, 0);
}

/* The MSHR a new miss on (pasid, page) joins, through the index (see
 * mshr_indexed()); at most one busy MSHR of a page takes misses, since a
 * new one opens only when none does. *free_one: the free list's first. */
static struct tlb_mshr *find_indexed(struct tlb_timed *tm, uint32_t n, uint32_t pasid,
                                     uint64_t page, struct tlb_mshr **free_one)
{
    const uint32_t *next = index_next(tm, n);
    for (uint32_t i = index_head(tm, n)[bucket_of(n, pasid, page)]; i; i = next[i - 1])
        if (mshr_takes(tm, n, i - 1, pasid, page))
            return &tm->mshr[i - 1];
    *free_one = tm->free_top ? &tm->mshr[tm->free_top - 1] : NULL;
    return NULL;
}

_Static_assert(MSHR_INDEX_MIN <= 32, "free_bits has a bit for every scanned MSHR");

/* Bit i set when MSHR i (of fewer than MSHR_INDEX_MIN) is busy with a key
 * of tag `tag`. From 4 MSHRs on, the tags are compared in blocks of 16
 * (the padding after the last tag is 0, and the key area holds 4n bytes
 * of tags and padding, a block's worth); below, one by one. */
static inline uint32_t tag_candidates(const struct tlb_timed *tm, uint32_t n, uint8_t tag)
{
    const uint8_t *tags = key_tag(tm, n);
    if (n < 4) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            m |= (uint32_t)(tags[i] == tag) << i;
        return m;
    }
    return (uint32_t)xlat__tlb_tag_match(tags, (n + 15) & ~15u, tag);
}

/* The MSHR a new miss on (pasid, page) joins, if any (see mshr_takes()),
 * and in *free_one a free MSHR (the lowest; the caller reads it only when
 * no MSHR takes the miss). Fewer than MSHR_INDEX_MIN MSHRs are scanned
 * through their tags (usually no key, or the one of the page, is read);
 * the free ones are free_bits. */
static struct tlb_mshr *find_mshr(struct tlb_timed *tm, uint32_t n, uint32_t pasid,
                                  uint64_t page, struct tlb_mshr **free_one)
{
    *free_one = NULL;
    if (mshr_indexed(n))
        return find_indexed(tm, n, pasid, page, free_one);
    uint32_t busy_tagged = tag_candidates(tm, n, key_tag_of(pasid, page)) & ~tm->free_bits;
    for (; busy_tagged; busy_tagged &= busy_tagged - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(busy_tagged);
        if (mshr_takes(tm, n, i, pasid, page))
            return &tm->mshr[i];
    }
    if (tm->free_bits)
        *free_one = &tm->mshr[__builtin_ctz(tm->free_bits)];
    return NULL;
}

/* Takes free MSHR `m` for `p`, forwarded after `delay` cycles. */
static void open_mshr(xlat_tlb *t, struct tlb_mshr *m, struct tlb_pending *p, uint32_t delay)
{
    own_post(t, delay, forward_miss, m);
    uint32_t n = t->cfg.mshrs;
    uint64_t page = p->req.vaddr >> MSHR_PAGE_SHIFT;
    t->timed->key_page[m->index] = page;
    key_pasid(t->timed, n)[m->index] = p->req.pasid;
    key_tag(t->timed, n)[m->index] = key_tag_of(p->req.pasid, page);
    if (mshr_indexed(n))
        index_take(t->timed, n, m->index);
    else
        t->timed->free_bits &= ~(1u << m->index);
    m->inval_seq = t->timed->inval_seq;
    m->fwd = p->req;
    m->head = m->tail = p;
    m->first_user = p->user;
    m->held = 1;
    t->timed->busy++;
}

/* Where a miss of (pasid, vaddr) goes: behind the outstanding miss of its
 * page (*m) or into a free MSHR (*m NULL, *free_one set). NULL when it can,
 * else why it cannot. One scan of the MSHRs decides. */
static const char *mshr_for(xlat_tlb *t, uint32_t pasid, uint64_t vaddr, struct tlb_mshr **m,
                            struct tlb_mshr **free_one)
{
    *m = find_mshr(t->timed, t->cfg.mshrs, pasid, vaddr >> MSHR_PAGE_SHIFT, free_one);
    if (*m)
        return (*m)->held == t->timed->mshr_targets
                   ? "the MSHR of its page holds mshr_targets requests" : NULL;
    return *free_one ? NULL : "every MSHR is busy";
}

/* Puts `p` where mshr_for() said: behind `m`, or in `free_one`, which
 * forwards it after `delay` cycles. */
static void join(xlat_tlb *t, struct tlb_pending *p, struct tlb_mshr *m,
                 struct tlb_mshr *free_one, uint32_t delay)
{
    p->next = NULL;
    if (!m) {
        open_mshr(t, free_one, p, delay);
        return;
    }
    m->tail->next = p;
    m->tail = p;
    m->held++;
    t->stats.mshr_merges++;
}

/* Puts `p` behind the outstanding miss of its page, or in a free MSHR that
 * forwards it after `delay` cycles. NULL when it did, else why it cannot
 * (and `p` is untouched). */
static const char *join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay)
{
    struct tlb_mshr *m, *free_one;
    const char *full = mshr_for(t, p->req.pasid, p->req.vaddr, &m, &free_one);
    if (!full)
        join(t, p, m, free_one, delay);
    return full;
}

/* Out of line: the hit path does not pay for the miss path's registers. */
static __attribute__((noinline)) int accept_miss(xlat_tlb *t, const xlat_req *req,
                                                 xlat_done_fn done, void *user)
{
    /* Decided before a record is taken: a refusal (routine when the MSHRs
     * are full) touches no record. */
    struct tlb_mshr *m, *free_one;
    const char *full = mshr_for(t, req->pasid, req->vaddr, &m, &free_one);
    if (full) /* a sender waiting is woken when an MSHR completes */
        return refuse(t, full);
    struct tlb_pending *p = xlat__unit_req_take(&t->timed->unit); /* every field set below */
    if (!p) /* not reached: record_count() covers every MSHR full */
        return refuse(t, "every request record is in use");
    p->tlb = t;
    p->req = *req;
    p->done = done;
    p->user = user;
    p->issued = t->ctx->now;
    p->stale = false;
    join(t, p, m, free_one, t->cfg.latency);
    t->stats.misses++;
    t->stats.accesses++;
    t->timed->port_used++;
    return XLAT_OK;
}

/* ---- the unit's calls ------------------------------------------------ */

/* A request a port took: a hit or a miss. Out of line, so that a refused
 * call (a busy host offers one every cycle) saves none of the registers
 * the lookup needs. */
static __attribute__((noinline)) int look_up(xlat_tlb *t, const xlat_req *req, xlat_done_fn done,
                                             void *user)
{
    struct tlb_way *w = xlat__tlb_find(t, req->pasid, req->vaddr, 0);
    /* Each counts the access and the port when it accepts. */
    return w ? accept_hit(t, w, req, done, user) : accept_miss(t, req, done, user);
}

/* Why xlat_tlb_translate() cannot take the call at all. Out of line, as
 * refuse() is, so that the refusals of a busy port keep no register. */
static __attribute__((noinline, cold)) int bad_call(xlat_tlb *t, const xlat_req *req,
                                                    xlat_done_fn done)
{
    if (!t || !req || !done)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_translate: NULL %s",
                          !t ? "tlb" : !req ? "req" : "done");
    if ((unsigned)req->access > XLAT_ACCESS_ATOMIC)
        return xlat__req_check(t->ctx, req, "xlat_tlb_translate");
    return xlat__fail(t->ctx, XLAT_ERR_STATE,
                      "tlb %s: not a timed unit yet: call xlat_tlb_set_next() (NULL for no "
                      "next level) or xlat_tlb_get_target() first", t->name);
}

/* A port of `cycle` (of the TLB's clock: ports are per cycle of it) for
 * the request, or a refusal. */
static inline int take_port(xlat_tlb *t, uint64_t cycle, const xlat_req *req, xlat_done_fn done,
                            void *user)
{
    struct tlb_timed *tm = t->timed;
    if (tm->port_cycle != cycle) {
        tm->port_cycle = cycle;
        tm->port_used = 0;
    }
    if (tm->port_used >= t->cfg.ports)
        return refuse(t, "every port is used this cycle");
    return look_up(t, req, done, user);
}

/* A TLB on a clock of its own: its cycle is worked out first. */
static __attribute__((noinline)) int take_scaled_port(xlat_tlb *t, const xlat_req *req,
                                                      xlat_done_fn done, void *user)
{
    return take_port(t, xlat__unit_cycle(&t->timed->unit), req, done, user);
}

int xlat_tlb_translate(xlat_tlb *t, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (__builtin_expect(!t || !req || !done || (unsigned)req->access > XLAT_ACCESS_ATOMIC ||
                             !t->timed, 0))
        return bad_call(t, req, done);
    if (__builtin_expect(t->timed->unit.clock.scaled, 0))
        return take_scaled_port(t, req, done, user);
    return take_port(t, t->ctx->now, req, done, user);
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_tlb_translate(unit, req, done, user);
}

/* A refused sender retries next cycle when the ports were the reason (they
 * free every cycle), and when an MSHR or a hit slot frees otherwise. */
static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    xlat_tlb *t = unit;
    struct tlb_timed *tm = t->timed;
    if (!tm)
        return xlat__fail(t->ctx, XLAT_ERR_STATE, "tlb %s: not a timed unit", t->name);
    if (tm->port_cycle != xlat__unit_cycle(&tm->unit) || tm->port_used < t->cfg.ports)
        return xlat__unit_wait(&tm->unit, fn, user);
    own_post(t, 1, fn, user); /* the sender's event, in its budget: at the TLB's next edge */
    return XLAT_OK;
}

int xlat_tlb_get_target(xlat_tlb *t, xlat_target *out)
{
    if (!t)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_tlb_get_target: NULL tlb");
    int rc = xlat__tlb_timed_ensure(t);
    if (rc != XLAT_OK)
        return rc;
    xlat_target mine = {sizeof(mine), target_translate, t, target_wait, t->reg.id};
    return xlat__target_get(t->ctx, out, &mine, "xlat_tlb_get_target");
}
