/*
 * The Local TLB tracker of least-TLB (§4.1): a cuckoo filter per GPU in the
 * IOMMU, the entries split equally among the GPUs, recording which
 * translations a GPU's L2 TLB holds. Keys are (PASID, page, page size). A
 * lookup asks one key per page size the partition holds entries of: every
 * key asked is one more chance of a false positive, so asking the 2 MiB and
 * 1 GiB keys when only 4 KiB pages are tracked raised the rate from about
 * 0.23 (the paper's 0.2 with 4-bit fingerprints) to about 0.55.
 */
#include "iommu_internal.h"

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

static void count_size(struct xlat_iommu *m, uint32_t gpu, uint8_t shift, int by)
{
    uint32_t *n = &m->tracker_sizes[gpu][shift];
    *n = by > 0 ? *n + 1 : *n ? *n - 1 : 0;
    if (*n)
        m->tracker_shifts[gpu] |= 1ull << shift;
    else
        m->tracker_shifts[gpu] &= ~(1ull << shift);
}

void xlat__tracker_add(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!m->tracker[gpu])
        return;
    m->st.tracker_inserts++;
    /* A full partition only loses remote hits: the walk always runs. */
    if (xlat_cuckoo_insert(m->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift)) != XLAT_OK)
        m->st.tracker_full++;
    else
        count_size(m, gpu, e->page_shift & 63, +1);
}

void xlat__tracker_del(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (m->tracker[gpu] &&
        xlat_cuckoo_remove(m->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift)) == XLAT_OK)
        count_size(m, gpu, e->page_shift & 63, -1);
}

/* The page sizes (as a mask of shifts) whose key for (pasid, vaddr) the
 * partition of GPU g reports, asking only the sizes it holds. */
static uint64_t partition_match(const struct xlat_iommu *m, uint32_t g, uint32_t pasid,
                                uint64_t vaddr)
{
    uint64_t match = 0;
    for (uint64_t left = m->tracker_shifts[g]; left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        if (xlat_cuckoo_contains(m->tracker[g], key_of(pasid, vaddr >> shift, shift)))
            match |= 1ull << shift;
    }
    return match;
}

int xlat__tracker_find(const struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr, uint32_t except)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        if (g != except && m->tracker[g] && partition_match(m, g, pasid, vaddr))
            return (int)g;
    return -1;
}

void xlat__tracker_forget(struct xlat_iommu *m, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    if (!m->tracker[gpu])
        return;
    for (uint64_t left = partition_match(m, gpu, pasid, vaddr); left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        xlat_tlb_entry e = {.pasid = pasid, .page_shift = shift, .vpn = vaddr >> shift};
        xlat__tracker_del(m, gpu, &e);
    }
}

void xlat__tracker_reset(struct xlat_iommu *m)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        xlat_cuckoo_clear(m->tracker[g]);
    memset(m->tracker_sizes, 0, sizeof(m->tracker_sizes));
    memset(m->tracker_shifts, 0, sizeof(m->tracker_shifts));
}

bool xlat_iommu_tracked(const xlat_iommu *m, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    return m && gpu < m->cfg.gpus && m->tracker[gpu] && partition_match(m, gpu, pasid, vaddr);
}
