/*
 * xlat-sim sweep as a user runs it (build/bin/xlat-sim): a grid of 2
 * presets x 2 knob values x 2 seeds run by every local executor gives one
 * byte-identical CSV, whose rows agree with single xlat-sim runs of the
 * same parameters; bad specs, a failing run and a missing run at the merge
 * exit non-zero with a message naming the run; --executor slurm writes
 * the job array's scripts (tested against a real Slurm by .ci/stage-slurm).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "sweep.h"
#include "testutil.h"

#define SIM XLAT_TEST_SIM

static const char small_spec[] =
    "# 2 presets x 2 values x 2 seeds: 8 runs\n"
    "[sweep]\n"
    "presets = least-baseline least-tlb\n"
    "seeds = 1 2\n"
    "requests = 2000\n"
    "\n"
    "[knobs]\n"
    "l2.entries = 256 512\n"
    "\n"
    "[plot cycles]\n"
    "x = l2.entries\n"
    "y = cycles\n";

static char dir[64];

static bool exists(const char *name)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* xlat-sim `args` in dir: stdout and stderr into out, the exit status back. */
static int sim(const char *args, char *out, size_t len)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cd '%s' && " SIM " %s 2>&1", dir, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Field `col` (from 0) of line `row` (0: the header) of a CSV without quotes. */
static void csv_field(const char *csv, size_t row, size_t col, char *buf, size_t len)
{
    const char *p = csv;
    for (size_t r = 0; r < row; r++)
        p = strchr(p, '\n') + 1;
    for (size_t c = 0; c < col; c++)
        p += strcspn(p, ",\n") + 1;
    snprintf(buf, len, "%.*s", (int)strcspn(p, ",\n"), p);
}

static size_t csv_column(const char *csv, const char *name)
{
    char field[128];
    for (size_t c = 0; c < 200; c++) {
        csv_field(csv, 0, c, field, sizeof(field));
        if (!strcmp(field, name))
            return c;
    }
    ck_abort_msg("sweep.csv has no column %s", name);
    return 0;
}

static const char expected_runs_tsv[] =
    "index\tpreset\tworkload\tseed\tl2.entries\n"
    "0\tleast-baseline\t-\t1\t256\n"
    "1\tleast-baseline\t-\t2\t256\n"
    "2\tleast-baseline\t-\t1\t512\n"
    "3\tleast-baseline\t-\t2\t512\n"
    "4\tleast-tlb\t-\t1\t256\n"
    "5\tleast-tlb\t-\t2\t256\n"
    "6\tleast-tlb\t-\t1\t512\n"
    "7\tleast-tlb\t-\t2\t512\n";

START_TEST(every_executor_gives_the_same_csv)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "small.ini", small_spec);
    ck_assert_int_eq(sim("sweep small.ini --out serial --executor serial", out, sizeof(out)), 0);
    ck_assert_int_eq(sim("sweep small.ini --out pool --executor pool --jobs 2", out, sizeof(out)), 0);
    ck_assert_ptr_nonnull(strstr(out, "8 runs, 2 at a time (pool)"));
    char *serial = scratch_read(dir, "serial/sweep.csv"), *pool = scratch_read(dir, "pool/sweep.csv");
    ck_assert_ptr_nonnull(serial);
    ck_assert_ptr_nonnull(pool);
    ck_assert_str_eq(serial, pool);
    if (sweep_have_gnu_parallel()) {
        ck_assert_int_eq(sim("sweep small.ini --out par --executor parallel --jobs 2", out,
                             sizeof(out)), 0);
        char *par = scratch_read(dir, "par/sweep.csv");
        ck_assert_ptr_nonnull(par);
        ck_assert_str_eq(serial, par);
        free(par);
    }
    ck_assert_int_eq(count_lines(serial), 9);
    ck_assert_int_eq(strncmp(serial, "index,preset,workload,seed,l2.entries,requests,cycles,issued,"
                             "warmup,refusals,wakeups,faults,latency.mean,latency.p50,", 76), 0);
    ck_assert_ptr_null(strstr(serial, "host.seconds"));
    ck_assert_ptr_null(strstr(serial, "requests_per_second"));
    ck_assert_ptr_nonnull(strstr(serial, "host.pages_mapped"));
    char field[64];
    csv_field(serial, 8, 0, field, sizeof(field));
    ck_assert_str_eq(field, "7");
    csv_field(serial, 8, 2, field, sizeof(field));
    ck_assert_str_eq(field, "scatter-gather"); /* least-tlb's own workload */
    char *tsv = scratch_read(dir, "pool/runs.tsv");
    ck_assert_str_eq(tsv, expected_runs_tsv);
    ck_assert(exists("pool/runs/0007.json") && exists("pool/logs/0007.log"));
    ck_assert(exists("pool/cycles.dat") && exists("pool/cycles.gp"));
    free(serial), free(pool), free(tsv);
    scratch_remove(dir);
}
END_TEST

