/* The TLB as a structure: insertion, growth of an unbounded TLB,
 * invalidation and reporting. */
#include "tlb_internal.h"

static void count_shift(xlat_tlb *t, uint8_t shift, int delta)
{
    t->shift_count[shift] = (uint32_t)((int64_t)t->shift_count[shift] + delta);
    if (t->shift_count[shift])
        t->shift_mask |= 1ull << shift;
    else
        t->shift_mask &= ~(1ull << shift);
    t->count = (size_t)((int64_t)t->count + delta);
}

/* Sets the tag of way `slot` of `set` (tlb_tag.h): the tag of `vpn`, or
 * 0 for an empty way. */
static void set_tag(xlat_tlb *t, uint32_t set, uint32_t slot, uint8_t tag)
{
    if (t->tag)
        xlat__tlb_tag_row(t, set)[slot] = tag;
}

/* Empties way `w`; an invalidation found it by its address, so its set and
 * slot come from its place in the array. */
static void clear_way(xlat_tlb *t, struct tlb_way *w)
{
    count_shift(t, w->page_shift, -1);
    memset(w, 0, sizeof(*w));
    if (t->tag) {
        size_t i = (size_t)(w - t->way);
        set_tag(t, (uint32_t)(i / t->ways), (uint32_t)(i % t->ways), 0);
    }
    t->stats.invalidations++;
}

static void entry_to_way(const xlat_tlb_entry *e, struct tlb_way *w)
{
    w->pasid = e->pasid;
    w->vpn = e->vpn;
    w->pfn = e->pfn;
    w->page_shift = e->page_shift;
    w->perm = e->perm;
    w->object_id = e->meta.object_id;
    w->home_gpu = e->meta.home_gpu;
    w->coal_info = e->meta.coal_info;
    w->spill_credit = e->meta.spill_credit;
    w->spilled = e->meta.spilled;
}

struct tlb_way *xlat__tlb_find_wide(const xlat_tlb *t, uint32_t set, uint32_t pasid,
                                    uint64_t vpn, uint8_t shift)
{
    struct tlb_way *base = t->way + (size_t)set * t->ways;
    const uint8_t *row = xlat__tlb_tag_row(t, set);
    uint32_t stride = xlat__tlb_tag_stride(t->ways);
    uint8_t tag = xlat__tlb_tag(vpn);
    for (uint32_t at = 0; at < stride; at += 64) {
        uint64_t m = xlat__tlb_tag_match_from(row, stride, at, tag);
        struct tlb_way *w = xlat__tlb_find_candidates(base + at, m, pasid, vpn, shift);
        if (w)
            return w;
    }
    return NULL;
}

/* The lowest invalid way of `set`, or `ways` if the set is full: with
 * tags, the lowest 0 in the set's row (the padding past the ways is 0
 * too, hence the bound); without, the lowest below way_bound, else
 * way_bound itself (every way from it on is invalid). */
static uint32_t free_way(const xlat_tlb *t, uint32_t set)
{
    if (t->tag) {
        const uint8_t *row = xlat__tlb_tag_row(t, set);
        uint32_t stride = xlat__tlb_tag_stride(t->ways);
        for (uint32_t at = 0; at < stride; at += 64) {
            uint64_t m = xlat__tlb_tag_match_from(row, stride, at, 0);
            if (m) {
                uint32_t slot = at + (uint32_t)__builtin_ctzll(m);
                return slot < t->ways ? slot : t->ways;
            }
        }
        return t->ways;
    }
    const struct tlb_way *w = t->way + (size_t)set * t->ways;
    for (uint32_t i = 0; i < t->way_bound; i++)
        if (w[i].page_shift == 0)
            return i;
    return t->way_bound;
}

/* Way `slot` is about to hold an entry: the bound covers it. */
static inline void bound_way(xlat_tlb *t, uint32_t slot)
{
    if (slot >= t->way_bound)
        t->way_bound = slot + 1;
}

/* Moves every entry of the current table into `way` (with its tags) with
 * `sets` sets, and the new table's way_bound into *bound. Fails (returns
 * 0) when some set overflows. */
