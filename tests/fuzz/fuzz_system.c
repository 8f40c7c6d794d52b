/* A whole multi-GPU xlat_system driven by the fuzzer's bytes (fuzz.h).
 *
 * The first bytes choose the system: 1..8 GPUs of 1..4 CUs, an inclusion
 * policy (mostly, inclusive, exclusive, least-TLB), multi-application mode,
 * tiny TLBs so that eviction, spilling and back-invalidation happen, an
 * IOMMU with few buffer slots and walkers, optionally the probing ring,
 * one shared L2, or a GMMU per GPU over a local page table; and up to
 * three PASIDs of 16 pages. The rest is a sequence of operations:
 * translate, tick, advance, map, unmap, protect, remap (each followed by
 * the shootdown of the page), invalidate a page or a PASID, flush a GPU,
 * the IOMMU TLB or everything, answer a page request the host held (the
 * IOMMU's page requests are refused, mapped at once, or held), and
 * destroying the system mid-flight (then building it again).
 *
 * At the end everything is drained: every accepted request was answered
 * once, no MSHR or GMMU record is left, a fresh request from each GPU is
 * accepted and answered, and the IOMMU (and each GMMU) takes exactly its
 * room of requests in one cycle, so a slot lost for good on some path
 * shows even when the unit still answers through the others.
 *
 * Frames encode (generation, pasid, page), and every page keeps the
 * history of its mappings, one version per change, so an answer tells
 * which mapping it came from. What the library guarantees about a mapping
 * changed while requests are in flight (include/xlat/tlb.h, "An
 * invalidation reaches requests in flight"): a request accepted before
 * the shootdown may be answered from the mapping in force when it was
 * accepted (its walk may have read the old entry) or from any later one
 * up to its answer; a request accepted after the shootdown never sees an
 * older mapping, because a miss across an invalidation neither fills nor
 * is joined. So an answer must match some version of its page between its
 * acceptance and its answer: OK with that version's frame and permissions
 * when they allow the access, ERR_PERM when they do not, ERR_FAULT when
 * the page was unmapped. And at every step no TLB of the system holds a
 * translation other than the one in force: a shootdown leaves nothing
 * old behind, and a fill begun before it does not bring it back.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"

#define SPACES_MAX 3      /* PASIDs 1..spaces; spaces + 1 has no table at all */
#define PAGES 16
#define BASE 0x40000000ull
#define VERSIONS 48       /* mapping changes a page may go through in one input */
#define REQUESTS 1024     /* requests one input may send */
#define OPS 4096
#define GPUS_MAX 8
#define DRAIN_STEPS 200000 /* events a drain may run before it gives up */
#define FAULTS 32         /* page requests the host holds before answering */

typedef struct mapping {
    uint64_t frame;       /* valid when mapped */
    uint8_t perm;         /* XLAT_PERM_* as a walk reports them */
    bool mapped;
} mapping;

typedef struct request {
    xlat_req req;
    uint32_t page, version; /* version of (pasid, page) at acceptance */
    uint32_t life;          /* the system it was sent to */
    uint32_t answers;
} request;

typedef struct shape {
    uint32_t gpus, cus, spaces;
    xlat_incl incl;
    bool multi_app, rx_occupancy, tracker_exact, ring, shared_l2, gmmu;
    xlat_gmmu_mode gmmu_mode;
    xlat_tlb_config l1, l2;
    xlat_walker_config walk, gmmu_walk;
    xlat_iommu_config iommu;
    xlat_gmmu_config gmmu_cfg;
    uint32_t link_latency, probe_latency;
    uint32_t pri;           /* page requests: 0 none, 1 refused at once, 2 mapped at once,
                               3 held until an operation answers them */
} shape;

typedef struct world {
    shape sh;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pagetable *local[GPUS_MAX];
    xlat_system *sys;
    uint32_t life;          /* systems built so far */
    bool advancing;         /* inside xlat_tick() / xlat_advance() */
    mapping hist[SPACES_MAX + 2][PAGES][VERSIONS];
    uint32_t nver[SPACES_MAX + 2][PAGES];
    uint32_t gen[SPACES_MAX + 2][PAGES];
    request req[REQUESTS];
    uint32_t nreq, answered, dropped;
    uint64_t fault_token[FAULTS];
    uint32_t fault_pasid[FAULTS], fault_page[FAULTS];
    uint32_t nfaults;
} world;

static const mapping *current(const world *w, uint32_t pasid, uint32_t page)
{
    return &w->hist[pasid][page][w->nver[pasid][page] - 1];
}

static uint64_t frame_of(uint64_t gen, uint32_t pasid, uint32_t page)
{
    return gen << 24 | (uint64_t)pasid << 20 | page;
}

/* The GPU whose local table (with GMMUs) holds the page. */
static uint32_t home(const world *w, uint32_t pasid, uint32_t page)
{
    return (pasid + page) % w->sh.gpus;
}

