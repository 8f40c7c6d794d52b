/* A digest of a unit's observable state, to prove that a call changed
 * nothing: FNV-1a over what the public API shows of the unit (its
 * statistics, its contents through enumeration and const lookups, its
 * memory footprint) and over the context's clock. Equal digests before and
 * after a call mean no host could tell the call happened. Only const calls
 * are made, so taking a digest changes nothing either. */
#ifndef XLAT_TEST_STATE_DIGEST_H
#define XLAT_TEST_STATE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "xlat/xlat.h"

#define SD_START 0xcbf29ce484222325ull /* FNV-1a 64-bit offset basis */

uint64_t sd_bytes(uint64_t h, const void *p, size_t n);
uint64_t sd_u64(uint64_t h, uint64_t v);

/* The clock, the next event, the pending events and the seed. */
uint64_t sd_ctx(uint64_t h, const xlat_ctx *ctx);
/* Statistics, counts, memory and every entry of every set. */
uint64_t sd_tlb(uint64_t h, const xlat_tlb *tlb);
/* Statistics and the lookup of each of `n` addresses of `pasid`. */
uint64_t sd_pagetable(uint64_t h, const xlat_pagetable *pt, uint32_t pasid, const uint64_t *va,
                      size_t n);
/* Count, table digest, memory and membership of each of `n` keys. */
uint64_t sd_cuckoo(uint64_t h, const xlat_cuckoo *cf, const uint64_t *keys, size_t n);
/* Free frames of every region and memory. */
uint64_t sd_physmem(uint64_t h, const xlat_physmem *mem);
/* Statistics and the probe of each of `n` addresses of `pasid`. */
uint64_t sd_pwc(uint64_t h, const xlat_pwc *pwc, uint32_t pasid, const uint64_t *va, size_t n);
uint64_t sd_walker(uint64_t h, const xlat_walker *pool);
uint64_t sd_iommu(uint64_t h, const xlat_iommu *iommu, uint32_t gpus);
uint64_t sd_gmmu(uint64_t h, const xlat_gmmu *gmmu);
uint64_t sd_link(uint64_t h, const xlat_link *link);
uint64_t sd_fixed(uint64_t h, const xlat_fixed *fixed);
uint64_t sd_pec(uint64_t h, const xlat_pec_buffer *pec);
uint64_t sd_barre_alloc(uint64_t h, const xlat_barre_alloc *a);
/* Statistics and both filters' counts and the membership of `n` vpns. */
uint64_t sd_fbarre(uint64_t h, const xlat_fbarre *fb, uint32_t pasid, const uint64_t *vpn,
                   size_t n);
/* Statistics, every GPU's memory and its L1 (CU 0) and L2 TLBs, the IOMMU. */
uint64_t sd_system(uint64_t h, const xlat_system *sys);

#endif
