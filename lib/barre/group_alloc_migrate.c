/*
 * Migration out of a coalescing group ("Barre Chord" §VI: "if a page has
 * high demand from remote GPU chiplets, we reset coal_bitmap to exclude the
 * page from coalescing"; §VII-G). The paper resets the migrated page's
 * bitmap; the other members must lose its chiplet too, or a calculation
 * from any of them would still hand out the old frame. In a merged group
 * the chiplet's bit covers every column, so the group splits: the columns
 * before and after the page's stay merged groups of their own (each column
 * run sits on consecutive common frames still), and the page's column
 * keeps the other chiplets.
 */
#include "group_alloc_internal.h"

#define PAGE_SHIFT 12

/* A group as a PTE describes it, in the object's coordinates. */
struct old_group {
    uint64_t first; /* VPN_first (§V-B) */
    xlat_coal_info ci;
};

static int check_entry(xlat_barre_alloc *a, const xlat_pec_entry *d, uint64_t vpn, uint32_t to)
{
    uint8_t seen = 0;
    bool ok = d->interlv_gran > 0 && d->positions >= 1 && d->positions <= a->chiplets &&
              vpn >= d->start_vpn && vpn <= d->end_vpn && to < a->chiplets &&
              xlat__barre_vpn_in_table(a, d->end_vpn); /* regroup walks the range */
    for (uint32_t k = 0; ok && k < d->positions; k++) {
        ok = d->gpu_map[k] < a->chiplets && !(seen >> d->gpu_map[k] & 1);
        seen |= (uint8_t)(1u << (d->gpu_map[k] & 7));
    }
    if (!ok)
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "barre_alloc %s: migrate page 0x%llx to chiplet %u of an object"
                          " [0x%llx, 0x%llx] it does not hold or that this allocator cannot"
                          " have made", a->name, (unsigned long long)vpn, to,
                          (unsigned long long)d->start_vpn, (unsigned long long)d->end_vpn);
    return XLAT_OK;
}

/* The group of page `vpn` from its bits; false when they do not fit `d`. */
static bool group_of(const xlat_barre_alloc *a, const xlat_pec_entry *d, uint64_t vpn,
                     uint16_t bits, struct old_group *grp)
{
    xlat_coal_decode((uint64_t)bits << 52, a->expanded, &grp->ci);
    const xlat_coal_info *ci = &grp->ci;
    uint64_t before = ci->intra + (uint64_t)d->interlv_gran * ci->inter;
    if (ci->inter >= d->positions || ci->intra > ci->merged || vpn - d->start_vpn < before)
        return false;
    grp->first = vpn - before;
    return (ci->bitmap & xlat__chiplet_bit(a, d->gpu_map[ci->inter])) != 0;
}

/* The new group information of member (k, j) once (k0, j0) leaves. */
static xlat_coal_info split_info(const xlat_barre_alloc *a, const xlat_pec_entry *d,
                                 const xlat_coal_info *old, uint32_t k, uint32_t j)
{
    xlat_coal_info ci = {.bitmap = old->bitmap, .inter = (uint8_t)k};
    uint32_t j0 = old->intra;
    if (j == j0)
        ci.bitmap &= (uint8_t)~xlat__chiplet_bit(a, d->gpu_map[old->inter]);
    else if (j < j0)
        ci = (xlat_coal_info){old->bitmap, (uint8_t)k, (uint8_t)j, (uint8_t)(j0 - 1)};
    else
        ci = (xlat_coal_info){old->bitmap, (uint8_t)k, (uint8_t)(j - j0 - 1),
                              (uint8_t)(old->merged - j0 - 1)};
    return ci;
}

