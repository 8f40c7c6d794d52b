/* The group allocator's fixture and its randomized differential run
 * (tests/barre_alloc_fixture.h). */
#include "barre_alloc_fixture.h"

void ba_setup(ba_fixture *f, uint32_t chiplets, uint64_t frames, uint32_t max_merge,
              bool whole_object_fallback, counting_alloc *ca)
{
    memset(f, 0, sizeof(*f));
    f->ctx = test_ctx(1, ca);
    f->chiplets = chiplets;
    f->frames = frames;
    xlat_region_config r[XLAT_BARRE_MAX_CHIPLETS + 1];
    for (uint32_t g = 0; g < chiplets; g++) {
        f->base[g] = 0xA000 + 0x1000 * (uint64_t)g;
        r[g] = (xlat_region_config){.base_pfn = f->base[g], .frames = frames};
    }
    r[chiplets] = (xlat_region_config){.base_pfn = BA_NODE_BASE, .frames = 4096};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = chiplets + 1;
    pc.region = r;
    ck_assert_int_eq(xlat_physmem_create(f->ctx, &pc, &f->mem), XLAT_OK);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = f->mem;
    tc.node_region = chiplets;
    ck_assert_int_eq(xlat_pagetable_create(f->ctx, &tc, &f->pt), XLAT_OK);
    xlat_barre_alloc_config c;
    xlat_barre_alloc_config_init(&c);
    c.mem = f->mem;
    c.pt = f->pt;
    c.chiplets = chiplets;
    c.max_merge = max_merge;
    c.whole_object_fallback = whole_object_fallback;
    memcpy(c.base_pfn, f->base, sizeof(f->base));
    ck_assert_int_eq(xlat_barre_alloc_create(f->ctx, &c, &f->a), XLAT_OK);
}

void ba_teardown(ba_fixture *f)
{
    ck_assert_int_eq(xlat_barre_alloc_destroy(f->a), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_destroy(f->pt), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_destroy(f->mem), XLAT_OK);
    xlat_ctx_destroy(f->ctx);
}

void ba_take_all_but(ba_fixture *f, uint32_t g, const uint64_t *keep, size_t n)
{
    for (uint64_t l = 0; l < f->frames; l++) {
        bool kept = false;
        for (size_t i = 0; i < n; i++)
            kept |= keep[i] == l;
        if (!kept)
            ck_assert_int_eq(xlat_physmem_take(f->mem, f->base[g] + l, 1), XLAT_OK);
    }
}

uint64_t ba_wrong_frames(const ba_fixture *f, const xlat_pec_entry *d, uint64_t *computed)
{
    bool expanded = xlat_barre_alloc_expanded(f->a);
    uint64_t wrong = 0;
    for (uint64_t p = d->start_vpn; p <= d->end_vpn; p++) {
        xlat_tlb_entry ep;
        ck_assert_int_eq(xlat_pagetable_lookup(f->pt, d->pasid, p << 12, &ep), XLAT_OK);
        xlat_coal_info ci;
        xlat_coal_decode((uint64_t)ep.meta.coal_info << 52, expanded, &ci);
        for (uint64_t q = d->start_vpn; q <= d->end_vpn; q++) {
            uint64_t pfn;
            if (xlat_pec_calc(d, f->base, p, ep.pfn, &ci, q, &pfn) != XLAT_OK)
                continue;
            xlat_tlb_entry eq;
            ck_assert_int_eq(xlat_pagetable_lookup(f->pt, d->pasid, q << 12, &eq), XLAT_OK);
            *computed += 1;
            wrong += pfn != eq.pfn;
        }
    }
    return wrong;
}

/* ---- the randomized run ------------------------------------------------ */

#define BA_OBJECTS 10

struct ba_trial {
    ba_fixture f;
    uint64_t rng;
    xlat_pec_entry live[BA_OBJECTS];
    uint32_t n;
    uint64_t next_vpn;
    ba_random_result *r;
};

static uint64_t pick(struct ba_trial *t, uint64_t n) { return test_rand(&t->rng) % n; }

static uint64_t free_frames(const ba_fixture *f)
{
    uint64_t n = 0;
    for (uint32_t g = 0; g < f->chiplets; g++)
        n += xlat_physmem_free_frames(f->mem, g);
    return n;
}

