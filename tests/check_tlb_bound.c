/* A TLB's way bound (way_bound in lib/tlb/tlb_internal.h): no set holds a
 * valid way at or above it, so a scan of a set without tags stops there
 * and a cold TLB reads only the ways it has filled. Checked from inside:
 * the bound covers every valid way after each insert, invalidation and
 * flush, a fill still takes its set's lowest invalid way, and a flush
 * starts the bound again. What the TLB answers with the bound is checked
 * against the reference model in check_tlb_model.c. */
#include "testutil.h"

#include "../lib/tlb/tlb_internal.h"

static xlat_tlb *bound_tlb(xlat_ctx *ctx, uint32_t entries, uint32_t ways, xlat_repl repl)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.repl = repl;
    xlat_tlb *t = NULL;
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, &t), XLAT_OK);
    return t;
}

/* Every way at or above the bound is invalid, in every set. */
static void assert_bound_covers(const xlat_tlb *t)
{
    ck_assert_uint_le(t->way_bound, t->ways);
    for (uint32_t set = 0; set < t->sets; set++)
        for (uint32_t w = t->way_bound; w < t->ways; w++)
            ck_assert_msg(t->way[(size_t)set * t->ways + w].page_shift == 0,
                          "set %u way %u is valid above the bound %u", set, w, t->way_bound);
}

/* The lowest invalid way of `set`, or `ways` when it is full, by reading
 * every way. */
static uint32_t lowest_invalid(const xlat_tlb *t, uint32_t set)
{
    for (uint32_t w = 0; w < t->ways; w++)
        if (t->way[(size_t)set * t->ways + w].page_shift == 0)
            return w;
    return t->ways;
}

/* Whether `set` holds (pasid, vpn, shift), by reading every way. */
static bool holds(const xlat_tlb *t, uint32_t set, uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    for (uint32_t w = 0; w < t->ways; w++) {
        const struct tlb_way *way = &t->way[(size_t)set * t->ways + w];
        if (way->page_shift == shift && way->vpn == vpn && way->pasid == pasid)
            return true;
    }
    return false;
}

static xlat_tlb_entry page(uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    return (xlat_tlb_entry){.pasid = pasid, .vpn = vpn, .pfn = vpn + 0x100, .page_shift = shift,
                            .perm = XLAT_PERM_R};
}

static const struct {
    uint32_t entries, ways;
    xlat_repl repl;
} bound_shapes[] = {
    {16, 16, XLAT_REPL_LRU},   {96, 8, XLAT_REPL_LRU},     {64, 16, XLAT_REPL_FIFO},
    {32, 16, XLAT_REPL_PLRU},  {48, 12, XLAT_REPL_RANDOM}, {8, 4, XLAT_REPL_LRU},
    {256, 32, XLAT_REPL_LRU},
};

/* Random inserts (two page sizes, evicting once sets fill), invalidations
 * of an address or a whole address space, and rare flushes: after each,
 * the bound covers every valid way; a fill that evicts nothing lands in
 * the way that was its set's lowest invalid one; a flush sets it to 0. */
