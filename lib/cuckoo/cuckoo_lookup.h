/*
 * Cuckoo filters: the named internal interface for the units that keep
 * filters of their own (least-TLB's tracker). Nothing else of the
 * filter's private layout is reachable from outside lib/cuckoo.
 */
#ifndef XLAT_CUCKOO_LOOKUP_H
#define XLAT_CUCKOO_LOOKUP_H

#include <stdint.h>

#include "xlat/cuckoo.h"

/* The lowest i, a set bit of pick[0 .. words) (bit i % 64 of word
 * i / 64), whose filter cfs[i] reports `key` (as xlat_cuckoo_contains),
 * or -1 when none does. The filters picked were made with one
 * configuration (they share a shape: the first picked one's lookup is
 * compiled into the loop). One call for every GPU's partition of
 * least-TLB's tracker: no call or shape test per filter. */
int64_t xlat__cuckoo_first(void *const *cfs, const uint64_t *pick, uint32_t words, uint64_t key);

#endif
