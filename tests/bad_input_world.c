#include "bad_input_world.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "state_digest.h"

static void *bi_alloc(void *user, size_t size, size_t align)
{
    size_t *live = user;
    void *p = NULL;
    if (size > BI_ALLOC_LIMIT - *live)
        return NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
    *live += size;
    return p;
}

static void bi_free(void *user, void *ptr, size_t size)
{
    size_t *live = user;
    *live -= size;
    free(ptr);
}

/* A setup step that must succeed; the context says why it did not. */
#define BI_OK(call) ck_assert_msg((call) == XLAT_OK, "%s: %s", #call, xlat_ctx_errmsg(w->ctx))

static const uint64_t bi_keys[] = {0x11, 0x22, 0x33, 0x44, 0x55, 0xdead};

static const uint64_t bi_probe_va[] = {BI_VA(0), BI_VA(3), BI_VA(7), BI_VA(BI_PAGES),
                                       BI_UNMAPPED};

void bi_never_done(void *user, const xlat_resp *resp)
{
    (void)user;
    (void)resp;
    ck_abort_msg("a refused request was answered");
}

/* Two chiplet regions for the Barre allocator and one for page-table nodes. */
static void bi_memory(bi_world *w)
{
    xlat_region_config r[3] = {{.base_pfn = 0xA000, .frames = 256},
                               {.base_pfn = 0xB000, .frames = 256},
                               {.base_pfn = 0x40000, .frames = 4096}};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 3;
    pc.region = r;
    BI_OK(xlat_physmem_create(w->ctx, &pc, &w->mem));
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = w->mem;
    tc.node_region = 2;
    BI_OK(xlat_pagetable_create(w->ctx, &tc, &w->pt));
    for (uint64_t p = 0; p < BI_PAGES; p++)
        BI_OK(xlat_pagetable_map(w->pt, BI_PASID, BI_VA(p), 0x5000 + p, 12,
                                            XLAT_PERM_R | XLAT_PERM_W));
}

static void bi_structures(bi_world *w)
{
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = 16;
    tc.ways = 4;
    BI_OK(xlat_tlb_create(w->ctx, &tc, &w->tlb));
    for (uint64_t p = 0; p < 4; p++) {
        xlat_tlb_entry e = {.pasid = BI_PASID, .vpn = BI_VA(p) >> 12, .pfn = 0x5000 + p,
                            .page_shift = 12, .perm = XLAT_PERM_R};
        BI_OK(xlat_tlb_insert(w->tlb, &e, NULL));
    }
    xlat_cuckoo_config cc;
    xlat_cuckoo_config_init(&cc);
    cc.capacity = 64;
    BI_OK(xlat_cuckoo_create(w->ctx, &cc, &w->cf));
    for (size_t i = 0; i + 1 < sizeof(bi_keys) / sizeof(bi_keys[0]); i++)
        BI_OK(xlat_cuckoo_insert(w->cf, bi_keys[i]));
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    BI_OK(xlat_pwc_create(w->ctx, &pc, &w->pwc));
    BI_OK(xlat_pwc_fill(w->pwc, BI_PASID, BI_VA(0), 2, 0x40010));
    BI_OK(xlat_pwc_fill(w->pwc, BI_PASID, BI_VA(0), 3, 0x40011));
    xlat_pec_buffer_config ec;
    xlat_pec_buffer_config_init(&ec);
    ec.expanded = true; /* the layout of the allocator's default max_merge */
    BI_OK(xlat_pec_buffer_create(w->ctx, &ec, &w->pec));
}

static void bi_timed_units(bi_world *w)
{
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 5;
    BI_OK(xlat_fixed_create(w->ctx, &fc, &w->fixed));
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.latency = 3;
    BI_OK(xlat_link_create(w->ctx, &lc, &w->link));
    xlat_target next = TEST_TARGET(fixed, w->fixed);
    BI_OK(xlat_link_set_next(w->link, &next));
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w->pt;
    wc.pwc = w->pwc;
    wc.walkers = 2;
    wc.queue_entries = 8;
    BI_OK(xlat_walker_create(w->ctx, &wc, &w->walker));
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.walker = w->walker;
    BI_OK(xlat_gmmu_create(w->ctx, &gc, &w->gmmu));
    BI_OK(xlat_gmmu_set_iommu(w->gmmu, &next));
}

static void bi_barre(bi_world *w)
{
    BI_OK(xlat_barre_alloc_create(w->ctx, &w->bac, &w->ba));
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 2;
    o.start_vpn = 0x100;
    o.pages = 4;
    BI_OK(xlat_barre_alloc_map(w->ba, &o, w->pec, &w->pec_entry));
    BI_OK(xlat_fbarre_mesh_create(w->ctx, &w->meshc, &w->mesh));
    w->fb = xlat_fbarre_mesh_chiplet(w->mesh, 0);
    ck_assert_ptr_nonnull(w->fb);
}

