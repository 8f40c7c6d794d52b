/* The randomized Barre Chord MCM-GPU (tests/barre_system_random.h). */
#include <stdlib.h>

#include "barre_alloc_fixture.h"
#include "barre_system_random.h"

#define BS_OBJECTS 5

typedef struct bs_run {
    ba_fixture f;
    xlat_pec_buffer *pec;
    xlat_pec_entry live[BS_OBJECTS];
    uint32_t n;
    xlat_fbarre_config fb;
    xlat_system *sys;
    uint64_t rng;
    uint8_t *answers;
    bs_result *r;
} bs_run;

static uint64_t pick(bs_run *w, uint64_t n) { return test_rand(&w->rng) % n; }

static void on_answer(void *user, const xlat_resp *resp)
{
    bs_run *w = user;
    w->r->twice += w->answers[resp->id]++ != 0;
    xlat_tlb_entry e;
    bool mapped = xlat_pagetable_lookup(w->f.pt, resp->pasid, resp->vaddr, &e) == XLAT_OK;
    w->r->wrong += resp->status != XLAT_OK || !mapped || resp->pfn != e.pfn;
}

/* A random LASP object over every chiplet in a random order. */
static void map_object(bs_run *w, uint64_t start)
{
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.start_vpn = start;
    o.pages = 8 + pick(w, 57);
    o.interlv_gran = 1 + (uint32_t)pick(w, 4);
    for (uint32_t g = 0; g < 4; g++)
        o.gpu_map[g] = (uint8_t)g;
    for (uint32_t g = 4; g > 1; g--) {
        uint32_t k = (uint32_t)pick(w, g);
        uint8_t x = o.gpu_map[g - 1];
        o.gpu_map[g - 1] = o.gpu_map[k];
        o.gpu_map[k] = x;
    }
    ck_assert_int_eq(xlat_barre_alloc_map(w->f.a, &o, w->pec, &w->live[w->n++]), XLAT_OK);
}

static void build(bs_run *w, bool expanded)
{
    ba_setup(&w->f, 4, 1024, expanded ? 2 : 1, false, NULL);
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    pc.entries = BS_OBJECTS;
    pc.expanded = expanded;
    ck_assert_int_eq(xlat_pec_buffer_create(w->f.ctx, &pc, &w->pec), XLAT_OK);
    for (uint32_t i = 0; i < BS_OBJECTS; i++)
        map_object(w, 0x1000 + 0x100 * (uint64_t)i);
    static xlat_mcm_config mcm; /* its pointers lead into itself */
    ck_assert_int_eq(xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE), XLAT_OK);
    mcm.system.cus = 4;
    mcm.walk.pt = w->f.pt;
    mcm.walk.pec = w->pec;
    mcm.walk.pec_base_pfn = w->f.base;
    mcm.walk.pec_chiplets = 4;
    mcm.walk.pec_expanded = expanded;
    mcm.walk.coal_aware = pick(w, 2);
    xlat_fbarre_config_init(&w->fb);
    memcpy(w->fb.base_pfn, w->f.base, 4 * sizeof(w->f.base[0]));
    w->fb.expanded = expanded;
    mcm.system.fbarre = &w->fb;
    mcm.system.fbarre_pec = w->pec;
    ck_assert_int_eq(xlat_system_create(w->f.ctx, &mcm.system, &w->sys), XLAT_OK);
}

static void run_to_idle(bs_run *w)
{
    while (xlat_next_event(w->f.ctx) != XLAT_NEVER)
        xlat_advance(w->f.ctx, xlat_next_event(w->f.ctx) - xlat_now(w->f.ctx));
}

static void burst(bs_run *w, uint64_t goal)
{
    while (w->r->sent < goal) {
        const xlat_pec_entry *d = &w->live[pick(w, w->n)];
        uint64_t vpn = d->start_vpn + pick(w, d->end_vpn - d->start_vpn + 1);
        xlat_req req = {.id = w->r->sent, .vaddr = vpn << 12, .pasid = 1,
                        .gpu = (uint16_t)pick(w, 4), .cu = (uint16_t)pick(w, 4)};
        if (xlat_system_translate(w->sys, &req, on_answer, w) == XLAT_OK)
            w->r->sent++;
        if (pick(w, 3) == 0)
            xlat_tick(w->f.ctx);
    }
    run_to_idle(w);
}

/* With nothing in flight: pages leave their groups, and the system shoots
 * down every page the allocator lists. */
static void migrate_some(bs_run *w)
{
    for (uint64_t k = pick(w, 3); k > 0; k--) {
        const xlat_pec_entry *d = &w->live[pick(w, w->n)];
        uint64_t vpn = d->start_vpn + pick(w, d->end_vpn - d->start_vpn + 1);
        int rc = xlat_system_barre_migrate(w->sys, w->f.a, d, vpn, (uint32_t)pick(w, 4), NULL);
        ck_assert(rc >= 0 || rc == XLAT_ERR_FULL);
        w->r->migrations += rc >= 0;
    }
}

/* The walkers' PEC answers, wherever the IOMMU keeps its pool. */
static void sum_pec(void *user, uint32_t unit, const char *kind, const char *name,
                    const char *counter, uint64_t value)
{
    (void)unit;
    (void)name;
    if (strcmp(kind, "walker") == 0 && strcmp(counter, "pec_answers") == 0)
        *(uint64_t *)user += value;
}

static void count_paths(bs_run *w)
{
    for (uint32_t g = 0; g < 4; g++) {
        xlat_fbarre_stats fs;
        xlat_fbarre_stats_get(xlat_system_fbarre(w->sys, g), &fs, sizeof(fs));
        w->r->local_hits += fs.local_hits;
        w->r->peer_hits += fs.peer_hits;
    }
    ck_assert_int_eq(xlat_stats_foreach(w->f.ctx, sum_pec, &w->r->pec_answers), XLAT_OK);
}

void bs_random_run(uint64_t seed, bool expanded, uint32_t requests, bs_result *r)
{
    bs_run w = {.rng = seed, .r = r};
    memset(r, 0, sizeof(*r));
    w.answers = calloc(requests, 1);
    ck_assert_ptr_nonnull(w.answers);
    build(&w, expanded);
    for (uint32_t b = 1; r->sent < requests; b++) {
        uint64_t goal = r->sent + 64 + pick(&w, 448);
        burst(&w, goal < requests ? goal : requests);
        migrate_some(&w);
        if (b % 16 == 0)
            ck_assert_int_ge(xlat_system_flush(w.sys), 0);
    }
    for (uint64_t id = 0; id < r->sent; id++) {
        r->answered_once += w.answers[id] == 1;
        r->missing += w.answers[id] == 0;
    }
    count_paths(&w);
    free(w.answers);
    ck_assert_int_eq(xlat_system_destroy(w.sys), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(w.pec), XLAT_OK);
    ba_teardown(&w.f);
}
