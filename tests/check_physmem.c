/* Physical memory: region checks, single frames (next fit), contiguous
 * aligned runs up to 1 GiB, take/free conflicts, every placement policy's
 * region choice, exhaustion, and the allocator against a brute-force model. */
#include <stdlib.h>

#include "newer_config.h"
#include "testutil.h"
#include "xlat/physmem.h"

static xlat_ctx *ctx;

static void setup(void) { ctx = test_ctx(5, NULL); }
static void teardown(void) { xlat_ctx_destroy(ctx); }

static xlat_physmem *make(const xlat_region_config *r, uint32_t n, xlat_placement pl,
                          uint64_t chunk)
{
    xlat_physmem_config c;
    xlat_physmem *m = NULL;
    xlat_physmem_config_init(&c);
    c.regions = n;
    c.region = r;
    c.placement = pl;
    c.chunk_pages = chunk;
    ck_assert_msg(xlat_physmem_create(ctx, &c, &m) == XLAT_OK, "%s", xlat_ctx_errmsg(ctx));
    return m;
}

static xlat_physmem *make_one(uint64_t base, uint64_t frames)
{
    xlat_region_config r = {base, frames};
    return make(&r, 1, XLAT_PLACE_LOCAL, 512);
}

static uint64_t alloc_ok(xlat_physmem *m, uint32_t region, uint64_t frames, uint64_t align)
{
    uint64_t pfn = UINT64_MAX;
    ck_assert_msg(xlat_physmem_alloc(m, region, frames, align, &pfn) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(ctx));
    return pfn;
}

START_TEST(defaults)
{
    xlat_physmem_config c;
    xlat_physmem_config_init(&c);
    ck_assert_uint_eq(c.struct_size, sizeof(c));
    ck_assert_uint_eq(c.regions, 1);
    ck_assert_ptr_null(c.region);
    ck_assert_int_eq(c.placement, XLAT_PLACE_LOCAL);
    ck_assert_uint_eq(c.chunk_pages, 512);
    xlat_physmem *m = NULL;
    ck_assert_int_eq(xlat_physmem_create(ctx, &c, &m), XLAT_OK);
    ck_assert_uint_eq(xlat_physmem_regions(m), 1);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), UINT64_C(1) << 20);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 1), 0);
    uint32_t r = 99;
    ck_assert_int_eq(xlat_physmem_region_of(m, 0x100, &r), XLAT_OK);
    ck_assert_uint_eq(r, 0);
    ck_assert_int_eq(xlat_physmem_region_of(m, 0x100 + (UINT64_C(1) << 20) - 1, &r), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_region_of(m, 0xff, &r), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_region_of(m, 0x100 + (UINT64_C(1) << 20), &r),
                     XLAT_ERR_NOT_FOUND);
    /* the bitmap is one bit per frame */
    ck_assert_uint_ge(xlat_physmem_memory(m), (UINT64_C(1) << 20) / 8);
    ck_assert_uint_lt(xlat_physmem_memory(m), (UINT64_C(1) << 20) / 8 + 16384);
    ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x100);
    xlat_physmem_destroy(m);
    xlat_physmem_destroy(NULL);
    ck_assert_uint_eq(xlat_physmem_regions(NULL), 0);
    ck_assert_uint_eq(xlat_physmem_free_frames(NULL, 0), 0);
    ck_assert_uint_eq(xlat_physmem_memory(NULL), 0);
}
END_TEST

