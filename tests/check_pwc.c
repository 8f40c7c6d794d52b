/* Page walk caches: which level a lookup hits (exactly: ChampSim's PSCs were
 * off by one level for years), per-level and unified capacity under LRU,
 * PASID isolation, invalidation, statistics and every error path. */
#include "newer_config.h"
#include "testutil.h"
#include "xlat/pwc.h"
#include "xlat/tlb.h"

static xlat_ctx *ctx;

static void setup(void) { ctx = test_ctx(17, NULL); }
static void teardown(void) { xlat_ctx_destroy(ctx); }

/* x86-64 geometry: a level-k entry covers 2^(12 + 9 (k - 1)) bytes. */
#define L2 21
#define L3 30
#define L4 39

/* An address with distinct indices at every level (5, 7, 9) and an offset. */
static const uint64_t VA = (5ull << L4) | (7ull << L3) | (9ull << L2) | 0x1234;

static const xlat_pwc_org orgs[] = {XLAT_PWC_PER_LEVEL, XLAT_PWC_UNIFIED};

static xlat_pwc_config config(xlat_pwc_org org)
{
    xlat_pwc_config c;
    xlat_pwc_config_init(&c);
    c.org = org;
    return c;
}

static xlat_pwc *make(const xlat_pwc_config *c)
{
    xlat_pwc *p = NULL;
    ck_assert_msg(xlat_pwc_create(ctx, c, &p) == XLAT_OK, "%s", xlat_ctx_errmsg(ctx));
    return p;
}

static uint32_t shift_of(uint32_t bits, uint32_t level) { return 12 + bits * (level - 1); }

/* The level of the deepest hit, or 0 on a miss; with `touch` through
 * lookup, else probe. Every hit must leave exactly level - 1 reads. */
static uint32_t hit(xlat_pwc *p, int touch, uint32_t pasid, uint64_t va, uint64_t *pfn)
{
    xlat_pwc_hit h = {0};
    int rc = touch ? xlat_pwc_lookup(p, pasid, va, &h) : xlat_pwc_probe(p, pasid, va, &h);
    if (rc == XLAT_ERR_NOT_FOUND)
        return 0;
    ck_assert_int_eq(rc, XLAT_OK);
    ck_assert_uint_ge(h.level, 2);
    ck_assert_uint_eq(h.next_level, h.level - 1);
    if (pfn)
        *pfn = h.node_pfn;
    return h.level;
}

static uint32_t lookup(xlat_pwc *p, uint32_t pasid, uint64_t va, uint64_t *pfn)
{
    return hit(p, 1, pasid, va, pfn);
}

static uint32_t probe(xlat_pwc *p, uint32_t pasid, uint64_t va, uint64_t *pfn)
{
    return hit(p, 0, pasid, va, pfn);
}

static void fill(xlat_pwc *p, uint32_t pasid, uint64_t va, uint32_t level, uint64_t pfn)
{
    ck_assert_msg(xlat_pwc_fill(p, pasid, va, level, pfn) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(ctx));
}

/* What a walk of `va` leaves behind: levels `top`..2, node frame base + level. */
static void fill_walk(xlat_pwc *p, uint32_t pasid, uint64_t va, uint32_t top, uint64_t base)
{
    for (uint32_t k = top; k >= 2; k--)
        fill(p, pasid, va, k, base + k);
}

static xlat_pwc_stats stats(const xlat_pwc *p)
{
    xlat_pwc_stats st;
    xlat_pwc_stats_get(p, &st, sizeof(st));
    return st;
}

START_TEST(per_level_deepest_hit_then_fallback)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[2] = c.entries[3] = c.entries[4] = 1; /* the next fill of a level evicts */
    xlat_pwc *p = make(&c);
    uint64_t pfn = 0;
    fill_walk(p, 1, VA, 4, 0x100);
    ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 2); /* one read left: the leaf */
    ck_assert_uint_eq(pfn, 0x102);
    fill(p, 1, VA + (1ull << L2), 2, 0x202);      /* same level-3 prefix, new level 2 */
    ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 3); /* two reads left */
    ck_assert_uint_eq(pfn, 0x103);
    ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L2), &pfn), 2);
    ck_assert_uint_eq(pfn, 0x202);
    fill(p, 1, VA + (1ull << L3), 3, 0x303);
    ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 4); /* three reads left */
    ck_assert_uint_eq(pfn, 0x104);
    fill(p, 1, VA + (1ull << L4), 4, 0x404);
    ck_assert_uint_eq(lookup(p, 1, VA, NULL), 0); /* a full walk */
    xlat_pwc_stats st = stats(p);
    ck_assert_uint_eq(st.lookups, 5);
    ck_assert_uint_eq(st.misses, 1);
    const uint64_t want[8] = {0, 0, 2, 1, 1, 0, 0, 0};
    for (int k = 0; k < 8; k++)
        ck_assert_uint_eq(st.hits[k], want[k]);
    ck_assert_uint_eq(st.fills, 6);
    ck_assert_uint_eq(st.evictions, 3);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(prefixes_select_the_level)
{
    for (size_t o = 0; o < 2; o++) {
        xlat_pwc_config c = config(orgs[o]);
        xlat_pwc *p = make(&c);
        uint64_t pfn = 0;
        fill_walk(p, 1, VA, 4, 0x100);
        ck_assert_uint_eq(lookup(p, 1, VA ^ 0x1fffff, &pfn), 2); /* same 2 MiB */
        ck_assert_uint_eq(pfn, 0x102);
        /* Shares the level-3 prefix only: the level-2 node is known. */
        ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L2), &pfn), 3);
        ck_assert_uint_eq(pfn, 0x103);
        ck_assert_uint_eq(lookup(p, 1, VA - (1ull << L2), &pfn), 3);
        ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L3), &pfn), 4);
        ck_assert_uint_eq(pfn, 0x104);
        ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L4), NULL), 0);
        xlat_pwc_stats st = stats(p);
        ck_assert_uint_eq(st.hits[2], 1);
        ck_assert_uint_eq(st.hits[3], 2);
        ck_assert_uint_eq(st.hits[4], 1);
        ck_assert_uint_eq(st.misses, 1);
        xlat_pwc_destroy(p);
    }
}
END_TEST

