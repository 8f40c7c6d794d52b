/*
 * The byte stream under every trace reader: a plain, gzip or xz file,
 * chosen by its first bytes (a trace renamed without its extension still
 * reads), and a line reader that counts lines for the error messages.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace.h"

#define STREAM_BUF (64 * 1024)

typedef enum stream_kind { STREAM_PLAIN, STREAM_GZIP, STREAM_XZ } stream_kind;

struct trace_stream {
    FILE *f;
    char *name;
    stream_kind kind;
    z_stream z;
    lzma_stream x;
    bool at_eof;            /* the file has no more raw bytes */
    bool done;              /* the decoder has no more output */
    unsigned char in[STREAM_BUF];
    size_t in_len;          /* raw bytes in `in` not yet given to the decoder */
    unsigned char *in_next;
    char *line;             /* the line buffer, grown as lines need */
    size_t line_cap;
    unsigned long lineno;
    unsigned char out[STREAM_BUF]; /* decoded bytes */
    size_t out_pos, out_len;
};

static const unsigned char gzip_magic[2] = {0x1f, 0x8b};
static const unsigned char xz_magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

static int refill(trace_stream *s, sim_error *err)
{
    if (s->in_len > 0 || s->at_eof)
        return 0;
    s->in_len = fread(s->in, 1, sizeof(s->in), s->f);
    s->in_next = s->in;
    if (s->in_len == 0) {
        if (ferror(s->f))
            return sim_fail(err, "%s: read error", s->name);
        s->at_eof = true;
    }
    return 0;
}

