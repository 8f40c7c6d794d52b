/* The registry's index (lib/core/registry.c): from 1024 live units on, a
 * unit is found by id and by handle through two hash tables instead of a
 * scan of the list. Checked from inside and through the public lookups
 * (xlat_unit_id, xlat_unit_name, xlat_unit_kind): every live unit is found
 * and no destroyed one, whatever the order units come and go; every entry
 * of a table stays reachable from its home (the invariant that deletion by
 * shifting back keeps); the index goes once the registry is small again;
 * and a context whose index cannot be allocated answers the same by
 * scanning, without an error of its own. */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#include "../lib/core/registry.h"

#define UNITS 3000

typedef struct fleet {
    xlat_ctx *ctx;
    xlat_fixed *unit[UNITS];
    uint32_t id[UNITS];
    bool live[UNITS];
} fleet;

static void create_unit(fleet *f, size_t i)
{
    char name[32];
    snprintf(name, sizeof(name), "unit%zu", i);
    xlat_fixed_config c;
    xlat_fixed_config_init(&c);
    c.name = name;
    ck_assert_int_eq(xlat_fixed_create(f->ctx, &c, &f->unit[i]), XLAT_OK);
    f->id[i] = xlat_unit_id(f->ctx, f->unit[i]);
    ck_assert_uint_ne(f->id[i], 0);
    f->live[i] = true;
}

static void destroy_unit(fleet *f, size_t i)
{
    ck_assert_int_eq(xlat_fixed_destroy(f->unit[i]), XLAT_OK);
    f->live[i] = false;
}

/* Units the public lookups get wrong: a live one not found by id or by
 * handle, or under another name; a destroyed one still found by id. */
static size_t wrong_lookups(const fleet *f)
{
    size_t wrong = 0;
    char name[32];
    for (size_t i = 0; i < UNITS; i++) {
        const char *got = xlat_unit_name(f->ctx, f->id[i]);
        if (!f->live[i]) {
            wrong += got != NULL;
            continue;
        }
        snprintf(name, sizeof(name), "unit%zu", i);
        wrong += !got || strcmp(got, name) != 0;
        wrong += xlat_unit_id(f->ctx, f->unit[i]) != f->id[i];
        const char *kind = xlat_unit_kind(f->ctx, f->id[i]);
        wrong += !kind || strcmp(kind, "fixed") != 0;
    }
    return wrong;
}

/* Entries of one table that a probe from their home would not reach: an
 * empty place lies between the home and the entry. */
static size_t unreachable(struct xlat__reg **table, size_t slots, int by_handle)
{
    size_t bad = 0, mask = slots - 1;
    for (size_t at = 0; at < slots; at++) {
        const struct xlat__reg *r = table[at];
        if (!r)
            continue;
        uint64_t key = by_handle ? (uint64_t)(uintptr_t)r->handle : r->id;
        for (size_t i = (size_t)(xlat__mix64(key) & mask); i != at; i = (i + 1) & mask)
            if (!table[i]) {
                bad++;
                break;
            }
    }
    return bad;
}

/* The index holds each live unit once in each table, all reachable. */
static void assert_index_sound(const fleet *f)
{
    const xlat_ctx *ctx = f->ctx;
    ck_assert_ptr_nonnull(ctx->reg_index);
    size_t in_id = 0, in_handle = 0;
    for (size_t i = 0; i < ctx->reg_slots; i++) {
        in_id += ctx->reg_index[i] != NULL;
        in_handle += ctx->reg_index[ctx->reg_slots + i] != NULL;
    }
    ck_assert_uint_eq(in_id, ctx->reg_live);
    ck_assert_uint_eq(in_handle, ctx->reg_live);
    ck_assert_uint_le(2 * ctx->reg_live, ctx->reg_slots);
    ck_assert_uint_eq(unreachable(ctx->reg_index, ctx->reg_slots, 0), 0);
    ck_assert_uint_eq(unreachable(ctx->reg_index + ctx->reg_slots, ctx->reg_slots, 1), 0);
}

static fleet *fleet_new(counting_alloc *ca)
{
    fleet *f = calloc(1, sizeof(*f));
    ck_assert_ptr_nonnull(f);
    f->ctx = test_ctx(1, ca);
    return f;
}

static void fleet_free(fleet *f)
{
    xlat_ctx_destroy(f->ctx);
    free(f);
}

START_TEST(the_index_comes_at_1024_units_and_grows)
{
    fleet *f = fleet_new(NULL);
    for (size_t i = 0; i < 1023; i++)
        create_unit(f, i);
    ck_assert_ptr_null(f->ctx->reg_index); /* a small registry is scanned */
    create_unit(f, 1023);
    assert_index_sound(f);
    ck_assert_uint_eq(f->ctx->reg_slots, 4096);
    for (size_t i = 1024; i < UNITS; i++)
        create_unit(f, i);
    assert_index_sound(f);
    ck_assert_uint_eq(f->ctx->reg_slots, 16384); /* grown past half full at 2049 */
    ck_assert_uint_eq(wrong_lookups(f), 0);
    ck_assert_ptr_null(xlat_unit_name(f->ctx, 999999));
    ck_assert_uint_eq(xlat_unit_id(f->ctx, f), 0);
    fleet_free(f);
}
END_TEST

