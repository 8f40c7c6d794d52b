/*
 * Page-table walks as reads of the host's memory: physical memory, a page
 * table in it, and a walker pool whose every page-table read goes to a
 * memory model of the host's (xlat_walker_config::mem_read). The host's
 * memory answers each read HOST_LATENCY cycles later from its own event
 * queue by calling xlat_walker_mem_done(); the host loop jumps to whichever
 * comes first, the library's next event or its own. Copy this to put a
 * cache or DRAM model under the walkers.
 *
 *   cc walker_host_memory.c $(pkg-config --cflags --libs libxlat) -o walker_host_memory
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define HOST_LATENCY 40 /* cycles the host's memory takes per read */
#define WALKERS 2
#define REQUESTS 3 /* one more than the walkers: the third waits for one */
#define LEVELS 4   /* the page table's default x86-64 geometry */
#define PASID 1
#define BASE 0x7f0000000000ull

/* The host's memory: a FIFO of reads in flight, each due HOST_LATENCY
 * cycles after it came (a fixed latency keeps the FIFO in due order). */
typedef struct host_mem {
    xlat_ctx *ctx;
    xlat_walker *pool;
    struct {
        uint64_t due, token;
    } read[64];
    unsigned head, count;
} host_mem;

/* The walker's read: accepted, answered later from the host's loop. */
static int mem_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    host_mem *m = user;
    (void)paddr;
    (void)bytes;
    if (m->count == 64)
        return XLAT_ERR_AGAIN; /* full: the walker retries next cycle */
    unsigned tail = (m->head + m->count++) % 64;
    m->read[tail].due = xlat_now(m->ctx) + HOST_LATENCY;
    m->read[tail].token = token;
    return XLAT_OK;
}

static uint64_t mem_next_due(const host_mem *m)
{
    return m->count ? m->read[m->head].due : XLAT_NEVER;
}

/* Answer every read due now; outside the library's calls, each answer
 * takes effect at once (doc/walks.md, "Completion rule"). */
static int mem_answer_due(host_mem *m)
{
    while (m->count && m->read[m->head].due <= xlat_now(m->ctx)) {
        if (xlat_walker_mem_done(m->pool, m->read[m->head].token) != XLAT_OK)
            return -1;
        m->head = (m->head + 1) % 64;
        m->count--;
    }
    return 0;
}

static uint64_t latency[REQUESTS];
static int answered;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    latency[r->id] = r->completed - r->issued;
    answered += r->status == XLAT_OK;
    printf("walk %llu  vaddr 0x%llx -> paddr 0x%llx  cycles %llu..%llu  latency %llu\n",
           (unsigned long long)r->id, (unsigned long long)r->vaddr,
           (unsigned long long)r->paddr, (unsigned long long)r->issued,
           (unsigned long long)r->completed, (unsigned long long)latency[r->id]);
}

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

int main(void)
{
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return EXIT_FAILURE;

    /* Physical memory (one default region) and a page table in it. */
    xlat_physmem_config mc;
    xlat_physmem *mem;
    xlat_physmem_config_init(&mc);
    if (xlat_physmem_create(ctx, &mc, &mem) != XLAT_OK)
        return fail(ctx, "physmem");
    xlat_pagetable_config pc;
    xlat_pagetable *pt;
    xlat_pagetable_config_init(&pc);
    pc.mem = mem;
    if (xlat_pagetable_create(ctx, &pc, &pt) != XLAT_OK)
        return fail(ctx, "pagetable");

    /* 64 pages mapped in one call, on frames the placement chooses. */
    if (xlat_pagetable_map_range(pt, PASID, BASE, 64 * 4096, 0, XLAT_PERM_R | XLAT_PERM_W) != 64)
        return fail(ctx, "map_range");

    /* The walkers, with no page walk cache: every walk reads all levels. */
    host_mem host = {.ctx = ctx};
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = pt;
    wc.walkers = WALKERS;
    wc.mem_read = mem_read;
    wc.mem_user = &host;
    if (xlat_walker_create(ctx, &wc, &host.pool) != XLAT_OK)
        return fail(ctx, "walker");

    /* Pages far apart, so no walk shares a line with another. */
    for (uint64_t i = 0; i < REQUESTS; i++) {
        xlat_req req = {.id = i, .vaddr = BASE + i * 16 * 4096, .pasid = PASID,
                        .access = XLAT_ACCESS_READ};
        if (xlat_walker_translate(host.pool, &req, on_done, NULL) != XLAT_OK)
            return fail(ctx, "translate");
    }

    /* The host loop: go to the earlier of the library's next event and
     * the host memory's next answer. */
    for (;;) {
        uint64_t next = xlat_next_event(ctx), due = mem_next_due(&host);
        if (due < next)
            next = due;
        if (next == XLAT_NEVER)
            break;
        if (xlat_advance(ctx, next - xlat_now(ctx)) != XLAT_OK || mem_answer_due(&host) != 0)
            return fail(ctx, "advance");
    }

    xlat_walker_stats s;
    xlat_walker_stats_get(host.pool, &s, sizeof(s));
    printf("page-table reads: %llu (level 4: %llu, 3: %llu, 2: %llu, 1: %llu)\n",
           (unsigned long long)s.reads, (unsigned long long)s.reads_level[4],
           (unsigned long long)s.reads_level[3], (unsigned long long)s.reads_level[2],
           (unsigned long long)s.reads_level[1]);

    /* What the host model implies: a walk is LEVELS reads of HOST_LATENCY
     * each; the request beyond the walkers waits for one walk first. */
    int ok = answered == REQUESTS && s.reads == (uint64_t)REQUESTS * LEVELS;
    for (int level = 1; level <= LEVELS; level++)
        ok = ok && s.reads_level[level] == REQUESTS;
    for (int i = 0; i < REQUESTS; i++) {
        uint64_t expect = (uint64_t)LEVELS * HOST_LATENCY * (i < WALKERS ? 1 : 2);
        ok = ok && latency[i] == expect;
    }
    printf("%s: a walk takes %d reads x %d cycles = %d cycles; a queued one twice that\n",
           ok ? "ok" : "MISMATCH", LEVELS, HOST_LATENCY, LEVELS * HOST_LATENCY);

    xlat_walker_destroy(host.pool);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
