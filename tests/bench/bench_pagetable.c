/* Page tables and frame allocation: map throughput, page-table bytes per
 * mapped 4 KiB page for a 1 GiB footprint laid out densely and sparsely,
 * functional walks and lookups, and the physical frame allocator. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PAGES 262144 /* 1 GiB of 4 KiB pages */
#define RW (XLAT_PERM_R | XLAT_PERM_W)

/* Host memory held by the library, through the context's allocator. */
static size_t host_live;

static void *bench_alloc(void *user, size_t size, size_t align)
{
    void *p = NULL;
    (void)user;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
    host_live += size;
    return p;
}

static void bench_free(void *user, void *ptr, size_t size)
{
    (void)user;
    host_live -= size;
    free(ptr);
}

struct env {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
};

static int env_open(struct env *e)
{
    static const xlat_allocator hooks = {bench_alloc, bench_free, NULL};
    xlat_ctx_config cc;
    xlat_physmem_config pc;
    xlat_pagetable_config tc;
    xlat_ctx_config_init(&cc);
    cc.allocator = &hooks;
    xlat_physmem_config_init(&pc); /* one 4 GiB region */
    xlat_pagetable_config_init(&tc);
    memset(e, 0, sizeof(*e));
    if (xlat_ctx_create(&cc, &e->ctx) != XLAT_OK)
        return -1;
    if (xlat_physmem_create(e->ctx, &pc, &e->mem) == XLAT_OK) {
        tc.mem = e->mem;
        if (xlat_pagetable_create(e->ctx, &tc, &e->pt) == XLAT_OK)
            return 0;
    }
    fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(e->ctx));
    return -1;
}

static void env_close(struct env *e)
{
    xlat_pagetable_destroy(e->pt);
    xlat_physmem_destroy(e->mem);
    xlat_ctx_destroy(e->ctx);
}

static uint64_t page_va(uint64_t i, uint64_t stride) { return (UINT64_C(1) << 40) + i * stride * 4096; }

/* Maps PAGES pages `stride` pages apart and reports the table's size. */
static void map_pages(struct env *e, const char *label, uint64_t stride)
{
    size_t host0 = host_live;
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < PAGES; i++)
        if (xlat_pagetable_map(e->pt, 1, page_va(i, stride), i, 12, RW) != XLAT_OK) {
            fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(e->ctx));
            return;
        }
    double dt = bench_seconds() - t0;
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(e->pt, &st, sizeof(st));
    uint64_t nodes = st.bytes / 4096;
    char note[128];
    snprintf(note, sizeof(note), "%.2f table bytes/page, %llu nodes, host %.0f MiB",
             (double)st.bytes / PAGES, (unsigned long long)nodes,
             (double)(host_live - host0) / (1 << 20));
    bench_row(label, PAGES, dt, note);
}

static void walks(struct env *e, const char *label, uint64_t stride, int lookup)
{
    const uint64_t n = 10000000;
    uint64_t state = 9, ok = 0;
    xlat_walk_trace w;
    xlat_tlb_entry te;
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t va = page_va(bench_rand(&state) % PAGES, stride) + 0x123;
        if (lookup)
            ok += xlat_pagetable_lookup(e->pt, 1, va, &te) == XLAT_OK;
        else
            ok += xlat_pagetable_walk(e->pt, 1, va, &w) == XLAT_OK;
    }
    double dt = bench_seconds() - t0;
    bench_row(label, (double)n, dt, ok == n ? "random pages, all mapped" : "MISSES");
    bench_sink += ok;
}

static void dense_and_sparse(void)
{
    struct env e;
    if (env_open(&e) == 0) {
        map_pages(&e, "map 4 KiB, dense (1 GiB contiguous)", 1);
        walks(&e, "walk, dense table", 1, 0);
        walks(&e, "lookup, dense table", 1, 1);
    }
    env_close(&e);
    if (env_open(&e) == 0) {
        map_pages(&e, "map 4 KiB, sparse (1 page per 2 MiB, 512 GiB)", 512);
        walks(&e, "walk, sparse table", 512, 0);
    }
    env_close(&e);
}

/* Allocates `frames`-frame aligned runs until the region is full or `max`. */
static void runs(struct env *e, const char *label, uint64_t frames, uint64_t max)
{
    uint64_t pfn, n = 0;
    double t0 = bench_seconds();
    while (n < max && xlat_physmem_alloc(e->mem, 0, frames, frames, &pfn) == XLAT_OK)
        n++;
    double dt = bench_seconds() - t0;
    char note[96];
    snprintf(note, sizeof(note), "%llu runs, %llu frames left, %zu allocator bytes",
             (unsigned long long)n, (unsigned long long)xlat_physmem_free_frames(e->mem, 0),
             xlat_physmem_memory(e->mem));
    bench_row(label, (double)n, dt, note);
}

/* The frame allocator on a 4 GiB region: single frames (next fit), then
 * 2 MiB runs in what they leave; 2 MiB runs from a fresh region. */
static void frames(void)
{
    struct env e;
    if (env_open(&e) == 0) {
        runs(&e, "physmem alloc, single frames (next fit)", 1, 1000000);
        runs(&e, "physmem alloc, 2 MiB runs after 1M frames", 512, UINT64_MAX);
    }
    env_close(&e);
    if (env_open(&e) == 0)
        runs(&e, "physmem alloc, 2 MiB runs, fresh region", 512, UINT64_MAX);
    env_close(&e);
}

void bench_pagetable(void)
{
    printf("\n-- page tables --\n");
    dense_and_sparse();
    frames();
}