/* Fills only level k and checks that its tag is exactly va >> level_shift(k):
 * every address of the region hits, the bytes either side do not. */
static void check_level_tag(xlat_pwc_org org, uint32_t levels, uint32_t bits, uint32_t k)
{
    xlat_pwc_config c = config(org);
    c.levels = levels;
    c.bits_per_level = bits;
    xlat_pwc *p = make(&c);
    uint32_t s = shift_of(bits, k);
    uint64_t width = 12 + (uint64_t)levels * bits;
    uint64_t va = 0x5a5a5a5a5a5a5a5aull & ((1ull << width) - 1);
    uint64_t start = va & ~((1ull << s) - 1), end = start + (1ull << s) - 1;
    fill(p, 3, va, k, 0x40 + k);
    ck_assert_uint_eq(probe(p, 3, start, NULL), k);
    ck_assert_uint_eq(probe(p, 3, end, NULL), k);
    ck_assert_uint_eq(probe(p, 3, va ^ (1ull << (s - 1)), NULL), k);
    ck_assert_uint_eq(probe(p, 3, va ^ (1ull << s), NULL), 0);
    ck_assert_uint_eq(probe(p, 3, end + 1, NULL), 0);
    if (start)
        ck_assert_uint_eq(probe(p, 3, start - 1, NULL), 0);
    xlat_pwc_destroy(p);
}

START_TEST(level_tags_are_exact)
{
    static const uint32_t geo[][2] = {{4, 9}, {5, 9}, {4, 5}, {2, 1}, {6, 7}, {3, 4}};
    for (size_t o = 0; o < 2; o++)
        for (size_t g = 0; g < sizeof(geo) / sizeof(geo[0]); g++)
            for (uint32_t k = 2; k <= geo[g][0]; k++)
                check_level_tag(orgs[o], geo[g][0], geo[g][1], k);
}
END_TEST

/* The reference hierarchy: 5 levels, levels 5..2 holding 2, 4, 8, 32
 * entries, fully associative, LRU. Level k is exercised under PASID k so
 * that a probe can only hit that level. */
static const uint32_t ref_entries[6] = {0, 0, 32, 8, 4, 2};

static uint64_t ref_va(uint32_t k, uint64_t i) { return i << shift_of(9, k); }

static void ref_fill(xlat_pwc *p, uint32_t k, uint64_t i)
{
    fill(p, k, ref_va(k, i), k, 0x1000 * k + i);
}

static void ref_expect(xlat_pwc *p, uint32_t k, uint64_t i, int present)
{
    uint64_t pfn = 0;
    ck_assert_msg(probe(p, k, ref_va(k, i), &pfn) == (present ? k : 0),
                  "level %u entry %llu should %s", k, (unsigned long long)i,
                  present ? "hit" : "be gone");
    if (present)
        ck_assert_uint_eq(pfn, 0x1000 * k + i);
}

/* Level k is full with entries 0..n-1 and entry 0 was used last. */
static void ref_overflow(xlat_pwc *p, uint32_t k)
{
    uint32_t n = ref_entries[k];
    uint64_t ev = stats(p).evictions;
    ck_assert_uint_eq(lookup(p, k, ref_va(k, 0), NULL), k);
    ref_fill(p, k, n);
    ck_assert_uint_eq(stats(p).evictions, ev + 1);
    ref_expect(p, k, 1, 0); /* the least recently used */
    for (uint64_t i = 0; i <= n; i++)
        if (i != 1)
            ref_expect(p, k, i, 1);
    ref_fill(p, k, n + 1); /* order now 2..n-1, 0, n */
    ref_expect(p, k, n >= 3 ? 2 : 0, 0);
    ck_assert_uint_eq(stats(p).evictions, ev + 2);
}

