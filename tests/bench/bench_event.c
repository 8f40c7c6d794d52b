/* The event engine alone: host events scheduled and fired through the
 * timing wheel, in the steady state (K pending, each fired event schedules
 * the next) and in a burst (all scheduled up front), with the pool's peak
 * bytes per pending event from a counting allocator; then the destroy of N
 * units that each have events pending, one by one.
 *
 * XLAT_BENCH_EVENTS=N sets the events of each wheel row (default 10^7),
 * XLAT_BENCH_BURST=N the burst's alone (10^8 needs about 2.5 GiB), and
 * XLAT_BENCH_EVENT_ROWS=WORD runs only the rows whose kind is WORD
 * (steady, burst or destroy), to compare two builds on them. */
#include <string.h>
#include <sys/resource.h>

#include "bench.h"

/* The allocator counts the bytes the context holds, and their peak. */
typedef struct counted {
    size_t bytes, peak;
} counted;

static void *counted_alloc(void *user, size_t size, size_t align)
{
    counted *c = user;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
    c->bytes += size;
    if (c->bytes > c->peak)
        c->peak = c->bytes;
    return p;
}

static void counted_free(void *user, void *ptr, size_t size)
{
    ((counted *)user)->bytes -= size;
    free(ptr);
}

typedef struct chain {
    xlat_ctx *ctx;
    uint64_t state, range, left, fired;
} chain;

/* Each event schedules the next, while the row's count lasts. */
static void chain_fire(void *user)
{
    chain *c = user;
    c->fired++;
    if (c->left == 0)
        return;
    c->left--;
    xlat_schedule(c->ctx, 1 + bench_rand(&c->state) % c->range, chain_fire, c);
}

static xlat_ctx *counted_ctx(counted *mem, xlat_allocator *a)
{
    xlat_ctx_config cfg;
    xlat_ctx *ctx = NULL;
    *a = (xlat_allocator){counted_alloc, counted_free, mem};
    xlat_ctx_config_init(&cfg);
    cfg.allocator = a;
    if (xlat_ctx_create(&cfg, &ctx) != XLAT_OK) {
        fprintf(stderr, "bench: xlat_ctx_create failed\n");
        exit(1);
    }
    return ctx;
}

/* Process CPU seconds: on a loaded machine, wall time counts the time the
 * process waited for a core too. */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether rows of kind `kind` run (XLAT_BENCH_EVENT_ROWS). */
static int row_wanted(const char *kind)
{
    const char *only = getenv("XLAT_BENCH_EVENT_ROWS");
    return !only || strcmp(only, kind) == 0;
}

static void note_row(const char *what, uint64_t n, double s, double cpu, const counted *mem,
                     size_t base, uint64_t pending)
{
    char note[128];
    snprintf(note, sizeof(note), "%.1f ns/event (cpu %.1f), %.1f pool bytes/pending at peak",
             s * 1e9 / (double)n, cpu * 1e9 / (double)n,
             (double)(mem->peak - base) / (double)pending);
    bench_row(what, (double)n, s, note);
}

/* K events pending at all times, n fired in all, delays 1..range. */
static void steady(uint64_t k, uint64_t range, uint64_t n)
{
    counted mem = {0};
    xlat_allocator a;
    xlat_ctx *ctx = counted_ctx(&mem, &a);
    size_t base = mem.bytes;
    chain c = {ctx, 7, range, n > k ? n - k : 0, 0};
    double t0 = bench_seconds(), c0 = cpu_seconds();
    for (uint64_t i = 0; i < k; i++)
        xlat_schedule(ctx, 1 + bench_rand(&c.state) % range, chain_fire, &c);
    while (xlat_pending_events(ctx))
        xlat_advance(ctx, range);
    double s = bench_seconds() - t0, cpu = cpu_seconds() - c0;
    char what[96];
    snprintf(what, sizeof(what), "event steady K=%llu delay 1..%llu (%llu events)",
             (unsigned long long)k, (unsigned long long)range, (unsigned long long)c.fired);
    note_row(what, c.fired, s, cpu, &mem, base, k);
    xlat_ctx_destroy(ctx);
}

static void count_fire(void *user) { ((chain *)user)->fired++; }

/* Minor page faults of the process so far: the fresh pages a burst's pool
 * touches, which the kernel zeroes. */
