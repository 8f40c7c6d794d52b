/*
 * sim_trace_open() and sim_trace_convert(): which reader a file needs,
 * told from its content (after decompression) rather than its name, so a
 * renamed or recompressed trace still reads. Only .traceg's names count,
 * because Accel-Sim names its kernel traces so.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

typedef enum trace_kind { KIND_TEXT, KIND_BINARY, KIND_TRACEG, KIND_KERNELS } trace_kind;

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

static bool starts_with(const char *s, const char *head)
{
    return strncmp(s, head, strlen(head)) == 0;
}

static const char *skip_blanks(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* The first line that is neither blank nor a "#" comment says the kind. */
static trace_kind kind_of_line(trace_stream *s, sim_error *err, int *rc)
{
    char *line;
    while ((*rc = trace_stream_getline(s, &line, err)) == 1) {
        const char *p = skip_blanks(line);
        if (*p == '\0' || *p == '#')
            continue;
        if (starts_with(p, "-kernel name"))
            return KIND_TRACEG;
        if (starts_with(p, "kernel") || starts_with(p, "Memcpy"))
            return KIND_KERNELS;
        return KIND_TEXT;
    }
    return KIND_TEXT;
}

static int detect(const char *path, trace_kind *kind, sim_error *err)
{
    trace_stream *s;
    unsigned char magic[TRACE_BIN_MAGIC_LEN];
    int rc = 0;
    if (trace_stream_open(path, &s, err) < 0)
        return -1;
    long n = trace_stream_read(s, magic, sizeof(magic), err);
    trace_stream_close(s);
    if (n < 0)
        return -1;
    if (n == (long)sizeof(magic) && memcmp(magic, TRACE_BIN_MAGIC, sizeof(magic)) == 0) {
        *kind = KIND_BINARY;
        return 0;
    }
    if (ends_with(path, ".traceg") || ends_with(path, ".traceg.gz") ||
        ends_with(path, ".traceg.xz")) {
        *kind = KIND_TRACEG;
        return 0;
    }
    if (trace_stream_open(path, &s, err) < 0)
        return -1;
    *kind = kind_of_line(s, err, &rc);
    trace_stream_close(s);
    return rc < 0 ? -1 : 0;
}

static void free_paths(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

/* "dir-of-list/name", for a kernel list's relative names. */
static char *beside(const char *list, const char *name)
{
    const char *slash = strrchr(list, '/');
    size_t dir = slash && name[0] != '/' ? (size_t)(slash - list) + 1 : 0;
    char *p = malloc(dir + strlen(name) + 1);
    if (p) {
        memcpy(p, list, dir);
        strcpy(p + dir, name);
    }
    return p;
}

static int add_path(char ***paths, size_t *n, char *p, const char *list, sim_error *err)
{
    char **grown = p ? realloc(*paths, (*n + 1) * sizeof(**paths)) : NULL;
    if (!grown) {
        free(p);
        return sim_fail(err, "%s: out of memory", list);
    }
    grown[(*n)++] = p;
    *paths = grown;
    return 0;
}

/* A kernelslist.g: one kernel trace a line, in launch order; the memcpy
 * lines only matter to a simulator of the copies. */
static int read_kernel_list(const char *list, char ***paths, size_t *n, sim_error *err)
{
    trace_stream *s;
    char *line;
    int rc;
    *paths = NULL;
    *n = 0;
    if (trace_stream_open(list, &s, err) < 0)
        return -1;
    while ((rc = trace_stream_getline(s, &line, err)) == 1) {
        char *f[2];
        size_t k = trace_split(line, f, 2);
        if (k == 0 || f[0][0] == '#' || starts_with(f[0], "Memcpy"))
            continue;
        if (k != 1 || !starts_with(f[0], "kernel")) {
            rc = sim_fail(err, "%s:%lu: expected a kernel trace file name or a Memcpy line",
                          list, trace_stream_lineno(s));
            break;
        }
        if ((rc = add_path(paths, n, beside(list, f[0]), list, err)) < 0)
            break;
    }
    trace_stream_close(s);
    if (rc == 0 && *n == 0)
        rc = sim_fail(err, "%s: lists no kernels", list);
    if (rc < 0)
        free_paths(*paths, *n);
    return rc < 0 ? -1 : 0;
}

static int open_traceg(const char *path, trace_kind kind, const sim_shape *shape,
                       sim_source **out, sim_error *err)
{
    char **paths = NULL;
    size_t n = 0;
    if (kind == KIND_KERNELS) {
        if (read_kernel_list(path, &paths, &n, err) < 0)
            return -1;
    } else if (add_path(&paths, &n, strdup(path), path, err) < 0) {
        return -1;
    }
    return trace_traceg_source(paths, n, path, shape, out, err);
}

int sim_trace_open(const char *path, const sim_shape *shape, sim_source **out, sim_error *err)
{
    trace_kind kind;
    trace_stream *s;
    if (shape->gpus == 0 || shape->cus == 0 || shape->page_shift < 1 || shape->page_shift > 62)
        return sim_fail(err, "%s: the system shape needs gpus, cus >= 1 and page_shift 1..62",
                        path);
    if (detect(path, &kind, err) < 0)
        return -1;
    if (kind == KIND_TRACEG || kind == KIND_KERNELS)
        return open_traceg(path, kind, shape, out, err);
    if (trace_stream_open(path, &s, err) < 0)
        return -1;
    if (kind == KIND_BINARY)
        return trace_bin_source(s, shape, out, err);
    return trace_text_source(s, shape, out, err);
}

static int copy_all(sim_source *src, trace_bin_writer *w, sim_error *err)
{
    sim_request r;
    int rc;
    while ((rc = sim_source_next(src, &r, err)) == 1) {
        if (trace_bin_write(w, &r, err) < 0)
            return -1;
    }
    return rc;
}

int sim_trace_convert(const char *in, const char *out, const sim_shape *shape, sim_error *err)
{
    sim_source *src;
    trace_bin_writer *w;
    if (sim_trace_open(in, shape, &src, err) < 0)
        return -1;
    if (trace_bin_create(out, src->timed, &w, err) < 0) {
        sim_source_close(src);
        return -1;
    }
    int rc = copy_all(src, w, err);
    sim_source_close(src);
    if (trace_bin_close(w, rc < 0 ? NULL : err) < 0)
        rc = -1;
    if (rc < 0)
        unlink(out);  /* a half-written trace would read as a shorter run */
    return rc;
}
