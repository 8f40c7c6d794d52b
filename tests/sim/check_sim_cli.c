/*
 * xlat-sim as a user runs it (the built program, build/bin/xlat-sim): the
 * options of --help and of the man page agree, bad command lines exit 2
 * with a message, the JSON's keys are the documented golden list, CSV and
 * compare write what they say.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "testutil.h"

#define SIM XLAT_TEST_SIM

/* Runs `cmd` through the shell; its stdout into out (NUL-terminated),
 * returning the exit status. */
static int run_cmd(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run %s", cmd);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Adds the long options named in `text` (each "--name" starting a token
 * after `lead`) to the space-separated list `set`. */
static void collect(const char *text, char *set, size_t len)
{
    for (const char *p = text; (p = strstr(p, "--")) != NULL;) {
        p += 2;
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz-");
        char name[64];
        snprintf(name, sizeof(name), " %.*s ", (int)n, p);
        if (n && !strstr(set, name))
            snprintf(set + strlen(set), len - strlen(set), "%s", name + 1);
        p += n;
    }
}

/* The options the man page's OPTIONS section lists (".B \-\-x" or ".BI \-\-x"
 * after each .TP), with roff's \- turned into -. */
static void man_options(char *set, size_t len)
{
    FILE *f = fopen(XLAT_TEST_SRCDIR "/doc/xlat-sim.1", "r");
    ck_assert_msg(f != NULL, "no doc/xlat-sim.1");
    char line[512], plain[512];
    bool in_options = false, after_tp = false;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, ".SH", 3) == 0)
            in_options = strstr(line, "OPTIONS") != NULL;
        if (in_options && after_tp) {
            size_t k = 0;
            for (const char *p = line; *p && k < sizeof(plain) - 1; p++)
                if (!(p[0] == '\\' && p[1] == '-'))
                    plain[k++] = *p;
            plain[k] = '\0';
            char *sp = strchr(plain, ' ');
            if (sp)
                collect(sp, set, len);
        }
        after_tp = strncmp(line, ".TP", 3) == 0;
    }
    fclose(f);
}

START_TEST(help_and_man_page_list_the_same_options)
{
    static char out[16384];
    ck_assert_int_eq(run_cmd(SIM " --help", out, sizeof(out)), 0);
    const char *opts = strstr(out, "options:");
    ck_assert_ptr_nonnull(opts);
    char from_help[2048] = " ", from_man[2048] = " ";
    /* only the option lines: "  --name ..." */
    for (const char *p = opts; (p = strstr(p, "\n  --")) != NULL; p++) {
        char name[64];
        sscanf(p + 5, "%63[a-z-]", name);
        char tok[80];
        snprintf(tok, sizeof(tok), "--%s", name);
        collect(tok, from_help, sizeof(from_help));
    }
    man_options(from_man, sizeof(from_man));
    ck_assert_msg(strcmp(from_help, from_man) == 0, "--help lists [%s], the man page [%s]",
                  from_help, from_man);
    ck_assert_ptr_nonnull(strstr(from_help, " log-requests "));
}
END_TEST

START_TEST(version_names_both)
{
    char out[256];
    ck_assert_int_eq(run_cmd(SIM " --version", out, sizeof(out)), 0);
    char want[128];
    snprintf(want, sizeof(want), "xlat-sim %s (libxlat %s)\n", XLAT_VERSION_STRING,
             xlat_version_string());
    ck_assert_str_eq(out, want);
}
END_TEST

/* Bad command lines: status 2 and the message on stderr, nothing run. */
static const struct {
    const char *args, *message;
} bad_lines[] = {
    {"--bogus", "unknown option or missing value: --bogus"},
    {"--preset", "unknown option or missing value: --preset"},
    {"compare --preset least-tlb", "compare needs at least two --preset"},
    {"--preset least-tlb --preset least-baseline", "one --preset per run"},
    {"--trace x --workload random", "--trace and --workload exclude each other"},
    {"--preset no-such-preset", "no-such-preset"},
    {"--set l1.entries", "--set"},
    {"--set l1.entries=zz", "--set"},
    {"--requests -5", "requests"},
    {"--mode sometimes", "mode"},
    {"--workload no-such-workload", "no-such-workload"},
    {"--trace /nonexistent/trace.txt", "/nonexistent/trace.txt"},
    {"--preset least-tlb --set l2.ways=3 --requests 10", "[system]"},
    {"stray-argument", "unexpected argument: stray-argument"},
};

START_TEST(bad_command_lines_exit_2)
{
    char cmd[512], out[8192];
    snprintf(cmd, sizeof(cmd), SIM " %s 2>&1", bad_lines[_i].args);
    int status = run_cmd(cmd, out, sizeof(out));
    ck_assert_msg(status == 2, "%s: status %d: %s", bad_lines[_i].args, status, out);
    ck_assert_msg(strstr(out, bad_lines[_i].message) != NULL, "%s: no '%s' in: %s",
                  bad_lines[_i].args, bad_lines[_i].message, out);
}
END_TEST

