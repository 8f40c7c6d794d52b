/* xlat-sim's trace readers: text, its gzip and xz forms, the binary format
 * and Accel-Sim's .traceg, each read back to exact requests, and the exact
 * error message of each malformed input. */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "scratch.h"
#include "testutil.h"
#include "sim.h"
#include "trace.h"

#define MAX_REQS 4096

static char dir[64];
static const sim_shape shape = {.gpus = 4, .cus = 8, .pasids = 1, .page_shift = 12};

/* The folder is made and emptied in the parent, so a failing test (which
 * ends its forked child at once) leaves nothing behind either. */
static void dir_setup(void) { scratch_make(dir, sizeof(dir), "xlat-trace"); }

static void dir_teardown(void) { scratch_remove(dir); }

/* A path in the folder. */
static const char *tmp(const char *name) { return scratch_path(dir, name); }

static void put_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void put_gzip(const char *path, const void *data, size_t len)
{
    gzFile g = gzopen(path, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, data, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(g), Z_OK);
}

static void put_xz(const char *path, const void *data, size_t len)
{
    lzma_stream x = LZMA_STREAM_INIT;
    size_t cap = len + 1024;
    uint8_t *out = malloc(cap);
    ck_assert_int_eq(lzma_easy_encoder(&x, 6, LZMA_CHECK_CRC64), LZMA_OK);
    x.next_in = data;
    x.avail_in = len;
    x.next_out = out;
    x.avail_out = cap;
    ck_assert_int_eq(lzma_code(&x, LZMA_FINISH), LZMA_STREAM_END);
    put_file(path, out, cap - x.avail_out);
    lzma_end(&x);
    free(out);
}

static long file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (long)st.st_size;
}

/* Reads a whole trace: its requests into r (n), 0 or -1 with err. */
static int read_all(const char *path, const sim_shape *sh, sim_request *r, size_t *n,
                    bool *timed, sim_error *err)
{
    sim_source *src;
    int rc;
    *n = 0;
    err->msg[0] = '\0';
    if (sim_trace_open(path, sh, &src, err) < 0)
        return -1;
    if (timed)
        *timed = src->timed;
    while ((rc = sim_source_next(src, &r[*n], err)) == 1)
        ck_assert_uint_lt(++*n, MAX_REQS);
    sim_source_close(src);
    return rc;
}

static void assert_req(const sim_request *r, uint64_t cycle, uint32_t gpu, uint32_t cu,
                       uint32_t pasid, uint64_t vaddr, xlat_access a)
{
    ck_assert_uint_eq(r->cycle, cycle);
    ck_assert_uint_eq(r->gpu, gpu);
    ck_assert_uint_eq(r->cu, cu);
    ck_assert_uint_eq(r->pasid, pasid);
    ck_assert_uint_eq(r->vaddr, vaddr);
    ck_assert_int_eq(r->access, a);
}

static const char small_text[] =
    "# cycle gpu cu pasid vaddr access\n"
    "0 0 0 1 0x1000 R\n"
    "5 1 7 2 4096 write   # a trailing comment\n"
    "\n"
    "   \t\n"
    "10 3 0 0x10 0xDEADBEEF000 A\n"
    "10 2 3 1048575 18446744073709551615 3\n"
    "11 0 1 7 0 eXeC\r\n";

static void assert_small(const sim_request *r, size_t n)
{
    ck_assert_uint_eq(n, 5);
    assert_req(&r[0], 0, 0, 0, 1, 0x1000, XLAT_ACCESS_READ);
    assert_req(&r[1], 5, 1, 7, 2, 4096, XLAT_ACCESS_WRITE);
    assert_req(&r[2], 10, 3, 0, 16, 0xdeadbeef000ull, XLAT_ACCESS_ATOMIC);
    assert_req(&r[3], 10, 2, 3, 1048575, UINT64_MAX, XLAT_ACCESS_ATOMIC);
    assert_req(&r[4], 11, 0, 1, 7, 0, XLAT_ACCESS_EXEC);
}

START_TEST(text_reads_exact)
{
    static sim_request r[MAX_REQS];
    size_t n;
    bool timed = false;
    sim_error err;
    put_file(tmp("small.txt"), small_text, sizeof(small_text) - 1);
    ck_assert_int_eq(read_all(tmp("small.txt"), &shape, r, &n, &timed, &err), 0);
    ck_assert(timed);
    assert_small(r, n);
}
END_TEST