START_TEST(single_frames_next_fit)
{
    xlat_physmem *m = make_one(0x1000, 100);
    for (uint64_t i = 0; i < 5; i++)
        ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x1000 + i);
    ck_assert_int_eq(xlat_physmem_free(m, 0x1001, 1), XLAT_OK);
    /* next fit: the search goes on from the last allocation */
    ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x1005);
    for (uint64_t i = 6; i < 100; i++)
        ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x1000 + i);
    /* then wraps around to the hole */
    ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x1001);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0);
    uint64_t pfn = 7;
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_uint_eq(pfn, 7);
    ck_assert_int_eq(xlat_physmem_free(m, 0x1063, 1), XLAT_OK);
    ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x1063);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(aligned_runs)
{
    xlat_physmem *m = make_one(0x100, 4096);
    ck_assert_uint_eq(alloc_ok(m, 0, 1, 1), 0x100);
    ck_assert_uint_eq(alloc_ok(m, 0, 512, 512), 0x200);
    ck_assert_uint_eq(alloc_ok(m, 0, 512, 512), 0x400);
    ck_assert_uint_eq(alloc_ok(m, 0, 3, 1), 0x101);
    ck_assert_uint_eq(alloc_ok(m, 0, 8, 8), 0x108);
    ck_assert_uint_eq(alloc_ok(m, 0, 200, 64), 0x600); /* 0x140..0x1ff holds only 192 */
    ck_assert_uint_eq(alloc_ok(m, 0, 192, 64), 0x140);
    /* 0x6c8..0x10ff is free: 2 MiB runs at 0x800, 0xa00, 0xc00, 0xe00 */
    for (uint64_t p = 0x800; p < 0x1000; p += 0x200)
        ck_assert_uint_eq(alloc_ok(m, 0, 512, 512), p);
    uint64_t pfn;
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 512, 512, &pfn), XLAT_ERR_FULL);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 4096 - 1 - 1024 - 3 - 8 - 200 - 192 - 2048);
    /* an unaligned run fills a gap below */
    ck_assert_uint_eq(alloc_ok(m, 0, 300, 1), 0x6c8);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(unaligned_region_base)
{
    xlat_physmem *m = make_one(0x123, 1024); /* [0x123, 0x523) */
    uint64_t pfn;
    ck_assert_uint_eq(alloc_ok(m, 0, 512, 512), 0x200);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 512, 512, &pfn), XLAT_ERR_FULL);
    ck_assert_uint_eq(alloc_ok(m, 0, 0xdd, 1), 0x123);
    ck_assert_uint_eq(alloc_ok(m, 0, 0x123, 1), 0x400);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(one_gib_runs)
{
    xlat_physmem *m = make_one(0, UINT64_C(1) << 20); /* 4 GiB */
    ck_assert_int_eq(xlat_physmem_take(m, 0x10, 1), XLAT_OK);
    ck_assert_uint_eq(alloc_ok(m, 0, 262144, 262144), 0x40000);
    ck_assert_uint_eq(alloc_ok(m, 0, 262144, 262144), 0x80000);
    ck_assert_uint_eq(alloc_ok(m, 0, 262144, 262144), 0xC0000);
    uint64_t pfn;
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 262144, 262144, &pfn), XLAT_ERR_FULL);
    /* the first gigabyte minus one frame still takes 511 2 MiB pages */
    for (uint64_t i = 1; i < 512; i++)
        ck_assert_uint_eq(alloc_ok(m, 0, 512, 512), i * 512);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 512, 512, &pfn), XLAT_ERR_FULL);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 511);
    ck_assert_int_eq(xlat_physmem_free(m, 0x80000, 262144), XLAT_OK);
    ck_assert_uint_eq(alloc_ok(m, 0, 262144, 262144), 0x80000);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(take_and_free)
{
    xlat_region_config r[3] = {{0x100, 0x100}, {0x200, 0x100}, {0x1000, 0x10}};
    xlat_physmem *m = make(r, 3, XLAT_PLACE_LOCAL, 512);
    ck_assert_int_eq(xlat_physmem_take(m, 0x105, 4), XLAT_OK);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0xfc);
    ck_assert_int_eq(xlat_physmem_take(m, 0x107, 2), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_physmem_take(m, 0x100, 6), XLAT_ERR_EXIST);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0xfc);
    /* a gap between regions: not found, nothing taken */
    ck_assert_int_eq(xlat_physmem_take(m, 0x2f0, 0x20), XLAT_ERR_NOT_FOUND);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 1), 0x100);
    ck_assert_int_eq(xlat_physmem_take(m, 0x50, 1), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_take(m, UINT64_MAX, 2), XLAT_ERR_NOT_FOUND);
    /* adjacent regions: one range may span both */
    ck_assert_int_eq(xlat_physmem_take(m, 0x1f0, 0x20), XLAT_OK);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0xec);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 1), 0xf0);
    /* free is all or nothing */
    ck_assert_int_eq(xlat_physmem_free(m, 0x107, 4), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_take(m, 0x107, 1), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_physmem_free(m, 0x1000, 1), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_free(m, 0x2ff, 2), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_free(m, 0x105, 4), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_free(m, 0x105, 1), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_physmem_free(m, 0x1f0, 0x20), XLAT_OK);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0x100);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 1), 0x100);
    /* allocation skips taken frames */
    ck_assert_int_eq(xlat_physmem_take(m, 0x1000, 1), XLAT_OK);
    ck_assert_uint_eq(alloc_ok(m, 2, 1, 1), 0x1001);
    ck_assert_uint_eq(alloc_ok(m, 2, 2, 2), 0x1002);
    xlat_physmem_destroy(m);
}
END_TEST

