/*
 * The group arithmetic F-Barre's two sides share: which pages may hold a
 * page's frame (its candidates), how one of them gives it (the PEC
 * calculation of §IV-F over an L2 entry), and which pages a peer's RCF
 * tracks for an entry (§V-A.2). Pages are 4 KiB page numbers.
 */
#include "fbarre_unit.h"

#define PAGE_SHIFT 12

uint64_t xlat__fb_key(uint32_t pasid, uint64_t vpn)
{
    /* Filters are per package, keys per address space (§VII-I). */
    return vpn ^ xlat__mix64(pasid);
}

/* Whether chiplet g is set in a bitmap of the unit's layout. */
static bool member_chiplet(const struct xlat_fbarre *fb, const xlat_coal_info *ci, uint32_t g)
{
    uint32_t top = fb->cfg.expanded ? 3 : 7;
    return g <= top && (ci->bitmap >> (top - g) & 1);
}

static void coal_info_of(const struct xlat_fbarre *fb, const xlat_tlb_entry *e, xlat_coal_info *ci)
{
    xlat_coal_decode((uint64_t)e->meta.coal_info << 52, fb->cfg.expanded != 0, ci);
}

/* Group entries only: a page alone has nothing to lend its neighbours. */
static bool in_group(const struct xlat_fbarre *fb, const xlat_coal_info *ci)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < XLAT_FBARRE_MAX_CHIPLETS; g++)
        n += member_chiplet(fb, ci, g);
    return n > 1;
}

bool xlat__fb_in_group(const struct xlat_fbarre *fb, uint16_t coal_info)
{
    xlat_coal_info ci;
    xlat_coal_decode((uint64_t)coal_info << 52, fb->cfg.expanded != 0, &ci);
    return in_group(fb, &ci);
}

/* p's frame from L2 entry `u` of its group: the PEC calculation, then p's
 * own coordinates for the group information its fill carries. */
static bool compute_from(struct xlat_fbarre *fb, const xlat_pec_entry *d, const xlat_tlb_entry *u,
                         uint64_t p, xlat_tlb_entry *out)
{
    xlat_coal_info ci;
    coal_info_of(fb, u, &ci);
    uint64_t pfn;
    if (u->page_shift != PAGE_SHIFT || !in_group(fb, &ci) ||
        xlat_pec_calc(d, fb->cfg.base_pfn, u->vpn, u->pfn, &ci, p, &pfn) != XLAT_OK)
        return false;
    uint64_t first = u->vpn - ci.intra - (uint64_t)d->interlv_gran * ci.inter;
    xlat_coal_info mine = ci;
    mine.inter = (uint8_t)((p - first) / d->interlv_gran);
    mine.intra = (uint8_t)((p - first) % d->interlv_gran);
    *out = *u;
    out->vpn = p;
    out->pfn = pfn;
    out->meta.coal_info = (uint16_t)(xlat_coal_encode(0, &mine, fb->cfg.expanded != 0) >> 52);
    return true;
}

/* One LCF-hit candidate looked up in the L2 (a TLB port access, without
 * touching its replacement state). */
static bool try_candidate(struct xlat_fbarre *fb, const xlat_pec_entry *d, const xlat_req *req,
                          uint64_t u, xlat_tlb_entry *out, unsigned *lookups)
{
    uint64_t p = req->vaddr >> PAGE_SHIFT;
    if (!xlat_cuckoo_contains(fb->filter[fb->cfg.chiplet], xlat__fb_key(req->pasid, u)))
        return false;
    ++*lookups;
    xlat_tlb_entry e;
    if (!fb->l2 || xlat_tlb_probe(fb->l2, req->pasid, u << PAGE_SHIFT, &e) != XLAT_OK)
        return false;
    bool got = u == p ? e.page_shift == PAGE_SHIFT : d && compute_from(fb, d, &e, p, out);
    if (u == p && got)
        *out = e;
    /* A page the access may not use goes to the IOMMU, whose answer rules. */
    uint8_t need = xlat_access_perm(req->access);
    return got && (out->perm & need) == need;
}

/* §IV-F: candidates step from p by interlv_gran, across the positions of
 * the data object (and, in the expanded layout, by the intra orders a
 * merged group can span), inside [start, end]. */
bool xlat__fb_search(struct xlat_fbarre *fb, const xlat_req *req, bool with_self,
                     xlat_tlb_entry *out, unsigned *lookups)
{
    uint64_t p = req->vaddr >> PAGE_SHIFT;
    *lookups = 0;
    if (with_self && try_candidate(fb, NULL, req, p, out, lookups))
        return true;
    xlat_pec_entry d;
    if (xlat_pec_buffer_lookup(fb->pec, req->pasid, p, &d) != XLAT_OK)
        return false;
    int64_t g = d.interlv_gran, span = d.positions ? d.positions - 1 : 0;
    int64_t m = fb->cfg.expanded ? (g - 1 < 3 ? g - 1 : 3) : 0;
    for (int64_t k = -span; k <= span; k++) {
        for (int64_t j = -m; j <= m; j++) {
            uint64_t u = p + (uint64_t)(k * g + j);
            if ((k || j) && u >= d.start_vpn && u <= d.end_vpn &&
                try_candidate(fb, &d, req, u, out, lookups))
                return true;
        }
    }
    return false;
}

unsigned xlat__fb_group_pages(struct xlat_fbarre *fb, const xlat_tlb_entry *e,
                              uint64_t pages[FB_GROUP_MAX])
{
    unsigned n = 0;
    pages[n++] = e->vpn;
    xlat_coal_info ci;
    coal_info_of(fb, e, &ci);
    xlat_pec_entry d;
    if (e->page_shift != PAGE_SHIFT || !in_group(fb, &ci) ||
        xlat_pec_buffer_lookup(fb->pec, e->pasid, e->vpn, &d) != XLAT_OK ||
        ci.inter >= d.positions)
        return n;
    uint64_t first = e->vpn - ci.intra - (uint64_t)d.interlv_gran * ci.inter;
    for (uint32_t k = 0; k < d.positions; k++) {
        if (!member_chiplet(fb, &ci, d.gpu_map[k]))
            continue;
        for (uint32_t j = 0; j <= ci.merged && n < FB_GROUP_MAX; j++) {
            uint64_t q = first + (uint64_t)k * d.interlv_gran + j;
            if (q != e->vpn && q >= d.start_vpn && q <= d.end_vpn)
                pages[n++] = q;
        }
    }
    return n;
}
