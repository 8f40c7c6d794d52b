/* Shared helpers of the benchmark program (make bench). Speed is measured
 * here, never asserted in tests. */
#ifndef XLAT_BENCH_H
#define XLAT_BENCH_H

#include <stdbool.h>
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

/* The median of `n` values, sorting them in place (a few rounds: an
 * insertion sort). Interleaved comparisons report the median of their
 * per-round ratios. */
static inline double bench_median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

/* A count from the environment (XLAT_BENCH_EVENTS, XLAT_BENCH_REQUESTS,
 * ...): `otherwise` when the variable is unset or not a positive number. */
static inline uint64_t bench_env_count(const char *name, uint64_t otherwise)
{
    const char *env = getenv(name);
    char *end = NULL;
    unsigned long long n = env ? strtoull(env, &end, 10) : 0;
    return env && *env && !*end && n > 0 ? (uint64_t)n : otherwise;
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

/* Runs loop(arg, n) and returns its host seconds. Every measured loop goes
 * through here: `make bench-instr` has callgrind count the instructions
 * inside this function only (--toggle-collect), not the set-up around it. */
double bench_kernel_ops(void (*loop)(void *arg, uint64_t n), void *arg, uint64_t n);

/* The kernels of `bench_xlat --kernel NAME N` (tests/bench/bench_instr.c):
 * each builds its rig, times `n` operations through bench_kernel_ops and
 * returns the seconds, or -1 when it cannot run. */
double bench_timed_kernel(uint64_t pages, uint64_t n);
double bench_fa_kernel(bool scan, uint64_t n);
double bench_reference_kernel(const char *workload, uint64_t n);
int bench_kernel_main(int argc, char **argv);
int bench_kernel_list(void);

/* A sink the compiler cannot remove. */
extern volatile uint64_t bench_sink;

/* Every benchmark group; each lives in its own tests/bench/bench_<name>.c. */
void bench_tlb(void);
void bench_timed(void);
void bench_cuckoo(void);
void bench_cuckoo_ref(void);
void bench_pagetable(void);
void bench_pwc(void);
void bench_walker(void);
void bench_reference(void);
void bench_gmmu(void);
void bench_system(void);
void bench_mcm(void);
void bench_sim(void);
void bench_event(void);
void bench_host(void);

#endif