START_TEST(reference_hierarchy_five_levels)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.levels = 5;
    for (uint32_t k = 2; k <= 5; k++)
        c.entries[k] = ref_entries[k];
    xlat_pwc *p = make(&c);
    for (uint32_t k = 2; k <= 5; k++)
        for (uint64_t i = 0; i < ref_entries[k]; i++)
            ref_fill(p, k, i);
    ck_assert_uint_eq(stats(p).evictions, 0); /* every level holds exactly its size */
    for (uint32_t k = 2; k <= 5; k++)
        for (uint64_t i = 0; i < ref_entries[k]; i++)
            ref_expect(p, k, i, 1);
    for (uint32_t k = 2; k <= 5; k++)
        ref_overflow(p, k);
    xlat_pwc_stats st = stats(p);
    ck_assert_uint_eq(st.fills, 2 + 4 + 8 + 32 + 4 * 2);
    ck_assert_uint_eq(st.evictions, 8);
    ck_assert_uint_eq(st.lookups, 4);
    for (uint32_t k = 2; k <= 5; k++)
        ck_assert_uint_eq(st.hits[k], 1);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(per_level_sets_and_ways)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[2] = 8;
    c.ways[2] = 2; /* 4 sets: a level-2 tag t goes to set t % 4 */
    xlat_pwc *p = make(&c);
    fill(p, 1, 0ull << L2, 2, 0xa0);
    fill(p, 1, 4ull << L2, 2, 0xa4);
    fill(p, 1, 1ull << L2, 2, 0xa1);
    ck_assert_uint_eq(stats(p).evictions, 0);
    ck_assert_uint_eq(lookup(p, 1, 0, NULL), 2);
    fill(p, 1, 8ull << L2, 2, 0xa8); /* set 0 is full: tag 4 is its LRU */
    ck_assert_uint_eq(stats(p).evictions, 1);
    ck_assert_uint_eq(probe(p, 1, 4ull << L2, NULL), 0);
    ck_assert_uint_eq(probe(p, 1, 0ull << L2, NULL), 2);
    ck_assert_uint_eq(probe(p, 1, 8ull << L2, NULL), 2);
    ck_assert_uint_eq(probe(p, 1, 1ull << L2, NULL), 2);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(unified_sets_are_shared_by_levels)
{
    /* Walk stealing's PWC: 128 entries, 16 sets of 8 ways, LRU. A tag t of
     * any level goes to set t % 16; these nine all go to set 0. */
    static const struct { uint32_t level; uint64_t tag; } e[] = {
        {2, 0}, {2, 16}, {2, 32}, {3, 16}, {3, 32}, {4, 16}, {4, 32}, {4, 48}, {2, 48},
    };
    xlat_pwc_config c = config(XLAT_PWC_UNIFIED);
    c.entries[0] = 128;
    c.ways[0] = 8;
    xlat_pwc *p = make(&c);
    fill(p, 1, 1ull << L2, 2, 0x77); /* set 1: never disturbed */
    for (int i = 0; i < 9; i++)
        fill(p, 1, e[i].tag << shift_of(9, e[i].level), e[i].level, 0x100 + (uint64_t)i);
    ck_assert_uint_eq(stats(p).evictions, 1);
    ck_assert_uint_eq(probe(p, 1, 0, NULL), 0); /* the oldest, of level 2 */
    for (int i = 1; i < 9; i++)
        ck_assert_uint_eq(probe(p, 1, e[i].tag << shift_of(9, e[i].level), NULL), e[i].level);
    ck_assert_uint_eq(lookup(p, 1, 16ull << L2, NULL), 2); /* save the next oldest */
    fill(p, 1, 48ull << L3, 3, 0x200);                     /* evicts level-2 tag 32 */
    ck_assert_uint_eq(probe(p, 1, 32ull << L2, NULL), 0);
    ck_assert_uint_eq(probe(p, 1, 16ull << L2, NULL), 2);
    ck_assert_uint_eq(probe(p, 1, 1ull << L2, NULL), 2);
    ck_assert_uint_eq(stats(p).evictions, 2);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(unified_longest_prefix_and_hits_per_level)
{
    xlat_pwc_config c = config(XLAT_PWC_UNIFIED);
    c.entries[0] = 3;
    xlat_pwc *p = make(&c);
    uint64_t pfn = 0;
    for (uint32_t k = 2; k <= 4; k++) /* bottom up: the order of fills must not matter */
        fill(p, 1, VA, k, 0x100 + k);
    ck_assert_uint_eq(stats(p).evictions, 0);
    ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 2);
    ck_assert_uint_eq(pfn, 0x102);
    ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L2), &pfn), 3);
    ck_assert_uint_eq(pfn, 0x103);
    ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L3), &pfn), 4);
    ck_assert_uint_eq(pfn, 0x104);
    /* The level-2 entry is now the LRU of the three: a fourth entry evicts it. */
    fill(p, 1, VA + (2ull << L2), 2, 0x222);
    ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 3);
    xlat_pwc_stats st = stats(p);
    ck_assert_uint_eq(st.lookups, 4);
    ck_assert_uint_eq(st.hits[2], 1);
    ck_assert_uint_eq(st.hits[3], 2);
    ck_assert_uint_eq(st.hits[4], 1);
    ck_assert_uint_eq(st.evictions, 1);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(pasids_are_isolated)
{
    for (size_t o = 0; o < 2; o++) {
        xlat_pwc_config c = config(orgs[o]);
        xlat_pwc *p = make(&c);
        uint64_t pfn = 0;
        fill_walk(p, 1, VA, 4, 0x100);
        ck_assert_uint_eq(lookup(p, 2, VA, NULL), 0);
        ck_assert_uint_eq(probe(p, 2, VA, NULL), 0);
        fill(p, 2, VA, 3, 0x999);
        ck_assert_uint_eq(lookup(p, 2, VA, &pfn), 3);
        ck_assert_uint_eq(pfn, 0x999);
        ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 2);
        ck_assert_uint_eq(pfn, 0x102);
        ck_assert_int_eq(xlat_pwc_invalidate(p, 2, VA), 1);
        ck_assert_uint_eq(lookup(p, 1, VA, NULL), 2);
        ck_assert_uint_eq(lookup(p, 2, VA, NULL), 0);
        xlat_pwc_destroy(p);
    }
}
END_TEST

