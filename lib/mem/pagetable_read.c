/* Page tables, the reading side: descents, functional walks and lookups,
 * raw entry access by physical address, geometry and counters. Nothing
 * here allocates. */
#include "pagetable_internal.h"

static void trace_step(xlat_walk_trace *t, const struct pt_node *n, uint32_t idx, uint32_t level,
                       uint64_t e)
{
    xlat_walk_step *s = &t->step[t->steps++];
    s->level = (uint8_t)level;
    s->node_pfn = n->pfn;
    s->entry_paddr = (n->pfn << PT_NODE_SHIFT) + (uint64_t)idx * sizeof(uint64_t);
    s->line_paddr = s->entry_paddr & ~UINT64_C(63);
    s->value = e;
}

void xlat__pt_descend(const xlat_pagetable *pt, struct pt_node *root, uint64_t vaddr,
                      uint32_t stop, struct pt_pos *pos, xlat_walk_trace *trace)
{
    struct pt_node *n = root;
    for (uint32_t level = pt->cfg.levels;; level--) {
        uint32_t idx = pt_index(pt, vaddr, level);
        uint64_t e = n->entry[idx];
        if (trace)
            trace_step(trace, n, idx, level, e);
        pos->node = n;
        pos->level = level;
        pos->index = idx;
        if (level == stop || !pt_is_pointer(e, level))
            return;
        n = xlat__pt_map_get(&pt->nodes, xlat_pte_pfn(e));
        if (!n) /* cannot happen: write() never forges a pointer */
            return;
    }
}

int xlat__pt_find_leaf(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                       struct pt_pos *pos)
{
    struct pt_node *root = xlat__pt_map_get(&pt->roots, pasid);
    if (!root || vaddr >> pt->va_bits)
        return XLAT_ERR_NOT_FOUND;
    xlat__pt_descend(pt, root, vaddr, 1, pos, NULL);
    uint64_t e = pos->node->entry[pos->index];
    if (!(e & XLAT_PTE_PRESENT) || !pt_is_leaf(e, pos->level))
        return XLAT_ERR_NOT_FOUND;
    return XLAT_OK;
}

int xlat_pagetable_lookup(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                          xlat_tlb_entry *out)
{
    struct pt_pos pos;
    if (!pt)
        return XLAT_ERR_INVAL;
    if (xlat__pt_find_leaf(pt, pasid, vaddr, &pos) != XLAT_OK)
        return XLAT_ERR_FAULT;
    if (out) {
        uint64_t e = pos.node->entry[pos.index];
        uint32_t shift = pt_shift(pt, pos.level);
        memset(out, 0, sizeof(*out));
        out->pasid = pasid;
        out->vpn = vaddr >> shift;
        out->pfn = (e & XLAT_PTE_PFN_MASK) >> shift;
        out->page_shift = (uint8_t)shift;
        out->perm = xlat_pte_perm(e);
        out->meta.coal_info = (uint16_t)xlat_pte_avail_high(e);
    }
    return XLAT_OK;
}

/* A PASID without a root, or an address beyond the virtual address width,
 * faults before any entry is read (steps 0, stop_level 0). */
int xlat_pagetable_walk(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                        xlat_walk_trace *out)
{
    struct pt_pos pos;
    if (!pt || !out)
        return xlat__fail(pt ? pt->ctx : NULL, XLAT_ERR_INVAL, "xlat_pagetable_walk: NULL %s",
                          pt ? "out" : "pt");
    memset(out, 0, sizeof(*out));
    out->status = XLAT_ERR_FAULT;
    struct pt_node *root = xlat__pt_map_get(&pt->roots, pasid);
    if (!root || vaddr >> pt->va_bits)
        return out->status;
    xlat__pt_descend(pt, root, vaddr, 1, &pos, out);
    uint64_t e = pos.node->entry[pos.index];
    out->stop_level = (uint8_t)pos.level;
    if (!(e & XLAT_PTE_PRESENT) || !pt_is_leaf(e, pos.level))
        return out->status;
    out->status = XLAT_OK;
    out->page_shift = (uint8_t)pt_shift(pt, pos.level);
    out->pfn = (e & XLAT_PTE_PFN_MASK) >> out->page_shift;
    out->perm = xlat_pte_perm(e);
    return XLAT_OK;
}

int xlat__pt_root(const xlat_pagetable *pt, uint32_t pasid, uint64_t *root_pfn)
{
    const struct pt_node *root = xlat__pt_map_get(&pt->roots, pasid);
    if (!root)
        return XLAT_ERR_NOT_FOUND;
    *root_pfn = root->pfn;
    return XLAT_OK;
}

int xlat_pagetable_root(const xlat_pagetable *pt, uint32_t pasid, uint64_t *root_pfn)
{
    if (!pt || !root_pfn)
        return xlat__fail(pt ? pt->ctx : NULL, XLAT_ERR_INVAL, "xlat_pagetable_root: NULL %s",
                          pt ? "root_pfn" : "pt");
    return xlat__pt_root(pt, pasid, root_pfn); /* NOT_FOUND is an answer: no message */
}


