#include "least_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <xlat/experimental.h> /* preloads and the papers' rules, outside the stable API */

static xlat_tlb_entry page(uint64_t vpn)
{
    xlat_tlb_entry e = {.pasid = 1, .vpn = vpn, .pfn = 0x1000 + vpn, .page_shift = 12,
                        .perm = XLAT_PERM_R | XLAT_PERM_W};
    return e;
}

static void make_l2(least_fixture *f, uint32_t g, uint32_t entries)
{
    char name[16];
    snprintf(name, sizeof(name), "gpu%u.l2", g);
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.name = name;
    c.entries = entries;
    c.ways = entries; /* one set: LRU over the whole TLB */
    c.latency = 10;
    c.mshrs = 4;
    ck_assert_int_eq(xlat_tlb_create(f->ctx, &c, &f->l2[g]), XLAT_OK);
    xlat_target t = TEST_TARGET(iommu, f->iommu);
    ck_assert_int_eq(xlat_tlb_set_next(f->l2[g], &t), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(f->iommu, g, f->l2[g]), XLAT_OK);
}

void lf_build(least_fixture *f, uint32_t l2_entries, uint32_t iommu_entries, xlat_incl incl,
              bool multi_app, xlat_spill_rx rx)
{
    lf_build_gpus(f, LF_GPUS, l2_entries, iommu_entries, incl, multi_app, rx);
}

void lf_build_gpus(least_fixture *f, uint32_t gpus, uint32_t l2_entries, uint32_t iommu_entries,
                   xlat_incl incl, bool multi_app, xlat_spill_rx rx)
{
    ck_assert(gpus >= 1 && gpus <= LF_MAX_GPUS);
    memset(f, 0, sizeof(*f));
    f->gpus = gpus;
    f->ctx = test_ctx(1, NULL);
    test_table(f->ctx, &f->mem, &f->pt);
    for (uint64_t vpn = 1; vpn <= 0x13; vpn++)
        ck_assert_int_eq(xlat_pagetable_map(f->pt, 1, vpn << 12, 0x1000 + vpn, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = f->pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.tlb_entries = iommu_entries;
    ic.tlb_ways = iommu_entries;
    ic.gpus = gpus;
    ic.inclusion = incl;
    ic.multi_app = multi_app;
    ic.spill_rx = rx;
    ic.remote_latency = 100;  /* a remote L2 answers before a 500-cycle walk */
    ic.tracker_fp_bits = 16;  /* no false positives in a walk-through */
    ck_assert_int_eq(xlat_iommu_create(f->ctx, &ic, &f->iommu), XLAT_OK);
    for (uint32_t g = 0; g < gpus; g++)
        make_l2(f, g, l2_entries);
}

void lf_destroy(least_fixture *f)
{
    for (uint32_t g = 0; g < f->gpus; g++) /* upstream first: each L2 holds the IOMMU */
        ck_assert_int_eq(xlat_tlb_destroy(f->l2[g]), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_destroy(f->iommu), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_destroy(f->pt), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_destroy(f->mem), XLAT_OK);
    xlat_ctx_destroy(f->ctx);
}

static void on_done(void *user, const xlat_resp *r)
{
    least_fixture *f = user;
    f->last = *r;
    f->answers++;
}

const char *lf_access(least_fixture *f, uint32_t gpu, uint64_t vpn)
{
    static char out[16];
    xlat_req req = {.id = vpn, .vaddr = vpn << 12 | 0x18, .pasid = 1, .gpu = (uint16_t)gpu};
    int before = f->answers;
    ck_assert_int_eq(xlat_tlb_translate(f->l2[gpu], &req, on_done, f), XLAT_OK);
    while (f->answers == before)
        ck_assert_int_eq(xlat_advance(f->ctx, xlat_next_event(f->ctx) - xlat_now(f->ctx)), XLAT_OK);
    xlat_advance(f->ctx, 1000); /* let late answers and victims settle */
    ck_assert_int_eq(f->last.status, XLAT_OK);
    ck_assert_uint_eq(f->last.paddr >> 12, 0x1000 + vpn); /* a 4 KiB or a larger page */
    const char *who = test_resolver(f->ctx, &f->last);
    char own[16];
    snprintf(own, sizeof(own), "gpu%u.l2", gpu);
    if (!strcmp(who, own))
        return "L2";
    if (!strcmp(who, "iommu"))
        return "IOMMU";
    if (!strncmp(who, "gpu", 3)) {
        snprintf(out, sizeof(out), "REMOTE(%lu)", strtoul(who + 3, NULL, 10));
        return out;
    }
    return "WALK";
}

typedef struct dump {
    char *buf;
    size_t n, used;
} dump;

static void add_entry(void *user, const xlat_tlb_entry *e)
{
    dump *d = user;
    int w = snprintf(d->buf + d->used, d->n - d->used, "%s0x%llX%s", d->used ? " " : "",
                     (unsigned long long)e->vpn, e->meta.spilled ? "*" : "");
    if (w > 0 && (size_t)w < d->n - d->used)
        d->used += (size_t)w;
}

const char *lf_contents(least_fixture *f, xlat_tlb *t, char *buf, size_t n)
{
    (void)f;
    dump d = {buf, n, 0};
    buf[0] = 0;
    ck_assert_int_eq(xlat_tlb_set_foreach(t, 0, add_entry, &d), XLAT_OK);
    return buf;
}

const char *lf_tracker(least_fixture *f, uint32_t gpu, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint64_t vpn = 1; vpn <= 0x13; vpn++) {
        if (!xlat_iommu_tracked(f->iommu, gpu, 1, vpn << 12))
            continue;
        int w = snprintf(buf + used, n - used, "%s0x%llX", used ? " " : "",
                         (unsigned long long)vpn);
        if (w > 0 && (size_t)w < n - used)
            used += (size_t)w;
    }
    return buf;
}

void lf_preload_l2(least_fixture *f, uint32_t gpu, uint64_t vpn)
{
    xlat_tlb_entry e = page(vpn);
    ck_assert_int_eq(xlat_iommu_preload_l2(f->iommu, gpu, &e), XLAT_OK);
}

void lf_preload_iommu(least_fixture *f, uint32_t source, uint64_t vpn)
{
    xlat_tlb_entry e = page(vpn);
    ck_assert_int_eq(xlat_iommu_preload(f->iommu, source, &e), XLAT_OK);
}
