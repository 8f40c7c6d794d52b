#include "testutil.h"

#include <stdlib.h>

static void *count_alloc(void *user, size_t size, size_t align)
{
    counting_alloc *ca = user;
    void *p = NULL;
    if (ca->fail_after == 0) {
        ca->failed++;
        if (ca->fail_once)
            ca->fail_after = -1;
        return NULL;
    }
    if (ca->fail_after > 0)
        ca->fail_after--;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
    ca->allocs++;
    ca->live_bytes += size;
    if (ca->live_bytes > ca->peak_bytes)
        ca->peak_bytes = ca->live_bytes;
    if (size > ca->largest)
        ca->largest = size;
    return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
    counting_alloc *ca = user;
    ca->frees++;
    ca->live_bytes -= size;
    free(ptr);
}

void counting_alloc_init(counting_alloc *ca)
{
    ca->hooks.alloc = count_alloc;
    ca->hooks.free = count_free;
    ca->hooks.user = ca;
    ca->allocs = ca->frees = 0;
    ca->live_bytes = ca->peak_bytes = ca->largest = 0;
    ca->fail_after = -1;
    ca->fail_once = 0;
    ca->failed = 0;
}

xlat_ctx *test_ctx(uint64_t seed, counting_alloc *ca)
{
    xlat_ctx_config cfg;
    xlat_ctx *ctx = NULL;
    xlat_ctx_config_init(&cfg);
    cfg.seed = seed;
    if (ca)
        cfg.allocator = &ca->hooks;
    ck_assert_int_eq(xlat_ctx_create(&cfg, &ctx), XLAT_OK);
    return ctx;
}

const char *test_resolver(const xlat_ctx *ctx, const xlat_resp *r)
{
    return r->resolver ? xlat_unit_name(ctx, r->resolver) : "host";
}

TCase *test_case(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return tc;
}

uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void test_table(xlat_ctx *ctx, xlat_physmem **mem, xlat_pagetable **pt)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    ck_assert_int_eq(xlat_physmem_create(ctx, &pc, mem), XLAT_OK);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = *mem;
    ck_assert_int_eq(xlat_pagetable_create(ctx, &tc, pt), XLAT_OK);
}

/* Internal (static library): the event budgets of lib/core/internal.h. */
int xlat__events_reserve(xlat_ctx *ctx, size_t n);
void xlat__events_unreserve(xlat_ctx *ctx, size_t n);

void test_grow_events(xlat_ctx *ctx, size_t n)
{
    ck_assert_int_eq(xlat__events_reserve(ctx, n), XLAT_OK);
    xlat__events_unreserve(ctx, n);
}
