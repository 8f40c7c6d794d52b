/**
 * @file common.h
 * @brief Status codes, the allocator hook and the handle types shared by
 *        every libxlat header.
 *
 * Status values are pinned: a released code never changes its number.
 */
#ifndef XLAT_COMMON_H
#define XLAT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @def XLAT_API
 * @brief Marks a symbol exported from the shared library. Everything else
 *        in libxlat is hidden.
 */
#if defined(XLAT_BUILDING_LIBRARY) && defined(__GNUC__)
#define XLAT_API __attribute__((visibility("default")))
#else
#define XLAT_API
#endif

/**
 * @brief Bytes of `type` up to and including `member`: how the pinned
 *        XLAT_*_CONFIG_SIZE_V0 constants are written, so that they stay the
 *        size of a config's first released members on every ABI.
 */
#define XLAT_SIZE_THROUGH(type, member) \
    (offsetof(type, member) + sizeof(((type *)0)->member))

/**
 * @defgroup status Status codes
 * @brief What every fallible libxlat function returns.
 *
 * Functions that can fail return `int`: ::XLAT_OK (0) or one of the negative
 * codes below. A function that fails changes nothing, and, when it takes a
 * callback, never calls it. xlat_strerror() names a code;
 * xlat_ctx_errmsg() gives the detail of the last failure on a context.
 * @{
 */
enum {
    XLAT_OK = 0,               /**< Success. */
    XLAT_ERR_INVAL = -1,       /**< An argument or configuration value is invalid. */
    XLAT_ERR_NOMEM = -2,       /**< The allocator returned NULL. */
    XLAT_ERR_AGAIN = -3,       /**< Back-pressure: nothing was taken, try again later. */
    XLAT_ERR_NOT_FOUND = -4,   /**< No such entry, key or mapping. */
    XLAT_ERR_FULL = -5,        /**< The structure has no room left. */
    XLAT_ERR_EXIST = -6,       /**< The entry or mapping exists already. */
    XLAT_ERR_FAULT = -7,       /**< A translation fault (no valid mapping). */
    XLAT_ERR_PERM = -8,        /**< A permission fault (e.g. a write to a read-only page). */
    XLAT_ERR_STATE = -9,       /**< The call is not allowed in the object's current state. */
    XLAT_ERR_UNSUPPORTED = -10, /**< A valid request that this build or unit does not support. */
    XLAT_ERR_BUSY = -11         /**< Another unit still holds this one (its next level): nothing was destroyed. */
};

/**
 * @brief Name and short description of a status code.
 * @param rc any integer; unknown codes get a generic text.
 * @return a static string, never NULL.
 */
XLAT_API const char *xlat_strerror(int rc);
/** @} */

/**
 * @brief Memory hooks given to a context; every byte libxlat uses comes
 *        through them.
 *
 * `alloc` returns memory of at least `size` bytes aligned to `align` (a power
 * of two no larger than 64), or NULL. `free` receives the same `size` that was
 * asked for. `user` is passed back unchanged as the first argument.
 *
 * On Linux, the event queue asks the kernel for transparent huge pages
 * (`madvise(MADV_HUGEPAGE)`) over the whole 2 MiB pages inside each block of
 * 4 MiB or more it allocates (a pool of some 130,000 pending events or
 * more): firing a large pool then misses the host's translation caches far
 * less. It is a hint: the memory stays the allocator's, its contents are
 * unchanged, and a kernel with transparent huge pages off ignores it.
 *
 * A context that holds more than 4 MiB of small objects (64 KiB or less
 * each: a system of 16 GPUs or more, whose units are thousands) takes the
 * next ones from chunks of 8, 16, then 32 MiB that it asks `alloc` for and
 * advises the same way, so that its units share a few huge pages rather
 * than spread over thousands of small ones. An object it frees there is
 * kept for the context's next object of its size; the chunks go back to
 * `free` when the context is destroyed. A context below 4 MiB calls
 * `alloc` once an object, as before.
 */
typedef struct xlat_allocator {
    void *(*alloc)(void *user, size_t size, size_t align); /**< Allocate; NULL on failure. */
    void  (*free)(void *user, void *ptr, size_t size);     /**< Release a block from `alloc`. */
    void   *user;                                          /**< Passed back to both hooks. */
} xlat_allocator;

/** @brief A cycle count meaning "never" (no pending event). */
#define XLAT_NEVER UINT64_MAX

/**
 * @brief Largest `clock_num` or `clock_den` a timed unit's config accepts.
 *
 * A timed unit (TLB, fixed responder, link, walker pool, IOMMU, GMMU) runs
 * at `clock_num` / `clock_den` times its context's frequency; both 0 (what
 * config_init leaves) is 1:1. Ratios range from 1/65536 to 65536.
 * See [Clock domains](@ref clocks).
 */
#define XLAT_CLOCK_RATIO_MAX 65536u

/** @brief A clock domain: cycle counter, event queue, allocator, seed, last error. */
typedef struct xlat_ctx xlat_ctx;
/** @brief A set-associative TLB (see tlb.h). */
typedef struct xlat_tlb xlat_tlb;
/** @brief A cuckoo filter (see cuckoo.h). */
typedef struct xlat_cuckoo xlat_cuckoo;
/** @brief A fixed-latency translation responder (see fixed.h). */
typedef struct xlat_fixed xlat_fixed;
/** @brief Simulated physical memory: regions and frame allocators (see physmem.h). */
typedef struct xlat_physmem xlat_physmem;
/** @brief Radix page tables, one per PASID (see pagetable.h). */
typedef struct xlat_pagetable xlat_pagetable;
/** @brief A page walk cache (see pwc.h). */
typedef struct xlat_pwc xlat_pwc;
/** @brief A pool of page-table walkers with a scheduler (see walker.h). */
typedef struct xlat_walker xlat_walker;
/** @brief A GPU's memory management unit with the GMMU bypass (see gmmu.h). */
typedef struct xlat_gmmu xlat_gmmu;
/** @brief A fixed-latency link between units (see link.h). */
typedef struct xlat_link xlat_link;
/** @brief The IOMMU shared by GPUs (see iommu.h). */
typedef struct xlat_iommu xlat_iommu;
/** @brief A whole multi-GPU translation system (see system.h). */
typedef struct xlat_system xlat_system;

#ifdef __cplusplus
}
#endif

#endif /* XLAT_COMMON_H */
