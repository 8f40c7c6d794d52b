/**
 * @file target.h
 * @brief The one interface through which timed units accept translation
 *        requests and answer them.
 */
#ifndef XLAT_TARGET_H
#define XLAT_TARGET_H

#include "common.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup target Requests, responses and targets
 * @brief How units compose: a TLB's miss path is an ::xlat_target.
 *
 * A target either accepts a request (returns ::XLAT_OK) and later calls
 * `done(user, resp)` exactly once, from inside xlat_tick() / xlat_advance()
 * or from inside the call of a unit further down, or refuses it
 * (::XLAT_ERR_AGAIN and others) and never calls `done` for it. The request
 * is copied on acceptance; the caller's struct may be reused at once.
 * @{
 */

/** @brief Kind of memory access being translated. */
typedef enum xlat_access {
    XLAT_ACCESS_READ = 0,  /**< Needs ::XLAT_PERM_R. */
    XLAT_ACCESS_WRITE = 1, /**< Needs ::XLAT_PERM_W. */
    XLAT_ACCESS_EXEC = 2,  /**< Needs ::XLAT_PERM_X. */
    XLAT_ACCESS_ATOMIC = 3 /**< Needs ::XLAT_PERM_R and ::XLAT_PERM_W. */
} xlat_access;

/** @brief Permission bits of a translation (xlat_resp::perm, xlat_tlb_entry::perm). */
enum {
    XLAT_PERM_R = 1, /**< Readable. */
    XLAT_PERM_W = 2, /**< Writable. */
    XLAT_PERM_X = 4, /**< Executable. */
    XLAT_PERM_U = 8  /**< User-accessible. */
};

/**
 * @brief Named per-translation metadata that policies declare, carried with
 *        a translation through TLB entries, responses and fills.
 *
 * Every field has one owner, named below; a unit that does not own a field
 * only copies it with the translation (a TLB stores it with the entry and
 * returns it on a hit), and a host that puts its own L2 between units
 * stores these typed fields, never bits it does not understand. A zeroed
 * struct is "no metadata". 12 bytes.
 */
typedef struct xlat_meta {
    /** Barre Chord: the id of the data object (one GPU allocation) the page
     *  belongs to; the IOMMU's PEC buffer keeps one entry per data object
     *  ("Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-
     *  Module GPUs" §IV-A, §IV-E). 0: none. */
    uint32_t object_id;
    /** least-TLB: the GPU whose L2 an IOMMU TLB entry came from (set by the
     *  IOMMU on its own TLB's entries; the owner of a spill and the Eviction
     *  Counter it counts against, "Improving Address Translation in
     *  Multi-GPUs via Sharing and Spilling aware TLB Design" §4.2). 0 on a
     *  translation that leaves the IOMMU. */
    uint16_t home_gpu;
    /** Barre Chord: the coalescing group information (`coal_bitmap`,
     *  `inter`, `intra`, `#merged`) an ATS response carries and the L2 TLB entry
     *  stores with the PFN ("Barre Chord" §V-A): the leaf PTE's bits 52..62 as
     *  a walk finds them (xlat_coal_decode() of them shifted back to bit 52;
     *  10 bits in F-Barre's layout, 11 in Barre's); the upper 5 bits are 0. */
    uint16_t coal_info;
    /** least-TLB: spills the translation may still take, the counter N
     *  (N = 1: the spill bit); set to the configured N when it leaves the
     *  IOMMU, one less in a spilled guest (least-TLB §4.2). */
    uint8_t spill_credit;
    /** least-TLB: 1 in a spilled guest of another GPU's L2, whose eviction
     *  is dropped when its credit is 0 (least-TLB §4.2, Algorithm 2). */
    uint8_t spilled;
} xlat_meta;

/**
 * @brief The translation record: one page's mapping as units hold and pass
 *        it (TLB entries, fills, a host resolver's answer).
 */
typedef struct xlat_translation {
    uint32_t pasid;          /**< address space */
    uint64_t vpn;            /**< virtual address >> page_shift */
    uint64_t pfn;            /**< physical address >> page_shift */
    uint8_t  page_shift;     /**< 12, 16, 21, 30 (any of 12..63 is accepted) */
    uint8_t  perm;           /**< XLAT_PERM_* */
    xlat_meta meta;          /**< the policies' named metadata (zeroed: none) */
} xlat_translation;

/** @brief A translation request. */
typedef struct xlat_req {
    uint64_t    id;     /**< The host's id, returned in the response. */
    uint64_t    vaddr;  /**< Virtual address (bytes). */
    uint32_t    pasid;  /**< Address space (tenant). */
    xlat_access access; /**< Kind of access. */
    uint16_t    gpu;    /**< Origin GPU (or chiplet). */
    uint16_t    cu;     /**< Origin compute unit. */
} xlat_req;

/** @brief The answer to one accepted request. */
typedef struct xlat_resp {
    uint64_t    id;         /**< The request's id. */
    uint64_t    vaddr;      /**< The request's virtual address. */
    uint32_t    pasid;      /**< The request's address space. */
    int         status;     /**< ::XLAT_OK, ::XLAT_ERR_FAULT, ::XLAT_ERR_PERM, ::XLAT_ERR_NOT_FOUND. */
    uint64_t    paddr;      /**< Physical address of `vaddr` (valid when status is OK). */
    uint64_t    pfn;        /**< Physical frame number (paddr >> page_shift). */
    uint8_t     page_shift; /**< log2 of the page size. */
    uint8_t     perm;       /**< XLAT_PERM_* of the translation. */
    xlat_meta   meta;       /**< The resolving entry's metadata, for the sender's fill. */
    uint64_t    issued;     /**< Cycle the request was accepted by the unit that answers. */
    uint64_t    completed;  /**< Cycle of this answer. */
    /** The unit id of the unit that answered: the one that held the
     *  translation, or the one that failed or refused it on the way. Name
     *  it with xlat_unit_name(ctx, id) (NULL once that unit is destroyed;
     *  an id is never reused while the context lives). Every answer a unit
     *  of libxlat makes names a unit; 0 is what a host's own target or L2
     *  port sets, when no unit of the context resolved the request. */
    uint32_t    resolver;
} xlat_resp;

/** @brief Completion callback: called once per accepted request. */
typedef void (*xlat_done_fn)(void *user, const xlat_resp *resp);

/**
 * @brief Anything that accepts translation requests.
 *
 * A sized struct: start every one with ::XLAT_TARGET_INIT (or set
 * `struct_size` to `sizeof(xlat_target)`) before a unit's `get_target`
 * fills it or the host fills it itself, so that a host built against an
 * older libxlat keeps working with a newer one (doc/abi.md).
 */
typedef struct xlat_target {
    /** sizeof(xlat_target) as the host compiled it: how many bytes a
     *  `get_target` call may write, and how many a unit reads when given
     *  the target. At least ::XLAT_TARGET_SIZE_V0. */
    uint32_t struct_size;
    /** Accept `req` (return ::XLAT_OK) or refuse it (a negative code). */
    int  (*translate)(void *unit, const xlat_req *req, xlat_done_fn done, void *user);
    void  *unit; /**< First argument of `translate`. */
    /** Optional: after `translate` refused with ::XLAT_ERR_AGAIN, call
     *  `fn(user)` (from inside tick/advance) once the unit may accept again,
     *  so the sender need not retry every cycle. NULL: the sender polls. */
    int  (*wait)(void *unit, xlat_event_fn fn, void *user);
    /** The unit id (xlat_unit_id()) of the libxlat unit behind `translate`,
     *  set by its `get_target`; 0 for a host's own target. A unit given
     *  this target as its next level holds that unit: destroying it then
     *  returns ::XLAT_ERR_BUSY until the holder is rewired or destroyed
     *  (doc/composition.md, "Teardown"). */
    uint32_t unit_id;
} xlat_target;

/**
 * @brief Smallest `struct_size` of an ::xlat_target any call accepts: the
 *        size of the first release's struct (through `unit_id`).
 */
#define XLAT_TARGET_SIZE_V0 XLAT_SIZE_THROUGH(xlat_target, unit_id)

/**
 * @brief Initializer of an empty ::xlat_target with its `struct_size` set:
 *        `xlat_target t = XLAT_TARGET_INIT;` (C and C++).
 */
#define XLAT_TARGET_INIT { (uint32_t)sizeof(xlat_target), NULL, NULL, NULL, 0 }

/**
 * @brief Send a request to a target.
 * @param target the target to send to.
 * @param req the request; copied if the target accepts it.
 * @param done called once with the answer if the request is accepted.
 * @param user passed back to `done` as its first argument.
 * @retval XLAT_ERR_INVAL `target`, its `translate`, `req` or `done` is NULL,
 *         or `target->struct_size` is below ::XLAT_TARGET_SIZE_V0.
 * @return otherwise what the target returns.
 */
XLAT_API int xlat_target_translate(const xlat_target *target, const xlat_req *req,
                                   xlat_done_fn done, void *user);

/**
 * @brief Permission bits an access needs.
 * @param access the kind of access.
 * @return XLAT_PERM_* bits (::XLAT_PERM_R | ::XLAT_PERM_W for an atomic);
 *         0 for a value that is not an ::xlat_access.
 */
XLAT_API uint8_t xlat_access_perm(xlat_access access);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_TARGET_H */