/* ---------------------------------------------------------------- answers */

/* Does version `m` of the page explain this answer? */
static bool explains(const mapping *m, const request *q, const xlat_resp *r)
{
    uint8_t need = xlat_access_perm(q->req.access);
    if (!m->mapped)
        return r->status == XLAT_ERR_FAULT;
    if ((m->perm & need) != need)
        return r->status == XLAT_ERR_PERM;
    return r->status == XLAT_OK && r->pfn == m->frame && r->perm == m->perm &&
           r->page_shift == 12 && r->paddr == (m->frame << 12 | (q->req.vaddr & 0xfff));
}

static void on_done(void *user, const xlat_resp *r)
{
    world *w = user;
    FUZZ_CHECK(w->advancing, "answer to %llu outside tick/advance", (unsigned long long)r->id);
    FUZZ_CHECK(r->id < w->nreq, "answer to id %llu never sent", (unsigned long long)r->id);
    request *q = &w->req[r->id];
    FUZZ_CHECK(q->life == w->life, "answer to %llu from a destroyed system",
               (unsigned long long)r->id);
    FUZZ_CHECK(q->answers++ == 0, "request %llu answered twice", (unsigned long long)r->id);
    w->answered++;
    FUZZ_CHECK(r->pasid == q->req.pasid && r->vaddr == q->req.vaddr,
               "answer %llu for pasid %u va %llx, asked pasid %u va %llx",
               (unsigned long long)r->id, r->pasid, (unsigned long long)r->vaddr,
               q->req.pasid, (unsigned long long)q->req.vaddr);
    uint32_t pasid = q->req.pasid, page = q->page, now = w->nver[pasid][page];
    for (uint32_t v = q->version; v < now; v++)
        if (explains(&w->hist[pasid][page][v], q, r))
            return;
    FUZZ_CHECK(false,
               "request %llu (gpu %u cu %u pasid %u page %u access %d, versions %u..%u): "
               "status %d pfn %llx perm %x explained by no mapping since its acceptance",
               (unsigned long long)r->id, q->req.gpu, q->req.cu, pasid, page, q->req.access,
               q->version, now - 1, r->status, (unsigned long long)r->pfn, r->perm);
}

static mapping *next_version(world *w, uint32_t pasid, uint32_t page);
static int table_map(world *w, uint32_t pasid, uint32_t page, uint64_t frame, uint8_t perm);
static void shootdown(world *w, uint32_t pasid, uint32_t page);

/* ------------------------------------------------------ page requests */

/* The host's driver: maps the page (then the walk resumes), or refuses
 * it. A page of the PASID without a table, or one that changed too often,
 * is refused. Called inside advance too: the library allows a shootdown
 * from inside its callbacks. */
static void answer_fault(world *w, uint64_t token, uint32_t pasid, uint32_t page, bool map)
{
    int status = XLAT_ERR_FAULT;
    if (map && pasid <= w->sh.spaces && current(w, pasid, page)->mapped) {
        status = XLAT_OK; /* mapped since by the host */
    } else if (map && pasid <= w->sh.spaces) {
        mapping *m = next_version(w, pasid, page);
        if (m) {
            m->mapped = true;
            m->perm = XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X;
            m->frame = frame_of(++w->gen[pasid][page], pasid, page);
            FUZZ_CHECK(table_map(w, pasid, page, m->frame, m->perm) == XLAT_OK, "fault map");
            shootdown(w, pasid, page);
            status = XLAT_OK;
        }
    }
    int rc = xlat_iommu_fault_done(xlat_system_iommu(w->sys), token, status);
    FUZZ_CHECK(rc == XLAT_OK, "fault_done of token %llu: %s", (unsigned long long)token,
               xlat_strerror(rc));
}

static void on_faults(void *user, xlat_iommu *iommu, const xlat_iommu_fault *f, size_t n)
{
    world *w = user;
    FUZZ_CHECK(iommu == xlat_system_iommu(w->sys), "page request from another IOMMU");
    FUZZ_CHECK(n >= 1 && n <= w->sh.iommu.fault_batch, "a batch of %zu page requests", n);
    for (size_t i = 0; i < n; i++) {
        uint32_t page = (uint32_t)((f[i].vaddr - BASE) >> 12);
        FUZZ_CHECK(f[i].pasid >= 1 && f[i].pasid <= w->sh.spaces + 1 && f[i].vaddr >= BASE &&
                       page < PAGES && f[i].gpu < w->sh.gpus,
                   "page request for pasid %u va %llx from gpu %u", f[i].pasid,
                   (unsigned long long)f[i].vaddr, f[i].gpu);
        if (w->sh.pri == 3 && w->nfaults < FAULTS) {
            w->fault_token[w->nfaults] = f[i].token;
            w->fault_pasid[w->nfaults] = f[i].pasid;
            w->fault_page[w->nfaults++] = page;
        } else {
            answer_fault(w, f[i].token, f[i].pasid, page, w->sh.pri != 1);
        }
    }
}

