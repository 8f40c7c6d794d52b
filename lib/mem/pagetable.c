/* Radix page tables whose nodes are frames of an xlat_physmem (the x86-64
 * layout of the neighborhood-aware walk paper, §II-A): lifecycle, the node
 * table, and the changes (map, unmap, protect). Reads are in
 * pagetable_read.c, entry accessors in pte.c. */
#include "pagetable_internal.h"
#include "unit_target.h"

/* ---- node frame -> node, PASID -> root -------------------------------- */

static size_t home_slot(const struct pt_map *m, uint64_t key)
{
    return (size_t)xlat__mix64(key) & (m->cap - 1);
}

struct pt_node *xlat__pt_map_get(const struct pt_map *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = home_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
        const struct pt_slot *s = &m->slot[i];
        if (!s->node || s->key == key)
            return s->node;
    }
}

/* Inserts a key known to be absent; room was reserved by map_reserve. */
static void map_put(struct pt_map *m, uint64_t key, struct pt_node *node)
{
    size_t i = home_slot(m, key);
    while (m->slot[i].node)
        i = (i + 1) & (m->cap - 1);
    m->slot[i].key = key;
    m->slot[i].node = node;
    m->count++;
}

/* Grows (doubling) until `extra` more keys keep the load at most 1/2, so
 * that the inserts after it cannot fail. */
static int map_reserve(xlat_ctx *ctx, struct pt_map *m, size_t extra)
{
    size_t need = (m->count + extra) * 2, cap = m->cap ? m->cap : 16;
    if (need <= m->cap)
        return XLAT_OK;
    while (cap < need)
        cap *= 2;
    struct pt_map grown = {xlat__calloc(ctx, cap, sizeof(struct pt_slot)), cap, 0};
    if (!grown.slot)
        return XLAT_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].node)
            map_put(&grown, m->slot[i].key, m->slot[i].node);
    xlat__free(ctx, m->slot, m->cap * sizeof(struct pt_slot));
    *m = grown;
    return XLAT_OK;
}

/* Backward-shift deletion: keeps every probe chain unbroken without tombstones. */
static void map_remove(struct pt_map *m, uint64_t key)
{
    size_t mask = m->cap - 1, i = home_slot(m, key);
    while (m->slot[i].node && m->slot[i].key != key)
        i = (i + 1) & mask;
    if (!m->slot[i].node)
        return;
    m->slot[i].node = NULL;
    m->count--;
    for (size_t j = (i + 1) & mask; m->slot[j].node; j = (j + 1) & mask) {
        size_t home = home_slot(m, m->slot[j].key);
        if (((j - home) & mask) >= ((j - i) & mask)) { /* slot i lies on j's probe path */
            m->slot[i] = m->slot[j];
            m->slot[j].node = NULL;
            i = j;
        }
    }
}

static void map_release(xlat_ctx *ctx, struct pt_map *m)
{
    xlat__free(ctx, m->slot, m->cap * sizeof(struct pt_slot));
    memset(m, 0, sizeof(*m));
}

/* ---- nodes ------------------------------------------------------------ */

static size_t node_bytes(const xlat_pagetable *pt)
{
    return sizeof(struct pt_node) + (size_t)pt->entries * sizeof(uint64_t);
}

static void node_release(xlat_pagetable *pt, struct pt_node *n)
{
    struct pt_node **memo = &pt->recent[pt_recent_slot(n->pfn)];
    if (*memo == n)
        *memo = NULL;
    xlat_physmem_free(pt->cfg.mem, n->pfn, 1);
    xlat__free(pt->ctx, n, node_bytes(pt));
}

void xlat__pt_entry_set(xlat_pagetable *pt, struct pt_node *n, uint32_t index, uint64_t value)
{
    uint64_t old = n->entry[index];
    if (old & XLAT_PTE_PRESENT) {
        n->used--;
        if (pt_is_leaf(old, n->level))
            pt->stats.mapped[n->level]--;
    }
    if (value & XLAT_PTE_PRESENT) {
        n->used++;
        if (pt_is_leaf(value, n->level))
            pt->stats.mapped[n->level]++;
    }
    n->entry[index] = value;
}

