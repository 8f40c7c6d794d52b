/*
 * The sweep spec: an INI file read through libinih. [sweep] holds the
 * lists (presets, workloads, seeds) and the fixed run options, [knobs] one
 * list of values per knob, [plot NAME] a chart. A list is words separated
 * by blanks (workload specs hold commas); a key given again, or an
 * indented continuation line, adds to its list. Every point's
 * configuration is built while loading, so that a bad knob or value is
 * reported before anything runs.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "config.h"
#include "sweep.h"

typedef struct spec_read {
    FILE *f;
    int line;
    bool failed;
    sweep_spec *spec;
    sim_error *err;
} spec_read;

static int list_add_words(sweep_list *l, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *save = NULL, *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char **grown = realloc(l->word, (l->n + 1) * sizeof(*grown));
        if (!grown || !(grown[l->n] = strdup(w))) {
            free(grown ? grown : l->word);
            l->word = NULL;
            l->n = 0;
            return -1;
        }
        l->word = grown;
        l->n++;
    }
    return 0;
}

static void list_free(sweep_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->word[i]);
    free(l->word);
    l->word = NULL;
    l->n = 0;
}

static int fail_at(spec_read *r, const char *fmt, const char *a, const char *b)
{
    char what[2 * SIM_ERR_LEN];
    snprintf(what, sizeof(what), fmt, a, b);
    sim_fail(r->err, "%s:%d: %s", r->spec->path, r->line, what);
    r->failed = true;
    return 1;
}

static sweep_knob *knob_named(spec_read *r, const char *name)
{
    sweep_spec *s = r->spec;
    for (size_t i = 0; i < s->nknobs; i++)
        if (!strcmp(s->knob[i].name, name))
            return &s->knob[i];
    if (s->nknobs == SWEEP_MAX_KNOBS)
        return NULL;
    sweep_knob *k = &s->knob[s->nknobs++];
    snprintf(k->name, sizeof(k->name), "%s", name);
    return k;
}

/* [knobs] section.key = values: the knob must exist, and every value be one
 * it takes (checked on the defaults; ranges do not depend on the preset). */
static int on_knob(spec_read *r, const char *name, const char *value)
{
    char arg[1200];
    sim_config cfg;
    sim_error why;
    sweep_knob *k = knob_named(r, name);
    if (!k)
        return fail_at(r, "more than %s knobs%s", "16", "");
    size_t first = k->values.n;
    if (list_add_words(&k->values, value) != 0)
        return fail_at(r, "out of memory%s%s", "", "");
    sim_config_defaults(&cfg);
    for (size_t i = first; i < k->values.n; i++) {
        snprintf(arg, sizeof(arg), "%s=%s", name, k->values.word[i]);
        if (sim_config_set_arg(&cfg, arg, &why) != 0)
            return fail_at(r, "[knobs] %s", why.msg + strlen("--set: "), "");
    }
    return 0;
}

static int set_fixed(spec_read *r, char *dst, size_t len, const char *key, const char *value)
{
    sim_config cfg;
    sim_error why;
    sim_config_defaults(&cfg);
    if (sim_config_set(&cfg, "run", key, value, "[sweep]", &why) != 0)
        return fail_at(r, "%s%s", why.msg, "");
    snprintf(dst, len, "%s", value);
    return 0;
}

static int on_sweep(spec_read *r, const char *name, const char *value)
{
    sweep_spec *s = r->spec;
    sweep_list *l = !strcmp(name, "presets")     ? &s->presets
                    : !strcmp(name, "workloads") ? &s->workloads
                    : !strcmp(name, "seeds")     ? &s->seeds
                                                 : NULL;
    if (l)
        return list_add_words(l, value) != 0 ? fail_at(r, "out of memory%s%s", "", "") : 0;
    if (!strcmp(name, "requests"))
        return set_fixed(r, s->requests, sizeof(s->requests), name, value);
    if (!strcmp(name, "warmup"))
        return set_fixed(r, s->warmup, sizeof(s->warmup), name, value);
    if (!strcmp(name, "mode"))
        return set_fixed(r, s->mode, sizeof(s->mode), name, value);
    return fail_at(r, "[sweep] unknown key '%s' (keys: presets, workloads, seeds, requests, "
                      "warmup, mode)%s", name, "");
}