/* Answers held page request k (the last one takes its place). */
static void answer_held(world *w, uint32_t k, bool map)
{
    uint64_t token = w->fault_token[k];
    uint32_t pasid = w->fault_pasid[k], page = w->fault_page[k];
    w->nfaults--;
    w->fault_token[k] = w->fault_token[w->nfaults];
    w->fault_pasid[k] = w->fault_pasid[w->nfaults];
    w->fault_page[k] = w->fault_page[w->nfaults];
    answer_fault(w, token, pasid, page, map);
}

/* ----------------------------------------------------------- the clock */

static void run(world *w, uint64_t cycles)
{
    w->advancing = true;
    int rc = cycles == 1 ? xlat_tick(w->ctx) : xlat_advance(w->ctx, cycles);
    w->advancing = false;
    FUZZ_CHECK(rc == XLAT_OK, "advance: %s", xlat_strerror(rc));
}

/* Run until every request of this system is answered and a few more
 * events have passed, or nothing is left to run. A unit that never
 * settles (a retry every cycle for ever) ends at DRAIN_STEPS. */
static void drain(world *w)
{
    uint32_t after = 0;
    for (uint32_t step = 0; step < DRAIN_STEPS; step++) {
        while (w->nfaults) /* the host answers what it held, so the walks can end */
            answer_held(w, w->nfaults - 1, step & 1);
        uint64_t next = xlat_next_event(w->ctx);
        if (next == XLAT_NEVER || (w->answered + w->dropped == w->nreq && ++after > 64))
            break;
        run(w, next - xlat_now(w->ctx));
    }
}

/* ------------------------------------------------- what the TLBs hold */

typedef struct holder {
    const world *w;
    const char *what;
    uint32_t gpu;
} holder;

static void check_entry(void *user, const xlat_tlb_entry *e)
{
    const holder *h = user;
    const world *w = h->w;
    uint64_t page = e->vpn - (BASE >> 12);
    FUZZ_CHECK(e->pasid >= 1 && e->pasid <= w->sh.spaces && e->vpn >= BASE >> 12 && page < PAGES,
               "%s of gpu %u holds pasid %u vpn %llx, never mapped", h->what, h->gpu, e->pasid,
               (unsigned long long)e->vpn);
    const mapping *m = current(w, e->pasid, (uint32_t)page);
    FUZZ_CHECK(m->mapped && e->pfn == m->frame && e->perm == m->perm,
               "%s of gpu %u holds pasid %u page %llu -> %llx perm %x; in force: %s %llx perm %x",
               h->what, h->gpu, e->pasid, (unsigned long long)page, (unsigned long long)e->pfn,
               e->perm, m->mapped ? "mapped" : "unmapped", (unsigned long long)m->frame,
               m->perm);
}

static void check_tlb(const world *w, const xlat_tlb *t, const char *what, uint32_t gpu)
{
    holder h = {w, what, gpu};
    for (uint32_t s = 0; t && s < xlat_tlb_sets(t); s++)
        FUZZ_CHECK(xlat_tlb_set_foreach(t, s, check_entry, &h) == XLAT_OK, "foreach of %s",
                   what);
}

/* No TLB of the system holds anything but the mappings in force. */
static void check_holdings(const world *w)
{
    for (uint32_t g = 0; g < w->sh.gpus; g++) {
        for (uint32_t c = 0; c < w->sh.cus; c++)
            check_tlb(w, xlat_system_l1(w->sys, g, c), "L1", g);
        check_tlb(w, xlat_system_l2(w->sys, g), "L2", g);
    }
    check_tlb(w, xlat_iommu_tlb(xlat_system_iommu(w->sys)), "IOMMU TLB", 0);
}

/* ------------------------------------------------------------ building */

static bool gmmu_is_local(void *user, uint32_t gpu, uint64_t paddr)
{
    world *w = user;
    uint64_t pfn = paddr >> 12;
    return home(w, (uint32_t)(pfn >> 20) & 0xF, (uint32_t)(pfn & 0xFFFFF) % PAGES) == gpu;
}

static bool gmmu_oracle(void *user, uint32_t gpu, const xlat_req *req)
{
    world *w = user;
    return home(w, req->pasid, (uint32_t)((req->vaddr - BASE) >> 12) % PAGES) == gpu;
}