static void random_object(struct ba_trial *t, xlat_barre_object *o)
{
    xlat_barre_object_init(o);
    o->pasid = 1 + (uint32_t)pick(t, 2);
    o->pages = 1 + pick(t, 40);
    o->start_vpn = t->next_vpn;
    t->next_vpn += o->pages + pick(t, 8);
    o->placement = (xlat_barre_placement)pick(t, 3);
    o->interlv_gran = 1 + (uint32_t)pick(t, 6);
    o->positions = (uint8_t)pick(t, t->f.chiplets + 1); /* 0: every chiplet */
    uint8_t perm[XLAT_BARRE_MAX_CHIPLETS] = {0};
    for (uint32_t g = 0; g < t->f.chiplets; g++)
        perm[g] = (uint8_t)g;
    for (uint32_t g = t->f.chiplets; g > 1; g--) { /* Fisher-Yates */
        uint32_t k = (uint32_t)pick(t, g);
        uint8_t x = perm[g - 1];
        perm[g - 1] = perm[k];
        perm[k] = x;
    }
    memcpy(o->gpu_map, perm, sizeof(perm));
}

static void check_all(struct ba_trial *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        t->r->wrong += ba_wrong_frames(&t->f, &t->live[i], &t->r->computed);
}

static void try_map(struct ba_trial *t)
{
    xlat_barre_object o;
    random_object(t, &o);
    uint64_t before = free_frames(&t->f);
    int rc = xlat_barre_alloc_map(t->f.a, &o, NULL, &t->live[t->n]);
    if (rc == XLAT_OK) {
        t->n++;
        t->r->objects++;
        return;
    }
    ck_assert_int_eq(rc, XLAT_ERR_FULL);
    t->r->failed_maps++;
    t->r->leaked += free_frames(&t->f) != before; /* a failed map gives every frame back */
}

static void try_migrate(struct ba_trial *t)
{
    const xlat_pec_entry *d = &t->live[pick(t, t->n)];
    uint64_t vpn = d->start_vpn + pick(t, d->end_vpn - d->start_vpn + 1);
    int rc = xlat_barre_alloc_migrate(t->f.a, d, vpn, (uint32_t)pick(t, t->f.chiplets), NULL);
    ck_assert(rc == XLAT_OK || rc == XLAT_ERR_FULL);
    t->r->migrations += rc == XLAT_OK;
}

static void try_unmap(struct ba_trial *t)
{
    uint32_t i = (uint32_t)pick(t, t->n);
    const xlat_pec_entry *d = &t->live[i];
    ck_assert_int_eq(xlat_barre_alloc_unmap(t->f.a, d, NULL),
                     (int)(d->end_vpn - d->start_vpn + 1));
    t->live[i] = t->live[--t->n];
}

static void fragment(struct ba_trial *t)
{
    uint64_t percent = pick(t, 60);
    for (uint32_t g = 0; g < t->f.chiplets; g++)
        for (uint64_t l = 0; l < t->f.frames; l++)
            if (pick(t, 100) < percent)
                ck_assert_int_eq(xlat_physmem_take(t->f.mem, t->f.base[g] + l, 1), XLAT_OK);
}

static void one_trial(struct ba_trial *t)
{
    uint32_t merge = 1 + (uint32_t)pick(t, XLAT_BARRE_MAX_MERGE);
    uint32_t chiplets = 2 + (uint32_t)pick(t, merge > 1 ? 3 : 7);
    ba_setup(&t->f, chiplets, 32 + pick(t, 96), merge, pick(t, 4) == 0, NULL);
    fragment(t);
    for (uint32_t step = 0; step < 24; step++) {
        uint64_t what = pick(t, 8);
        if (t->n < BA_OBJECTS && (t->n == 0 || what < 4))
            try_map(t);
        else if (what < 7)
            try_migrate(t);
        else
            try_unmap(t);
        check_all(t);
    }
    ba_teardown(&t->f);
}

void ba_random_run(uint64_t seed, uint32_t trials, ba_random_result *r)
{
    memset(r, 0, sizeof(*r));
    for (uint32_t i = 0; i < trials; i++) {
        struct ba_trial t = {.rng = seed * 1000003 + i, .next_vpn = 0x100, .r = r};
        one_trial(&t);
    }
}
