/*
 * Teardown, pair by pair (doc/composition.md, "Teardown"): for every way
 * one unit can hold another (a next level given by a setter, an object
 * named by a config, what a builder wires), destroying the held unit while
 * the holder lives is refused with XLAT_ERR_BUSY and a message that names
 * it, frees nothing and leaves the pair working; unwiring or destroying
 * the holder first lets it go; and the context's destroy leaks nothing,
 * with requests in flight too, which are then never answered.
 *
 * Every row of the two tables (holder_kinds x held_kinds for targets,
 * config_pairs for the rest) is one pair, and each row runs four
 * scenarios: `CK_RUN_SUITE=teardown build/tests/check_xlat` prints the
 * number of pairs, and Check counts 4 x pairs + 4 checks.
 * XLAT_TEARDOWN_TABLE=1 prints the table itself.
 *
 * Not holds, so not rows: an L2 followed by an IOMMU (xlat_iommu_attach_l2)
 * or an F-Barre unit (xlat_fbarre_attach_l2) is detached when it goes
 * first (a_followed_l2_is_no_hold); a callback's user pointer (a walker's
 * mem_user, xlat_fbarre_set_pec_source by a host) is the host's to keep
 * alive (doc/composition.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "barre_alloc_fixture.h"

#define PASID 1
#define OFFSET 0x100       /* every pair maps page v to frame v + OFFSET */
#define PATIENCE 20000     /* cycles an answer may take */

/* One pair, built: the held unit, its holder, and how to drive them. */
typedef struct run run;
struct run {
    counting_alloc ca;
    xlat_ctx *ctx;
    void *held, *holder;
    int (*destroy_held)(void *h);
    int (*destroy_holder)(void *h);
    /* Sets the holder's target (NULL: unwired); NULL for a config hold,
     * which only the holder's destroy ends. */
    int (*wire)(run *r, const xlat_target *t);
    /* Takes the holder off the held unit: its target set to NULL, or
     * elsewhere where NULL is refused (a link's). */
    void (*unwire)(run *r);
    /* Sends a request for page `vpn` through the holder; a synchronous
     * pair (a table over its memory) answers inside it. */
    void (*send)(run *r, uint64_t vpn);
    /* Other holders of the held unit (the row's is not alone), destroyed
     * after the holder and before the held unit. */
    void *others[2];
    int (*destroy_other[2])(void *h);
    char expect[256]; /* the refusal's message */
    int answers;
    xlat_resp last;
    /* what the rows build, for their send and wire functions */
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pec_buffer *pec;
    ba_fixture ba;
    uint32_t fbarre_peer; /* a holder F-Barre's peer path: 1; its ATS path: 0 */
};

#define DESTROYER(kind)                                                        \
    static int destroy_##kind(void *h) { return xlat_##kind##_destroy(h); }
DESTROYER(fixed)
DESTROYER(tlb)
DESTROYER(link)
DESTROYER(gmmu)
DESTROYER(fbarre)
DESTROYER(walker)
DESTROYER(iommu)
DESTROYER(pagetable)
DESTROYER(physmem)
DESTROYER(pwc)
DESTROYER(pec_buffer)
DESTROYER(barre_alloc)
DESTROYER(system)
DESTROYER(fbarre_mesh)

static void expect_busy(run *r, const char *kind, const char *name, unsigned holds)
{
    snprintf(r->expect, sizeof(r->expect),
             "%s %s: still the next level of %u unit(s); set their next level"
             " elsewhere (or NULL) or destroy them first", kind, name, holds);
}

static void on_answer(void *user, const xlat_resp *resp)
{
    run *r = user;
    r->last = *resp;
    r->answers++;
}

/* Waits for answer number `n` and checks it translated page `vpn`. */
static void answered(run *r, int n, uint64_t vpn)
{
    for (int c = 0; r->answers < n && c < PATIENCE; c++)
        ck_assert_int_eq(xlat_tick(r->ctx), XLAT_OK);
    ck_assert_int_eq(r->answers, n);
    ck_assert_int_eq(r->last.status, XLAT_OK);
    ck_assert_uint_eq(r->last.id, vpn);
    ck_assert_uint_eq(r->last.pfn, vpn + OFFSET);
}

static xlat_req req_for(uint64_t vpn)
{
    return (xlat_req){.id = vpn, .vaddr = vpn << 12, .pasid = PASID};
}

/* --- what the held units stand on ------------------------------------ */

static xlat_fixed *make_fixed(run *r, const char *name)
{
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = name;
    fc.latency = 10;
    fc.pfn_offset = OFFSET;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(r->ctx, &fc, &f), XLAT_OK);
    return f;
}

/* Memory and a table mapping pages 1..15 to frames v + OFFSET. */
static void make_table(run *r, xlat_physmem **mem, xlat_pagetable **pt)
{
    test_table(r->ctx, mem, pt);
    for (uint64_t v = 1; v < 16; v++)
        ck_assert_int_eq(xlat_pagetable_map(*pt, PASID, v << 12, v + OFFSET, 12,
                                            XLAT_PERM_R | XLAT_PERM_W),
                         XLAT_OK);
}