static void decode_tlbs(shape *s, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
    xlat_system_l1_config_init(&s->l1);
    s->l1.entries = 1u << (a & 3);                     /* 1..8 */
    s->l1.ways = a & 4 ? 1 : s->l1.entries;
    s->l1.latency = 1 + (a >> 3 & 1);
    s->l1.mshrs = 1 + (a >> 4 & 1);
    s->l1.ports = 1 + (a >> 5 & 1);
    s->l1.repl = (xlat_repl)(a >> 6 & 1 ? XLAT_REPL_LRU : XLAT_REPL_FIFO);
    xlat_system_l2_config_init(&s->l2);
    s->l2.entries = 2u << (b & 3);                     /* 2..16 */
    s->l2.ways = b & 4 ? 2 : s->l2.entries;
    s->l2.latency = 1 + (b >> 3 & 3);
    s->l2.mshrs = 1 + (b >> 5 & 3);
    s->l2.ports = 1 + (b >> 7 & 1);
}

static void decode_iommu(shape *s, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in), c = fuzz_u8(in);
    xlat_iommu_walker_config_init(&s->walk);
    s->walk.walkers = 1 + (a & 3);
    s->walk.queue_entries = 1 + (a >> 2 & 7);
    s->walk.mem_latency = 1 + (a >> 5);
    xlat_iommu_config_init(&s->iommu);
    s->iommu.walk = &s->walk;
    s->iommu.buffer_entries = 1 + (b & 7);
    s->iommu.tlb_entries = 2u << (b >> 3 & 3);         /* 2..16 */
    s->iommu.tlb_ways = b & 0x20 ? 2 : s->iommu.tlb_entries;
    s->iommu.tlb_latency = 1 + (b >> 6) * 3;
    s->iommu.inclusion = s->incl;
    s->iommu.multi_app = s->multi_app;
    s->iommu.spill_rx = s->rx_occupancy ? XLAT_SPILL_OCCUPANCY : XLAT_SPILL_CUMULATIVE;
    s->iommu.tracker_exact = s->tracker_exact;
    s->iommu.tracker_entries = 8 * s->gpus;
    s->iommu.tracker_fp_bits = c & 1 ? 4 : 12;         /* 4: false positives */
    s->iommu.remote_latency = 1 + (c >> 1 & 15);
    s->iommu.spill_counter = c >> 5 & 3;
    s->iommu.exclude_owner = !(c & 0x80);
    uint8_t d = fuzz_u8(in);
    s->pri = d & 3;
    s->iommu.fault_fn = s->pri ? on_faults : NULL;
    s->iommu.fault_batch = 1 + (d >> 2 & 3);
    s->iommu.fault_timeout = d >> 4 & 15;
}

static void decode_gmmu(shape *s, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in);
    xlat_walker_config_init(&s->gmmu_walk);
    s->gmmu_walk.walkers = 1 + (a & 1);
    s->gmmu_walk.queue_entries = 1 + (a >> 1 & 3);
    s->gmmu_walk.mem_latency = 1 + (a >> 3 & 3);
    s->gmmu_mode = (xlat_gmmu_mode)(a >> 5 & 3);
    xlat_gmmu_config_init(&s->gmmu_cfg);
    s->gmmu_cfg.mode = s->gmmu_mode;
    s->gmmu_cfg.epoch_cycles = 16 + (a >> 7) * 48;
    s->gmmu_cfg.initial_route = (xlat_gmmu_routing)(a % 3);
    s->gmmu_cfg.max_outstanding = 1 + (a >> 2 & 3);
    s->gmmu_cfg.is_local = gmmu_is_local;
    s->gmmu_cfg.oracle = gmmu_oracle;
}

/* The bounds where senders get refused and must be woken, and clocks
 * other than the context's, where wake-ups fall between edges. */
static void decode_limits(shape *s, fuzz_input *in)
{
    static const uint32_t ratio[4][2] = {{0, 0}, {5, 7}, {2, 1}, {1, 3}};
    uint8_t a = fuzz_u8(in);
    s->l1.hits_in_flight = a & 1 ? 1 : 0;
    s->l2.hits_in_flight = a & 2 ? 1 : 0;
    s->l1.mshr_targets = a & 4 ? 1 : 0;
    s->l2.mshr_targets = a & 8 ? 2 : 0;
    s->iommu.clock_num = ratio[a >> 4 & 3][0];
    s->iommu.clock_den = ratio[a >> 4 & 3][1];
    s->l2.clock_num = ratio[a >> 6 & 1][0];
    s->l2.clock_den = ratio[a >> 6 & 1][1];
    if (a >> 7 && s->incl == XLAT_INCL_MOSTLY) { /* a second-level IOMMU TLB */
        s->iommu.tlb2_entries = 4;
        s->iommu.tlb2_ways = 4;
        s->iommu.tlb2_latency = 3;
    }
}

