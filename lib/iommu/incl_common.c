/* Steps several inclusion policies share. */
#include "incl.h"

int xlat__incl_base_init(void *state, const struct incl_services *sv)
{
    ((struct incl_base *)state)->sv = sv;
    return XLAT_OK;
}

void xlat__incl_move_on_hit(void *state, const xlat_tlb_entry *e)
{
    const struct incl_services *sv = ((struct incl_base *)state)->sv;
    sv->tlb_remove(sv->iommu, e->pasid, e->vpn << e->page_shift);
}

void xlat__incl_fill_on_walk(void *state, const xlat_tlb_entry *e, uint32_t gpu)
{
    const struct incl_services *sv = ((struct incl_base *)state)->sv;
    sv->tlb_insert(sv->iommu, e, gpu);
}
