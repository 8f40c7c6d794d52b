/*
 * The text trace: one request a line, "cycle gpu cu pasid vaddr access".
 * Every malformed line stops the run with "FILE:LINE: FIELD: what": a
 * trace that reads wrong silently is worse than one that does not read.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace.h"

#define PASID_MAX ((1u << 20) - 1)  /* PCIe PASIDs are 20 bits; 0 means none */

typedef struct text_source {
    sim_source base;
    trace_stream *s;
    sim_shape shape;
    uint64_t last_cycle;
} text_source;

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int trace_parse_u64(const char *tok, bool hex_only, uint64_t *v, const char **why)
{
    unsigned base = hex_only ? 16 : 10;
    const char *p = tok;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    *why = "is not a number";
    if (*p == '\0')
        return -1;
    uint64_t x = 0;
    for (; *p; p++) {
        int d = digit_value((unsigned char)*p);
        if (d < 0 || (unsigned)d >= base)
            return -1;
        if (x > (UINT64_MAX - (unsigned)d) / base) {
            *why = "does not fit in 64 bits";
            return -1;
        }
        x = x * base + (unsigned)d;
    }
    *v = x;
    return 0;
}

size_t trace_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p)
            return n;
        if (n < max)
            fields[n] = p;
        n++;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

static const char *const field_names[6] = {"cycle", "gpu", "cu", "pasid", "vaddr", "access"};

/* R W X A, read write exec atomic, or the xlat_access number. */
static int parse_access(const char *tok, xlat_access *out)
{
    static const char *const words[4] = {"read", "write", "exec", "atomic"};
    static const char letters[4] = {'r', 'w', 'x', 'a'};
    for (int i = 0; i < 4; i++) {
        bool letter = tok[1] == '\0' && tolower((unsigned char)tok[0]) == letters[i];
        bool number = tok[1] == '\0' && tok[0] == '0' + i;
        if (letter || number || strcasecmp(tok, words[i]) == 0) {
            *out = (xlat_access)i;
            return 0;
        }
    }
    return -1;
}

/* "FILE:LINE: FIELD: what" (field < 0: no field). */
__attribute__((format(printf, 4, 5)))
static int line_fail(text_source *t, int field, sim_error *err, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return sim_fail(err, "%s:%lu: %s%s%s", trace_stream_name(t->s), trace_stream_lineno(t->s),
                    field >= 0 ? field_names[field] : "", field >= 0 ? ": " : "", what);
}

/* Numbers and ranges of the five numeric fields; v[] receives them. */
static int parse_numbers(text_source *t, char **f, uint64_t *v, sim_error *err)
{
    const unsigned long long lo[5] = {0, 0, 0, 1, 0};
    const unsigned long long hi[5] = {UINT64_MAX, t->shape.gpus - 1ull, t->shape.cus - 1ull,
                                      PASID_MAX, UINT64_MAX};
    for (int i = 0; i < 5; i++) {
        const char *why;
        if (trace_parse_u64(f[i], false, &v[i], &why) < 0)
            return line_fail(t, i, err, "'%.40s' %s", f[i], why);
        if (v[i] < lo[i] || v[i] > hi[i])
            return line_fail(t, i, err, "%llu is out of range (%llu..%llu)",
                             (unsigned long long)v[i], lo[i], hi[i]);
    }
    return 0;
}

static int parse_line(text_source *t, char *line, sim_request *out, sim_error *err)
{
    char *f[6];
    uint64_t v[5];
    size_t n = trace_split(line, f, 6);
    if (n != 6)
        return line_fail(t, -1, err,
                         "expected 6 fields (cycle gpu cu pasid vaddr access), got %zu", n);
    if (parse_numbers(t, f, v, err) < 0)
        return -1;
    if (parse_access(f[5], &out->access) < 0)
        return line_fail(t, 5, err,
                         "'%.40s' is not one of R W X A, read write exec atomic, 0..3", f[5]);
    if (v[0] < t->last_cycle)
        return line_fail(t, 0, err, "%llu is before the previous request's cycle %llu",
                         (unsigned long long)v[0], (unsigned long long)t->last_cycle);
    t->last_cycle = out->cycle = v[0];
    out->gpu = (uint32_t)v[1];
    out->cu = (uint32_t)v[2];
    out->pasid = (uint32_t)v[3];
    out->vaddr = v[4];
    return 0;
}

static bool blank(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return *p == '\0';
}

static int text_next(sim_source *src, sim_request *out, sim_error *err)
{
    text_source *t = (text_source *)src;
    char *line;
    int rc;
    while ((rc = trace_stream_getline(t->s, &line, err)) == 1) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (blank(line))
            continue;
        return parse_line(t, line, out, err) < 0 ? -1 : 1;
    }
    return rc;
}

static void text_close(sim_source *src)
{
    text_source *t = (text_source *)src;
    trace_stream_close(t->s);
    free(t);
}

int trace_text_source(trace_stream *s, const sim_shape *shape, sim_source **out,
                      sim_error *err)
{
    text_source *t = calloc(1, sizeof(*t));
    if (!t) {
        trace_stream_close(s);
        return sim_fail(err, "out of memory");
    }
    t->s = s;
    t->shape = *shape;
    sim_source_init(&t->base, text_next, text_close, true, trace_stream_name(s));
    *out = &t->base;
    return 0;
}
