/* xlat-sim's configuration: the knob registry, INI files, --set, and the
 * papers' presets. Messages are checked exactly: they are what a user reads
 * when a file is wrong. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim.h"
#include "scratch.h"
#include "sim_config_tests.h"
#include "testutil.h"

#ifndef XLAT_TEST_SRCDIR
#define XLAT_TEST_SRCDIR "."
#endif

#define SECTIONS "system, l1, l2, iommu, iommu_walk, pwc, dwspp, gmmu, gmmu_walk, fbarre, " \
                 "memory, barre, run"
#define L1_KEYS "entries, ways, repl, latency, mshrs, ports, index, hits_in_flight, " \
                "mshr_targets, clock_num, clock_den"
#define BOOLS "must be one of true, false, yes, no, on, off, 1, 0"

/* 240 characters: beyond libinih's line of 200. */
#define LONG_PATH "/a/path/that/is/long/enough/to/overflow/the/line/buffer/of/libinih/" \
    "0123456789012345678901234567890123456789012345678901234567890123456789" \
    "0123456789012345678901234567890123456789012345678901234567890123456789" \
    "01234567890123456789012345678901234"

static char dir[64];

static void make_dir(void) { scratch_make(dir, sizeof(dir), "xlat-sim-config"); }

static void remove_dir(void) { scratch_remove(dir); }

static void get(const sim_config *c, const char *s, const char *k, const char *want)
{
    char buf[1100];
    ck_assert_int_eq(sim_config_get(c, s, k, buf, sizeof(buf)), 0);
    ck_assert_msg(!strcmp(buf, want), "[%s] %s is '%s', not '%s'", s, k, buf, want);
}

/* ---- bad INI files and --set arguments ---------------------------------- */

static const struct bad_ini {
    const char *text;
    const char *msg; /* after "PATH:" */
} bad_ini[] = {
    {"[foo]\nx = 1\n", "1: unknown section [foo] (sections: " SECTIONS ")"},
    {"[system]\ngpus = 2\n\n[bogus]\n", "4: unknown section [bogus] (sections: " SECTIONS ")"},
    {"[l1]\nentires = 4\n", "2: [l1] unknown key 'entires' (keys: " L1_KEYS ")"},
    {"; a comment\n[system]\ngpus = four\n", "3: [system] gpus: 'four' is not a number"},
    {"[system]\ngpus = 4x\n", "2: [system] gpus: '4x' is not a number"},
    {"[system]\ngpus = 0\n", "2: [system] gpus: '0' is out of range (1..64)"},
    {"[system]\ngpus = 65\n", "2: [system] gpus: '65' is out of range (1..64)"},
    {"[system]\ncus = -1\n", "2: [system] cus: '-1' is out of range (1..1024)"},
    {"[l2]\nrepl = mru\n", "2: [l2] repl: 'mru' must be one of lru, fifo, random, plru"},
    {"[system]\nprobe_ring = maybe\n", "2: [system] probe_ring: 'maybe' " BOOLS},
    {"[gmmu]\nt1 = 1.5\n", "2: [gmmu] t1: '1.5' is out of range (0..1)"},
    {"[gmmu]\nt2 = low\n", "2: [gmmu] t2: 'low' is not a number"},
    {"[system]\ngpus\n", "2: syntax error (expected [section] or key = value)"},
    {"[system\ngpus = 2\n", "1: syntax error (expected [section] or key = value)"},
    {"gpus = 2\n", "1: 'gpus' is outside any [section]"},
    {"[run]\ntrace = " LONG_PATH "\n", "2: line longer than 198 characters (use --set for longer values)"},
    {"[system]\ngpus = 2\ngpus = 99\ncus = 0\n", "3: [system] gpus: '99' is out of range (1..64)"},
};

