/* The context's small objects in chunks (lib/core/slab.h): below the
 * threshold every object is the host allocator's; past it, objects are
 * carved from chunks of 8, 16, then 32 MiB, zeroed, 64-byte aligned and
 * apart; a freed one serves the next of its size class; a chunk that
 * cannot be had leaves the object to the host's allocator; every byte goes
 * back with the context; and where objects live changes no answer. */
#include <stdlib.h>

#include "testutil.h"

#include "internal.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* One assertion an object: a check per byte took minutes under the
 * sanitizers. */
static void assert_zeroed(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && p[i] == 0)
        i++;
    ck_assert_msg(i == n, "byte %zu of %zu is 0x%02x", i, n, i < n ? p[i] : 0);
}

static void assert_aligned(const void *p) { ck_assert_uint_eq((uintptr_t)p % 64, 0); }

START_TEST(below_the_threshold_every_object_is_the_hosts)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(1, &ca);
    ctx->slab.after = XLAT_SLAB_AFTER;
    size_t before = ctx->slab.host_small; /* the context's own (its event owners) */
    enum { N = 1000 };
    void *obj[N];
    for (int i = 0; i < N; i++) { /* 1000 x 1 KiB: a quarter of the threshold */
        size_t allocs = ca.allocs;
        obj[i] = xlat__alloc(ctx, KIB);
        ck_assert_ptr_nonnull(obj[i]);
        ck_assert_uint_eq(ca.allocs, allocs + 1);
    }
    ck_assert_uint_eq(ctx->slab.host_small, before + N * KIB);
    ck_assert_uint_eq(xlat__slab_bytes(ctx), 0);
    for (int i = 0; i < N; i++) {
        size_t frees = ca.frees;
        xlat__free(ctx, obj[i], KIB);
        ck_assert_uint_eq(ca.frees, frees + 1);
    }
    ck_assert_uint_eq(ctx->slab.host_small, before);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* Past the threshold: objects of every size up to XLAT_SLAB_MAX, each
 * zeroed, aligned and apart from every other (a pattern written into each
 * survives all the others'), after a handful of the host's allocations. */
START_TEST(past_the_threshold_objects_are_carved_from_chunks)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(2, &ca);
    ctx->slab.after = 64 * KIB;
    enum { N = 2500 };
    unsigned char **obj = calloc(N, sizeof(*obj));
    size_t *size = calloc(N, sizeof(*size));
    ck_assert(obj && size);
    uint64_t rng = 7;
    size_t allocs_at_start = ca.allocs, host_objects = 0;
    for (int i = 0; i < N; i++) {
        size[i] = 1 + test_rand(&rng) % (i % 8 ? 512 : XLAT_SLAB_MAX);
        bool slab_started = ctx->slab.free != NULL;
        size_t allocs = ca.allocs;
        obj[i] = xlat__alloc(ctx, size[i]);
        ck_assert_ptr_nonnull(obj[i]);
        assert_aligned(obj[i]);
        assert_zeroed(obj[i], size[i]);
        memset(obj[i], (i % 255) + 1, size[i]);
        if (!slab_started && !ctx->slab.free)
            host_objects++;
        else if (slab_started)
            ck_assert_uint_le(ca.allocs, allocs + 2); /* at most a chunk and its list's room */
    }
    ck_assert_uint_gt(host_objects, 0);
    ck_assert_uint_lt(host_objects, 64); /* 64 KiB of the host's, then the chunks */
    ck_assert_uint_eq(ctx->slab.chunks, 2); /* some 10 MiB */
    /* the host's objects, the size classes' lists, the list of chunks, the chunks */
    ck_assert_uint_eq(ca.allocs - allocs_at_start, host_objects + 1 + 1 + 2);
    for (int i = 0; i < N; i++) {
        size_t b = 0;
        while (b < size[i] && obj[i][b] == (i % 255) + 1)
            b++;
        ck_assert_msg(b == size[i], "object %d: byte %zu of %zu overwritten", i, b, size[i]);
    }
    for (int i = 0; i < N; i++)
        xlat__free(ctx, obj[i], size[i]);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
    ck_assert_uint_eq(ca.allocs, ca.frees);
    free(obj);
    free(size);
}
END_TEST

