/* Page tables on physical memory against a plain list of mappings, then a
 * page walk cache against a list of what was filled. The first bytes choose
 * the geometry (2..6 levels of 1..9 bits, leaves at levels 1..3) and how
 * many frames the nodes may take; then map (any leaf size, misaligned,
 * beyond the address width, unknown perm bits), map_range, unmap, protect,
 * lookup and walk, each answer checked against the list: the mapping or
 * the fault, the error for an overlap, an unmapped address or the inside of
 * a page, and a refused map taking no frame. The PWC half fills, looks up
 * and invalidates; every hit must be an entry filled and not invalidated,
 * and while nothing was evicted the hit must be the deepest such entry. */
#include <string.h>

#include "fuzz.h"

#define MAX_MAPPINGS 4096
#define RANGE_PAGES_MAX 16
#define PERM_ALL (XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U)

typedef struct mapping {
    uint32_t pasid;
    uint64_t va, pfn;
    uint8_t shift, perm;
} mapping;

/* The table under test, its memory and context, and the model. */
typedef struct pt_model {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    uint32_t levels, bits, va_bits;
    size_t n;
    mapping m[MAX_MAPPINGS];
} pt_model;

static uint32_t level_shift(const pt_model *p, uint32_t level)
{
    return 12 + p->bits * (level - 1);
}

/* The leaf level of pages of 2^shift bytes, or 0 for a size it cannot map. */
static uint32_t leaf_level(const pt_model *p, uint32_t shift)
{
    for (uint32_t k = 1; k <= p->levels && k <= 3; k++)
        if (level_shift(p, k) == shift)
            return k;
    return 0;
}

static int overlaps(const mapping *a, uint32_t pasid, uint64_t va, uint8_t shift)
{
    uint64_t a_end = a->va + (UINT64_C(1) << a->shift), end = va + (UINT64_C(1) << shift);
    return a->pasid == pasid && a->va < end && va < a_end;
}

/* The mapping that holds va, or NULL. */
static mapping *holder(pt_model *p, uint32_t pasid, uint64_t va)
{
    for (size_t i = 0; i < p->n; i++)
        if (overlaps(&p->m[i], pasid, va, 0))
            return &p->m[i];
    return NULL;
}

static uint64_t read_vaddr(fuzz_input *in, const pt_model *p)
{
    uint8_t where = fuzz_u8(in);
    uint64_t page = fuzz_u16(in);
    page |= (uint64_t)(where % 8) << 16;
    if (where >= 0xfc) /* beyond the address width */
        return UINT64_C(1) << p->va_bits | page << 12;
    return (page << 12) & ((UINT64_C(1) << p->va_bits) - 1);
}

static void check_lookup(pt_model *p, uint32_t pasid, uint64_t va)
{
    const xlat_pagetable *pt = p->pt;
    const mapping *want = holder(p, pasid, va);
    xlat_tlb_entry got;
    xlat_walk_trace tr;
    int rc = xlat_pagetable_lookup(pt, pasid, va, &got);
    int wrc = xlat_pagetable_walk(pt, pasid, va, &tr);
    FUZZ_CHECK(rc == (want ? XLAT_OK : XLAT_ERR_FAULT) && wrc == rc && tr.status == rc,
               "lookup 0x%llx of PASID %u: %d, walk %d, model %s", (unsigned long long)va, pasid,
               rc, wrc, want ? "mapped" : "unmapped");
    if (!want)
        return;
    uint8_t perm = want->perm | XLAT_PERM_R; /* R is implied by presence */
    FUZZ_CHECK(got.pfn == want->pfn && got.page_shift == want->shift &&
                   got.vpn == va >> want->shift && got.perm == perm && got.pasid == pasid,
               "lookup 0x%llx: pfn 0x%llx shift %u perm %u, model 0x%llx %u %u",
               (unsigned long long)va, (unsigned long long)got.pfn, got.page_shift, got.perm,
               (unsigned long long)want->pfn, want->shift, perm);
    uint32_t leaf = leaf_level(p, want->shift);
    FUZZ_CHECK(tr.pfn == want->pfn && tr.page_shift == want->shift && tr.perm == perm &&
                   tr.stop_level == leaf && tr.steps == p->levels - leaf + 1,
               "walk 0x%llx: pfn 0x%llx shift %u stop %u steps %u", (unsigned long long)va,
               (unsigned long long)tr.pfn, tr.page_shift, tr.stop_level, tr.steps);
}