static const struct {
    const char *line, *msg;
} bad_lines[] = {
    {"9 0 0 1 zz R", "vaddr: 'zz' is not a number"},
    {"9 4 0 1 0 R", "gpu: 4 is out of range (0..3)"},
    {"9 0 8 1 0 R", "cu: 8 is out of range (0..7)"},
    {"9 0 0 0 0 R", "pasid: 0 is out of range (1..1048575)"},
    {"9 0 0 1048576 0 R", "pasid: 1048576 is out of range (1..1048575)"},
    {"9 0 0 1 0", "expected 6 fields (cycle gpu cu pasid vaddr access), got 5"},
    {"9 0 0 1 0 R junk", "expected 6 fields (cycle gpu cu pasid vaddr access), got 7"},
    {"9 0 0 1 0 Q", "access: 'Q' is not one of R W X A, read write exec atomic, 0..3"},
    {"9 0 0 1 0 4", "access: '4' is not one of R W X A, read write exec atomic, 0..3"},
    {"9 0 0 1 0x1g R", "vaddr: '0x1g' is not a number"},
    {"9 0 0 1 0x R", "vaddr: '0x' is not a number"},
    {"12abc 0 0 1 0 R", "cycle: '12abc' is not a number"},
    {"9 -1 0 1 0 R", "gpu: '-1' is not a number"},
    {"9 0 0 1 18446744073709551616 R", "vaddr: '18446744073709551616' does not fit in 64 bits"},
    {"9 0 0 1 0x10000000000000000 R", "vaddr: '0x10000000000000000' does not fit in 64 bits"},
    {"8 0 0 1 0 R", "cycle: 8 is before the previous request's cycle 9"},
};

START_TEST(text_errors)
{
    static sim_request r[MAX_REQS];
    char text[256], want[600];
    size_t n;
    sim_error err;
    const char *p = tmp("bad.txt");
    for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
        /* the bad line is line 3, after a comment and a good request */
        snprintf(text, sizeof(text), "# header\n9 0 0 1 0 R\n%s\n", bad_lines[i].line);
        put_file(p, text, strlen(text));
        ck_assert_int_eq(read_all(p, &shape, r, &n, NULL, &err), -1);
        ck_assert_uint_eq(n, 1);
        snprintf(want, sizeof(want), "%s:3: %s", p, bad_lines[i].msg);
        ck_assert_str_eq(err.msg, want);
    }
}
END_TEST