static void walker_config(xlat_walker_config *wc, const char *name, xlat_pagetable *pt)
{
    xlat_walker_config_init(wc);
    wc->name = name;
    wc->pt = pt;
    wc->walkers = 2;
    wc->queue_entries = 8;
    wc->mem_latency = 20;
}

static xlat_walker *make_walker(run *r, const char *name)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    make_table(r, &mem, &pt);
    xlat_walker_config wc;
    walker_config(&wc, name, pt);
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(r->ctx, &wc, &w), XLAT_OK);
    return w;
}

static xlat_gmmu *make_central_gmmu(run *r, const char *name)
{
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.name = name;
    gc.mode = XLAT_GMMU_CENTRALIZED;
    xlat_gmmu *g;
    ck_assert_int_eq(xlat_gmmu_create(r->ctx, &gc, &g), XLAT_OK);
    return g;
}

static xlat_fbarre *make_fbarre(run *r, const char *name)
{
    xlat_fbarre_config fc;
    xlat_fbarre_config_init(&fc);
    fc.name = name;
    xlat_fbarre *fb;
    ck_assert_int_eq(xlat_fbarre_create(r->ctx, &fc, &fb), XLAT_OK);
    return fb;
}

static xlat_tlb *make_tlb(run *r, const char *name)
{
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.name = name;
    xlat_tlb *t;
    ck_assert_int_eq(xlat_tlb_create(r->ctx, &tc, &t), XLAT_OK);
    return t;
}

static xlat_link *make_link(run *r, const char *name)
{
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.name = name;
    lc.latency = 5;
    lc.latency_back = 5;
    xlat_link *l;
    ck_assert_int_eq(xlat_link_create(r->ctx, &lc, &l), XLAT_OK);
    return l;
}

/* --- held units of target pairs: each answers page v with v + OFFSET --- */

typedef struct held_kind {
    const char *kind;
    /* Builds unit "held" over what it needs; fills its target. */
    void (*make)(run *r, xlat_target *t);
} held_kind;

static void held_fixed(run *r, xlat_target *t)
{
    xlat_fixed *f = make_fixed(r, "held");
    *t = TEST_TARGET(fixed, f);
    r->held = f;
    r->destroy_held = destroy_fixed;
}

static void held_tlb(run *r, xlat_target *t)
{
    xlat_tlb *l2 = make_tlb(r, "held");
    xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
    ck_assert_int_eq(xlat_tlb_set_next(l2, &below), XLAT_OK);
    *t = TEST_TARGET(tlb, l2);
    r->held = l2;
    r->destroy_held = destroy_tlb;
}

static void held_link(run *r, xlat_target *t)
{
    xlat_link *l = make_link(r, "held");
    xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
    ck_assert_int_eq(xlat_link_set_next(l, &below), XLAT_OK);
    *t = TEST_TARGET(link, l);
    r->held = l;
    r->destroy_held = destroy_link;
}

static void held_gmmu(run *r, xlat_target *t)
{
    xlat_gmmu *g = make_central_gmmu(r, "held");
    xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
    ck_assert_int_eq(xlat_gmmu_set_iommu(g, &below), XLAT_OK);
    *t = TEST_TARGET(gmmu, g);
    r->held = g;
    r->destroy_held = destroy_gmmu;
}

static void held_fbarre(run *r, xlat_target *t)
{
    xlat_fbarre *fb = make_fbarre(r, "held");
    xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &below), XLAT_OK);
    *t = TEST_TARGET(fbarre, fb);
    r->held = fb;
    r->destroy_held = destroy_fbarre;
}

static void held_walker(run *r, xlat_target *t)
{
    xlat_walker *w = make_walker(r, "held");
    *t = TEST_TARGET(walker, w);
    r->held = w;
    r->destroy_held = destroy_walker;
}

static void held_iommu(run *r, xlat_target *t)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    make_table(r, &mem, &pt);
    xlat_walker_config wc;
    walker_config(&wc, "held walkers", pt);
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.name = "held";
    ic.gpus = 1;
    ic.walk = &wc;
    xlat_iommu *m;
    ck_assert_int_eq(xlat_iommu_create(r->ctx, &ic, &m), XLAT_OK);
    *t = TEST_TARGET(iommu, m);
    r->held = m;
    r->destroy_held = destroy_iommu;
}

static const held_kind held_kinds[] = {
    {"fixed", held_fixed}, {"tlb", held_tlb},       {"link", held_link},   {"gmmu", held_gmmu},
    {"fbarre", held_fbarre}, {"walker", held_walker}, {"iommu", held_iommu},
};
#define HELD_KINDS (sizeof(held_kinds) / sizeof(held_kinds[0]))

/* --- holders of target pairs ----------------------------------------- */

typedef struct holder_kind {
    const char *kind, *wire, *unwire;
    void (*make)(run *r); /* builds unit "holder" and sets wire and send */
} holder_kind;

static int wire_tlb(run *r, const xlat_target *t) { return xlat_tlb_set_next(r->holder, t); }
static void send_tlb(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_tlb_translate(r->holder, &req, on_answer, r), XLAT_OK);
}
static void unwire_to_null(run *r) { ck_assert_int_eq(r->wire(r, NULL), XLAT_OK); }