static int start_decoder(trace_stream *s, sim_error *err)
{
    if (s->in_len >= 2 && memcmp(s->in, gzip_magic, 2) == 0) {
        s->kind = STREAM_GZIP;
        /* 15 + 32: a gzip header, and any number of members after it */
        if (inflateInit2(&s->z, 15 + 32) != Z_OK)
            return sim_fail(err, "%s: cannot start the gzip decoder", s->name);
    } else if (s->in_len >= 6 && memcmp(s->in, xz_magic, 6) == 0) {
        lzma_stream init = LZMA_STREAM_INIT;
        s->kind = STREAM_XZ;
        s->x = init;
        if (lzma_stream_decoder(&s->x, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
            return sim_fail(err, "%s: cannot start the xz decoder", s->name);
    }
    return 0;
}

int trace_stream_open(const char *path, trace_stream **out, sim_error *err)
{
    trace_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return sim_fail(err, "%s: out of memory", path);
    s->name = strdup(path);
    s->f = fopen(path, "rb");
    if (!s->name || !s->f) {
        int e = errno;
        trace_stream_close(s);
        return sim_fail(err, "%s: %s", path, strerror(e));
    }
    if (refill(s, err) < 0 || start_decoder(s, err) < 0) {
        trace_stream_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void trace_stream_close(trace_stream *s)
{
    if (!s)
        return;
    if (s->kind == STREAM_GZIP)
        inflateEnd(&s->z);
    else if (s->kind == STREAM_XZ)
        lzma_end(&s->x);
    if (s->f)
        fclose(s->f);
    free(s->name);
    free(s->line);
    free(s);
}

const char *trace_stream_name(const trace_stream *s)
{
    return s->name;
}

unsigned long trace_stream_lineno(const trace_stream *s)
{
    return s->lineno;
}

/* One step of zlib; a member's end followed by more bytes starts the next
 * member, as gzip -d does with concatenated files. */
static int step_gzip(trace_stream *s, sim_error *err)
{
    s->z.next_in = s->in_next;
    s->z.avail_in = (uInt)s->in_len;
    int rc = inflate(&s->z, Z_NO_FLUSH);
    s->in_next = s->z.next_in;
    s->in_len = s->z.avail_in;
    if (rc == Z_STREAM_END) {
        if (s->in_len == 0 && refill(s, err) == 0 && s->at_eof)
            s->done = true;
        else if (inflateReset(&s->z) != Z_OK)
            return sim_fail(err, "%s: corrupt gzip data", s->name);
        return 0;
    }
    if (rc == Z_BUF_ERROR && s->at_eof)
        return sim_fail(err, "%s: truncated gzip data", s->name);
    if (rc != Z_OK && rc != Z_BUF_ERROR)
        return sim_fail(err, "%s: corrupt gzip data", s->name);
    return 0;
}

static int step_xz(trace_stream *s, sim_error *err)
{
    s->x.next_in = s->in_next;
    s->x.avail_in = s->in_len;
    lzma_ret rc = lzma_code(&s->x, s->at_eof ? LZMA_FINISH : LZMA_RUN);
    s->in_next = (unsigned char *)s->x.next_in;
    s->in_len = s->x.avail_in;
    if (rc == LZMA_STREAM_END) {
        s->done = true;
        return 0;
    }
    if (rc == LZMA_BUF_ERROR && s->at_eof)
        return sim_fail(err, "%s: truncated xz data", s->name);
    if (rc != LZMA_OK && rc != LZMA_BUF_ERROR)
        return sim_fail(err, "%s: corrupt xz data", s->name);
    return 0;
}

/* Fills `out` with the next decoded bytes; leaves out_len 0 at the end. */
static int fill_out(trace_stream *s, sim_error *err)
{
    s->out_pos = s->out_len = 0;
    while (s->out_len == 0 && !s->done) {
        if (refill(s, err) < 0)
            return -1;
        int rc = 0;
        if (s->kind == STREAM_PLAIN) {
            memcpy(s->out, s->in_next, s->in_len);
            s->out_len = s->in_len;
            s->in_len = 0;
            s->done = s->at_eof;
        } else if (s->kind == STREAM_GZIP) {
            s->z.next_out = s->out;
            s->z.avail_out = sizeof(s->out);
            rc = step_gzip(s, err);
            s->out_len = sizeof(s->out) - s->z.avail_out;
        } else {
            s->x.next_out = s->out;
            s->x.avail_out = sizeof(s->out);
            rc = step_xz(s, err);
            s->out_len = sizeof(s->out) - s->x.avail_out;
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

long trace_stream_read(trace_stream *s, void *buf, size_t n, sim_error *err)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        if (s->out_pos == s->out_len && fill_out(s, err) < 0)
            return -1;
        if (s->out_len == 0)
            break;
        size_t k = s->out_len - s->out_pos;
        if (k > n - got)
            k = n - got;
        memcpy(p + got, s->out + s->out_pos, k);
        s->out_pos += k;
        got += k;
    }
    return (long)got;
}

static int line_grow(trace_stream *s, size_t need, sim_error *err)
{
    if (need <= s->line_cap)
        return 0;
    size_t cap = s->line_cap ? s->line_cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(s->line, cap);
    if (!p)
        return sim_fail(err, "%s:%lu: out of memory", s->name, s->lineno);
    s->line = p;
    s->line_cap = cap;
    return 0;
}

/* Copies up to the next newline out of the decoded block, refilling it as
 * often as a long line needs. */
int trace_stream_getline(trace_stream *s, char **line, sim_error *err)
{
    size_t len = 0;
    bool nl = false;
    s->lineno++;
    while (!nl) {
        if (s->out_pos == s->out_len && fill_out(s, err) < 0)
            return -1;
        if (s->out_len == 0)
            break;
        const unsigned char *from = s->out + s->out_pos;
        size_t avail = s->out_len - s->out_pos;
        const unsigned char *end = memchr(from, '\n', avail);
        size_t k = end ? (size_t)(end - from) : avail;
        if (line_grow(s, len + k + 1, err) < 0)
            return -1;
        memcpy(s->line + len, from, k);
        len += k;
        s->out_pos += k + (end ? 1 : 0);
        nl = end != NULL;
    }
    if (!nl && len == 0) {
        s->lineno--;
        return 0;
    }
    if (line_grow(s, len + 1, err) < 0)
        return -1;
    s->line[len] = '\0';
    if (len > 0 && s->line[len - 1] == '\r')
        s->line[len - 1] = '\0';
    *line = s->line;
    return 1;
}
