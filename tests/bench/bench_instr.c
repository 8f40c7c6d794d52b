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

/* The kernels under their names: the one list that `bench_xlat --kernel`
 * runs from and `bench_xlat --kernels` prints (tests/bench/smoke runs
 * each name it prints). */
static double fa_lookup_kernel(uint64_t n) { return bench_fa_kernel(0, n); }
static double fa_scan_kernel(uint64_t n) { return bench_fa_kernel(1, n); }
static double l1_hit_kernel(uint64_t n) { return bench_timed_kernel(16, n); }
static double hot_kernel(uint64_t n) { return bench_reference_kernel("hot", n); }
static double stlb_kernel(uint64_t n) { return bench_reference_kernel("stlb", n); }
static double random_kernel(uint64_t n) { return bench_reference_kernel("random", n); }

static const struct {
    const char *name;
    double (*run)(uint64_t n); /* seconds, or -1 when it failed */
} kernels[] = {
    {"cuckoo-lookup", cuckoo_kernel},
    {"fa-lookup", fa_lookup_kernel},
    {"fa-scan", fa_scan_kernel},
    {"l1-hit", l1_hit_kernel},
    {"reference-hot", hot_kernel},
    {"reference-stlb", stlb_kernel},
    {"reference-random", random_kernel},
};

#define KERNELS (sizeof(kernels) / sizeof(kernels[0]))

static double run_kernel(const char *name, uint64_t n)
{
    for (size_t i = 0; i < KERNELS; i++)
        if (strcmp(name, kernels[i].name) == 0)
            return kernels[i].run(n);
    return -1;
}

/* The names, space-separated, on `out`. */
static void print_kernel_names(FILE *out)
{
    for (size_t i = 0; i < KERNELS; i++)
        fprintf(out, "%s%s", i ? " " : "", kernels[i].name);
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
        fprintf(stderr, "bench_xlat: no kernel '%s' (", argv[2]);
        print_kernel_names(stderr);
        fprintf(stderr, "), or it failed\n");
        return 1;
    }
    printf("%s %llu %.6f %.0f\n", argv[2], n, dt, dt > 0 ? (double)n / dt : 0.0);
    return 0;
}

/* bench_xlat --kernels: the kernels' names, on one line. */
int bench_kernel_list(void)
{
    print_kernel_names(stdout);
    putchar('\n');
    return 0;
}
