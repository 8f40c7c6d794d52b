/*
 * The PEC buffer: one entry per data object, found by (pasid, vpn), with
 * the replacement rule of "Barre Chord" §IV-E as doc/barre.md reads it.
 */
#include "registry.h"
#include "unit_target.h"
#include "xlat/barre.h"

#define PEC_MAX_ENTRIES 1024

struct pec_slot {
    xlat_pec_entry e;
    bool valid;
};

struct xlat_pec_buffer {
    xlat_ctx *ctx;
    char *name;
    uint32_t entries;
    uint32_t count;
    bool expanded;          /* the PTE layout of its objects' pages */
    struct pec_slot *slot;
    xlat_pec_buffer_stats st;
    struct xlat__reg reg;
};

static const struct xlat__reg_ops reg_ops;

void xlat_pec_buffer_config_init_sized(xlat_pec_buffer_config *out, size_t size)
{
    xlat_pec_buffer_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "pec";
    cfg->entries = 5;
    xlat__config_out(out, size, &full, sizeof(full));
}

static void pec_free(xlat_pec_buffer *p)
{
    xlat__reg_remove(p->ctx, &p->reg);
    xlat__free(p->ctx, p->slot, p->entries * sizeof(*p->slot));
    xlat__strfree(p->ctx, p->name);
    xlat__free(p->ctx, p, sizeof(*p));
}

int xlat_pec_buffer_create(xlat_ctx *ctx, const xlat_pec_buffer_config *cfg,
                           xlat_pec_buffer **out)
{
    xlat_pec_buffer_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_pec_buffer_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_pec_buffer_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_PEC_BUFFER_CONFIG_SIZE_V0,
                               "xlat_pec_buffer_config");
    if (rc != XLAT_OK)
        return rc;
    const char *name = c.name ? c.name : "pec";
    if (c.entries == 0 || c.entries > PEC_MAX_ENTRIES)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "pec %s: entries %u is outside 1..%u", name,
                          c.entries, PEC_MAX_ENTRIES);
    xlat_pec_buffer *p = xlat__alloc(ctx, sizeof(*p));
    if (!p)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_pec_buffer_create: out of memory");
    p->ctx = ctx;
    p->entries = c.entries;
    p->expanded = c.expanded;
    p->name = xlat__strdup(ctx, name);
    p->slot = xlat__calloc(ctx, c.entries, sizeof(*p->slot));
    if (!p->name || !p->slot) {
        pec_free(p);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_pec_buffer_create: out of memory for %s",
                          name);
    }
    xlat__reg_add(ctx, &p->reg, &reg_ops, p, p->name, 0);
    *out = p;
    return XLAT_OK;
}

int xlat_pec_buffer_destroy(xlat_pec_buffer *p)
{
    if (!p)
        return XLAT_OK;
    int rc = xlat__reg_unheld(p->ctx, &p->reg, "pec"); /* a walker pool's PEC logic uses it */
    if (rc == XLAT_OK)
        pec_free(p);
    return rc;
}

static uint64_t pages(const xlat_pec_entry *e) { return e->end_vpn - e->start_vpn; }

static bool holds(const struct pec_slot *s, uint32_t pasid, uint64_t vpn)
{
    return s->valid && s->e.pasid == pasid && vpn >= s->e.start_vpn && vpn <= s->e.end_vpn;
}

/* Where `e` goes: its own entry, a free one, or the smallest object that
 * is smaller than it; NULL when every entry holds one at least as large. */
static struct pec_slot *slot_for(xlat_pec_buffer *p, const xlat_pec_entry *e)
{
    struct pec_slot *free_slot = NULL, *smallest = NULL;
    for (uint32_t i = 0; i < p->entries; i++) {
        struct pec_slot *s = &p->slot[i];
        if (s->valid && s->e.pasid == e->pasid && s->e.start_vpn == e->start_vpn)
            return s;
        if (!s->valid) {
            if (!free_slot)
                free_slot = s;
        } else if (pages(&s->e) < pages(e) && (!smallest || pages(&s->e) < pages(&smallest->e))) {
            smallest = s;
        }
    }
    return free_slot ? free_slot : smallest;
}

