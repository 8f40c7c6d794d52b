/* The way tags of wide sets (lib/tlb/tlb_tag.h): the row compares against
 * a plain byte loop, the portable form against the SSE2 one, the memory
 * they take, and an unbounded TLB that grows (and so moves its tags) many
 * times. The TLB's answers with tags are checked against the reference
 * model in check_tlb_model.c (its wide shapes). */
#include "testutil.h"

#include "../lib/tlb/tlb_tag.h"

/* Bit i set when row[i] == tag: what the row compares must equal. */
static uint64_t plain_match(const uint8_t *row, uint32_t n, uint8_t tag)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m |= (uint64_t)(row[i] == tag) << i;
    return m;
}

/* Rows over a small alphabet, so that equal bytes sit side by side, and
 * bytes one away from the tag beside them (where a borrow or a carry
 * between bytes would flag a byte too many). */
static void random_row(uint64_t *s, uint8_t *row, uint8_t tag)
{
    static const uint8_t alphabet[] = {0, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff};
    for (int i = 0; i < 64; i++) {
        uint8_t near = (uint8_t)(tag ^ (1u << test_rand(s) % 8));
        switch (test_rand(s) % 4) {
        case 0: row[i] = tag; break;
        case 1: row[i] = near; break;
        default: row[i] = alphabet[test_rand(s) % 8];
        }
    }
}

/* Calls `check` on 20,000 random rows and tags, a quarter of them 0 (an
 * empty way's, what an insert looks for). */
static void over_random_rows(uint64_t seed, void (*check)(const uint8_t *row, uint8_t tag))
{
    uint8_t row[64];
    for (int k = 0; k < 20000; k++) {
        uint8_t tag = k % 4 == 0 ? 0 : (uint8_t)test_rand(&seed);
        random_row(&seed, row, tag);
        check(row, tag);
    }
}

static void check_exact(const uint8_t *row, uint8_t tag)
{
    for (uint32_t n = 16; n <= 64; n += 16) {
        uint64_t want = plain_match(row, n, tag);
        ck_assert_uint_eq(xlat__tlb_tag_match(row, n, tag), want);
        ck_assert_uint_eq(xlat__tlb_tag_match_row(row, n, tag), want);
    }
}

START_TEST(row_compares_are_exact)
{
    over_random_rows(7, check_exact);
}
END_TEST

/* The portable form (hosts without SSE2), for every row length. */
static void check_portable(const uint8_t *row, uint8_t tag)
{
    for (uint32_t n = 8; n <= 64; n += 8)
        ck_assert_uint_eq(xlat__tlb_tag_match_swar(row, n, tag), plain_match(row, n, tag));
}

START_TEST(portable_compare_is_exact)
{
    over_random_rows(11, check_portable);
}
END_TEST

START_TEST(tags_are_never_zero)
{
    /* A page number whose hash has a zero top byte still gets a tag. */
    uint64_t vpn = 0;
    while ((vpn * UINT64_C(0x9E3779B97F4A7C15)) >> 56 != 0)
        vpn++;
    ck_assert_uint_eq(xlat__tlb_tag(vpn), 1);
    uint64_t s = 3;
    for (int k = 0; k < 100000; k++)
        ck_assert_uint_ne(xlat__tlb_tag(test_rand(&s)), 0);
}
END_TEST

START_TEST(only_wide_sets_have_tags)
{
    ck_assert_uint_eq(xlat__tlb_tag_stride(1), 0);
    ck_assert_uint_eq(xlat__tlb_tag_stride(XLAT_TLB_TAG_MIN_WAYS - 1), 0);
    ck_assert_uint_eq(xlat__tlb_tag_stride(XLAT_TLB_TAG_MIN_WAYS),
                      (XLAT_TLB_TAG_MIN_WAYS + 15) / 16 * 16);
    ck_assert_uint_eq(xlat__tlb_tag_stride(32), 32);
    ck_assert_uint_eq(xlat__tlb_tag_stride(33), 48);
    ck_assert_uint_eq(xlat__tlb_tag_stride(64), 64);
    ck_assert_uint_eq(xlat__tlb_tag_stride(100), 112);
}
END_TEST

static xlat_tlb *make_tlb(xlat_ctx *ctx, uint32_t entries, uint32_t ways)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    xlat_tlb *t = NULL;
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, &t), XLAT_OK);
    return t;
}