static uint32_t placed_region(xlat_physmem *m, uint64_t vpn, uint32_t requester, uint64_t frames)
{
    uint64_t pfn;
    uint32_t region = 99;
    ck_assert_msg(xlat_physmem_place(m, vpn, requester, frames, &pfn) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(ctx));
    ck_assert_uint_eq(pfn % frames, 0);
    ck_assert_int_eq(xlat_physmem_region_of(m, pfn, &region), XLAT_OK);
    return region;
}

static const xlat_region_config four[4] = {
    {0x100000, 0x10000}, {0x200000, 0x10000}, {0x300000, 0x10000}, {0x400000, 0x10000}};

START_TEST(place_round_robin)
{
    xlat_physmem *m = make(four, 4, XLAT_PLACE_ROUND_ROBIN, 512);
    for (uint64_t vpn = 0; vpn < 12; vpn++)
        ck_assert_uint_eq(placed_region(m, vpn, 3, 1), vpn % 4);
    ck_assert_uint_eq(placed_region(m, 0x7AA8C5289, 0, 1), 1);
    ck_assert_uint_eq(placed_region(m, 6, 0, 512), 2); /* a 2 MiB page, vpn in 2 MiB units */
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(place_chunked)
{
    xlat_physmem *m = make(four, 4, XLAT_PLACE_CHUNKED, 3);
    static const uint32_t want[14] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0};
    for (uint64_t vpn = 0; vpn < 14; vpn++)
        ck_assert_uint_eq(placed_region(m, vpn, 2, 1), want[vpn]);
    ck_assert_uint_eq(placed_region(m, 3 * 4 * 1000 + 7, 0, 1), 2);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(place_local)
{
    xlat_physmem *m = make(four, 4, XLAT_PLACE_LOCAL, 512);
    for (uint32_t req = 0; req < 4; req++)
        for (uint64_t vpn = 0; vpn < 5; vpn++)
            ck_assert_uint_eq(placed_region(m, vpn * 7 + req, req, 1), req);
    /* pages of each region are handed out in order */
    uint64_t pfn;
    ck_assert_int_eq(xlat_physmem_place(m, 0, 2, 1, &pfn), XLAT_OK);
    ck_assert_uint_eq(pfn, 0x300005);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 2, 512, &pfn), XLAT_OK);
    ck_assert_uint_eq(pfn, 0x300200);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 1, 262144, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 4, 1, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 0, 3, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 0, 0, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_place(m, 0, 0, 1, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_place(NULL, 0, 0, 1, &pfn), XLAT_ERR_INVAL);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(exhaustion)
{
    xlat_region_config r[2] = {{0x10, 8}, {0x20, 8}};
    xlat_physmem *m = make(r, 2, XLAT_PLACE_ROUND_ROBIN, 512);
    uint64_t pfn;
    for (uint64_t vpn = 0; vpn < 16; vpn++)
        ck_assert_int_eq(xlat_physmem_place(m, vpn, 0, 1, &pfn), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_place(m, 16, 0, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_place(m, 17, 0, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_free(m, 0x23, 1), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_place(m, 16, 0, 1, &pfn), XLAT_ERR_FULL); /* region 0 */
    ck_assert_int_eq(xlat_physmem_place(m, 17, 0, 1, &pfn), XLAT_OK);
    ck_assert_uint_eq(pfn, 0x23);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0) + xlat_physmem_free_frames(m, 1), 0);
    xlat_physmem_destroy(m);
}
END_TEST

static int create_rc(const xlat_region_config *r, uint32_t n, int placement, uint64_t chunk)
{
    xlat_physmem_config c;
    xlat_physmem *m = (xlat_physmem *)&c; /* must stay untouched on failure */
    xlat_physmem_config_init(&c);
    c.regions = n;
    c.region = r;
    c.placement = (xlat_placement)placement;
    c.chunk_pages = chunk;
    int rc = xlat_physmem_create(ctx, &c, &m);
    if (rc == XLAT_OK)
        xlat_physmem_destroy(m);
    else
        ck_assert_ptr_eq(m, (xlat_physmem *)&c);
    return rc;
}

