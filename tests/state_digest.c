#include "state_digest.h"
#include "xlat/experimental.h"

#include <string.h>

uint64_t sd_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull; /* FNV-1a 64-bit prime */
    }
    return h;
}

uint64_t sd_u64(uint64_t h, uint64_t v)
{
    return sd_bytes(h, &v, sizeof(v));
}

/* Statistics structs are zeroed first: their padding must not differ
 * between two digests of the same state. */
#define SD_STATS(h, type, getter, unit)                                                            \
    ({                                                                                             \
        type sd_s_;                                                                                \
        memset(&sd_s_, 0, sizeof(sd_s_));                                                          \
        getter((unit), &sd_s_, sizeof(sd_s_));                                                     \
        sd_bytes((h), &sd_s_, sizeof(sd_s_));                                                      \
    })

uint64_t sd_ctx(uint64_t h, const xlat_ctx *ctx)
{
    h = sd_u64(h, xlat_now(ctx));
    h = sd_u64(h, xlat_next_event(ctx));
    h = sd_u64(h, xlat_pending_events(ctx));
    return sd_u64(h, xlat_ctx_seed(ctx));
}

static uint64_t sd_entry(uint64_t h, const xlat_tlb_entry *e)
{
    xlat_tlb_entry copy;
    memset(&copy, 0, sizeof(copy));
    copy.pasid = e->pasid;
    copy.vpn = e->vpn;
    copy.pfn = e->pfn;
    copy.page_shift = e->page_shift;
    copy.perm = e->perm;
    /* field by field: a struct copy would carry the padding, whose bytes
     * the library leaves unset */
    copy.meta.object_id = e->meta.object_id;
    copy.meta.home_gpu = e->meta.home_gpu;
    copy.meta.coal_info = e->meta.coal_info;
    copy.meta.spill_credit = e->meta.spill_credit;
    copy.meta.spilled = e->meta.spilled;
    return sd_bytes(h, &copy, sizeof(copy));
}

static void sd_entry_fn(void *user, const xlat_tlb_entry *e)
{
    uint64_t *h = user;
    *h = sd_entry(*h, e);
}

uint64_t sd_tlb(uint64_t h, const xlat_tlb *tlb)
{
    h = SD_STATS(h, xlat_tlb_stats, xlat_tlb_stats_get, tlb);
    h = sd_u64(h, xlat_tlb_count(tlb));
    h = sd_u64(h, xlat_tlb_capacity(tlb));
    h = sd_u64(h, xlat_tlb_memory(tlb));
    h = sd_u64(h, xlat_tlb_mshrs_busy(tlb));
    for (uint32_t s = 0; s < xlat_tlb_sets(tlb); s++)
        h = sd_u64(h, (uint64_t)xlat_tlb_set_foreach(tlb, s, sd_entry_fn, &h));
    return h;
}

uint64_t sd_pagetable(uint64_t h, const xlat_pagetable *pt, uint32_t pasid, const uint64_t *va,
                      size_t n)
{
    h = SD_STATS(h, xlat_pagetable_stats, xlat_pagetable_stats_get, pt);
    for (size_t i = 0; i < n; i++) {
        xlat_tlb_entry e;
        memset(&e, 0, sizeof(e));
        int rc = xlat_pagetable_lookup(pt, pasid, va[i], &e);
        h = sd_u64(h, (uint64_t)rc);
        if (rc == XLAT_OK)
            h = sd_entry(h, &e);
    }
    return h;
}

uint64_t sd_cuckoo(uint64_t h, const xlat_cuckoo *cf, const uint64_t *keys, size_t n)
{
    h = sd_u64(h, xlat_cuckoo_count(cf));
    h = sd_u64(h, xlat_cuckoo_digest(cf));
    h = sd_u64(h, xlat_cuckoo_memory(cf));
    for (size_t i = 0; i < n; i++)
        h = sd_u64(h, xlat_cuckoo_contains(cf, keys[i]));
    return h;
}

uint64_t sd_physmem(uint64_t h, const xlat_physmem *mem)
{
    for (uint32_t r = 0; r < xlat_physmem_regions(mem); r++)
        h = sd_u64(h, xlat_physmem_free_frames(mem, r));
    return sd_u64(h, xlat_physmem_memory(mem));
}

