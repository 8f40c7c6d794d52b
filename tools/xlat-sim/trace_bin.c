/*
 * The compact binary trace (layout in trace.h and doc/sim-traces.md).
 * Deltas make a typical record a few bytes: requests come in cycle order,
 * so the cycle delta is small, and a CU's next address is usually near the
 * last one, so the zig-zag vaddr delta is small either way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define VARINT_MAX 10           /* 64 bits in 7-bit groups */
#define PASID_MAX ((1u << 20) - 1)

/* The last vaddr of each (gpu, cu) seen: open addressing, grown at half full. */
typedef struct cu_map {
    struct cu_slot {
        uint64_t key, vaddr;
        bool used;
    } *slots;
    size_t cap, n;
} cu_map;

struct trace_bin_writer {
    FILE *f;
    char *path;
    uint64_t cycle;             /* the previous record's */
    cu_map last;
    uint64_t records;
};

typedef struct bin_source {
    sim_source base;
    trace_stream *s;
    sim_shape shape;
    uint64_t cycle;
    cu_map last;
    uint64_t record;            /* records read so far */
} bin_source;

static struct cu_slot *cu_find(cu_map *m, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
    while (m->slots[i].used && m->slots[i].key != key)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

static int cu_grow(cu_map *m)
{
    cu_map g = {calloc(m->cap ? 2 * m->cap : 64, sizeof(*g.slots)), m->cap ? 2 * m->cap : 64,
                m->n};
    if (!g.slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].used)
            *cu_find(&g, m->slots[i].key) = m->slots[i];
    }
    free(m->slots);
    *m = g;
    return 0;
}

/* The slot of (gpu, cu), made (vaddr 0) when new; NULL when out of memory. */
static struct cu_slot *cu_slot(cu_map *m, uint32_t gpu, uint32_t cu)
{
    uint64_t key = (uint64_t)gpu << 32 | cu;
    if (2 * (m->n + 1) > m->cap && cu_grow(m) < 0)
        return NULL;
    struct cu_slot *s = cu_find(m, key);
    if (!s->used) {
        *s = (struct cu_slot){key, 0, true};
        m->n++;
    }
    return s;
}

static uint64_t zigzag(uint64_t d)
{
    return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

int trace_bin_create(const char *path, bool timed, trace_bin_writer **out, sim_error *err)
{
    unsigned char h[TRACE_BIN_HEADER_LEN] = {0};
    trace_bin_writer *w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return sim_fail(err, "%s: out of memory", path);
    }
    w->f = fopen(path, "wb");
    if (!w->f) {
        int e = errno;
        free(w->path);
        free(w);
        return sim_fail(err, "%s: %s", path, strerror(e));
    }
    memcpy(h, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
    h[8] = TRACE_BIN_VERSION;
    h[10] = timed ? TRACE_BIN_FLAG_TIMED : 0;
    if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h)) {
        trace_bin_close(w, NULL);
        return sim_fail(err, "%s: write error", path);
    }
    *out = w;
    return 0;
}

int trace_bin_write(trace_bin_writer *w, const sim_request *r, sim_error *err)
{
    unsigned char buf[5 * VARINT_MAX];
    size_t n = 0;
    struct cu_slot *last;
    if (r->pasid == 0 || r->pasid > PASID_MAX || (unsigned)r->access > XLAT_ACCESS_ATOMIC)
        return sim_fail(err, "%s: record %llu: pasid %u or access %d out of range", w->path,
                        (unsigned long long)w->records + 1, r->pasid, (int)r->access);
    if (r->cycle < w->cycle)
        return sim_fail(err, "%s: record %llu: cycle %llu is before the previous %llu", w->path,
                        (unsigned long long)w->records + 1, (unsigned long long)r->cycle,
                        (unsigned long long)w->cycle);
    if (!(last = cu_slot(&w->last, r->gpu, r->cu)))
        return sim_fail(err, "%s: out of memory", w->path);
    n += put_varint(buf + n, r->cycle - w->cycle);
    n += put_varint(buf + n, r->gpu);
    n += put_varint(buf + n, r->cu);
    n += put_varint(buf + n, (uint64_t)r->pasid << 2 | (unsigned)r->access);
    n += put_varint(buf + n, zigzag(r->vaddr - last->vaddr));
    if (fwrite(buf, 1, n, w->f) != n)
        return sim_fail(err, "%s: write error", w->path);
    w->cycle = r->cycle;
    last->vaddr = r->vaddr;
    w->records++;
    return 0;
}