START_TEST(ini_errors)
{
    const struct bad_ini *b = &bad_ini[_i];
    char name[32], want[SIM_ERR_LEN];
    snprintf(name, sizeof(name), "bad%d.ini", _i);
    const char *path = scratch_write(dir, name, b->text);
    snprintf(want, sizeof(want), "%s:%s", path, b->msg);
    sim_config c;
    sim_error err = {{0}};
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_load_ini(&c, path, &err), -1);
    ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(ini_missing_file)
{
    char path[128], want[SIM_ERR_LEN];
    snprintf(path, sizeof(path), "%s/none.ini", dir);
    snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
    sim_config c;
    sim_error err = {{0}};
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_load_ini(&c, path, &err), -1);
    ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(ini_good)
{
    const char *path = scratch_write(dir, "good.ini",
                                  "# the least-TLB system, two GPUs\n"
                                  "[system]\ngpus = 2   ; inline comment\ncus=0x10\n"
                                  "[l1]\nrepl = PLRU\n[gmmu]\nenable = yes\nt1 = 0.9\n"
                                  "[pwc]\nentries.2 = 32\n[dwspp]\ndiff_thres.4 = 1\n"
                                  "[run]\nworkload = adjacent:footprint=4096,sharing=2\n"
                                  "[fbarre]\n");
    sim_config c;
    sim_error err = {{0}};
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_load_ini(&c, path, &err), 0);
    ck_assert_uint_eq(c.system.gpus, 2);
    ck_assert_uint_eq(c.system.cus, 16);
    ck_assert_int_eq(c.l1.repl, XLAT_REPL_PLRU);
    ck_assert(c.gmmu && c.system.gmmu);
    ck_assert_double_eq(c.gmmu_cfg.t1, 0.9);
    ck_assert_uint_eq(c.pwc.entries[2], 32);
    ck_assert_double_eq(c.dwspp.diff_thres[4], 1.0);
    ck_assert_str_eq(c.run.workload, "adjacent:footprint=4096,sharing=2");
    get(&c, "l1", "repl", "plru");
    get(&c, "gmmu", "enable", "true");
}
END_TEST

static const struct bad_set {
    const char *arg, *msg;
} bad_set[] = {
    {"l1.entries=x", "--set: [l1] entries: 'x' is not a number"},
    {"system.gpus=65", "--set: [system] gpus: '65' is out of range (1..64)"},
    {"system.gpus=0", "--set: [system] gpus: '0' is out of range (1..64)"},
    {"iommu_walk.sched=lifo", "--set: [iommu_walk] sched: 'lifo' must be one of fcfs, partition, dws, dwspp"},
    {"barre.enable=2", "--set: [barre] enable: '2' " BOOLS},
    {"foo.bar=1", "--set: unknown section [foo] (sections: " SECTIONS ")"},
    {"l1.entires=4", "--set: [l1] unknown key 'entires' (keys: " L1_KEYS ")"},
    {"l1entries=4", "--set: 'l1entries=4' is not section.key=value"},
    {"l1.entries", "--set: 'l1.entries' is not section.key=value"},
    {".entries=4", "--set: '.entries=4' is not section.key=value"},
    {"run.seed=18446744073709551616",
     "--set: [run] seed: '18446744073709551616' is out of range (0..18446744073709551615)"},
};

START_TEST(set_errors)
{
    sim_config c;
    sim_error err = {{0}};
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_set_arg(&c, bad_set[_i].arg, &err), -1);
    ck_assert_str_eq(err.msg, bad_set[_i].msg);
}
END_TEST

START_TEST(set_good)
{
    sim_config c;
    sim_error err = {{0}};
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_set_arg(&c, "iommu.inclusion=least", &err), 0);
    ck_assert_int_eq(c.iommu.inclusion, XLAT_INCL_LEAST);
    ck_assert_int_eq(sim_config_set_arg(&c, "pwc.enable=on", &err), 0);
    ck_assert(c.iommu_pwc);
    ck_assert_int_eq(sim_config_set_arg(&c, "run.workload=gups:footprint=1=2", &err), 0);
    ck_assert_str_eq(c.run.workload, "gups:footprint=1=2");
    ck_assert_int_eq(sim_config_set_arg(&c, "gmmu.enable=1", &err), 0);
    ck_assert(c.gmmu && c.system.gmmu);
    ck_assert_int_eq(sim_config_set_arg(&c, "gmmu.enable=off", &err), 0);
    ck_assert(!c.gmmu && !c.system.gmmu);
    ck_assert_int_eq(sim_config_set(&c, "run", "mode", "functional", "x.ini:3", &err), 0);
    ck_assert_int_eq(c.run.mode, SIM_MODE_FUNCTIONAL);
}
END_TEST

/* ---- every knob: round trip, ends of its range ---------------------------- */

/* A range "LO..HI" as numbers; 0 for the other kinds. */
static int range_of(const char *range, char *lo, char *hi, size_t len)
{
    const char *dots = strstr(range, "..");
    if (!dots || strchr(range, ',') || !strchr("0123456789", range[0]))
        return 0;
    snprintf(lo, len, "%.*s", (int)(dots - range), range);
    snprintf(hi, len, "%s", dots + 2);
    return 1;
}

