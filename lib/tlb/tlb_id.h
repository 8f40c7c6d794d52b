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

/* Called as `fn(user, t)` when TLB `t` is destroyed, before anything of it
 * goes: an IOMMU it is attached to detaches it then, so that a host may
 * destroy its GPUs' TLBs before or after the IOMMU. Watching may allocate
 * (XLAT_ERR_NOMEM, nothing changed); unwatching takes the first (fn, user). */
typedef void (*xlat__tlb_gone_fn)(void *user, xlat_tlb *t);
int xlat__tlb_watch_gone(xlat_tlb *t, xlat__tlb_gone_fn fn, void *user);
void xlat__tlb_unwatch_gone(xlat_tlb *t, xlat__tlb_gone_fn fn, void *user);

#endif /* XLAT_TLB_ID_H */