START_TEST(bound_covers_every_valid_way)
{
    xlat_ctx *ctx = test_ctx(11, NULL);
    xlat_tlb *t = bound_tlb(ctx, bound_shapes[_i].entries, bound_shapes[_i].ways,
                            bound_shapes[_i].repl);
    uint64_t s = 0xB0D + (uint64_t)_i;
    uint32_t flushes = 0;
    ck_assert_uint_eq(t->way_bound, 0);
    for (int k = 0; k < 20000; k++) {
        uint32_t pasid = (uint32_t)(test_rand(&s) % 3);
        uint8_t shift = test_rand(&s) % 8 ? 12 : 21;
        uint64_t vpn = test_rand(&s) % (3ull * bound_shapes[_i].entries);
        switch (test_rand(&s) % 8) {
        case 0: case 1: case 2: case 3: {
            xlat_tlb_entry e = page(pasid, vpn, shift);
            uint32_t set = xlat__tlb_set_of(t, vpn);
            bool present = holds(t, set, pasid, vpn, shift);
            uint32_t hole = lowest_invalid(t, set);
            int evicted = xlat_tlb_insert(t, &e, NULL);
            ck_assert_int_ge(evicted, 0);
            if (!present && !evicted) {
                ck_assert_uint_lt(hole, t->ways);
                const struct tlb_way *w = &t->way[(size_t)set * t->ways + hole];
                ck_assert_uint_eq(w->vpn, vpn);
                ck_assert_uint_eq(w->page_shift, shift);
                ck_assert_uint_eq(w->pasid, pasid);
            }
            break;
        }
        case 4: case 5:
            xlat_tlb_invalidate(t, pasid, vpn << 12);
            break;
        case 6:
            if (test_rand(&s) % 32 == 0)
                xlat_tlb_invalidate_pasid(t, pasid);
            break;
        default:
            if (test_rand(&s) % 256 == 0) {
                xlat_tlb_flush(t);
                ck_assert_uint_eq(t->way_bound, 0);
                flushes++;
            }
        }
        assert_bound_covers(t);
    }
    ck_assert_uint_gt(flushes, 0);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* A 16-way fully associative TLB (scanned, no tags): five fills take ways
 * 0 to 4; the holes two invalidations leave are filled lowest first, and
 * only then does the bound grow; every entry below it is found. */
START_TEST(holes_fill_before_the_bound_grows)
{
    xlat_ctx *ctx = test_ctx(12, NULL);
    xlat_tlb *t = bound_tlb(ctx, 16, 16, XLAT_REPL_LRU);
    for (uint64_t v = 1; v <= 5; v++) {
        xlat_tlb_entry e = page(1, v, 12);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
        ck_assert_uint_eq(t->way_bound, v);
        ck_assert_uint_eq(t->way[v - 1].vpn, v);
    }
    ck_assert_int_eq(xlat_tlb_invalidate(t, 1, 4 << 12), 1); /* way 3 */
    ck_assert_int_eq(xlat_tlb_invalidate(t, 1, 2 << 12), 1); /* way 1 */
    ck_assert_uint_eq(t->way_bound, 5);
    static const struct {
        uint64_t vpn;
        uint32_t way, bound;
    } fills[] = {{10, 1, 5}, {11, 3, 5}, {12, 5, 6}};
    for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
        xlat_tlb_entry e = page(1, fills[i].vpn, 12);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
        ck_assert_uint_eq(t->way[fills[i].way].vpn, fills[i].vpn);
        ck_assert_uint_eq(t->way_bound, fills[i].bound);
    }
    static const uint64_t held[] = {1, 3, 5, 10, 11, 12};
    for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
        ck_assert_int_eq(xlat_tlb_lookup(t, 1, held[i] << 12, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_lookup(t, 1, 2 << 12, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_flush(t), 6);
    ck_assert_uint_eq(t->way_bound, 0);
    xlat_tlb_entry e = page(2, 7, 21);
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    ck_assert_uint_eq(t->way_bound, 1);
    ck_assert_uint_eq(t->way[0].vpn, 7);
    ck_assert_int_eq(xlat_tlb_lookup(t, 2, 7ull << 21, NULL), XLAT_OK);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* An unbounded TLB re-places every entry as it grows: the new table's
 * bound covers them all, and every entry is found after each doubling. */
START_TEST(a_grown_table_is_bounded)
{
    xlat_ctx *ctx = test_ctx(13, NULL);
    xlat_tlb *t = bound_tlb(ctx, 0, 1, XLAT_REPL_LRU);
    uint32_t sets = t->sets, doublings = 0;
    for (uint64_t v = 0; v < 6000; v++) {
        xlat_tlb_entry e = page((uint32_t)(v % 2), v * 7919, 12);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
        if (t->sets != sets) {
            sets = t->sets;
            doublings++;
            assert_bound_covers(t);
            for (uint64_t u = 0; u <= v; u++)
                ck_assert_int_eq(xlat_tlb_probe(t, (uint32_t)(u % 2), u * 7919 << 12, NULL),
                                 XLAT_OK);
        }
    }
    ck_assert_uint_gt(doublings, 1);
    assert_bound_covers(t);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *tlb_bound_suite(void)
{
    Suite *s = suite_create("tlb_bound");
    TCase *tc = test_case(s, "bound");
    tcase_add_loop_test(tc, bound_covers_every_valid_way, 0,
                        (int)(sizeof(bound_shapes) / sizeof(bound_shapes[0])));
    tcase_add_test(tc, holes_fill_before_the_bound_grows);
    tcase_add_test(tc, a_grown_table_is_bounded);
    return s;
}
