/* Simulated physical memory: regions of 4 KiB frames, one bitmap allocator
 * per region, and the placement policies that pick the region backing a
 * virtual page: first-touch local, and the round-robin and kernel-wide
 * chunking mappings Barre Chord compares against (§VII-H6). */
#include "xlat/physmem.h"
#include "internal.h"
#include "registry.h"
#include "unit_target.h"

/* Frame numbers must fit the 40-bit frame field of an x86-64 PTE
 * (52-bit physical addresses). */
#define PFN_LIMIT (UINT64_C(1) << 40)
#define NONE UINT64_MAX

/*
 * A region's bitmap has one bit per frame (set: allocated). Two summaries,
 * one bit per bitmap word, let searches skip 64 words at a time: `full`
 * marks words with every frame allocated (skipped when looking for a free
 * frame), `busy` marks words with any frame allocated (skipped when
 * checking that a long run is free). Bits past the last frame are set, so
 * they never look free.
 */
struct region {
    uint64_t base, frames;
    uint64_t words;  /* ceil(frames / 64) */
    uint64_t *used;  /* `words` words */
    uint64_t *full;  /* ceil(words / 64) words */
    uint64_t *busy;  /* ceil(words / 64) words */
    uint64_t free;   /* free frames */
    uint64_t cursor; /* next-fit: where the next single-frame search starts */
};

struct xlat_physmem {
    xlat_ctx *ctx;
    xlat_placement placement;
    uint64_t chunk_pages;
    uint32_t regions;
    uint32_t order[XLAT_PHYSMEM_MAX_REGIONS]; /* region indices by ascending base */
    struct region region[XLAT_PHYSMEM_MAX_REGIONS];
    struct xlat__reg reg;
};

static uint64_t summary_words(const struct region *r) { return (r->words + 63) / 64; }

static size_t region_bytes(const struct region *r)
{
    return (size_t)(r->words + 2 * summary_words(r)) * sizeof(uint64_t);
}

/* Bits [lo, hi) of a word, 0 <= lo < hi <= 64. */
static uint64_t span_mask(uint64_t lo, uint64_t hi)
{
    uint64_t m = hi == 64 ? ~UINT64_C(0) : (UINT64_C(1) << hi) - 1;
    return m & ~((UINT64_C(1) << lo) - 1);
}

static uint64_t align_up(uint64_t x, uint64_t align) { return (x + align - 1) & ~(align - 1); }

static void update_summary(struct region *r, uint64_t w)
{
    uint64_t bit = UINT64_C(1) << (w & 63);
    r->full[w >> 6] = r->used[w] == ~UINT64_C(0) ? r->full[w >> 6] | bit : r->full[w >> 6] & ~bit;
    r->busy[w >> 6] = r->used[w] ? r->busy[w >> 6] | bit : r->busy[w >> 6] & ~bit;
}

/* Marks frames [lo, hi) (region-relative) allocated or free. */
static void mark(struct region *r, uint64_t lo, uint64_t hi, int allocated)
{
    r->free = allocated ? r->free - (hi - lo) : r->free + (hi - lo);
    while (lo < hi) {
        uint64_t w = lo >> 6, end = (w + 1) * 64 < hi ? (w + 1) * 64 : hi;
        uint64_t m = span_mask(lo & 63, end - w * 64);
        r->used[w] = allocated ? r->used[w] | m : r->used[w] & ~m;
        update_summary(r, w);
        lo = end;
    }
}

/* The highest word in [floor, w] whose `busy` bit is set, or `floor`. */
static uint64_t prev_busy_word(const struct region *r, uint64_t w, uint64_t floor)
{
    for (;;) {
        uint64_t s = w >> 6;
        uint64_t m = r->busy[s] & span_mask(0, (w & 63) + 1);
        if (m) {
            uint64_t found = s * 64 + 63 - (uint64_t)__builtin_clzll(m);
            return found > floor ? found : floor;
        }
        if (s * 64 <= floor)
            return floor;
        w = s * 64 - 1;
    }
}

/* The highest allocated frame in [lo, hi), or NONE. */
static uint64_t last_used(const struct region *r, uint64_t lo, uint64_t hi)
{
    uint64_t first = lo >> 6, last = (hi - 1) >> 6, w = last;
    for (;;) {
        uint64_t b0 = w == first ? lo & 63 : 0;
        uint64_t b1 = w == last ? ((hi - 1) & 63) + 1 : 64;
        uint64_t bits = r->used[w] & span_mask(b0, b1);
        if (bits)
            return w * 64 + 63 - (uint64_t)__builtin_clzll(bits);
        if (w == first)
            return NONE;
        w = prev_busy_word(r, w - 1, first);
    }
}