/* The node and entry index at `paddr`. */
static int locate(const xlat_pagetable *pt, uint64_t paddr, struct pt_node **node, uint32_t *idx)
{
    if (paddr & (sizeof(uint64_t) - 1))
        return XLAT_ERR_INVAL;
    uint64_t pfn = paddr >> PT_NODE_SHIFT;
    struct pt_node **memo = &pt->recent[pt_recent_slot(pfn)];
    *node = *memo;
    if (!*node || (*node)->pfn != pfn) {
        *node = xlat__pt_map_get(&pt->nodes, pfn);
        if (*node)
            *memo = *node;
    }
    *idx = (uint32_t)(paddr & ((UINT64_C(1) << PT_NODE_SHIFT) - 1)) / sizeof(uint64_t);
    /* A node narrower than its frame (bits_per_level < 9) leaves the rest
     * of the frame outside the table. */
    if (!*node || *idx >= pt->entries)
        return XLAT_ERR_NOT_FOUND;
    return XLAT_OK;
}

int xlat__pt_read(const xlat_pagetable *pt, uint64_t paddr, uint64_t *value)
{
    struct pt_node *n;
    uint32_t idx;
    int rc = locate(pt, paddr, &n, &idx);
    if (rc == XLAT_OK)
        *value = n->entry[idx];
    return rc;
}

int xlat_pagetable_read(const xlat_pagetable *pt, uint64_t paddr, uint64_t *value)
{
    if (!pt || !value)
        return xlat__fail(pt ? pt->ctx : NULL, XLAT_ERR_INVAL, "xlat_pagetable_read: NULL %s",
                          pt ? "value" : "pt");
    int rc = xlat__pt_read(pt, paddr, value);
    if (rc != XLAT_OK)
        return xlat__fail(pt->ctx, rc, "xlat_pagetable_read: paddr 0x%llx is %s",
                          (unsigned long long)paddr,
                          rc == XLAT_ERR_INVAL ? "not 8-byte aligned" : "not in a page-table node");
    return XLAT_OK;
}

/* Node pointers are the table's own business: a write keeps every pointer
 * (present, same frame) and creates none, so each walk step still lands on
 * a node. Everything else, software bits included, is the host's. */
int xlat_pagetable_write(xlat_pagetable *pt, uint64_t paddr, uint64_t value)
{
    struct pt_node *n;
    uint32_t idx;
    if (!pt)
        return XLAT_ERR_INVAL;
    int rc = locate(pt, paddr, &n, &idx);
    if (rc != XLAT_OK)
        return xlat__fail(pt->ctx, rc, "xlat_pagetable_write: paddr 0x%llx is %s",
                          (unsigned long long)paddr,
                          rc == XLAT_ERR_INVAL ? "not 8-byte aligned" : "not in a page-table node");
    uint64_t old = n->entry[idx];
    int was = pt_is_pointer(old, n->level), is = pt_is_pointer(value, n->level);
    if (was != is || (was && xlat_pte_pfn(old) != xlat_pte_pfn(value)))
        return xlat__fail(pt->ctx, XLAT_ERR_PERM,
                          "xlat_pagetable_write: 0x%llx at 0x%llx would %s a node pointer",
                          (unsigned long long)value, (unsigned long long)paddr,
                          was ? "change" : "create");
    xlat__pt_entry_set(pt, n, idx, value);
    return XLAT_OK;
}

uint32_t xlat_pagetable_level_shift(const xlat_pagetable *pt, uint32_t level)
{
    if (!pt || level < 1 || level > pt->cfg.levels)
        return 0;
    return pt_shift(pt, level);
}

uint32_t xlat_pagetable_index(const xlat_pagetable *pt, uint64_t vaddr, uint32_t level)
{
    if (!pt || level < 1 || level > pt->cfg.levels)
        return 0;
    return pt_index(pt, vaddr, level);
}

uint32_t xlat_pagetable_levels(const xlat_pagetable *pt) { return pt ? pt->cfg.levels : 0; }

void xlat_pagetable_stats_get(const xlat_pagetable *pt, xlat_pagetable_stats *out,
                              size_t out_size)
{
    if (!out || !pt) {
        xlat__copy_out(out, out_size, NULL, sizeof(xlat_pagetable_stats));
        return;
    }
    xlat_pagetable_stats st = pt->stats;
    st.bytes = 0;
    for (uint32_t k = 1; k <= XLAT_PT_MAX_LEVELS; k++)
        st.bytes += st.nodes[k] << PT_NODE_SHIFT;
    xlat__copy_out(out, out_size, &st, sizeof(st));
}

/* Figures by name (doc/statistics.md): one line per member of
 * xlat_pagetable_stats, arrays by level (index = level, 0 included). They
 * describe the table, so there is nothing to reset. */
#define PT_LEVELS(m)                                                                  \
    XLAT__COUNTER_AT4(xlat_pagetable_stats, m, 0, 1, 2, 3),                           \
        XLAT__COUNTER_AT(xlat_pagetable_stats, m, 4),                                 \
        XLAT__COUNTER_AT(xlat_pagetable_stats, m, 5), XLAT__COUNTER_AT(xlat_pagetable_stats, m, 6)
_Static_assert(XLAT__ARRAY_LEN(xlat_pagetable_stats, nodes) == 7 &&
                   XLAT__ARRAY_LEN(xlat_pagetable_stats, mapped) == 7,
               "the tables below name every level");
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_pagetable_stats, address_spaces),
    PT_LEVELS(nodes),
    XLAT__COUNTER(xlat_pagetable_stats, bytes),
    PT_LEVELS(mapped),
};

static void stats_foreach(const void *pt, const struct xlat__stats_sink *sink)
{
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void destroy(void *pt) { (void)xlat_pagetable_destroy(pt); }

const struct xlat__reg_ops xlat__pagetable_reg_ops = {"pagetable", stats_foreach, NULL, destroy,
                                                      NULL, NULL};
