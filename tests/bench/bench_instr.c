/*
 * bench_xlat --kernel NAME N: one measured loop of N operations, for
 * `make bench-instr`, which runs each kernel natively (operations per host
 * second) and under callgrind (instructions per operation: only what runs
 * inside bench_kernel_ops is counted). Instruction counts do not drift with
 * the machine's load, so they compare two builds on a busy machine.
 */
#include <string.h>

#include "bench.h"

__attribute__((noinline)) double bench_kernel_ops(void (*loop)(void *arg, uint64_t n), void *arg,
                                                  uint64_t n)
{
    double t0 = bench_seconds();
    loop(arg, n);
    return bench_seconds() - t0;
}

/* The cuckoo filter at the paper's operating point (f = 12, b = 4) with
 * 2^17 slots at 95% load; lookups alternate present and absent keys. */
#define CUCKOO_KEYS 124518u /* 95% of 2^17 */

static void cuckoo_lookups(void *arg, uint64_t n)
{
    const xlat_cuckoo *cf = arg;
    uint64_t found = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t key = (i >> 1) % CUCKOO_KEYS;
        found += xlat_cuckoo_contains(cf, i & 1 ? key | UINT64_C(1) << 63 : key);
    }
    bench_sink += found;
}

static double cuckoo_kernel(uint64_t n)
{
    xlat_ctx *ctx;
    xlat_cuckoo *cf = NULL;
    xlat_cuckoo_config cfg;
    double dt = -1;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return -1;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = CUCKOO_KEYS;
    if (xlat_cuckoo_create(ctx, &cfg, &cf) == XLAT_OK) {
        uint32_t failed = 0;
        for (uint32_t i = 0; i < CUCKOO_KEYS; i++)
            failed += xlat_cuckoo_insert(cf, i) != XLAT_OK;
        if (failed == 0)
            dt = bench_kernel_ops(cuckoo_lookups, cf, n);
    }
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
    return dt;
}

/* Every name run_kernel() knows, for the error below and for
 * `bench_xlat --kernels` (tests/bench/smoke runs each). */
static const char kernel_names[] = "cuckoo-lookup fa-lookup fa-scan l1-hit reference-hot"
                                   " reference-stlb reference-random";

static double run_kernel(const char *name, uint64_t n)
{
    if (strcmp(name, "cuckoo-lookup") == 0)
        return cuckoo_kernel(n);
    if (strcmp(name, "fa-lookup") == 0 || strcmp(name, "fa-scan") == 0)
        return bench_fa_kernel(name[3] == 's', n);
    if (strcmp(name, "l1-hit") == 0)
        return bench_timed_kernel(16, n);
    if (strncmp(name, "reference-", 10) == 0)
        return bench_reference_kernel(name + 10, n);
    return -1;
}

/* argv: --kernel NAME N. Prints "NAME N SECONDS OPS_PER_SECOND". */
int bench_kernel_main(int argc, char **argv)
{
    char *end;
    unsigned long long n = argc == 4 ? strtoull(argv[3], &end, 10) : 0;
    if (n == 0 || *end) {
        fprintf(stderr, "usage: bench_xlat --kernel NAME N (N > 0)\n");
        return 2;
    }
    double dt = run_kernel(argv[2], n);
    if (dt < 0) {
        fprintf(stderr, "bench_xlat: no kernel '%s' (%s), or it failed\n", argv[2], kernel_names);
        return 1;
    }
    printf("%s %llu %.6f %.0f\n", argv[2], n, dt, dt > 0 ? (double)n / dt : 0.0);
    return 0;
}

/* bench_xlat --kernels: the kernels' names, on one line. */
int bench_kernel_list(void)
{
    printf("%s\n", kernel_names);
    return 0;
}
