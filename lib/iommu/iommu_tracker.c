/*
 * The Local TLB tracker of least-TLB (§4.1): a cuckoo filter per GPU in the
 * IOMMU, the entries split equally among the GPUs, recording which
 * translations a GPU's L2 TLB holds. Keys are (PASID, page, page size), so a
 * lookup tries each page size an x86-64 table can map.
 */
#include "iommu_internal.h"

static const uint8_t page_shifts[] = {12, 21, 30};

static uint64_t key_of(uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    return xlat__mix64(vpn ^ xlat__mix64(((uint64_t)pasid << 8) | shift));
}

int xlat__tracker_init(struct xlat_iommu *m)
{
    if (m->cfg.inclusion != XLAT_INCL_LEAST)
        return XLAT_OK;
    xlat_cuckoo_config c;
    xlat_cuckoo_config_init(&c);
    c.capacity = m->cfg.tracker_entries / m->cfg.gpus;
    c.fp_bits = m->cfg.tracker_fp_bits;
    c.bucket_size = m->cfg.tracker_bucket;
    if (c.capacity == 0)
        return xlat__fail(m->ctx, XLAT_ERR_INVAL,
                          "iommu %s: %u tracker entries cannot be split among %u GPUs", m->name,
                          m->cfg.tracker_entries, m->cfg.gpus);
    for (uint32_t g = 0; g < m->cfg.gpus; g++) {
        int rc = xlat_cuckoo_create(m->ctx, &c, &m->tracker[g]);
        if (rc != XLAT_OK)
            return rc;
    }
    return XLAT_OK;
}

void xlat__tracker_release(struct xlat_iommu *m)
{
    for (uint32_t g = 0; g < IOMMU_MAX_GPUS; g++) {
        xlat_cuckoo_destroy(m->tracker[g]);
        m->tracker[g] = NULL;
    }
}

void xlat__tracker_add(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!m->tracker[gpu])
        return;
    m->st.tracker_inserts++;
    /* A full partition only loses remote hits: the walk always runs. */
    if (xlat_cuckoo_insert(m->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift)) != XLAT_OK)
        m->st.tracker_full++;
}

void xlat__tracker_del(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (m->tracker[gpu])
        xlat_cuckoo_remove(m->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift));
}

static bool partition_holds(const struct xlat_iommu *m, uint32_t g, uint32_t pasid,
                            uint64_t vaddr)
{
    for (size_t i = 0; i < sizeof(page_shifts); i++)
        if (xlat_cuckoo_contains(m->tracker[g],
                                 key_of(pasid, vaddr >> page_shifts[i], page_shifts[i])))
            return true;
    return false;
}

int xlat__tracker_find(const struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr, uint32_t except)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        if (g != except && m->tracker[g] && partition_holds(m, g, pasid, vaddr))
            return (int)g;
    return -1;
}

void xlat__tracker_reset(struct xlat_iommu *m)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        xlat_cuckoo_clear(m->tracker[g]);
}

bool xlat_iommu_tracked(const xlat_iommu *m, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    return m && gpu < m->cfg.gpus && m->tracker[gpu] && partition_holds(m, gpu, pasid, vaddr);
}