static int rehash_into(const xlat_tlb *t, struct tlb_way *way, uint32_t sets, uint32_t *bound)
{
    xlat_tlb moved = *t;
    moved.way = way;
    moved.tag = xlat__tlb_tags_after(way, sets, t->ways);
    moved.way_bound = 0;
    xlat__tlb_set_geometry(&moved, sets);
    for (size_t i = 0; i < (size_t)t->sets * t->ways; i++) {
        const struct tlb_way *w = &t->way[i];
        if (w->page_shift == 0)
            continue;
        uint32_t set = xlat__tlb_set_of(&moved, w->vpn);
        uint32_t slot = free_way(&moved, set);
        if (slot == t->ways)
            return 0;
        way[(size_t)set * t->ways + slot] = *w;
        set_tag(&moved, set, slot, xlat__tlb_tag(w->vpn));
        bound_way(&moved, slot);
    }
    *bound = moved.way_bound;
    return 1;
}

/* Doubles an unbounded TLB until every entry has a way. The old table stays
 * until the new one is complete, so a failure changes nothing. */
static int grow(xlat_tlb *t)
{
    for (uint64_t sets = (uint64_t)t->sets * 2; sets <= UINT32_MAX / 2; sets *= 2) {
        struct tlb_way *way;
        uint64_t *state;
        if (xlat__tlb_arrays_alloc(t, (uint32_t)sets, &way, &state) != XLAT_OK)
            break;
        uint32_t bound;
        if (rehash_into(t, way, (uint32_t)sets, &bound)) {
            xlat__tlb_arrays_free(t, t->sets, t->way, t->repl_state);
            t->way = way;
            t->tag = xlat__tlb_tags_after(way, (uint32_t)sets, t->ways);
            t->repl_state = state;
            t->way_bound = bound;
            xlat__tlb_set_geometry(t, (uint32_t)sets);
            return XLAT_OK;
        }
        xlat__tlb_arrays_free(t, (uint32_t)sets, way, state);
    }
    return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: cannot grow beyond %u sets", t->name,
                      t->sets);
}

static int check_entry(const xlat_tlb *t, const xlat_tlb_entry *e)
{
    if (e->page_shift < 12 || e->page_shift > 63)
        return xlat__fail(t->ctx, XLAT_ERR_INVAL, "tlb %s: page_shift %u is outside 12..63",
                          t->name, e->page_shift);
    if (e->vpn >> (64 - e->page_shift))
        return xlat__fail(t->ctx, XLAT_ERR_INVAL,
                          "tlb %s: vpn 0x%llx does not fit a %u-bit page number", t->name,
                          (unsigned long long)e->vpn, 64 - e->page_shift);
    return XLAT_OK;
}

/* Evicts the policy's victim of a full `set` into `*gone` (when not NULL)
 * and returns its way index. The way is left as it is, for the caller to
 * overwrite with every field of the new entry, its tag and its count. The
 * eviction callback is not called here: the caller first puts the new
 * entry in the way, so that a callback that inserts into this TLB finds it
 * consistent. */
static uint32_t evict(xlat_tlb *t, uint32_t set, xlat_tlb_entry *gone)
{
    uint32_t slot = t->repl->victim(t, xlat__tlb_set_state(t, set));
    if (gone)
        xlat__tlb_way_to_entry(&t->way[(size_t)set * t->ways + slot], gone);
    t->stats.evictions++;
    return slot;
}

/* The way of `set` that holds e's page, or `ways` when none does, with the
 * lowest invalid way (or `ways`: the set is full) in *free_slot. A TLB
 * that is full everywhere, as one is soon after it warms up, looks for no
 * invalid way. An invalid way never matches (its page_shift is 0). */
static uint32_t scan_set(const xlat_tlb *t, const xlat_tlb_entry *e, uint32_t set,
                         uint32_t *free_slot)
{
    /* No entry of e's page size anywhere: none can match, and the set's
     * ways need not be read for it (a TLB that a host's caches do not hold,
     * one L1 of thousands, reads its set once instead of twice). The mask
     * says so from the TLB's first line, where the count would be a line
     * of its own. */
    if (t->shift_mask >> e->page_shift & 1) {
        const struct tlb_way *w =
            xlat__tlb_find_in_set(t, set, e->pasid, e->vpn, e->page_shift);
        if (w)
            return (uint32_t)(w - (t->way + (size_t)set * t->ways));
    }
    bool full = t->count == (size_t)t->sets * t->ways;
    *free_slot = full ? t->ways : t->count == 0 ? 0 : free_way(t, set);
    return t->ways;
}

