/*
 * TLBs: the named internal interface for the units that answer on a TLB's
 * behalf (the IOMMU's default L2 port, the probing ring). Nothing else of
 * the TLB's private layout is reachable from outside lib/tlb.
 */
#ifndef XLAT_TLB_ID_H
#define XLAT_TLB_ID_H

#include <stdint.h>

#include "xlat/tlb.h"

/* The unit id of TLB `t` (its registry id, the one xlat_unit_id() gives),
 * without walking the registry: what its answers name as their resolver. */
uint32_t xlat__tlb_id(const xlat_tlb *t);

#endif /* XLAT_TLB_ID_H */
