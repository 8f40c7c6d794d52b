/* Unit clocks against the context's (see clock.h).
 *
 * The edges repeat every `den` context cycles, which hold `num` unit
 * cycles: edge q*num + j falls at q*den + ceil(j*den/num). Working from the
 * period's start keeps every product below 2^32 (num and den are at most
 * XLAT_CLOCK_RATIO_MAX), so no 128-bit arithmetic is needed; only a result
 * beyond 2^64 saturates. */
#include "clock.h"
#include "internal.h"

int xlat__clock_check(xlat_ctx *ctx, const char *kind, const char *name, uint32_t num,
                      uint32_t den)
{
    if ((num == 0) != (den == 0))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "%s %s: clock_num %u with clock_den %u: set both (the ratio of its"
                          " clock to the context's) or neither (1:1)",
                          kind, name, num, den);
    if (num > XLAT_CLOCK_RATIO_MAX || den > XLAT_CLOCK_RATIO_MAX)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "%s %s: %s %u is above %u", kind, name,
                          num > XLAT_CLOCK_RATIO_MAX ? "clock_num" : "clock_den",
                          num > XLAT_CLOCK_RATIO_MAX ? num : den, XLAT_CLOCK_RATIO_MAX);
    return XLAT_OK;
}

void xlat__clock_set(struct xlat__clock *c, uint32_t num, uint32_t den)
{
    c->num = num ? num : 1;
    c->den = den ? den : 1;
    c->scaled = c->num != c->den;
}

/* q * m + add, or UINT64_MAX when it does not fit. */
static uint64_t mul_add_sat(uint64_t q, uint64_t m, uint64_t add)
{
    uint64_t r;
    if (__builtin_mul_overflow(q, m, &r) || __builtin_add_overflow(r, add, &r))
        return UINT64_MAX;
    return r;
}

uint64_t xlat__clock_due(const struct xlat__clock *c, uint64_t now, uint64_t cycles)
{
    if (cycles == 0)
        return now; /* "this same cycle" stays the context's cycle */
    uint64_t base = now - now % c->den; /* an edge: the period's first */
    /* Edges after `base`: the last one at or before now, then `cycles` more. */
    uint64_t k = (now - base) * c->num / c->den;
    if (__builtin_add_overflow(k, cycles, &k))
        return UINT64_MAX;
    uint64_t j = k % c->num;
    uint64_t in_period = (j * c->den + c->num - 1) / c->num; /* ceil(j*den/num) */
    uint64_t after = mul_add_sat(k / c->num, c->den, in_period);
    return after > UINT64_MAX - base ? UINT64_MAX : base + after;
}

uint64_t xlat__clock_cycle(const struct xlat__clock *c, uint64_t now)
{
    return mul_add_sat(now / c->den, c->num, now % c->den * c->num / c->den);
}