static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* The process's peak resident memory so far, in MB: after a burst is
 * scheduled, what its pool touched (the rows before it are far smaller),
 * where the pool bytes of the row are what it allocated. */
static double peak_resident_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

/* n events scheduled at once, delays 1..range, then advanced through. A
 * second row gives the two halves: the scheduling, with the minor faults
 * of the pool's fresh pages (on a VM they cost from a few to tens of ns
 * an event, run to run), and the firing, which re-files each event level
 * by level and faults nothing. */
static void burst(uint64_t n, uint64_t range)
{
    counted mem = {0};
    xlat_allocator a;
    xlat_ctx *ctx = counted_ctx(&mem, &a);
    size_t base = mem.bytes;
    chain c = {ctx, 11, range, 0, 0};
    long faults = minor_faults();
    double t0 = bench_seconds(), c0 = cpu_seconds();
    for (uint64_t i = 0; i < n; i++)
        if (xlat_schedule(ctx, 1 + bench_rand(&c.state) % range, count_fire, &c) != XLAT_OK) {
            fprintf(stderr, "bench: xlat_schedule failed: %s\n", xlat_ctx_errmsg(ctx));
            exit(1);
        }
    double scheduled = bench_seconds();
    faults = minor_faults() - faults;
    double resident = peak_resident_mb();
    xlat_advance(ctx, range);
    double s = bench_seconds() - t0, cpu = cpu_seconds() - c0;
    char what[96], note[160];
    snprintf(what, sizeof(what), "event burst %llu delay 1..%llu", (unsigned long long)n,
             (unsigned long long)range);
    note_row(what, c.fired, s, cpu, &mem, base, n);
    snprintf(what, sizeof(what), "event burst %llu, its halves", (unsigned long long)n);
    snprintf(note, sizeof(note),
             "schedule %.1f ns/event (%ld page faults), fire %.1f ns/event,"
             " %.0f MB resident at peak",
             (scheduled - t0) * 1e9 / (double)n, faults, (t0 + s - scheduled) * 1e9 / (double)n,
             resident);
    bench_row(what, (double)c.fired, s, note);
    xlat_ctx_destroy(ctx);
}

static void discard(void *user, const xlat_resp *r)
{
    (void)user;
    bench_sink += r->id;
}

/* n responders, each with requests in flight (a pending event), destroyed
 * one by one. */
static void destroy_pending(size_t n)
{
    xlat_ctx *ctx = NULL;
    xlat_fixed **units = calloc(n, sizeof(*units));
    xlat_ctx_create(NULL, &ctx);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    for (size_t i = 0; i < n; i++) {
        fc.latency = 100 + (uint32_t)(i % 1000);
        if (xlat_fixed_create(ctx, &fc, &units[i]) != XLAT_OK) {
            fprintf(stderr, "bench: xlat_fixed_create failed\n");
            exit(1);
        }
        xlat_req req = {.id = i, .vaddr = i << 12, .pasid = 1};
        xlat_fixed_translate(units[i], &req, discard, NULL);
    }
    xlat_advance(ctx, 50); /* the events stay pending */
    size_t pending = xlat_pending_events(ctx);
    double t0 = bench_seconds();
    for (size_t i = 0; i < n; i++)
        xlat_fixed_destroy(units[i]);
    double s = bench_seconds() - t0;
    char what[96], note[96];
    snprintf(what, sizeof(what), "event destroy %zu units, %zu events pending", n, pending);
    snprintf(note, sizeof(note), "%.4f s, %.2f us/unit", s, s * 1e6 / (double)n);
    bench_row(what, (double)n, s, note);
    xlat_ctx_destroy(ctx);
    free(units);
}

void bench_event(void)
{
    uint64_t n = bench_env_count("XLAT_BENCH_EVENTS", 10000000ull);
    if (row_wanted("steady")) {
        steady(1000, 1000, n);
        steady(1000, 1000000, n);
        steady(1000000, 1000, n);
        steady(1000000, 1000000, n);
    }
    if (row_wanted("burst"))
        burst(bench_env_count("XLAT_BENCH_BURST", n), 1000000);
    if (row_wanted("destroy")) {
        destroy_pending(4096);
        destroy_pending(16384);
        destroy_pending(65536);
    }
}
