/* Barre Chord's group allocator, its PEC buffer and a walker pool's PEC
 * logic, driven by the bytes. The first bytes choose the chiplets (1..8,
 * 1..4 with merging), their frames, the merge limit, the fallback, how
 * fragmented the chiplets are, the PEC buffer's size and the pool (walkers,
 * PEC latency, multicast, coalescing-aware scheduling, coalescing). Then:
 * map data objects of random sizes, placements and GPU maps (some bad,
 * some overlapping), unmap, migrate (some to no chiplet or outside the
 * object), hand the allocator an entry it could not have made, and send
 * the pool bursts of reads of the objects' pages.
 *
 * What is checked: every frame a PEC calculation computes, from the walk of
 * any page of an object to any other page, is the frame the page table
 * maps; every answer of the pool (walked or computed by its PEC logic) is
 * the page table's frame, or XLAT_ERR_FAULT for a page of no object, and
 * comes exactly once; a bad object or id is XLAT_ERR_INVAL with a message
 * and takes nothing; a refused map gives every frame back; unmapping every
 * object gives back every frame; the PEC buffer only names live objects;
 * the allocator's counters agree with what it was asked. */
#include <string.h>

#include "fuzz.h"

#define MAX_OBJECTS 12
#define MAX_PAGES 48
#define NODE_BASE 0x40000
#define MAX_REQS 256
#define DRAIN_CYCLES 100000
#define PERM_ALL (XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U)

typedef struct harness {
    fuzz_input *in;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_barre_alloc *alloc;
    xlat_pec_buffer *pec;
    xlat_walker *pool;
    uint64_t base[XLAT_BARRE_MAX_CHIPLETS];
    uint32_t chiplets, frames, max_merge;
    uint64_t next_vpn, free_at_start;
    uint64_t maps, unmaps, migrations; /* what the allocator did, for its counters */
    uint32_t n;
    xlat_pec_entry live[MAX_OBJECTS];
    size_t nreq, answered;
    uint8_t answers[MAX_REQS];
    uint32_t req_pasid[MAX_REQS];
    uint64_t req_vpn[MAX_REQS];
} harness;

static uint64_t free_frames(const harness *h)
{
    uint64_t n = 0;
    for (uint32_t g = 0; g < h->chiplets; g++)
        n += xlat_physmem_free_frames(h->mem, g);
    return n;
}

static int lookup(const harness *h, uint32_t pasid, uint64_t vpn, xlat_tlb_entry *e)
{
    return xlat_pagetable_lookup(h->pt, pasid, vpn << 12, e);
}

/* Every PEC calculation from any page of `d` to any other gives the frame
 * the page table holds. */
static void check_object(const harness *h, const xlat_pec_entry *d)
{
    bool expanded = xlat_barre_alloc_expanded(h->alloc);
    for (uint64_t p = d->start_vpn; p <= d->end_vpn; p++) {
        xlat_tlb_entry ep, eq;
        FUZZ_CHECK(lookup(h, d->pasid, p, &ep) == XLAT_OK, "page 0x%llx of an object unmapped",
                   (unsigned long long)p);
        xlat_coal_info ci;
        xlat_coal_decode((uint64_t)ep.meta.coal_info << 52, expanded, &ci);
        for (uint64_t q = d->start_vpn; q <= d->end_vpn; q++) {
            uint64_t pfn;
            if (xlat_pec_calc(d, h->base, p, ep.pfn, &ci, q, &pfn) != XLAT_OK)
                continue;
            FUZZ_CHECK(lookup(h, d->pasid, q, &eq) == XLAT_OK && eq.pfn == pfn,
                       "from 0x%llx the PEC computes 0x%llx for 0x%llx, the table holds 0x%llx",
                       (unsigned long long)p, (unsigned long long)pfn, (unsigned long long)q,
                       (unsigned long long)eq.pfn);
        }
    }
}

static void check_message(const harness *h, int rc, const char *what)
{
    FUZZ_CHECK(xlat_ctx_errmsg(h->ctx)[0] != '\0', "%s: %d without a message", what, rc);
}

/* ---- objects ------------------------------------------------------------ */

