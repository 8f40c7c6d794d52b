/*
 * `xlat-sim sweep SPEC --out DIR [--jobs N] [--executor E] [--submit]`,
 * `... --run-index I` (one run: what every executor starts) and
 * `... --merge`. Exit status: 0 done, 1 a run failed or is missing, 2 a
 * bad command line or spec (reported before anything runs).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

typedef struct sweep_args {
    const char *spec, *out;
    sweep_executor executor;
    long jobs;                  /* 0: the online cores */
    long run_index;             /* -1: not a single run */
    bool merge, submit;
} sweep_args;

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "xlat-sim sweep: %s%s\nusage: xlat-sim sweep SPEC --out DIR [--jobs N] "
            "[--executor serial|pool|parallel|slurm] [--submit]\n"
            "       xlat-sim sweep SPEC --out DIR --run-index I | --merge\n", what, arg);
    return 2;
}

static int parse_count(const char *text, long min, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < min)
        return -1;
    *out = v;
    return 0;
}

static int parse_executor(const char *text, sweep_executor *out)
{
    static const char *const names[] = {"serial", "pool", "parallel", "slurm"};
    static const sweep_executor values[] = {SWEEP_SERIAL, SWEEP_POOL, SWEEP_PARALLEL, SWEEP_SLURM};
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(text, names[i]))
            return *out = values[i], 0;
    return -1;
}

static int parse_args(int argc, char **argv, sweep_args *a)
{
    static const struct option options[] = {
        {"out", required_argument, NULL, 'o'}, {"jobs", required_argument, NULL, 'j'},
        {"executor", required_argument, NULL, 'e'}, {"submit", no_argument, NULL, 's'},
        {"run-index", required_argument, NULL, 'i'}, {"merge", no_argument, NULL, 'm'},
        {NULL, 0, NULL, 0}};
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == 'o') a->out = optarg;
        else if (opt == 's') a->submit = true;
        else if (opt == 'm') a->merge = true;
        else if (opt == 'j' && parse_count(optarg, 1, &a->jobs) != 0)
            return bad("--jobs takes a number of processes (1 or more): ", optarg);
        else if (opt == 'i' && parse_count(optarg, 0, &a->run_index) != 0)
            return bad("--run-index takes a run's index (0 or more): ", optarg);
        else if (opt == 'e' && parse_executor(optarg, &a->executor) != 0)
            return bad("--executor is serial, pool, parallel or slurm, not ", optarg);
        else if (opt == '?' || opt == ':')
            return bad("unknown option or missing value: ", argv[optind - 1]);
    }
    if (optind + 1 != argc)
        return bad(optind == argc ? "no SPEC" : "more than one SPEC: ", optind == argc ? "" : argv[optind + 1]);
    a->spec = argv[optind];
    if (!a->out)
        return bad("--out DIR is required", "");
    if (a->merge && a->run_index >= 0)
        return bad("--merge and --run-index exclude each other", "");
    if (a->submit && a->executor != SWEEP_SLURM)
        return bad("--submit goes with --executor slurm", "");
    return 0;
}

/* The executor a sweep uses when none is given: GNU parallel when it is
 * installed, else the built-in pool. */
static sweep_executor choose(sweep_executor e)
{
    if (e != SWEEP_AUTO)
        return e;
    return sweep_have_gnu_parallel() ? SWEEP_PARALLEL : SWEEP_POOL;
}

static int run_sweep(const sweep_args *a, const sweep_spec *spec, sweep_exec *x)
{
    sweep_executor e = choose(a->executor);
    if (e == SWEEP_PARALLEL && !sweep_have_gnu_parallel()) {
        fprintf(stderr, "xlat-sim sweep: --executor parallel: GNU parallel is not installed "
                        "(apt-get install -y parallel)\n");
        return 2;
    }
    if (e == SWEEP_SLURM)
        return sweep_slurm(x, a->submit);
    if (e == SWEEP_SERIAL)
        x->jobs = 1;
    static const char *const names[] = {"auto", "serial", "pool", "parallel", "slurm"};
    fprintf(stderr, "xlat-sim sweep: %zu runs, %u at a time (%s), into %s\n", spec->nruns,
            x->jobs, names[e], x->dir);
    int status = e == SWEEP_PARALLEL ? sweep_exec_parallel(x) : sweep_exec_pool(x);
    if (status != 0) {
        fprintf(stderr, "xlat-sim sweep: not merged: run the failed ones again (xlat-sim sweep "
                        "%s --out %s --run-index I), then --merge\n", spec->path, x->dir);
        return status;
    }
    return sweep_merge(spec, x->dir);
}

static int sweep_with(const sweep_args *a, const sweep_spec *spec)
{
    char dir[PATH_MAX], self[PATH_MAX];
    sim_error err = {{0}};
    if (a->run_index >= 0 && (size_t)a->run_index >= spec->nruns) {
        fprintf(stderr, "xlat-sim sweep: --run-index %ld: the sweep has runs 0..%zu\n",
                a->run_index, spec->nruns - 1);
        return 2;
    }
    bool prepare = a->run_index < 0 && !a->merge;
    if (prepare && sweep_prepare_dir(spec, a->out, &err) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s\n", err.msg);
        return 2;
    }
    if (!realpath(a->out, dir)) {
        fprintf(stderr, "xlat-sim sweep: %s: %s\n", a->out, strerror(errno));
        return 2;
    }
    if (a->run_index >= 0)
        return sweep_run_one(spec, dir, (size_t)a->run_index);
    if (a->merge)
        return sweep_merge(spec, dir);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        fprintf(stderr, "xlat-sim sweep: cannot find this program (/proc/self/exe)\n");
        return 2;
    }
    self[n] = '\0';
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    sweep_exec x = {.spec = spec, .dir = dir, .self = self,
                    .jobs = (unsigned)(a->jobs ? a->jobs : cores > 0 ? cores : 1)};
    return run_sweep(a, spec, &x);
}

int sweep_main(int argc, char **argv)
{
    sweep_args a = {.run_index = -1};
    int status = parse_args(argc, argv, &a);
    if (status != 0)
        return status;
    sweep_spec spec;
    sim_error err = {{0}};
    if (sweep_spec_load(&spec, a.spec, &err) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s\n", err.msg);
        sweep_spec_free(&spec);
        return 2;
    }
    status = sweep_with(&a, &spec);
    sweep_spec_free(&spec);
    return status;
}