START_TEST(invalidate_pasid_and_flush)
{
    for (size_t o = 0; o < 2; o++) {
        xlat_pwc_config c = config(orgs[o]);
        xlat_pwc *p = make(&c);
        uint64_t vb = VA + (1ull << L2);
        fill_walk(p, 1, VA, 4, 0x100);
        fill(p, 1, vb, 2, 0x200);
        ck_assert_int_eq(xlat_pwc_invalidate(p, 1, VA), 3); /* levels 4, 3, 2 of VA */
        ck_assert_uint_eq(probe(p, 1, VA, NULL), 0);
        ck_assert_uint_eq(probe(p, 1, vb, NULL), 2); /* its own level 2 does not cover VA */
        ck_assert_int_eq(xlat_pwc_invalidate(p, 1, VA), 0);
        ck_assert_int_eq(xlat_pwc_invalidate(p, 2, vb), 0);
        fill_walk(p, 2, VA, 4, 0x300);
        ck_assert_int_eq(xlat_pwc_invalidate_pasid(p, 1), 1);
        ck_assert_int_eq(xlat_pwc_invalidate_pasid(p, 1), 0);
        ck_assert_uint_eq(probe(p, 1, vb, NULL), 0);
        ck_assert_uint_eq(probe(p, 2, VA, NULL), 2);
        ck_assert_int_eq(xlat_pwc_flush(p), 3); /* levels 4, 3, 2 of VA in pasid 2 */
        ck_assert_uint_eq(probe(p, 2, VA, NULL), 0);
        ck_assert_int_eq(xlat_pwc_flush(p), 0);
        ck_assert_int_eq(xlat_pwc_invalidate_pasid(p, 2), 0);
        fill(p, 2, VA, 4, 0x1); /* usable after a flush */
        ck_assert_uint_eq(probe(p, 2, VA, NULL), 4);
        xlat_pwc_destroy(p);
    }
}
END_TEST

START_TEST(probe_changes_nothing)
{
    for (int use_lookup = 0; use_lookup < 2; use_lookup++) {
        xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
        c.entries[2] = 2;
        xlat_pwc *p = make(&c);
        fill(p, 1, 0ull << L2, 2, 0xa);
        fill(p, 1, 1ull << L2, 2, 0xb);
        ck_assert_uint_eq(hit(p, use_lookup, 1, 0, NULL), 2);
        ck_assert_uint_eq(stats(p).lookups, (uint64_t)use_lookup);
        fill(p, 1, 2ull << L2, 2, 0xc); /* a probe did not make tag 0 recent */
        ck_assert_uint_eq(probe(p, 1, 0ull << L2, NULL), use_lookup ? 2 : 0);
        ck_assert_uint_eq(probe(p, 1, 1ull << L2, NULL), use_lookup ? 0 : 2);
        ck_assert_int_eq(xlat_pwc_probe(p, 1, 2ull << L2, NULL), XLAT_OK);
        ck_assert_int_eq(xlat_pwc_lookup(p, 1, 2ull << L2, NULL), XLAT_OK);
        xlat_pwc_destroy(p);
    }
}
END_TEST

START_TEST(replacement_policy_is_honoured)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[3] = 2;
    c.repl = XLAT_REPL_FIFO;
    xlat_pwc *p = make(&c);
    fill(p, 1, 0ull << L3, 3, 0xa);
    fill(p, 1, 1ull << L3, 3, 0xb);
    ck_assert_uint_eq(lookup(p, 1, 0, NULL), 3);
    fill(p, 1, 2ull << L3, 3, 0xc); /* FIFO: the oldest goes although it was used */
    ck_assert_uint_eq(probe(p, 1, 0, NULL), 0);
    ck_assert_uint_eq(probe(p, 1, 1ull << L3, NULL), 3);
    xlat_pwc_destroy(p);
    c.repl = XLAT_REPL_PLRU;
    c.entries[3] = 16;
    xlat_pwc_destroy(make(&c));
    c.repl = XLAT_REPL_RANDOM;
    c.entries[3] = 12;
    xlat_pwc_destroy(make(&c));
}
END_TEST

START_TEST(fill_updates_in_place)
{
    for (size_t o = 0; o < 2; o++) {
        xlat_pwc_config c = config(orgs[o]);
        c.entries[0] = c.entries[2] = 1;
        xlat_pwc *p = make(&c);
        uint64_t pfn = 0;
        fill(p, 1, VA, 2, 0x1);
        fill(p, 1, VA ^ 0x1000, 2, 0x2); /* same level-2 tag */
        ck_assert_uint_eq(lookup(p, 1, VA, &pfn), 2);
        ck_assert_uint_eq(pfn, 0x2);
        xlat_pwc_stats st = stats(p);
        ck_assert_uint_eq(st.fills, 2);
        ck_assert_uint_eq(st.evictions, 0);
        xlat_pwc_destroy(p);
    }
}
END_TEST

START_TEST(disabled_levels_keep_nothing)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[3] = 0;
    c.ways[3] = 7; /* ignored: the level is off */
    xlat_pwc *p = make(&c);
    fill_walk(p, 1, VA, 4, 0x100);
    ck_assert_uint_eq(stats(p).fills, 2); /* levels 4 and 2 */
    ck_assert_uint_eq(lookup(p, 1, VA, NULL), 2);
    ck_assert_uint_eq(lookup(p, 1, VA + (1ull << L2), NULL), 4); /* level 3 is skipped */
    ck_assert_int_eq(xlat_pwc_invalidate(p, 1, VA), 2);
    xlat_pwc_destroy(p);

    c = config(XLAT_PWC_UNIFIED);
    c.entries[0] = 0;
    p = make(&c);
    fill_walk(p, 1, VA, 4, 0x100);
    ck_assert_uint_eq(stats(p).fills, 0);
    ck_assert_uint_eq(lookup(p, 1, VA, NULL), 0);
    ck_assert_int_eq(xlat_pwc_invalidate(p, 1, VA), 0);
    ck_assert_int_eq(xlat_pwc_invalidate_pasid(p, 1), 0);
    ck_assert_int_eq(xlat_pwc_flush(p), 0); /* a disabled cache holds nothing */
    xlat_pwc_destroy(p);
}
END_TEST

