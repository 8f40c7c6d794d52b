#include "testutil.h"
#include "tlb_model.h"

#include <stdlib.h>
#include <string.h>

typedef struct model_entry {
    uint32_t pasid;
    uint64_t vpn;
    uint8_t shift;
    uint64_t pfn;
} model_entry;

/* Per set, entries ordered from next victim [0] to most protected [n-1]. */
typedef struct model {
    uint32_t sets, ways;
    int lru;
    model_entry *e;
    uint32_t *n;
} model;

static model_entry *set_base(model *m, uint32_t set) { return m->e + (size_t)set * m->ways; }

static int find(model *m, uint32_t set, uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    model_entry *b = set_base(m, set);
    for (uint32_t i = 0; i < m->n[set]; i++)
        if (b[i].pasid == pasid && b[i].vpn == vpn && b[i].shift == shift)
            return (int)i;
    return -1;
}

static void remove_at(model *m, uint32_t set, uint32_t i)
{
    model_entry *b = set_base(m, set);
    memmove(&b[i], &b[i + 1], (m->n[set] - i - 1) * sizeof(*b));
    m->n[set]--;
}

static void to_back(model *m, uint32_t set, uint32_t i)
{
    model_entry *b = set_base(m, set);
    model_entry keep = b[i];
    remove_at(m, set, i);
    b[m->n[set]++] = keep;
}

static const uint8_t shifts[] = {12, 21};

/* Lookup across the page sizes, smallest first, like the library. */
static int model_lookup(model *m, uint32_t pasid, uint64_t vaddr, int touch, uint64_t *pfn)
{
    for (int s = 0; s < 2; s++) {
        uint64_t vpn = vaddr >> shifts[s];
        uint32_t set = (uint32_t)(vpn % m->sets);
        int i = find(m, set, pasid, vpn, shifts[s]);
        if (i < 0)
            continue;
        *pfn = set_base(m, set)[i].pfn;
        if (touch && m->lru)
            to_back(m, set, (uint32_t)i);
        return 1;
    }
    return 0;
}

/* Returns 1 and the victim when one was evicted. */
static int model_insert(model *m, const model_entry *e, model_entry *victim)
{
    uint32_t set = (uint32_t)(e->vpn % m->sets);
    int i = find(m, set, e->pasid, e->vpn, e->shift);
    if (i >= 0) {
        set_base(m, set)[i] = *e;
        to_back(m, set, (uint32_t)i); /* an update makes it most recent, FIFO too */
        return 0;
    }
    int evicted = 0;
    if (m->n[set] == m->ways) {
        *victim = set_base(m, set)[0];
        remove_at(m, set, 0);
        evicted = 1;
    }
    set_base(m, set)[m->n[set]++] = *e;
    return evicted;
}

static int model_invalidate_pasid(model *m, uint32_t pasid)
{
    int removed = 0;
    for (uint32_t s = 0; s < m->sets; s++)
        for (uint32_t i = m->n[s]; i-- > 0;)
            if (set_base(m, s)[i].pasid == pasid) {
                remove_at(m, s, i);
                removed++;
            }
    return removed;
}

static uint64_t random_vaddr(uint64_t *s, uint32_t entries)
{
    /* A footprint of about three times the TLB, in two address spaces'
     * worth of 4 KiB pages plus a few 2 MiB regions. */
    return (test_rand(s) % (3ull * entries + 8)) << 12 | (test_rand(s) & 0xfff);
}

static uint64_t step(xlat_tlb *t, model *m, uint64_t *s, uint32_t entries)
{
    uint32_t pasid = (uint32_t)(test_rand(s) % 3);
    uint64_t vaddr = random_vaddr(s, entries), pfn = 0, bad = 0;
    xlat_tlb_entry got, v;
    switch (test_rand(s) % 16) {
    case 0: case 1: case 2: case 3: case 4: case 5: {
        int hit = model_lookup(m, pasid, vaddr, 1, &pfn);
        int rc = xlat_tlb_lookup(t, pasid, vaddr, &got);
        bad += (rc == XLAT_OK) != hit || (hit && got.pfn != pfn) || (hit && got.pasid != pasid);
        break;
    }
    case 6: {
        int hit = model_lookup(m, pasid, vaddr, 0, &pfn);
        bad += (xlat_tlb_probe(t, pasid, vaddr, &got) == XLAT_OK) != hit;
        break;
    }
    case 7: case 8: case 9: case 10: case 11: case 12: {
        uint8_t shift = test_rand(s) % 8 ? 12 : 21;
        model_entry e = {pasid, vaddr >> shift, shift, test_rand(s) >> 20};
        xlat_tlb_entry x = {.pasid = pasid, .vpn = e.vpn, .pfn = e.pfn, .page_shift = shift};
        model_entry mv;
        int ev = model_insert(m, &e, &mv);
        int rc = xlat_tlb_insert(t, &x, &v);
        bad += rc != ev || (ev && (v.vpn != mv.vpn || v.pasid != mv.pasid || v.pfn != mv.pfn));
        break;
    }
    case 13: {
        int found = 0;
        for (int k = 0; k < 2; k++) {
            uint64_t vpn = vaddr >> shifts[k];
            uint32_t set = (uint32_t)(vpn % m->sets);
            int i = find(m, set, pasid, vpn, shifts[k]);
            if (i >= 0) {
                remove_at(m, set, (uint32_t)i);
                found++;
            }
        }
        bad += xlat_tlb_invalidate(t, pasid, vaddr) != found; /* the exact count */
        bad += xlat_tlb_probe(t, pasid, vaddr, NULL) != XLAT_ERR_NOT_FOUND; /* nothing stale */
        break;
    }
    case 14:
        if (test_rand(s) % 64 == 0) {
            int removed = model_invalidate_pasid(m, pasid);
            bad += xlat_tlb_invalidate_pasid(t, pasid) != removed;
        }
        break;
    default:
        if (test_rand(s) % 512 == 0) {
            int held = 0;
            for (uint32_t i = 0; i < m->sets; i++)
                held += (int)m->n[i];
            memset(m->n, 0, m->sets * sizeof(*m->n));
            bad += xlat_tlb_flush(t) != held;
        }
        break;
    }
    return bad;
}

uint64_t tlb_model_run(uint64_t seed, uint32_t entries, uint32_t ways, xlat_repl repl,
                       uint64_t ops)
{
    xlat_ctx_config cc;
    xlat_ctx *ctx;
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_ctx_config_init(&cc);
    cc.seed = seed;
    if (xlat_ctx_create(&cc, &ctx) != XLAT_OK)
        return UINT64_MAX;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.repl = repl;
    if (xlat_tlb_create(ctx, &cfg, &t) != XLAT_OK) {
        xlat_ctx_destroy(ctx);
        return UINT64_MAX;
    }
    model m = {entries / ways, ways, repl == XLAT_REPL_LRU, NULL, NULL};
    m.e = calloc(entries, sizeof(*m.e));
    m.n = calloc(m.sets, sizeof(*m.n));
    uint64_t bad = 0, s = seed;
    for (uint64_t i = 0; i < ops && m.e && m.n; i++)
        bad += step(t, &m, &s, entries);
    size_t count = 0;
    for (uint32_t k = 0; k < m.sets && m.n; k++)
        count += m.n[k];
    bad += count != xlat_tlb_count(t);
    free(m.e);
    free(m.n);
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
    return bad;
}
