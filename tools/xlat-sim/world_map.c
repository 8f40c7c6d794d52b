/*
 * Filling the page table as the run goes: a workload's declared objects
 * first, then every page the first time a request touches it, a chunk of
 * `map_chunk_pages` aligned pages at a time (with Barre, each chunk one
 * data object laid out by the group allocator). With GMMUs, each page is
 * also mapped in the local table of the GPU whose memory holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "world.h"

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Open addressing; a key is never 0 (the chunk key sets bit 63). */
static bool set_has(const sim_chunk_set *s, uint64_t key)
{
    if (!s->cap)
        return false;
    for (size_t i = mix64(key) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->keys[i] == key)
            return true;
        if (!s->keys[i])
            return false;
    }
}

static void set_put_slot(sim_chunk_set *s, uint64_t key)
{
    size_t i = mix64(key) & (s->cap - 1);
    while (s->keys[i])
        i = (i + 1) & (s->cap - 1);
    s->keys[i] = key;
    s->used++;
}

static int set_add(sim_chunk_set *s, uint64_t key, sim_error *err)
{
    if ((s->used + 1) * 2 > s->cap) {
        sim_chunk_set grown = {.cap = s->cap ? s->cap * 2 : 1024};
        grown.keys = calloc(grown.cap, sizeof(*grown.keys));
        if (!grown.keys)
            return sim_fail(err, "out of memory mapping pages");
        for (size_t i = 0; i < s->cap; i++)
            if (s->keys[i])
                set_put_slot(&grown, s->keys[i]);
        free(s->keys);
        *s = grown;
    }
    set_put_slot(s, key);
    return 0;
}

static uint64_t chunk_key(uint32_t pasid, uint64_t chunk)
{
    return (1ull << 63) | ((uint64_t)pasid << 40) | (chunk & ((1ull << 40) - 1));
}

/* GPU g's local table gets each page of [vpn, vpn + pages) its memory holds. */
static int map_local(sim_world *w, uint32_t pasid, uint64_t vpn, uint64_t pages, sim_error *err)
{
    uint32_t shift = w->cfg.mem.page_shift;
    for (uint64_t p = vpn; p < vpn + pages; p++) {
        xlat_tlb_entry e;
        uint32_t region;
        if (xlat_pagetable_lookup(w->pt, pasid, p << shift, &e) != XLAT_OK ||
            xlat_physmem_region_of(w->mem, e.pfn, &region) != XLAT_OK || region >= w->gpus)
            continue;
        int rc = xlat_pagetable_map(w->local_pt[region], pasid, p << shift, e.pfn, e.page_shift, e.perm);
        if (rc != XLAT_OK && rc != XLAT_ERR_EXIST)
            return sim_fail(err, "mapping page 0x%llx in GPU %u's local table: %s",
                            (unsigned long long)(p << shift), region, xlat_ctx_errmsg(w->ctx));
    }
    return 0;
}

/* Maps [vpn, vpn + pages) of `pasid` for GPU `gpu`: one run of unmapped pages. */
static int map_run(sim_world *w, uint32_t pasid, uint64_t vpn, uint64_t pages, uint32_t gpu,
                   sim_error *err)
{
    uint32_t shift = w->cfg.mem.page_shift;
    int rc;
    if (w->alloc) {
        xlat_barre_object o;
        xlat_barre_object_init(&o);
        o.pasid = pasid;
        o.start_vpn = vpn;
        o.pages = pages;
        o.placement = w->cfg.barre.placement;
        o.interlv_gran = w->cfg.barre.interlv_gran;
        rc = xlat_barre_alloc_map(w->alloc, &o, w->pec, NULL);
    } else {
        int64_t n = xlat_pagetable_map_range(w->pt, pasid, vpn << shift, pages << shift,
                                             gpu % w->gpus, XLAT_PERM_R | XLAT_PERM_W);
        rc = n < 0 ? (int)n : XLAT_OK;
    }
    if (rc != XLAT_OK)
        return sim_fail(err, "mapping %llu pages at 0x%llx (pasid %u): %s",
                        (unsigned long long)pages, (unsigned long long)(vpn << shift), pasid,
                        xlat_ctx_errmsg(w->ctx));
    w->pages_mapped += pages;
    return w->cfg.gmmu ? map_local(w, pasid, vpn, pages, err) : 0;
}

static bool page_mapped(const sim_world *w, uint32_t pasid, uint64_t vpn)
{
    xlat_tlb_entry e;
    return xlat_pagetable_lookup(w->pt, pasid, vpn << w->cfg.mem.page_shift, &e) == XLAT_OK;
}

/* Maps every unmapped run of pages in [vpn, end). */
static int map_gaps(sim_world *w, uint32_t pasid, uint64_t vpn, uint64_t end, uint32_t gpu,
                    sim_error *err)
{
    while (vpn < end) {
        while (vpn < end && page_mapped(w, pasid, vpn))
            vpn++;
        uint64_t run = vpn;
        while (run < end && !page_mapped(w, pasid, run))
            run++;
        if (run > vpn && map_run(w, pasid, vpn, run - vpn, gpu, err) != 0)
            return -1;
        vpn = run;
    }
    return 0;
}

int sim_world_touch(sim_world *w, const sim_request *r, sim_error *err)
{
    uint64_t per = w->cfg.mem.map_chunk_pages ? w->cfg.mem.map_chunk_pages : 1;
    uint64_t chunk = (r->vaddr >> w->cfg.mem.page_shift) / per;
    uint64_t key = chunk_key(r->pasid, chunk);
    if (set_has(&w->mapped, key))
        return 0;
    if (map_gaps(w, r->pasid, chunk * per, (chunk + 1) * per, r->gpu, err) != 0)
        return -1;
    return set_add(&w->mapped, key, err);
}

int sim_world_map_objects(sim_world *w, const sim_object *o, size_t n, sim_error *err)
{
    uint32_t shift = w->cfg.mem.page_shift;
    for (size_t i = 0; i < n; i++) {
        uint64_t vpn = o[i].vaddr >> shift;
        uint64_t end = (o[i].vaddr + o[i].bytes + (1ull << shift) - 1) >> shift;
        if (map_gaps(w, o[i].pasid, vpn, end, o[i].home_gpu, err) != 0)
            return -1;
    }
    return 0;
}