int trace_bin_close(trace_bin_writer *w, sim_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    if (fclose(w->f) != 0)
        rc = sim_fail(err, "%s: write error", w->path);
    free(w->last.slots);
    free(w->path);
    free(w);
    return rc;
}

static int rec_fail(bin_source *b, sim_error *err, const char *what)
{
    return sim_fail(err, "%s: record %llu: %s", trace_stream_name(b->s),
                    (unsigned long long)b->record + 1, what);
}

/* 1: a varint, 0: the clean end (only when at_start), -1: err set. */
static int get_varint(bin_source *b, uint64_t *v, bool at_start, sim_error *err)
{
    uint64_t x = 0;
    for (int i = 0; i < VARINT_MAX; i++) {
        unsigned char c;
        long n = trace_stream_read(b->s, &c, 1, err);
        if (n < 0)
            return -1;
        if (n == 0)
            return at_start && i == 0 ? 0 : rec_fail(b, err, "truncated");
        if (i == VARINT_MAX - 1 && c > 1)
            break;
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return rec_fail(b, err, "corrupt (a number longer than 64 bits)");
}

static int check_ranges(bin_source *b, const uint64_t *v, sim_error *err)
{
    char what[128];
    if (v[1] >= b->shape.gpus || v[2] >= b->shape.cus) {
        snprintf(what, sizeof(what), "gpu %llu cu %llu is out of range (%u gpus, %u cus)",
                 (unsigned long long)v[1], (unsigned long long)v[2], b->shape.gpus,
                 b->shape.cus);
        return rec_fail(b, err, what);
    }
    if (v[3] >> 2 == 0 || v[3] >> 2 > PASID_MAX)
        return rec_fail(b, err, "corrupt (pasid out of 1..2^20-1)");
    if (b->cycle + v[0] < b->cycle)
        return rec_fail(b, err, "corrupt (cycle beyond 64 bits)");
    return 0;
}

static int bin_next(sim_source *src, sim_request *out, sim_error *err)
{
    bin_source *b = (bin_source *)src;
    uint64_t v[5];
    struct cu_slot *last;
    for (int i = 0; i < 5; i++) {
        int rc = get_varint(b, &v[i], i == 0, err);
        if (rc <= 0)
            return rc;
    }
    if (check_ranges(b, v, err) < 0)
        return -1;
    if (!(last = cu_slot(&b->last, (uint32_t)v[1], (uint32_t)v[2])))
        return sim_fail(err, "%s: out of memory", trace_stream_name(b->s));
    last->vaddr += unzigzag(v[4]);
    b->cycle += v[0];
    b->record++;
    *out = (sim_request){b->cycle, (uint32_t)v[1], (uint32_t)v[2], (uint32_t)(v[3] >> 2),
                         last->vaddr, (xlat_access)(v[3] & 3)};
    return 1;
}

static void bin_close(sim_source *src)
{
    bin_source *b = (bin_source *)src;
    trace_stream_close(b->s);
    free(b->last.slots);
    free(b);
}

static int read_header(trace_stream *s, bool *timed, sim_error *err)
{
    unsigned char h[TRACE_BIN_HEADER_LEN];
    long n = trace_stream_read(s, h, sizeof(h), err);
    if (n < 0)
        return -1;
    if (n < (long)sizeof(h) || memcmp(h, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN) != 0)
        return sim_fail(err, "%s: truncated binary trace header", trace_stream_name(s));
    unsigned version = h[8] | (unsigned)h[9] << 8;
    unsigned flags = h[10] | (unsigned)h[11] << 8;
    if (version != TRACE_BIN_VERSION)
        return sim_fail(err, "%s: binary trace version %u (this reader knows %u)",
                        trace_stream_name(s), version, TRACE_BIN_VERSION);
    if (flags & ~TRACE_BIN_FLAG_TIMED)
        return sim_fail(err, "%s: unknown binary trace flags 0x%x", trace_stream_name(s), flags);
    *timed = flags & TRACE_BIN_FLAG_TIMED;
    return 0;
}

int trace_bin_source(trace_stream *s, const sim_shape *shape, sim_source **out,
                     sim_error *err)
{
    bool timed = false;
    if (read_header(s, &timed, err) < 0) {
        trace_stream_close(s);
        return -1;
    }
    bin_source *b = calloc(1, sizeof(*b));
    if (!b) {
        trace_stream_close(s);
        return sim_fail(err, "out of memory");
    }
    b->s = s;
    b->shape = *shape;
    sim_source_init(&b->base, bin_next, bin_close, timed, trace_stream_name(s));
    *out = &b->base;
    return 0;
}
