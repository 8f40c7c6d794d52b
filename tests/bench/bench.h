/* Shared helpers of the benchmark program (make bench). Speed is measured
 * here, never asserted in tests. */
#ifndef XLAT_BENCH_H
#define XLAT_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "xlat/xlat.h"

static inline double bench_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One row of the table: what was measured, operations per second, and a
 * free-form note (memory, load, hit rate). */
static inline void bench_row(const char *what, double ops, double seconds, const char *note)
{
    printf("%-52s %14.0f ops/s   %s\n", what, seconds > 0 ? ops / seconds : 0.0,
           note ? note : "");
}

/* splitmix64: deterministic workloads. */
static inline uint64_t bench_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The target of unit `h` of kind `kind` (tlb, fixed, walker, ...); a
 * failure ends the program, as any other failed set-up of a benchmark. */
#define BENCH_TARGET(kind, h)                                                  \
    ({                                                                         \
        xlat_target bench_target_ = XLAT_TARGET_INIT;                          \
        if (xlat_##kind##_get_target((h), &bench_target_) != XLAT_OK) {        \
            fprintf(stderr, "bench: xlat_" #kind "_get_target failed\n");     \
            exit(1);                                                           \
        }                                                                      \
        bench_target_;                                                         \
    })

/* A context, a physical memory and a page table mapping `pages` 4 KiB pages
 * of PASID 1 from `base`, placed in order (tests/bench/bench_system.c);
 * -1 when a step failed (what was made is in the out-pointers). */
int bench_mapped_table(xlat_ctx **ctx, xlat_physmem **mem, xlat_pagetable **pt, uint64_t pages,
                       uint64_t base);

/* A sink the compiler cannot remove. */
extern volatile uint64_t bench_sink;

/* Every benchmark group; each lives in its own tests/bench/bench_<name>.c. */
void bench_tlb(void);
void bench_timed(void);
void bench_cuckoo(void);
void bench_pagetable(void);
void bench_pwc(void);
void bench_walker(void);
void bench_reference(void);
void bench_gmmu(void);
void bench_system(void);
void bench_mcm(void);
void bench_sim(void);
void bench_event(void);

#endif
