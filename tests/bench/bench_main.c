/* make bench: prints one table of throughput and memory figures.
 *
 *   bench_xlat                 every group
 *   bench_xlat NAME...         only the named groups (e.g. reference gmmu),
 *                              to compare two builds on the rows in question
 *   bench_xlat --kernel K N    one measured loop (tests/bench/bench_instr.c)
 *   bench_xlat --kernels       the kernels' names
 */
#include <string.h>

#include "bench.h"

volatile uint64_t bench_sink;

typedef struct bench_group {
    const char *name;
    void (*run)(void);
} bench_group;

static const bench_group groups[] = {
    {"tlb", bench_tlb},         {"timed", bench_timed},   {"cuckoo", bench_cuckoo},
    {"pagetable", bench_pagetable}, {"pwc", bench_pwc},   {"walker", bench_walker},
    {"reference", bench_reference}, {"gmmu", bench_gmmu}, {"host", bench_host},
    {"system", bench_system},   {"mcm", bench_mcm},       {"sim", bench_sim},
    {"cuckoo_ref", bench_cuckoo_ref}, {"event", bench_event},
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static const bench_group *find_group(const char *name)
{
    for (size_t i = 0; i < NGROUPS; i++)
        if (strcmp(groups[i].name, name) == 0)
            return &groups[i];
    return NULL;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: bench_xlat [GROUP...]\ngroups:");
    for (size_t i = 0; i < NGROUPS; i++)
        fprintf(to, " %s", groups[i].name);
    fprintf(to, "\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--kernel") == 0)
        return bench_kernel_main(argc, argv);
    if (argc == 2 && strcmp(argv[1], "--kernels") == 0)
        return bench_kernel_list();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (!find_group(argv[i])) {
            fprintf(stderr, "bench_xlat: unknown group '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    printf("libxlat %s benchmarks (single thread; ops/s are host operations per second)\n",
           xlat_version_string());
    if (argc == 1) {
        for (size_t i = 0; i < NGROUPS; i++)
            groups[i].run();
        return 0;
    }
    for (int i = 1; i < argc; i++)
        find_group(argv[i])->run();
    return 0;
}
