/*
 * Contexts in parallel threads (doc/threads.md). A context and the units
 * built on it share nothing with another context, so a host may give each
 * its own thread: here a sweep (8 system configurations, 3 seeds each, one
 * context per run) and a system split into independent GPU groups (one
 * context per group) each run once with a thread per context and once
 * serially. The runs must be identical, counter for counter and cycle for
 * cycle; the program says what differs and fails otherwise, and prints the
 * speed-up of the threaded run.
 *
 *   cc -pthread threads.c $(pkg-config --cflags --libs libxlat) -o threads
 *   ./threads [REQUESTS]      (requests per run; default 20000)
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xlat/xlat.h>

#define KNOBS 8          /* sweep: L2 sizes x inclusion policies */
#define SEEDS 3
#define GROUPS 4         /* the split system: 8 GPUs in 4 groups of 2 */
#define GROUP_GPUS 2
#define SWEEP_GPUS 4
#define CUS 2
#define PAGES 192        /* footprint in 4 KiB pages */
#define BASE 0x40000000ull
#define IN_FLIGHT 8      /* requests a run keeps outstanding */
#define NAME_LEN 80

typedef struct counter {
    char name[NAME_LEN]; /* unit.counter */
    uint64_t value;
} counter;

/* One run: its inputs, then everything it produced. */
typedef struct job {
    char label[48];
    uint32_t gpus, l2_entries;
    xlat_incl incl;
    uint64_t seed;
    uint32_t requests;

    char error[160];      /* empty when the run succeeded */
    uint64_t *completed;  /* per request id: the cycle it completed */
    uint64_t *paddr;      /* per request id: its physical address */
    uint32_t answered, in_flight;
    counter *counters;
    size_t ncounters, cap;
    uint64_t digest;      /* FNV-1a over every answer, in arrival order */
} job;

static void mix(uint64_t *h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        *h = (*h ^ (v & 0xff)) * 0x100000001b3ull;
}

/* The host's request stream: its own generator, so that a run depends on
 * its seed alone. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void on_done(void *user, const xlat_resp *r)
{
    job *j = user;
    j->in_flight--;
    j->answered++;
    if (r->status != XLAT_OK && !j->error[0])
        snprintf(j->error, sizeof(j->error), "request %" PRIu64 ": %s", r->id,
                 xlat_strerror(r->status));
    j->completed[r->id] = r->completed;
    j->paddr[r->id] = r->paddr;
    mix(&j->digest, r->id);
    mix(&j->digest, r->paddr);
    mix(&j->digest, r->completed);
}

static void on_counter(void *user, uint32_t unit_id, const char *kind, const char *unit,
                       const char *name, uint64_t value)
{
    job *j = user;
    (void)unit_id;
    (void)kind;
    if (j->ncounters == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 256;
        counter *c = realloc(j->counters, cap * sizeof(*c));
        if (!c) {
            snprintf(j->error, sizeof(j->error), "out of memory for counters");
            return;
        }
        j->counters = c;
        j->cap = cap;
    }
    counter *c = &j->counters[j->ncounters++];
    snprintf(c->name, sizeof(c->name), "%s.%s", unit, name);
    c->value = value;
}

static int failed(job *j, xlat_ctx *ctx, const char *what)
{
    snprintf(j->error, sizeof(j->error), "%s: %s", what, xlat_ctx_errmsg(ctx));
    return -1;
}

/* Sends the run's requests, IN_FLIGHT at a time, one a cycle at most, and
 * waits for the last answer. Half of them go to a hot set of 16 pages. */
static int drive(job *j, xlat_ctx *ctx, xlat_system *sys)
{
    uint64_t rng = j->seed * 0x9e3779b97f4a7c15ull + 1;
    uint32_t sent = 0;
    while (sent < j->requests) {
        if (j->in_flight < IN_FLIGHT) {
            uint64_t r = next_random(&rng);
            uint64_t page = (r & 1) ? (r >> 8) % 16 : (r >> 8) % PAGES;
            xlat_req req = {.id = sent, .vaddr = BASE + page * 4096 + (r >> 32) % 4096,
                            .pasid = 1, .gpu = (uint16_t)((r >> 40) % j->gpus),
                            .cu = (uint16_t)((r >> 48) % CUS)};
            int rc = xlat_system_translate(sys, &req, on_done, j);
            if (rc == XLAT_OK) {
                sent++;
                j->in_flight++;
            } else if (rc != XLAT_ERR_AGAIN) {
                return failed(j, ctx, "translate");
            }
        }
        xlat_tick(ctx);
    }
    while (j->in_flight > 0 && xlat_next_event(ctx) != XLAT_NEVER)
        xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));
    if (j->answered != j->requests) {
        snprintf(j->error, sizeof(j->error), "%u of %u requests answered", j->answered, j->requests);
        return -1;
    }
    return 0;
}

