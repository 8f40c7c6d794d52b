/* What other folders may use of a TLB's insides: a named internal
 * interface, so that no other private header of lib/tlb is reached. */
#ifndef XLAT_TLB_PORT_H
#define XLAT_TLB_PORT_H

#include "xlat/tlb.h"

/* The eviction callback a TLB has now (lib/tlb/tlb_report.c), so that a
 * unit taking it over can still call it. */
void xlat__tlb_evict_fn_get(const xlat_tlb *tlb, xlat_tlb_evict_fn *fn, void **user);

#endif
