/*
 * Workload generators: the registry, the "NAME:k=v,..." parser and the issue
 * loop every pattern shares. The patterns live in workload_least.c (least-TLB's
 * multi-GPU patterns and mixes) and workload_kernels.c (irregular, GUPS,
 * tenants, Barre's objects); doc/sim-workloads.md describes them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static const wl_kind *const kinds[] = {
    &wl_random, &wl_adjacent, &wl_partition, &wl_stride, &wl_scatter_gather,
    &wl_mix,    &wl_irregular, &wl_gups,     &wl_tenants, &wl_barre_objects,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const sim_workload_info *sim_workloads(size_t *n)
{
    static sim_workload_info infos[NKINDS];
    for (size_t i = 0; i < NKINDS; i++)
        infos[i] = kinds[i]->info;
    if (n)
        *n = NKINDS;
    return infos;
}

/* ---- the generator -------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t wl_rand(wl_state *w)
{
    uint64_t *s = w->rng;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Lemire's multiply-shift: the bias, below n / 2^64, is far under any
 * tolerance a test or a paper's figure could notice. */
uint64_t wl_below(wl_state *w, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)wl_rand(w) * n) >> 64);
}

uint64_t wl_int(const wl_state *w, int i)
{
    return (uint64_t)w->p[i];
}

int wl_fit(const wl_state *w, uint64_t pages, sim_error *err)
{
    if (pages > (1ull << WL_REGION_SHIFT) >> w->shape.page_shift)
        return sim_fail(err,
                        "workload %s: footprint: %llu pages of %llu bytes do not fit in the "
                        "1 TiB region of a data object",
                        w->kind->info.name, (unsigned long long)pages,
                        (unsigned long long)w->page_bytes);
    return 0;
}

int wl_objects(wl_state *w, size_t n, sim_error *err)
{
    w->objs = calloc(n, sizeof(*w->objs));
    if (!w->objs)
        return sim_fail(err, "workload %s: out of memory", w->kind->info.name);
    w->nobjs = n;
    w->src.objects = w->objs;
    w->src.nobjects = n;
    return 0;
}

uint64_t wl_addr(wl_state *w, size_t o, uint64_t page)
{
    uint64_t line = wl_below(w, w->page_bytes / 64) * 64;
    return w->objs[o].vaddr + page * w->page_bytes + line;
}

static size_t cu_index(const wl_state *w, const sim_request *r)
{
    return (size_t)r->gpu * w->shape.cus + r->cu;
}

uint64_t wl_cu_turn(const wl_state *w, const sim_request *r)
{
    return w->cu_count[cu_index(w, r)];
}

uint64_t wl_cu_start(const wl_state *w, const sim_request *r)
{
    return w->start[cu_index(w, r)];
}

/* Turn t belongs to GPU t % gpus and, within it, CU (t / gpus) % cus: every
 * GPU issues in each round of `gpus` turns, as if they ran concurrently. */
static void refill(wl_state *w)
{
    uint32_t gpu = (uint32_t)(w->turn % w->shape.gpus);
    uint32_t cu = (uint32_t)(w->turn / w->shape.gpus % w->shape.cus);
    for (uint32_t i = 0; i < WL_MAX_BURST; i++)
        w->buf[i] = (sim_request){.gpu = gpu, .cu = cu, .pasid = 1, .access = XLAT_ACCESS_READ};
    w->nbuf = w->kind->burst(w, w->buf);
    w->pos = 0;
    w->gpu_count[gpu]++;
    w->cu_count[(size_t)gpu * w->shape.cus + cu]++;
    w->turn++;
}

static int wl_next(sim_source *src, sim_request *out, sim_error *err)
{
    (void)err;
    wl_state *w = (wl_state *)src;
    if (w->issued >= w->shape.requests)
        return 0;
    if (w->pos == w->nbuf)
        refill(w);
    *out = w->buf[w->pos++];
    w->issued++;
    return 1;
}

static void wl_close(sim_source *src)
{
    wl_state *w = (wl_state *)src;
    free(w->objs);
    free(w->gpu_count);
    free(w->cu_count);
    free(w->start);
    free(w);
}

/* ---- the spec --------------------------------------------------------------- */

static const wl_kind *find_kind(const char *name, size_t len)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strlen(kinds[i]->info.name) == len && !strncmp(kinds[i]->info.name, name, len))
            return kinds[i];
    return NULL;
}

static int unknown_kind(const char *name, size_t len, sim_error *err)
{
    char known[256] = "";
    for (size_t i = 0; i < NKINDS; i++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof(known) - used, "%s%s", i ? ", " : "", kinds[i]->info.name);
    }
    return sim_fail(err, "unknown workload '%.*s' (known: %s)", (int)len, name, known);
}

static int param_index(const wl_kind *k, const char *key, size_t len)
{
    for (int i = 0; i < WL_MAX_PARAMS && k->params[i].key; i++)
        if (strlen(k->params[i].key) == len && !strncmp(k->params[i].key, key, len))
            return i;
    return -1;
}

static double param_max(const wl_param *p, const sim_shape *shape)
{
    return (p->flags & WL_UPTO_GPUS) ? (double)shape->gpus : p->max;
}

