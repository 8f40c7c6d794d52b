/* The world the bad-input cases run against: one unit of every kind on one
 * context, each holding a little known state (mapped pages, TLB entries,
 * cuckoo keys, PWC fills), so that a call which wrongly changes something
 * changes the world's digest. Built afresh for every case. */
#ifndef XLAT_TEST_BAD_INPUT_WORLD_H
#define XLAT_TEST_BAD_INPUT_WORLD_H

#include <stdbool.h>

#include "testutil.h"

#define BI_PASID 1
#define BI_PAGES 8
#define BI_VA(i) (0x40000000ull + (uint64_t)(i) * 0x1000)
#define BI_UNMAPPED 0x7f0000000000ull /* mapped by no unit of the world */
#define BI_GPUS 2

typedef struct bi_world {
    xlat_allocator allocator; /* bounded: BI_ALLOC_LIMIT live bytes in all */
    size_t live_bytes;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_tlb *tlb;
    xlat_cuckoo *cf;
    xlat_pwc *pwc;
    xlat_fixed *fixed;
    xlat_link *link;
    xlat_walker *walker;
    xlat_gmmu *gmmu;
    xlat_pec_buffer *pec;
    xlat_barre_alloc *ba;
    xlat_fbarre_mesh *mesh;
    xlat_fbarre *fb;
    xlat_system *sys;
    xlat_iommu *iommu; /* the system's */
    /* Valid configurations, for a case to spoil one field of. */
    xlat_ctx_config ctxc;
    xlat_tlb_config tlbc;
    xlat_cuckoo_config cfc;
    xlat_pwc_config pwcc;
    xlat_physmem_config memc;
    xlat_region_config region[2];
    xlat_pagetable_config ptc;
    xlat_fixed_config fixc;
    xlat_link_config linkc;
    xlat_walker_config walkc, iommu_walkc;
    xlat_dwspp_config dwsppc;
    xlat_gmmu_config gmmuc;
    xlat_iommu_config iommuc;
    xlat_system_config sysc;
    xlat_pec_buffer_config pecc;
    xlat_barre_alloc_config bac;
    xlat_barre_object obj;
    xlat_fbarre_config fbc;
    xlat_fbarre_mesh_config meshc;
    xlat_l2_port port;
    xlat_coal_info coal;
    /* What a create that wrongly succeeds would write. */
    xlat_ctx *o_ctx;
    xlat_tlb *o_tlb;
    xlat_cuckoo *o_cf;
    xlat_pwc *o_pwc;
    xlat_physmem *o_mem;
    xlat_pagetable *o_pt;
    xlat_fixed *o_fixed;
    xlat_link *o_link;
    xlat_walker *o_walker;
    xlat_gmmu *o_gmmu;
    xlat_iommu *o_iommu;
    xlat_system *o_sys;
    xlat_pec_buffer *o_pec;
    xlat_barre_alloc *o_ba;
    xlat_fbarre *o_fb;
    xlat_fbarre_mesh *o_mesh;
    /* Scratch arguments and outputs for the cases. */
    xlat_tlb_entry e;
    xlat_req req;
    xlat_target target;
    xlat_pec_entry pec_entry;
    uint64_t u64;
    uint32_t u32, u32b;
} bi_world;

/* The world's allocator refuses to hold more: an absurd size fails as the
 * host's memory would, without the test machine paying for it. */
#define BI_ALLOC_LIMIT ((size_t)256 << 20)

/* A non-int function's documented answer, and its opposite. */
#define BI_DOC 1000
#define BI_NOT_DOC 1001
#define BI_IS(cond) ((cond) ? BI_DOC : BI_NOT_DOC)
/* A void function's call, which must only not crash nor change state. */
#define BI_VOID(call) ((call), BI_DOC)

/* `create` of a config as a newer libxlat lays it out, with a member this
 * one does not know set: ::XLAT_ERR_UNSUPPORTED. */
#define BI_NEWER(type, cfg, create, out)                                                           \
    ({                                                                                             \
        struct {                                                                                   \
            type c;                                                                                \
            unsigned char newer[8];                                                                \
        } bi_n_;                                                                                   \
        memset(&bi_n_, 0, sizeof(bi_n_));                                                          \
        bi_n_.c = (cfg);                                                                           \
        bi_n_.c.struct_size = (uint32_t)sizeof(bi_n_);                                             \
        bi_n_.newer[5] = 1;                                                                        \
        create(w->ctx, &bi_n_.c, (out));                                                           \
    })

/* A stats_get of a NULL handle, which must write zeros. */
#define BI_STATS_NULL(type, getter)                                                                \
    ({                                                                                             \
        type bi_s_;                                                                                \
        memset(&bi_s_, 0xab, sizeof(bi_s_));                                                       \
        getter(NULL, &bi_s_, sizeof(bi_s_));                                                       \
        BI_IS(bi_all_zero(&bi_s_, sizeof(bi_s_)));                                                 \
    })

/* A stats_get into a NULL struct or with size 0, which must write nothing. */
#define BI_STATS_NOWHERE(type, getter, unit)                                                       \
    ({                                                                                             \
        type bi_s_;                                                                                \
        memset(&bi_s_, 0xab, sizeof(bi_s_));                                                       \
        getter((unit), NULL, sizeof(bi_s_));                                                       \
        getter((unit), &bi_s_, 0);                                                                 \
        BI_IS(bi_all_byte(&bi_s_, sizeof(bi_s_), 0xab));                                           \
    })

bool bi_all_zero(const void *p, size_t n);
bool bi_all_byte(const void *p, size_t n, unsigned char b);

/* One bad call: its text (row id and call), the call on a fresh world, the
 * code it must return and the word by which its message must name the
 * offending argument. NULL: no message at all, because the call has no
 * context to leave one in (a NULL handle) or because its answer is a
 * documented miss (NOT_FOUND of a lookup, a probe, region_of), which is
 * an answer and not a failure: the context's message stays as it was. */
typedef struct bi_case {
    const char *text;
    int (*call)(bi_world *w);
    int rc;
    const char *arg;
} bi_case;

/* X-macro helpers: a case list X(id, rc, arg, expr) becomes one function
 * per case and one table row. */
#define BI_DEFINE(id, rc, arg, expr)                                                               \
    static int bi_call_##id(bi_world *w)                                                           \
    {                                                                                              \
        (void)w;                                                                                   \
        return (int)(expr);                                                                        \
    }
#define BI_ROW(id, rc, arg, expr) {#id ": " #expr, bi_call_##id, rc, arg},

/* Runs every row on its own fresh world; fails naming every bad row. */
void bi_run(const bi_case *rows, size_t n);

/* The tables, one per group of headers (tests/check_bad_input_*.c). */
const bi_case *bi_core_cases(size_t *n);
const bi_case *bi_struct_cases(size_t *n);
const bi_case *bi_mem_cases(size_t *n);
const bi_case *bi_unit_cases(size_t *n);
const bi_case *bi_iommu_cases(size_t *n);
const bi_case *bi_barre_cases(size_t *n);

void bi_build(bi_world *w);
void bi_destroy(bi_world *w);
/* The digest of everything the world's units show. */
uint64_t bi_digest(const bi_world *w);
/* A completion callback that must never run: bad input takes nothing. */
void bi_never_done(void *user, const xlat_resp *resp);

#endif
