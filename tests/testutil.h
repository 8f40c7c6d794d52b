/* Helpers shared by the Check suites. */
#ifndef XLAT_TESTUTIL_H
#define XLAT_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xlat/xlat.h"

#define XLAT_SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef XLAT_SUITE

/* An allocator that counts calls and live bytes, and can be told to fail
 * after a number of allocations (fail_after < 0: never): fail_after
 * allocations succeed, then every one fails, or, with fail_once, only the
 * next one (fail_after is -1 again after it). `failed` counts the
 * allocations it refused. */
typedef struct counting_alloc {
    xlat_allocator hooks;
    size_t allocs, frees;
    size_t live_bytes, peak_bytes;
    size_t largest; /* the largest single allocation */
    long fail_after;
    int fail_once;
    size_t failed;
} counting_alloc;

void counting_alloc_init(counting_alloc *ca);

/* A context with the given seed and, when ca is non-NULL, its allocator. */
xlat_ctx *test_ctx(uint64_t seed, counting_alloc *ca);

/* Default physical memory and an empty x86-64 4-level page table on it. */
void test_table(xlat_ctx *ctx, xlat_physmem **mem, xlat_pagetable **pt);

/* Grows the context's event pool to hold `n` more events than it promises
 * now, and keeps it so: the pool is the context's and never shrinks, so a
 * test that counts a create's memory grows it first. */
void test_grow_events(xlat_ctx *ctx, size_t n);

/* The target of unit `h` of kind `kind` (tlb, fixed, link, walker, iommu,
 * gmmu), asserting that xlat_<kind>_get_target() succeeds. */
#define TEST_TARGET(kind, h)                                                   \
    ({                                                                         \
        xlat_target test_target_ = XLAT_TARGET_INIT;                           \
        ck_assert_int_eq(xlat_##kind##_get_target((h), &test_target_), XLAT_OK); \
        test_target_;                                                          \
    })

/* splitmix64: the one deterministic generator of the test programs. */
uint64_t test_rand(uint64_t *state);

/* The name of the unit that answered `r`: xlat_unit_name() of its resolver
 * id (NULL once that unit is destroyed), and "host" for 0, the answer of a
 * test's own target, which is no unit. */
const char *test_resolver(const xlat_ctx *ctx, const xlat_resp *r);

/* A TCase with a generous timeout (sanitizer builds are slow). */
TCase *test_case(Suite *s, const char *name);

#endif