START_TEST(config_errors)
{
    xlat_region_config r[65];
    for (int i = 0; i < 65; i++)
        r[i] = (xlat_region_config){UINT64_C(0x1000) * (uint64_t)i, 0x1000};
    ck_assert_int_eq(create_rc(r, 64, 0, 1), XLAT_OK);
    ck_assert_int_eq(create_rc(r, 65, 0, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(r, 0, 0, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(NULL, 2, 0, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(NULL, 1, 0, 1), XLAT_OK);
    ck_assert_int_eq(create_rc(r, 2, 3, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(r, 2, -1, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(r, 2, XLAT_PLACE_CHUNKED, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(r, 2, XLAT_PLACE_ROUND_ROBIN, 0), XLAT_OK);

    xlat_region_config bad[2] = {{0x100, 0x100}, {0x1ff, 0x10}};
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "overlap"));
    bad[1] = (xlat_region_config){0x50, 0xb1}; /* ends inside region 0, listed after it */
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "overlap"));
    bad[1] = (xlat_region_config){0x50, 0xb0}; /* ends where region 0 starts: fine */
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_OK);
    bad[1] = (xlat_region_config){0x200, 0};
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);
    bad[1] = (xlat_region_config){UINT64_C(1) << 40, 1};
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);
    bad[1] = (xlat_region_config){(UINT64_C(1) << 40) - 1, 2};
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);
    bad[1] = (xlat_region_config){UINT64_MAX, UINT64_MAX};
    ck_assert_int_eq(create_rc(bad, 2, 0, 1), XLAT_ERR_INVAL);

    xlat_physmem_config c;
    xlat_physmem *m = NULL;
    xlat_physmem_config_init(&c);
    ck_assert_int_eq(xlat_physmem_create(NULL, &c, &m), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_create(ctx, NULL, &m), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_create(ctx, &c, NULL), XLAT_ERR_INVAL);
    c.struct_size = 4;
    ck_assert_int_eq(xlat_physmem_create(ctx, &c, &m), XLAT_ERR_INVAL);
    XLAT_TEST_NEWER(xlat_physmem_config) newer = {.cfg = c};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_physmem_create(ctx, &newer.cfg, &m), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(call_errors)
{
    xlat_physmem *m = make_one(0x100, 64);
    uint64_t pfn = 5;
    uint32_t region;
    ck_assert_int_eq(xlat_physmem_alloc(m, 1, 1, 1, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 0, 1, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, 0, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, 3, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, 1, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(NULL, 0, 1, 1, &pfn), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 65, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, 1, UINT64_C(1) << 63, &pfn), XLAT_ERR_FULL);
    ck_assert_int_eq(xlat_physmem_alloc(m, 0, UINT64_MAX, 1, &pfn), XLAT_ERR_FULL);
    ck_assert_uint_eq(pfn, 5);
    ck_assert_int_eq(xlat_physmem_take(m, 0x100, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_take(NULL, 0x100, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_free(m, 0x100, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_free(NULL, 0x100, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_region_of(NULL, 0x100, &region), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_physmem_region_of(m, 0x100, NULL), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 64);
    /* the whole region in one run, from a bitmap of exactly one word */
    ck_assert_uint_eq(alloc_ok(m, 0, 64, 64), 0x100);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(create_nomem)
{
    xlat_region_config r[3] = {{0, 5000}, {0x10000, 70000}, {0x100000, 1}};
    for (long k = 0;; k++) {
        counting_alloc ca;
        counting_alloc_init(&ca);
        xlat_ctx *c = test_ctx(1, &ca);
        size_t base = ca.live_bytes;
        ca.fail_after = k;
        xlat_physmem_config pc;
        xlat_physmem *m = NULL;
        xlat_physmem_config_init(&pc);
        pc.regions = 3;
        pc.region = r;
        int rc = xlat_physmem_create(c, &pc, &m);
        if (rc == XLAT_OK) {
            ck_assert_int_gt(k, 3);
            ck_assert_uint_eq(xlat_physmem_free_frames(m, 1), 70000);
            xlat_physmem_destroy(m);
            ck_assert_uint_eq(ca.live_bytes, base);
            xlat_ctx_destroy(c);
            break;
        }
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_null(m);
        ck_assert_uint_eq(ca.live_bytes, base);
        xlat_ctx_destroy(c);
    }
}
END_TEST

/* ---- the allocator against a brute-force model ------------------------ */

struct model {
    uint64_t base, frames, cursor, free;
    unsigned char *used;
};

static int model_free_run(const struct model *md, uint64_t i, uint64_t n)
{
    for (uint64_t k = i; k < i + n; k++)
        if (md->used[k])
            return 0;
    return 1;
}

/* First fit for runs, next fit for single frames: the documented policy. */
static uint64_t model_alloc(struct model *md, uint64_t n, uint64_t align)
{
    if (n == 1 && align == 1) {
        for (uint64_t k = 0; k < md->frames; k++) {
            uint64_t i = (md->cursor + k) % md->frames;
            if (!md->used[i]) {
                md->cursor = (i + 1) % md->frames;
                md->used[i] = 1;
                md->free--;
                return md->base + i;
            }
        }
        return UINT64_MAX;
    }
    for (uint64_t i = 0; i + n <= md->frames; i++)
        if ((md->base + i) % align == 0 && model_free_run(md, i, n)) {
            memset(md->used + i, 1, n);
            md->free -= n;
            return md->base + i;
        }
    return UINT64_MAX;
}

static int model_range(struct model *md, uint64_t pfn, uint64_t n, int take)
{
    if (pfn < md->base || pfn + n > md->base + md->frames)
        return XLAT_ERR_NOT_FOUND;
    for (uint64_t k = pfn - md->base; k < pfn - md->base + n; k++)
        if (md->used[k] != !take)
            return take ? XLAT_ERR_EXIST : XLAT_ERR_NOT_FOUND;
    memset(md->used + (pfn - md->base), take, n);
    md->free = take ? md->free - n : md->free + n;
    return XLAT_OK;
}

/* Runs handed out so far, so that frees mostly hit allocated frames. */
struct runs {
    uint64_t pfn[256], n[256];
};

static void random_op(xlat_physmem *m, struct model *md, struct runs *rs, uint64_t *st)
{
    static const uint64_t aligns[] = {1, 1, 2, 8, 64, 128, 512};
    uint64_t r = test_rand(st), pfn = 0, slot = (r >> 40) % 256;
    uint64_t n = r % 4 == 0 ? 1 + (r >> 8) % 700 : 1 + (r >> 8) % 4;
    uint64_t align = aligns[(r >> 20) % 7];
    uint64_t at = md->base + (r >> 32) % md->frames;
    switch ((r >> 4) % 8) {
    case 0:
    case 1:
    case 2: {
        uint64_t want = model_alloc(md, n, align);
        int rc = xlat_physmem_alloc(m, 0, n, align, &pfn);
        ck_assert_int_eq(rc, want == UINT64_MAX ? XLAT_ERR_FULL : XLAT_OK);
        if (rc == XLAT_OK) {
            ck_assert_uint_eq(pfn, want);
            rs->pfn[slot] = pfn;
            rs->n[slot] = n;
        }
        break;
    }
    case 3:
    case 4:
        if (rs->n[slot])
            ck_assert_int_eq(xlat_physmem_free(m, rs->pfn[slot], rs->n[slot]),
                             model_range(md, rs->pfn[slot], rs->n[slot], 0));
        rs->n[slot] = 0;
        break;
    case 5:
        ck_assert_int_eq(xlat_physmem_free(m, at, n), model_range(md, at, n, 0));
        break;
    default: {
        int rc = model_range(md, at, n, 1);
        ck_assert_int_eq(xlat_physmem_take(m, at, n), rc);
        if (rc == XLAT_OK) {
            rs->pfn[slot] = at;
            rs->n[slot] = n;
        }
    }
    }
}

START_TEST(matches_model)
{
    /* an odd base and a size that is no multiple of 64: partial words at both ends */
    struct model md = {0x37, 20000 + 13, 0, 20000 + 13, NULL};
    md.used = calloc(md.frames, 1);
    xlat_physmem *m = make_one(md.base, md.frames);
    static struct runs rs;
    uint64_t st = 42;
    for (int i = 0; i < 40000; i++) {
        for (int k = 0; i % 4000 == 3999 && k < 256; k++) /* drain now and then */
            if (rs.n[k])
                ck_assert_int_eq(xlat_physmem_free(m, rs.pfn[k], rs.n[k]),
                                 model_range(&md, rs.pfn[k], rs.n[k], 0));
        random_op(m, &md, &rs, &st);
        ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), md.free);
    }
    free(md.used);
    xlat_physmem_destroy(m);
}
END_TEST

Suite *physmem_suite(void)
{
    Suite *s = suite_create("physmem");
    TCase *tc = test_case(s, "alloc");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, single_frames_next_fit);
    tcase_add_test(tc, aligned_runs);
    tcase_add_test(tc, unaligned_region_base);
    tcase_add_test(tc, one_gib_runs);
    tcase_add_test(tc, take_and_free);
    tcase_add_test(tc, exhaustion);
    tcase_add_test(tc, matches_model);
    tc = test_case(s, "placement");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, place_round_robin);
    tcase_add_test(tc, place_chunked);
    tcase_add_test(tc, place_local);
    tc = test_case(s, "errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, config_errors);
    tcase_add_test(tc, call_errors);
    tcase_add_test(tc, create_nomem);
    return s;
}