static int create_rc(const xlat_pwc_config *c)
{
    xlat_pwc *p = NULL;
    int rc = xlat_pwc_create(ctx, c, &p);
    if (rc == XLAT_OK)
        xlat_pwc_destroy(p);
    else
        ck_assert_ptr_null(p);
    return rc;
}

/* Expects INVAL with `needle` in the message. */
static void expect_inval(const xlat_pwc_config *c, const char *needle)
{
    ck_assert_int_eq(create_rc(c), XLAT_ERR_INVAL);
    ck_assert_msg(strstr(xlat_ctx_errmsg(ctx), needle), "\"%s\" lacks \"%s\"",
                  xlat_ctx_errmsg(ctx), needle);
}

START_TEST(create_checks_geometry)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    static const uint32_t bad_levels[] = {0, 1, 7, 8};
    for (size_t i = 0; i < 4; i++) {
        c.levels = bad_levels[i];
        expect_inval(&c, "levels");
    }
    c = config(XLAT_PWC_PER_LEVEL);
    c.bits_per_level = 0;
    expect_inval(&c, "bits_per_level 0");
    c.bits_per_level = 10;
    expect_inval(&c, "bits_per_level 10");
    c = config(XLAT_PWC_PER_LEVEL);
    c.page_shift = 16;
    expect_inval(&c, "page_shift 16");
    c = config(XLAT_PWC_PER_LEVEL);
    c.levels = 6; /* 66 bits: wider than any page table */
    expect_inval(&c, "66-bit");
    c.bits_per_level = 7; /* 54 bits */
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c.levels = 5;
    c.bits_per_level = 9; /* LA57: exactly 57 bits */
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c = config(XLAT_PWC_PER_LEVEL);
    c.org = (xlat_pwc_org)2;
    expect_inval(&c, "organisation");
    c = config(XLAT_PWC_PER_LEVEL);
    c.repl = (xlat_repl)99;
    expect_inval(&c, "replacement");
}
END_TEST

START_TEST(create_checks_ways)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[3] = 12;
    c.ways[3] = 5;
    expect_inval(&c, "level 3: ways (5) must divide entries (12)");
    c.ways[3] = 24; /* more ways than entries */
    expect_inval(&c, "level 3");
    c.ways[3] = 3;
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c.repl = XLAT_REPL_PLRU;
    expect_inval(&c, "level 3: PLRU");
    c.ways[3] = 0; /* fully associative: 12 ways, still not a power of two */
    expect_inval(&c, "not 12");
    c.ways[3] = 4;
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    /* Slots the organisation does not use are not looked at. */
    c.entries[0] = 5;
    c.ways[0] = 2;
    c.entries[6] = 5;
    c.ways[6] = 2;
    c.entries[1] = 3;
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
    c.org = XLAT_PWC_UNIFIED;
    expect_inval(&c, "unified: ways (2) must divide entries (5)");
    c.entries[0] = 16;
    c.ways[0] = 4;
    c.entries[3] = 12;
    c.ways[3] = 5; /* not used by a unified cache */
    ck_assert_int_eq(create_rc(&c), XLAT_OK);
}
END_TEST

START_TEST(create_checks_arguments)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    xlat_pwc *p = NULL;
    ck_assert_int_eq(xlat_pwc_create(NULL, &c, &p), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pwc_create(ctx, NULL, &p), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "NULL cfg"));
    ck_assert_int_eq(xlat_pwc_create(ctx, &c, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "NULL out"));
    c.struct_size = 8;
    ck_assert_int_eq(xlat_pwc_create(ctx, &c, &p), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "struct_size 8"));
    XLAT_TEST_NEWER(xlat_pwc_config) newer = {.cfg = c};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_pwc_create(ctx, &newer.cfg, &p), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_null(p);
    xlat_pwc_config_init(NULL);
}
END_TEST