/* A set of 32 ways carries a row of 32 tag bytes; a 4-way set none. The
 * two TLBs below differ in nothing else (one LRU stamp a way either way). */
START_TEST(tag_rows_are_counted)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_tlb *narrow = make_tlb(ctx, 64, 4), *wide = make_tlb(ctx, 64, 32);
    ck_assert_uint_eq(xlat_tlb_memory(wide) - xlat_tlb_memory(narrow), 2 * 32);
    xlat_tlb *odd = make_tlb(ctx, 3 * 20, 20); /* rows of 32 bytes, 12 of them padding */
    xlat_tlb *narrow_odd = make_tlb(ctx, 3 * 20, 4);
    ck_assert_uint_eq(xlat_tlb_memory(odd) - xlat_tlb_memory(narrow_odd), 3 * 32);
    xlat_tlb_destroy(narrow);
    xlat_tlb_destroy(wide);
    xlat_tlb_destroy(odd);
    xlat_tlb_destroy(narrow_odd);
    xlat_ctx_destroy(ctx);
}
END_TEST

#define GROWN_PAGES 20000

static xlat_tlb_entry grown_entry(uint64_t i)
{
    uint8_t shift = i % 5 ? 12 : 21;
    /* Page numbers spread over 2^40, so tags collide among them. */
    uint64_t vpn = (i * UINT64_C(0x9E3779B97F4A7C15)) >> (24 + (shift - 12));
    return (xlat_tlb_entry){.pasid = (uint32_t)(i % 4), .vpn = vpn, .pfn = i + 1,
                            .page_shift = shift, .perm = XLAT_PERM_R};
}

/* An unbounded TLB (32 ways a set, so tagged) grows from 16 sets as it
 * fills: every entry is found after each doubling moved it, an
 * invalidation leaves nothing stale, and every other entry survives. */
START_TEST(unbounded_tlb_keeps_its_tags_as_it_grows)
{
    xlat_ctx *ctx = test_ctx(2, NULL);
    xlat_tlb *t = make_tlb(ctx, 0, 1);
    size_t before = xlat_tlb_memory(t);
    for (uint64_t i = 0; i < GROWN_PAGES; i++) {
        xlat_tlb_entry e = grown_entry(i);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    }
    ck_assert_uint_gt(xlat_tlb_memory(t), before);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.inserts, GROWN_PAGES);
    ck_assert_uint_eq(st.evictions, 0);
    for (uint64_t i = 0; i < GROWN_PAGES; i++) {
        xlat_tlb_entry e = grown_entry(i), got;
        ck_assert_int_eq(xlat_tlb_probe(t, e.pasid, e.vpn << e.page_shift, &got), XLAT_OK);
        ck_assert_uint_eq(got.pfn, e.pfn);
    }
    for (uint64_t i = 0; i < GROWN_PAGES; i += 2) {
        xlat_tlb_entry e = grown_entry(i);
        ck_assert_int_eq(xlat_tlb_invalidate(t, e.pasid, e.vpn << e.page_shift), 1);
    }
    for (uint64_t i = 0; i < GROWN_PAGES; i++) {
        xlat_tlb_entry e = grown_entry(i);
        int rc = xlat_tlb_probe(t, e.pasid, e.vpn << e.page_shift, NULL);
        ck_assert_int_eq(rc, i % 2 ? XLAT_OK : XLAT_ERR_NOT_FOUND);
    }
    /* The ways the invalidations emptied are found free again. */
    for (uint64_t i = 0; i < GROWN_PAGES; i += 2) {
        xlat_tlb_entry e = grown_entry(i);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    }
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.evictions, 0);
    ck_assert_int_eq(xlat_tlb_flush(t), GROWN_PAGES);
    xlat_tlb_entry e = grown_entry(1);
    ck_assert_int_eq(xlat_tlb_probe(t, e.pasid, e.vpn << e.page_shift, NULL), XLAT_ERR_NOT_FOUND);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *tlb_tag_suite(void)
{
    Suite *s = suite_create("tlb_tag");
    TCase *tc = test_case(s, "tags");
    tcase_add_test(tc, row_compares_are_exact);
    tcase_add_test(tc, portable_compare_is_exact);
    tcase_add_test(tc, tags_are_never_zero);
    tcase_add_test(tc, only_wide_sets_have_tags);
    tcase_add_test(tc, tag_rows_are_counted);
    tcase_add_test(tc, unbounded_tlb_keeps_its_tags_as_it_grows);
    return s;
}