/* An object from the bytes, sometimes a bad one; says whether it is bad. */
static int read_object(harness *h, xlat_barre_object *o)
{
    fuzz_input *in = h->in;
    uint8_t size = fuzz_u8(in), shape = fuzz_u8(in), where = fuzz_u8(in);
    xlat_barre_object_init(o);
    o->pasid = 1 + shape % 2;
    o->pages = size == 0xff ? 0 : 1 + size % MAX_PAGES;
    o->placement = (xlat_barre_placement)(shape >> 1 & 3);
    o->interlv_gran = shape >> 3 & 7; /* 0 is bad for LASP */
    o->positions = (uint8_t)(fuzz_u8(in) % (h->chiplets + 2));
    for (uint32_t k = 0; k < XLAT_BARRE_MAX_CHIPLETS; k++) /* a rotation: distinct chiplets */
        o->gpu_map[k] = (uint8_t)((k + where) % h->chiplets);
    if (shape & 0x40 && o->positions >= 2)
        o->gpu_map[1] = o->gpu_map[0]; /* named twice */
    if (shape & 0x80)
        o->perm = where & 0x20 ? 0x40 : (uint8_t)(where & PERM_ALL);
    if (where >= 0xf8)
        o->start_vpn = UINT64_C(1) << 36; /* beyond 48 bits of address */
    else if (where >= 0xe0 && h->n)
        o->start_vpn = h->live[where % h->n].end_vpn; /* overlapping */
    else
        o->start_vpn = h->next_vpn + where % 4;
    int dup = (shape & 0x40) && o->positions >= 2;
    return o->pages == 0 || o->start_vpn >> 36 || o->placement > XLAT_BARRE_CHUNKED ||
           (o->placement == XLAT_BARRE_LASP && o->interlv_gran == 0) ||
           o->positions > h->chiplets || dup || (o->perm & ~PERM_ALL);
}

static int overlaps_live(const harness *h, const xlat_barre_object *o)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->live[i].pasid == o->pasid && h->live[i].start_vpn < o->start_vpn + o->pages &&
            o->start_vpn <= h->live[i].end_vpn)
            return 1;
    return 0;
}

static void check_pec_buffer(harness *h, const xlat_pec_entry *d)
{
    xlat_pec_entry got;
    int rc = xlat_pec_buffer_lookup(h->pec, d->pasid, d->end_vpn, &got);
    if (rc != XLAT_OK) {
        FUZZ_CHECK(rc == XLAT_ERR_NOT_FOUND, "pec lookup: %d", rc);
        return;
    }
    int known = 0;
    for (uint32_t i = 0; i < h->n; i++)
        known |= memcmp(&h->live[i], &got, sizeof(got)) == 0;
    FUZZ_CHECK(known, "the PEC buffer names an object that is not live");
}

static void map_object(harness *h)
{
    xlat_barre_object o;
    int bad = read_object(h, &o);
    int overlap = !bad && overlaps_live(h, &o);
    uint64_t before = free_frames(h);
    xlat_pec_entry d;
    int rc = xlat_barre_alloc_map(h->alloc, &o, h->pec, &d);
    if (rc == XLAT_OK) {
        FUZZ_CHECK(!bad && !overlap && h->n < MAX_OBJECTS, "a bad object mapped");
        FUZZ_CHECK(before - free_frames(h) == o.pages, "%llu pages took %llu frames",
                   (unsigned long long)o.pages, (unsigned long long)(before - free_frames(h)));
        h->live[h->n++] = d;
        h->maps++;
        h->next_vpn = d.end_vpn + 1;
        check_object(h, &d);
        check_pec_buffer(h, &d);
        return;
    }
    /* frames are taken before pages are mapped: a full chiplet may speak first */
    int want = bad ? XLAT_ERR_INVAL : overlap ? XLAT_ERR_EXIST : XLAT_ERR_FULL;
    FUZZ_CHECK(rc == want || (overlap && rc == XLAT_ERR_FULL), "map of %llu pages at 0x%llx: %d, model %d",
               (unsigned long long)o.pages, (unsigned long long)o.start_vpn, rc, want);
    check_message(h, rc, "map");
    FUZZ_CHECK(free_frames(h) == before, "a refused map kept %llu frames",
               (unsigned long long)(before - free_frames(h)));
}