static void do_map(pt_model *p, fuzz_input *in, uint32_t pasid, uint64_t va)
{
    xlat_physmem *mem = p->mem;
    uint8_t pick = fuzz_u8(in), perm = fuzz_u8(in);
    uint64_t pfn = fuzz_u16(in);
    uint8_t shift = (uint8_t)(pick % 4 == 3 ? 13 : level_shift(p, 1 + pick % 4));
    if (!(pick & 0x80)) /* mostly aligned, sometimes not */
        va &= ~((UINT64_C(1) << shift) - 1);
    perm = perm >= 0xf0 ? perm : perm & PERM_ALL;
    int bad = !leaf_level(p, shift) || va >> p->va_bits || va & ((UINT64_C(1) << shift) - 1) ||
              perm & ~PERM_ALL;
    int overlap = 0;
    for (size_t i = 0; i < p->n && !bad; i++)
        overlap |= overlaps(&p->m[i], pasid, va, shift);
    uint64_t free_before = xlat_physmem_free_frames(mem, 0);
    int rc = xlat_pagetable_map(p->pt, pasid, va, pfn, shift, perm);
    if (bad || overlap) {
        FUZZ_CHECK(rc == (bad ? XLAT_ERR_INVAL : XLAT_ERR_EXIST),
                   "map 0x%llx 2^%u perm 0x%x: %d, model %s", (unsigned long long)va, shift, perm,
                   rc, bad ? "INVAL" : "EXIST");
    } else if (rc == XLAT_OK) {
        p->m[p->n++] = (mapping){pasid, va, pfn, shift, perm};
        return;
    } else {
        FUZZ_CHECK(rc == XLAT_ERR_FULL, "map 0x%llx 2^%u: %d", (unsigned long long)va, shift, rc);
    }
    FUZZ_CHECK(xlat_ctx_errmsg(p->ctx)[0] != '\0', "no message");
    FUZZ_CHECK(xlat_physmem_free_frames(mem, 0) == free_before,
               "refused map 0x%llx (%d) took %llu frames", (unsigned long long)va, rc,
               (unsigned long long)(free_before - xlat_physmem_free_frames(mem, 0)));
}

/* All or nothing; the frames it placed are distinct from every other page's
 * that map_range placed (they are allocated, never shared). */
static void do_map_range(pt_model *p, fuzz_input *in, uint32_t pasid, uint64_t va)
{
    uint32_t pages = 1 + fuzz_u8(in) % RANGE_PAGES_MAX;
    uint8_t perm = fuzz_u8(in) & PERM_ALL;
    va &= ~UINT64_C(0xfff);
    /* Pages are mapped in order: the first page beyond the address width
     * or already mapped says the error, unless frames ran out before it. */
    int problem = 0;
    for (uint32_t i = 0; i < pages && !problem; i++) {
        uint64_t page = va + ((uint64_t)i << 12);
        problem = page >> p->va_bits ? XLAT_ERR_INVAL : holder(p, pasid, page) ? XLAT_ERR_EXIST : 0;
    }
    int64_t rc = xlat_pagetable_map_range(p->pt, pasid, va, (uint64_t)pages << 12, 0, perm);
    if (rc < 0) {
        FUZZ_CHECK(rc == XLAT_ERR_FULL || rc == problem, "map_range 0x%llx + %u pages: %lld, model %d",
                   (unsigned long long)va, pages, (long long)rc, problem);
        for (uint32_t i = 0; i < pages; i++) /* nothing of it stayed */
            FUZZ_CHECK(!!holder(p, pasid, va + ((uint64_t)i << 12)) ==
                           (xlat_pagetable_lookup(p->pt, pasid, va + ((uint64_t)i << 12), NULL) ==
                            XLAT_OK),
                       "a failed map_range left page %u", i);
        return;
    }
    FUZZ_CHECK(rc == pages && !problem, "map_range 0x%llx + %u pages: %lld",
               (unsigned long long)va, pages, (long long)rc);
    for (uint32_t i = 0; i < pages; i++) {
        xlat_tlb_entry e;
        FUZZ_CHECK(xlat_pagetable_lookup(p->pt, pasid, va + ((uint64_t)i << 12), &e) == XLAT_OK,
                   "page %u of a range is not mapped", i);
        p->m[p->n++] = (mapping){pasid, va + ((uint64_t)i << 12), e.pfn, 12, perm};
    }
}