static void decode_shape(world *w, fuzz_input *in)
{
    shape *s = &w->sh;
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
    s->gpus = 1 + (a & 7);
    s->cus = 1 + (a >> 3 & 3);
    s->incl = (xlat_incl)(a >> 5 & 3);
    s->multi_app = a >> 7;
    s->rx_occupancy = b & 1;
    s->tracker_exact = b >> 1 & 1;
    s->spaces = 1 + (b >> 2 & 3) % SPACES_MAX;
    /* one of: nothing more, the probing ring, a shared L2, GMMUs */
    uint32_t extra = b >> 4 & 3;
    s->ring = extra == 1;
    s->shared_l2 = extra == 2 && s->incl != XLAT_INCL_LEAST;
    s->gmmu = extra == 3;
    s->link_latency = b >> 6 & 3 ? 1u << (b >> 6 & 3) : 0;
    s->probe_latency = 1 + (b >> 6);
    decode_tlbs(s, in);
    decode_iommu(s, in);
    decode_gmmu(s, in);
    decode_limits(s, in);
    s->gmmu_cfg.locality_user = w;
    s->gmmu_cfg.oracle_user = w;
    s->iommu.fault_user = w;
}

static int build_system(world *w)
{
    shape *s = &w->sh;
    s->walk.pt = w->pt;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = s->gpus;
    sc.cus = s->cus;
    sc.l1 = &s->l1;
    sc.l2 = &s->l2;
    sc.iommu = &s->iommu;
    sc.gpu_iommu_latency = s->link_latency;
    sc.probe_ring = s->ring;
    sc.probe_latency = s->probe_latency;
    sc.shared_l2 = s->shared_l2;
    sc.gmmu = s->gmmu;
    sc.local_pt = s->gmmu ? w->local : NULL;
    sc.gmmu_walk = &s->gmmu_walk;
    sc.gmmu_cfg = &s->gmmu_cfg;
    w->life++;
    return xlat_system_create(w->ctx, &sc, &w->sys);
}

/* A page's table entry (and its copy in the local table of its home GPU). */
static int table_map(world *w, uint32_t pasid, uint32_t page, uint64_t frame, uint8_t perm)
{
    uint64_t va = BASE + (uint64_t)page * 4096;
    uint8_t bits = perm & (XLAT_PERM_W | XLAT_PERM_U | XLAT_PERM_X);
    int rc = xlat_pagetable_map(w->pt, pasid, va, frame, 12, bits);
    if (rc == XLAT_OK && w->sh.gmmu)
        rc = xlat_pagetable_map(w->local[home(w, pasid, page)], pasid, va, frame, 12, bits);
    return rc;
}

static int table_unmap(world *w, uint32_t pasid, uint32_t page)
{
    uint64_t va = BASE + (uint64_t)page * 4096;
    int rc = xlat_pagetable_unmap(w->pt, pasid, va);
    if (rc == XLAT_OK && w->sh.gmmu)
        rc = xlat_pagetable_unmap(w->local[home(w, pasid, page)], pasid, va);
    return rc;
}

/* Walks report R always, and X unless the entry says NX. */
static uint8_t perm_from(uint8_t x)
{
    return (uint8_t)(XLAT_PERM_R | (x & (XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U)));
}

/* Most pages mapped read-write, some read-only or not at all. */
static int map_initial(world *w, uint8_t pattern)
{
    for (uint32_t pasid = 1; pasid <= w->sh.spaces + 1; pasid++)
        for (uint32_t page = 0; page < PAGES; page++) {
            mapping *m = &w->hist[pasid][page][0];
            w->nver[pasid][page] = 1;
            uint32_t x = (page * 7 + pasid * 3 + pattern) % 8;
            if (pasid > w->sh.spaces || x == 0)
                continue;
            m->mapped = true;
            m->frame = frame_of(++w->gen[pasid][page], pasid, page);
            m->perm = perm_from(x == 1 ? XLAT_PERM_X : XLAT_PERM_W | XLAT_PERM_X);
            if (table_map(w, pasid, page, m->frame, m->perm) != XLAT_OK)
                return -1;
        }
    return 0;
}

static int build_world(world *w, fuzz_input *in)
{
    decode_shape(w, in);
    uint8_t pattern = fuzz_u8(in);
    if (xlat_ctx_create(NULL, &w->ctx) != XLAT_OK)
        return -1;
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    if (xlat_physmem_create(w->ctx, &pc, &w->mem) != XLAT_OK)
        return -1;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt) != XLAT_OK)
        return -1;
    for (uint32_t g = 0; w->sh.gmmu && g < w->sh.gpus; g++)
        if (xlat_pagetable_create(w->ctx, &tc, &w->local[g]) != XLAT_OK)
            return -1;
    if (map_initial(w, pattern) != 0)
        return -1;
    int rc = build_system(w);
    FUZZ_CHECK(rc == XLAT_OK, "system_create: %s: %s", xlat_strerror(rc),
               xlat_ctx_errmsg(w->ctx));
    return 0;
}