static void update_in_place(xlat_tlb *t, const xlat_tlb_entry *e, uint32_t set, uint32_t i)
{
    entry_to_way(e, &t->way[(size_t)set * t->ways + i]);
    /* "updated in place and made most recent": a refill, also for FIFO */
    t->repl->on_fill(t, xlat__tlb_set_state(t, set), i);
    t->stats.updates++;
}

int xlat_tlb_insert(xlat_tlb *t, const xlat_tlb_entry *e, xlat_tlb_entry *victim)
{
    if (!t || !e)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_insert: NULL %s",
                          t ? "entry" : "tlb");
    int rc = check_entry(t, e);
    if (rc != XLAT_OK)
        return rc;
    uint32_t set = xlat__tlb_set_of(t, e->vpn), slot = 0;
    uint32_t match = scan_set(t, e, set, &slot);
    if (match < t->ways) {
        update_in_place(t, e, set, match);
        return 0;
    }
    while (slot == t->ways && xlat__tlb_unbounded(t)) {
        if ((rc = grow(t)) != XLAT_OK)
            return rc;
        set = xlat__tlb_set_of(t, e->vpn);
        slot = free_way(t, set);
    }
    int evicted = slot == t->ways;
    /* Most TLBs have nobody listening and most callers want no victim:
     * then the evicted way is not even converted. */
    bool listened = t->evict_fn || t->evict_listeners.n;
    xlat_tlb_entry gone;
    if (evicted)
        slot = evict(t, set, victim || listened ? &gone : NULL);
    struct tlb_way *way = &t->way[(size_t)set * t->ways + slot];
    uint8_t gone_shift = way->page_shift; /* 0: the way was empty */
    bound_way(t, slot);
    entry_to_way(e, way); /* every field */
    set_tag(t, set, slot, xlat__tlb_tag(e->vpn));
    /* An eviction of a page of the new one's size, nearly every one,
     * changes no count. */
    if (gone_shift != e->page_shift) {
        if (gone_shift)
            count_shift(t, gone_shift, -1);
        count_shift(t, e->page_shift, +1);
    }
    t->repl->on_fill(t, xlat__tlb_set_state(t, set), slot);
    t->stats.inserts++;
    if (evicted) {
        if (victim)
            *victim = gone;
        if (listened) /* last: a listener may insert into this TLB again */
            xlat__tlb_notify_evicted(t, &gone);
    }
    return evicted;
}

int xlat_tlb_invalidate(xlat_tlb *t, uint32_t pasid, uint64_t vaddr)
{
    if (!t)
        return XLAT_ERR_INVAL;
    int removed = 0;
    struct tlb_way *w;
    while ((w = xlat__tlb_find(t, pasid, vaddr, 0)) != NULL) {
        clear_way(t, w);
        removed++;
    }
    struct tlb_shootdown sd = {.pasid = pasid, .vaddr = vaddr};
    xlat__tlb_notify_invalidated(t, &sd);
    return removed;
}

int xlat_tlb_invalidate_pasid(xlat_tlb *t, uint32_t pasid)
{
    if (!t)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (size_t i = 0; i < (size_t)t->sets * t->ways; i++) {
        if (t->way[i].page_shift && t->way[i].pasid == pasid) {
            clear_way(t, &t->way[i]);
            removed++;
        }
    }
    struct tlb_shootdown sd = {.whole_space = 1, .pasid = pasid};
    xlat__tlb_notify_invalidated(t, &sd);
    return removed;
}

int xlat_tlb_flush(xlat_tlb *t)
{
    if (!t)
        return XLAT_ERR_INVAL;
    size_t removed = t->count;
    t->stats.invalidations += t->count;
    memset(t->way, 0, xlat__tlb_way_bytes(t->sets, t->ways)); /* tags included */
    memset(t->repl_state, 0, (size_t)t->sets * t->repl_words * sizeof(uint64_t));
    memset(t->shift_count, 0, sizeof(t->shift_count));
    t->shift_mask = 0;
    t->count = 0;
    t->way_bound = 0;
    struct tlb_shootdown sd = {.all = 1};
    xlat__tlb_notify_invalidated(t, &sd);
    return (int)removed;
}
