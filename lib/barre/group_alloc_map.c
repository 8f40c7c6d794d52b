/*
 * Barre Chord's LASP-enabled malloc ("Barre Chord" §IV-C, §IV-G): check
 * the object, plan and take every frame (group_alloc_plan.c), then map the
 * pages with their group bits and record the object's PEC entry.
 */
#include "group_alloc_internal.h"

#define PAGE_SHIFT 12
#define KNOWN_PERM (XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U)

/* Virtual address bits of the page table: the root level's shift plus
 * one level's index bits. */
static unsigned va_bits(const xlat_pagetable *pt)
{
    uint32_t top = xlat_pagetable_levels(pt);
    uint32_t shift = xlat_pagetable_level_shift(pt, top);
    return shift + (shift - xlat_pagetable_level_shift(pt, top - 1));
}

bool xlat__barre_vpn_in_table(const xlat_barre_alloc *a, uint64_t vpn)
{
    return (vpn >> (va_bits(a->pt) - PAGE_SHIFT)) == 0;
}

static uint32_t gran_of(const xlat_barre_object *o, uint32_t positions)
{
    if (o->placement == XLAT_BARRE_ROUND_ROBIN)
        return 1;
    if (o->placement == XLAT_BARRE_CHUNKED) /* kernel-wide: one chunk per chiplet */
        return (uint32_t)((o->pages + positions - 1) / positions);
    return o->interlv_gran;
}

static int check_map(xlat_barre_alloc *a, const xlat_barre_object *o, uint32_t positions)
{
    uint8_t seen = 0;
    for (uint32_t k = 0; k < positions && o->positions; k++) {
        uint8_t c = o->gpu_map[k];
        if (c >= a->chiplets || (seen >> c & 1))
            return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                              "barre_alloc %s: gpu_map[%u] = %u is not a chiplet of 0..%u"
                              " named once", a->name, k, c, a->chiplets - 1);
        seen |= (uint8_t)(1u << c);
    }
    return XLAT_OK;
}

static int check_object(xlat_barre_alloc *a, const xlat_barre_object *o)
{
    uint32_t positions = o->positions ? o->positions : a->chiplets;
    unsigned vbits = va_bits(a->pt) - PAGE_SHIFT;
    if (o->pages == 0 || o->pages > (UINT64_C(1) << vbits) ||
        o->start_vpn > (UINT64_C(1) << vbits) - o->pages)
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "barre_alloc %s: pages [0x%llx, +%llu) are empty or beyond %u-bit"
                          " virtual addresses", a->name, (unsigned long long)o->start_vpn,
                          (unsigned long long)o->pages, vbits + PAGE_SHIFT);
    if ((unsigned)o->placement > XLAT_BARRE_CHUNKED || (o->perm & ~KNOWN_PERM))
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "barre_alloc %s: placement %u or perm 0x%x unknown", a->name,
                          (unsigned)o->placement, o->perm);
    if (positions > a->chiplets || gran_of(o, positions) == 0)
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "barre_alloc %s: %u positions over %u chiplets, interlv_gran %u",
                          a->name, positions, a->chiplets, gran_of(o, positions));
    return check_map(a, o, positions);
}

static struct group_geom geom_of(const xlat_barre_alloc *a, const xlat_barre_object *o)
{
    struct group_geom g = {.pasid = o->pasid, .start = o->start_vpn, .pages = o->pages,
                           .positions = o->positions ? o->positions : a->chiplets,
                           .perm = o->perm};
    g.gran = gran_of(o, g.positions);
    for (uint32_t k = 0; k < g.positions; k++)
        g.map[k] = o->positions ? o->gpu_map[k] : (uint8_t)k;
    return g;
}

static int check_unmapped(xlat_barre_alloc *a, const struct group_geom *g)
{
    for (uint64_t i = 0; i < g->pages; i++)
        if (xlat_pagetable_lookup(a->pt, g->pasid, (g->start + i) << PAGE_SHIFT, NULL) == XLAT_OK)
            return xlat__fail(a->ctx, XLAT_ERR_EXIST,
                              "barre_alloc %s: page 0x%llx of pasid %u is mapped already",
                              a->name, (unsigned long long)(g->start + i), g->pasid);
    return XLAT_OK;
}

/* Maps every planned page; on failure unmaps the ones mapped. */
static int map_pages(xlat_barre_alloc *a, const struct group_geom *g, const struct page_plan *plan)
{
    for (uint64_t i = 0; i < g->pages; i++) {
        uint64_t va = (g->start + i) << PAGE_SHIFT;
        int rc = xlat_pagetable_map(a->pt, g->pasid, va, plan[i].pfn, PAGE_SHIFT, g->perm);
        if (rc == XLAT_OK && plan[i].bits)
            rc = xlat_pagetable_set_avail_high(a->pt, g->pasid, va, plan[i].bits);
        if (rc != XLAT_OK) {
            for (uint64_t j = 0; j <= i; j++)
                (void)xlat_pagetable_unmap(a->pt, g->pasid, (g->start + j) << PAGE_SHIFT);
            return rc;
        }
    }
    return XLAT_OK;
}