static int on_plot(spec_read *r, const char *section, const char *name, const char *value)
{
    sweep_spec *s = r->spec;
    const char *title = section + strlen("plot ");
    sweep_plot *p = s->nplots ? &s->plot[s->nplots - 1] : NULL;
    if (!p || strcmp(p->name, title)) {
        if (s->nplots == SWEEP_MAX_PLOTS)
            return fail_at(r, "more than %s plots%s", "16", "");
        p = &s->plot[s->nplots++];
        snprintf(p->name, sizeof(p->name), "%s", title);
        strcpy(p->series, "preset");
    }
    char *dst = !strcmp(name, "x") ? p->x : !strcmp(name, "y") ? p->y
              : !strcmp(name, "series") ? p->series : NULL;
    if (!dst)
        return fail_at(r, "[%s] unknown key '%s' (keys: x, y, series)", section, name);
    snprintf(dst, sizeof(p->x), "%s", value);
    return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    spec_read *r = user;
    if (r->failed)
        return 1; /* the first error is the one reported */
    if (!strcmp(section, "sweep"))
        return on_sweep(r, name, value), 1;
    if (!strcmp(section, "knobs"))
        return on_knob(r, name, value), 1;
    if (!strncmp(section, "plot ", 5) && section[5])
        return on_plot(r, section, name, value), 1;
    return fail_at(r, "unknown section [%s] (sections: sweep, knobs, plot NAME)%s", section, "");
}

static char *reader(char *buf, int size, void *user)
{
    spec_read *r = user;
    if (!fgets(buf, size, r->f))
        return NULL;
    r->line++;
    return buf;
}

static bool is_grid_knob(const sweep_spec *s, const char *name)
{
    for (size_t i = 0; i < s->nknobs; i++)
        if (!strcmp(s->knob[i].name, name))
            return true;
    return false;
}