/* Run 7 (least-tlb, l2.entries=512, seed 2) against the same run by hand,
 * and the plot's point against the mean of its two seeds. */
START_TEST(a_row_is_the_single_run_of_its_parameters)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "small.ini", small_spec);
    ck_assert_int_eq(sim("sweep small.ini --out s --executor pool", out, sizeof(out)), 0);
    ck_assert_int_eq(sim("--preset least-tlb --set l2.entries=512 --seed 2 --requests 2000 "
                         "--quiet --json one.json", out, sizeof(out)), 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/one.json", dir);
    json_t *one = json_load_file(path, 0, NULL);
    ck_assert_ptr_nonnull(one);
    json_t *sum = json_object_get(one, "summary");
    char *csv = scratch_read(dir, "s/sweep.csv"), field[64], want[64];
    csv_field(csv, 8, csv_column(csv, "cycles"), field, sizeof(field));
    snprintf(want, sizeof(want), "%" JSON_INTEGER_FORMAT,
             json_integer_value(json_object_get(sum, "cycles")));
    ck_assert_str_eq(field, want);
    csv_field(csv, 8, csv_column(csv, "latency.p99"), field, sizeof(field));
    snprintf(want, sizeof(want), "%" JSON_INTEGER_FORMAT,
             json_integer_value(json_object_get(json_object_get(sum, "latency"), "p99")));
    ck_assert_str_eq(field, want);
    csv_field(csv, 8, csv_column(csv, "l2.hit_rate"), field, sizeof(field));
    snprintf(want, sizeof(want), "%.9g",
             json_real_value(json_object_get(json_object_get(sum, "l2"), "hit_rate")));
    ck_assert_str_eq(field, want);
    /* cycles.dat: least-tlb's column at 512 is the mean of rows 6 and 7 */
    char c6[64], c7[64], mean[64], line[256];
    csv_field(csv, 7, csv_column(csv, "cycles"), c6, sizeof(c6));
    csv_field(csv, 8, csv_column(csv, "cycles"), c7, sizeof(c7));
    snprintf(mean, sizeof(mean), "%.9g", (strtod(c6, NULL) + strtod(c7, NULL)) / 2);
    char *dat = scratch_read(dir, "s/cycles.dat");
    ck_assert_int_eq(count_lines(dat), 3);
    ck_assert_int_eq(strncmp(dat, "l2.entries least-baseline least-tlb\n256 ", 40), 0);
    sscanf(strstr(dat, "\n512 "), "\n512 %*s %255s", line);
    ck_assert_str_eq(line, mean);
    json_decref(one);
    free(csv), free(dat);
    scratch_remove(dir);
}
END_TEST