static void do_unmap(pt_model *p, uint32_t pasid, uint64_t va)
{
    mapping *h = holder(p, pasid, va);
    int rc = xlat_pagetable_unmap(p->pt, pasid, va);
    int want = !h ? XLAT_ERR_NOT_FOUND : h->va != va ? XLAT_ERR_INVAL : XLAT_OK;
    FUZZ_CHECK(rc == want, "unmap 0x%llx: %d, model %d", (unsigned long long)va, rc, want);
    if (rc == XLAT_OK)
        *h = p->m[--p->n];
}

static void do_protect(pt_model *p, uint8_t perm, uint32_t pasid, uint64_t va)
{
    mapping *h = holder(p, pasid, va);
    int rc = xlat_pagetable_protect(p->pt, pasid, va, perm);
    int want = perm & ~PERM_ALL ? XLAT_ERR_INVAL : h ? XLAT_OK : XLAT_ERR_NOT_FOUND;
    FUZZ_CHECK(rc == want, "protect 0x%llx 0x%x: %d, model %d", (unsigned long long)va, perm, rc,
               want);
    if (rc == XLAT_OK)
        h->perm = perm;
}

static void run_table(pt_model *p, fuzz_input *in)
{
    while (fuzz_more(in) && p->n + RANGE_PAGES_MAX < MAX_MAPPINGS) {
        uint8_t op = fuzz_u8(in);
        if (op == 0xff) /* the PWC's turn */
            return;
        uint32_t pasid = fuzz_u8(in) % 3;
        uint64_t va = read_vaddr(in, p);
        switch (op % 8) {
        case 0: case 1: case 2:
            do_map(p, in, pasid, va);
            break;
        case 3:
            do_map_range(p, in, pasid, va);
            break;
        case 4: { /* mostly at a mapping's start, where unmap may succeed */
            uint8_t pick = fuzz_u8(in);
            if (p->n && pick < 0xc0)
                va = p->m[pick % p->n].va, pasid = p->m[pick % p->n].pasid;
            do_unmap(p, pasid, va);
            break;
        }
        case 5: {
            uint8_t perm = fuzz_u8(in);
            do_protect(p, perm >= 0xf0 ? perm : perm & PERM_ALL, pasid, va);
            break;
        }
        default:
            check_lookup(p, pasid, va);
            break;
        }
    }
    for (size_t i = 0; i < p->n; i++)
        check_lookup(p, p->m[i].pasid, p->m[i].va + (UINT64_C(1) << p->m[i].shift) - 1);
}

/* ---- the page walk cache --------------------------------------------- */

#define MAX_FILLS 2048

typedef struct fill {
    uint32_t pasid, level;
    uint64_t tag, node_pfn;
} fill;

typedef struct pwc_model {
    uint32_t levels, bits, enabled; /* enabled: bit k, level k keeps entries */
    size_t n;
    fill f[MAX_FILLS];
} pwc_model;

static uint64_t tag_of(const pwc_model *w, uint64_t va, uint32_t level)
{
    return va >> (12 + w->bits * (level - 1));
}