/* A plot's x is a knob of the grid; its series one of the grid's axes. */
static int check_plots(const sweep_spec *s, sim_error *err)
{
    for (size_t i = 0; i < s->nplots; i++) {
        const sweep_plot *p = &s->plot[i];
        if (!p->x[0] || !p->y[0])
            return sim_fail(err, "%s: [plot %s] needs x (a knob) and y (a metric)", s->path,
                            p->name);
        if (!is_grid_knob(s, p->x))
            return sim_fail(err, "%s: [plot %s] x = %s is not a knob of [knobs]", s->path, p->name,
                            p->x);
        if (strcmp(p->series, "preset") && strcmp(p->series, "workload") &&
            strcmp(p->series, "seed") && !is_grid_knob(s, p->series))
            return sim_fail(err, "%s: [plot %s] series = %s is not preset, workload, seed or a "
                            "knob of [knobs]", s->path, p->name, p->series);
        for (const char *c = p->name; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
                return sim_fail(err, "%s: [plot %s]: a plot's name is a file name (letters, "
                                "digits, - _ .)", s->path, p->name);
    }
    return 0;
}

/* An empty list is an empty grid: say which. */
static int count_runs(sweep_spec *s, sim_error *err)
{
    if (!s->presets.n)
        return sim_fail(err, "%s: empty grid: [sweep] presets lists no preset", s->path);
    size_t n = s->presets.n * (s->workloads.n ? s->workloads.n : 1) * (s->seeds.n ? s->seeds.n : 1);
    for (size_t i = 0; i < s->nknobs; i++) {
        if (!s->knob[i].values.n)
            return sim_fail(err, "%s: empty grid: [knobs] %s lists no value", s->path,
                            s->knob[i].name);
        n *= s->knob[i].values.n;
    }
    if (n > 1000000)
        return sim_fail(err, "%s: %zu runs: more than a sweep of 1000000", s->path, n);
    s->nruns = n;
    return 0;
}

/* Every point's configuration and workload, before anything runs. */
static int check_points(const sweep_spec *s, sim_error *err)
{
    sim_config cfg;
    sweep_point pt;
    char what[512];
    for (size_t i = 0; i < s->nruns; i++) {
        sweep_point_at(s, i, &pt);
        sim_error why = {{0}};
        int rc = sweep_point_config(s, &pt, &cfg, &why);
        if (rc == 0 && (i % (s->seeds.n ? s->seeds.n : 1)) == 0) {
            sim_shape shape = {.gpus = cfg.system.gpus, .cus = cfg.system.cus, .pasids = 1,
                               .page_shift = cfg.mem.page_shift, .seed = 1, .requests = 1};
            sim_source *src = NULL;
            rc = sim_workload_open(cfg.run.workload, &shape, &src, &why);
            sim_source_close(src);
        }
        if (rc != 0) {
            sweep_point_describe(s, &pt, what, sizeof(what));
            return sim_fail(err, "%s: run %zu (%s): %s", s->path, i, what, why.msg);
        }
    }
    return 0;
}

int sweep_spec_load(sweep_spec *spec, const char *path, sim_error *err)
{
    memset(spec, 0, sizeof(*spec));
    if (!realpath(path, spec->path))
        return sim_fail(err, "%s: %s", path, strerror(errno));
    spec_read r = {.spec = spec, .err = err};
    r.f = fopen(spec->path, "r");
    if (!r.f)
        return sim_fail(err, "%s: %s", path, strerror(errno));
    int rc = ini_parse_stream(reader, &r, handler, &r);
    fclose(r.f);
    if (r.failed)
        return -1;
    if (rc > 0)
        return sim_fail(err, "%s:%d: syntax error (expected [section] or key = value)",
                        spec->path, rc);
    if (rc != 0)
        return sim_fail(err, "%s: libinih could not read it (error %d)", spec->path, rc);
    if (count_runs(spec, err) != 0 || check_plots(spec, err) != 0 || check_points(spec, err) != 0)
        return -1;
    return 0;
}

void sweep_spec_free(sweep_spec *spec)
{
    list_free(&spec->presets);
    list_free(&spec->workloads);
    list_free(&spec->seeds);
    for (size_t i = 0; i < spec->nknobs; i++)
        list_free(&spec->knob[i].values);
    spec->nknobs = 0;
}

/* Mixed radix, the last axis fastest: seeds, then the knobs backwards,
 * then workloads, then presets. */
void sweep_point_at(const sweep_spec *spec, size_t index, sweep_point *pt)
{
    size_t rest = index;
    memset(pt, 0, sizeof(*pt));
    pt->index = index;
    if (spec->seeds.n) {
        pt->seed = spec->seeds.word[rest % spec->seeds.n];
        rest /= spec->seeds.n;
    }
    for (size_t k = spec->nknobs; k-- > 0;) {
        const sweep_list *v = &spec->knob[k].values;
        pt->knob[k] = v->word[rest % v->n];
        rest /= v->n;
    }
    if (spec->workloads.n) {
        pt->workload = spec->workloads.word[rest % spec->workloads.n];
        rest /= spec->workloads.n;
    }
    pt->preset = spec->presets.word[rest % spec->presets.n];
}

int sweep_point_config(const sweep_spec *spec, const sweep_point *pt, sim_config *cfg,
                       sim_error *err)
{
    if (sim_preset_apply(cfg, pt->preset, err) != 0)
        return -1;
    snprintf(cfg->preset, sizeof(cfg->preset), "%s", pt->preset);
    const char *run_key[] = {"requests", "warmup", "mode", "seed", "workload"};
    const char *run_val[] = {spec->requests, spec->warmup, spec->mode,
                             pt->seed ? pt->seed : "", pt->workload ? pt->workload : ""};
    for (size_t i = 0; i < 5; i++)
        if (run_val[i][0] && sim_config_set(cfg, "run", run_key[i], run_val[i], spec->path, err))
            return -1;
    char arg[1200];
    for (size_t k = 0; k < spec->nknobs; k++) {
        snprintf(arg, sizeof(arg), "%s=%s", spec->knob[k].name, pt->knob[k]);
        if (sim_config_set_arg(cfg, arg, err) != 0)
            return -1;
    }
    return 0;
}

void sweep_point_describe(const sweep_spec *spec, const sweep_point *pt, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "preset=%s", pt->preset);
    if (pt->workload && used < len)
        used += (size_t)snprintf(buf + used, len - used, " workload=%s", pt->workload);
    if (pt->seed && used < len)
        used += (size_t)snprintf(buf + used, len - used, " seed=%s", pt->seed);
    for (size_t k = 0; k < spec->nknobs && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, " %s=%s", spec->knob[k].name, pt->knob[k]);
}
