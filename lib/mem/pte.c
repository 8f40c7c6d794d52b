/* x86-64 page-table entry fields. Bits 9..11 and 52..62 are ignored by the
 * hardware walk and left to software; Barre Chord keeps its coalescing group
 * there (Fig. 8: 11 bits, taken as 52..62), so hosts get accessors for both. */
#include "pagetable_internal.h"

#define AVAIL_LOW_SHIFT 9
#define AVAIL_LOW_MASK (UINT64_C(0x7) << AVAIL_LOW_SHIFT)
#define AVAIL_HIGH_SHIFT 52
#define AVAIL_HIGH_MASK (UINT64_C(0x7FF) << AVAIL_HIGH_SHIFT)

uint64_t xlat_pte_pfn(uint64_t pte) { return (pte & XLAT_PTE_PFN_MASK) >> PT_NODE_SHIFT; }

uint64_t xlat_pte_set_pfn(uint64_t pte, uint64_t pfn)
{
    return (pte & ~XLAT_PTE_PFN_MASK) | ((pfn << PT_NODE_SHIFT) & XLAT_PTE_PFN_MASK);
}

uint8_t xlat_pte_perm(uint64_t pte)
{
    if (!(pte & XLAT_PTE_PRESENT))
        return 0;
    uint8_t p = XLAT_PERM_R;
    p |= pte & XLAT_PTE_WRITABLE ? XLAT_PERM_W : 0;
    p |= pte & XLAT_PTE_USER ? XLAT_PERM_U : 0;
    p |= pte & XLAT_PTE_NX ? 0 : XLAT_PERM_X;
    return p;
}

uint32_t xlat_pte_avail_low(uint64_t pte)
{
    return (uint32_t)((pte & AVAIL_LOW_MASK) >> AVAIL_LOW_SHIFT);
}

uint64_t xlat_pte_set_avail_low(uint64_t pte, uint32_t value)
{
    return (pte & ~AVAIL_LOW_MASK) | (((uint64_t)value << AVAIL_LOW_SHIFT) & AVAIL_LOW_MASK);
}

uint32_t xlat_pte_avail_high(uint64_t pte)
{
    return (uint32_t)((pte & AVAIL_HIGH_MASK) >> AVAIL_HIGH_SHIFT);
}

uint64_t xlat_pte_set_avail_high(uint64_t pte, uint32_t value)
{
    return (pte & ~AVAIL_HIGH_MASK) | (((uint64_t)value << AVAIL_HIGH_SHIFT) & AVAIL_HIGH_MASK);
}