/* The lowest word in [w, ceil] whose `full` bit is clear, or `ceil`. */
static uint64_t next_open_word(const struct region *r, uint64_t w, uint64_t ceil)
{
    for (;;) {
        uint64_t s = w >> 6;
        uint64_t m = ~r->full[s] & span_mask(w & 63, 64);
        if (m) {
            uint64_t found = s * 64 + (uint64_t)__builtin_ctzll(m);
            return found < ceil ? found : ceil;
        }
        if (s * 64 + 63 >= ceil)
            return ceil;
        w = (s + 1) * 64;
    }
}

/* The lowest free frame in [lo, hi), or NONE. */
static uint64_t first_free(const struct region *r, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return NONE;
    uint64_t first = lo >> 6, last = (hi - 1) >> 6, w = first;
    for (;;) {
        uint64_t b0 = w == first ? lo & 63 : 0;
        uint64_t b1 = w == last ? ((hi - 1) & 63) + 1 : 64;
        uint64_t bits = ~r->used[w] & span_mask(b0, b1);
        if (bits)
            return w * 64 + (uint64_t)__builtin_ctzll(bits);
        if (w == last)
            return NONE;
        w = next_open_word(r, w + 1, last);
    }
}

/* First fit: the lowest run of n free frames whose absolute frame number is
 * a multiple of `align`. A candidate starts at the first free frame (the
 * `full` summary skips allocated stretches 4096 frames at a time), and one
 * that meets an allocated frame jumps past it. */
static uint64_t find_run(const struct region *r, uint64_t n, uint64_t align)
{
    uint64_t i = 0;
    for (;;) {
        uint64_t f = first_free(r, i, r->frames);
        if (f == NONE)
            return NONE;
        i = align_up(r->base + f, align) - r->base;
        if (i > r->frames || r->frames - i < n)
            return NONE;
        uint64_t p = last_used(r, i, i + n);
        if (p == NONE)
            return i;
        i = p + 1;
    }
}

/* Next fit for single frames, so that a stream of node or page allocations
 * does not rescan the allocated prefix every time. */
static uint64_t find_one(struct region *r)
{
    uint64_t i = first_free(r, r->cursor, r->frames);
    if (i == NONE)
        i = first_free(r, 0, r->cursor);
    if (i != NONE)
        r->cursor = i + 1 == r->frames ? 0 : i + 1;
    return i;
}

/* ---- creation --------------------------------------------------------- */

void xlat_physmem_config_init_sized(xlat_physmem_config *out, size_t size)
{
    xlat_physmem_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->regions = 1;
    cfg->placement = XLAT_PLACE_LOCAL;
    cfg->chunk_pages = 512;
    xlat__config_out(out, size, &full, sizeof(full));
}

static const xlat_region_config default_region = {.base_pfn = 0x100, .frames = UINT64_C(1) << 20};

static int check_regions(xlat_ctx *ctx, const xlat_physmem_config *c)
{
    if (c->regions == 0 || c->regions > XLAT_PHYSMEM_MAX_REGIONS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_physmem: %u regions (1..%d)", c->regions,
                          XLAT_PHYSMEM_MAX_REGIONS);
    if (!c->region && c->regions != 1)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_physmem: %u regions but no region descriptions", c->regions);
    for (uint32_t i = 0; c->region && i < c->regions; i++) {
        const xlat_region_config *r = &c->region[i];
        if (r->frames == 0)
            return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_physmem: region %u is empty (frames 0)", i);
        if (r->base_pfn >= PFN_LIMIT || r->frames > PFN_LIMIT - r->base_pfn)
            return xlat__fail(ctx, XLAT_ERR_INVAL,
                              "xlat_physmem: region %u (base 0x%llx, %llu frames) passes frame"
                              " 2^40 (52-bit physical addresses)",
                              i, (unsigned long long)r->base_pfn, (unsigned long long)r->frames);
    }
    return XLAT_OK;
}