static void bi_system(bi_world *w)
{
    ck_assert_msg(xlat_system_create(w->ctx, &w->sysc, &w->sys) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(w->ctx));
    w->iommu = xlat_system_iommu(w->sys);
    xlat_tlb_entry e = {.pasid = BI_PASID, .vpn = BI_VA(1) >> 12, .pfn = 0x5001,
                        .page_shift = 12, .perm = XLAT_PERM_R};
    BI_OK(xlat_tlb_insert(xlat_iommu_tlb(w->iommu), &e, NULL));
    BI_OK(xlat_tlb_insert(xlat_system_l2(w->sys, 1), &e, NULL));
    w->port.struct_size = sizeof(w->port);
    BI_OK(xlat_iommu_l2_port(w->iommu, 0, &w->port));
}

/* Valid configurations of every kind; a case spoils one field. */
static void bi_configs(bi_world *w)
{
    xlat_ctx_config_init(&w->ctxc);
    xlat_tlb_config_init(&w->tlbc);
    w->tlbc.entries = 16;
    w->tlbc.ways = 4;
    xlat_cuckoo_config_init(&w->cfc);
    w->cfc.capacity = 64;
    xlat_pwc_config_init(&w->pwcc);
    w->region[0] = (xlat_region_config){.base_pfn = 0x900000, .frames = 64};
    w->region[1] = (xlat_region_config){.base_pfn = 0x901000, .frames = 64};
    xlat_physmem_config_init(&w->memc);
    w->memc.regions = 2;
    w->memc.region = w->region;
    xlat_pagetable_config_init(&w->ptc);
    w->ptc.mem = w->mem;
    w->ptc.node_region = 2;
    xlat_fixed_config_init(&w->fixc);
    xlat_link_config_init(&w->linkc);
    xlat_walker_config_init(&w->walkc);
    w->walkc.pt = w->pt;
    xlat_dwspp_preset(&w->dwsppc, XLAT_DWSPP_DEFAULT);
    xlat_iommu_walker_config_init(&w->iommu_walkc);
    w->iommu_walkc.pt = w->pt;
    xlat_gmmu_config_init(&w->gmmuc);
    w->gmmuc.walker = w->walker;
    xlat_iommu_config_init(&w->iommuc);
    w->iommuc.walk = &w->iommu_walkc;
    w->iommuc.tlb_entries = 64;
    w->iommuc.tlb_ways = 4;
    xlat_system_config_init(&w->sysc);
    w->sysc.gpus = BI_GPUS;
    w->sysc.cus = 1;
    w->sysc.iommu = &w->iommuc;
    xlat_pec_buffer_config_init(&w->pecc);
    xlat_barre_alloc_config_init(&w->bac);
    w->bac.mem = w->mem;
    w->bac.pt = w->pt;
    w->bac.chiplets = 2;
    w->bac.base_pfn[0] = 0xA000;
    w->bac.base_pfn[1] = 0xB000;
    xlat_barre_object_init(&w->obj);
    w->obj.pasid = 3;
    w->obj.start_vpn = 0x200;
    w->obj.pages = 4;
    xlat_fbarre_config_init(&w->fbc);
    w->fbc.chiplets = 2;
    w->fbc.base_pfn[0] = 0xA000;
    w->fbc.base_pfn[1] = 0xB000;
    xlat_fbarre_mesh_config_init(&w->meshc);
    w->meshc.chiplets = 2;
    w->meshc.chiplet = &w->fbc;
}

void bi_build(bi_world *w)
{
    memset(w, 0, sizeof(*w));
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = 7;
    w->allocator = (xlat_allocator){.alloc = bi_alloc, .free = bi_free, .user = &w->live_bytes};
    cc.allocator = &w->allocator;
    BI_OK(xlat_ctx_create(&cc, &w->ctx));
    bi_memory(w);
    bi_structures(w);
    bi_timed_units(w);
    bi_configs(w);
    bi_barre(w);
    bi_system(w);
    /* A little time and one request in flight: a clock and a queue to keep. */
    BI_OK(xlat_advance(w->ctx, 10));
    xlat_req r = {.id = 1, .vaddr = BI_VA(2), .pasid = BI_PASID};
    BI_OK(xlat_fixed_translate(w->fixed, &r, bi_never_done, NULL));
    w->req = (xlat_req){.id = 9, .vaddr = BI_VA(0), .pasid = BI_PASID};
    w->e = (xlat_tlb_entry){.pasid = BI_PASID, .vpn = BI_VA(5) >> 12, .pfn = 0x5005,
                            .page_shift = 12, .perm = XLAT_PERM_R};
    w->target = (xlat_target)XLAT_TARGET_INIT;
}

/* What a create wrongly made: the row has failed already, and these go
 * first so that the world's own units are no longer held. */
static void bi_destroy_wrongly_made(bi_world *w)
{
    xlat_system_destroy(w->o_sys);
    xlat_fbarre_mesh_destroy(w->o_mesh);
    xlat_fbarre_destroy(w->o_fb);
    xlat_barre_alloc_destroy(w->o_ba);
    xlat_gmmu_destroy(w->o_gmmu);
    xlat_iommu_destroy(w->o_iommu);
    xlat_walker_destroy(w->o_walker);
    xlat_link_destroy(w->o_link);
    xlat_fixed_destroy(w->o_fixed);
    xlat_pec_buffer_destroy(w->o_pec);
    xlat_pwc_destroy(w->o_pwc);
    xlat_cuckoo_destroy(w->o_cf);
    xlat_tlb_destroy(w->o_tlb);
    xlat_pagetable_destroy(w->o_pt);
    xlat_physmem_destroy(w->o_mem);
    xlat_ctx_destroy(w->o_ctx);
}