static void destroy_world(world *w)
{
    FUZZ_CHECK(xlat_system_destroy(w->sys) == XLAT_OK, "system_destroy");
    for (uint32_t g = 0; g < GPUS_MAX; g++)
        FUZZ_CHECK(xlat_pagetable_destroy(w->local[g]) == XLAT_OK, "local table destroy");
    FUZZ_CHECK(xlat_pagetable_destroy(w->pt) == XLAT_OK, "table destroy");
    FUZZ_CHECK(xlat_physmem_destroy(w->mem) == XLAT_OK, "physmem destroy");
    xlat_ctx_destroy(w->ctx);
}

/* --------------------------------------------------------- operations */

static void op_translate(world *w, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in), c = fuzz_u8(in);
    if (w->nreq == REQUESTS)
        return;
    request *q = &w->req[w->nreq];
    memset(q, 0, sizeof(*q));
    q->page = b % PAGES;
    uint32_t pasid = 1 + (b >> 4) % (w->sh.spaces + 1); /* now and then one with no table */
    bool bad = (c & 0xF0) == 0xF0;                        /* a deliberate out-of-range request */
    q->req = (xlat_req){.id = w->nreq, .vaddr = BASE + (uint64_t)q->page * 4096 + (c & 0xF) * 8,
                        .pasid = pasid, .access = (xlat_access)(a >> 6),
                        .gpu = (uint16_t)(a % w->sh.gpus), .cu = (uint16_t)((a >> 3) % w->sh.cus)};
    if (bad && (c & 4))
        q->req.gpu = (uint16_t)(w->sh.gpus + (c & 3));
    else if (bad && (c & 8))
        q->req.cu = (uint16_t)(w->sh.cus + (c & 3));
    else if (bad)
        q->req.access = (xlat_access)(4 + (c & 3));
    q->version = w->nver[pasid][q->page] - 1;
    q->life = w->life;
    int rc = xlat_system_translate(w->sys, &q->req, on_done, w);
    if (bad) {
        FUZZ_CHECK(rc == XLAT_ERR_INVAL && xlat_ctx_errmsg(w->ctx)[0],
                   "bad request (gpu %u cu %u access %d) gave %d", q->req.gpu, q->req.cu,
                   q->req.access, rc);
        return;
    }
    FUZZ_CHECK(rc == XLAT_OK || rc == XLAT_ERR_AGAIN, "translate refused with %s: %s",
               xlat_strerror(rc), xlat_ctx_errmsg(w->ctx));
    if (rc == XLAT_OK)
        w->nreq++;
}

/* The host's shootdown after changing a page: every TLB of the system. */
static void shootdown(world *w, uint32_t pasid, uint32_t page)
{
    int rc = xlat_system_invalidate(w->sys, pasid, BASE + (uint64_t)page * 4096);
    FUZZ_CHECK(rc >= 0, "system_invalidate: %s", xlat_strerror(rc));
}

/* Records the page's new state as its next version; false when the page
 * has changed too often for this input. */
static mapping *next_version(world *w, uint32_t pasid, uint32_t page)
{
    uint32_t *n = &w->nver[pasid][page];
    if (*n == VERSIONS)
        return NULL;
    w->hist[pasid][page][*n] = w->hist[pasid][page][*n - 1];
    return &w->hist[pasid][page][(*n)++];
}

/* kind 0: map (an unmapped page), 1: unmap, 2: protect, 3: remap. */
static void op_change(world *w, fuzz_input *in, uint32_t kind)
{
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in);
    uint32_t pasid = 1 + a % w->sh.spaces, page = (a >> 2) % PAGES;
    bool was = current(w, pasid, page)->mapped;
    if (kind == 0 && was)
        kind = 3;
    if (kind != 0 && !was)
        kind = 0;
    mapping *m = next_version(w, pasid, page);
    if (!m)
        return;
    int rc = XLAT_OK;
    if (kind == 1 || kind == 3)
        rc = table_unmap(w, pasid, page);
    m->mapped = kind != 1;
    m->perm = perm_from(b);
    if (kind == 0 || kind == 3)
        m->frame = frame_of(++w->gen[pasid][page], pasid, page);
    if (rc == XLAT_OK && kind == 2)
        rc = xlat_pagetable_protect(w->pt, pasid, BASE + (uint64_t)page * 4096,
                                    m->perm & ~XLAT_PERM_R);
    if (rc == XLAT_OK && kind == 2 && w->sh.gmmu)
        rc = xlat_pagetable_protect(w->local[home(w, pasid, page)], pasid,
                                    BASE + (uint64_t)page * 4096, m->perm & ~XLAT_PERM_R);
    if (rc == XLAT_OK && m->mapped && kind != 2)
        rc = table_map(w, pasid, page, m->frame, m->perm);
    FUZZ_CHECK(rc == XLAT_OK, "page table change %u: %s", kind, xlat_strerror(rc));
    shootdown(w, pasid, page);
}

