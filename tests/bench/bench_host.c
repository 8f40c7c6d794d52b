/* The host's memory, as a yardstick for the rows that depend on it: the
 * time of one load whose address comes from the load before, over 4 MiB
 * (the host's caches), 64 MiB and 1 GiB (its memory). A large system
 * touches each of its 65,536 L1s a few times in a run, so a translation
 * there waits on chains of such loads; on the same build, 64 and 1024
 * GPUs cost more or less per translation than 4 as this latency moves
 * from one VM, or one day, to another (doc/performance.md, Not there
 * yet). The rows are printed beside the system group's, and
 * tests/bench/scaling prints them before its rounds.
 *
 * The chase visits every line of the buffer once a round, in the order
 * i -> (A * i + C) mod lines: a full cycle for a power-of-two count of
 * lines, A = 1 mod 4 and C odd (Hull and Dobell), whose steps vary too
 * much for the host's prefetchers to follow, and which is written in one
 * pass, where a shuffle of 16 M lines would itself take seconds. The
 * buffer is on huge pages where the host gives them, as a large
 * context's chunks are (lib/core/slab.h), so a row measures the memory,
 * not the host's page walks. */
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "bench.h"

#define LINE 64
#define HUGE_PAGE ((size_t)2 << 20)
#define STEP_A 0x5851F42D4C957F2Dull /* = 1 mod 4 */
#define STEP_C 0x14057B7EF767814Full /* odd */
#define LOADS 2000000u

/* One line of the buffer: the index of the next one to visit. */
struct chase_line {
    uint64_t next;
    char pad[LINE - sizeof(uint64_t)];
};

static void advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Nanoseconds of one dependent load over `bytes` (a power of two, at
 * least a huge page), or -1 when the buffer cannot be had. */
static double chase_ns(size_t bytes)
{
    size_t lines = bytes / LINE;
    struct chase_line *buf = aligned_alloc(HUGE_PAGE, bytes);
    if (!buf)
        return -1;
    advise_huge(buf, bytes);
    for (size_t i = 0; i < lines; i++)
        buf[i].next = (STEP_A * i + STEP_C) & (lines - 1);
    uint64_t at = 0;
    for (size_t i = 0; i < lines / 8 && i < LOADS; i++) /* warm the host's page tables */
        at = buf[at].next;
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < LOADS; i++)
        at = buf[at].next;
    double dt = bench_seconds() - t0;
    bench_sink = at;
    free(buf);
    return dt * 1e9 / LOADS;
}

void bench_host(void)
{
    static const struct {
        const char *label;
        size_t bytes;
    } sizes[] = {
        {"host memory, dependent loads over 4 MiB", (size_t)4 << 20},
        {"host memory, dependent loads over 64 MiB", (size_t)64 << 20},
        {"host memory, dependent loads over 1 GiB", (size_t)1 << 30},
    };
    printf("\n-- the host's memory (a yardstick for the system rows: a load whose address"
           " the load before gave) --\n");
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double ns = chase_ns(sizes[i].bytes);
        if (ns < 0) {
            fprintf(stderr, "bench host: no buffer of %zu MiB\n", sizes[i].bytes >> 20);
            continue;
        }
        char note[64];
        snprintf(note, sizeof(note), "%.1f ns a load", ns);
        bench_row(sizes[i].label, 1e9 / ns, 1.0, note);
    }
}