static xlat_pec_entry entry_of(const struct group_geom *g)
{
    xlat_pec_entry e = {.pasid = g->pasid, .start_vpn = g->start,
                        .end_vpn = g->start + g->pages - 1, .interlv_gran = g->gran,
                        .positions = (uint8_t)g->positions};
    memcpy(e.gpu_map, g->map, g->positions);
    return e;
}

static int plan_and_map(xlat_barre_alloc *a, const struct group_geom *g)
{
    struct page_plan *plan = xlat__calloc(a->ctx, g->pages, sizeof(*plan));
    if (!plan)
        return xlat__fail(a->ctx, XLAT_ERR_NOMEM,
                          "barre_alloc %s: out of memory for the plan of %llu pages", a->name,
                          (unsigned long long)g->pages);
    xlat_barre_alloc_stats before = a->st;
    int rc = xlat__group_plan(a, g, plan);
    if (rc == XLAT_OK && (rc = map_pages(a, g, plan)) != XLAT_OK) {
        xlat__group_release(a, g, plan);
        a->st = before;
    }
    xlat__free(a->ctx, plan, g->pages * sizeof(*plan));
    return rc;
}

int xlat_barre_alloc_map(xlat_barre_alloc *a, const xlat_barre_object *o, xlat_pec_buffer *pec,
                         xlat_pec_entry *out)
{
    xlat_barre_object obj;
    if (!a || !o)
        return xlat__fail(a ? a->ctx : NULL, XLAT_ERR_INVAL, "xlat_barre_alloc_map: NULL %s",
                          !a ? "allocator" : "object");
    xlat_barre_object_init(&obj);
    int rc = xlat__config_copy(a->ctx, &obj, sizeof(obj), o, XLAT_BARRE_OBJECT_SIZE_V0,
                               "xlat_barre_object");
    if (rc == XLAT_OK)
        rc = check_object(a, &obj);
    if (rc == XLAT_OK && pec && xlat_pec_buffer_expanded(pec) != xlat_barre_alloc_expanded(a))
        rc = xlat__fail(a->ctx, XLAT_ERR_INVAL,
                        "xlat_barre_alloc_map: the PEC buffer's layout (%s) is not the "
                        "allocator's (%s, max_merge %s 1)",
                        xlat_pec_buffer_expanded(pec) ? "expanded" : "Barre's",
                        xlat_barre_alloc_expanded(a) ? "expanded" : "Barre's",
                        xlat_barre_alloc_expanded(a) ? ">" : "=");
    if (rc != XLAT_OK)
        return rc;
    struct group_geom g = geom_of(a, &obj);
    rc = check_unmapped(a, &g);
    if (rc == XLAT_OK)
        rc = plan_and_map(a, &g);
    if (rc != XLAT_OK)
        return rc;
    xlat_pec_entry e = entry_of(&g);
    if (pec)
        (void)xlat_pec_buffer_insert(pec, &e); /* a refusal only loses coalescing (§IV-E) */
    if (out)
        *out = e;
    a->st.objects++;
    a->st.pages += g.pages;
    return XLAT_OK;
}

int xlat_barre_alloc_unmap(xlat_barre_alloc *a, const xlat_pec_entry *d, xlat_pec_buffer *pec)
{
    if (!a || !d || d->end_vpn < d->start_vpn)
        return xlat__fail(a ? a->ctx : NULL, XLAT_ERR_INVAL, "xlat_barre_alloc_unmap: %s",
                          !a ? "NULL allocator" : !d ? "NULL object" : "end_vpn below start_vpn");
    /* No object the allocator made goes beyond the table's addresses; a
     * range that does would be looked up page by page up to 2^64 times. */
    unsigned vbits = va_bits(a->pt) - PAGE_SHIFT;
    if (d->end_vpn >> vbits)
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "xlat_barre_alloc_unmap: end_vpn 0x%llx beyond %u-bit virtual addresses",
                          (unsigned long long)d->end_vpn, vbits + PAGE_SHIFT);
    int n = 0;
    for (uint64_t v = d->start_vpn; v <= d->end_vpn && v >= d->start_vpn; v++) {
        xlat_tlb_entry e;
        if (xlat_pagetable_lookup(a->pt, d->pasid, v << PAGE_SHIFT, &e) != XLAT_OK)
            continue;
        (void)xlat_pagetable_unmap(a->pt, d->pasid, v << PAGE_SHIFT);
        (void)xlat_physmem_free(a->mem, e.pfn, 1);
        n++;
    }
    if (pec)
        (void)xlat_pec_buffer_remove(pec, d->pasid, d->start_vpn);
    a->st.unmapped++;
    return n;
}
