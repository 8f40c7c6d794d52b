/*
 * A small .traceg writer, in the layout of the Accel-Sim NVBit tracer
 * (version 4) after its post-processing: the tests write kernels with each
 * address form and read them back.
 */
#include <inttypes.h>

#include "trace.h"

int traceg_put_kernel(FILE *f, const char *name, const unsigned grid[3],
                      const unsigned block[3])
{
    int n = fprintf(f,
                    "-kernel name = %s\n-kernel id = 1\n-grid dim = (%u,%u,%u)\n"
                    "-block dim = (%u,%u,%u)\n-shmem = 0\n-nregs = 16\n-binary version = 80\n"
                    "-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
                    "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.5.5\n"
                    "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
                    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
                    "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n",
                    name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    return n < 0 ? -1 : 0;
}

int traceg_put_block(FILE *f, unsigned x, unsigned y, unsigned z)
{
    return fprintf(f, "#BEGIN_TB\n\nthread block = %u,%u,%u\n\n", x, y, z) < 0 ? -1 : 0;
}

int traceg_put_warp(FILE *f, unsigned warp, unsigned insts)
{
    return fprintf(f, "warp = %u\ninsts = %u\n", warp, insts) < 0 ? -1 : 0;
}

int traceg_put_end(FILE *f)
{
    return fprintf(f, "\n#END_TB\n\n") < 0 ? -1 : 0;
}

/* The active lanes' addresses, compacted in lane order. */
static unsigned active_addrs(uint32_t mask, const uint64_t *addrs, uint64_t *out)
{
    unsigned n = 0;
    for (unsigned lane = 0; lane < TRACEG_WARP; lane++) {
        if (mask & (1u << lane))
            out[n++] = addrs[lane];
    }
    return n;
}

static int put_addresses(FILE *f, uint32_t mask, const uint64_t *addrs, traceg_form form)
{
    uint64_t a[TRACEG_WARP];
    unsigned n = active_addrs(mask, addrs, a);
    int rc = fprintf(f, "%u ", (unsigned)form);
    if (form == TRACEG_LIST) {
        for (unsigned k = 0; k < n && rc >= 0; k++)
            rc = fprintf(f, "0x%016" PRIx64 " ", a[k]);
        return rc;
    }
    rc = fprintf(f, "0x%" PRIx64 " ", n ? a[0] : 0);
    if (form == TRACEG_BASE_STRIDE)
        return rc < 0 ? rc : fprintf(f, "%" PRId64 " ", n > 1 ? (int64_t)(a[1] - a[0]) : 0);
    for (unsigned k = 1; k < n && rc >= 0; k++)
        rc = fprintf(f, "%" PRId64 " ", (int64_t)(a[k] - a[k - 1]));
    return rc;
}

/* PC, mask, one destination and two sources as the tracer prints them;
 * memory instructions carry a width of 4 bytes. */
int traceg_put_inst(FILE *f, uint32_t pc, uint32_t mask, const char *opcode,
                    const uint64_t *addrs, traceg_form form)
{
    int rc = fprintf(f, "%04" PRIx32 " %08" PRIx32 " 1 R0 %s 2 R2 R3 %d ", pc, mask, opcode,
                     addrs ? 4 : 0);
    if (rc >= 0 && addrs)
        rc = put_addresses(f, mask, addrs, form);
    if (rc >= 0)
        rc = fprintf(f, "0\n");
    return rc < 0 ? -1 : 0;
}