int xlat_pec_buffer_insert(xlat_pec_buffer *p, const xlat_pec_entry *e)
{
    if (!p || !e || e->end_vpn < e->start_vpn || e->interlv_gran == 0 || e->positions == 0 ||
        e->positions > 16)
        return xlat__fail(p ? p->ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_pec_buffer_insert: %s", !p ? "NULL pec" : !e ? "NULL entry"
                          : "an entry needs start_vpn <= end_vpn, interlv_gran > 0 and 1..16"
                            " positions");
    struct pec_slot *s = slot_for(p, e);
    if (!s) {
        p->st.refusals++;
        return xlat__fail(p->ctx, XLAT_ERR_FULL,
                          "pec %s: every entry holds a data object at least as large", p->name);
    }
    bool same = s->valid && s->e.pasid == e->pasid && s->e.start_vpn == e->start_vpn;
    if (s->valid && !same)
        p->st.evictions++;
    if (!s->valid)
        p->count++;
    s->e = *e;
    s->valid = true;
    p->st.inserts++;
    return XLAT_OK;
}

int xlat_pec_buffer_lookup(xlat_pec_buffer *p, uint32_t pasid, uint64_t vpn, xlat_pec_entry *out)
{
    if (!p)
        return XLAT_ERR_INVAL;
    p->st.lookups++;
    for (uint32_t i = 0; i < p->entries; i++)
        if (holds(&p->slot[i], pasid, vpn)) {
            p->st.hits++;
            if (out)
                *out = p->slot[i].e;
            return XLAT_OK;
        }
    return XLAT_ERR_NOT_FOUND;
}

int xlat_pec_buffer_remove(xlat_pec_buffer *p, uint32_t pasid, uint64_t vpn)
{
    if (!p)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (uint32_t i = 0; i < p->entries; i++)
        if (holds(&p->slot[i], pasid, vpn)) {
            p->slot[i].valid = false;
            removed++;
        }
    p->count -= (uint32_t)removed;
    p->st.removals += (uint64_t)removed;
    return removed;
}

int xlat_pec_buffer_clear(xlat_pec_buffer *p)
{
    if (!p)
        return XLAT_ERR_INVAL;
    int removed = (int)p->count;
    for (uint32_t i = 0; i < p->entries; i++)
        p->slot[i].valid = false;
    p->count = 0;
    p->st.removals += (uint64_t)removed;
    return removed;
}

uint32_t xlat_pec_buffer_count(const xlat_pec_buffer *p) { return p ? p->count : 0; }

bool xlat_pec_buffer_expanded(const xlat_pec_buffer *p) { return p && p->expanded; }

void xlat_pec_buffer_stats_get(const xlat_pec_buffer *p, xlat_pec_buffer_stats *out,
                               size_t out_size)
{
    xlat__copy_out(out, out_size, p ? &p->st : NULL, sizeof(p->st));
}

/* Counters by name (doc/statistics.md): one line per member of xlat_pec_buffer_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_pec_buffer_stats, lookups),  XLAT__COUNTER(xlat_pec_buffer_stats, hits),
    XLAT__COUNTER(xlat_pec_buffer_stats, inserts),  XLAT__COUNTER(xlat_pec_buffer_stats, evictions),
    XLAT__COUNTER(xlat_pec_buffer_stats, refusals), XLAT__COUNTER(xlat_pec_buffer_stats, removals),
};

static void stats_foreach(const void *p, const struct xlat__stats_sink *sink)
{
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &((const xlat_pec_buffer *)p)->st);
}

static void stats_reset(void *p) { memset(&((xlat_pec_buffer *)p)->st, 0, sizeof(xlat_pec_buffer_stats)); }
static void destroy(void *p) { (void)xlat_pec_buffer_destroy(p); }

static const struct xlat__reg_ops reg_ops = {"pec", stats_foreach, stats_reset, destroy, NULL, NULL};