/* Whether the subtree under `n` maps anything. */
static int subtree_maps(const xlat_pagetable *pt, const struct pt_node *n)
{
    for (uint32_t i = 0; n->used && i < pt->entries; i++) {
        uint64_t e = n->entry[i];
        if (!(e & XLAT_PTE_PRESENT))
            continue;
        if (pt_is_leaf(e, n->level))
            return 1;
        const struct pt_node *c = xlat__pt_map_get(&pt->nodes, xlat_pte_pfn(e));
        if (!c || subtree_maps(pt, c))
            return 1;
    }
    return 0;
}

/* Frees `n` and every node below it. */
static void subtree_free(xlat_pagetable *pt, struct pt_node *n)
{
    for (uint32_t i = 0; n->used && i < pt->entries; i++) {
        if (!pt_is_pointer(n->entry[i], n->level))
            continue;
        struct pt_node *c = xlat__pt_map_get(&pt->nodes, xlat_pte_pfn(n->entry[i]));
        if (c)
            subtree_free(pt, c);
    }
    map_remove(&pt->nodes, n->pfn);
    pt->stats.nodes[n->level]--;
    node_release(pt, n);
}

/* The topmost node on `vaddr`'s path born in this call and mapping nothing,
 * unlinked and freed; its parent's entry keeps only its software bits, as
 * before the call linked it. */
static void prune_path(xlat_pagetable *pt, struct pt_node *n, uint64_t vaddr)
{
    while (n->level > 1) {
        uint32_t idx = pt_index(pt, vaddr, n->level);
        uint64_t e = n->entry[idx];
        struct pt_node *c = pt_is_pointer(e, n->level)
                                ? xlat__pt_map_get(&pt->nodes, xlat_pte_pfn(e)) : NULL;
        if (!c)
            return;
        if (c->born == pt->born && !subtree_maps(pt, c)) {
            xlat__pt_entry_set(pt, n, idx, e & PT_AVAIL_MASK);
            subtree_free(pt, c);
            return;
        }
        n = c;
    }
}

void xlat__pt_prune_born(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint64_t pages)
{
    struct pt_node *root = xlat__pt_map_get(&pt->roots, pasid);
    if (!root)
        return;
    if (root->born == pt->born && !subtree_maps(pt, root)) {
        map_remove(&pt->roots, pasid);
        pt->stats.address_spaces--;
        subtree_free(pt, root);
        return;
    }
    for (uint64_t i = 0; i < pages; i++)
        prune_path(pt, root, vaddr + (i << pt->cfg.page_shift));
}

/* ---- lifecycle -------------------------------------------------------- */

void xlat_pagetable_config_init_sized(xlat_pagetable_config *out, size_t size)
{
    xlat_pagetable_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->levels = 4;
    cfg->bits_per_level = 9;
    cfg->page_shift = 12;
    xlat__config_out(out, size, &full, sizeof(full));
}

static int check_config(xlat_ctx *ctx, const xlat_pagetable_config *c)
{
    if (!c->mem)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable: no physical memory (mem)");
    if (c->levels < 2 || c->levels > XLAT_PT_MAX_LEVELS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable: %u levels (2..%d)", c->levels,
                          XLAT_PT_MAX_LEVELS);
    if (c->bits_per_level < 1 || c->bits_per_level > 9)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable: %u bits per level (1..9)",
                          c->bits_per_level);
    /* Nodes are base-page frames read at (paddr & 0xfff) / 8. */
    if (c->page_shift != PT_NODE_SHIFT)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable: page_shift %u (only 12)",
                          c->page_shift);
    if (c->page_shift + c->levels * c->bits_per_level > 57)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable: %u levels of %u bits give more than 57 address bits",
                          c->levels, c->bits_per_level);
    if (c->node_region >= xlat_physmem_regions(c->mem))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable: node_region %u is not a region of mem (%u regions)",
                          c->node_region, xlat_physmem_regions(c->mem));
    return XLAT_OK;
}