void bi_destroy(bi_world *w)
{
    bi_destroy_wrongly_made(w);
    ck_assert_int_eq(xlat_system_destroy(w->sys), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_mesh_destroy(w->mesh), XLAT_OK);
    ck_assert_int_eq(xlat_barre_alloc_destroy(w->ba), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_destroy(w->gmmu), XLAT_OK);
    ck_assert_int_eq(xlat_walker_destroy(w->walker), XLAT_OK);
    ck_assert_int_eq(xlat_link_destroy(w->link), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_destroy(w->fixed), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(w->pec), XLAT_OK);
    ck_assert_int_eq(xlat_pwc_destroy(w->pwc), XLAT_OK);
    ck_assert_int_eq(xlat_cuckoo_destroy(w->cf), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(w->tlb), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_destroy(w->pt), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_destroy(w->mem), XLAT_OK);
    xlat_ctx_destroy(w->ctx);
}

uint64_t bi_digest(const bi_world *w)
{
    size_t npv = sizeof(bi_probe_va) / sizeof(bi_probe_va[0]);
    uint64_t object_va[] = {0x100000, 0x101000, 0x103000, 0x104000};
    uint64_t vpns[] = {0x100, 0x101, 0x40000, 0x40001};
    uint64_t h = sd_ctx(SD_START, w->ctx);
    h = sd_physmem(h, w->mem);
    h = sd_pagetable(h, w->pt, BI_PASID, bi_probe_va, npv);
    h = sd_pagetable(h, w->pt, 2, object_va, 4);
    h = sd_tlb(h, w->tlb);
    h = sd_cuckoo(h, w->cf, bi_keys, sizeof(bi_keys) / sizeof(bi_keys[0]));
    h = sd_pwc(h, w->pwc, BI_PASID, bi_probe_va, npv);
    h = sd_fixed(h, w->fixed);
    h = sd_link(h, w->link);
    h = sd_walker(h, w->walker);
    h = sd_gmmu(h, w->gmmu);
    h = sd_pec(h, w->pec);
    h = sd_barre_alloc(h, w->ba);
    for (uint32_t g = 0; g < 2; g++)
        h = sd_fbarre(h, xlat_fbarre_mesh_chiplet(w->mesh, g), 2, vpns, 4);
    return sd_system(h, w->sys);
}

/* Whether `msg` holds `arg` as a whole name (not inside a longer one). */
static bool bi_names(const char *msg, const char *arg)
{
    size_t n = strlen(arg);
    for (const char *p = strstr(msg, arg); p; p = strstr(p + 1, arg)) {
        bool before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return true;
    }
    return false;
}

/* What is wrong with one row's outcome, or NULL. */
static const char *bi_verdict(const bi_case *c, int rc, const char *before, const char *after,
                              bool same_state)
{
    if (rc != c->rc)
        return "wrong return value";
    if (!c->arg && strcmp(before, after) != 0)
        return "a message where the row expects none (name its argument)";
    if (c->arg && strcmp(before, after) == 0)
        return "no new message";
    if (c->arg && !bi_names(after, c->arg))
        return "message does not name the argument";
    if (!same_state)
        return "state changed";
    return NULL;
}

static size_t bi_run_one(const bi_case *c, char *report, size_t room)
{
    bi_world w;
    char before[512];
    bi_build(&w);
    snprintf(before, sizeof(before), "%s", xlat_ctx_errmsg(w.ctx));
    uint64_t d0 = bi_digest(&w);
    int rc = c->call(&w);
    uint64_t d1 = bi_digest(&w);
    const char *after = xlat_ctx_errmsg(w.ctx);
    const char *why = bi_verdict(c, rc, before, after, d0 == d1);
    size_t used = 0;
    if (why)
        used = (size_t)snprintf(report, room, "\n  %s: %s (rc %d, want %d; message \"%s\")", c->text,
                                why, rc, c->rc, after);
    bi_destroy(&w);
    return used < room ? used : room;
}

void bi_run(const bi_case *rows, size_t n)
{
    static char report[16384];
    size_t used = 0;
    int bad = 0;
    report[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t u = bi_run_one(&rows[i], report + used, sizeof(report) - used);
        bad += u > 0;
        used += u;
        if (used + 1 >= sizeof(report))
            used = sizeof(report) - 1;
    }
    ck_assert_msg(bad == 0, "%d of %zu bad-input cases failed:%s", bad, n, report);
}

bool bi_all_byte(const void *p, size_t n, unsigned char b)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != b)
            return false;
    return true;
}

bool bi_all_zero(const void *p, size_t n)
{
    return bi_all_byte(p, n, 0);
}
