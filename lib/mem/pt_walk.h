/*
 * Page tables: the named internal interface for walkers (lib/walk). A
 * walker reads entries at physical addresses and finds an address space's
 * root; nothing else of the table's private layout is reachable from
 * outside lib/mem.
 */
#ifndef XLAT_PT_WALK_H
#define XLAT_PT_WALK_H

#include <stdint.h>

#include "xlat/pagetable.h"

/* xlat_pagetable_read() without the error text: XLAT_OK, NOT_FOUND (not in
 * a node) or INVAL (misaligned). Never allocates. */
int xlat__pt_read(const xlat_pagetable *pt, uint64_t paddr, uint64_t *value);
/* Frame of the root of `pasid`: XLAT_OK or NOT_FOUND. */
int xlat__pt_root(const xlat_pagetable *pt, uint32_t pasid, uint64_t *root_pfn);

#endif /* XLAT_PT_WALK_H */