static void holder_tlb(run *r)
{
    r->holder = make_tlb(r, "holder");
    r->destroy_holder = destroy_tlb;
    r->wire = wire_tlb;
    r->unwire = unwire_to_null;
    r->send = send_tlb;
}

static int wire_link(run *r, const xlat_target *t) { return xlat_link_set_next(r->holder, t); }
static void send_link(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_link_translate(r->holder, &req, on_answer, r), XLAT_OK);
}
/* A link refuses a NULL far side (xlat_link_set_next()): it is moved to
 * a responder of its own, which then answers. */
static void unwire_link(run *r)
{
    xlat_target elsewhere = TEST_TARGET(fixed, make_fixed(r, "elsewhere"));
    ck_assert_int_eq(r->wire(r, &elsewhere), XLAT_OK);
    r->send(r, 4);
    answered(r, r->answers + 1, 4);
}

static void holder_link(run *r)
{
    r->holder = make_link(r, "holder");
    r->destroy_holder = destroy_link;
    r->wire = wire_link;
    r->unwire = unwire_link;
    r->send = send_link;
}

static int wire_gmmu(run *r, const xlat_target *t) { return xlat_gmmu_set_iommu(r->holder, t); }
static void send_gmmu(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_gmmu_translate(r->holder, &req, on_answer, r), XLAT_OK);
}
static void holder_gmmu(run *r)
{
    r->holder = make_central_gmmu(r, "holder"); /* every request to its IOMMU side */
    r->destroy_holder = destroy_gmmu;
    r->wire = wire_gmmu;
    r->unwire = unwire_to_null;
    r->send = send_gmmu;
}

static int wire_fbarre(run *r, const xlat_target *t)
{
    if (r->fbarre_peer)
        return xlat_fbarre_set_peer(r->holder, r->fbarre_peer, t, NULL, NULL);
    return xlat_fbarre_set_next(r->holder, t);
}
static void send_fbarre(run *r, uint64_t vpn)
{
    if (r->fbarre_peer) { /* the peer's filter says it has the page: ask it */
        xlat_fbarre_msg m = {.add = true, .sender = (uint8_t)r->fbarre_peer, .vpn = vpn};
        xlat_fbarre_receive(r->holder, PASID, xlat_fbarre_msg_encode(&m));
    }
    xlat_target t = TEST_TARGET(fbarre, r->holder);
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_target_translate(&t, &req, on_answer, r), XLAT_OK);
}
static void holder_fbarre(run *r)
{
    r->holder = make_fbarre(r, "holder");
    r->destroy_holder = destroy_fbarre;
    r->wire = wire_fbarre;
    r->unwire = unwire_to_null;
    r->send = send_fbarre;
}
static void holder_fbarre_peer(run *r)
{
    holder_fbarre(r);
    r->fbarre_peer = 1;
}

static const holder_kind holder_kinds[] = {
    {"tlb", "xlat_tlb_set_next", "xlat_tlb_set_next(NULL)", holder_tlb},
    {"link", "xlat_link_set_next", "xlat_link_set_next(elsewhere)", holder_link},
    {"gmmu", "xlat_gmmu_set_iommu", "xlat_gmmu_set_iommu(NULL)", holder_gmmu},
    {"fbarre", "xlat_fbarre_set_next", "xlat_fbarre_set_next(NULL)", holder_fbarre},
    {"fbarre", "xlat_fbarre_set_peer(1)", "xlat_fbarre_set_peer(1, NULL)", holder_fbarre_peer},
};
#define HOLDER_KINDS (sizeof(holder_kinds) / sizeof(holder_kinds[0]))
#define TARGET_PAIRS (HOLDER_KINDS * HELD_KINDS)

static void build_target_pair(run *r, size_t i)
{
    const holder_kind *hk = &holder_kinds[i / HELD_KINDS];
    const held_kind *k = &held_kinds[i % HELD_KINDS];
    xlat_target t = XLAT_TARGET_INIT;
    k->make(r, &t);
    hk->make(r);
    ck_assert_int_eq(r->wire(r, &t), XLAT_OK);
    expect_busy(r, k->kind, "held", 1);
}

/* --- pairs a config makes ---------------------------------------------- */

static void send_walker(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_walker_translate(r->holder, &req, on_answer, r), XLAT_OK);
}

static void walker_over(run *r, xlat_walker_config *wc)
{
    ck_assert_int_eq(xlat_walker_create(r->ctx, wc, (xlat_walker **)&r->holder), XLAT_OK);
    r->destroy_holder = destroy_walker;
    r->send = send_walker;
}

static xlat_pec_buffer *make_pec(run *r, const char *name)
{
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    pc.name = name;
    xlat_pec_buffer *p;
    ck_assert_int_eq(xlat_pec_buffer_create(r->ctx, &pc, &p), XLAT_OK);
    return p;
}

static const uint64_t one_chiplet_base[1] = {0};

/* What a walker config names, each held by the pool made from it. */
typedef enum walk_field { WALK_PT, WALK_PWC, WALK_PEC } walk_field;

