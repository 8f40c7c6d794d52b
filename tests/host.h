/*
 * A host for composition tests: it answers every call-out of a unit
 * (translations sent to its target, page-table reads, faults) either inside
 * the callback, as a zero-latency host does, or one cycle later; it records
 * every completion and checks the contract from the outside: `done` never
 * runs while the sender is inside the unit's translate, and a callback
 * cannot advance the clock.
 */
#ifndef XLAT_TEST_HOST_H
#define XLAT_TEST_HOST_H

#include "testutil.h"

#define HOST_MAX 256

/* Internal (static library): posts that found the event pool empty, i.e. a
 * unit that exceeded the event budget it reserved. Always 0. */
size_t xlat__events_overruns(const xlat_ctx *ctx);

typedef struct host host;

typedef struct host_slot {
    host *h;
    int kind; /* what to answer: a translation, a memory read, a fault */
    xlat_done_fn done;
    void *user;
    xlat_resp resp;
    uint64_t token;
} host_slot;

struct host {
    xlat_ctx *ctx;
    int later;          /* answer call-outs one cycle later instead of inside */
    int in_call;        /* the test is inside a unit's translate */
    int breaches;       /* done ran inside translate, or advance worked from a callback */
    uint64_t pfn_offset; /* the host target's map: pfn = vpn + pfn_offset */
    xlat_walker *walker; /* whose reads and faults the host answers */
    xlat_pagetable *pt;  /* where a fault maps its page */
    xlat_iommu *iommu;   /* whose page requests the host answers */
    uint64_t fault_pfn;  /* next frame a fault maps */
    uint64_t callouts;   /* call-outs answered */
    host_slot slot[HOST_MAX];
    size_t slots;
    /* Completions by request id. */
    int answers[HOST_MAX];
    int status[HOST_MAX];
    uint64_t paddr[HOST_MAX];
    uint64_t completed[HOST_MAX];
};

void host_init(host *h, xlat_ctx *ctx, int later);
/* The host as a next level: an identity-plus-offset map of 4 KiB pages. */
xlat_target host_target(host *h);
/* The host as the walker's memory (set on its config; set h->walker). */
void host_memory_config(host *h, xlat_walker_config *cfg);
/* The host as the walker's memory and fault handler (set on its config). */
void host_walker_config(host *h, xlat_walker_config *cfg);
/* The host as the IOMMU's page-request handler (set on its config, whose
 * walk template must be set already). */
void host_iommu_config(host *h, xlat_iommu_config *cfg);
/* The completion callback that records into h (user: the host). */
void host_done(void *user, const xlat_resp *resp);
/* Sends through `t` as the test's own host code does, watching for done
 * inside the call. */
int host_send(host *h, const xlat_target *t, uint64_t id, uint64_t vaddr, uint32_t pasid);
/* Ticks until `n` answers have come or `limit` cycles passed. */
void host_run(host *h, size_t n, uint64_t limit);
size_t host_answered(const host *h);

#endif