/* Bad specs: status 2, the message, nothing run (no runs.tsv). */
static const struct {
    const char *spec, *message;
} bad_specs[] = {
    {"[sweep]\npresets = least-tlb\n[knobs]\nl2.bogus = 1 2\n",
     "bad.ini:4: [knobs] [l2] unknown key 'bogus'"},
    {"[sweep]\npresets = least-tlb\n[knobs]\nl2.entries = 256 zz\n",
     "bad.ini:4: [knobs] [l2] entries: 'zz' is not a number"},
    {"[sweep]\npresets = least-tlb\n[knobs]\nl2.entries =\n",
     "empty grid: [knobs] l2.entries lists no value"},
    {"[sweep]\nrequests = 100\n", "empty grid: [sweep] presets lists no preset"},
    {"[sweep]\npresets = least-tlb no-such-preset\n",
     "run 1 (preset=no-such-preset): unknown preset 'no-such-preset'"},
    {"[sweep]\npresets = least-tlb\nworkloads = random no-such-load\n",
     "run 1 (preset=least-tlb workload=no-such-load)"},
    {"[sweep]\npresets = least-tlb\nmode = sometimes\n", "bad.ini:3: [sweep]: [run] mode"},
    {"[sweep]\npresets = least-tlb\ncolour = red\n", "bad.ini:3: [sweep] unknown key 'colour'"},
    {"[sweeps]\npresets = least-tlb\n", "bad.ini:2: unknown section [sweeps]"},
    {"[sweep]\npresets = least-tlb\n[plot p]\nx = l2.entries\ny = cycles\n",
     "[plot p] x = l2.entries is not a knob of [knobs]"},
    {"[sweep]\npresets = least-tlb\n[knobs]\nl2.entries = 256\n[plot p]\nx = l2.entries\n"
     "y = cycles\nseries = colour\n", "[plot p] series = colour is not preset"},
    {"[sweep]\npresets = least-tlb\nthis is no ini line\n", "bad.ini:3: syntax error"},
};

START_TEST(bad_specs_exit_2_before_running)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "bad.ini", bad_specs[_i].spec);
    ck_assert_int_eq(sim("sweep bad.ini --out o", out, sizeof(out)), 2);
    ck_assert_msg(strstr(out, bad_specs[_i].message), "spec %d: expected \"%s\" in:\n%s", _i,
                  bad_specs[_i].message, out);
    ck_assert(!exists("o/runs.tsv"));
    scratch_remove(dir);
}
END_TEST

static const struct {
    const char *args, *message;
} bad_lines[] = {
    {"sweep small.ini", "--out DIR is required"},
    {"sweep --out o", "no SPEC"},
    {"sweep small.ini --out o --executor cloud", "--executor is serial, pool, parallel or slurm"},
    {"sweep small.ini --out o --jobs 0", "--jobs takes a number"},
    {"sweep small.ini --out o --submit", "--submit goes with --executor slurm"},
    {"sweep small.ini --out o --run-index 8", "--run-index 8: the sweep has runs 0..7"},
    {"sweep small.ini --out o --merge --run-index 1", "exclude each other"},
    {"sweep /nonexistent.ini --out o", "/nonexistent.ini: No such file or directory"},
};

START_TEST(bad_command_lines_exit_2)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "small.ini", small_spec);
    ck_assert_int_eq(sim(bad_lines[_i].args, out, sizeof(out)), 2);
    ck_assert_msg(strstr(out, bad_lines[_i].message), "%s: expected \"%s\" in:\n%s",
                  bad_lines[_i].args, bad_lines[_i].message, out);
    scratch_remove(dir);
}
END_TEST

/* l2.ways=3 does not divide least-tlb's 512 L2 entries: the library
 * refuses run 1, the others run, nothing is merged. */
START_TEST(a_failing_run_is_named_and_fails_the_sweep)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "fail.ini", "[sweep]\npresets = least-tlb\nrequests = 500\n[knobs]\n"
                           "l2.ways = 8 3\n");
    ck_assert_int_eq(sim("sweep fail.ini --out o --executor pool --jobs 2", out, sizeof(out)), 1);
    ck_assert_ptr_nonnull(strstr(out, "run 1 (preset=least-tlb l2.ways=3) failed: exit status 2;"));
    ck_assert_ptr_nonnull(strstr(out, "logs/0001.log: xlat-sim: [system]"));
    ck_assert_ptr_nonnull(strstr(out, "1 of 2 runs failed"));
    ck_assert(exists("o/runs/0000.json") && !exists("o/runs/0001.json"));
    ck_assert(!exists("o/sweep.csv"));
    ck_assert_int_eq(sim("sweep fail.ini --out o --run-index 1", out, sizeof(out)), 2);
    scratch_remove(dir);
}
END_TEST

