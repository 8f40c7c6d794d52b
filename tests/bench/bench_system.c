/* Whole systems: translations per host second for 4 to 1024 GPUs of 64 CUs
 * each, on a random trace and a shared-pages trace, the same 200,000
 * requests whatever the GPU count (so that the rate is a per-translation
 * cost), and memory per GPU. The host offers requests only to CUs whose L1
 * can take them: a refused CU waits for its L1's wake-up (the target's
 * `wait` hook), as tools/xlat-sim does, so the rate measures the model and
 * not the refusals. XLAT_BENCH_GPUS=n runs one GPU count (one of the
 * five; any other value is refused); XLAT_BENCH_ONE the first.
 * XLAT_BENCH_L1_MSHRS=n gives each L1 n MSHRs instead of its default 4
 * (the L2s' MSHRs and the IOMMU's buffer scale with it): on the
 * random trace the IOMMU's walkers are the bottleneck and every MSHR fills,
 * so this sets the translations in flight, which decide a translation's
 * host cost more than the GPU count does (doc/performance.md).
 * XLAT_BENCH_REQUESTS=n sends n requests instead of 200,000. At 1024 GPUs
 * the default gives each of the 65,536 L1s about three; a longer run asks
 * whether a translation's cost there is a cold start (it is not: each CU
 * is offered a request in turn, so its L1 has left the host's caches by
 * its next one; doc/performance.md).
 * Each row ends with the seconds its system took to set up and to tear
 * down, outside the timed run: 1024 GPUs (65,536 L1s, some 70,000 units,
 * 1.5 GB) take under a second each, since the registry finds a unit by
 * id through an index (lib/core/registry.c); before, each GPU's link
 * scanned the registry for the IOMMU: 1.5-3.4 s to set up and about 1 s
 * to tear down, a row. */
#include <stdlib.h>

#include "bench.h"

/* An allocator that counts live bytes: the whole context's memory. */
typedef struct count_alloc {
    size_t live;
} count_alloc;

static void *counted_alloc(void *user, size_t size, size_t align)
{
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
    ((count_alloc *)user)->live += size;
    return p;
}

static void counted_free(void *user, void *ptr, size_t size)
{
    if (ptr)
        ((count_alloc *)user)->live -= size;
    free(ptr);
}

/* One CU as the host sees it: in the ready ring, or waiting for its L1. */
typedef struct sys_cu {
    struct sys_rig *rig;
    uint32_t index; /* gpu * cus + cu */
    bool waiting;
    xlat_target l1;
} sys_cu;

typedef struct sys_rig {
    count_alloc counter;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    uint32_t gpus, cus;
    uint32_t l1_mshrs;    /* 0: the system's default */
    uint64_t requests;    /* sent in the timed run */
    sys_cu *cu;           /* gpus x cus */
    uint32_t *ready;      /* ring of CUs that may be offered a request */
    uint32_t ready_head, ready_len;
    uint64_t done, refusals, wakeups;
    uint64_t last; /* completion cycle of the last request answered */
} sys_rig;

static void on_done(void *user, const xlat_resp *r)
{
    sys_rig *rig = user;
    rig->done++;
    if (r->completed > rig->last)
        rig->last = r->completed;
}

#define SYS_PAGES 65536
#define SYS_BASE 0x7f0000000000ull
#define SYS_CUS 64
#define SYS_REQUESTS 200000

static int map_table(xlat_ctx *ctx, xlat_physmem **mem, xlat_pagetable **pt, uint64_t pages,
                     uint64_t base)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    if (xlat_physmem_create(ctx, &pc, mem))
        return -1;
    tc.mem = *mem;
    if (xlat_pagetable_create(ctx, &tc, pt))
        return -1;
    for (uint64_t p = 0; p < pages; p++) {
        uint64_t pfn;
        if (xlat_physmem_place(*mem, p, 0, 1, &pfn) ||
            xlat_pagetable_map(*pt, 1, base + p * 4096, pfn, 12, XLAT_PERM_R | XLAT_PERM_W))
            return -1;
    }
    return 0;
}

int bench_mapped_table(xlat_ctx **ctx, xlat_physmem **mem, xlat_pagetable **pt, uint64_t pages,
                       uint64_t base)
{
    if (xlat_ctx_create(NULL, ctx))
        return -1;
    return map_table(*ctx, mem, pt, pages, base);
}

