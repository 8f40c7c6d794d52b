/*
 * The workload generators' private header: what workload.c (the registry,
 * the spec parser and the issue loop) shares with the files that hold the
 * patterns (workload_least.c, workload_kernels.c).
 *
 * A pattern is a small table (wl_kind): its parameters with their ranges,
 * an init that checks what the ranges cannot and declares the data objects,
 * and a burst function that writes the requests of one turn of one CU.
 */
#ifndef XLAT_SIM_WORKLOAD_H
#define XLAT_SIM_WORKLOAD_H

#include "sim.h"

#define WL_MAX_PARAMS 4
#define WL_MAX_BURST 64                 /* a wavefront's 64 lanes */
#define WL_DEFAULT_REQUESTS 100000u
#define WL_BASE 0x10000000000ull        /* 1 TiB: the first data object */
#define WL_REGION_SHIFT 40              /* each further object region is 1 TiB on */
#define WL_MAX_PAGES (1ull << 24)       /* footprint bound, and a region holds it */

enum {
    WL_FRAC = 1u << 0,     /* a fraction (0.25) rather than a whole number */
    WL_UPTO_GPUS = 1u << 1 /* at most shape->gpus; the default is clamped to it */
};

typedef struct wl_param {
    const char *key;
    double def, min, max;
    unsigned flags;
} wl_param;

typedef struct wl_state wl_state;

typedef struct wl_kind {
    sim_workload_info info;
    wl_param params[WL_MAX_PARAMS];
    /* Checks what the ranges cannot (cross-parameter, shape) and declares the
     * objects through wl_objects(); -1 with err set. */
    int (*init)(wl_state *w, sim_error *err);
    /* Writes 1..WL_MAX_BURST requests of one turn into out, returns how many.
     * out[] comes filled with the turn's gpu and cu, pasid 1 and READ. */
    uint32_t (*burst)(wl_state *w, sim_request *out);
} wl_kind;

struct wl_state {
    sim_source src;             /* first: the program holds a sim_source * */
    const wl_kind *kind;
    sim_shape shape;            /* requests already defaulted */
    double p[WL_MAX_PARAMS];    /* the kind's parameters, in its order */
    uint64_t rng[4];            /* xoshiro256** */
    uint64_t issued, turn;
    uint64_t page_bytes;
    sim_request buf[WL_MAX_BURST];
    uint32_t nbuf, pos;
    sim_object *objs;
    size_t nobjs;
    uint64_t *gpu_count;        /* per GPU: turns so far */
    uint64_t *cu_count;         /* per (gpu, cu): turns so far */
    uint64_t *start;            /* per (gpu, cu): a random start the pattern may use */
};

/* The kinds, each defined in the file of its family. */
extern const wl_kind wl_random, wl_adjacent, wl_partition, wl_stride, wl_scatter_gather,
    wl_mix, wl_irregular, wl_gups, wl_tenants, wl_barre_objects;

uint64_t wl_rand(wl_state *w);
/* Uniform in [0, n), n >= 1. */
uint64_t wl_below(wl_state *w, uint64_t n);
/* Whole-number parameter i. */
uint64_t wl_int(const wl_state *w, int i);
/* Fails unless `pages` pages fit in one object region (1 TiB). */
int wl_fit(const wl_state *w, uint64_t pages, sim_error *err);
/* Allocates n objects (zeroed); -1 with err set. */
int wl_objects(wl_state *w, size_t n, sim_error *err);
/* A byte address in page `page` of object `o`: a random 64-byte line of it,
 * so that streams differ by seed even where the page sequence does not. */
uint64_t wl_addr(wl_state *w, size_t o, uint64_t page);
/* Turns so far of the request's CU (before this one). */
uint64_t wl_cu_turn(const wl_state *w, const sim_request *r);
uint64_t wl_cu_start(const wl_state *w, const sim_request *r);

#endif