/* A walker config over a mapped table whose `field` is the held unit. */
static void walk_config_naming(run *r, xlat_walker_config *wc, walk_field field)
{
    make_table(r, &r->mem, &r->pt);
    walker_config(wc, "walkers", r->pt);
    if (field == WALK_PT) {
        r->held = r->pt;
        r->destroy_held = destroy_pagetable;
        expect_busy(r, "pagetable", "pagetable", 1);
    } else if (field == WALK_PWC) {
        xlat_pwc_config pc;
        xlat_pwc_config_init(&pc);
        pc.name = "held";
        ck_assert_int_eq(xlat_pwc_create(r->ctx, &pc, &wc->pwc), XLAT_OK);
        r->held = wc->pwc;
        r->destroy_held = destroy_pwc;
        expect_busy(r, "pwc", "held", 1);
    } else { /* Barre's PEC logic, over one chiplet */
        wc->pec = make_pec(r, "held");
        wc->pec_base_pfn = one_chiplet_base;
        wc->pec_chiplets = 1;
        r->held = wc->pec;
        r->destroy_held = destroy_pec_buffer;
        expect_busy(r, "pec", "held", 1);
    }
}

static void build_walker_holding(run *r, walk_field field)
{
    xlat_walker_config wc;
    walk_config_naming(r, &wc, field);
    walker_over(r, &wc);
}

/* walker -> pagetable, pwc, PEC buffer (xlat_walker_config::pt, pwc, pec) */
static void build_walker_pt(run *r) { build_walker_holding(r, WALK_PT); }
static void build_walker_pwc(run *r) { build_walker_holding(r, WALK_PWC); }
static void build_walker_pec(run *r) { build_walker_holding(r, WALK_PEC); }

/* A table over its memory answers inside the call: map, then look up. */
static void send_table(run *r, uint64_t vpn)
{
    ck_assert_int_eq(xlat_pagetable_map(r->holder, PASID, (vpn + 0x10000) << 12, vpn + OFFSET,
                                        12, XLAT_PERM_R),
                     XLAT_OK);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(r->holder, PASID, (vpn + 0x10000) << 12, &e),
                     XLAT_OK);
    on_answer(r, &(xlat_resp){.id = vpn, .pfn = e.pfn, .status = XLAT_OK});
}

/* pagetable -> physmem (xlat_pagetable_config::mem) */
static void build_pagetable_mem(run *r)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(r->ctx, &mem, &pt);
    r->held = mem;
    r->destroy_held = destroy_physmem;
    r->holder = pt;
    r->destroy_holder = destroy_pagetable;
    r->send = send_table;
    expect_busy(r, "physmem", "physmem", 1);
}

/* gmmu -> walker (xlat_gmmu_config::walker): local walks answer */
static void build_gmmu_walker(run *r)
{
    xlat_walker *w = make_walker(r, "held");
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.name = "holder";
    gc.mode = XLAT_GMMU_DISTRIBUTED;
    gc.walker = w;
    ck_assert_int_eq(xlat_gmmu_create(r->ctx, &gc, (xlat_gmmu **)&r->holder), XLAT_OK);
    r->held = w;
    r->destroy_held = destroy_walker;
    r->destroy_holder = destroy_gmmu;
    r->send = send_gmmu;
    expect_busy(r, "walker", "held", 1);
}

/* The group allocator maps an object, which the table then translates. */
static void send_alloc(run *r, uint64_t vpn)
{
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = PASID;
    o.start_vpn = vpn << 4;
    o.pages = 2;
    o.interlv_gran = 1;
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(r->holder, &o, r->pec, &d), XLAT_OK);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(r->ba.pt, PASID, o.start_vpn << 12, &e), XLAT_OK);
    ck_assert_uint_ge(e.pfn, r->ba.base[0]); /* on the chiplets' memory */
    on_answer(r, &(xlat_resp){.id = vpn, .pfn = vpn + OFFSET, .status = XLAT_OK});
}

static void alloc_over(run *r)
{
    ba_setup(&r->ba, 2, 64, 1, false, &r->ca);
    r->ctx = r->ba.ctx;
    r->pec = make_pec(r, "objects");
    r->holder = r->ba.a;
    r->destroy_holder = destroy_barre_alloc;
    r->send = send_alloc;
}

/* barre_alloc -> physmem (xlat_barre_alloc_config::mem), beside the table's hold */
static void build_alloc_mem(run *r)
{
    alloc_over(r);
    r->held = r->ba.mem;
    r->destroy_held = destroy_physmem;
    r->others[0] = r->ba.pt;
    r->destroy_other[0] = destroy_pagetable;
    expect_busy(r, "physmem", "physmem", 2);
}

/* barre_alloc -> pagetable (xlat_barre_alloc_config::pt) */
static void build_alloc_pt(run *r)
{
    alloc_over(r);
    r->held = r->ba.pt;
    r->destroy_held = destroy_pagetable;
    expect_busy(r, "pagetable", "pagetable", 1);
}

static void send_iommu(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_iommu_translate(r->holder, &req, on_answer, r), XLAT_OK);
}