static void unmap_object(harness *h, uint32_t i)
{
    xlat_pec_entry d = h->live[i];
    uint64_t before = free_frames(h);
    int rc = xlat_barre_alloc_unmap(h->alloc, &d, h->pec);
    FUZZ_CHECK(rc == (int)(d.end_vpn - d.start_vpn + 1), "unmap: %d", rc);
    FUZZ_CHECK(free_frames(h) - before == (uint64_t)rc, "unmap freed %llu frames of %d",
               (unsigned long long)(free_frames(h) - before), rc);
    h->live[i] = h->live[--h->n];
    h->unmaps++;
    xlat_pec_entry got;
    FUZZ_CHECK(xlat_pec_buffer_lookup(h->pec, d.pasid, d.start_vpn, &got) == XLAT_ERR_NOT_FOUND,
               "an unmapped object stayed in the PEC buffer");
}

static void migrate_page(harness *h, uint32_t i)
{
    const xlat_pec_entry *d = &h->live[i];
    uint64_t vpn = d->start_vpn + fuzz_u8(h->in) % (d->end_vpn - d->start_vpn + 3);
    uint32_t to = fuzz_u8(h->in) % (h->chiplets + 1);
    int bad = vpn > d->end_vpn || to >= h->chiplets;
    xlat_tlb_entry e;
    int mapped = lookup(h, d->pasid, vpn, &e) == XLAT_OK;
    xlat_barre_migration m;
    int rc = xlat_barre_alloc_migrate(h->alloc, d, vpn, to, &m);
    if (rc != XLAT_OK) {
        FUZZ_CHECK(rc == (bad ? XLAT_ERR_INVAL : XLAT_ERR_FULL), "migrate: %d (bad %d)", rc, bad);
        check_message(h, rc, "migrate");
        return;
    }
    FUZZ_CHECK(!bad && mapped, "a bad migration done");
    h->migrations++;
    xlat_tlb_entry now;
    FUZZ_CHECK(lookup(h, d->pasid, vpn, &now) == XLAT_OK && now.pfn == m.new_pfn &&
                   m.old_pfn == e.pfn && m.count >= 1 && m.count <= XLAT_BARRE_GROUP_MAX &&
                   m.vpn[0] == vpn,
               "migration of 0x%llx: 0x%llx -> 0x%llx, table 0x%llx", (unsigned long long)vpn,
               (unsigned long long)m.old_pfn, (unsigned long long)m.new_pfn,
               (unsigned long long)now.pfn);
    FUZZ_CHECK(m.new_pfn >= h->base[to] && m.new_pfn < h->base[to] + h->frames,
               "migrated to 0x%llx, not on chiplet %u", (unsigned long long)m.new_pfn, to);
    check_object(h, d);
}

/* Entries the allocator could not have made (too many positions, an empty
 * range, a range beyond 48-bit addresses), and calls without one. */
static void bad_ids(harness *h, uint8_t how)
{
    xlat_pec_entry d = h->n ? h->live[how % h->n] : (xlat_pec_entry){.pasid = 1, .start_vpn = 8};
    if (how % 3 == 0)
        d.positions = (uint8_t)(h->chiplets + 1 + how % 8);
    else if (how % 3 == 1)
        d.end_vpn = d.start_vpn - 1 - how % 3;
    else
        d.end_vpn = how & 0x80 ? UINT64_MAX - how % 4 : UINT64_C(1) << 36;
    int rc;
    if (how % 3 != 2) { /* migrate's own checks; a long range is unmap's */
        rc = xlat_barre_alloc_migrate(h->alloc, &d, d.start_vpn, 0, NULL);
        FUZZ_CHECK(rc == XLAT_ERR_INVAL, "migrate with a made-up entry: %d", rc);
        check_message(h, rc, "migrate");
    }
    if (how % 3) {
        rc = xlat_barre_alloc_unmap(h->alloc, &d, NULL);
        FUZZ_CHECK(rc == XLAT_ERR_INVAL, "unmap of 0x%llx..0x%llx: %d",
                   (unsigned long long)d.start_vpn, (unsigned long long)d.end_vpn, rc);
        check_message(h, rc, "unmap");
    }
    FUZZ_CHECK(xlat_barre_alloc_migrate(NULL, &d, 0, 0, NULL) == XLAT_ERR_INVAL &&
                   xlat_barre_alloc_migrate(h->alloc, NULL, 0, 0, NULL) == XLAT_ERR_INVAL &&
                   xlat_barre_alloc_map(h->alloc, NULL, NULL, NULL) == XLAT_ERR_INVAL,
               "NULL arguments");
}

