/**
 * @file xlat.h
 * @brief The umbrella header: include this one.
 *
 * libxlat models GPU address translation for architecture simulators: TLBs,
 * cuckoo filters and timed units that a host composes through callbacks and
 * drives with xlat_tick() / xlat_advance().
 */
#ifndef XLAT_XLAT_H
#define XLAT_XLAT_H

#include "common.h"
#include "version.h"
#include "ctx.h"
#include "stats.h"
#include "target.h"
#include "tlb.h"
#include "fixed.h"
#include "cuckoo.h"
#include "physmem.h"
#include "pagetable.h"
#include "pwc.h"
#include "barre.h"
#include "barre_alloc.h"
#include "fbarre.h"
#include "walker.h"
#include "gmmu.h"
#include "link.h"
#include "iommu.h"
#include "system.h"
#include "mcm.h"

#endif /* XLAT_XLAT_H */
