/*
 * Walker pools: the named internal interface for the units that send walks
 * to a pool they own or were configured with (the IOMMU, the GMMU).
 */
#ifndef XLAT_WALKER_TARGET_H
#define XLAT_WALKER_TARGET_H

#include "xlat/walker.h"

/* The pool's target, by value and without the size checks of
 * xlat_walker_get_target(): for a unit of the library, which has the
 * library's own xlat_target. */
xlat_target xlat__walker_target(xlat_walker *pool);

#endif /* XLAT_WALKER_TARGET_H */