static void set_ok(sim_config *c, const sim_knob_info *k, const char *v, const char *want)
{
    sim_error err = {{0}};
    ck_assert_msg(sim_config_set(c, k->section, k->key, v, "t", &err) == 0, "%s", err.msg);
    get(c, k->section, k->key, want);
}

static void set_refused(sim_config *c, const sim_knob_info *k, const char *v)
{
    sim_error err = {{0}};
    char want[SIM_ERR_LEN];
    snprintf(want, sizeof(want), "t: [%s] %s: '%s' is out of range (%s)", k->section, k->key, v,
             k->range);
    ck_assert_int_eq(sim_config_set(c, k->section, k->key, v, "t", &err), -1);
    ck_assert_str_eq(err.msg, want);
}

/* One past an integer bound, as text ("" when there is none). */
static void step(const char *v, int up, char *out, size_t len)
{
    uint64_t n = strtoull(v, NULL, 10);
    if (up && n == UINT64_MAX)
        snprintf(out, len, "18446744073709551616");
    else if (!up && n == 0)
        snprintf(out, len, "-1");
    else
        snprintf(out, len, "%" PRIu64, up ? n + 1 : n - 1);
}

static void check_numeric(sim_config *c, const sim_knob_info *k)
{
    char lo[32], hi[32], out[32];
    if (!range_of(k->range, lo, hi, sizeof(lo)))
        return;
    set_ok(c, k, lo, lo);
    set_ok(c, k, hi, hi);
    if (strchr(lo, '.') || strchr(hi, '.') || strchr(hi, 'e'))
        return;
    step(hi, 1, out, sizeof(out));
    set_refused(c, k, out);
    step(lo, 0, out, sizeof(out));
    set_refused(c, k, out);
}

static void check_names(sim_config *c, const sim_knob_info *k)
{
    char names[256];
    if (!strchr(k->range, ','))
        return;
    snprintf(names, sizeof(names), "%s", k->range);
    for (char *save, *n = strtok_r(names, ", ", &save); n; n = strtok_r(NULL, ", ", &save))
        set_ok(c, k, n, n);
}

START_TEST(every_knob_round_trips)
{
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    ck_assert_uint_gt(n, 150);
    for (size_t i = 0; i < n; i++) {
        sim_config c;
        char buf[1100];
        sim_config_defaults(&c);
        ck_assert_ptr_nonnull(k[i].range);
        ck_assert_ptr_nonnull(k[i].help);
        /* the default reads back and sets to itself */
        ck_assert_int_eq(sim_config_get(&c, k[i].section, k[i].key, buf, sizeof(buf)), 0);
        set_ok(&c, &k[i], buf, buf);
        check_numeric(&c, &k[i]);
        check_names(&c, &k[i]);
        if (!strncmp(k[i].range, "text", 4))
            set_ok(&c, &k[i], "stride:footprint=64", "stride:footprint=64");
        for (size_t j = 0; j < i; j++)
            ck_assert(strcmp(k[i].section, k[j].section) || strcmp(k[i].key, k[j].key));
    }
    char buf[8];
    sim_config c;
    sim_config_defaults(&c);
    ck_assert_int_eq(sim_config_get(&c, "l1", "nope", buf, sizeof(buf)), -1);
    ck_assert_int_eq(sim_config_get(&c, "run", "workload", buf, 3), -1); /* "random" */
}
END_TEST

START_TEST(bools_and_doubles)
{
    static const char *yes[] = {"true", "TRUE", "yes", "on", "1"}, *no[] = {"false", "no", "Off", "0"};
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    const sim_knob_info *ring = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(k[i].section, "system") && !strcmp(k[i].key, "probe_ring"))
            ring = &k[i];
    ck_assert_ptr_nonnull(ring);
    ck_assert_str_eq(ring->range, "true, false");
    sim_config c;
    sim_config_defaults(&c);
    for (size_t i = 0; i < 5; i++)
        set_ok(&c, ring, yes[i], "true");
    for (size_t i = 0; i < 4; i++)
        set_ok(&c, ring, no[i], "false");
    sim_error err = {{0}};
    ck_assert_int_eq(sim_config_set(&c, "gmmu", "t2", "0.15", "t", &err), 0);
    get(&c, "gmmu", "t2", "0.15");
    ck_assert_int_eq(sim_config_set(&c, "dwspp", "ratio.1", "2.125", "t", &err), 0);
    get(&c, "dwspp", "ratio.1", "2.125");
    ck_assert_double_eq(c.dwspp.ratio[1], 2.125);
}
END_TEST