START_TEST(fill_checks_level)
{
    char name[] = "gpu0.pwc";
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.name = name;
    xlat_pwc *p = make(&c);
    name[0] = 'X'; /* the cache kept its own copy */
    static const uint32_t bad[] = {0, 1, 5, 8, UINT32_MAX};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(xlat_pwc_fill(p, 1, VA, bad[i], 0x1), XLAT_ERR_INVAL);
        ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "pwc gpu0.pwc: cannot fill level"));
    }
    ck_assert_uint_eq(stats(p).fills, 0);
    ck_assert_uint_eq(probe(p, 1, VA, NULL), 0);
    xlat_pwc_destroy(p);
    c.levels = 5;
    p = make(&c);
    ck_assert_int_eq(xlat_pwc_fill(p, 1, VA, 5, 0x1), XLAT_OK);
    ck_assert_int_eq(xlat_pwc_fill(p, 1, VA, 6, 0x1), XLAT_ERR_INVAL);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(null_handles)
{
    xlat_pwc_hit h;
    ck_assert_int_eq(xlat_pwc_lookup(NULL, 1, VA, &h), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pwc_probe(NULL, 1, VA, &h), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pwc_fill(NULL, 1, VA, 2, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pwc_invalidate(NULL, 1, VA), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pwc_invalidate_pasid(NULL, 1), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_pwc_latency(NULL), 0);
    xlat_pwc_stats st = {.lookups = 5, .hits[2] = 3};
    xlat_pwc_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.lookups, 0);
    ck_assert_uint_eq(st.hits[2], 0);
    ck_assert_int_eq(xlat_pwc_flush(NULL), XLAT_ERR_INVAL);
    xlat_pwc_stats_reset(NULL);
    xlat_pwc_destroy(NULL);
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    xlat_pwc *p = make(&c);
    xlat_pwc_stats_get(p, NULL, 0);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(latency_and_defaults)
{
    xlat_pwc_config c;
    xlat_pwc_config_init(&c);
    ck_assert_uint_eq(c.struct_size, sizeof(c));
    ck_assert_str_eq(c.name, "pwc");
    ck_assert_int_eq(c.org, XLAT_PWC_PER_LEVEL);
    ck_assert_uint_eq(c.levels, 4);
    ck_assert_uint_eq(c.bits_per_level, 9);
    ck_assert_uint_eq(c.page_shift, 12);
    ck_assert_uint_eq(c.entries[0], 32);
    for (uint32_t k = 2; k <= 4; k++)
        ck_assert_uint_eq(c.entries[k], 16);
    ck_assert_uint_eq(c.ways[2], 0);
    ck_assert_int_eq(c.repl, XLAT_REPL_LRU);
    ck_assert_uint_eq(c.latency, 1);
    xlat_pwc *p = make(&c);
    ck_assert_uint_eq(xlat_pwc_latency(p), 1);
    /* 16 entries fully associative: 16 level-2 tags of one set fit, 17 do not. */
    for (uint64_t i = 0; i <= 16; i++)
        fill(p, 1, i << L2, 2, i);
    ck_assert_uint_eq(stats(p).evictions, 1);
    xlat_pwc_destroy(p);
    c.latency = 10;
    c.name = NULL; /* "pwc" */
    p = make(&c);
    ck_assert_uint_eq(xlat_pwc_latency(p), 10);
    xlat_pwc_destroy(p);
}
END_TEST

START_TEST(stats_and_reset)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[4] = 1;
    xlat_pwc *p = make(&c);
    fill_walk(p, 1, VA, 4, 0x100);
    fill(p, 1, VA + (1ull << L4), 4, 0x500); /* evicts VA's level 4 */
    lookup(p, 1, VA, NULL);
    lookup(p, 1, VA + (1ull << L3), NULL);
    lookup(p, 1, VA + (1ull << L4), NULL);
    lookup(p, 2, VA, NULL);
    xlat_pwc_stats st = stats(p);
    ck_assert_uint_eq(st.lookups, 4);
    ck_assert_uint_eq(st.misses, 2);
    ck_assert_uint_eq(st.hits[2], 1);
    ck_assert_uint_eq(st.hits[3], 0);
    ck_assert_uint_eq(st.hits[4], 1);
    ck_assert_uint_eq(st.fills, 4);
    ck_assert_uint_eq(st.evictions, 1);
    xlat_pwc_stats_reset(p);
    st = stats(p);
    xlat_pwc_stats zero;
    memset(&zero, 0, sizeof(zero));
    ck_assert_mem_eq(&st, &zero, sizeof(st));
    ck_assert_uint_eq(lookup(p, 1, VA, NULL), 2); /* contents survive a reset */
    ck_assert_uint_eq(stats(p).hits[2], 1);
    xlat_pwc_destroy(p);
}
END_TEST

static void nomem_sweep(const xlat_pwc_config *c)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *cx = test_ctx(1, &ca);
    size_t base = ca.live_bytes;
    for (long n = 0;; n++) {
        xlat_pwc *p = NULL;
        ca.fail_after = n;
        int rc = xlat_pwc_create(cx, c, &p);
        ca.fail_after = -1;
        if (rc == XLAT_OK) {
            ck_assert_int_gt(n, 2);
            xlat_pwc_destroy(p);
            break;
        }
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_null(p);
        ck_assert_uint_eq(ca.live_bytes, base);
    }
    ck_assert_uint_eq(ca.live_bytes, base);
    xlat_ctx_destroy(cx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}

START_TEST(nomem_at_create_leaks_nothing)
{
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    nomem_sweep(&c);
    c.levels = 5;
    nomem_sweep(&c);
    c = config(XLAT_PWC_UNIFIED);
    nomem_sweep(&c);
}
END_TEST

/* Every call after create runs with an allocator that always fails. */
static void run_without_memory(xlat_pwc_org org)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *cx = test_ctx(1, &ca);
    xlat_pwc_config c = config(org);
    xlat_pwc *p = NULL;
    ck_assert_int_eq(xlat_pwc_create(cx, &c, &p), XLAT_OK);
    size_t allocs = ca.allocs;
    ca.fail_after = 0;
    for (uint64_t i = 0; i < 200; i++) {
        uint64_t va = i * 0x40201000ull; /* moves every level's index */
        ck_assert_int_eq(xlat_pwc_fill(p, i & 3, va, 2 + (uint32_t)(i % 3), i), XLAT_OK);
        xlat_pwc_lookup(p, i & 3, va, NULL);
        xlat_pwc_probe(p, i & 3, va ^ 0x1000, NULL);
        if (i % 7 == 0)
            ck_assert_int_ge(xlat_pwc_invalidate(p, i & 3, va), 0);
    }
    ck_assert_int_ge(xlat_pwc_invalidate_pasid(p, 1), 0);
    xlat_pwc_flush(p);
    ck_assert_uint_gt(stats(p).evictions, 0);
    ck_assert_uint_eq(ca.allocs, allocs);
    ca.fail_after = -1;
    xlat_pwc_destroy(p);
    xlat_ctx_destroy(cx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}