static void op_invalidate_pasid(world *w, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in);
    uint32_t pasid = 1 + a % w->sh.spaces;
    if (a & 0x80) { /* straight into the GPUs' TLBs, as a driver's PASID flush */
        for (uint32_t g = 0; g < w->sh.gpus; g++) {
            for (uint32_t c = 0; c < w->sh.cus; c++)
                FUZZ_CHECK(xlat_tlb_invalidate_pasid(xlat_system_l1(w->sys, g, c), pasid) >= 0,
                           "L1 invalidate_pasid");
            FUZZ_CHECK(xlat_tlb_invalidate_pasid(xlat_system_l2(w->sys, g), pasid) >= 0,
                       "L2 invalidate_pasid");
        }
        return;
    }
    for (uint32_t page = 0; page < PAGES; page++)
        shootdown(w, pasid, page);
}

static void op_flush_gpu(world *w, fuzz_input *in)
{
    uint8_t a = fuzz_u8(in);
    if ((a & 0xE0) == 0xE0) {
        FUZZ_CHECK(xlat_system_flush_gpu(w->sys, w->sh.gpus + (a & 7)) == XLAT_ERR_INVAL &&
                       xlat_ctx_errmsg(w->ctx)[0],
                   "flush of a GPU out of range");
        return;
    }
    FUZZ_CHECK(xlat_system_flush_gpu(w->sys, a % w->sh.gpus) >= 0, "flush_gpu");
}

/* Mid-flight teardown: what the system holds refuses to go, the system
 * goes cleanly (its requests dropped unanswered), and another one takes
 * its place on the same context. */
static void op_destroy(world *w)
{
    FUZZ_CHECK(xlat_pagetable_destroy(w->pt) == XLAT_ERR_BUSY, "table destroyed under a system");
    FUZZ_CHECK(xlat_physmem_destroy(w->mem) == XLAT_ERR_BUSY, "physmem destroyed under a table");
    if (w->sh.gmmu)
        FUZZ_CHECK(xlat_pagetable_destroy(w->local[0]) == XLAT_ERR_BUSY,
                   "local table destroyed under a GMMU");
    FUZZ_CHECK(xlat_system_destroy(w->sys) == XLAT_OK, "system_destroy");
    w->sys = NULL;
    for (uint32_t i = 0; i < w->nreq; i++)
        if (w->req[i].answers == 0 && w->req[i].life == w->life) {
            w->req[i].life = 0;
            w->dropped++;
        }
    w->nfaults = 0; /* their walks went with the IOMMU */
    run(w, 1000); /* nothing of the old system may answer or run */
    int rc = build_system(w);
    FUZZ_CHECK(rc == XLAT_OK, "rebuilding: %s: %s", xlat_strerror(rc), xlat_ctx_errmsg(w->ctx));
}

static void step(world *w, fuzz_input *in)
{
    uint8_t op = fuzz_u8(in);
    switch (op % 25) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8:
        op_translate(w, in);
        break;
    case 9: case 10: case 11:
        run(w, 1);
        break;
    case 12: case 13:
        run(w, 1 + (uint64_t)fuzz_u8(in) * (op & 0x80 ? 16 : 1));
        break;
    case 14: op_change(w, in, 0); break;
    case 15: op_change(w, in, 1); break;
    case 16: op_change(w, in, 2); break;
    case 17: op_change(w, in, 3); break;
    case 18: {
        uint8_t a = fuzz_u8(in);
        shootdown(w, 1 + a % w->sh.spaces, (a >> 2) % PAGES);
        break;
    }
    case 19: op_invalidate_pasid(w, in); break;
    case 20: op_flush_gpu(w, in); break;
    case 21:
        FUZZ_CHECK(xlat_iommu_flush(xlat_system_iommu(w->sys)) >= 0, "iommu_flush");
        break;
    case 22:
        FUZZ_CHECK(xlat_system_flush(w->sys) >= 0, "system_flush");
        break;
    case 23: {
        uint8_t a = fuzz_u8(in);
        if (w->nfaults)
            answer_held(w, a % w->nfaults, a & 0x80);
        break;
    }
    default:
        if (op >= 0xC0) /* rare: a teardown costs a whole rebuild */
            op_destroy(w);
        else
            run(w, 1);
        break;
    }
}

/* ----------------------------------------------------------- quiescence */