/* Builds the run's system on `ctx`, drives it and reads every counter. */
static int simulate(job *j, xlat_ctx *ctx)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_physmem *mem;
    if (xlat_physmem_create(ctx, &pc, &mem) != XLAT_OK)
        return failed(j, ctx, "physmem");
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = mem;
    xlat_pagetable *pt;
    if (xlat_pagetable_create(ctx, &tc, &pt) != XLAT_OK)
        return failed(j, ctx, "pagetable");
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.tlb_entries = 64;
    ic.tlb_ways = 16;
    ic.inclusion = j->incl;
    xlat_tlb_config l2;
    xlat_system_l2_config_init(&l2);
    l2.entries = j->l2_entries;
    l2.ways = 8;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = j->gpus;
    sc.cus = CUS;
    sc.l2 = &l2;
    sc.iommu = &ic;
    sc.gpu_iommu_latency = 100;
    xlat_system *sys;
    int rc = -1;
    if (xlat_pagetable_map_range(pt, 1, BASE, PAGES * 4096, 0, XLAT_PERM_R) != PAGES)
        failed(j, ctx, "map_range");
    else if (xlat_system_create(ctx, &sc, &sys) != XLAT_OK)
        failed(j, ctx, "system");
    else {
        rc = drive(j, ctx, sys);
        if (rc == 0)
            xlat_stats_foreach(ctx, on_counter, j);
        xlat_system_destroy(sys);
    }
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    return rc;
}

/* A thread's body, and the serial loop's: one run on a context of its own. */
static void *run_job(void *arg)
{
    job *j = arg;
    j->digest = 0xcbf29ce484222325ull;
    j->completed = calloc(j->requests, sizeof(*j->completed));
    j->paddr = calloc(j->requests, sizeof(*j->paddr));
    if (!j->completed || !j->paddr) {
        snprintf(j->error, sizeof(j->error), "out of memory");
        return NULL;
    }
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = j->seed;
    xlat_ctx *ctx;
    if (xlat_ctx_create(&cc, &ctx) != XLAT_OK) {
        snprintf(j->error, sizeof(j->error), "cannot create a context");
        return NULL;
    }
    simulate(j, ctx);
    xlat_ctx_destroy(ctx);
    return NULL;
}

static void job_free(job *j)
{
    free(j->completed);
    free(j->paddr);
    free(j->counters);
}

static double seconds_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double seconds(void)
{
    return seconds_of(CLOCK_MONOTONIC);
}

/* CPU seconds of every thread: beside the wall time, it tells whether the
 * threads cost more work than the serial loop, or only waited for a core
 * (a machine shared with other jobs gives no speed-up whatever the code). */
static double cpu_seconds(void)
{
    return seconds_of(CLOCK_PROCESS_CPUTIME_ID);
}

/* Runs every job, each in its own thread; returns the seconds it took. */
static double run_threads(job *jobs, size_t n)
{
    pthread_t *tid = calloc(n, sizeof(*tid));
    double t0 = seconds();
    size_t started = 0;
    if (tid)
        for (; started < n; started++)
            if (pthread_create(&tid[started], NULL, run_job, &jobs[started]) != 0)
                break;
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = started; i < n; i++)
        snprintf(jobs[i].error, sizeof(jobs[i].error), "cannot start its thread");
    free(tid);
    return seconds() - t0;
}

static double run_serially(job *jobs, size_t n)
{
    double t0 = seconds();
    for (size_t i = 0; i < n; i++)
        run_job(&jobs[i]);
    return seconds() - t0;
}

/* Says what differs between the threaded run `a` and the serial run `b`. */
static int differ(const job *a, const job *b)
{
    const char *what = a->error[0] ? a->error : b->error;
    if (a->error[0] || b->error[0]) {
        fprintf(stderr, "%s failed: %s\n", a->label, what);
        return 1;
    }
    for (uint32_t i = 0; i < a->requests; i++)
        if (a->completed[i] != b->completed[i] || a->paddr[i] != b->paddr[i]) {
            fprintf(stderr, "%s: request %u completed at %" PRIu64 " (0x%" PRIx64 ") threaded, "
                    "at %" PRIu64 " (0x%" PRIx64 ") serially\n", a->label, i, a->completed[i],
                    a->paddr[i], b->completed[i], b->paddr[i]);
            return 1;
        }
    if (a->ncounters != b->ncounters) {
        fprintf(stderr, "%s: %zu counters threaded, %zu serially\n", a->label, a->ncounters,
                b->ncounters);
        return 1;
    }
    for (size_t i = 0; i < a->ncounters; i++)
        if (strcmp(a->counters[i].name, b->counters[i].name) != 0 ||
            a->counters[i].value != b->counters[i].value) {
            fprintf(stderr, "%s: counter %s = %" PRIu64 " threaded, %s = %" PRIu64 " serially\n",
                    a->label, a->counters[i].name, a->counters[i].value, b->counters[i].name,
                    b->counters[i].value);
            return 1;
        }
    if (a->digest != b->digest) {
        fprintf(stderr, "%s: answers arrived in another order\n", a->label);
        return 1;
    }
    return 0;
}