int xlat_pagetable_create(xlat_ctx *ctx, const xlat_pagetable_config *cfg, xlat_pagetable **out)
{
    xlat_pagetable_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pagetable_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_pagetable_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_PAGETABLE_CONFIG_SIZE_V0,
                               "xlat_pagetable_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_pagetable *pt = xlat__alloc(ctx, sizeof(*pt));
    struct pt_node **recent = xlat__calloc(ctx, 1u << PT_RECENT_BITS, sizeof(*recent));
    if (!pt || !recent) {
        xlat__free(ctx, pt, sizeof(*pt));
        xlat__free(ctx, recent, (1u << PT_RECENT_BITS) * sizeof(*recent));
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_pagetable_create: out of memory");
    }
    pt->ctx = ctx;
    pt->recent = recent;
    pt->cfg = c;
    pt->entries = UINT32_C(1) << c.bits_per_level;
    pt->va_bits = c.page_shift + c.levels * c.bits_per_level;
    pt->leaf_levels = c.levels < 3 ? c.levels : 3;
    xlat__reg_add(ctx, &pt->reg, &xlat__pagetable_reg_ops, pt, NULL, 0);
    pt->held_mem = xlat__hold_handle(ctx, c.mem);
    *out = pt;
    return XLAT_OK;
}

int xlat_pagetable_destroy(xlat_pagetable *pt)
{
    if (!pt)
        return XLAT_OK;
    int rc = xlat__reg_unheld(pt->ctx, &pt->reg, "pagetable");
    if (rc != XLAT_OK)
        return rc;
    xlat__reg_remove(pt->ctx, &pt->reg);
    xlat__release_id(pt->ctx, pt->held_mem);
    for (size_t i = 0; i < pt->nodes.cap; i++)
        if (pt->nodes.slot[i].node)
            node_release(pt, pt->nodes.slot[i].node);
    map_release(pt->ctx, &pt->nodes);
    map_release(pt->ctx, &pt->roots);
    xlat__free(pt->ctx, pt->recent, (1u << PT_RECENT_BITS) * sizeof(*pt->recent));
    xlat__free(pt->ctx, pt, sizeof(*pt));
    return XLAT_OK;
}

/* ---- map -------------------------------------------------------------- */

/* The level whose entries map pages of 2^page_shift bytes, or 0. */
static uint32_t leaf_level(const xlat_pagetable *pt, uint32_t page_shift)
{
    for (uint32_t k = 1; k <= pt->leaf_levels; k++)
        if (pt_shift(pt, k) == page_shift)
            return k;
    return 0;
}

static int check_map(const xlat_pagetable *pt, uint64_t vaddr, uint64_t pfn, uint8_t page_shift,
                     uint8_t perm, uint32_t *level)
{
    *level = leaf_level(pt, page_shift);
    if (!*level)
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_map: page_shift %u: this geometry has no page of 2^%u bytes",
                          page_shift, page_shift);
    if (vaddr >> pt->va_bits)
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_map: vaddr 0x%llx beyond the %u-bit address space",
                          (unsigned long long)vaddr, pt->va_bits);
    if (vaddr & ((UINT64_C(1) << page_shift) - 1))
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_map: vaddr 0x%llx is not aligned to 2^%u bytes",
                          (unsigned long long)vaddr, page_shift);
    if (pfn >> (52 - page_shift))
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_map: pfn 0x%llx (2^%u-byte units) beyond 52 bits",
                          (unsigned long long)pfn, page_shift);
    if (perm & ~(XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U))
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL, "xlat_pagetable_map: unknown perm bits 0x%x",
                          perm);
    return XLAT_OK;
}

/* What a map needs: `fresh` new nodes, the first at level `top`, hanging
 * from `pos` (or a new root); or `reclaim`, an empty subtree the page replaces. */
struct map_plan {
    struct pt_pos pos;
    uint32_t level, top, fresh;
    struct pt_node *reclaim;
    struct pt_node *node[XLAT_PT_MAX_LEVELS];
};

/* A present entry at or above the page's level is an overlap, except a node
 * pointer over a subtree that maps nothing (left by unmap, say): the page
 * replaces it and its nodes are freed. */
static int plan_map(const xlat_pagetable *pt, struct pt_node *root, uint64_t vaddr,
                    struct map_plan *p)
{
    if (!root) {
        p->top = pt->cfg.levels;
        p->fresh = pt->cfg.levels - p->level + 1;
        return XLAT_OK;
    }
    xlat__pt_descend(pt, root, vaddr, p->level, &p->pos, NULL);
    uint64_t e = p->pos.node->entry[p->pos.index];
    if (!(e & XLAT_PTE_PRESENT)) {
        p->top = p->pos.level - 1;
        p->fresh = p->pos.level - p->level;
        return XLAT_OK;
    }
    if (p->pos.level == p->level && pt_is_pointer(e, p->level)) {
        p->reclaim = xlat__pt_map_get(&pt->nodes, xlat_pte_pfn(e));
        if (p->reclaim && !subtree_maps(pt, p->reclaim))
            return XLAT_OK;
    }
    return xlat__fail(pt->ctx, XLAT_ERR_EXIST,
                      "xlat_pagetable_map: vaddr 0x%llx overlaps a mapping at level %u",
                      (unsigned long long)vaddr, p->pos.level);
}

