/*
 * One instruction line of an Accel-Sim .traceg (the NVBit tracer's format):
 *   [x y z warp] [line] PC mask ndst dst... opcode nsrc src... width
 *   [form addresses...] [immediate]
 * and the translation requests a GPU's memory unit would make for it: the
 * coalescer merges the active threads' accesses, so each distinct page
 * among them is looked up once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

#define MAX_FIELDS 96           /* 32 addresses and the rest, with room */
#define MAX_REGS 16

typedef struct inst_parse {
    char **f;
    size_t n, i;                /* fields, their count, the next one */
    char *why;
    size_t whylen;
} inst_parse;

__attribute__((format(printf, 2, 3)))
static int fail(inst_parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, p->whylen, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *next_field(inst_parse *p, const char *what)
{
    if (p->i >= p->n) {
        fail(p, "%s: missing (the line ends early)", what);
        return NULL;
    }
    return p->f[p->i++];
}

static int get_u64(inst_parse *p, const char *what, bool hex, uint64_t max, uint64_t *v)
{
    const char *why, *tok = next_field(p, what);
    if (!tok)
        return -1;
    if (trace_parse_u64(tok, hex, v, &why) < 0)
        return fail(p, "%s: '%.40s' %s", what, tok, why);
    if (*v > max)
        return fail(p, "%s: %s is out of range (0..%llu)", what, tok, (unsigned long long)max);
    return 0;
}

/* A signed decimal (strides and deltas), as a 64-bit two's complement. */
static int get_i64(inst_parse *p, const char *what, uint64_t *v)
{
    const char *why, *tok = next_field(p, what);
    if (!tok)
        return -1;
    bool neg = tok[0] == '-';
    if (trace_parse_u64(tok + neg, false, v, &why) < 0)
        return fail(p, "%s: '%.40s' %s", what, tok, why);
    if (*v > (uint64_t)INT64_MAX + neg)
        return fail(p, "%s: '%.40s' does not fit in 64 bits", what, tok);
    *v = neg ? (uint64_t)0 - *v : *v;
    return 0;
}

static int skip_regs(inst_parse *p, const char *what)
{
    uint64_t k;
    if (get_u64(p, what, false, MAX_REGS, &k) < 0)
        return -1;
    for (uint64_t r = 0; r < k; r++) {
        if (!next_field(p, what))
            return -1;
    }
    return 0;
}

/* What an opcode asks of the translation, from its name before the first
 * '.': 1 and *access for global and generic memory, 0 for the rest (shared,
 * local, constant, texture and surface memory, and non-memory ones). */
static int opcode_access(const char *opcode, xlat_access *access)
{
    static const struct {
        const char *name;
        xlat_access access;
    } table[] = {
        {"LDG", XLAT_ACCESS_READ},   {"LD", XLAT_ACCESS_READ},
        {"LDGSTS", XLAT_ACCESS_READ}, /* global to shared: the global side */
        {"STG", XLAT_ACCESS_WRITE},  {"ST", XLAT_ACCESS_WRITE},
        {"ATOMG", XLAT_ACCESS_ATOMIC}, {"ATOM", XLAT_ACCESS_ATOMIC},
        {"RED", XLAT_ACCESS_ATOMIC}, {"REDG", XLAT_ACCESS_ATOMIC},
    };
    size_t len = strcspn(opcode, ".");
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (strlen(table[i].name) == len && strncmp(opcode, table[i].name, len) == 0) {
            *access = table[i].access;
            return 1;
        }
    }
    return 0;
}

/* The active lanes' addresses, in lane order, in one of the three forms. */
static int read_addresses(inst_parse *p, unsigned active, uint64_t *addr)
{
    uint64_t form, step = 0;
    /* the tracer writes the form, and a base, even when no lane is active */
    if (get_u64(p, "address form", false, UINT64_MAX, &form) < 0)
        return -1;
    if (form > TRACEG_BASE_DELTA)
        return fail(p, "address form: %llu is not 0 (list), 1 (base-stride) or 2 (base-delta)",
                    (unsigned long long)form);
    if (form == TRACEG_LIST) {
        for (unsigned k = 0; k < active; k++) {
            if (get_u64(p, "address", true, UINT64_MAX, &addr[k]) < 0)
                return -1;
        }
        return 0;
    }
    if (get_u64(p, "base address", true, UINT64_MAX, &addr[0]) < 0)
        return -1;
    if (form == TRACEG_BASE_STRIDE && get_i64(p, "stride", &step) < 0)
        return -1;
    for (unsigned k = 1; k < active; k++) {
        /* base-delta: each lane's address from the previous active lane's */
        if (form == TRACEG_BASE_DELTA && get_i64(p, "delta", &step) < 0)
            return -1;
        addr[k] = addr[k - 1] + step;
    }
    return 0;
}

/* The accelerator's TMA opcodes carry a different address list (a count
 * and tensor transfers); they make no per-thread requests here. */
static bool is_tma(const char *opcode)
{
    return strncmp(opcode, "UTMA", 4) == 0 || strncmp(opcode, "UBLK", 4) == 0;
}

static void coalesce(const uint64_t *addr, unsigned active, unsigned shift, traceg_inst *out)
{
    for (unsigned k = 0; k < active; k++) {
        uint64_t page = addr[k] >> shift;
        unsigned j = 0;
        while (j < out->npages && out->pages[j] != page)
            j++;
        if (j == out->npages)
            out->pages[out->npages++] = page;
    }
}

static int parse_front(inst_parse *p, unsigned version, bool lineinfo, uint64_t *mask)
{
    uint64_t v;
    if (version < 3) {
        static const char *const prefix[4] = {"block x", "block y", "block z", "warp"};
        for (int k = 0; k < 4; k++) {
            if (get_u64(p, prefix[k], false, UINT32_MAX, &v) < 0)
                return -1;
        }
    }
    if (lineinfo && get_u64(p, "line number", false, UINT64_MAX, &v) < 0)
        return -1;
    if (get_u64(p, "pc", true, UINT64_MAX, &v) < 0)
        return -1;
    if (get_u64(p, "mask", true, UINT32_MAX, mask) < 0)
        return -1;
    return skip_regs(p, "destination count");
}

int traceg_parse_inst(char *line, unsigned version, bool lineinfo, unsigned page_shift,
                      traceg_inst *out, char *why, size_t whylen)
{
    char *f[MAX_FIELDS];
    inst_parse p = {f, trace_split(line, f, MAX_FIELDS), 0, why, whylen};
    uint64_t mask, width, addr[TRACEG_WARP];
    const char *opcode;
    out->npages = 0;
    if (p.n > MAX_FIELDS)
        return fail(&p, "%zu fields, more than an instruction has", p.n);
    if (parse_front(&p, version, lineinfo, &mask) < 0 || !(opcode = next_field(&p, "opcode")))
        return -1;
    if (skip_regs(&p, "source count") < 0 || get_u64(&p, "mem width", false, 4096, &width) < 0)
        return -1;
    if (width > 0 && is_tma(opcode))
        return 0;
    unsigned active = (unsigned)__builtin_popcountll(mask);
    if (width > 0 && read_addresses(&p, active, addr) < 0)
        return -1;
    if (p.n - p.i > 1)  /* the immediate, when the tracer wrote one */
        return fail(&p, "trailing junk '%.40s'", f[p.i + 1]);
    if (width > 0 && opcode_access(opcode, &out->access))
        coalesce(addr, active, page_shift, out);
    return 0;
}
