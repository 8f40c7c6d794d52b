/*
 * A unit's clock against its context's (doc/clocks.md): the unit runs at
 * num/den times the context's frequency, so its edges fall at context
 * cycles ceil(k * den / num), k = 0, 1, 2, ... A latency of L unit cycles
 * posted at context cycle `now` ends at the L-th unit edge after the last
 * edge at or before `now`.
 *
 * The 1:1 clock (what a config's 0/0 means) is the common case: units test
 * `scaled` inline and reach this arithmetic only when it is set.
 */
#ifndef XLAT_CORE_CLOCK_H
#define XLAT_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "xlat/common.h"

struct xlat__clock {
    uint32_t num, den; /* unit frequency / context frequency; 1/1 when not scaled */
    bool scaled;       /* num != den */
};

/* A config's clock_num/clock_den, checked: both 0 (1:1) or both in
 * 1..XLAT_CLOCK_RATIO_MAX. Otherwise XLAT_ERR_INVAL with a message
 * "<kind> <name>: clock_num ..." naming the field. */
int xlat__clock_check(xlat_ctx *ctx, const char *kind, const char *name, uint32_t num,
                      uint32_t den);
/* A checked ratio; 0/0 is 1:1. */
void xlat__clock_set(struct xlat__clock *c, uint32_t num, uint32_t den);

/* The context cycle at which `cycles` unit cycles posted at context cycle
 * `now` end: now itself for 0, else the edge k0 + cycles, k0 being the last
 * edge at or before now. Saturates at UINT64_MAX. For a scaled clock. */
uint64_t xlat__clock_due(const struct xlat__clock *c, uint64_t now, uint64_t cycles);
/* k0: the unit cycle of context cycle `now` (its last edge at or before
 * it). Saturates at UINT64_MAX. For a scaled clock. */
uint64_t xlat__clock_cycle(const struct xlat__clock *c, uint64_t now);

#endif