/* Rewrites every other member of `grp`; lists them in `out`. */
static void regroup(xlat_barre_alloc *a, const xlat_pec_entry *d, const struct old_group *grp,
                    xlat_barre_migration *out)
{
    for (uint32_t k = 0; k < d->positions; k++) {
        if (!(grp->ci.bitmap & xlat__chiplet_bit(a, d->gpu_map[k])))
            continue;
        for (uint32_t j = 0; j <= grp->ci.merged; j++) {
            uint64_t q = grp->first + (uint64_t)k * d->interlv_gran + j;
            if ((k == grp->ci.inter && j == grp->ci.intra) || q > d->end_vpn)
                continue;
            xlat_coal_info ci = split_info(a, d, &grp->ci, k, j);
            if (xlat_pagetable_set_avail_high(a->pt, d->pasid, q << PAGE_SHIFT,
                                              xlat__group_bits(a, &ci)) != XLAT_OK)
                continue; /* unmapped since: nothing to rewrite */
            if (out->count < XLAT_BARRE_GROUP_MAX)
                out->vpn[out->count++] = q;
            a->st.regrouped++;
        }
    }
}

/* The 4 KiB leaf of `vpn`: its entry's address and value. */
static int leaf_of(xlat_barre_alloc *a, uint32_t pasid, uint64_t vpn, xlat_walk_step *leaf)
{
    xlat_walk_trace w;
    if (xlat_pagetable_walk(a->pt, pasid, vpn << PAGE_SHIFT, &w) != XLAT_OK ||
        w.stop_level != 1)
        return xlat__fail(a->ctx, XLAT_ERR_NOT_FOUND,
                          "barre_alloc %s: page 0x%llx of pasid %u is not mapped as a 4 KiB page",
                          a->name, (unsigned long long)vpn, pasid);
    *leaf = w.step[w.steps - 1];
    return XLAT_OK;
}

/* Moves the page to a free frame of chiplet `to` with no group bits. */
static int move_page(xlat_barre_alloc *a, const xlat_walk_step *leaf, uint32_t to,
                     xlat_barre_migration *m)
{
    int rc = xlat_physmem_alloc(a->mem, a->region[to], 1, 1, &m->new_pfn);
    if (rc != XLAT_OK)
        return xlat__fail(a->ctx, rc, "barre_alloc %s: chiplet %u has no free frame", a->name,
                          to);
    uint64_t pte = xlat_pte_set_pfn(xlat_coal_encode(leaf->value, NULL, false), m->new_pfn);
    rc = xlat_pagetable_write(a->pt, leaf->entry_paddr, pte);
    if (rc != XLAT_OK) {
        (void)xlat_physmem_free(a->mem, m->new_pfn, 1);
        return rc;
    }
    m->old_pfn = xlat_pte_pfn(leaf->value);
    (void)xlat_physmem_free(a->mem, m->old_pfn, 1);
    return XLAT_OK;
}

int xlat_barre_alloc_migrate(xlat_barre_alloc *a, const xlat_pec_entry *d, uint64_t vpn,
                             uint32_t to, xlat_barre_migration *out)
{
    if (!a || !d)
        return xlat__fail(a ? a->ctx : NULL, XLAT_ERR_INVAL, "xlat_barre_alloc_migrate: NULL %s",
                          !a ? "allocator" : "object");
    int rc = check_entry(a, d, vpn, to);
    xlat_walk_step leaf = {0};
    if (rc == XLAT_OK)
        rc = leaf_of(a, d->pasid, vpn, &leaf);
    if (rc != XLAT_OK)
        return rc;
    uint16_t bits = (uint16_t)xlat_pte_avail_high(leaf.value);
    struct old_group grp = {0};
    bool grouped = bits != 0;
    if (grouped && !group_of(a, d, vpn, bits, &grp))
        return xlat__fail(a->ctx, XLAT_ERR_INVAL,
                          "barre_alloc %s: the group bits 0x%x of page 0x%llx do not fit its"
                          " object", a->name, bits, (unsigned long long)vpn);
    xlat_barre_migration m = {.count = 1, .vpn = {vpn}};
    rc = move_page(a, &leaf, to, &m);
    if (rc != XLAT_OK)
        return rc;
    if (grouped)
        regroup(a, d, &grp, &m);
    a->st.migrations++;
    if (out)
        *out = m;
    return XLAT_OK;
}
