/*
 * Mapping a whole virtual range on frames the physical memory's placement
 * chooses: what every host and example would otherwise write as a loop.
 */
#include <stdio.h>

#include "pagetable_internal.h"
#include "xlat/physmem.h"

/* Takes back the first `n` pages of the range: unmapped, frames freed. */
static void undo(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t va = vaddr + (i << pt->cfg.page_shift);
        xlat_tlb_entry e;
        if (xlat_pagetable_lookup(pt, pasid, va, &e) == XLAT_OK) {
            xlat_pagetable_unmap(pt, pasid, va);
            xlat_physmem_free(pt->cfg.mem, e.pfn, 1);
        }
    }
}

/* One page: a frame from the placement, then the mapping; the frame goes
 * back if the mapping fails. */
static int map_one(xlat_pagetable *pt, uint32_t pasid, uint64_t va, uint32_t requester,
                   uint8_t perm)
{
    uint64_t pfn;
    int rc = xlat_physmem_place(pt->cfg.mem, va >> pt->cfg.page_shift, requester, 1, &pfn);
    if (rc != XLAT_OK)
        return rc;
    rc = xlat_pagetable_map(pt, pasid, va, pfn, (uint8_t)pt->cfg.page_shift, perm);
    if (rc != XLAT_OK)
        xlat_physmem_free(pt->cfg.mem, pfn, 1);
    return rc;
}

int64_t xlat_pagetable_map_range(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                 uint64_t bytes, uint32_t requester, uint8_t perm)
{
    if (!pt)
        return XLAT_ERR_INVAL;
    uint64_t page = UINT64_C(1) << pt->cfg.page_shift;
    if (bytes == 0 || (vaddr & (page - 1)) || vaddr + bytes < vaddr)
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_map_range: the range at 0x%llx of %llu bytes is %s",
                          (unsigned long long)vaddr, (unsigned long long)bytes,
                          bytes == 0 ? "empty" : (vaddr & (page - 1)) ? "not page-aligned"
                                                                      : "past the address space");
    uint64_t pages = (bytes + page - 1) / page;
    pt->born++; /* the nodes this call links in, for undo to find */
    for (uint64_t i = 0; i < pages; i++) {
        int rc = map_one(pt, pasid, vaddr + i * page, requester, perm);
        if (rc != XLAT_OK) {
            char why[256];
            snprintf(why, sizeof(why), "%s", xlat_ctx_errmsg(pt->ctx));
            undo(pt, pasid, vaddr, i);
            xlat__pt_prune_born(pt, pasid, vaddr, i + 1);
            return xlat__fail(pt->ctx, rc, "xlat_pagetable_map_range: page 0x%llx: %s",
                              (unsigned long long)(vaddr + i * page), why);
        }
    }
    return (int64_t)pages;
}