/* Chunks of 8, 16, 32, then 32 MiB again, kept in address order. */
START_TEST(chunks_double_up_to_32_mib)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(8, &ca);
    ctx->slab.after = 0;
    size_t objects = 0;
    while (ctx->slab.chunks < 4) {
        ck_assert_ptr_nonnull(xlat__alloc(ctx, XLAT_SLAB_MAX));
        objects++;
    }
    ck_assert_uint_eq(objects, (8 + 16 + 32) * MIB / XLAT_SLAB_MAX + 1);
    ck_assert_uint_eq(xlat__slab_bytes(ctx), (8 + 16 + 32 + 32) * MIB);
    size_t per_size[4] = {0}; /* chunks of 8 << k MiB (the list is by address) */
    for (size_t c = 0; c < 4; c++) {
        for (size_t k = 0; k < 4; k++)
            per_size[k] += ctx->slab.chunk[c].bytes == (8 * MIB) << k;
        if (c > 0)
            ck_assert_uint_lt(ctx->slab.chunk[c - 1].start, ctx->slab.chunk[c].start);
    }
    ck_assert_uint_eq(per_size[0], 1);
    ck_assert_uint_eq(per_size[1], 1);
    ck_assert_uint_eq(per_size[2], 2);
    ck_assert_uint_eq(per_size[3], 0);
    xlat_ctx_destroy(ctx); /* the objects go with the chunks */
    ck_assert_uint_eq(ca.live_bytes, 0);
    ck_assert_uint_eq(ca.allocs, ca.frees);
}
END_TEST

START_TEST(a_freed_object_serves_the_next_of_its_class)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    ctx->slab.after = 0;
    unsigned char *a = xlat__alloc(ctx, 100), *b = xlat__alloc(ctx, 100);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(b, a + 128); /* carved back to back, 100 bytes a class of 128 */
    memset(a, 0xAB, 100);
    size_t allocs = ca.allocs, frees = ca.frees;
    xlat__free(ctx, a, 100);
    ck_assert_uint_eq(ca.frees, frees); /* kept, not the host's */
    unsigned char *c = xlat__alloc(ctx, 200); /* another class */
    ck_assert_ptr_ne(c, a);
    unsigned char *d = xlat__alloc(ctx, 65); /* 65..128: a's class */
    ck_assert_ptr_eq(d, a);
    assert_zeroed(d, 65);
    ck_assert_uint_eq(ca.allocs, allocs);
    xlat__free(ctx, b, 100);
    xlat__free(ctx, c, 200);
    xlat__free(ctx, d, 65);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* Objects the host's allocator gave before the chunks started go back to
 * it, and big objects are always its. */
START_TEST(the_hosts_objects_stay_the_hosts)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(4, &ca);
    size_t before = ctx->slab.host_small;
    ctx->slab.after = before + 8 * KIB;
    void *early = xlat__alloc(ctx, 4 * KIB);
    ck_assert_uint_eq(ctx->slab.host_small, before + 4 * KIB);
    void *started = xlat__alloc(ctx, 4 * KIB); /* 8 KiB: the chunks start */
    ck_assert_uint_eq(ctx->slab.chunks, 1);
    size_t allocs = ca.allocs;
    void *big = xlat__alloc(ctx, XLAT_SLAB_MAX + 1);
    ck_assert_uint_eq(ca.allocs, allocs + 1);
    size_t frees = ca.frees, live = ca.live_bytes;
    xlat__free(ctx, early, 4 * KIB);
    ck_assert_uint_eq(ca.frees, frees + 1);
    ck_assert_uint_eq(ca.live_bytes, live - 4 * KIB);
    ck_assert_uint_eq(ctx->slab.host_small, before);
    xlat__free(ctx, big, XLAT_SLAB_MAX + 1);
    ck_assert_uint_eq(ca.frees, frees + 2);
    xlat__free(ctx, started, 4 * KIB);
    ck_assert_uint_eq(ca.frees, frees + 2); /* the chunk's */
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* Each allocation the chunks need (the size classes' lists, the list of
 * chunks, the chunk) failing once leaves the object to the host's
 * allocator; all of them failing is out of memory, with a message. */