START_TEST(defaults)
{
    sim_config c;
    sim_config_defaults(&c);
    ck_assert_str_eq(c.preset, "");
    ck_assert_uint_eq(c.system.gpus, 4);
    ck_assert_uint_eq(c.system.cus, 64);
    ck_assert_uint_eq(c.l1.entries, 16);
    ck_assert_uint_eq(c.l2.entries, 512);
    ck_assert_uint_eq(c.iommu.tlb_entries, 4096);
    ck_assert_uint_eq(c.iommu_walk.walkers, 8);
    ck_assert(!c.gmmu && !c.system.gmmu && !c.iommu_pwc);
    ck_assert_ptr_null(c.system.l1);
    ck_assert_ptr_null(c.system.iommu);
    ck_assert_ptr_null(c.iommu.walk);
    ck_assert_uint_eq(c.mem.levels, 4);
    ck_assert_uint_eq(c.mem.page_shift, 12);
    ck_assert_uint_eq(c.mem.frames_per_gpu, 1u << 20);
    ck_assert_uint_eq(c.mem.map_chunk_pages, 512);
    ck_assert(!c.barre.enable && !c.barre.fbarre);
    ck_assert_uint_eq(c.barre.pec_entries, 5);
    ck_assert_uint_eq(c.barre.max_merge, 1);
    ck_assert_int_eq(c.run.mode, SIM_MODE_TIMED);
    ck_assert_uint_eq(c.run.seed, 1);
    ck_assert_uint_eq(c.run.pasids, 1);
    ck_assert_str_eq(c.run.workload, "random");
    ck_assert_str_eq(c.run.trace, "");
    get(&c, "iommu", "inclusion", "mostly");
    get(&c, "memory", "placement", "local");
    get(&c, "barre", "placement", "lasp");
    get(&c, "run", "mode", "timed");
}
END_TEST

/* ---- the doc names every knob and preset ------------------------------------ */

static char *read_doc(void)
{
    FILE *f = fopen(XLAT_TEST_SRCDIR "/doc/sim-config.md", "r");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    ck_assert_uint_lt(n, sizeof(text) - 1);
    text[n] = '\0';
    return text;
}

START_TEST(doc_names_everything)
{
    const char *doc = read_doc();
    size_t n;
    const sim_knob_info *k = sim_knobs(&n);
    sim_config c;
    sim_config_defaults(&c);
    for (size_t i = 0; i < n; i++) {
        /* each knob's row: | `section.key` | range | default | ... */
        char row[1400], def[1100];
        ck_assert_int_eq(sim_config_get(&c, k[i].section, k[i].key, def, sizeof(def)), 0);
        snprintf(row, sizeof(row), "| `%s.%s` | %s | %s%s%s |", k[i].section, k[i].key,
                 k[i].range, def[0] ? "`" : "", def, def[0] ? "`" : "");
        ck_assert_msg(strstr(doc, row), "doc/sim-config.md lacks the row %s", row);
    }
    size_t np;
    const sim_preset_info *p = sim_presets(&np);
    for (size_t i = 0; i < np; i++) {
        char row[128];
        snprintf(row, sizeof(row), "| `%s` |", p[i].name);
        ck_assert_msg(strstr(doc, row), "doc/sim-config.md lacks the preset %s", p[i].name);
    }
}
END_TEST

Suite *sim_config_suite(void)
{
    Suite *s = suite_create("sim_config");
    TCase *tc = test_case(s, "ini");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_add_loop_test(tc, ini_errors, 0, sizeof(bad_ini) / sizeof(bad_ini[0]));
    tcase_add_test(tc, ini_missing_file);
    tcase_add_test(tc, ini_good);
    tc = test_case(s, "set");
    tcase_add_loop_test(tc, set_errors, 0, sizeof(bad_set) / sizeof(bad_set[0]));
    tcase_add_test(tc, set_good);
    tcase_add_test(tc, every_knob_round_trips);
    tcase_add_test(tc, bools_and_doubles);
    tcase_add_test(tc, defaults);
    tc = test_case(s, "doc");
    tcase_add_test(tc, doc_names_everything);
    sim_config_preset_tests(s);
    return s;
}
