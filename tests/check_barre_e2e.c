/*
 * Barre end to end: objects mapped by the group allocator, requests walked
 * by a pool whose PEC logic answers the pending members of each walked
 * group, and migrations between bursts. Every answer is checked, at the
 * moment it arrives, against a functional lookup of the same page table,
 * and every accepted request is answered exactly once ("Barre Chord:
 * Efficient Virtual Memory Translation for Multi-Chip-Module GPUs" §IV-F,
 * §V-B, §VI).
 */
#include "barre_alloc_fixture.h"

#define E2E_OBJECTS 6
#define E2E_REQUESTS 4096

typedef struct e2e {
    ba_fixture f;
    xlat_pec_buffer *pec;
    xlat_walker *pool;
    xlat_pec_entry live[E2E_OBJECTS];
    uint32_t n;
    uint64_t rng;
    uint8_t answered[E2E_REQUESTS];
    uint64_t sent, wrong, twice;
} e2e;

static e2e w;

static uint64_t pick(uint64_t n) { return test_rand(&w.rng) % n; }

static void on_answer(void *user, const xlat_resp *r)
{
    (void)user;
    w.twice += w.answered[r->id]++ != 0;
    xlat_tlb_entry e;
    bool mapped = xlat_pagetable_lookup(w.f.pt, r->pasid, r->vaddr, &e) == XLAT_OK;
    w.wrong += r->status != XLAT_OK || !mapped || r->pfn != e.pfn;
}

/* A random object over every chiplet, in any order, LASP-placed. */
static void map_object(uint64_t start)
{
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.start_vpn = start;
    o.pages = 4 + pick(45);
    o.interlv_gran = 1 + (uint32_t)pick(3);
    for (uint32_t g = 0; g < w.f.chiplets; g++)
        o.gpu_map[g] = (uint8_t)g;
    for (uint32_t g = w.f.chiplets; g > 1; g--) {
        uint32_t k = (uint32_t)pick(g);
        uint8_t x = o.gpu_map[g - 1];
        o.gpu_map[g - 1] = o.gpu_map[k];
        o.gpu_map[k] = x;
    }
    ck_assert_int_eq(xlat_barre_alloc_map(w.f.a, &o, w.pec, &w.live[w.n++]), XLAT_OK);
}

static void make_pool(bool coal_aware)
{
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    pc.entries = E2E_OBJECTS;
    pc.expanded = xlat_barre_alloc_expanded(w.f.a);
    ck_assert_int_eq(xlat_pec_buffer_create(w.f.ctx, &pc, &w.pec), XLAT_OK);
    for (uint32_t i = 0; i < E2E_OBJECTS; i++)
        map_object(0x1000 + 0x100 * (uint64_t)i);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w.f.pt;
    wc.walkers = 4;
    wc.queue_entries = 48;
    wc.mem_latency = 25;
    wc.pec = w.pec;
    wc.pec_base_pfn = w.f.base;
    wc.pec_chiplets = w.f.chiplets;
    wc.pec_expanded = xlat_barre_alloc_expanded(w.f.a);
    wc.coal_aware = coal_aware;
    ck_assert_int_eq(xlat_walker_create(w.f.ctx, &wc, &w.pool), XLAT_OK);
}

/* A burst of requests to random pages of the live objects, run to the end. */
static void burst(uint32_t n)
{
    uint64_t goal = w.sent + n < E2E_REQUESTS ? w.sent + n : E2E_REQUESTS;
    while (w.sent < goal) {
        const xlat_pec_entry *d = &w.live[pick(w.n)];
        uint64_t vpn = d->start_vpn + pick(d->end_vpn - d->start_vpn + 1);
        xlat_req req = {.id = w.sent, .vaddr = vpn << 12 | pick(4096), .pasid = d->pasid};
        int rc = xlat_walker_translate(w.pool, &req, on_answer, NULL);
        if (rc == XLAT_ERR_AGAIN) { /* the buffer is full: let the walkers work */
            xlat_tick(w.f.ctx);
            continue;
        }
        ck_assert_int_eq(rc, XLAT_OK);
        w.sent++;
        if (pick(4) == 0)
            xlat_tick(w.f.ctx);
    }
    while (xlat_next_event(w.f.ctx) != XLAT_NEVER)
        xlat_advance(w.f.ctx, xlat_next_event(w.f.ctx) - xlat_now(w.f.ctx));
}

/* Migrations happen with no walk in flight (a host shoots the pages down
 * first), so every later answer must see the new frames. */
static void migrate_some(void)
{
    for (int i = 0; i < 4; i++) {
        const xlat_pec_entry *d = &w.live[pick(w.n)];
        uint64_t vpn = d->start_vpn + pick(d->end_vpn - d->start_vpn + 1);
        int rc = xlat_barre_alloc_migrate(w.f.a, d, vpn, (uint32_t)pick(w.f.chiplets), NULL);
        ck_assert(rc == XLAT_OK || rc == XLAT_ERR_FULL);
    }
}

START_TEST(every_pec_answer_is_the_walked_frame)
{
    memset(&w, 0, sizeof(w));
    w.rng = 0xBA22E + (uint64_t)_i;
    ba_setup(&w.f, 4, 512, _i % 2 ? 2 : 1, false, NULL);
    make_pool(_i >= 2);
    for (int round = 0; round < 16; round++) {
        burst(256);
        migrate_some();
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(w.pool, &st, sizeof(st));
    ck_assert_uint_eq(w.sent, E2E_REQUESTS);
    for (uint64_t id = 0; id < w.sent; id++)
        ck_assert_msg(w.answered[id] == 1, "request %llu answered %u times",
                      (unsigned long long)id, w.answered[id]);
    ck_assert_uint_eq(w.twice, 0);
    ck_assert_uint_eq(w.wrong, 0);
    ck_assert_uint_gt(st.pec_answers, w.sent / 20); /* the PEC did answer a share */
    ck_assert_int_eq(xlat_walker_destroy(w.pool), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(w.pec), XLAT_OK);
    ba_teardown(&w.f);
}
END_TEST

Suite *barre_e2e_suite(void)
{
    Suite *s = suite_create("barre_e2e");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 60);
    /* Barre's layout and the expanded one, FCFS and coalescing-aware */
    tcase_add_loop_test(tc, every_pec_answer_is_the_walked_frame, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
