/*
 * The merge: every run's JSON into DIR/sweep.csv, then the spec's plots.
 * A row per run in index order: index, preset, workload, seed, each
 * knob's value, then every numeric field of the JSON's "summary",
 * flattened ("latency.p99", "l2.hit_rate", "outcomes.IOMMU_WALK",
 * "tenants.0.requests"), in the order they first appear. The host's
 * timing (summary.host.seconds, .requests_per_second) is left out, so two
 * runs of one sweep give byte-identical files; each run's JSON keeps it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sweep.h"

static const char *const host_timing[] = {"host.seconds", "host.requests_per_second", NULL};

static bool is_host_timing(const char *name)
{
    for (size_t i = 0; host_timing[i]; i++)
        if (!strcmp(host_timing[i], name))
            return true;
    return false;
}

/* The column of `name`, added at the end when new; -1 out of memory. */
static long column_of(sweep_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncolumns; c++)
        if (!strcmp(t->column[c], name))
            return (long)c;
    char **grown = realloc(t->column, (t->ncolumns + 1) * sizeof(*grown));
    if (!grown)
        return -1;
    t->column = grown;
    if (!(t->column[t->ncolumns] = strdup(name)))
        return -1;
    for (size_t r = 0; r < t->nrows; r++) {
        char **row = realloc(t->cell[r], (t->ncolumns + 1) * sizeof(*row));
        if (!row)
            return -1;
        row[t->ncolumns] = NULL;
        t->cell[r] = row;
    }
    return (long)t->ncolumns++;
}

static int set_cell(sweep_table *t, size_t row, const char *name, const char *value)
{
    long c = column_of(t, name);
    if (c < 0)
        return -1;
    free(t->cell[row][c]);
    return (t->cell[row][c] = strdup(value)) ? 0 : -1;
}

static int flatten(sweep_table *t, size_t row, const char *prefix, json_t *v)
{
    char name[512], text[64];
    if (json_is_object(v)) {
        const char *key;
        json_t *sub;
        json_object_foreach(v, key, sub) {
            snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", key);
            if (flatten(t, row, name, sub) != 0)
                return -1;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *sub;
        json_array_foreach(v, i, sub) {
            snprintf(name, sizeof(name), "%s.%zu", prefix, i);
            if (flatten(t, row, name, sub) != 0)
                return -1;
        }
    } else if (json_is_number(v) && !is_host_timing(prefix)) {
        if (json_is_integer(v))
            snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else
            snprintf(text, sizeof(text), "%.9g", json_real_value(v));
        return set_cell(t, row, prefix, text);
    }
    return 0;
}

/* The grid's columns of one row, from the point's configuration. */
static int point_cells(const sweep_spec *spec, sweep_table *t, size_t row)
{
    sweep_point pt;
    sim_config cfg;
    sim_error err;
    char idx[32], seed[32];
    sweep_point_at(spec, row, &pt);
    if (sweep_point_config(spec, &pt, &cfg, &err) != 0)
        return -1;
    snprintf(idx, sizeof(idx), "%zu", row);
    sim_config_get(&cfg, "run", "seed", seed, sizeof(seed));
    if (set_cell(t, row, "index", idx) || set_cell(t, row, "preset", pt.preset) ||
        set_cell(t, row, "workload", cfg.run.workload) || set_cell(t, row, "seed", seed))
        return -1;
    for (size_t k = 0; k < spec->nknobs; k++)
        if (set_cell(t, row, spec->knob[k].name, pt.knob[k]) != 0)
            return -1;
    return 0;
}

static void table_free(sweep_table *t)
{
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncolumns; c++)
            free(t->cell[r][c]);
        free(t->cell[r]);
    }
    for (size_t c = 0; c < t->ncolumns; c++)
        free(t->column[c]);
    free(t->cell);
    free(t->column);
}

/* Reads every run's JSON; each missing or unreadable one is reported.
 * Returns how many were, or -1 out of memory. */
static long read_runs(const sweep_spec *spec, const char *dir, sweep_table *t)
{
    long missing = 0;
    char path[4200], log[4200], what[1024];
    t->cell = calloc(spec->nruns, sizeof(*t->cell));
    if (!t->cell)
        return -1;
    for (size_t i = 0; i < spec->nruns; i++) {
        if (!(t->cell[i] = calloc(t->ncolumns + 1, sizeof(**t->cell))))
            return -1;
        t->nrows = i + 1;
        if (point_cells(spec, t, i) != 0)
            return -1;
        sweep_run_path(dir, i, "json", path, sizeof(path));
        json_error_t jerr;
        json_t *root = json_load_file(path, 0, &jerr);
        json_t *summary = json_object_get(root, "summary");
        if (!json_is_object(summary)) {
            sweep_point pt;
            sweep_point_at(spec, i, &pt);
            sweep_point_describe(spec, &pt, what, sizeof(what));
            sweep_run_path(dir, i, "log", log, sizeof(log));
            fprintf(stderr, "xlat-sim sweep: run %zu (%s) is missing: %s: %s (its log: %s)\n", i,
                    what, path, root ? "no \"summary\"" : jerr.text, log);
            missing++;
        } else if (flatten(t, i, "", summary) != 0) {
            json_decref(root);
            return -1;
        }
        json_decref(root);
    }
    return missing;
}

/* RFC 4180: a field holding a comma or a quote is quoted. */
static void put_field(FILE *f, const char *s, bool first)
{
    if (!first)
        fputc(',', f);
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++)
        *s == '"' ? fputs("\"\"", f) : fputc(*s, f);
    fputc('"', f);
}

static int write_csv(const sweep_table *t, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/sweep.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot write: %s\n", path, strerror(errno));
        return 1;
    }
    for (size_t c = 0; c < t->ncolumns; c++)
        put_field(f, t->column[c], c == 0);
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncolumns; c++)
            put_field(f, t->cell[r][c], c == 0);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "xlat-sim sweep: %s: cannot write: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

int sweep_merge(const sweep_spec *spec, const char *dir)
{
    sweep_table t = {0};
    char csv[4200];
    snprintf(csv, sizeof(csv), "%s/sweep.csv", dir);
    unlink(csv); /* no earlier merge's file may pass for this one */
    long missing = read_runs(spec, dir, &t);
    int status = 0;
    if (missing < 0) {
        fprintf(stderr, "xlat-sim sweep: out of memory merging %s\n", dir);
        status = 1;
    } else if (missing > 0) {
        fprintf(stderr, "xlat-sim sweep: %ld of %zu runs missing: %s not written\n", missing,
                spec->nruns, csv);
        status = 1;
    } else {
        status = write_csv(&t, dir);
    }
    for (size_t i = 0; status == 0 && i < spec->nplots; i++) {
        sim_error err = {{0}};
        if (sweep_plot_draw(spec, &spec->plot[i], &t, dir, &err) != 0) {
            fprintf(stderr, "xlat-sim sweep: %s\n", err.msg);
            status = 1;
        }
    }
    table_free(&t);
    return status;
}