/* The IOMMU's own walkers hold what its walk template names. */
static void iommu_over(run *r, xlat_walker_config *wc)
{
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.name = "holder";
    ic.gpus = 1;
    ic.walk = wc;
    ck_assert_int_eq(xlat_iommu_create(r->ctx, &ic, (xlat_iommu **)&r->holder), XLAT_OK);
    r->destroy_holder = destroy_iommu;
    r->send = send_iommu;
}

static void build_iommu_holding(run *r, walk_field field)
{
    xlat_walker_config wc;
    walk_config_naming(r, &wc, field);
    iommu_over(r, &wc);
}

/* iommu -> pagetable, pwc, PEC buffer (xlat_iommu_config::walk->pt, pwc, pec) */
static void build_iommu_pt(run *r) { build_iommu_holding(r, WALK_PT); }
static void build_iommu_pwc(run *r) { build_iommu_holding(r, WALK_PWC); }
static void build_iommu_pec(run *r) { build_iommu_holding(r, WALK_PEC); }

static void send_system(run *r, uint64_t vpn)
{
    xlat_req req = req_for(vpn);
    ck_assert_int_eq(xlat_system_translate(r->holder, &req, on_answer, r), XLAT_OK);
}

/* A system of `gpus` GPUs of one CU over page table r->pt. */
static void system_over(run *r, xlat_system_config *sc, uint32_t gpus)
{
    static xlat_walker_config wc;
    static xlat_iommu_config ic;
    walker_config(&wc, "walkers", r->pt);
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    sc->gpus = gpus;
    sc->cus = 1;
    sc->iommu = &ic;
    ck_assert_int_eq(xlat_system_create(r->ctx, sc, (xlat_system **)&r->holder), XLAT_OK);
    r->destroy_holder = destroy_system;
    r->send = send_system;
}

/* system -> pagetable (xlat_system_config::iommu->walk->pt) */
static void build_system_pt(run *r)
{
    make_table(r, &r->mem, &r->pt);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    system_over(r, &sc, 1);
    r->held = r->pt;
    r->destroy_held = destroy_pagetable;
    expect_busy(r, "pagetable", "pagetable", 1);
}

/* system -> pagetable (xlat_system_config::local_pt, the GMMU's walkers) */
static void build_system_local_pt(run *r)
{
    make_table(r, &r->mem, &r->pt);
    xlat_physmem *mem;
    xlat_pagetable *local;
    make_table(r, &mem, &local);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gmmu = true;
    sc.local_pt = &local;
    system_over(r, &sc, 1);
    r->held = local;
    r->destroy_held = destroy_pagetable;
    expect_busy(r, "pagetable", "pagetable", 1);
}

/* system -> PEC buffer (xlat_system_config::fbarre_pec, every chiplet's
 * PEC source) */
static void build_system_fbarre_pec(run *r)
{
    make_table(r, &r->mem, &r->pt);
    r->held = make_pec(r, "held");
    xlat_fbarre_config fc;
    xlat_fbarre_config_init(&fc);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.fbarre = &fc;
    sc.fbarre_pec = r->held;
    system_over(r, &sc, 2);
    r->destroy_held = destroy_pec_buffer;
    expect_busy(r, "pec", "held", 1);
}

/* A host's TLB given one of the units a system built as its next level
 * holds the system: every unit the system built, through their handles. */
static void tlb_over_system(run *r, xlat_system_config *sc, uint32_t gpus,
                            xlat_target (*pick)(xlat_system *sys))
{
    system_over(r, sc, gpus);
    r->held = r->holder;
    r->destroy_held = destroy_system;
    holder_tlb(r);
    xlat_target t = pick(r->held);
    ck_assert_int_eq(r->wire(r, &t), XLAT_OK);
    snprintf(r->expect, sizeof(r->expect),
             "system system: its units are still the next level of 1 unit(s) outside it;"
             " set their next level elsewhere (or NULL) or destroy them first");
}

static xlat_target system_l1(xlat_system *sys)
{
    return TEST_TARGET(tlb, xlat_system_l1(sys, 0, 0));
}

static xlat_target system_l2(xlat_system *sys) { return TEST_TARGET(tlb, xlat_system_l2(sys, 0)); }

static xlat_target system_link(xlat_system *sys)
{
    return TEST_TARGET(link, xlat_system_link(sys, 0));
}

static xlat_target system_iommu(xlat_system *sys)
{
    return TEST_TARGET(iommu, xlat_system_iommu(sys));
}

static xlat_target system_gmmu(xlat_system *sys)
{
    return TEST_TARGET(gmmu, xlat_system_gmmu(sys, 0));
}

static xlat_target system_fbarre(xlat_system *sys)
{
    return TEST_TARGET(fbarre, xlat_system_fbarre(sys, 0));
}

static xlat_target system_walker(xlat_system *sys)
{
    return TEST_TARGET(walker, xlat_iommu_walker(xlat_system_iommu(sys)));
}

static void system_plain(run *r, xlat_target (*pick)(xlat_system *sys))
{
    make_table(r, &r->mem, &r->pt);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    tlb_over_system(r, &sc, 1, pick);
}