static int make_system(sys_rig *r, xlat_incl incl)
{
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = r->gpus;
    sc.cus = r->cus;
    sc.gpu_iommu_latency = 300;
    /* Enough L2 MSHRs for every L1 miss: refused forwards are retried each
     * cycle, which costs host time in proportion to the units waiting. */
    xlat_tlb_config l1, l2;
    xlat_system_l1_config_init(&l1);
    xlat_system_l2_config_init(&l2);
    if (r->l1_mshrs)
        l1.mshrs = r->l1_mshrs;
    sc.l1 = &l1;
    l2.mshrs = sc.cus * l1.mshrs;
    l2.ports = 64;
    sc.l2 = &l2;
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = r->pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.inclusion = incl;
    ic.tracker_entries = 512 * r->gpus;
    ic.buffer_entries = r->gpus * l2.mshrs;
    wc.queue_entries = ic.buffer_entries;
    sc.iommu = &ic;
    return xlat_system_create(r->ctx, &sc, &r->sys);
}

/* Every CU ready, GPUs interleaved (GPU 0's CU 0, GPU 1's CU 0, ...), so
 * that each cycle's offers spread over the GPUs. */
static int make_cus(sys_rig *r)
{
    size_t n = (size_t)r->gpus * r->cus;
    r->cu = calloc(n, sizeof(*r->cu));
    r->ready = calloc(n, sizeof(*r->ready));
    if (!r->cu || !r->ready)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        sys_cu *c = &r->cu[i];
        *c = (sys_cu){.rig = r, .index = i, .l1 = XLAT_TARGET_INIT};
        if (xlat_tlb_get_target(xlat_system_l1(r->sys, i / r->cus, i % r->cus), &c->l1))
            return -1;
        uint32_t g = i % r->gpus, cu = i / r->gpus;
        r->ready[r->ready_len++] = g * r->cus + cu;
    }
    return 0;
}

static int rig_build(sys_rig *r, uint32_t gpus, xlat_incl incl)
{
    xlat_allocator a = {counted_alloc, counted_free, &r->counter};
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.allocator = &a;
    r->gpus = gpus;
    r->cus = SYS_CUS;
    if (xlat_ctx_create(&cc, &r->ctx) || map_table(r->ctx, &r->mem, &r->pt, SYS_PAGES, SYS_BASE))
        return -1;
    if (make_system(r, incl))
        return -1;
    return make_cus(r);
}

static void rig_destroy(sys_rig *r)
{
    xlat_system_destroy(r->sys);
    xlat_pagetable_destroy(r->pt);
    xlat_physmem_destroy(r->mem);
    xlat_ctx_destroy(r->ctx);
    free(r->cu);
    free(r->ready);
}

static void make_ready(sys_rig *r, uint32_t cu)
{
    size_t n = (size_t)r->gpus * r->cus;
    r->ready[(r->ready_head + r->ready_len++) % n] = cu;
}

static uint32_t take_ready(sys_rig *r)
{
    size_t n = (size_t)r->gpus * r->cus;
    uint32_t cu = r->ready[r->ready_head];
    r->ready_head = (uint32_t)((r->ready_head + 1) % n);
    r->ready_len--;
    return cu;
}

/* CU c's L1 may take a request again (from inside tick/advance). */
static void on_wake(void *user)
{
    sys_cu *c = user;
    c->waiting = false;
    c->rig->wakeups++;
    make_ready(c->rig, c->index);
}

/* Page of the n-th request: random over the whole footprint, or (shared)
 * mostly over 2048 pages every GPU touches. */
static uint64_t next_page(uint64_t *state, bool shared)
{
    uint64_t z = bench_rand(state);
    return shared && z % 4 ? (z >> 8) % 2048 : (z >> 8) % SYS_PAGES;
}

/* Offers one request to CU c: accepted (c stays ready), or refused (c waits
 * for its L1's wake-up; without one it is offered again next cycle). */
static bool offer(sys_rig *r, sys_cu *c, uint64_t id, uint64_t *state, bool shared)
{
    xlat_req req = {.id = id, .pasid = 1, .gpu = (uint16_t)(c->index / r->cus),
                    .cu = (uint16_t)(c->index % r->cus),
                    .vaddr = SYS_BASE + next_page(state, shared) * 4096};
    int rc = xlat_system_translate(r->sys, &req, on_done, r);
    if (rc == XLAT_OK) {
        make_ready(r, c->index);
        return true;
    }
    r->refusals++;
    c->waiting = true;
    if (!c->l1.wait || c->l1.wait(c->l1.unit, on_wake, c) != XLAT_OK) {
        c->waiting = false;
        make_ready(r, c->index);
    }
    return false;
}

/* About one request per GPU and cycle, to the CUs that may take one (not
 * inlined: callgrind --toggle-collect=drive counts the run alone). */
