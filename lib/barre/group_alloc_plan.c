/*
 * The search of Barre Chord's group allocation ("Barre Chord" §IV-G): for
 * each group, the lowest local frame free on every member chiplet; with
 * contiguity-aware expansion (§V-B), the lowest run of such frames for
 * several adjacent groups of a round, the widest first (Fig 14: a merged
 * group and a default one where three consecutive frames are not free).
 */
#include "group_alloc_internal.h"

uint64_t xlat__group_page(const struct group_geom *g, uint64_t round, uint32_t pos, uint32_t off)
{
    return (round * g->positions + pos) * g->gran + off;
}

uint32_t xlat__group_members(const struct group_geom *g, uint64_t round, uint32_t off)
{
    uint64_t first = xlat__group_page(g, round, 0, off);
    if (first >= g->pages)
        return 0;
    uint64_t n = (g->pages - first + g->gran - 1) / g->gran;
    return n < g->positions ? (uint32_t)n : g->positions;
}

uint8_t xlat__chiplet_bit(const xlat_barre_alloc *a, uint32_t c)
{
    return (uint8_t)(1u << ((a->expanded ? 3u : 7u) - c)); /* chiplet 0 leftmost (Fig 8) */
}

uint8_t xlat__group_bitmap(const xlat_barre_alloc *a, const uint8_t *map, uint32_t members)
{
    uint8_t bitmap = 0;
    for (uint32_t k = 0; k < members; k++)
        bitmap |= xlat__chiplet_bit(a, map[k]);
    return bitmap;
}

uint16_t xlat__group_bits(const xlat_barre_alloc *a, const xlat_coal_info *ci)
{
    if (__builtin_popcount(ci->bitmap) < 2)
        return 0; /* "popcount(coal_bitmap) <= 1: no PEC activity": no group at all */
    return (uint16_t)xlat_pte_avail_high(xlat_coal_encode(0, ci, a->expanded));
}

/* Takes frames [L, L + width) of every member chiplet, or none of them. */
static bool take_common(xlat_barre_alloc *a, const struct group_geom *g, uint32_t members,
                        uint64_t local, uint32_t width)
{
    for (uint32_t k = 0; k < members; k++) {
        uint64_t base = a->base[g->map[k]];
        if (xlat_physmem_take(a->mem, base + local, width) == XLAT_OK)
            continue;
        while (k-- > 0)
            (void)xlat_physmem_free(a->mem, a->base[g->map[k]] + local, width);
        return false;
    }
    return true;
}

/* The search state of one object: `hint[w]` is the lowest local frame
 * whose run of w might still be free on every chiplet of a full group
 * (the call only takes frames, so nothing below a failed start frees up). */
struct search {
    xlat_barre_alloc *a;
    const struct group_geom *g;
    struct page_plan *plan;
    uint64_t hint[XLAT_BARRE_MAX_MERGE + 1];
    uint64_t limit; /* frames of the smallest member region */
    bool all_default;
};

static bool find_common(struct search *s, uint32_t members, uint32_t width, uint64_t *local)
{
    bool full = members == s->g->positions;
    uint64_t l = full ? s->hint[width] : 0;
    for (; l + width <= s->limit; l++)
        if (take_common(s->a, s->g, members, l, width)) {
            if (full)
                s->hint[width] = l + width;
            *local = l;
            return true;
        }
    if (full)
        s->hint[width] = l;
    return false;
}

/* Writes group `gr` on local frames from `local` into the plan. */
static void assign_group(struct search *s, const struct group *gr, uint64_t local)
{
    xlat_coal_info ci = {.bitmap = xlat__group_bitmap(s->a, s->g->map, gr->members),
                         .merged = (uint8_t)(gr->width - 1)};
    for (uint32_t k = 0; k < gr->members; k++)
        for (uint32_t j = 0; j < gr->width; j++) {
            struct page_plan *p = &s->plan[xlat__group_page(s->g, gr->round, k, gr->off + j)];
            ci.inter = (uint8_t)k;
            ci.intra = (uint8_t)j;
            *p = (struct page_plan){.pfn = s->a->base[s->g->map[k]] + local + j,
                                    .bits = xlat__group_bits(s->a, &ci), .taken = true};
        }
    s->a->st.groups++;
    s->a->st.merged_groups += gr->width > 1;
    s->a->st.grouped_pages += (uint64_t)gr->members * gr->width;
}