static fill *find_fill(pwc_model *w, uint32_t pasid, uint64_t va, uint32_t level)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->f[i].pasid == pasid && w->f[i].level == level && w->f[i].tag == tag_of(w, va, level))
            return &w->f[i];
    return NULL;
}

static uint64_t evictions(const xlat_pwc *c)
{
    xlat_pwc_stats st;
    xlat_pwc_stats_get(c, &st, sizeof(st));
    return st.evictions;
}

static void check_pwc_lookup(xlat_pwc *c, pwc_model *w, uint32_t pasid, uint64_t va, int touch)
{
    xlat_pwc_hit hit;
    int rc = touch ? xlat_pwc_lookup(c, pasid, va, &hit) : xlat_pwc_probe(c, pasid, va, &hit);
    const fill *deepest = NULL;
    for (uint32_t k = 2; k <= w->levels && !deepest; k++)
        deepest = find_fill(w, pasid, va, k);
    if (rc == XLAT_OK) {
        const fill *f = find_fill(w, pasid, va, hit.level);
        FUZZ_CHECK(f && f->node_pfn == hit.node_pfn && hit.next_level == hit.level - 1,
                   "pwc hit 0x%llx level %u node 0x%llx was never filled so",
                   (unsigned long long)va, hit.level, (unsigned long long)hit.node_pfn);
    } else {
        FUZZ_CHECK(rc == XLAT_ERR_NOT_FOUND, "pwc lookup: %d", rc);
    }
    if (evictions(c) == 0) /* exact: nothing can be missing */
        FUZZ_CHECK(deepest ? rc == XLAT_OK && hit.level == deepest->level : rc != XLAT_OK,
                   "pwc lookup 0x%llx: %d level %u, model level %u", (unsigned long long)va, rc,
                   rc == XLAT_OK ? hit.level : 0, deepest ? deepest->level : 0);
}

static int drop_fills(pwc_model *w, int whole_space, uint32_t pasid, uint64_t va, int all)
{
    int removed = 0;
    for (size_t i = w->n; i-- > 0;) {
        const fill *f = &w->f[i];
        if (all || (f->pasid == pasid && (whole_space || f->tag == tag_of(w, va, f->level)))) {
            w->f[i] = w->f[--w->n];
            removed++;
        }
    }
    return removed;
}

/* An invalidation removes what the model says, or fewer once entries were evicted. */
static void check_removed(const xlat_pwc *c, int rc, int want, const char *what)
{
    FUZZ_CHECK(evictions(c) ? rc >= 0 && rc <= want : rc == want, "pwc %s: %d, model %d", what,
               rc, want);
}

static void do_fill(xlat_pwc *c, pwc_model *w, fuzz_input *in, uint32_t pasid, uint64_t va)
{
    uint32_t level = fuzz_u8(in) % (w->levels + 2);
    uint64_t node = fuzz_u16(in);
    int rc = xlat_pwc_fill(c, pasid, va, level, node);
    int valid = level >= 2 && level <= w->levels;
    FUZZ_CHECK(rc == (valid ? XLAT_OK : XLAT_ERR_INVAL), "pwc fill level %u: %d", level, rc);
    if (!valid || !(w->enabled & 1u << level))
        return;
    fill *f = find_fill(w, pasid, va, level);
    if (!f && w->n < MAX_FILLS)
        f = &w->f[w->n++];
    if (f)
        *f = (fill){pasid, level, tag_of(w, va, level), node};
}