START_TEST(no_allocation_after_create)
{
    run_without_memory(XLAT_PWC_PER_LEVEL);
    run_without_memory(XLAT_PWC_UNIFIED);
}
END_TEST


/* ---- the arrays against the TLBs the PWC was built from --------------- */

/* The reference: the PWC as it was, one xlat_tlb per cached slot on a
 * context of its own with the same seed, created in the same order, so
 * that RANDOM draws the same victims. Slots deepest level first. */
typedef struct tlb_model {
    xlat_ctx *ctx;
    xlat_tlb *cache[8];
    xlat_tlb *of_level[8];
    uint32_t ncache, levels;
} tlb_model;

static void model_make(tlb_model *m, const xlat_pwc_config *c)
{
    memset(m, 0, sizeof(*m));
    m->ctx = test_ctx(17, NULL);
    m->levels = c->levels;
    uint32_t first = c->org == XLAT_PWC_UNIFIED ? 0 : 2;
    uint32_t last = c->org == XLAT_PWC_UNIFIED ? 0 : c->levels;
    for (uint32_t s = first; s <= last; s++) {
        if (!c->entries[s])
            continue;
        xlat_tlb_config tc;
        xlat_tlb_config_init(&tc);
        tc.entries = c->entries[s];
        tc.ways = c->ways[s] ? c->ways[s] : c->entries[s];
        tc.repl = c->repl;
        tc.latency = 0;
        tc.mshrs = 1;
        xlat_tlb *t = NULL;
        ck_assert_int_eq(xlat_tlb_create(m->ctx, &tc, &t), XLAT_OK);
        m->cache[m->ncache++] = t;
        for (uint32_t k = 2; k <= c->levels; k++)
            if (s == 0 || s == k)
                m->of_level[k] = t;
    }
}

/* The deepest hit's level (node frame in *pfn), or 0. */
static uint32_t model_find(tlb_model *m, int touch, uint32_t pasid, uint64_t va, uint64_t *pfn)
{
    for (uint32_t i = 0; i < m->ncache; i++) {
        xlat_tlb_entry e;
        int rc = touch ? xlat_tlb_lookup(m->cache[i], pasid, va, &e)
                       : xlat_tlb_probe(m->cache[i], pasid, va, &e);
        if (rc == XLAT_OK) {
            *pfn = e.pfn;
            return (e.page_shift - 12) / 9 + 1;
        }
    }
    return 0;
}

/* 1 when the fill evicted. */
static int model_fill(tlb_model *m, uint32_t pasid, uint64_t va, uint32_t level, uint64_t pfn)
{
    xlat_tlb *t = m->of_level[level];
    if (!t)
        return 0;
    uint8_t shift = (uint8_t)shift_of(9, level);
    xlat_tlb_entry e = {.pasid = pasid, .vpn = va >> shift, .pfn = pfn, .page_shift = shift};
    return xlat_tlb_insert(t, &e, NULL);
}

static int model_each(tlb_model *m, int what, uint32_t pasid, uint64_t va)
{
    int removed = 0;
    for (uint32_t i = 0; i < m->ncache; i++)
        removed += what == 0   ? xlat_tlb_invalidate(m->cache[i], pasid, va)
                   : what == 1 ? xlat_tlb_invalidate_pasid(m->cache[i], pasid)
                               : xlat_tlb_flush(m->cache[i]);
    return removed;
}

/* Few indices per level, so that every level hits, misses and evicts. */
static uint64_t model_va(uint64_t *rs)
{
    uint64_t va = 0;
    for (uint32_t k = 2; k <= 5; k++)
        va |= (test_rand(rs) % (k == 2 ? 40 : 5)) << shift_of(9, k);
    return va | (test_rand(rs) & 0xFFF);
}

/* One random step on both; returns nothing, asserts agreement. */
static void model_step(xlat_pwc *p, tlb_model *m, uint64_t *rs, uint64_t *evictions)
{
    uint32_t op = (uint32_t)(test_rand(rs) % 1000), pasid = 1 + (uint32_t)(test_rand(rs) % 2);
    uint64_t va = model_va(rs), want_pfn = 0, got_pfn = 0;
    if (op < 550 || (op >= 850 && op < 900)) {
        int touch = op < 550;
        uint32_t want = model_find(m, touch, pasid, va, &want_pfn);
        ck_assert_uint_eq(hit(p, touch, pasid, va, &got_pfn), want);
        if (want)
            ck_assert_uint_eq(got_pfn, want_pfn);
    } else if (op < 850) {
        uint32_t level = 2 + (uint32_t)(test_rand(rs) % (m->levels - 1));
        uint64_t pfn = test_rand(rs) & 0xFFFFF;
        *evictions += (uint64_t)model_fill(m, pasid, va, level, pfn);
        ck_assert_int_eq(xlat_pwc_fill(p, pasid, va, level, pfn), XLAT_OK);
        ck_assert_uint_eq(stats(p).evictions, *evictions);
    } else if (op < 990) {
        ck_assert_int_eq(xlat_pwc_invalidate(p, pasid, va), model_each(m, 0, pasid, va));
    } else if (op < 997) {
        ck_assert_int_eq(xlat_pwc_invalidate_pasid(p, pasid), model_each(m, 1, pasid, 0));
    } else {
        ck_assert_int_eq(xlat_pwc_flush(p), model_each(m, 2, 0, 0));
    }
}

