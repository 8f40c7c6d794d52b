/*
 * Accel-Sim's .traceg kernels as a request source. A kernel file is a
 * "-key = value" header, then thread blocks (#BEGIN_TB ... #END_TB), each
 * holding its warps' instruction streams one warp after the other. A GPU
 * runs a block's warps together, so the reader buffers one block and
 * interleaves its warps round-robin, one memory instruction at a time.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define MAX_WARPS 1024          /* far above the 32 of a 1024-thread block */

typedef struct tg_req {
    uint64_t page;
    xlat_access access;
    bool last;                  /* the last request of its instruction */
} tg_req;

typedef struct tg_warp {
    tg_req *reqs;
    size_t n, cap, pos;
    uint64_t lines, insts;      /* instruction lines read; the "insts =" count */
    bool counted;               /* an "insts =" line was seen */
} tg_warp;

typedef struct tg_source {
    sim_source base;
    sim_shape shape;
    char **paths;
    size_t npaths, next_path;
    trace_stream *s;            /* the kernel being read; NULL between kernels */
    unsigned grid[3];
    unsigned version;           /* "-accelsim tracer version" (0 when absent) */
    bool lineinfo;
    bool begun;                 /* the header ended on a #BEGIN_TB */
    tg_warp *warps;             /* indexed by warp id, warps_alloc of them */
    size_t warps_alloc;
    size_t nwarps, cur, rr;     /* this block's: 1 + its largest warp id; current; next to give */
    bool have_block, have_warp;
    uint32_t gpu, cu;
    uint64_t remaining;         /* requests of the block not yet given */
} tg_source;

__attribute__((format(printf, 3, 4)))
static int tg_fail(tg_source *t, sim_error *err, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return sim_fail(err, "%s:%lu: %s", trace_stream_name(t->s), trace_stream_lineno(t->s), what);
}