static json_t *load_json(const char *path)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    ck_assert_msg(root != NULL, "%s: %s (line %d)", path, e.text, e.line);
    return root;
}

/* The keys of `obj`, in order, space-separated. */
static void keys_of(json_t *obj, char *buf, size_t len)
{
    const char *k;
    json_t *v;
    buf[0] = '\0';
    json_object_foreach(obj, k, v)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", k);
}

START_TEST(json_keys_are_the_golden_list)
{
    char dir[64], cmd[512], out[8192], keys[1024];
    scratch_make(dir, sizeof(dir), "xlat-sim-json");
    snprintf(cmd, sizeof(cmd),
             SIM " --preset least-tlb --requests 3000 --warmup 1000 --quiet --json %s/run.json", dir);
    ck_assert_int_eq(run_cmd(cmd, out, sizeof(out)), 0);
    snprintf(cmd, sizeof(cmd), "%s/run.json", dir);
    json_t *root = load_json(cmd);
    keys_of(root, keys, sizeof(keys));
    ck_assert_str_eq(keys, "xlat_sim run summary config units");
    json_t *s = json_object_get(root, "summary");
    keys_of(s, keys, sizeof(keys));
    ck_assert_str_eq(keys, "requests cycles issued warmup refusals wakeups faults latency l1 l2 "
                           "iommu_tlb remote walks gmmu mcm outcomes tenants host");
    keys_of(json_object_get(s, "latency"), keys, sizeof(keys));
    ck_assert_str_eq(keys, "mean p50 p90 p99 max");
    keys_of(json_object_get(s, "l1"), keys, sizeof(keys));
    ck_assert_str_eq(keys, "accesses hits hit_rate");
    keys_of(json_object_get(s, "walks"), keys, sizeof(keys));
    ck_assert_str_eq(keys, "iommu gmmu page_table_reads coalesced pec_answers stolen");
    keys_of(json_object_get(root, "run"), keys, sizeof(keys));
    ck_assert_str_eq(keys, "preset source mode seed gpus cus");
    /* the warm-up's requests are not counted; every other one is */
    ck_assert_int_eq(json_integer_value(json_object_get(s, "requests")), 2000);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "warmup")), 1000);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "issued")), 3000);
    json_t *outcomes = json_object_get(s, "outcomes");
    const char *k;
    json_t *v;
    json_int_t sum = 0;
    json_object_foreach(outcomes, k, v)
        sum += json_integer_value(v);
    ck_assert_int_eq(sum, 2000);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(root, "config"),
                                                                       "iommu"), "inclusion")), "least");
    ck_assert_ptr_nonnull(json_object_get(json_object_get(root, "units"), "gpu0.cu0.l1"));
    json_decref(root);
    scratch_remove(dir);
}
END_TEST

/* Presets of two papers, each with its own default workload: compare runs
 * the first one's through both. */
START_TEST(compare_runs_the_first_presets_workload)
{
    static char out[16384];
    ck_assert_int_eq(run_cmd(SIM " compare --preset walk-fcfs --preset least-tlb --requests 500",
                             out, sizeof(out)), 0);
    ck_assert_ptr_nonnull(strstr(out, "xlat-sim compare: tenants:"));
}
END_TEST

START_TEST(compare_prints_one_table_and_csv_rows)
{
    char dir[64], cmd[512], path[256];
    static char out[16384];
    scratch_make(dir, sizeof(dir), "xlat-sim-csv");
    snprintf(path, sizeof(path), "%s/runs.csv", dir);
    snprintf(cmd, sizeof(cmd),
             SIM " compare --preset least-baseline --preset least-tlb --requests 2000 --csv %s", path);
    ck_assert_int_eq(run_cmd(cmd, out, sizeof(out)), 0);
    ck_assert_ptr_nonnull(strstr(out, "least-baseline"));
    ck_assert_ptr_nonnull(strstr(out, "speed-up"));
    ck_assert_ptr_nonnull(strstr(out, "IOMMU walks"));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int rows = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
    ck_assert_int_eq(strncmp(line, "preset,source,mode,seed", 23), 0);
    while (fgets(line, sizeof(line), f))
        rows++;
    fclose(f);
    ck_assert_int_eq(rows, 2);
    scratch_remove(dir);
}
END_TEST

Suite *sim_cli_suite(void)
{
    Suite *s = suite_create("sim_cli");
    TCase *tc = test_case(s, "cli");
    tcase_add_test(tc, help_and_man_page_list_the_same_options);
    tcase_add_test(tc, version_names_both);
    tcase_add_loop_test(tc, bad_command_lines_exit_2, 0,
                        (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
    tcase_add_test(tc, json_keys_are_the_golden_list);
    tcase_add_test(tc, compare_prints_one_table_and_csv_rows);
    tcase_add_test(tc, compare_runs_the_first_presets_workload);
    return s;
}