static int check_config(xlat_ctx *ctx, const xlat_physmem_config *c)
{
    int rc = check_regions(ctx, c);
    if (rc != XLAT_OK)
        return rc;
    if ((unsigned)c->placement > XLAT_PLACE_CHUNKED)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_physmem: unknown placement %d",
                          (int)c->placement);
    if (c->placement == XLAT_PLACE_CHUNKED && c->chunk_pages == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_physmem: chunked placement needs chunk_pages");
    return XLAT_OK;
}

/* Sorts the regions by base (insertion sort: at most 64) and rejects overlaps. */
static int sort_regions(xlat_physmem *m)
{
    for (uint32_t i = 0; i < m->regions; i++) {
        uint32_t j = i, v = i;
        for (; j > 0 && m->region[m->order[j - 1]].base > m->region[v].base; j--)
            m->order[j] = m->order[j - 1];
        m->order[j] = v;
    }
    for (uint32_t i = 1; i < m->regions; i++) {
        const struct region *a = &m->region[m->order[i - 1]], *b = &m->region[m->order[i]];
        if (a->base + a->frames > b->base)
            return xlat__fail(m->ctx, XLAT_ERR_INVAL,
                              "xlat_physmem: regions %u [0x%llx, 0x%llx) and %u [0x%llx, 0x%llx)"
                              " overlap",
                              m->order[i - 1], (unsigned long long)a->base,
                              (unsigned long long)(a->base + a->frames), m->order[i],
                              (unsigned long long)b->base,
                              (unsigned long long)(b->base + b->frames));
    }
    return XLAT_OK;
}

static int region_init(xlat_ctx *ctx, struct region *r)
{
    r->free = r->frames;
    r->words = (r->frames + 63) / 64;
    r->used = xlat__calloc(ctx, r->words, sizeof(uint64_t));
    r->full = xlat__calloc(ctx, summary_words(r), sizeof(uint64_t));
    r->busy = xlat__calloc(ctx, summary_words(r), sizeof(uint64_t));
    if (!r->used || !r->full || !r->busy)
        return XLAT_ERR_NOMEM;
    if (r->frames % 64) { /* the tail of the last word never looks free */
        r->used[r->words - 1] = span_mask(r->frames % 64, 64);
        update_summary(r, r->words - 1);
    }
    return XLAT_OK;
}

static void physmem_free_all(xlat_physmem *m)
{
    xlat__reg_remove(m->ctx, &m->reg);
    for (uint32_t i = 0; i < m->regions; i++) {
        struct region *r = &m->region[i];
        xlat__free(m->ctx, r->used, r->words * sizeof(uint64_t));
        xlat__free(m->ctx, r->full, summary_words(r) * sizeof(uint64_t));
        xlat__free(m->ctx, r->busy, summary_words(r) * sizeof(uint64_t));
    }
    xlat__free(m->ctx, m, sizeof(*m));
}

static int physmem_build(xlat_physmem *m, const xlat_physmem_config *c)
{
    const xlat_region_config *desc = c->region ? c->region : &default_region;
    for (uint32_t i = 0; i < m->regions; i++) {
        m->region[i].base = desc[i].base_pfn;
        m->region[i].frames = desc[i].frames;
    }
    int rc = sort_regions(m);
    if (rc != XLAT_OK)
        return rc;
    for (uint32_t i = 0; i < m->regions; i++)
        if (region_init(m->ctx, &m->region[i]) != XLAT_OK)
            return xlat__fail(m->ctx, XLAT_ERR_NOMEM,
                              "xlat_physmem_create: out of memory for the bitmap of region %u"
                              " (%llu frames)",
                              i, (unsigned long long)desc[i].frames);
    return XLAT_OK;
}

static void destroy(void *m) { (void)xlat_physmem_destroy(m); }

/* Physical memory counts nothing: it is registered to be named and torn down. */
static const struct xlat__reg_ops reg_ops = {"physmem", NULL, NULL, destroy, NULL, NULL};

int xlat_physmem_create(xlat_ctx *ctx, const xlat_physmem_config *cfg, xlat_physmem **out)
{
    xlat_physmem_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_physmem_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_physmem_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_PHYSMEM_CONFIG_SIZE_V0, "xlat_physmem_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_physmem *m = xlat__alloc(ctx, sizeof(*m));
    if (!m)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_physmem_create: out of memory");
    m->ctx = ctx;
    m->placement = c.placement;
    m->chunk_pages = c.chunk_pages;
    m->regions = c.regions;
    rc = physmem_build(m, &c);
    if (rc != XLAT_OK) {
        physmem_free_all(m);
        return rc;
    }
    xlat__reg_add(ctx, &m->reg, &reg_ops, m, NULL, 0);
    *out = m;
    return XLAT_OK;
}

