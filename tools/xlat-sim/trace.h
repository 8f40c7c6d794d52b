/*
 * xlat-sim's trace readers, private to tools/xlat-sim and its tests: the
 * byte stream under every reader, the binary format's writer and a small
 * .traceg writer the tests use. doc/sim-traces.md describes the formats.
 */
#ifndef XLAT_SIM_TRACE_H
#define XLAT_SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

/* ---- the byte stream: plain, gzip or xz, chosen by magic bytes ---------- */

typedef struct trace_stream trace_stream;

/* Opens `path`; errors read "PATH: why". */
int trace_stream_open(const char *path, trace_stream **out, sim_error *err);
void trace_stream_close(trace_stream *s);
const char *trace_stream_name(const trace_stream *s);
/* Up to `n` decoded bytes into buf: returns how many (fewer than n only at
 * the end of the file), or -1 with err set (corrupt compressed data). */
long trace_stream_read(trace_stream *s, void *buf, size_t n, sim_error *err);
/* The next line, of any length, without its "\n" (or "\r\n"); *line stays
 * valid until the next call. 1: a line, 0: the end, -1: err set. */
int trace_stream_getline(trace_stream *s, char **line, sim_error *err);
/* The number of the line getline() last returned (1 for the first). */
unsigned long trace_stream_lineno(const trace_stream *s);

/* ---- numbers and fields, shared by the text readers ---------------------- */

/* A decimal or 0x-hex number (hex_only: hex with or without 0x). Returns 0,
 * or -1 with *why "is not a number" or "does not fit in 64 bits". */
int trace_parse_u64(const char *tok, bool hex_only, uint64_t *v, const char **why);
/* Splits `line` in place at blanks into at most `max` fields; returns how
 * many there were (it may exceed max: the extra ones are not stored). */
size_t trace_split(char *line, char **fields, size_t max);

/* ---- the binary format ----------------------------------------------------
 * A 16-byte header, then records until the end of the file:
 *   bytes 0..7   magic "XLATTRC\0"
 *   bytes 8..9   format version, little-endian (1)
 *   bytes 10..11 flags, little-endian (bit 0: timed; other bits 0)
 *   bytes 12..15 zero (reserved)
 * Each record is five LEB128 varints (7 bits a byte, low group first, the
 * high bit set on every byte but the last, at most 10 bytes):
 *   cycle - the previous record's cycle (the first record: its cycle)
 *   gpu
 *   cu
 *   pasid << 2 | access (pasid 1..2^20-1, access an xlat_access 0..3)
 *   zig-zag(vaddr - v), modulo 2^64, where v is the vaddr of the previous
 *   record of the same gpu and cu (0 for its first): a CU's accesses are
 *   near each other even when the CUs' requests interleave
 * zig-zag(d) = (d << 1) ^ (d >> 63, arithmetic): small of either sign.
 */
#define TRACE_BIN_MAGIC "XLATTRC"        /* 8 bytes with its NUL */
#define TRACE_BIN_MAGIC_LEN 8
#define TRACE_BIN_VERSION 1
#define TRACE_BIN_HEADER_LEN 16
#define TRACE_BIN_FLAG_TIMED 0x1u

typedef struct trace_bin_writer trace_bin_writer;

/* Creates (truncates) `path`. */
int trace_bin_create(const char *path, bool timed, trace_bin_writer **out, sim_error *err);
/* Appends one record; refuses a cycle before the previous record's. */
int trace_bin_write(trace_bin_writer *w, const sim_request *r, sim_error *err);
/* Flushes and closes; frees w even when it fails. NULL does nothing. */
int trace_bin_close(trace_bin_writer *w, sim_error *err);

/* ---- readers: sim_source constructors; each takes the opened stream and
 * closes it, also when it fails ---- */
int trace_text_source(trace_stream *s, const sim_shape *shape, sim_source **out,
                      sim_error *err);
int trace_bin_source(trace_stream *s, const sim_shape *shape, sim_source **out,
                     sim_error *err);
/* `paths`: the .traceg files in order (the reader takes the array and its
 * strings, malloc'd, and frees them, also on failure). */
int trace_traceg_source(char **paths, size_t npaths, const char *name,
                        const sim_shape *shape, sim_source **out, sim_error *err);

/* ---- .traceg instructions (trace_tginst.c) ------------------------------- */

#define TRACEG_WARP 32

/* An instruction's translation requests: its active threads' distinct
 * pages, in first-seen (lane) order; npages 0 for one that makes none. */
typedef struct traceg_inst {
    unsigned npages;
    xlat_access access;
    uint64_t pages[TRACEG_WARP];    /* page numbers (vaddr >> page_shift) */
} traceg_inst;

/* Parses one instruction line of a kernel traced by tracer `version` (below
 * 3 each line starts with the block's x y z and the warp), with a source
 * line number first when `lineinfo`. Returns 0, or -1 with `why` ("mask:
 * 'zz' is not a number"). The line is split in place. */
int traceg_parse_inst(char *line, unsigned version, bool lineinfo, unsigned page_shift,
                      traceg_inst *out, char *why, size_t whylen);

/* ---- a small .traceg writer (Accel-Sim tracer version 4 layout) ---------- */

typedef enum traceg_form {
    TRACEG_LIST = 0,        /* one address per active thread */
    TRACEG_BASE_STRIDE = 1, /* the first address and a constant stride */
    TRACEG_BASE_DELTA = 2   /* the first address, then each from the previous */
} traceg_form;

/* The kernel header ("-kernel name = ..." to "#traces format ..."). */
int traceg_put_kernel(FILE *f, const char *name, const unsigned grid[3],
                      const unsigned block[3]);
/* "#BEGIN_TB" and "thread block = x,y,z"; then per warp traceg_put_warp()
 * and its instructions; then traceg_put_end(). */
int traceg_put_block(FILE *f, unsigned x, unsigned y, unsigned z);
int traceg_put_warp(FILE *f, unsigned warp, unsigned insts);
/* One instruction: `addrs` holds an address per lane (only the active
 * lanes' are written) or is NULL for a non-memory instruction. Base-stride
 * takes the stride of the first two active lanes: the caller gives
 * addresses that have one. */
int traceg_put_inst(FILE *f, uint32_t pc, uint32_t mask, const char *opcode,
                    const uint64_t *addrs, traceg_form form);
int traceg_put_end(FILE *f);

#endif
