/*
 * The DWS++ rules on their own ("Improving GPU Multi-tenancy with Page Walk
 * Stealing" §VI-B) and the pool's current DIFF_THRES. Hosts see them in
 * <xlat/experimental.h>, outside the stable API; the walk layer may not
 * include that header (it reaches up to gmmu.h and iommu.h), so the library
 * declares them again here. tests/check_build.c compiles this header with
 * <xlat/experimental.h> in one unit, so the two cannot drift apart.
 */
#ifndef XLAT_DWSPP_RULES_H
#define XLAT_DWSPP_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "xlat/walker.h"

XLAT_API double xlat_dwspp_threshold(const xlat_dwspp_config *cfg, uint64_t more, uint64_t fewer);
XLAT_API bool xlat_dwspp_should_steal(const xlat_dwspp_config *cfg, double diff_thres,
                                      bool is_stolen, uint32_t own_queue_len, uint32_t queue_cap,
                                      uint64_t own_queued, uint64_t own_capacity,
                                      uint64_t other_queued, uint64_t other_capacity);
XLAT_API double xlat_walker_diff_thres(const xlat_walker *pool, uint32_t tenant);

#endif