uint64_t sd_pwc(uint64_t h, const xlat_pwc *pwc, uint32_t pasid, const uint64_t *va, size_t n)
{
    h = SD_STATS(h, xlat_pwc_stats, xlat_pwc_stats_get, pwc);
    for (size_t i = 0; i < n; i++) {
        xlat_pwc_hit hit;
        memset(&hit, 0, sizeof(hit));
        h = sd_u64(h, (uint64_t)xlat_pwc_probe(pwc, pasid, va[i], &hit));
        h = sd_bytes(h, &hit, sizeof(hit));
    }
    return h;
}

uint64_t sd_walker(uint64_t h, const xlat_walker *pool)
{
    h = SD_STATS(h, xlat_walker_stats, xlat_walker_stats_get, pool);
    h = sd_u64(h, xlat_walker_buffered(pool));
    return sd_u64(h, xlat_walker_busy(pool));
}

uint64_t sd_iommu(uint64_t h, const xlat_iommu *iommu, uint32_t gpus)
{
    h = SD_STATS(h, xlat_iommu_stats, xlat_iommu_stats_get, iommu);
    for (uint32_t g = 0; g < gpus; g++)
        h = sd_u64(h, xlat_iommu_eviction_counter(iommu, g));
    h = sd_tlb(h, xlat_iommu_tlb(iommu));
    return sd_walker(h, xlat_iommu_walker(iommu));
}

uint64_t sd_gmmu(uint64_t h, const xlat_gmmu *gmmu)
{
    uint32_t local = 0, remote = 0;
    h = SD_STATS(h, xlat_gmmu_stats, xlat_gmmu_stats_get, gmmu);
    h = sd_u64(h, xlat_gmmu_outstanding(gmmu));
    h = sd_u64(h, (uint64_t)xlat_gmmu_route(gmmu));
    h = sd_u64(h, (uint64_t)xlat_gmmu_counters(gmmu, &local, &remote));
    h = sd_u64(h, local);
    return sd_u64(h, remote);
}

uint64_t sd_link(uint64_t h, const xlat_link *link)
{
    return SD_STATS(h, xlat_link_stats, xlat_link_stats_get, link);
}

uint64_t sd_fixed(uint64_t h, const xlat_fixed *fixed)
{
    h = SD_STATS(h, xlat_fixed_stats, xlat_fixed_stats_get, fixed);
    return sd_u64(h, xlat_fixed_outstanding(fixed));
}

uint64_t sd_pec(uint64_t h, const xlat_pec_buffer *pec)
{
    h = SD_STATS(h, xlat_pec_buffer_stats, xlat_pec_buffer_stats_get, pec);
    h = sd_u64(h, xlat_pec_buffer_count(pec));
    return sd_u64(h, xlat_pec_buffer_expanded(pec));
}

uint64_t sd_barre_alloc(uint64_t h, const xlat_barre_alloc *a)
{
    h = SD_STATS(h, xlat_barre_alloc_stats, xlat_barre_alloc_stats_get, a);
    return sd_u64(h, xlat_barre_alloc_expanded(a));
}

uint64_t sd_fbarre(uint64_t h, const xlat_fbarre *fb, uint32_t pasid, const uint64_t *vpn,
                   size_t n)
{
    h = SD_STATS(h, xlat_fbarre_stats, xlat_fbarre_stats_get, fb);
    for (uint32_t f = 0; f < 2; f++) {
        h = sd_u64(h, xlat_fbarre_filter_count(fb, f));
        for (size_t i = 0; i < n; i++)
            h = sd_u64(h, xlat_fbarre_filter_contains(fb, f, pasid, vpn[i]));
    }
    return h;
}

uint64_t sd_system(uint64_t h, const xlat_system *sys)
{
    h = SD_STATS(h, xlat_system_stats, xlat_system_stats_get, sys);
    uint32_t gpus = xlat_system_gpus(sys);
    for (uint32_t g = 0; g < gpus; g++) {
        h = sd_u64(h, xlat_system_gpu_memory(sys, g));
        h = sd_tlb(h, xlat_system_l1(sys, g, 0));
        h = sd_tlb(h, xlat_system_l2(sys, g));
        h = sd_link(h, xlat_system_link(sys, g));
    }
    return sd_iommu(h, xlat_system_iommu(sys), gpus);
}