/* Frees the host memory of planned nodes [0, n), which hold no frame yet. */
static void drop_records(xlat_pagetable *pt, struct map_plan *p, uint32_t n)
{
    while (n--)
        xlat__free(pt->ctx, p->node[n], node_bytes(pt));
}

/* Allocates every node the plan needs, or none. Frames come last and are
 * counted first, so a failing map leaves the physical memory untouched
 * (even its next-fit cursor). */
static int alloc_plan(xlat_pagetable *pt, int new_root, struct map_plan *p)
{
    uint64_t left = xlat_physmem_free_frames(pt->cfg.mem, pt->cfg.node_region);
    if (left < p->fresh)
        return xlat__fail(pt->ctx, XLAT_ERR_FULL,
                          "xlat_pagetable_map: %u new nodes, %llu free frames in region %u",
                          p->fresh, (unsigned long long)left, pt->cfg.node_region);
    if (map_reserve(pt->ctx, &pt->nodes, p->fresh) != XLAT_OK ||
        (new_root && map_reserve(pt->ctx, &pt->roots, 1) != XLAT_OK))
        return xlat__fail(pt->ctx, XLAT_ERR_NOMEM, "xlat_pagetable_map: out of memory");
    for (uint32_t i = 0; i < p->fresh; i++) {
        p->node[i] = xlat__alloc(pt->ctx, node_bytes(pt));
        if (!p->node[i]) {
            drop_records(pt, p, i);
            return xlat__fail(pt->ctx, XLAT_ERR_NOMEM, "xlat_pagetable_map: out of memory");
        }
        p->node[i]->level = p->top - i;
    }
    for (uint32_t i = 0; i < p->fresh; i++) {
        /* single frames cannot fail once counted; stay safe if they do */
        int rc = xlat_physmem_alloc(pt->cfg.mem, pt->cfg.node_region, 1, 1, &p->node[i]->pfn);
        if (rc != XLAT_OK) {
            for (uint32_t k = 0; k < i; k++)
                xlat_physmem_free(pt->cfg.mem, p->node[k]->pfn, 1);
            drop_records(pt, p, p->fresh);
            return xlat__fail(pt->ctx, rc, "xlat_pagetable_map: no frame for a node (%s)",
                              xlat_strerror(rc));
        }
    }
    return XLAT_OK;
}

static uint64_t pointer_entry(uint64_t old, const struct pt_node *child)
{
    return (old & PT_AVAIL_MASK) | XLAT_PTE_PRESENT | XLAT_PTE_WRITABLE | XLAT_PTE_USER |
           (child->pfn << PT_NODE_SHIFT);
}

/* The hardware bits of a leaf for `perm`; software bits come from `old`. */
static uint64_t leaf_entry(uint64_t old, uint32_t level, uint64_t paddr, uint8_t perm)
{
    uint64_t e = (old & PT_AVAIL_MASK) | XLAT_PTE_PRESENT | (paddr & XLAT_PTE_PFN_MASK);
    e |= perm & XLAT_PERM_W ? XLAT_PTE_WRITABLE : 0;
    e |= perm & XLAT_PERM_U ? XLAT_PTE_USER : 0;
    e |= perm & XLAT_PERM_X ? 0 : XLAT_PTE_NX;
    return level > 1 ? e | XLAT_PTE_PS : e;
}

/* Links the planned nodes in (cannot fail) and returns the node that will
 * hold the leaf. */