/* A line longer than the stream's 64 KiB blocks, and a missing file. */
START_TEST(text_long_line_and_missing)
{
    static sim_request r[MAX_REQS];
    static char text[200 * 1024];
    char want[600];
    size_t n, len = 0;
    sim_error err;
    len += (size_t)snprintf(text, 64, "0 0 0 1 0x1000 R #");
    memset(text + len, 'x', 150 * 1024);
    len += 150 * 1024;
    len += (size_t)snprintf(text + len, 64, "\n1 2 3 4 0x2000 W\n");
    put_gzip(tmp("long.gz"), text, len);
    ck_assert_int_eq(read_all(tmp("long.gz"), &shape, r, &n, NULL, &err), 0);
    ck_assert_uint_eq(n, 2);
    assert_req(&r[1], 1, 2, 3, 4, 0x2000, XLAT_ACCESS_WRITE);
    ck_assert_int_eq(read_all(tmp("none.txt"), &shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s: No such file or directory", tmp("none.txt"));
    ck_assert_str_eq(err.msg, want);
}
END_TEST

START_TEST(text_compressed)
{
    static sim_request r[MAX_REQS];
    size_t n;
    sim_error err;
    /* names without their extensions: the magic bytes choose the decoder */
    put_gzip(tmp("small-gz"), small_text, sizeof(small_text) - 1);
    put_xz(tmp("small-xz"), small_text, sizeof(small_text) - 1);
    ck_assert_int_eq(read_all(tmp("small-gz"), &shape, r, &n, NULL, &err), 0);
    assert_small(r, n);
    ck_assert_int_eq(read_all(tmp("small-xz"), &shape, r, &n, NULL, &err), 0);
    assert_small(r, n);
}
END_TEST

START_TEST(compressed_corrupt)
{
    static sim_request r[MAX_REQS];
    static char text[64 * 1024];
    char want[600];
    size_t n, len = 0;
    sim_error err;
    for (int i = 0; len < sizeof(text) - 64; i++)
        len += (size_t)snprintf(text + len, 64, "%d 0 0 1 %d R\n", i, i * 4096);
    put_gzip(tmp("t.gz"), text, len);
    ck_assert_int_eq(truncate(tmp("t.gz"), file_size(tmp("t.gz")) / 2), 0);
    ck_assert_int_eq(read_all(tmp("t.gz"), &shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s: truncated gzip data", tmp("t.gz"));
    ck_assert_str_eq(err.msg, want);
    put_xz(tmp("t.xz"), text, len);
    ck_assert_int_eq(truncate(tmp("t.xz"), file_size(tmp("t.xz")) - 20), 0);
    ck_assert_int_eq(read_all(tmp("t.xz"), &shape, r, &n, NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "xz data"));
    ck_assert_int_eq(strncmp(err.msg, tmp("t.xz"), strlen(tmp("t.xz"))), 0);
}
END_TEST

/* 1,000 requests of 8 CUs walking their own arrays: a typical trace. */
static size_t stream_text(char *text, size_t cap)
{
    size_t len = 0;
    for (unsigned i = 0; i < 1000; i++)
        len += (size_t)snprintf(text + len, cap - len, "%u %u %u 1 0x%llx %c\n", 100 + i * 3,
                                i % 4, i % 8, 0x7f0000000000ull + (i % 8) * 0x100000 + i * 64,
                                "RW"[i % 3 == 0]);
    return len;
}

START_TEST(binary_round_trip)
{
    static sim_request a[MAX_REQS], b[MAX_REQS];
    static char text[64 * 1024];
    size_t na, nb;
    bool timed = false;
    sim_error err;
    size_t len = stream_text(text, sizeof(text));
    put_file(tmp("s.txt"), text, len);
    ck_assert_int_eq(sim_trace_convert(tmp("s.txt"), tmp("s.bin"), &shape, &err), 0);
    ck_assert_int_eq(read_all(tmp("s.txt"), &shape, a, &na, NULL, &err), 0);
    ck_assert_int_eq(read_all(tmp("s.bin"), &shape, b, &nb, &timed, &err), 0);
    ck_assert(timed);
    ck_assert_uint_eq(na, 1000);
    ck_assert_uint_eq(nb, na);
    ck_assert_mem_eq(a, b, na * sizeof(a[0]));
    /* several times smaller: about 7 bytes a record against 30 */
    ck_assert_int_lt(4 * file_size(tmp("s.bin")), (long)len);
    /* the small trace's extremes (UINT64_MAX, a falling vaddr) survive too */
    put_file(tmp("small.txt"), small_text, sizeof(small_text) - 1);
    ck_assert_int_eq(sim_trace_convert(tmp("small.txt"), tmp("small.bin"), &shape, &err), 0);
    ck_assert_int_eq(read_all(tmp("small.bin"), &shape, b, &nb, NULL, &err), 0);
    assert_small(b, nb);
}
END_TEST

START_TEST(binary_truncated)
{
    static sim_request r[MAX_REQS];
    static char text[64 * 1024];
    char want[600];
    size_t n;
    sim_error err;
    size_t len = stream_text(text, sizeof(text));
    put_file(tmp("s.txt"), text, len);
    ck_assert_int_eq(sim_trace_convert(tmp("s.txt"), tmp("s.bin"), &shape, &err), 0);
    ck_assert_int_eq(truncate(tmp("s.bin"), file_size(tmp("s.bin")) - 1), 0);
    ck_assert_int_eq(read_all(tmp("s.bin"), &shape, r, &n, NULL, &err), -1);
    ck_assert_uint_eq(n, 999);
    snprintf(want, sizeof(want), "%s: record 1000: truncated", tmp("s.bin"));
    ck_assert_str_eq(err.msg, want);
    ck_assert_int_eq(truncate(tmp("s.bin"), 12), 0);
    ck_assert_int_eq(read_all(tmp("s.bin"), &shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s: truncated binary trace header", tmp("s.bin"));
    ck_assert_str_eq(err.msg, want);
    /* a failed conversion leaves no half-written output */
    put_file(tmp("bad.txt"), "0 0 0 1 0 R\n1 0 0 1 0 Z\n", 24);
    ck_assert_int_eq(sim_trace_convert(tmp("bad.txt"), tmp("bad.bin"), &shape, &err), -1);
    ck_assert_int_ne(access(tmp("bad.bin"), F_OK), 0);
}
END_TEST

/* ---- .traceg -------------------------------------------------------------- */

static const sim_shape tg_shape = {.gpus = 2, .cus = 2, .pasids = 1, .page_shift = 12};

/* Per-lane addresses: base + lane * step, and garbage in the lanes the
 * mask leaves off (never written, never read). */
static void lanes(uint64_t *a, uint32_t mask, uint64_t base, uint64_t step)
{
    for (unsigned l = 0; l < 32; l++)
        a[l] = mask & (1u << l) ? base + l * step : 0x999999000ull;
}

/* Block (0,1,0) of a 3x2 grid is block 3: global CU 3 of 4, GPU 1 CU 1. */
static void put_block_a(FILE *f)
{
    uint64_t a[32];
    static const uint64_t gapped[8] = {0x30000, 0x50000, 0x30010, 0x40000,
                                       0x2fff8, 0x50008, 0x30000, 0x60000};
    traceg_put_block(f, 0, 1, 0);
    traceg_put_warp(f, 0, 3);
    lanes(a, 0xffffffff, 0x10000, 256);     /* two pages */
    traceg_put_inst(f, 0x10, 0xffffffff, "LDG.E.64", a, TRACEG_LIST);
    traceg_put_inst(f, 0x20, 0xffffffff, "IADD3", NULL, TRACEG_LIST);
    traceg_put_inst(f, 0x30, 0xffffffff, "STS.128", a, TRACEG_LIST);
    traceg_put_warp(f, 1, 2);
    lanes(a, 0x0000ffff, 0x200000, 0x800);  /* eight pages */
    traceg_put_inst(f, 0x10, 0x0000ffff, "STG.E", a, TRACEG_BASE_STRIDE);
    lanes(a, 0, 0, 0);
    for (unsigned k = 0; k < 8; k++)        /* lanes 0-3 and 20-23, deltas of both signs */
        a[k < 4 ? k : k + 16] = gapped[k];
    traceg_put_inst(f, 0x40, 0x00f0000f, "ATOMG.E.ADD.STRONG.GPU", a, TRACEG_BASE_DELTA);
    traceg_put_end(f);
}

/* Block (1,1,0) is block 4: global CU 0, GPU 0 CU 0. */
static void put_block_b(FILE *f)
{
    uint64_t a[32];
    traceg_put_block(f, 1, 1, 0);
    traceg_put_warp(f, 0, 2);
    lanes(a, 1, 0x123456789, 0);
    traceg_put_inst(f, 0x50, 1, "RED.E.ADD.F32", a, TRACEG_LIST);
    lanes(a, 3, 0x5000, 8);
    traceg_put_inst(f, 0x60, 3, "LD.E", a, TRACEG_BASE_STRIDE);
    traceg_put_warp(f, 1, 2);
    traceg_put_inst(f, 0x50, 0, "LDG.E", a, TRACEG_BASE_STRIDE);  /* no lane active */
    lanes(a, 0x80000000, 0x7000, 0);
    traceg_put_inst(f, 0x60, 0x80000000, "LDG.E.CONSTANT", a, TRACEG_LIST);
    traceg_put_end(f);
}

static void put_kernel(const char *path)
{
    static const unsigned grid[3] = {3, 2, 1}, block[3] = {64, 1, 1};
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    traceg_put_kernel(f, "_Z6kernelPf", grid, block);
    put_block_a(f);
    put_block_b(f);
    ck_assert_int_eq(fclose(f), 0);
}

static size_t assert_kernel(const sim_request *r)
{
    static const uint64_t want_a[] = {0x10000,  0x11000,  0x200000, 0x201000, 0x202000,
                                      0x203000, 0x204000, 0x205000, 0x206000, 0x207000,
                                      0x30000,  0x50000,  0x40000,  0x2f000,  0x60000};
    size_t i = 0;
    /* warp 0's load, warp 1's store, then warp 1's atomic (warp 0 is done) */
    for (; i < 15; i++)
        assert_req(&r[i], 0, 1, 1, 1, want_a[i],
                   i < 2 ? XLAT_ACCESS_READ : i < 10 ? XLAT_ACCESS_WRITE : XLAT_ACCESS_ATOMIC);
    assert_req(&r[i++], 0, 0, 0, 1, 0x123456000, XLAT_ACCESS_ATOMIC);
    assert_req(&r[i++], 0, 0, 0, 1, 0x7000, XLAT_ACCESS_READ);
    assert_req(&r[i++], 0, 0, 0, 1, 0x5000, XLAT_ACCESS_READ);
    return i;
}

START_TEST(traceg_reads_exact)
{
    static sim_request r[MAX_REQS];
    size_t n;
    bool timed = true;
    sim_error err;
    put_kernel(tmp("kernel-a"));  /* told by its "-kernel name" line */
    ck_assert_int_eq(read_all(tmp("kernel-a"), &tg_shape, r, &n, &timed, &err), 0);
    ck_assert(!timed);
    ck_assert_uint_eq(n, 18);
    assert_kernel(r);
}
END_TEST

static void gzip_file(const char *from, const char *to)
{
    static char buf[64 * 1024];
    FILE *f = fopen(from, "rb");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    put_gzip(to, buf, len);
}

START_TEST(traceg_compressed_and_list)
{
    static sim_request r[MAX_REQS];
    size_t n;
    sim_error err;
    static const char list[] = "MemcpyHtoD,0x00007f0000000000,4096\n"
                               "kernel-1.traceg\n\nkernel-2.traceg.gz\n";
    put_kernel(tmp("kernel-1.traceg"));
    gzip_file(tmp("kernel-1.traceg"), tmp("kernel-2.traceg.gz"));
    ck_assert_int_eq(read_all(tmp("kernel-2.traceg.gz"), &tg_shape, r, &n, NULL, &err), 0);
    ck_assert_uint_eq(n, 18);
    assert_kernel(r);
    put_file(tmp("kernelslist.g"), list, sizeof(list) - 1);
    ck_assert_int_eq(read_all(tmp("kernelslist.g"), &tg_shape, r, &n, NULL, &err), 0);
    ck_assert_uint_eq(n, 36);
    assert_kernel(r + assert_kernel(r));
    /* converted, it keeps its requests and reads back untimed */
    bool timed = true;
    ck_assert_int_eq(sim_trace_convert(tmp("kernelslist.g"), tmp("k.bin"), &tg_shape, &err), 0);
    ck_assert_int_eq(read_all(tmp("k.bin"), &tg_shape, r, &n, &timed, &err), 0);
    ck_assert(!timed);
    ck_assert_uint_eq(n, 36);
    assert_kernel(r + assert_kernel(r));
}
END_TEST

static const struct {
    const char *line, *msg;
} bad_insts[] = {
    {"0010 ffffffff 1 R0 LDG.E 2 R2 R3 4 0 0xzz", "address: '0xzz' is not a number"},
    {"0010 ffffffff", "destination count: missing (the line ends early)"},
    {"0010 1ffffffff 1 R0 LDG.E 2 R2 R3 4 0 0x0 0",
     "mask: 1ffffffff is out of range (0..4294967295)"},
    {"0010 00000001 1 R0 LDG.E 2 R2 R3 4 7 0x0 0",
     "address form: 7 is not 0 (list), 1 (base-stride) or 2 (base-delta)"},
    {"0010 00000003 1 R0 LDG.E 2 R2 R3 4 2 0x1000 x 0", "delta: 'x' is not a number"},
    {"0010 00000001 1 R0 LDG.E 2 R2 R3 4 1 0x1000 8 0 junk", "trailing junk 'junk'"},
    {"#BEGIN_TB", "#BEGIN_TB inside a thread block (no #END_TB before it)"},
};

START_TEST(traceg_errors)
{
    static sim_request r[MAX_REQS];
    static const unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
    char want[600], *buf;
    size_t n, len;
    sim_error err;
    for (size_t i = 0; i < sizeof(bad_insts) / sizeof(bad_insts[0]); i++) {
        FILE *m = open_memstream(&buf, &len);
        traceg_put_kernel(m, "k", grid, block);
        traceg_put_block(m, 0, 0, 0);
        traceg_put_warp(m, 0, 1);
        fflush(m);
        unsigned line = 1;
        for (size_t k = 0; k < len; k++)
            line += buf[k] == '\n';
        fprintf(m, "%s\n#END_TB\n", bad_insts[i].line);
        fclose(m);
        put_file(tmp("bad.traceg"), buf, strlen(buf));
        free(buf);
        ck_assert_int_eq(read_all(tmp("bad.traceg"), &tg_shape, r, &n, NULL, &err), -1);
        snprintf(want, sizeof(want), "%s:%u: %s", tmp("bad.traceg"), line, bad_insts[i].msg);
        ck_assert_str_eq(err.msg, want);
    }
}
END_TEST

START_TEST(traceg_structure_errors)
{
    static sim_request r[MAX_REQS];
    char want[600];
    size_t n;
    sim_error err;
    static const char outside[] = "-kernel name = k\n-grid dim = (2,1,1)\n#BEGIN_TB\n"
                                  "thread block = 2,0,0\n";
    static const char unended[] = "-kernel name = k\n-grid dim = (2,1,1)\n\n#BEGIN_TB\n"
                                  "thread block = 1,0,0\nwarp = 0\ninsts = 0\n";
    put_file(tmp("o.traceg"), outside, sizeof(outside) - 1);
    ck_assert_int_eq(read_all(tmp("o.traceg"), &tg_shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s:4: thread block 2,0,0 is outside the grid (2,1,1)",
             tmp("o.traceg"));
    ck_assert_str_eq(err.msg, want);
    put_file(tmp("u.traceg"), unended, sizeof(unended) - 1);
    ck_assert_int_eq(read_all(tmp("u.traceg"), &tg_shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s:7: the file ends inside a thread block (no #END_TB)",
             tmp("u.traceg"));
    ck_assert_str_eq(err.msg, want);
}
END_TEST

/* Tracers before version 3 put the block and warp before each instruction;
 * lineinfo adds a source line number before the PC. Read through xz. */
START_TEST(traceg_old_layout)
{
    static sim_request r[MAX_REQS];
    static const char old[] = "-kernel name = k\n-grid dim = (4,1,1)\n-block dim = (32,1,1)\n"
                              "-accelsim tracer version = 2\n-enable lineinfo = 1\n"
                              "#traces format = ...\n#BEGIN_TB\nthread block = 3,0,0\n"
                              "warp = 0\ninsts = 2\n"
                              "3 0 0 0 17 0010 00000003 1 R4 STG.E 2 R2 R3 4 1 0x9000 4096 0\n"
                              "3 0 0 0 18 0020 00000000 0 EXIT 0 0 0\n#END_TB\n";
    size_t n;
    sim_error err;
    put_xz(tmp("old.traceg.xz"), old, sizeof(old) - 1);
    ck_assert_int_eq(read_all(tmp("old.traceg.xz"), &tg_shape, r, &n, NULL, &err), 0);
    ck_assert_uint_eq(n, 2);
    /* block 3 of a 4-CU system: GPU 1, CU 1 */
    assert_req(&r[0], 0, 1, 1, 1, 0x9000, XLAT_ACCESS_WRITE);
    assert_req(&r[1], 0, 1, 1, 1, 0xa000, XLAT_ACCESS_WRITE);
}
END_TEST

START_TEST(traceg_insts_mismatch)
{
    static sim_request r[MAX_REQS];
    static const char text[] = "-kernel name = k\n-grid dim = (1,1,1)\n"
                               "-accelsim tracer version = 4\n#BEGIN_TB\n"
                               "thread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                               "0010 00000001 0 LDG.E 1 R2 4 0 0x1000 0\nwarp = 1\n";
    char want[600];
    size_t n;
    sim_error err;
    put_file(tmp("m.traceg"), text, sizeof(text) - 1);
    ck_assert_int_eq(read_all(tmp("m.traceg"), &tg_shape, r, &n, NULL, &err), -1);
    snprintf(want, sizeof(want), "%s:9: warp 0: insts = 2, but 1 instruction lines",
             tmp("m.traceg"));
    ck_assert_str_eq(err.msg, want);
}
END_TEST

static void sim_traceg_tests(TCase *tc)
{
    tcase_add_test(tc, traceg_old_layout);
    tcase_add_test(tc, traceg_insts_mismatch);
    tcase_add_test(tc, traceg_reads_exact);
    tcase_add_test(tc, traceg_compressed_and_list);
    tcase_add_test(tc, traceg_errors);
    tcase_add_test(tc, traceg_structure_errors);
}

Suite *sim_trace_suite(void)
{
    Suite *s = suite_create("sim_trace");
    TCase *tc = test_case(s, "trace");
    tcase_add_unchecked_fixture(tc, dir_setup, dir_teardown);
    tcase_add_test(tc, text_reads_exact);
    tcase_add_test(tc, text_errors);
    tcase_add_test(tc, text_long_line_and_missing);
    tcase_add_test(tc, text_compressed);
    tcase_add_test(tc, compressed_corrupt);
    tcase_add_test(tc, binary_round_trip);
    tcase_add_test(tc, binary_truncated);
    sim_traceg_tests(tc);
    return s;
}
