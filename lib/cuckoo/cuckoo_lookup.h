/*
 * Cuckoo filters: the named internal interface for the units that keep
 * filters of their own (least-TLB's tracker). Nothing else of the
 * filter's private layout is reachable from outside lib/cuckoo.
 */
#ifndef XLAT_CUCKOO_LOOKUP_H
#define XLAT_CUCKOO_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "xlat/cuckoo.h"

/* xlat_cuckoo_contains() for a filter the caller made (never NULL): no
 * checks, straight to its shape's lookup. least-TLB's tracker asks one
 * filter per GPU on every IOMMU TLB miss, hundreds in a system of 1024
 * GPUs. */
bool xlat__cuckoo_has(const xlat_cuckoo *cf, uint64_t key);

#endif