/* "1..4 (the GPUs)", "0..1": what a message offers instead of a bad value. */
static void range_text(const wl_param *p, double max, char *buf, size_t len)
{
    if (p->flags & WL_FRAC)
        snprintf(buf, len, "%g..%g", p->min, max);
    else
        snprintf(buf, len, "%.0f..%.0f%s", p->min, max,
                 (p->flags & WL_UPTO_GPUS) ? " (the GPUs)" : "");
}

/* One "key=value" of length len. */
static int set_param(wl_state *w, const char *kv, size_t len, sim_error *err)
{
    const wl_kind *k = w->kind;
    const char *eq = memchr(kv, '=', len);
    int i = param_index(k, kv, eq ? (size_t)(eq - kv) : len);
    if (i < 0)
        return sim_fail(err, "workload %s: unknown parameter '%.*s' (parameters: %s)",
                        k->info.name, (int)(eq ? eq - kv : (long)len), kv, k->info.params);
    const wl_param *p = &k->params[i];
    char text[64], range[64];
    size_t vlen = eq ? len - (size_t)(eq + 1 - kv) : 0;
    snprintf(text, sizeof(text), "%.*s", (int)vlen, eq ? eq + 1 : "");
    char *end = NULL;
    errno = 0;
    double v = (p->flags & WL_FRAC) ? strtod(text, &end) : (double)strtoull(text, &end, 10);
    bool digits = text[0] >= '0' && text[0] <= '9';
    double max = param_max(p, &w->shape);
    range_text(p, max, range, sizeof(range));
    if (!vlen || !digits || *end || errno || isnan(v))
        return sim_fail(err, "workload %s: %s: '%s' is not a %s in %s", k->info.name, p->key,
                        text, (p->flags & WL_FRAC) ? "number" : "whole number", range);
    if (v < p->min || v > max)
        return sim_fail(err, "workload %s: %s=%s is out of range %s", k->info.name, p->key, text,
                        range);
    w->p[i] = v;
    return 0;
}

static int parse_params(wl_state *w, const char *s, sim_error *err)
{
    for (int i = 0; i < WL_MAX_PARAMS && w->kind->params[i].key; i++) {
        const wl_param *p = &w->kind->params[i];
        double max = param_max(p, &w->shape);
        w->p[i] = p->def < max ? p->def : max;
    }
    while (s && *s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (set_param(w, s, len, err))
            return -1;
        s = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* "random:footprint=8192,sharing=4": every parameter, in the kind's order. */
static void normalise(wl_state *w)
{
    char *n = w->src.name;
    size_t cap = sizeof(w->src.name);
    size_t used = (size_t)snprintf(n, cap, "%s", w->kind->info.name);
    for (int i = 0; i < WL_MAX_PARAMS && w->kind->params[i].key && used < cap; i++) {
        const wl_param *p = &w->kind->params[i];
        used += (size_t)snprintf(n + used, cap - used,
                                 (p->flags & WL_FRAC) ? "%c%s=%g" : "%c%s=%.0f", i ? ',' : ':',
                                 p->key, w->p[i]);
    }
}

static int check_shape(const sim_shape *s, sim_error *err)
{
    if (s->gpus < 1 || s->gpus > 1024 || s->cus < 1 || s->cus > 1024)
        return sim_fail(err, "workload: %u GPUs of %u CUs: each must be 1..1024", s->gpus, s->cus);
    if (s->page_shift < 12 || s->page_shift > 30)
        return sim_fail(err, "workload: page_shift %u is out of range 12..30", s->page_shift);
    return 0;
}

static int alloc_state(wl_state *w, sim_error *err)
{
    size_t ncu = (size_t)w->shape.gpus * w->shape.cus;
    w->gpu_count = calloc(w->shape.gpus, sizeof(uint64_t));
    w->cu_count = calloc(ncu, sizeof(uint64_t));
    w->start = calloc(ncu, sizeof(uint64_t));
    if (!w->gpu_count || !w->cu_count || !w->start)
        return sim_fail(err, "workload %s: out of memory", w->kind->info.name);
    for (size_t i = 0; i < ncu; i++)
        w->start[i] = wl_rand(w);
    return 0;
}

static int setup(wl_state *w, const char *params, sim_error *err)
{
    uint64_t x = w->shape.seed;
    for (int i = 0; i < 4; i++)
        w->rng[i] = splitmix64(&x);
    w->page_bytes = 1ull << w->shape.page_shift;
    if (parse_params(w, params, err) || alloc_state(w, err) || w->kind->init(w, err))
        return -1;
    normalise(w);
    return 0;
}

int sim_workload_open(const char *spec, const sim_shape *shape, sim_source **out, sim_error *err)
{
    if (!spec || !shape || !out)
        return sim_fail(err, "workload: no spec, shape or output");
    if (check_shape(shape, err))
        return -1;
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    const wl_kind *k = find_kind(spec, len);
    if (!k)
        return unknown_kind(spec, len, err);
    wl_state *w = calloc(1, sizeof(*w));
    if (!w)
        return sim_fail(err, "workload %s: out of memory", k->info.name);
    w->kind = k;
    w->shape = *shape;
    if (!w->shape.requests)
        w->shape.requests = WL_DEFAULT_REQUESTS;
    w->src = (sim_source){.next = wl_next, .close = wl_close, .timed = false,
                          .expected = w->shape.requests};
    if (setup(w, colon ? colon + 1 : NULL, err)) {
        wl_close(&w->src);
        return -1;
    }
    *out = &w->src;
    return 0;
}