/* Default placement: any free frame of the page's own chiplet. */
static int place_default(struct search *s, uint64_t round, uint32_t pos, uint32_t off)
{
    struct page_plan *p = &s->plan[xlat__group_page(s->g, round, pos, off)];
    uint32_t c = s->g->map[pos];
    int rc = xlat_physmem_alloc(s->a->mem, s->a->region[c], 1, 1, &p->pfn);
    if (rc != XLAT_OK)
        return xlat__fail(s->a->ctx, rc, "barre_alloc %s: chiplet %u has no free frame",
                          s->a->name, c);
    p->taken = true;
    p->bits = 0;
    s->a->st.default_pages++;
    return XLAT_OK;
}

/* Adjacent offsets from `off` that share its members, up to max_merge. */
static uint32_t merge_width(const struct search *s, uint64_t round, uint32_t off, uint32_t members)
{
    uint32_t w = 1;
    while (w < s->a->max_merge && off + w < s->g->gran &&
           xlat__group_members(s->g, round, off + w) == members)
        w++;
    return w;
}

/* Places the groups of offset `*off` onward of `round`; advances `*off`. */
static int plan_group(struct search *s, uint64_t round, uint32_t *off)
{
    uint32_t members = xlat__group_members(s->g, round, *off);
    struct group gr = {.round = round, .off = *off, .members = members};
    uint64_t local;
    if (members >= 2 && !s->all_default)
        for (gr.width = merge_width(s, round, *off, members); gr.width > 0; gr.width--)
            if (find_common(s, members, gr.width, &local)) {
                assign_group(s, &gr, local);
                *off += gr.width;
                return XLAT_OK;
            }
    if (members >= 2 && !s->all_default) {
        s->a->st.fallback_groups++;
        if (s->a->whole_object_fallback)
            return XLAT_ERR_AGAIN; /* start over, every page by default */
    }
    for (uint32_t k = 0; k < members; k++) {
        int rc = place_default(s, round, k, *off);
        if (rc != XLAT_OK)
            return rc;
    }
    *off += 1;
    return XLAT_OK;
}

static int plan_all(struct search *s)
{
    uint64_t rounds = (s->g->pages + (uint64_t)s->g->positions * s->g->gran - 1) /
                      ((uint64_t)s->g->positions * s->g->gran);
    for (uint64_t r = 0; r < rounds; r++)
        for (uint32_t off = 0; off < s->g->gran;) {
            if (xlat__group_members(s->g, r, off) == 0)
                break; /* the last round ends here */
            int rc = plan_group(s, r, &off);
            if (rc != XLAT_OK)
                return rc;
        }
    return XLAT_OK;
}

void xlat__group_release(xlat_barre_alloc *a, const struct group_geom *g, struct page_plan *plan)
{
    for (uint64_t i = 0; i < g->pages; i++)
        if (plan[i].taken) {
            (void)xlat_physmem_free(a->mem, plan[i].pfn, 1);
            plan[i].taken = false;
        }
}

int xlat__group_plan(xlat_barre_alloc *a, const struct group_geom *g, struct page_plan *plan)
{
    struct search s = {.a = a, .g = g, .plan = plan, .limit = UINT64_MAX};
    for (uint32_t k = 0; k < g->positions; k++)
        if (a->frames[g->map[k]] < s.limit)
            s.limit = a->frames[g->map[k]];
    xlat_barre_alloc_stats before = a->st;
    int rc = plan_all(&s);
    if (rc == XLAT_ERR_AGAIN) {
        xlat__group_release(a, g, plan);
        a->st = before;
        a->st.fallback_groups++;
        a->st.whole_fallbacks++;
        s.all_default = true;
        rc = plan_all(&s);
    }
    if (rc != XLAT_OK) {
        xlat__group_release(a, g, plan);
        a->st = before;
    }
    return rc;
}