static void build_tlb_system_l1(run *r) { system_plain(r, system_l1); }
static void build_tlb_system_l2(run *r) { system_plain(r, system_l2); }
static void build_tlb_system_link(run *r) { system_plain(r, system_link); }
static void build_tlb_system_iommu(run *r) { system_plain(r, system_iommu); }
static void build_tlb_system_walker(run *r) { system_plain(r, system_walker); }

/* The GMMU's local table maps nothing: its walks miss, the IOMMU answers. */
static void build_tlb_system_gmmu(run *r)
{
    make_table(r, &r->mem, &r->pt);
    xlat_physmem *mem;
    xlat_pagetable *local;
    test_table(r->ctx, &mem, &local);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gmmu = true;
    sc.local_pt = &local;
    tlb_over_system(r, &sc, 1, system_gmmu);
}

static void build_tlb_system_fbarre(run *r)
{
    make_table(r, &r->mem, &r->pt);
    xlat_fbarre_config fc;
    xlat_fbarre_config_init(&fc);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.fbarre = &fc;
    tlb_over_system(r, &sc, 2, system_fbarre);
}

/* A host's TLB given the IOMMU's walkers, or its TLB, as its next level
 * holds the IOMMU. */
static void tlb_over_iommu_part(run *r, bool its_tlb)
{
    xlat_target t;
    held_iommu(r, &t);
    if (its_tlb) { /* a host's IOMMU TLB misses to a responder of its own */
        xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
        ck_assert_int_eq(xlat_tlb_set_next(xlat_iommu_tlb(r->held), &below), XLAT_OK);
        t = TEST_TARGET(tlb, xlat_iommu_tlb(r->held));
    } else {
        t = TEST_TARGET(walker, xlat_iommu_walker(r->held));
    }
    holder_tlb(r);
    ck_assert_int_eq(r->wire(r, &t), XLAT_OK);
    snprintf(r->expect, sizeof(r->expect),
             "iommu held: its TLB or walkers are still the next level of 1 unit(s);"
             " set their next level elsewhere (or NULL) or destroy them first");
}

static void build_tlb_iommu_walker(run *r) { tlb_over_iommu_part(r, false); }
static void build_tlb_iommu_tlb(run *r) { tlb_over_iommu_part(r, true); }

/* tlb -> F-Barre mesh (an L2's next level is one of the mesh's units) */
static void build_tlb_mesh(run *r)
{
    xlat_fbarre_mesh_config mc;
    xlat_fbarre_mesh_config_init(&mc);
    mc.name = "held";
    mc.chiplets = 2;
    xlat_fbarre_mesh *mesh;
    ck_assert_int_eq(xlat_fbarre_mesh_create(r->ctx, &mc, &mesh), XLAT_OK);
    xlat_fbarre *fb = xlat_fbarre_mesh_chiplet(mesh, 1);
    xlat_target below = TEST_TARGET(fixed, make_fixed(r, "below"));
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &below), XLAT_OK);
    holder_tlb(r);
    xlat_target t = TEST_TARGET(fbarre, fb);
    ck_assert_int_eq(r->wire(r, &t), XLAT_OK);
    r->held = mesh;
    r->destroy_held = destroy_fbarre_mesh;
    snprintf(r->expect, sizeof(r->expect),
             "fbarre mesh held: chiplet 1 is still the next level of a unit outside the"
             " mesh; set its next level elsewhere first");
}

typedef struct config_pair {
    const char *holder, *held, *wire, *unwire;
    void (*build)(run *r);
} config_pair;

static const config_pair config_pairs[] = {
    {"walker", "pagetable", "xlat_walker_config::pt", "destroy the walker", build_walker_pt},
    {"walker", "pwc", "xlat_walker_config::pwc", "destroy the walker", build_walker_pwc},
    {"walker", "pec", "xlat_walker_config::pec", "destroy the walker", build_walker_pec},
    {"pagetable", "physmem", "xlat_pagetable_config::mem", "destroy the table",
     build_pagetable_mem},
    {"gmmu", "walker", "xlat_gmmu_config::walker", "destroy the GMMU", build_gmmu_walker},
    {"barre_alloc", "physmem", "xlat_barre_alloc_config::mem", "destroy the allocator",
     build_alloc_mem},
    {"barre_alloc", "pagetable", "xlat_barre_alloc_config::pt", "destroy the allocator",
     build_alloc_pt},
    {"iommu", "pagetable", "xlat_iommu_config::walk->pt", "destroy the IOMMU", build_iommu_pt},
    {"iommu", "pwc", "xlat_iommu_config::walk->pwc", "destroy the IOMMU", build_iommu_pwc},
    {"iommu", "pec", "xlat_iommu_config::walk->pec", "destroy the IOMMU", build_iommu_pec},
    {"system", "pagetable", "xlat_system_config::iommu->walk->pt", "destroy the system",
     build_system_pt},
    {"system", "pagetable", "xlat_system_config::local_pt", "destroy the system",
     build_system_local_pt},
    {"system", "pec", "xlat_system_config::fbarre_pec", "destroy the system",
     build_system_fbarre_pec},
    {"tlb", "fbarre_mesh", "xlat_tlb_set_next(mesh chiplet)", "xlat_tlb_set_next(NULL)",
     build_tlb_mesh},
    {"tlb", "iommu", "xlat_tlb_set_next(xlat_iommu_walker)", "xlat_tlb_set_next(NULL)",
     build_tlb_iommu_walker},
    {"tlb", "iommu", "xlat_tlb_set_next(xlat_iommu_tlb)", "xlat_tlb_set_next(NULL)",
     build_tlb_iommu_tlb},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_l1)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_l1},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_l2)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_l2},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_link)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_link},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_iommu)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_iommu},
    {"tlb", "system", "xlat_tlb_set_next(its IOMMU's walkers)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_walker},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_gmmu)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_gmmu},
    {"tlb", "system", "xlat_tlb_set_next(xlat_system_fbarre)", "xlat_tlb_set_next(NULL)",
     build_tlb_system_fbarre},
};
#define CONFIG_PAIRS (sizeof(config_pairs) / sizeof(config_pairs[0]))
#define PAIRS (TARGET_PAIRS + CONFIG_PAIRS)