static void run_pwc(xlat_pwc *c, pwc_model *w, fuzz_input *in, uint32_t va_bits)
{
    while (fuzz_more(in) && w->n < MAX_FILLS) {
        uint8_t op = fuzz_u8(in);
        uint32_t pasid = fuzz_u8(in) % 3;
        uint64_t va = (uint64_t)fuzz_u16(in) << 12;
        va |= (uint64_t)fuzz_u8(in) << 28;
        va &= (UINT64_C(1) << va_bits) - 1;
        switch (op % 8) {
        case 0: case 1: case 2:
            do_fill(c, w, in, pasid, va);
            break;
        case 3: case 4:
            check_pwc_lookup(c, w, pasid, va, op & 1);
            break;
        case 5:
            check_removed(c, xlat_pwc_invalidate(c, pasid, va), drop_fills(w, 0, pasid, va, 0),
                          "invalidate");
            break;
        case 6:
            check_removed(c, xlat_pwc_invalidate_pasid(c, pasid), drop_fills(w, 1, pasid, 0, 0),
                          "invalidate_pasid");
            break;
        default:
            if (op == 0xff)
                check_removed(c, xlat_pwc_flush(c), drop_fills(w, 0, 0, 0, 1), "flush");
            break;
        }
    }
}

/* A PWC of the table's geometry: per level or unified, some levels off,
 * fully or set associative. */
static void fuzz_pwc(xlat_ctx *ctx, const pt_model *p, fuzz_input *in)
{
    xlat_pwc_config cfg;
    xlat_pwc *c;
    xlat_pwc_config_init(&cfg);
    cfg.levels = p->levels;
    cfg.bits_per_level = p->bits;
    cfg.org = fuzz_u8(in) & 1 ? XLAT_PWC_UNIFIED : XLAT_PWC_PER_LEVEL;
    cfg.repl = fuzz_u8(in) & 1 ? XLAT_REPL_FIFO : XLAT_REPL_LRU;
    pwc_model *w = calloc(1, sizeof(*w));
    if (!w)
        return;
    w->levels = p->levels;
    w->bits = p->bits;
    for (uint32_t k = 0; k <= p->levels; k++) {
        uint8_t size = fuzz_u8(in);
        cfg.ways[k] = size & 0x80 ? 2 : 0; /* 0: fully associative */
        cfg.entries[k] = (size % 8) * 2;
    }
    for (uint32_t k = 2; k <= p->levels; k++)
        if (cfg.entries[cfg.org == XLAT_PWC_UNIFIED ? 0 : k])
            w->enabled |= 1u << k;
    int rc = xlat_pwc_create(ctx, &cfg, &c);
    FUZZ_CHECK(rc == XLAT_OK, "pwc create: %s", xlat_ctx_errmsg(ctx));
    run_pwc(c, w, in, p->va_bits);
    xlat_pwc_destroy(c);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    pt_model *p = calloc(1, sizeof(*p));
    if (!p || xlat_ctx_create(NULL, &p->ctx) != XLAT_OK) {
        free(p);
        return 0;
    }
    p->levels = 2 + fuzz_u8(&in) % 5;
    p->bits = 1 + fuzz_u8(&in) % 9;
    if (12 + p->levels * p->bits > 57) /* the widest the table takes */
        p->bits = 45 / p->levels;
    p->va_bits = 12 + p->levels * p->bits;
    xlat_region_config region = {0x1000, 4 + fuzz_u8(&in)};
    xlat_physmem_config mc;
    xlat_pagetable_config tc;
    xlat_physmem_config_init(&mc);
    mc.region = &region;
    xlat_pagetable_config_init(&tc);
    tc.levels = p->levels;
    tc.bits_per_level = p->bits;
    FUZZ_CHECK(xlat_physmem_create(p->ctx, &mc, &p->mem) == XLAT_OK, "physmem: %s",
               xlat_ctx_errmsg(p->ctx));
    tc.mem = p->mem;
    FUZZ_CHECK(xlat_pagetable_create(p->ctx, &tc, &p->pt) == XLAT_OK, "pagetable: %s",
               xlat_ctx_errmsg(p->ctx));
    run_table(p, &in);
    fuzz_pwc(p->ctx, p, &in);
    xlat_pagetable_destroy(p->pt);
    xlat_physmem_destroy(p->mem);
    xlat_ctx_destroy(p->ctx);
    free(p);
    return 0;
}