int xlat_physmem_destroy(xlat_physmem *mem)
{
    if (!mem)
        return XLAT_OK;
    int rc = xlat__reg_unheld(mem->ctx, &mem->reg, "physmem");
    if (rc == XLAT_OK)
        physmem_free_all(mem);
    return rc;
}

/* ---- allocation ------------------------------------------------------- */

int xlat_physmem_alloc(xlat_physmem *mem, uint32_t region, uint64_t frames, uint64_t align,
                       uint64_t *pfn)
{
    if (!mem || !pfn)
        return xlat__fail(mem ? mem->ctx : NULL, XLAT_ERR_INVAL, "xlat_physmem_alloc: NULL %s",
                          !mem ? "mem" : "pfn");
    if (region >= mem->regions || frames == 0 || !xlat__is_pow2(align))
        return xlat__fail(mem->ctx, XLAT_ERR_INVAL,
                          "xlat_physmem_alloc: region %u of %u, %llu frames, align %llu"
                          " (a power of two)",
                          region, mem->regions, (unsigned long long)frames,
                          (unsigned long long)align);
    struct region *r = &mem->region[region];
    uint64_t i = NONE;
    if (frames <= r->free)
        i = frames == 1 && align == 1 ? find_one(r) : find_run(r, frames, align);
    if (i == NONE)
        return xlat__fail(mem->ctx, XLAT_ERR_FULL,
                          "xlat_physmem_alloc: region %u has no run of %llu free frames aligned"
                          " to %llu (%llu free)",
                          region, (unsigned long long)frames, (unsigned long long)align,
                          (unsigned long long)r->free);
    mark(r, i, i + frames, 1);
    *pfn = r->base + i;
    return XLAT_OK;
}

/* Index of the region holding `pfn`, or -1 (binary search over `order`). */
static int find_region(const xlat_physmem *m, uint64_t pfn)
{
    uint32_t lo = 0, hi = m->regions;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        const struct region *r = &m->region[m->order[mid]];
        if (pfn < r->base)
            hi = mid;
        else if (pfn - r->base >= r->frames)
            lo = mid + 1;
        else
            return (int)m->order[mid];
    }
    return -1;
}

/* What a take or free needs of each frame, and what it does to them. */
enum range_op { CHECK_INSIDE, CHECK_FREE, CHECK_USED, DO_TAKE, DO_FREE };

/* Applies `op` to [pfn, pfn + n), which may cross from one region into an
 * adjacent one. Returns XLAT_OK, NOT_FOUND (a frame outside every region),
 * or 1 when a check fails. */
static int range_apply(xlat_physmem *m, uint64_t pfn, uint64_t n, enum range_op op)
{
    if (pfn >= PFN_LIMIT || n > PFN_LIMIT - pfn)
        return XLAT_ERR_NOT_FOUND;
    for (uint64_t end = pfn + n; pfn < end;) {
        int ri = find_region(m, pfn);
        if (ri < 0)
            return XLAT_ERR_NOT_FOUND;
        struct region *r = &m->region[ri];
        uint64_t lo = pfn - r->base, hi = end - r->base < r->frames ? end - r->base : r->frames;
        if (op == CHECK_FREE && last_used(r, lo, hi) != NONE)
            return 1;
        if (op == CHECK_USED && first_free(r, lo, hi) != NONE)
            return 1;
        if (op == DO_TAKE || op == DO_FREE)
            mark(r, lo, hi, op == DO_TAKE);
        pfn = r->base + hi;
    }
    return XLAT_OK;
}

/* Checks the whole range first, so a failing take or free changes nothing;
 * frames outside every region are reported before conflicts. */
static int range_change(xlat_physmem *m, uint64_t pfn, uint64_t n, int take)
{
    const char *what = take ? "xlat_physmem_take" : "xlat_physmem_free";
    int rc = range_apply(m, pfn, n, CHECK_INSIDE);
    if (rc == XLAT_OK)
        rc = range_apply(m, pfn, n, take ? CHECK_FREE : CHECK_USED);
    if (rc == XLAT_ERR_NOT_FOUND)
        return xlat__fail(m->ctx, rc, "%s: frames [0x%llx, +%llu) are not all inside regions",
                          what, (unsigned long long)pfn, (unsigned long long)n);
    if (rc != XLAT_OK)
        return xlat__fail(m->ctx, take ? XLAT_ERR_EXIST : XLAT_ERR_NOT_FOUND,
                          "%s: some of frames [0x%llx, +%llu) are %s", what,
                          (unsigned long long)pfn, (unsigned long long)n,
                          take ? "allocated already" : "not allocated");
    return range_apply(m, pfn, n, take ? DO_TAKE : DO_FREE);
}