START_TEST(a_chunk_that_cannot_be_had_leaves_the_object_to_the_host)
{
    for (long fail = 0; fail < 3; fail++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        xlat_ctx *ctx = test_ctx(5, &ca);
        ctx->slab.after = 0;
        ca.fail_after = fail;
        ca.fail_once = 1;
        size_t live = ca.live_bytes;
        void *p = xlat__alloc(ctx, 300);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq(ca.failed, 1);
        assert_zeroed(p, 300);
        ck_assert_uint_eq(ctx->slab.chunks, 0);
        size_t lists = fail > 0 ? XLAT_SLAB_CLASSES * sizeof(void *) : 0; /* kept */
        size_t chunk_list = fail > 1 ? 16 * sizeof(struct xlat__slab_chunk) : 0;
        ck_assert_uint_eq(ca.live_bytes - live, 300 + lists + chunk_list);
        void *q = xlat__alloc(ctx, 300); /* the next one tries again, and has its chunk */
        ck_assert_uint_eq(ctx->slab.chunks, 1);
        xlat__free(ctx, p, 300);
        xlat__free(ctx, q, 300);
        xlat_ctx_destroy(ctx);
        ck_assert_uint_eq(ca.live_bytes, 0);
    }
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(6, &ca);
    ctx->slab.after = 0;
    ca.fail_after = 0;
    ck_assert_ptr_null(xlat__alloc(ctx, 300));
    ck_assert_str_eq(xlat_ctx_errmsg(ctx), "out of memory (300 bytes)");
    ca.fail_after = -1;
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* ---- where objects live changes no answer -------------------------------- */

#define SYS_GPUS 4
#define SYS_CUS 16
#define SYS_PAGES 4096
#define SYS_BASE 0x40000000ull

typedef struct sys_run {
    uint64_t answers, digest;
    size_t slab_bytes;
} sys_run;

static void on_answer(void *user, const xlat_resp *r)
{
    sys_run *run = user;
    const uint64_t fields[] = {r->id, r->completed, r->pfn, (uint64_t)r->status, r->resolver};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        run->digest = (run->digest ^ fields[i]) * 0x100000001B3ull;
    run->answers++;
}

/* 5,000 requests from every CU of a 4-GPU system, each offered once a
 * cycle until taken, with the chunks from the first object or never. */
static void run_system(size_t slab_after, sys_run *run)
{
    *run = (sys_run){.digest = 0xCBF29CE484222325ull};
    xlat_ctx *ctx = test_ctx(9, NULL);
    ctx->slab.after = slab_after;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    for (uint64_t p = 0; p < SYS_PAGES; p++)
        ck_assert_int_eq(xlat_pagetable_map(pt, 1, SYS_BASE + p * 4096, 0x10000 + p, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = SYS_GPUS;
    sc.cus = SYS_CUS;
    sc.iommu = &ic;
    xlat_system *sys;
    ck_assert_msg(xlat_system_create(ctx, &sc, &sys) == XLAT_OK, "%s", xlat_ctx_errmsg(ctx));
    uint64_t rng = 11, sent = 0;
    while (sent < 5000) {
        uint32_t cu = (uint32_t)(sent % (SYS_GPUS * SYS_CUS));
        xlat_req req = {.id = sent, .pasid = 1, .gpu = (uint16_t)(cu / SYS_CUS),
                        .cu = (uint16_t)(cu % SYS_CUS),
                        .vaddr = SYS_BASE + test_rand(&rng) % SYS_PAGES * 4096};
        int rc;
        while ((rc = xlat_system_translate(sys, &req, on_answer, run)) != XLAT_OK) {
            ck_assert_int_eq(rc, XLAT_ERR_AGAIN);
            ck_assert_int_eq(xlat_tick(ctx), XLAT_OK);
        }
        sent++;
        if (sent % SYS_GPUS == 0)
            ck_assert_int_eq(xlat_tick(ctx), XLAT_OK);
    }
    ck_assert_int_eq(xlat_advance(ctx, 100000000), XLAT_OK);
    run->slab_bytes = xlat__slab_bytes(ctx);
    xlat_system_destroy(sys);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
}

START_TEST(where_objects_live_changes_no_answer)
{
    sys_run host, chunks;
    run_system(SIZE_MAX, &host);
    run_system(0, &chunks);
    ck_assert_uint_eq(host.slab_bytes, 0);
    ck_assert_uint_gt(chunks.slab_bytes, 0);
    ck_assert_uint_eq(host.answers, 5000);
    ck_assert_uint_eq(chunks.answers, 5000);
    ck_assert_uint_eq(chunks.digest, host.digest);
}
END_TEST

Suite *slab_suite(void)
{
    Suite *s = suite_create("slab");
    TCase *tc = tcase_create("slab");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, below_the_threshold_every_object_is_the_hosts);
    tcase_add_test(tc, past_the_threshold_objects_are_carved_from_chunks);
    tcase_add_test(tc, chunks_double_up_to_32_mib);
    tcase_add_test(tc, a_freed_object_serves_the_next_of_its_class);
    tcase_add_test(tc, the_hosts_objects_stay_the_hosts);
    tcase_add_test(tc, a_chunk_that_cannot_be_had_leaves_the_object_to_the_host);
    tcase_add_test(tc, where_objects_live_changes_no_answer);
    suite_add_tcase(s, tc);
    return s;
}