/* Runs `jobs` threaded and a copy of them serially, and compares. */
static int compare_modes(const char *title, job *jobs, size_t n)
{
    job *serial = malloc(n * sizeof(*serial));
    if (!serial) {
        fprintf(stderr, "%s: out of memory\n", title);
        return 1;
    }
    memcpy(serial, jobs, n * sizeof(*serial));
    double cpu0 = cpu_seconds();
    double threaded_s = run_threads(jobs, n);
    double cpu1 = cpu_seconds();
    double serial_s = run_serially(serial, n);
    double cpu2 = cpu_seconds();
    int bad = 0;
    uint64_t digest = 0xcbf29ce484222325ull, last = 0;
    for (size_t i = 0; i < n; i++) {
        bad += differ(&jobs[i], &serial[i]);
        mix(&digest, jobs[i].digest);
        if (jobs[i].requests && jobs[i].completed && jobs[i].completed[jobs[i].requests - 1] > last)
            last = jobs[i].completed[jobs[i].requests - 1];
    }
    printf("%s %zu contexts, %zu counters in the first, digest %016" PRIx64 "\n"
           "  serial %.3f s (CPU %.3f s), threaded %.3f s (CPU %.3f s): speed-up %.2fx\n", title,
           n, jobs[0].ncounters, digest, serial_s, cpu2 - cpu1, threaded_s, cpu1 - cpu0,
           threaded_s > 0 ? serial_s / threaded_s : 0.0);
    for (size_t i = 0; i < n; i++) {
        job_free(&jobs[i]);
        job_free(&serial[i]);
    }
    free(serial);
    return bad;
}

static int sweep(uint32_t requests)
{
    job jobs[KNOBS * SEEDS] = {0};
    for (uint32_t k = 0; k < KNOBS; k++)
        for (uint32_t s = 0; s < SEEDS; s++) {
            job *j = &jobs[k * SEEDS + s];
            j->gpus = SWEEP_GPUS;
            j->l2_entries = 16u << (k / 2);
            j->incl = (k % 2) ? XLAT_INCL_LEAST : XLAT_INCL_MOSTLY;
            j->seed = 1000 + s;
            j->requests = requests;
            snprintf(j->label, sizeof(j->label), "sweep L2 %u %s seed %" PRIu64, j->l2_entries,
                     (k % 2) ? "least" : "mostly", j->seed);
        }
    return compare_modes("sweep of 8 configurations x 3 seeds:", jobs, KNOBS * SEEDS);
}

/* Groups that share no unit (no IOMMU, no page table) are independent
 * systems: each a context of its own. */
static int split_system(uint32_t requests)
{
    job jobs[GROUPS] = {0};
    for (uint32_t g = 0; g < GROUPS; g++) {
        job *j = &jobs[g];
        j->gpus = GROUP_GPUS;
        j->l2_entries = 64;
        j->incl = XLAT_INCL_LEAST;
        j->seed = 77 + g;
        j->requests = requests;
        snprintf(j->label, sizeof(j->label), "GPU group %u (GPUs %u-%u)", g, g * GROUP_GPUS,
                 g * GROUP_GPUS + GROUP_GPUS - 1);
    }
    return compare_modes("8 GPUs split into 4 groups:", jobs, GROUPS);
}

int main(int argc, char **argv)
{
    uint32_t requests = 20000;
    if (argc > 1) {
        char *end;
        unsigned long n = strtoul(argv[1], &end, 10);
        if (*end || n == 0 || n > 100000000) {
            fprintf(stderr, "usage: %s [REQUESTS]  (requests per run, 1..100000000)\n", argv[0]);
            return EXIT_FAILURE;
        }
        requests = (uint32_t)n;
    }
    int bad = sweep(requests) + split_system(requests);
    if (bad) {
        fprintf(stderr, "%d runs differ between threads and serial\n", bad);
        return EXIT_FAILURE;
    }
    printf("threaded and serial runs identical\n");
    return EXIT_SUCCESS;
}