int xlat_physmem_take(xlat_physmem *mem, uint64_t pfn, uint64_t frames)
{
    if (!mem || frames == 0)
        return xlat__fail(mem ? mem->ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_physmem_take: %s", !mem ? "NULL mem" : "0 frames");
    return range_change(mem, pfn, frames, 1);
}

int xlat_physmem_free(xlat_physmem *mem, uint64_t pfn, uint64_t frames)
{
    if (!mem || frames == 0)
        return xlat__fail(mem ? mem->ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_physmem_free: %s", !mem ? "NULL mem" : "0 frames");
    return range_change(mem, pfn, frames, 0);
}

/* ---- placement -------------------------------------------------------- */

/* One function per policy (placement is a table, not a mode flag). */
typedef uint32_t (*place_fn)(const xlat_physmem *m, uint64_t vpn, uint32_t requester);

static uint32_t place_local(const xlat_physmem *m, uint64_t vpn, uint32_t requester)
{
    (void)m;
    (void)vpn;
    return requester;
}

static uint32_t place_round_robin(const xlat_physmem *m, uint64_t vpn, uint32_t requester)
{
    (void)requester;
    return (uint32_t)(vpn % m->regions);
}

/* Kernel-wide chunking: `chunk_pages` consecutive virtual pages share a region. */
static uint32_t place_chunked(const xlat_physmem *m, uint64_t vpn, uint32_t requester)
{
    (void)requester;
    return (uint32_t)((vpn / m->chunk_pages) % m->regions);
}

static const place_fn placement_table[] = {
    [XLAT_PLACE_LOCAL] = place_local,
    [XLAT_PLACE_ROUND_ROBIN] = place_round_robin,
    [XLAT_PLACE_CHUNKED] = place_chunked,
};

int xlat_physmem_place(xlat_physmem *mem, uint64_t vpn, uint32_t requester, uint64_t frames,
                       uint64_t *pfn)
{
    if (!mem || !pfn)
        return xlat__fail(mem ? mem->ctx : NULL, XLAT_ERR_INVAL, "xlat_physmem_place: NULL %s",
                          !mem ? "mem" : "pfn");
    /* The requester is checked under every policy, so a bad one never goes
     * unnoticed until the policy changes. */
    if (requester >= mem->regions || !xlat__is_pow2(frames))
        return xlat__fail(mem->ctx, XLAT_ERR_INVAL,
                          "xlat_physmem_place: requester %u of %u regions, %llu frames"
                          " (a power of two)",
                          requester, mem->regions, (unsigned long long)frames);
    uint32_t region = placement_table[mem->placement](mem, vpn, requester);
    return xlat_physmem_alloc(mem, region, frames, frames, pfn);
}

/* ---- queries ---------------------------------------------------------- */

int xlat_physmem_region_of(const xlat_physmem *mem, uint64_t pfn, uint32_t *region)
{
    if (!mem || !region)
        return xlat__fail(mem ? mem->ctx : NULL, XLAT_ERR_INVAL, "xlat_physmem_region_of: NULL %s",
                          mem ? "region" : "mem");
    int ri = find_region(mem, pfn);
    if (ri < 0) /* an answer, not a failure: the Barre allocator asks it as a test */
        return XLAT_ERR_NOT_FOUND;
    *region = (uint32_t)ri;
    return XLAT_OK;
}

uint64_t xlat_physmem_free_frames(const xlat_physmem *mem, uint32_t region)
{
    return mem && region < mem->regions ? mem->region[region].free : 0;
}

uint32_t xlat_physmem_regions(const xlat_physmem *mem) { return mem ? mem->regions : 0; }

size_t xlat_physmem_memory(const xlat_physmem *mem)
{
    if (!mem)
        return 0;
    size_t n = sizeof(*mem);
    for (uint32_t i = 0; i < mem->regions; i++)
        n += region_bytes(&mem->region[i]);
    return n;
}