START_TEST(a_missing_run_fails_the_merge)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "small.ini", small_spec);
    ck_assert_int_eq(sim("sweep small.ini --out o --executor pool", out, sizeof(out)), 0);
    ck_assert(exists("o/sweep.csv"));
    char path[128];
    snprintf(path, sizeof(path), "%s/o/runs/0003.json", dir);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(sim("sweep small.ini --out o --merge", out, sizeof(out)), 1);
    ck_assert_ptr_nonnull(strstr(out, "run 3 (preset=least-baseline seed=2 l2.entries=512) is "
                                      "missing"));
    ck_assert_ptr_nonnull(strstr(out, "1 of 8 runs missing"));
    ck_assert(!exists("o/sweep.csv"));
    /* the run again, alone, and the merge is whole */
    ck_assert_int_eq(sim("sweep small.ini --out o --run-index 3", out, sizeof(out)), 0);
    ck_assert_int_eq(sim("sweep small.ini --out o --merge", out, sizeof(out)), 0);
    ck_assert(exists("o/sweep.csv"));
    scratch_remove(dir);
}
END_TEST

/* A plot's y is checked against the merged columns: the CSV is written,
 * the plot is refused. */
START_TEST(a_plot_of_no_metric_fails_the_merge)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "py.ini", "[sweep]\npresets = least-tlb\nrequests = 500\n[knobs]\n"
                         "l2.entries = 256 512\n[plot p]\nx = l2.entries\ny = cycels\n");
    ck_assert_int_eq(sim("sweep py.ini --out o --executor serial", out, sizeof(out)), 1);
    ck_assert_ptr_nonnull(strstr(out, "[plot p] y = cycels is not a metric of sweep.csv"));
    ck_assert(exists("o/sweep.csv") && !exists("o/p.dat"));
    scratch_remove(dir);
}
END_TEST

START_TEST(slurm_executor_writes_the_array_and_the_merge)
{
    static char out[8192];
    scratch_make(dir, sizeof(dir), "xlat-sweep");
    scratch_write(dir, "small.ini", small_spec);
    ck_assert_int_eq(sim("sweep small.ini --out o --executor slurm", out, sizeof(out)), 0);
    ck_assert_ptr_nonnull(strstr(out, "8 runs; submit them with:"));
    ck_assert_ptr_nonnull(strstr(out, "sbatch --dependency=afterok:"));
    char *array = scratch_read(dir, "o/sweep.sbatch"), *merge = scratch_read(dir, "o/merge.sbatch"), want[512];
    ck_assert_ptr_nonnull(strstr(array, "\n#SBATCH --array=0-7\n"));
    snprintf(want, sizeof(want), "exec '%s' sweep '%s/small.ini' --out '%s/o' --run-index "
             "\"$SLURM_ARRAY_TASK_ID\"\n", SIM, dir, dir);
    ck_assert_ptr_nonnull(strstr(array, want));
    snprintf(want, sizeof(want), "exec '%s' sweep '%s/small.ini' --out '%s/o' --merge\n", SIM,
             dir, dir);
    ck_assert_ptr_nonnull(strstr(merge, want));
    ck_assert(!exists("o/runs/0000.json")); /* nothing ran */
    free(array), free(merge);
    scratch_remove(dir);
}
END_TEST

Suite *sim_sweep_suite(void)
{
    Suite *s = suite_create("sim_sweep");
    TCase *tc = test_case(s, "sweep");
    tcase_add_test(tc, every_executor_gives_the_same_csv);
    tcase_add_test(tc, a_row_is_the_single_run_of_its_parameters);
    tcase_add_loop_test(tc, bad_specs_exit_2_before_running, 0,
                        (int)(sizeof(bad_specs) / sizeof(bad_specs[0])));
    tcase_add_loop_test(tc, bad_command_lines_exit_2, 0,
                        (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
    tcase_add_test(tc, a_failing_run_is_named_and_fails_the_sweep);
    tcase_add_test(tc, a_missing_run_fails_the_merge);
    tcase_add_test(tc, a_plot_of_no_metric_fails_the_merge);
    tcase_add_test(tc, slurm_executor_writes_the_array_and_the_merge);
    return s;
}