/* The allocator's rows take the context the Barre fixture makes. */
static bool builds_its_ctx(size_t i)
{
    if (i < TARGET_PAIRS)
        return false;
    void (*b)(run *) = config_pairs[i - TARGET_PAIRS].build;
    return b == build_alloc_mem || b == build_alloc_pt;
}

/* Row i of the whole table, built on a fresh context with traffic through
 * it: page 1 answered, page 2 in flight (a synchronous pair: answered). */
static void build(run *r, size_t i)
{
    memset(r, 0, sizeof(*r));
    counting_alloc_init(&r->ca);
    if (!builds_its_ctx(i))
        r->ctx = test_ctx(12, &r->ca);
    if (i < TARGET_PAIRS)
        build_target_pair(r, i);
    else
        config_pairs[i - TARGET_PAIRS].build(r);
    r->send(r, 1);
    answered(r, 1, 1);
    r->send(r, 2);
}

static void destroy_holder_first(run *r)
{
    ck_assert_int_eq(r->destroy_holder(r->holder), XLAT_OK);
    for (size_t k = 0; k < 2 && r->others[k]; k++)
        ck_assert_int_eq(r->destroy_other[k](r->others[k]), XLAT_OK);
    ck_assert_int_eq(r->destroy_held(r->held), XLAT_OK);
}

/* The context goes with whatever is left: nothing leaks. */
static void end(run *r)
{
    xlat_ctx_destroy(r->ctx);
    ck_assert_uint_eq(r->ca.live_bytes, 0);
}

/* (1) refused, nothing freed, the pair still answers; (2) unwired (or, a
 * config hold, its holder gone), the held unit goes. */
START_TEST(held_unit_is_busy_until_unwired)
{
    run r;
    build(&r, (size_t)_i);
    size_t live = r.ca.live_bytes;
    ck_assert_int_eq(r.destroy_held(r.held), XLAT_ERR_BUSY);
    ck_assert_str_eq(xlat_ctx_errmsg(r.ctx), r.expect);
    ck_assert_uint_eq(r.ca.live_bytes, live);
    answered(&r, 2, 2); /* the one in flight */
    r.send(&r, 3);
    answered(&r, 3, 3);
    if (r.unwire) {
        r.unwire(&r);
        ck_assert_int_eq(r.destroy_held(r.held), XLAT_OK);
        ck_assert_int_eq(r.destroy_holder(r.holder), XLAT_OK);
    } else {
        destroy_holder_first(&r);
    }
    end(&r);
}
END_TEST

/* (3) the holder first, then the held unit, once idle. */
START_TEST(holder_first_then_held)
{
    run r;
    build(&r, (size_t)_i);
    answered(&r, 2, 2);
    destroy_holder_first(&r);
    end(&r);
}
END_TEST

/* Destroyed with page 2 in flight (holder, held, then the context, with
 * no advance between: doc/composition.md): never answered, nothing leaks. */
START_TEST(in_flight_is_dropped_unanswered)
{
    run r;
    build(&r, (size_t)_i);
    int before = r.answers;
    destroy_holder_first(&r);
    ck_assert_int_eq(r.answers, before);
    end(&r);
    ck_assert_int_eq(r.answers, before);
}
END_TEST

/* The context alone, with page 2 in flight and every hold in place. */
START_TEST(ctx_destroy_takes_a_wired_pair)
{
    run r;
    build(&r, (size_t)_i);
    int before = r.answers;
    end(&r);
    ck_assert_int_eq(r.answers, before);
}
END_TEST

/* What is not a hold: an L2 followed by an IOMMU or an F-Barre unit goes
 * first and is detached (doc/composition.md); the follower keeps working. */