/* ---- the pool's PEC logic ------------------------------------------------ */

static void on_done(void *user, const xlat_resp *r)
{
    harness *h = user;
    FUZZ_CHECK(r->id < h->nreq && h->answers[r->id] == 0, "answer to %llu: unknown or twice",
               (unsigned long long)r->id);
    h->answers[r->id]++;
    h->answered++;
    xlat_tlb_entry e;
    int want = lookup(h, h->req_pasid[r->id], h->req_vpn[r->id], &e);
    FUZZ_CHECK(r->status == want && (want != XLAT_OK || r->pfn == e.pfn),
               "read of 0x%llx: status %d pfn 0x%llx, table %d 0x%llx",
               (unsigned long long)h->req_vpn[r->id], r->status, (unsigned long long)r->pfn, want,
               (unsigned long long)e.pfn);
}

static void drain(harness *h)
{
    for (uint32_t c = 0; c < DRAIN_CYCLES && h->answered < h->nreq; c++)
        FUZZ_CHECK(xlat_tick(h->ctx) == XLAT_OK, "tick");
    FUZZ_CHECK(h->answered == h->nreq, "%zu reads never answered", h->nreq - h->answered);
}

/* A burst of reads of one object's pages (and a few beyond it), ticking
 * now and then, answered before the allocator changes anything. */
static void burst(harness *h, uint8_t how)
{
    if (!h->n)
        return;
    const xlat_pec_entry *d = &h->live[how % h->n];
    uint32_t count = 1 + fuzz_u8(h->in) % 32;
    for (uint32_t i = 0; i < count && h->nreq < MAX_REQS; i++) {
        uint8_t b = fuzz_u8(h->in);
        uint64_t vpn = d->start_vpn + b % (d->end_vpn - d->start_vpn + 2);
        xlat_req r = {.id = h->nreq, .pasid = d->pasid, .vaddr = vpn << 12};
        h->req_pasid[h->nreq] = d->pasid;
        h->req_vpn[h->nreq] = vpn;
        int rc = xlat_walker_translate(h->pool, &r, on_done, h);
        if (rc == XLAT_OK)
            h->nreq++;
        else
            FUZZ_CHECK(rc == XLAT_ERR_AGAIN, "translate: %d", rc);
        if (b & 0x80 || rc != XLAT_OK)
            FUZZ_CHECK(xlat_tick(h->ctx) == XLAT_OK, "tick");
    }
    drain(h);
}

static void create_pool(harness *h)
{
    uint8_t a = fuzz_u8(h->in);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = h->pt;
    c.walkers = 1 + a % 4;
    c.queue_entries = 16;
    c.mem_latency = 1 + (a >> 2) % 8;
    c.pec = h->pec;
    c.pec_base_pfn = h->base;
    c.pec_chiplets = h->chiplets;
    c.pec_expanded = xlat_barre_alloc_expanded(h->alloc);
    c.pec_latency = (a >> 5) % 3;
    c.pec_multicast = a >> 7;
    c.coal_aware = a >> 6 & 1;
    c.coalesce = a >> 5 & 1;
    FUZZ_CHECK(xlat_walker_create(h->ctx, &c, &h->pool) == XLAT_OK, "walker: %s",
               xlat_ctx_errmsg(h->ctx));
}

/* ---- setup and the run ----------------------------------------------------- */

static void create_memory(harness *h)
{
    xlat_region_config r[XLAT_BARRE_MAX_CHIPLETS + 1];
    for (uint32_t g = 0; g < h->chiplets; g++) {
        h->base[g] = 0xA000 + 0x1000 * (uint64_t)g;
        r[g] = (xlat_region_config){.base_pfn = h->base[g], .frames = h->frames};
    }
    r[h->chiplets] = (xlat_region_config){.base_pfn = NODE_BASE, .frames = 4096};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = h->chiplets + 1;
    pc.region = r;
    FUZZ_CHECK(xlat_physmem_create(h->ctx, &pc, &h->mem) == XLAT_OK, "physmem");
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = h->mem;
    tc.node_region = h->chiplets;
    FUZZ_CHECK(xlat_pagetable_create(h->ctx, &tc, &h->pt) == XLAT_OK, "pagetable");
}

