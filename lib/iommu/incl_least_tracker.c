/*
 * The Local TLB tracker of least-TLB (§4.1): a cuckoo filter per GPU in the
 * IOMMU, the entries split equally among the GPUs, recording which
 * translations a GPU's L2 TLB holds. Keys are (PASID, page, page size). A
 * lookup asks one key per page size the partition holds entries of: every
 * key asked is one more chance of a false positive, so asking the 2 MiB and
 * 1 GiB keys when only 4 KiB pages are tracked raised the rate from about
 * 0.23 (the paper's 0.2 with 4-bit fingerprints) to about 0.55.
 */
#include "incl_least.h"

static uint64_t key_of(uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    return xlat__mix64(vpn ^ xlat__mix64(((uint64_t)pasid << 8) | shift));
}

int xlat__tracker_init(struct least *s)
{
    const xlat_iommu_config *cfg = s->base.sv->cfg;
    xlat_cuckoo_config c;
    xlat_cuckoo_config_init(&c);
    c.capacity = cfg->tracker_entries / cfg->gpus;
    c.fp_bits = cfg->tracker_fp_bits;
    c.bucket_size = cfg->tracker_bucket;
    if (c.capacity == 0)
        return xlat__fail(s->base.sv->ctx, XLAT_ERR_INVAL,
                          "iommu %s: %u tracker entries cannot be split among %u GPUs",
                          s->base.sv->name, cfg->tracker_entries, cfg->gpus);
    for (uint32_t g = 0; g < cfg->gpus; g++) {
        int rc = xlat_cuckoo_create(s->base.sv->ctx, &c, &s->tracker[g]);
        if (rc != XLAT_OK)
            return rc;
    }
    return XLAT_OK;
}

void xlat__tracker_release(struct least *s)
{
    for (uint32_t g = 0; g < INCL_MAX_GPUS; g++) {
        xlat_cuckoo_destroy(s->tracker[g]);
        s->tracker[g] = NULL;
    }
}

static void count_size(struct least *s, uint32_t gpu, uint8_t shift, int by)
{
    uint32_t *n = &s->tracker_sizes[gpu][shift];
    *n = by > 0 ? *n + 1 : *n ? *n - 1 : 0;
    if (*n)
        s->tracker_shifts[gpu] |= 1ull << shift;
    else
        s->tracker_shifts[gpu] &= ~(1ull << shift);
}

void xlat__tracker_add(struct least *s, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!s->tracker[gpu])
        return;
    s->base.sv->st->tracker_inserts++;
    /* A full partition only loses remote hits: the walk always runs. */
    if (xlat_cuckoo_insert(s->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift)) != XLAT_OK)
        s->base.sv->st->tracker_full++;
    else
        count_size(s, gpu, e->page_shift & 63, +1);
}

void xlat__tracker_del(struct least *s, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (s->tracker[gpu] &&
        xlat_cuckoo_remove(s->tracker[gpu], key_of(e->pasid, e->vpn, e->page_shift)) == XLAT_OK)
        count_size(s, gpu, e->page_shift & 63, -1);
}

/* The page sizes (as a mask of shifts) whose key for (pasid, vaddr) the
 * partition of GPU g reports, asking only the sizes it holds. */
static uint64_t partition_match(const struct least *s, uint32_t g, uint32_t pasid,
                                uint64_t vaddr)
{
    uint64_t match = 0;
    for (uint64_t left = s->tracker_shifts[g]; left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        if (xlat_cuckoo_contains(s->tracker[g], key_of(pasid, vaddr >> shift, shift)))
            match |= 1ull << shift;
    }
    return match;
}

int xlat__tracker_find(const struct least *s, uint32_t pasid, uint64_t vaddr, uint32_t except)
{
    for (uint32_t g = 0; g < s->gpus; g++)
        if (g != except && s->tracker[g] && partition_match(s, g, pasid, vaddr))
            return (int)g;
    return -1;
}

void xlat__tracker_forget(struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    if (!s->tracker[gpu])
        return;
    for (uint64_t left = partition_match(s, gpu, pasid, vaddr); left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        xlat_tlb_entry e = {.pasid = pasid, .page_shift = shift, .vpn = vaddr >> shift};
        xlat__tracker_del(s, gpu, &e);
    }
}

void xlat__tracker_reset(struct least *s)
{
    for (uint32_t g = 0; g < s->gpus; g++)
        xlat_cuckoo_clear(s->tracker[g]);
    memset(s->tracker_sizes, 0, sizeof(s->tracker_sizes));
    memset(s->tracker_shifts, 0, sizeof(s->tracker_shifts));
}

bool xlat__tracker_holds(const struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    return gpu < s->gpus && s->tracker[gpu] && partition_match(s, gpu, pasid, vaddr);
}