START_TEST(a_followed_l2_is_no_hold)
{
    run r;
    memset(&r, 0, sizeof(r));
    counting_alloc_init(&r.ca);
    r.ctx = test_ctx(13, &r.ca);
    xlat_target t;
    held_iommu(&r, &t);
    xlat_iommu *m = r.held;
    xlat_fbarre *fb = make_fbarre(&r, "follower");
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &t), XLAT_OK);
    xlat_tlb *l2 = make_tlb(&r, "l2");
    xlat_target to_fb = TEST_TARGET(fbarre, fb);
    ck_assert_int_eq(xlat_tlb_set_next(l2, &to_fb), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(m, 0, l2), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_attach_l2(fb, l2), XLAT_OK);
    r.holder = l2;
    send_tlb(&r, 1);
    answered(&r, 1, 1);
    size_t live = r.ca.live_bytes;
    ck_assert_int_eq(xlat_tlb_destroy(l2), XLAT_OK);
    ck_assert_uint_lt(r.ca.live_bytes, live);
    r.holder = m;
    send_iommu(&r, 2);
    answered(&r, 2, 2);
    ck_assert_int_eq(xlat_iommu_flush(m), 2); /* pages 1 and 2; no L2 left to shoot down */
    r.holder = fb;
    send_fbarre(&r, 3);
    answered(&r, 3, 3);
    end(&r);
}
END_TEST

/* A unit made before the system holds one of its chiplets: the context's
 * destroy takes the system first (newest first) and with it the mesh,
 * whatever still holds it, and leaks nothing. */
START_TEST(ctx_destroy_takes_a_system_an_older_unit_holds)
{
    run r;
    memset(&r, 0, sizeof(r));
    counting_alloc_init(&r.ca);
    r.ctx = test_ctx(14, &r.ca);
    xlat_tlb *older = make_tlb(&r, "older");
    make_table(&r, &r.mem, &r.pt);
    xlat_fbarre_config fc;
    xlat_fbarre_config_init(&fc);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.fbarre = &fc;
    system_over(&r, &sc, 2);
    xlat_system *sys = r.holder;
    xlat_target t = system_fbarre(sys);
    ck_assert_int_eq(xlat_tlb_set_next(older, &t), XLAT_OK);
    r.holder = older;
    send_tlb(&r, 1);
    answered(&r, 1, 1);
    send_tlb(&r, 2); /* in flight when everything goes */
    ck_assert_int_eq(xlat_system_destroy(sys), XLAT_ERR_BUSY);
    end(&r);
    ck_assert_int_eq(r.answers, 1);
}
END_TEST

/* Destroying NULL is XLAT_OK for every unit (the headers' destroy docs). */
START_TEST(destroying_null_is_ok)
{
    ck_assert_int_eq(xlat_fixed_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_link_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_mesh_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_walker_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_pwc_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_barre_alloc_destroy(NULL), XLAT_OK);
    ck_assert_int_eq(xlat_system_destroy(NULL), XLAT_OK);
}
END_TEST

/* One line per pair, for the log and the report: `XLAT_TEARDOWN_TABLE=1
 * CK_RUN_SUITE=teardown build/tests/check_xlat`. */
static void print_pair(size_t n, const char *holder, const char *held, const char *wire,
                       const char *unwire)
{
    if (getenv("XLAT_TEARDOWN_TABLE"))
        printf("teardown pair %2zu: %-11s holds %-11s wire %s; unwire %s\n", n, holder, held,
               wire, unwire);
}

/* The count of pairs is printed on every run, and each row is a pair of its own. */
START_TEST(every_pair_is_counted)
{
    size_t n = 0;
    for (size_t i = 0; i < TARGET_PAIRS; i++, n++) {
        const holder_kind *hk = &holder_kinds[i / HELD_KINDS];
        print_pair(n, hk->kind, held_kinds[i % HELD_KINDS].kind, hk->wire, hk->unwire);
    }
    for (size_t i = 0; i < CONFIG_PAIRS; i++, n++)
        print_pair(n, config_pairs[i].holder, config_pairs[i].held, config_pairs[i].wire,
                   config_pairs[i].unwire);
    printf("teardown: %zu pairs (%zu through targets, %zu through configs)\n", n,
           (size_t)TARGET_PAIRS, (size_t)CONFIG_PAIRS);
    /* each way of holding is one row: no wiring of the config rows
     * repeats another */
    for (size_t i = 0; i < CONFIG_PAIRS; i++)
        for (size_t j = i + 1; j < CONFIG_PAIRS; j++)
            ck_assert_str_ne(config_pairs[i].wire, config_pairs[j].wire);
}
END_TEST

Suite *teardown_suite(void)
{
    Suite *s = suite_create("teardown");
    TCase *tc = test_case(s, "pairs");
    tcase_add_loop_test(tc, held_unit_is_busy_until_unwired, 0, (int)PAIRS);
    tcase_add_loop_test(tc, holder_first_then_held, 0, (int)PAIRS);
    tcase_add_loop_test(tc, in_flight_is_dropped_unanswered, 0, (int)PAIRS);
    tcase_add_loop_test(tc, ctx_destroy_takes_a_wired_pair, 0, (int)PAIRS);
    tc = test_case(s, "edges");
    tcase_add_test(tc, a_followed_l2_is_no_hold);
    tcase_add_test(tc, ctx_destroy_takes_a_system_an_older_unit_holds);
    tcase_add_test(tc, destroying_null_is_ok);
    tcase_add_test(tc, every_pair_is_counted);
    return s;
}