/* Takes some frames of every chiplet, so that groups must search. */
static void fragment(harness *h, uint8_t percent, uint8_t seed)
{
    uint32_t s = seed;
    for (uint32_t g = 0; g < h->chiplets; g++)
        for (uint32_t l = 0; l < h->frames; l++) {
            s = s * 1103515245u + 12345u;
            if ((s >> 16) % 100 < percent % 70u)
                FUZZ_CHECK(xlat_physmem_take(h->mem, h->base[g] + l, 1) == XLAT_OK, "take");
        }
}

static void build(harness *h)
{
    fuzz_input *in = h->in;
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in), frames = fuzz_u8(in);
    FUZZ_CHECK(xlat_ctx_create(NULL, &h->ctx) == XLAT_OK, "ctx");
    h->max_merge = 1 + a % XLAT_BARRE_MAX_MERGE;
    h->chiplets = 1 + b % (h->max_merge > 1 ? 4 : 8);
    h->frames = 8 + frames % 120;
    create_memory(h);
    fragment(h, fuzz_u8(in), fuzz_u8(in));
    h->free_at_start = free_frames(h);
    xlat_barre_alloc_config c;
    xlat_barre_alloc_config_init(&c);
    c.mem = h->mem;
    c.pt = h->pt;
    c.chiplets = h->chiplets;
    c.max_merge = h->max_merge;
    c.whole_object_fallback = a >> 2 & 1;
    memcpy(c.base_pfn, h->base, sizeof(h->base));
    FUZZ_CHECK(xlat_barre_alloc_create(h->ctx, &c, &h->alloc) == XLAT_OK, "alloc: %s",
               xlat_ctx_errmsg(h->ctx));
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    pc.entries = 1 + (a >> 3) % 8;
    pc.expanded = xlat_barre_alloc_expanded(h->alloc);
    FUZZ_CHECK(xlat_pec_buffer_create(h->ctx, &pc, &h->pec) == XLAT_OK, "pec buffer");
    create_pool(h);
    h->next_vpn = 0x100;
}

static void run_ops(harness *h)
{
    while (fuzz_more(h->in)) {
        uint8_t op = fuzz_u8(h->in), arg = fuzz_u8(h->in);
        switch (op % 8) {
        case 0: case 1: case 2:
            if (h->n < MAX_OBJECTS)
                map_object(h);
            break;
        case 3:
            if (h->n)
                unmap_object(h, arg % h->n);
            break;
        case 4: case 5:
            if (h->n)
                migrate_page(h, arg % h->n);
            break;
        case 6:
            bad_ids(h, arg);
            break;
        default:
            burst(h, arg);
            break;
        }
    }
}

/* Every object right, then every frame back and the counters agreeing. */
static void finish(harness *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        check_object(h, &h->live[i]);
    while (h->n)
        unmap_object(h, h->n - 1);
    FUZZ_CHECK(free_frames(h) == h->free_at_start, "%llu frames leaked",
               (unsigned long long)(h->free_at_start - free_frames(h)));
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(h->alloc, &st, sizeof(st));
    FUZZ_CHECK(st.objects == h->maps && st.unmapped == h->unmaps &&
                   st.migrations == h->migrations &&
                   st.grouped_pages + st.default_pages == st.pages,
               "allocator counters: %llu objects %llu unmapped %llu migrations",
               (unsigned long long)st.objects, (unsigned long long)st.unmapped,
               (unsigned long long)st.migrations);
    xlat_walker_stats ws;
    xlat_walker_stats_get(h->pool, &ws, sizeof(ws));
    FUZZ_CHECK(ws.requests == h->nreq && ws.completed == h->nreq, "pool: %llu of %llu answered",
               (unsigned long long)ws.completed, (unsigned long long)ws.requests);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    harness *h = calloc(1, sizeof(*h));
    if (!h)
        return 0;
    h->in = &in;
    build(h);
    run_ops(h);
    finish(h);
    FUZZ_CHECK(xlat_walker_destroy(h->pool) == XLAT_OK, "walker destroy");
    FUZZ_CHECK(xlat_pec_buffer_destroy(h->pec) == XLAT_OK, "pec destroy");
    FUZZ_CHECK(xlat_barre_alloc_destroy(h->alloc) == XLAT_OK, "alloc destroy");
    xlat_pagetable_destroy(h->pt);
    xlat_physmem_destroy(h->mem);
    xlat_ctx_destroy(h->ctx);
    free(h);
    return 0;
}