static void check_idle(world *w)
{
    FUZZ_CHECK(w->answered + w->dropped == w->nreq, "%u of %u accepted requests never answered",
               w->nreq - w->answered - w->dropped, w->nreq);
    for (uint32_t g = 0; g < w->sh.gpus; g++) {
        for (uint32_t c = 0; c < w->sh.cus; c++)
            FUZZ_CHECK(xlat_tlb_mshrs_busy(xlat_system_l1(w->sys, g, c)) == 0,
                       "idle L1 %u.%u holds an MSHR", g, c);
        FUZZ_CHECK(xlat_tlb_mshrs_busy(xlat_system_l2(w->sys, g)) == 0,
                   "idle L2 %u holds an MSHR", g);
        FUZZ_CHECK(xlat_gmmu_outstanding(xlat_system_gmmu(w->sys, g)) == 0,
                   "idle GMMU %u has requests outstanding", g);
    }
}

/* A request of the harness's own, straight to a unit below the TLBs;
 * false when the table of requests is full. */
static request *direct_request(world *w, uint32_t gpu, uint32_t page)
{
    if (w->nreq == REQUESTS)
        return NULL;
    request *q = &w->req[w->nreq];
    memset(q, 0, sizeof(*q));
    q->page = page % PAGES;
    q->req = (xlat_req){.id = w->nreq, .vaddr = BASE + (uint64_t)q->page * 4096, .pasid = 1,
                        .gpu = (uint16_t)gpu};
    q->version = w->nver[1][q->page] - 1;
    q->life = w->life;
    return q;
}

/* Once idle, a unit has all its room back: the IOMMU takes exactly
 * buffer_entries requests in one cycle and refuses the next, and each
 * GMMU takes max_outstanding. A slot lost for good on some path shows
 * here even when the unit still answers through the others. */
static void check_room(world *w, const char *what, uint32_t room, uint32_t gpu,
                       int (*send)(void *unit, const xlat_req *req, xlat_done_fn done, void *user),
                       void *unit)
{
    run(w, 1);
    for (uint32_t i = 0; i <= room; i++) {
        request *q = direct_request(w, gpu, i);
        if (!q)
            return;
        int rc = send(unit, &q->req, on_done, w);
        if (i < room)
            FUZZ_CHECK(rc == XLAT_OK, "idle %s of gpu %u took %u of its %u requests: %s: %s",
                       what, gpu, i, room, xlat_strerror(rc), xlat_ctx_errmsg(w->ctx));
        else
            FUZZ_CHECK(rc == XLAT_ERR_AGAIN, "idle %s of gpu %u took %u requests, room for %u",
                       what, gpu, room + 1, room);
        w->nreq += rc == XLAT_OK;
    }
    drain(w);
    check_idle(w);
}

static int send_iommu(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_iommu_translate(unit, req, done, user);
}

static int send_gmmu(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_gmmu_translate(unit, req, done, user);
}

static void check_all_room(world *w)
{
    check_room(w, "IOMMU", w->sh.iommu.buffer_entries, 0, send_iommu, xlat_system_iommu(w->sys));
    for (uint32_t g = 0; w->sh.gmmu && g < w->sh.gpus; g++)
        check_room(w, "GMMU", w->sh.gmmu_cfg.max_outstanding, g, send_gmmu,
                   xlat_system_gmmu(w->sys, g));
}

/* Once idle, the system accepts again: with every TLB emptied, one request
 * per GPU (each going all the way to the IOMMU) is accepted and answered.
 * From the next cycle on: the last requests may have used this cycle's
 * ports (one that joins a miss completing in its own cycle is answered
 * in that cycle). */
static void check_accepts_again(world *w)
{
    FUZZ_CHECK(xlat_system_flush(w->sys) >= 0, "system_flush");
    run(w, 1);
    for (uint32_t g = 0; g < w->sh.gpus && w->nreq < REQUESTS; g++) {
        request *q = &w->req[w->nreq];
        memset(q, 0, sizeof(*q));
        q->page = g % PAGES;
        q->req = (xlat_req){.id = w->nreq, .vaddr = BASE + (uint64_t)q->page * 4096,
                            .pasid = 1, .gpu = (uint16_t)g, .cu = (uint16_t)(g % w->sh.cus)};
        q->version = w->nver[1][q->page] - 1;
        q->life = w->life;
        int rc = xlat_system_translate(w->sys, &q->req, on_done, w);
        FUZZ_CHECK(rc == XLAT_OK, "idle system refused gpu %u: %s: %s", g, xlat_strerror(rc),
                   xlat_ctx_errmsg(w->ctx));
        w->nreq++;
        run(w, 1);
    }
    drain(w);
    check_idle(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    world *w = calloc(1, sizeof(*w));
    if (!w)
        return 0;
    FUZZ_CHECK(build_world(w, &in) == 0, "building the world: %s", xlat_ctx_errmsg(w->ctx));
    for (uint32_t n = 0; n < OPS && fuzz_more(&in); n++) {
        step(w, &in);
        check_holdings(w);
    }
    drain(w);
    check_holdings(w);
    check_idle(w);
    check_accepts_again(w);
    check_all_room(w);
    check_holdings(w);
    destroy_world(w);
    free(w);
    return 0;
}
