/* xlat-sim's trace readers on any bytes: the first byte chooses the reader
 * (text, binary, Accel-Sim .traceg, or sim_trace_open's choice by content
 * with the kernel-list form left out, since a list names other files) and
 * the system's shape; the rest is the file, through the byte stream that
 * also undoes gzip and xz. Opening and reading every request must end in
 * success or an error with a message, never a crash, leak or hang; every
 * request read is inside the shape (gpu < gpus, cu < cus, a known access). */
#include <ctype.h>

#include "fuzz.h"
#include "fuzz_tmpfile.h"
#include "sim.h"
#include "trace.h"

/* Bounds the work of one input: .traceg makes up to 32 requests a line. */
#define MAX_REQUESTS 100000

enum reader { READ_TEXT, READ_BINARY, READ_TRACEG, READ_DETECT };

/* Whether the first line that is not blank or a comment starts a kernel
 * list ("kernel..." or "Memcpy..."), which sim_trace_open would follow. */
static int looks_like_kernel_list(const uint8_t *data, size_t size)
{
    size_t i = 0;
    while (i < size) {
        while (i < size && isspace(data[i]))
            i++;
        if (i < size && data[i] == '#') {
            while (i < size && data[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    return (size - i >= 6 && memcmp(data + i, "kernel", 6) == 0) ||
           (size - i >= 6 && memcmp(data + i, "Memcpy", 6) == 0);
}

static int open_reader(enum reader which, const char *path, const sim_shape *shape,
                       sim_source **src, sim_error *err)
{
    trace_stream *s;
    if (which == READ_DETECT)
        return sim_trace_open(path, shape, src, err);
    if (which == READ_TRACEG) {
        char **paths = malloc(sizeof(*paths));
        if (!paths || !(paths[0] = strdup(path))) {
            free(paths);
            return sim_fail(err, "out of memory");
        }
        return trace_traceg_source(paths, 1, path, shape, src, err);
    }
    if (trace_stream_open(path, &s, err) < 0)
        return -1;
    return which == READ_TEXT ? trace_text_source(s, shape, src, err)
                              : trace_bin_source(s, shape, src, err);
}

static void read_all(sim_source *src, const sim_shape *shape)
{
    sim_request r;
    sim_error err = {{0}};
    int rc = 1;
    for (int n = 0; n < MAX_REQUESTS && (rc = sim_source_next(src, &r, &err)) == 1; n++)
        FUZZ_CHECK(r.gpu < shape->gpus && r.cu < shape->cus && (unsigned)r.access <= 3,
                   "request %d: gpu %u cu %u access %d outside %u x %u", n, r.gpu, r.cu,
                   (int)r.access, shape->gpus, shape->cus);
    FUZZ_CHECK(rc == 1 || rc == 0 || (rc == -1 && err.msg[0] != '\0'), "next: %d, '%s'", rc,
               err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    uint8_t head = fuzz_u8(&in);
    enum reader which = (enum reader)(head % 4);
    sim_shape shape = {.gpus = 1 + (head >> 2) % 4, .cus = 1 + (head >> 4) % 8, .pasids = 1,
                       .page_shift = head & 0x80 ? 21 : 12, .seed = 1};
    data += in.pos;
    size -= in.pos;
    if (which == READ_DETECT && looks_like_kernel_list(data, size))
        which = READ_TEXT;
    char path[FUZZ_TMPFILE_PATH_LEN];
    if (fuzz_tmpfile_write(data, size, which == READ_TRACEG ? ".traceg" : ".trace", path) != 0)
        return 0;
    sim_source *src = NULL;
    sim_error err = {{0}};
    int rc = open_reader(which, path, &shape, &src, &err);
    FUZZ_CHECK(rc == 0 || (rc == -1 && err.msg[0] != '\0' && !src), "open: %d, '%s'", rc,
               err.msg);
    if (rc == 0) {
        read_all(src, &shape);
        sim_source_close(src);
    }
    fuzz_tmpfile_remove(path);
    return 0;
}
