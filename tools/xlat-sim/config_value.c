/* One knob's value from and to text. Parsing is strict (the whole text
 * must be the value) so that a typo in an INI file is an error, not a
 * silently truncated number; formatting gives back what parsing takes, so
 * get(set(x)) is x for every canonical x. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"

/* The enums of the library's structs are int-sized (checked here, since the
 * registry writes them through an int). */
_Static_assert(sizeof(xlat_repl) == sizeof(int), "enums are int-sized");
_Static_assert(sizeof(sim_mode) == sizeof(int), "enums are int-sized");

static const char *const bool_true[] = {"true", "yes", "on", "1", NULL};
static const char *const bool_false[] = {"false", "no", "off", "0", NULL};

static void *field(sim_config *cfg, size_t off)
{
    return (char *)cfg + off;
}

static int count_names(const char *const *names)
{
    int n = 0;
    while (names[n])
        n++;
    return n;
}

static int in_list(const char *const *names, const char *text, int nocase)
{
    for (int i = 0; names[i]; i++)
        if (nocase ? !strcasecmp(names[i], text) : !strcmp(names[i], text))
            return i;
    return -1;
}

/* "a, b, c" of a NULL-terminated list. */
static void join(const char *const *names, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? sep : "", names[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* An unsigned integer, decimal or 0x hex. A leading '-' is a number below
 * every range (out of range, not "not a number"). */
static int parse_u64(const knob *k, const char *text, uint64_t *out, char *why, size_t len)
{
    const char *p = text;
    int negative = *p == '-';
    if (negative)
        p++;
    if (!isdigit((unsigned char)*p))
        return snprintf(why, len, "is not a number"), -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 0);
    if (*end)
        return snprintf(why, len, "is not a number"), -1;
    if (negative || errno == ERANGE || v < k->min || v > k->max)
        return snprintf(why, len, "is out of range (%" PRIu64 "..%" PRIu64 ")", k->min, k->max),
               -1;
    *out = v;
    return 0;
}

static int parse_double(const knob *k, const char *text, double *out, char *why, size_t len)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || isnan(v))
        return snprintf(why, len, "is not a number"), -1;
    if (errno == ERANGE || v < k->dmin || v > k->dmax)
        return snprintf(why, len, "is out of range (%g..%g)", k->dmin, k->dmax), -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *text, bool *out, char *why, size_t len)
{
    if (in_list(bool_true, text, 1) >= 0)
        return *out = true, 0;
    if (in_list(bool_false, text, 1) >= 0)
        return *out = false, 0;
    snprintf(why, len, "must be one of true, false, yes, no, on, off, 1, 0");
    return -1;
}

static int parse_enum(const knob *k, const char *text, int *out, char *why, size_t len)
{
    int i = in_list(k->names, text, 1);
    if (i >= 0)
        return *out = i, 0;
    char names[256];
    join(k->names, ", ", names, sizeof(names));
    snprintf(why, len, "must be one of %s", names);
    return -1;
}

int knob_parse(const knob *k, sim_config *cfg, const char *text, char *why, size_t len)
{
    uint64_t u = 0;
    double d = 0;
    bool b = false;
    int e = 0;
    void *f = field(cfg, k->off);
    switch (k->type) {
    case KNOB_U32:
    case KNOB_U64:
        if (parse_u64(k, text, &u, why, len))
            return -1;
        if (k->type == KNOB_U32)
            *(uint32_t *)f = (uint32_t)u;
        else
            *(uint64_t *)f = u;
        return 0;
    case KNOB_DOUBLE:
        if (parse_double(k, text, &d, why, len))
            return -1;
        return *(double *)f = d, 0;
    case KNOB_BOOL:
        if (parse_bool(text, &b, why, len))
            return -1;
        *(bool *)f = b;
        if (k->off2) /* a mirror: gmmu.enable is both sim_config.gmmu and system.gmmu */
            *(bool *)field(cfg, k->off2) = b;
        return 0;
    case KNOB_ENUM:
        if (parse_enum(k, text, &e, why, len))
            return -1;
        return memcpy(f, &e, sizeof(e)), 0;
    case KNOB_STR:
        if (strlen(text) >= k->size)
            return snprintf(why, len, "is too long (at most %zu characters)", k->size - 1), -1;
        return strcpy(f, text), 0;
    }
    return snprintf(why, len, "cannot be set"), -1;
}

/* Whole numbers as such ("1000", not "1e+03"), else the shortest %g that
 * reads back as the same double. */
static int format_double(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        int w = snprintf(buf, len, "%.0f", v);
        return w < 0 || (size_t)w >= len ? -1 : 0;
    }
    for (int prec = 1; prec <= 17; prec++) {
        int w = snprintf(buf, len, "%.*g", prec, v);
        if (w < 0 || (size_t)w >= len)
            return -1;
        if (strtod(buf, NULL) == v)
            return 0;
    }
    return 0;
}

int knob_format(const knob *k, const sim_config *cfg, char *buf, size_t len)
{
    const void *f = (const char *)cfg + k->off;
    int w = -1, e;
    switch (k->type) {
    case KNOB_U32:
        w = snprintf(buf, len, "%" PRIu32, *(const uint32_t *)f);
        break;
    case KNOB_U64:
        w = snprintf(buf, len, "%" PRIu64, *(const uint64_t *)f);
        break;
    case KNOB_DOUBLE:
        return format_double(*(const double *)f, buf, len);
    case KNOB_BOOL:
        w = snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false");
        break;
    case KNOB_ENUM:
        memcpy(&e, f, sizeof(e));
        /* A value outside the names (a preset's bug) still prints, as a number. */
        if (e >= 0 && e < count_names(k->names))
            w = snprintf(buf, len, "%s", k->names[e]);
        else
            w = snprintf(buf, len, "%d", e);
        break;
    case KNOB_STR:
        w = snprintf(buf, len, "%s", (const char *)f);
        break;
    }
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

void knob_range(const knob *k, char *buf, size_t len)
{
    switch (k->type) {
    case KNOB_U32:
    case KNOB_U64:
        snprintf(buf, len, "%" PRIu64 "..%" PRIu64, k->min, k->max);
        break;
    case KNOB_DOUBLE:
        snprintf(buf, len, "%g..%g", k->dmin, k->dmax);
        break;
    case KNOB_BOOL:
        snprintf(buf, len, "true, false");
        break;
    case KNOB_ENUM:
        join(k->names, ", ", buf, len);
        break;
    case KNOB_STR:
        snprintf(buf, len, "text of at most %zu characters", k->size - 1);
        break;
    }
}