static char *skip_space(char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Whether the line (past its blanks) starts with the word w. */
static bool word_is(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && (p[n] == '\0' || isspace((unsigned char)p[n]));
}

/* The value after "=": a number, or -1 when there is none. */
static long long header_number(const char *line)
{
    const char *eq = strchr(line, '=');
    char *end;
    if (!eq)
        return -1;
    long long v = strtoll(eq + 1, &end, 10);
    return end == eq + 1 ? -1 : v;
}

static int header_line(tg_source *t, const char *line, sim_error *err)
{
    if (strncmp(line, "-grid dim", 9) == 0) {
        const char *eq = strchr(line, '=');
        if (!eq || sscanf(eq + 1, " (%u,%u,%u)", &t->grid[0], &t->grid[1], &t->grid[2]) != 3 ||
            !t->grid[0] || !t->grid[1] || !t->grid[2])
            return tg_fail(t, err, "grid dim: expected '= (x,y,z)', each at least 1");
    } else if (strncmp(line, "-accelsim tracer version", 24) == 0) {
        long long v = header_number(line);
        if (v < 0)
            return tg_fail(t, err, "accelsim tracer version: expected '= N'");
        t->version = (unsigned)v;
    } else if (strncmp(line, "-enable lineinfo", 16) == 0) {
        t->lineinfo = header_number(line) > 0;
    }
    return 0;   /* the others (kernel name, block dim, shmem ...) do not matter here */
}

/* The header runs to the first "#" line ("#traces format" or #BEGIN_TB). */
static int read_header(tg_source *t, sim_error *err)
{
    char *line;
    int rc;
    t->grid[0] = 0;
    t->version = 0;
    t->lineinfo = t->begun = false;
    while ((rc = trace_stream_getline(t->s, &line, err)) == 1) {
        line = skip_space(line);
        if (line[0] == '\0')
            continue;
        if (line[0] == '#') {
            t->begun = word_is(line, "#BEGIN_TB");
            break;
        }
        if (line[0] != '-')
            return tg_fail(t, err, "expected a '-key = value' header line");
        if (header_line(t, line, err) < 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (t->grid[0] == 0)
        return sim_fail(err, "%s: no '-grid dim = (x,y,z)' header line", trace_stream_name(t->s));
    return 0;
}

static int warp_check(tg_source *t, sim_error *err)
{
    /* Before a block's first warp line there may be no warps yet (NULL),
     * and &warps[cur] would be arithmetic on a null pointer. */
    if (!t->have_warp)
        return 0;
    tg_warp *w = &t->warps[t->cur];
    if (w->counted && w->lines != w->insts)
        return tg_fail(t, err, "warp %zu: insts = %llu, but %llu instruction lines", t->cur,
                       (unsigned long long)w->insts, (unsigned long long)w->lines);
    return 0;
}

static int start_warp(tg_source *t, const char *line, sim_error *err)
{
    long long id = header_number(line);
    if (!t->have_block)
        return tg_fail(t, err, "warp line before the thread block line");
    if (id < 0 || id >= MAX_WARPS)
        return tg_fail(t, err, "warp: expected '= N' with N below %d", MAX_WARPS);
    if (warp_check(t, err) < 0)
        return -1;
    if ((size_t)id >= t->warps_alloc) {
        tg_warp *p = realloc(t->warps, ((size_t)id + 1) * sizeof(*p));
        if (!p)
            return tg_fail(t, err, "out of memory");
        memset(p + t->warps_alloc, 0, ((size_t)id + 1 - t->warps_alloc) * sizeof(*p));
        t->warps = p;
        t->warps_alloc = (size_t)id + 1;
    }
    if ((size_t)id >= t->nwarps)
        t->nwarps = (size_t)id + 1;
    t->cur = (size_t)id;
    t->have_warp = true;
    t->warps[id].lines = 0;
    t->warps[id].counted = false;
    return 0;
}

/* Block b (linear, x fastest) runs on global CU b mod (gpus * cus), as a
 * GPU's block scheduler hands blocks to its SMs in turn. */
static int start_block(tg_source *t, const char *line, sim_error *err)
{
    const char *eq = strchr(line, '=');
    unsigned x, y, z;
    if (!eq || sscanf(eq + 1, " %u,%u,%u", &x, &y, &z) != 3)
        return tg_fail(t, err, "thread block: expected '= x,y,z'");
    if (x >= t->grid[0] || y >= t->grid[1] || z >= t->grid[2])
        return tg_fail(t, err, "thread block %u,%u,%u is outside the grid (%u,%u,%u)", x, y, z,
                       t->grid[0], t->grid[1], t->grid[2]);
    uint64_t b = x + (uint64_t)t->grid[0] * (y + (uint64_t)t->grid[1] * z);
    uint64_t idx = b % ((uint64_t)t->shape.gpus * t->shape.cus);
    t->gpu = (uint32_t)(idx / t->shape.cus);
    t->cu = (uint32_t)(idx % t->shape.cus);
    t->have_block = true;
    return 0;
}

static int push_req(tg_source *t, tg_warp *w, uint64_t page, xlat_access a, bool last,
                    sim_error *err)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        tg_req *p = realloc(w->reqs, cap * sizeof(*p));
        if (!p)
            return tg_fail(t, err, "out of memory");
        w->reqs = p;
        w->cap = cap;
    }
    w->reqs[w->n++] = (tg_req){page, a, last};
    t->remaining++;
    return 0;
}

static int inst_line(tg_source *t, char *line, sim_error *err)
{
    traceg_inst in;
    char why[256];
    if (!t->have_warp)
        return tg_fail(t, err, "an instruction line before 'warp = N'");
    if (traceg_parse_inst(line, t->version, t->lineinfo, t->shape.page_shift, &in, why,
                          sizeof(why)) < 0)
        return tg_fail(t, err, "%s", why);
    tg_warp *w = &t->warps[t->cur];
    w->lines++;
    for (unsigned k = 0; k < in.npages; k++) {
        if (push_req(t, w, in.pages[k], in.access, k + 1 == in.npages, err) < 0)
            return -1;
    }
    return 0;
}

static int block_line(tg_source *t, char *p, sim_error *err)
{
    if (strncmp(p, "thread block", 12) == 0)
        return start_block(t, p, err);
    if (strncmp(p, "warp", 4) == 0 && strchr(p, '='))
        return start_warp(t, p, err);
    if (strncmp(p, "insts", 5) == 0 && strchr(p, '=')) {
        if (!t->have_warp || header_number(p) < 0)
            return tg_fail(t, err, "insts: expected '= N' after a warp line");
        t->warps[t->cur].insts = (uint64_t)header_number(p);
        t->warps[t->cur].counted = true;
        return 0;
    }
    if (strchr(p, '='))
        return 0;   /* newer post-processors' cluster lines: nothing to translate */
    return inst_line(t, p, err);
}

static void reset_block(tg_source *t)
{
    for (size_t i = 0; i < t->warps_alloc; i++)
        t->warps[i].n = t->warps[i].pos = 0;
    t->nwarps = t->cur = t->rr = 0;
    t->have_block = t->have_warp = false;
    t->remaining = 0;
}

/* Reads the next #BEGIN_TB ... #END_TB. 1: a block, 0: the kernel's end. */
static int read_block(tg_source *t, sim_error *err)
{
    char *line;
    int rc;
    bool in = t->begun;
    reset_block(t);
    t->begun = false;
    while ((rc = trace_stream_getline(t->s, &line, err)) == 1) {
        line = skip_space(line);
        if (line[0] == '\0')
            continue;
        bool begin = word_is(line, "#BEGIN_TB"), end = word_is(line, "#END_TB");
        if (!in && !begin)
            return tg_fail(t, err, "expected #BEGIN_TB");
        if (in && begin)
            return tg_fail(t, err, "#BEGIN_TB inside a thread block (no #END_TB before it)");
        if (end) {
            if (!t->have_block)
                return tg_fail(t, err, "a thread block without a 'thread block =' line");
            return warp_check(t, err) < 0 ? -1 : 1;
        }
        if (begin)
            in = true;
        else if (block_line(t, line, err) < 0)
            return -1;
    }
    if (rc == 0 && in)
        return tg_fail(t, err, "the file ends inside a thread block (no #END_TB)");
    return rc;
}

/* The next warp's next instruction, round-robin over the block's warps. */
static void take(tg_source *t, sim_request *out)
{
    for (;;) {
        tg_warp *w = &t->warps[t->rr];
        if (w->pos < w->n) {
            tg_req *r = &w->reqs[w->pos++];
            if (r->last)
                t->rr = (t->rr + 1) % t->nwarps;
            t->remaining--;
            *out = (sim_request){0, t->gpu, t->cu, 1, r->page << t->shape.page_shift, r->access};
            return;
        }
        t->rr = (t->rr + 1) % t->nwarps;
    }
}

static int open_kernel(tg_source *t, sim_error *err)
{
    if (trace_stream_open(t->paths[t->next_path++], &t->s, err) < 0)
        return -1;
    return read_header(t, err);
}

static int tg_next(sim_source *src, sim_request *out, sim_error *err)
{
    tg_source *t = (tg_source *)src;
    while (t->remaining == 0) {
        if (!t->s) {
            if (t->next_path == t->npaths)
                return 0;
            if (open_kernel(t, err) < 0)
                return -1;
        }
        int rc = read_block(t, err);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            trace_stream_close(t->s);
            t->s = NULL;
        }
    }
    take(t, out);
    return 1;
}

static void tg_close(sim_source *src)
{
    tg_source *t = (tg_source *)src;
    for (size_t i = 0; i < t->npaths; i++)
        free(t->paths[i]);
    free(t->paths);
    for (size_t i = 0; i < t->warps_alloc; i++)
        free(t->warps[i].reqs);
    free(t->warps);
    trace_stream_close(t->s);
    free(t);
}

int trace_traceg_source(char **paths, size_t npaths, const char *name,
                        const sim_shape *shape, sim_source **out, sim_error *err)
{
    tg_source *t = calloc(1, sizeof(*t));
    if (!t) {
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
        return sim_fail(err, "%s: out of memory", name);
    }
    t->paths = paths;
    t->npaths = npaths;
    t->shape = *shape;
    sim_source_init(&t->base, tg_next, tg_close, false, name);
    /* the first kernel's header now, so a file that is no .traceg fails at open */
    if (open_kernel(t, err) < 0) {
        tg_close(&t->base);
        return -1;
    }
    *out = &t->base;
    return 0;
}