/* Units destroyed in a scrambled order, and new ones made between: after
 * every step the tables are sound and every lookup right. */
START_TEST(units_come_and_go_in_any_order)
{
    fleet *f = fleet_new(NULL);
    for (size_t i = 0; i < UNITS; i++)
        create_unit(f, i);
    uint64_t rng = 42;
    for (int step = 0; step < 4000; step++) {
        size_t i = (size_t)(xlat__mix64(rng++) % UNITS);
        if (f->live[i])
            destroy_unit(f, i);
        else
            create_unit(f, i);
        if (step % 97 == 0) {
            assert_index_sound(f);
            ck_assert_uint_eq(wrong_lookups(f), 0);
        }
    }
    assert_index_sound(f);
    ck_assert_uint_eq(wrong_lookups(f), 0);
    fleet_free(f);
}
END_TEST

/* Below 512 live units the index goes; the scan answers the same. */
START_TEST(the_index_goes_when_the_registry_is_small_again)
{
    fleet *f = fleet_new(NULL);
    for (size_t i = 0; i < 1100; i++)
        create_unit(f, i);
    for (size_t i = 0; i < 588; i++)
        destroy_unit(f, i);
    ck_assert_uint_eq(f->ctx->reg_live, 512);
    assert_index_sound(f);
    destroy_unit(f, 588);
    ck_assert_ptr_null(f->ctx->reg_index);
    ck_assert_uint_eq(f->ctx->reg_slots, 0);
    for (size_t i = 1100; i < UNITS; i++)
        f->id[i] = 0xFFFFFFFFu - (uint32_t)i; /* never made: not found */
    ck_assert_uint_eq(wrong_lookups(f), 0);
    fleet_free(f);
}
END_TEST

/* An allocator that refuses the index's tables (4096 places and up: 64
 * KiB and up, a power of two; no other allocation of this test is, as the
 * context keeps its small objects apart, not in chunks). */
typedef struct picky {
    size_t live;
    bool refuse_index;
    size_t refused;
} picky;

static bool index_sized(size_t size)
{
    return size >= 65536 && (size & (size - 1)) == 0;
}

static void *picky_alloc(void *user, size_t size, size_t align)
{
    picky *p = user;
    if (p->refuse_index && index_sized(size)) {
        p->refused++;
        return NULL;
    }
    void *m = NULL;
    if (posix_memalign(&m, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
    p->live += size;
    return m;
}

static void picky_free(void *user, void *ptr, size_t size)
{
    ((picky *)user)->live -= size;
    free(ptr);
}

START_TEST(without_room_for_the_index_the_scan_answers)
{
    picky p = {.refuse_index = true};
    xlat_allocator a = {picky_alloc, picky_free, &p};
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.allocator = &a;
    fleet *f = calloc(1, sizeof(*f));
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(xlat_ctx_create(&cc, &f->ctx), XLAT_OK);
    f->ctx->slab.after = SIZE_MAX; /* its chunks would be refused too (lib/core/slab.h) */
    ck_assert_int_eq(xlat_schedule(f->ctx, 1, NULL, NULL), XLAT_ERR_INVAL);
    char before[256];
    snprintf(before, sizeof(before), "%s", xlat_ctx_errmsg(f->ctx));
    for (size_t i = 0; i < 1500; i++)
        create_unit(f, i);
    ck_assert_uint_eq(p.refused, 1500 - 1023); /* tried again at every unit */
    ck_assert_ptr_null(f->ctx->reg_index);
    ck_assert_str_eq(xlat_ctx_errmsg(f->ctx), before); /* nothing the host asked for failed */
    for (size_t i = 1500; i < UNITS; i++)
        f->id[i] = 0xFFFFFFFFu - (uint32_t)i;
    ck_assert_uint_eq(wrong_lookups(f), 0);
    p.refuse_index = false; /* room again: the next unit builds it */
    create_unit(f, 1500);
    assert_index_sound(f);
    ck_assert_uint_eq(wrong_lookups(f), 0);
    fleet_free(f);
    ck_assert_uint_eq(p.live, 0);
}
END_TEST

Suite *reg_index_suite(void)
{
    Suite *s = suite_create("reg_index");
    TCase *tc = test_case(s, "index");
    tcase_add_test(tc, the_index_comes_at_1024_units_and_grows);
    tcase_add_test(tc, units_come_and_go_in_any_order);
    tcase_add_test(tc, the_index_goes_when_the_registry_is_small_again);
    tcase_add_test(tc, without_room_for_the_index_the_scan_answers);
    return s;
}