static void model_compare(const xlat_pwc_config *c, uint64_t seed)
{
    tlb_model m;
    model_make(&m, c);
    xlat_ctx *pc = test_ctx(17, NULL); /* fresh too: the same random streams */
    xlat_pwc *p = NULL;
    ck_assert_int_eq(xlat_pwc_create(pc, c, &p), XLAT_OK);
    uint64_t rs = seed, evictions = 0;
    for (int i = 0; i < 20000; i++)
        model_step(p, &m, &rs, &evictions);
    ck_assert_uint_gt(evictions, 100);
    xlat_pwc_destroy(p);
    xlat_ctx_destroy(pc);
    xlat_ctx_destroy(m.ctx);
}

START_TEST(arrays_match_the_tlbs_they_replace)
{
    static const xlat_repl repls[] = {XLAT_REPL_LRU, XLAT_REPL_FIFO, XLAT_REPL_RANDOM,
                                      XLAT_REPL_PLRU};
    for (size_t r = 0; r < sizeof(repls) / sizeof(repls[0]); r++) {
        /* The reference hierarchy's fully associative 2/4/8/32. */
        xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
        c.levels = 5;
        c.entries[5] = 2, c.entries[4] = 4, c.entries[3] = 8, c.entries[2] = 32;
        c.repl = repls[r];
        model_compare(&c, 1 + r);
        /* Set associative, 3 sets (modulo) at level 2, a disabled level. */
        c.entries[2] = 12, c.ways[2] = 4, c.entries[3] = 8, c.ways[3] = 2, c.entries[4] = 0;
        model_compare(&c, 11 + r);
        /* Unified: levels share 4 sets of 8 ways. */
        c = config(XLAT_PWC_UNIFIED);
        c.levels = 5;
        c.entries[0] = 32, c.ways[0] = 8;
        c.repl = repls[r];
        model_compare(&c, 21 + r);
    }
}
END_TEST

/* LRU, fully associative, in a dozen lines: the most recent first. */
START_TEST(fully_associative_lru_matches_a_list)
{
    enum { WAYS = 32, KEYS = 48 };
    xlat_pwc_config c = config(XLAT_PWC_PER_LEVEL);
    c.entries[2] = WAYS, c.entries[3] = 0, c.entries[4] = 0;
    xlat_pwc *p = make(&c);
    uint64_t list[WAYS], rs = 99;
    uint32_t n = 0;
    for (int i = 0; i < 50000; i++) {
        uint64_t key = test_rand(&rs) % KEYS, va = key << L2;
        uint32_t at = 0;
        while (at < n && list[at] != key)
            at++;
        if (test_rand(&rs) % 2) { /* a lookup: a hit makes the key most recent */
            uint64_t pfn = 0;
            ck_assert_uint_eq(lookup(p, 1, va, &pfn), at < n ? 2 : 0);
            if (at == n)
                continue;
            ck_assert_uint_eq(pfn, key + 1000);
        } else { /* a fill: new keys take a free way or the least recent's */
            ck_assert_int_eq(xlat_pwc_fill(p, 1, va, 2, key + 1000), XLAT_OK);
            if (at == n)
                at = n < WAYS ? n++ : n - 1;
        }
        memmove(list + 1, list, at * sizeof(list[0]));
        list[0] = key;
    }
    xlat_pwc_destroy(p);
}
END_TEST

Suite *pwc_suite(void)
{
    Suite *s = suite_create("pwc");
    TCase *tc = test_case(s, "levels");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, per_level_deepest_hit_then_fallback);
    tcase_add_test(tc, prefixes_select_the_level);
    tcase_add_test(tc, level_tags_are_exact);
    tcase_add_test(tc, reference_hierarchy_five_levels);
    tcase_add_test(tc, per_level_sets_and_ways);
    tcase_add_test(tc, unified_sets_are_shared_by_levels);
    tcase_add_test(tc, unified_longest_prefix_and_hits_per_level);
    tc = test_case(s, "contents");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pasids_are_isolated);
    tcase_add_test(tc, invalidate_pasid_and_flush);
    tcase_add_test(tc, probe_changes_nothing);
    tcase_add_test(tc, replacement_policy_is_honoured);
    tcase_add_test(tc, fill_updates_in_place);
    tcase_add_test(tc, disabled_levels_keep_nothing);
    tcase_add_test(tc, arrays_match_the_tlbs_they_replace);
    tcase_add_test(tc, fully_associative_lru_matches_a_list);
    tc = test_case(s, "errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, create_checks_geometry);
    tcase_add_test(tc, create_checks_ways);
    tcase_add_test(tc, create_checks_arguments);
    tcase_add_test(tc, fill_checks_level);
    tcase_add_test(tc, null_handles);
    tcase_add_test(tc, latency_and_defaults);
    tcase_add_test(tc, stats_and_reset);
    tcase_add_test(tc, nomem_at_create_leaks_nothing);
    tcase_add_test(tc, no_allocation_after_create);
    return s;
}