static struct pt_node *commit_nodes(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                    struct map_plan *p, int new_root)
{
    for (uint32_t i = 0; i < p->fresh; i++) {
        struct pt_node *n = p->node[i];
        map_put(&pt->nodes, n->pfn, n);
        n->born = pt->born;
        pt->stats.nodes[n->level]++;
        if (i > 0) {
            uint32_t idx = pt_index(pt, vaddr, n->level + 1);
            xlat__pt_entry_set(pt, p->node[i - 1], idx, pointer_entry(p->node[i - 1]->entry[idx], n));
        }
    }
    if (new_root) {
        map_put(&pt->roots, pasid, p->node[0]);
        pt->stats.address_spaces++;
    } else if (p->fresh) {
        struct pt_node *at = p->pos.node;
        xlat__pt_entry_set(pt, at, p->pos.index, pointer_entry(at->entry[p->pos.index], p->node[0]));
    }
    if (p->reclaim)
        subtree_free(pt, p->reclaim);
    return p->fresh ? p->node[p->fresh - 1] : p->pos.node;
}

int xlat_pagetable_map(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint64_t pfn,
                       uint8_t page_shift, uint8_t perm)
{
    struct map_plan p;
    if (!pt)
        return XLAT_ERR_INVAL;
    memset(&p, 0, sizeof(p));
    int rc = check_map(pt, vaddr, pfn, page_shift, perm, &p.level);
    if (rc != XLAT_OK)
        return rc;
    struct pt_node *root = xlat__pt_map_get(&pt->roots, pasid);
    rc = plan_map(pt, root, vaddr, &p);
    if (rc == XLAT_OK)
        rc = alloc_plan(pt, !root, &p);
    if (rc != XLAT_OK)
        return rc;
    struct pt_node *n = commit_nodes(pt, pasid, vaddr, &p, !root);
    uint32_t idx = pt_index(pt, vaddr, p.level);
    xlat__pt_entry_set(pt, n, idx, leaf_entry(n->entry[idx], p.level, pfn << page_shift, perm));
    return XLAT_OK;
}

/* ---- unmap, protect --------------------------------------------------- */

int xlat_pagetable_unmap(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr)
{
    struct pt_pos pos;
    if (!pt)
        return XLAT_ERR_INVAL;
    if (xlat__pt_find_leaf(pt, pasid, vaddr, &pos) != XLAT_OK)
        return xlat__fail(pt->ctx, XLAT_ERR_NOT_FOUND,
                          "xlat_pagetable_unmap: nothing mapped at vaddr 0x%llx in PASID %u",
                          (unsigned long long)vaddr, pasid);
    uint32_t shift = pt_shift(pt, pos.level);
    if (vaddr & ((UINT64_C(1) << shift) - 1))
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_unmap: vaddr 0x%llx is inside a 2^%u-byte page, not its start",
                          (unsigned long long)vaddr, shift);
    /* x86 practice: a removed entry is zeroed, software bits included. */
    xlat__pt_entry_set(pt, pos.node, pos.index, 0);
    return XLAT_OK;
}

int xlat_pagetable_protect(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint8_t perm)
{
    struct pt_pos pos;
    if (!pt)
        return XLAT_ERR_INVAL;
    if (perm & ~(XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U))
        return xlat__fail(pt->ctx, XLAT_ERR_INVAL,
                          "xlat_pagetable_protect: unknown perm bits 0x%x", perm);
    if (xlat__pt_find_leaf(pt, pasid, vaddr, &pos) != XLAT_OK)
        return xlat__fail(pt->ctx, XLAT_ERR_NOT_FOUND,
                          "xlat_pagetable_protect: nothing mapped at vaddr 0x%llx in PASID %u",
                          (unsigned long long)vaddr, pasid);
    uint64_t *e = &pos.node->entry[pos.index];
    uint64_t keep = *e & ~(XLAT_PTE_WRITABLE | XLAT_PTE_USER | XLAT_PTE_NX);
    *e = keep | (leaf_entry(0, 1, 0, perm) & (XLAT_PTE_WRITABLE | XLAT_PTE_USER | XLAT_PTE_NX));
    return XLAT_OK;
}

int xlat_pagetable_set_avail_high(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                  uint32_t value)
{
    struct pt_pos pos;
    if (!pt)
        return XLAT_ERR_INVAL;
    if (xlat__pt_find_leaf(pt, pasid, vaddr, &pos) != XLAT_OK)
        return xlat__fail(pt->ctx, XLAT_ERR_NOT_FOUND,
                          "xlat_pagetable_set_avail_high: nothing mapped at vaddr 0x%llx in PASID %u",
                          (unsigned long long)vaddr, pasid);
    uint64_t *e = &pos.node->entry[pos.index];
    *e = xlat_pte_set_avail_high(*e, value);
    return XLAT_OK;
}
