/**
 * @file fbarre.h
 * @brief F-Barre's intra-package translation: per-chiplet coalescing
 *        filters (LCF, RCFs), peer requests and a per-chiplet PEC buffer.
 */
#ifndef XLAT_FBARRE_H
#define XLAT_FBARRE_H

#include "barre.h"
#include "common.h"
#include "link.h"
#include "target.h"
#include "tlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup fbarre F-Barre: intra-package translation
 * @brief One unit per chiplet between its L2 TLB and its path to the
 *        IOMMU, translating a miss inside the package from the coalescing
 *        group information of a TLB entry, its own or a peer's ("Barre
 *        Chord: Efficient Virtual Memory Translation for Multi-Chip-Module
 *        GPUs" §V-A).
 *
 * @code
 * xlat_fbarre_config unit;
 * xlat_fbarre_config_init(&unit);
 * for (int g = 0; g < 4; g++) unit.base_pfn[g] = 0xA000 + 0x1000 * g;
 * xlat_fbarre_mesh_config mc;
 * xlat_fbarre_mesh_config_init(&mc);          // 4 chiplets, 32-cycle links
 * mc.chiplet = &unit;
 * xlat_fbarre_mesh *mesh;
 * xlat_fbarre_mesh_create(ctx, &mc, &mesh);
 * for (uint32_t g = 0; g < 4; g++) {
 *     xlat_fbarre *fb = xlat_fbarre_mesh_chiplet(mesh, g);
 *     xlat_fbarre_attach_l2(fb, l2[g]);       // its LCF follows the L2
 *     xlat_fbarre_set_next(fb, &ats[g]);      // PCIe to the IOMMU
 *     xlat_fbarre_set_pec_source(fb, xlat_fbarre_pec_from_buffer, iommu_pec);
 *     xlat_target t = XLAT_TARGET_INIT;
 *     xlat_fbarre_get_target(fb, &t);
 *     xlat_tlb_set_next(l2[g], &t);           // the L2's misses come here
 * }
 * @endcode
 *
 * **Request flow** (§V-A, Example 5). A miss of the L2 on page p reaches
 * the unit at cycle t. The filters are probed in parallel with the L2's own
 * lookup, `filter_latency` cycles (0 by default):
 * 1. *Local path.* The candidates of p (p ± k·interlv_gran inside the data
 *    object of the chiplet's PEC buffer entry covering p) are probed in the
 *    LCF. Each hit costs one lookup of the L2 (`tlb_latency`, without
 *    changing its replacement state); the first entry of p's group gives
 *    p's frame by the PEC calculation (xlat_pec_calc()), answered
 *    `pec_latency` later. Hits that give nothing are LCF false positives.
 * 2. *Peer path.* Otherwise, if the RCF of peer x holds p (the lowest such
 *    x), the request goes to x over the peer path (a link of 32 cycles in
 *    the mesh). x computes p's candidates (p itself first) with its own PEC
 *    buffer (`pec_latency`), probes its LCF, looks its L2 up once per LCF
 *    hit (`tlb_latency`) and answers the frame (`pec_latency` later), or a
 *    NACK (status ::XLAT_ERR_NOT_FOUND) when nothing gives it.
 * 3. *ATS.* Otherwise, or after a NACK (serial fallback), the request goes
 *    to the next target (the ATS path to the IOMMU). When its answer
 *    carries a group (popcount(coal_bitmap) > 1), the data object's PEC
 *    entry comes with it: the unit asks its PEC source (the IOMMU's PEC
 *    buffer, xlat_fbarre_pec_from_buffer(), or the host's) and keeps the
 *    entry in its own PEC buffer.
 *
 * **Filters** (§V-A.2). The LCF holds the exact pages of the chiplet's L2;
 * RCF x holds, for each entry of peer x's L2, the page and every page of
 * its group. On each fill of the L2 that this unit answered (or that a host
 * reports with xlat_fbarre_l2_inserted()) and on each eviction (an eviction
 * listener of the L2), the unit updates its LCF and sends one filter-update
 * message per page of the group to every peer. Messages are best effort:
 * dropped at random (`drop_prob`) or when the sender's queue holds
 * `msg_queue` unsent ones, sent `msgs_per_cycle` a cycle, and received
 * `msg_latency` cycles after they leave. In `oracle` mode (the paper's
 * Fig 19) every message arrives `msg_latency` cycles after it was made, with
 * no rate, queue or random drop. A false positive of any filter costs time,
 * never a wrong frame: every frame comes from a TLB entry of the page's
 * group, checked by the PEC calculation.
 *
 * **Shootdown.** xlat_fbarre_shootdown() resets the LCF, every RCF and the
 * PEC buffer, and drops the messages not yet delivered (§VI, "TLB
 * Shutdown"); xlat_fbarre_mesh_shootdown() does it on every chiplet.
 *
 * Pages are 4 KiB: candidates and filter keys are 4 KiB page numbers.
 * @{
 */

/** @brief Chiplets an F-Barre package may have (3-bit sender ids, 8-bit bitmaps). */
#define XLAT_FBARRE_MAX_CHIPLETS 8u

/** @brief One chiplet's F-Barre unit. */
typedef struct xlat_fbarre xlat_fbarre;

/**
 * @brief Where a chiplet gets the PEC entry of the data object an ATS
 *        answer belongs to (the paper's ATS response carries the 118-bit
 *        entry; libxlat asks the IOMMU's PEC buffer, or the host, instead).
 * @param user the pointer given with the function.
 * @param pasid the address space.
 * @param vpn the translated page (4 KiB page number).
 * @param out receives the entry.
 * @return ::XLAT_OK with `*out` set, or a negative code (no entry: the
 *         chiplet's PEC buffer is left as it was).
 */
typedef int (*xlat_fbarre_pec_source_fn)(void *user, uint32_t pasid, uint64_t vpn,
                                         xlat_pec_entry *out);

/**
 * @brief Delivery of one filter-update message to a peer: the message port.
 * @param user the pointer given with the function (for the default port,
 *        the receiving ::xlat_fbarre).
 * @param pasid the address space of the page (libxlat's filters key pages by
 *        PASID; the paper's message has no field for it).
 * @param msg the 44-bit message (xlat_fbarre_msg_encode()).
 */
typedef void (*xlat_fbarre_msg_fn)(void *user, uint32_t pasid, uint64_t msg);

/** @brief Configuration of one chiplet's unit; fill with xlat_fbarre_config_init(). */
typedef struct xlat_fbarre_config {
    uint32_t    struct_size;   /**< sizeof(xlat_fbarre_config), set by init. */
    const char *name;          /**< for statistics (copied; NULL: "fbarre") */
    uint32_t    chiplet;       /**< this chiplet's id, below `chiplets` (default 0) */
    uint32_t    chiplets;      /**< chiplets in the package, 2..::XLAT_FBARRE_MAX_CHIPLETS (default 4) */
    /** base_pfn[g]: chiplet g's first global frame (the global PFN map of
     *  Fig 7a), for g below `chiplets` (default all 0). */
    uint64_t    base_pfn[XLAT_FBARRE_MAX_CHIPLETS];
    /** The group information in the L2's entries (xlat_meta::coal_info) is
     *  in the expanded layout (xlat_coal_encode()), else in Barre's (default 0). */
    uint32_t    expanded;
    uint32_t    filter_rows;   /**< buckets of each filter, a power of two (default 256) */
    uint32_t    filter_ways;   /**< fingerprints per bucket, 1..8 (default 4) */
    uint32_t    fp_bits;       /**< fingerprint bits, 4..32 (default 9) */
    uint32_t    filter_latency; /**< cycles of the filter probes after the L2's miss (default 0: in parallel with it) */
    uint32_t    tlb_latency;   /**< cycles of one lookup of the L2 for a candidate (default 10) */
    uint32_t    pec_latency;   /**< cycles of a PEC step: candidates, or a frame (default 1) */
    uint32_t    msg_latency;   /**< cycles of a filter-update message once sent (default 32) */
    uint32_t    msg_queue;     /**< unsent messages the sender queues before it drops (default 64) */
    uint32_t    msgs_per_cycle; /**< messages sent a cycle, >= 1 (default 1) */
    double      drop_prob;     /**< probability in [0, 1] that a message is lost (default 0) */
    uint32_t    oracle;        /**< 1: messages arrive after `msg_latency`, never dropped nor queued (Fig 19) */
    uint32_t    max_outstanding; /**< the L2's requests in flight at once, >= 1 (default 64) */
    uint32_t    peer_slots;    /**< peers' requests served at once, >= 1 (default 64) */
    uint32_t    pec_entries;   /**< entries of the chiplet's PEC buffer (default 5) */
    uint32_t    clock_num;     /**< clock ratio to the context's (0/0: 1:1; @ref clocks) */
    uint32_t    clock_den;     /**< denominator of the clock ratio */
} xlat_fbarre_config;

/** @brief Smallest `struct_size` xlat_fbarre_create() accepts (through `clock_den`). */
#define XLAT_FBARRE_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_fbarre_config, clock_den)

/** @brief Counters of one chiplet's unit (xlat_fbarre_stats_get(), xlat_stats_foreach()). */
typedef struct xlat_fbarre_stats {
    uint64_t requests;      /**< requests of the L2 accepted */
    uint64_t local_hits;    /**< answered by the local path: walks avoided locally */
    uint64_t peer_hits;     /**< answered by a peer: walks avoided by peers */
    uint64_t ats_requests;  /**< sent on the ATS path */
    uint64_t lcf_false_positives; /**< LCF hits whose L2 lookups gave no frame (either side) */
    /** rcf_false_positives_x: requests sent to peer x on an RCF hit and NACKed */
    uint64_t rcf_false_positives[XLAT_FBARRE_MAX_CHIPLETS];
    uint64_t nacks_received; /**< NACKs from peers (each followed by the ATS) */
    uint64_t peer_requests; /**< peers' requests served */
    uint64_t peer_answers;  /**< of them, answered with a frame */
    uint64_t nacks_sent;    /**< of them, NACKed */
    uint64_t msgs_sent;     /**< filter-update messages sent */
    uint64_t msgs_dropped;  /**< messages lost: random drop, full queue, shootdown */
    uint64_t msgs_received; /**< messages applied to an RCF */
    uint64_t filter_full;   /**< filter inserts refused (a full cuckoo table) */
    uint64_t pec_fills;     /**< PEC entries taken from ATS answers */
    uint64_t shootdowns;    /**< xlat_fbarre_shootdown() calls */
} xlat_fbarre_stats;

/** @brief A filter-update message (§V-A.2): 1-bit command, 3-bit sender, 40-bit page. */
typedef struct xlat_fbarre_msg {
    bool     add;    /**< add (1) or delete (0) */
    uint8_t  sender; /**< the chiplet whose L2 changed (0..7) */
    uint64_t vpn;    /**< the page (40 bits) */
} xlat_fbarre_msg;

/**
 * @brief xlat_fbarre_config_init() for a caller whose ::xlat_fbarre_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_fbarre_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_fbarre_config_init_sized(xlat_fbarre_config *cfg, size_t size);

/**
 * @brief Defaults: 4 chiplets, chiplet 0, Table II's filters (256 rows,
 *        4 ways, 9-bit fingerprints), latencies 0 / 10 / 1 / 32, a queue of
 *        64 messages sent one a cycle, no drops, 64 requests and 64 peer
 *        requests in flight, 5 PEC entries.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_fbarre_config_init(xlat_fbarre_config *cfg)
{
    xlat_fbarre_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create one chiplet's unit: its filters (1 LCF, chiplets - 1 RCFs),
 *        PEC buffer, records and events are all allocated here.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, a `struct_size` below the pinned
 *         size, or a field out of range (the message names it)
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_fbarre_create(xlat_ctx *ctx, const xlat_fbarre_config *cfg, xlat_fbarre **out);

/**
 * @brief Destroy the unit, its filters and PEC buffer; NULL does nothing.
 *        Requests in flight are dropped.
 * @param fb the unit, or NULL.
 * @retval XLAT_OK
 * @retval XLAT_ERR_BUSY a unit whose next level it is (its L2, a link of a
 *         peer) still holds it; nothing was destroyed
 */
XLAT_API int xlat_fbarre_destroy(xlat_fbarre *fb);

/**
 * @brief Follow `l2`, the chiplet's L2 TLB: its evictions (an eviction
 *        listener) and its entries (candidates are looked up there with
 *        xlat_tlb_probe()). Not a hold: an L2 destroyed first is detached.
 * @param fb the unit.
 * @param l2 the L2 TLB (NULL: detach).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fb`
 * @retval XLAT_ERR_NOMEM the listener could not be added; nothing changed
 */
XLAT_API int xlat_fbarre_attach_l2(xlat_fbarre *fb, xlat_tlb *l2);

/**
 * @brief Set the ATS path (copied): where requests go that the package
 *        cannot translate. The unit holds the unit it names; one that
 *        grows with its load (an ::xlat_link) makes room here for
 *        `max_outstanding` requests.
 * @param fb the unit.
 * @param next the target (NULL: none; such requests are answered
 *        ::XLAT_ERR_NOT_FOUND).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fb`, or a target without `translate` or with
 *         a `struct_size` below ::XLAT_TARGET_SIZE_V0
 * @retval XLAT_ERR_NOT_FOUND the target names a destroyed unit
 * @retval XLAT_ERR_NOMEM the target's unit could not make room; nothing
 *         changed
 */
XLAT_API int xlat_fbarre_set_next(xlat_fbarre *fb, const xlat_target *next);

/**
 * @brief Connect peer chiplet `peer`: the path its requests take (copied
 *        and held, as a next level) and the port its filter-update
 *        messages are delivered to.
 * @param fb the unit.
 * @param peer the peer's chiplet id (not this unit's).
 * @param path the request path to the peer's xlat_fbarre_get_peer_target()
 *        (NULL: never ask that peer).
 * @param deliver the message port (NULL: messages to that peer are dropped).
 * @param deliver_user first argument of `deliver` (for xlat_fbarre_receive(): the peer).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fb`, `peer` out of range or this chiplet, a
 *         bad target
 * @retval XLAT_ERR_NOT_FOUND the target names a destroyed unit
 * @retval XLAT_ERR_NOMEM the path's unit could not make room (as
 *         xlat_fbarre_set_next()); nothing changed
 */
XLAT_API int xlat_fbarre_set_peer(xlat_fbarre *fb, uint32_t peer, const xlat_target *path,
                                  xlat_fbarre_msg_fn deliver, void *deliver_user);

/**
 * @brief The PEC source the unit asks when an ATS answer carries a group.
 * @param fb the unit.
 * @param fn the source (NULL: none; the PEC buffer then stays empty).
 * @param user its first argument.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fb`
 */
XLAT_API int xlat_fbarre_set_pec_source(xlat_fbarre *fb, xlat_fbarre_pec_source_fn fn, void *user);

/**
 * @brief A PEC source over a PEC buffer (the IOMMU's, written by the
 *        driver at allocation): xlat_pec_buffer_lookup().
 * @param pec_buffer the ::xlat_pec_buffer.
 * @param pasid the address space.
 * @param vpn the page.
 * @param out receives the entry.
 * @return what xlat_pec_buffer_lookup() returns.
 */
XLAT_API int xlat_fbarre_pec_from_buffer(void *pec_buffer, uint32_t pasid, uint64_t vpn,
                                         xlat_pec_entry *out);

/**
 * @brief The unit as the L2's next level.
 * @param fb the unit.
 * @param out receives the target (start it with ::XLAT_TARGET_INIT); its
 *        `wait` calls back when a refused sender may retry.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments or a bad `struct_size`
 */
XLAT_API int xlat_fbarre_get_target(xlat_fbarre *fb, xlat_target *out);

/**
 * @brief The target serving peers' requests: answers the frame, or a NACK
 *        (status ::XLAT_ERR_NOT_FOUND); refuses with ::XLAT_ERR_AGAIN when
 *        `peer_slots` requests are being served.
 * @param fb the unit.
 * @param out receives the target (start it with ::XLAT_TARGET_INIT).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments or a bad `struct_size`
 */
XLAT_API int xlat_fbarre_get_peer_target(xlat_fbarre *fb, xlat_target *out);

/**
 * @brief The L2 took entry `e` that did not come through this unit (a
 *        host's preload, a spill): add it to the LCF and tell the peers.
 *        The unit reports the fills it answers itself.
 * @param fb the unit.
 * @param e the entry (4 KiB page).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments
 */
XLAT_API int xlat_fbarre_l2_inserted(xlat_fbarre *fb, const xlat_tlb_entry *e);

/**
 * @brief The L2 lost entry `e` other than by an eviction (an invalidation,
 *        a shootdown of a migrated group): take it out of the LCF and tell
 *        the peers, as an eviction does. The unit hears of evictions itself.
 * @param fb the unit.
 * @param e the entry as the L2 held it (its group information decides which
 *        pages the peers drop).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments
 */
XLAT_API int xlat_fbarre_l2_removed(xlat_fbarre *fb, const xlat_tlb_entry *e);

/**
 * @brief Apply one filter-update message to the RCF of its sender: the
 *        default message port (an ::xlat_fbarre_msg_fn).
 * @param fbarre the receiving ::xlat_fbarre.
 * @param pasid the page's address space.
 * @param msg the 44-bit message; one from this chiplet or from a chiplet
 *        beyond the package is ignored.
 */
XLAT_API void xlat_fbarre_receive(void *fbarre, uint32_t pasid, uint64_t msg);

/**
 * @brief Shootdown: reset the LCF, every RCF and the PEC buffer, and drop
 *        the messages not yet delivered.
 * @param fb the unit.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fb`
 */
XLAT_API int xlat_fbarre_shootdown(xlat_fbarre *fb);

/**
 * @brief Whether a filter may hold (pasid, vpn): the LCF for `filter` ==
 *        this chiplet, else the RCF of peer `filter`.
 * @param fb the unit (NULL: false).
 * @param filter a chiplet id.
 * @param pasid the address space.
 * @param vpn the page.
 * @return the filter's answer (false positives included); false out of range.
 */
XLAT_API bool xlat_fbarre_filter_contains(const xlat_fbarre *fb, uint32_t filter, uint32_t pasid,
                                          uint64_t vpn);

/**
 * @brief Fingerprints a filter holds (see xlat_fbarre_filter_contains()).
 * @param fb the unit (NULL: 0).
 * @param filter a chiplet id.
 * @return the count; 0 out of range.
 */
XLAT_API size_t xlat_fbarre_filter_count(const xlat_fbarre *fb, uint32_t filter);

/**
 * @brief The chiplet's PEC entry covering (pasid, vpn).
 * @param fb the unit.
 * @param pasid the address space.
 * @param vpn the page.
 * @param out receives the entry (may be NULL).
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND none
 * @retval XLAT_ERR_INVAL NULL `fb`
 */
XLAT_API int xlat_fbarre_pec_lookup(xlat_fbarre *fb, uint32_t pasid, uint64_t vpn,
                                    xlat_pec_entry *out);

/**
 * @brief The 44-bit payload of a message: bit 43 the command (1: add), bits
 *        42..40 the sender, bits 39..0 the page. The paper counts "a total
 *        of 43 bits" for fields of 1 + 3 + 40 bits; libxlat keeps all 44.
 * @param m the message (NULL: 0); fields wider than their bits are cut.
 * @return the payload.
 */
XLAT_API uint64_t xlat_fbarre_msg_encode(const xlat_fbarre_msg *m);

/**
 * @brief Read a payload of xlat_fbarre_msg_encode() (bits above 43 ignored).
 * @param payload the payload.
 * @param out receives the fields; NULL does nothing.
 */
XLAT_API void xlat_fbarre_msg_decode(uint64_t payload, xlat_fbarre_msg *out);

/**
 * @brief Read the counters.
 * @param fb the unit (NULL: zeros).
 * @param out receives at most `out_size` bytes of ::xlat_fbarre_stats.
 * @param out_size sizeof the caller's struct.
 */
XLAT_API void xlat_fbarre_stats_get(const xlat_fbarre *fb, xlat_fbarre_stats *out,
                                    size_t out_size);

/**
 * @brief Zero the counters.
 * @param fb the unit; NULL does nothing.
 */
XLAT_API void xlat_fbarre_stats_reset(xlat_fbarre *fb);

/** @brief N chiplets' units wired to one another by links (xlat_fbarre_mesh_create()). */
typedef struct xlat_fbarre_mesh xlat_fbarre_mesh;

/** @brief Configuration of a mesh; fill with xlat_fbarre_mesh_config_init(). */
typedef struct xlat_fbarre_mesh_config {
    uint32_t           struct_size;  /**< sizeof(xlat_fbarre_mesh_config), set by init. */
    const char        *name;         /**< prefix of the units' names (copied; NULL: "fbarre") */
    uint32_t           link_latency; /**< cycles of a peer request each way (default 32) */
    uint32_t           chiplets;     /**< units, 2..::XLAT_FBARRE_MAX_CHIPLETS (default 4) */
    /** Template of every chiplet's unit, copied at create honouring its own
     *  struct_size (NULL: xlat_fbarre_config_init()'s defaults); `chiplets`,
     *  `chiplet` and `name` are set per chiplet ("<name>N"). */
    const xlat_fbarre_config *chiplet;
} xlat_fbarre_mesh_config;

/** @brief Smallest `struct_size` xlat_fbarre_mesh_create() accepts (through `chiplet`). */
#define XLAT_FBARRE_MESH_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_fbarre_mesh_config, chiplet)

/**
 * @brief xlat_fbarre_mesh_config_init() for a caller whose ::xlat_fbarre_mesh_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_fbarre_mesh_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_fbarre_mesh_config_init_sized(xlat_fbarre_mesh_config *cfg, size_t size);

/**
 * @brief Defaults: 32-cycle links, xlat_fbarre_config_init()'s chiplets.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_fbarre_mesh_config_init(xlat_fbarre_mesh_config *cfg)
{
    xlat_fbarre_mesh_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Build `cfg->chiplets` units and a link from each to each
 *        other (requests one way, answers back), and connect every pair:
 *        requests over the links, messages to xlat_fbarre_receive(). The
 *        mesh owns them all; the host attaches L2s, next targets and PEC
 *        sources.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, a bad `struct_size` or chiplet config
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM nothing is left built
 */
XLAT_API int xlat_fbarre_mesh_create(xlat_ctx *ctx, const xlat_fbarre_mesh_config *cfg,
                                     xlat_fbarre_mesh **out);

/**
 * @brief Destroy the mesh with its units and links; NULL does nothing.
 * @param mesh the mesh, or NULL.
 * @retval XLAT_OK
 * @retval XLAT_ERR_BUSY an L2 still has one of its units as next level
 */
XLAT_API int xlat_fbarre_mesh_destroy(xlat_fbarre_mesh *mesh);

/**
 * @brief Chiplet `g`'s unit.
 * @param mesh the mesh (NULL: NULL).
 * @param g the chiplet.
 * @return the unit, owned by the mesh; NULL out of range.
 */
XLAT_API xlat_fbarre *xlat_fbarre_mesh_chiplet(const xlat_fbarre_mesh *mesh, uint32_t g);

/**
 * @brief Shoot every chiplet's filters down (xlat_fbarre_shootdown()).
 * @param mesh the mesh.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `mesh`
 */
XLAT_API int xlat_fbarre_mesh_shootdown(xlat_fbarre_mesh *mesh);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_FBARRE_H */