__attribute__((noinline)) static void drive(sys_rig *r, bool shared)
{
    uint64_t state = r->gpus, sent = 0;
    while (sent < r->requests) {
        uint64_t before = sent;
        uint32_t offers = r->ready_len < r->gpus ? r->ready_len : r->gpus;
        for (uint32_t i = 0; i < offers && sent < r->requests; i++)
            sent += offer(r, &r->cu[take_ready(r)], sent, &state, shared);
        uint64_t next = xlat_next_event(r->ctx);
        if (sent == before && next != XLAT_NEVER && next > xlat_now(r->ctx))
            xlat_advance(r->ctx, next - xlat_now(r->ctx)); /* all stalled: skip ahead */
        else
            xlat_tick(r->ctx);
    }
    xlat_advance(r->ctx, 100000000); /* drain: the clock then says nothing of the run */
}

/* One row: a new rig with `settings`' request count and L1 MSHRs. */
static void run(const sys_rig *settings, uint32_t gpus, bool shared, xlat_incl incl)
{
    sys_rig r = {.requests = settings->requests, .l1_mshrs = settings->l1_mshrs};
    double t_build = bench_seconds();
    if (rig_build(&r, gpus, incl) != 0) {
        fprintf(stderr, "bench system: %s\n", r.ctx ? xlat_ctx_errmsg(r.ctx) : "no context");
        rig_destroy(&r);
        return;
    }
    double t0 = bench_seconds();
    t_build = t0 - t_build;
    drive(&r, shared);
    double dt = bench_seconds() - t0;
    char label[96], note[160];
    char mshrs[32] = "";
    if (r.l1_mshrs)
        snprintf(mshrs, sizeof(mshrs), ", %u L1 MSHRs", r.l1_mshrs);
    snprintf(label, sizeof(label), "system %4u GPUs x 64 CUs, %s, %s%s", gpus,
             shared ? "shared pages" : "random", incl == XLAT_INCL_LEAST ? "least-TLB" : "baseline",
             mshrs);
    double tlb_kib = (double)xlat_system_gpu_memory(r.sys, 0) / 1024.0;
    double ctx_kib = (double)r.counter.live / gpus / 1024.0;
    double t_destroy = bench_seconds();
    rig_destroy(&r);
    t_destroy = bench_seconds() - t_destroy;
    snprintf(note, sizeof(note),
             "%.0f KiB TLBs/GPU, %.0f KiB ctx/GPU, %llu refusals, last answer at cycle %llu,"
             " set-up %.1f s, tear-down %.1f s",
             tlb_kib, ctx_kib, (unsigned long long)r.refusals, (unsigned long long)r.last,
             t_build, t_destroy);
    bench_row(label, (double)r.done, dt, note);
}

/* The one size of `gpus` that XLAT_BENCH_GPUS names, or 0 (every size)
 * when it is unset. Any other value is refused, as an unknown group is:
 * it would match no size, and the group would print no row. */
static uint32_t only_size(const uint32_t *gpus, size_t n)
{
    const char *env = getenv("XLAT_BENCH_GPUS");
    if (!env)
        return 0;
    uint64_t v = bench_env_count("XLAT_BENCH_GPUS", 0); /* 0: not a number */
    for (size_t i = 0; i < n; i++)
        if (v == gpus[i])
            return gpus[i];
    fprintf(stderr, "bench_xlat: XLAT_BENCH_GPUS is a size the system group runs (");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%u", i ? ", " : "", gpus[i]);
    fprintf(stderr, "), not '%s'\n", env);
    exit(2);
}

void bench_system(void)
{
    /* The environment's settings, read once for every row. */
    const sys_rig settings = {
        .requests = bench_env_count("XLAT_BENCH_REQUESTS", SYS_REQUESTS),
        .l1_mshrs = (uint32_t)bench_env_count("XLAT_BENCH_L1_MSHRS", 0),
    };
    static const uint32_t gpus[] = {4, 16, 64, 256, 1024};
    const size_t sizes = sizeof(gpus) / sizeof(gpus[0]);
    const uint32_t only = only_size(gpus, sizes);
    printf("\n-- multi-GPU systems (L1 16 -> L2 512 -> PCIe 300 -> IOMMU 4096, 8 walkers;"
           " %llu requests) --\n", (unsigned long long)settings.requests);
    for (size_t i = 0; i < (getenv("XLAT_BENCH_ONE") ? 1 : sizes); i++) {
        if (only && only != gpus[i])
            continue;
        run(&settings, gpus[i], false, XLAT_INCL_MOSTLY);
        run(&settings, gpus[i], true, XLAT_INCL_MOSTLY);
        run(&settings, gpus[i], true, XLAT_INCL_LEAST);
    }
}
