/*
 * The neighbourhood index ("Neighborhood-aware address translation for
 * irregular GPU applications" §IV-B): a hash map from (pasid, level, line)
 * to the buffered requests of that line, so that a completed read advances
 * its neighbours without scanning the whole buffer. Everything is reserved
 * at create from queue_entries: a neighbourhood record per level per
 * request record (each request may be alone in its line at every level).
 */
#include "walker_internal.h"

/* The request records: the buffer, and the walks under way. */
static size_t records(const struct xlat_walker *p)
{
    return (size_t)p->cfg.queue_entries + p->cfg.walkers;
}

int xlat__nbh_init(struct xlat_walker *p, xlat_ctx *ctx)
{
    struct nbh_index *ix = &p->nbh;
    size_t groups = records(p) * p->levels, buckets = 1;
    while (buckets < groups)
        buckets <<= 1; /* a load of at most one neighbourhood per bucket */
    ix->bucket = xlat__calloc(ctx, buckets, sizeof(*ix->bucket));
    if (!ix->bucket)
        return XLAT_ERR_NOMEM;
    ix->mask = buckets - 1;
    ix->ready = true;
    ix->cl = xlat__calloc(ctx, p->cfg.walkers, sizeof(*ix->cl));
    if (!ix->cl)
        return XLAT_ERR_NOMEM;
    int rc = xlat__pool_init_fixed(&ix->groups, ctx, sizeof(struct nbh_group), groups);
    if (rc == XLAT_OK)
        rc = xlat__pool_init_fixed(&ix->slots, ctx, sizeof(struct nbh_slot) * p->levels,
                                   records(p));
    return rc;
}

void xlat__nbh_free(struct xlat_walker *p, xlat_ctx *ctx)
{
    struct nbh_index *ix = &p->nbh;
    if (!ix->ready)
        return;
    xlat__pool_release(&ix->groups);
    xlat__pool_release(&ix->slots);
    xlat__free(ctx, ix->bucket, (ix->mask + 1) * sizeof(*ix->bucket));
    xlat__free(ctx, ix->cl, p->cfg.walkers * sizeof(*ix->cl));
    ix->ready = false;
}

static struct nbh_group **bucket_of(const struct xlat_walker *p, uint32_t pasid, uint32_t level,
                                    uint64_t key)
{
    uint64_t h = xlat__mix64(xlat__mix64(key) ^ ((uint64_t)pasid << 8 | level));
    return &p->nbh.bucket[h & p->nbh.mask];
}

static struct nbh_group *find(const struct xlat_walker *p, uint32_t pasid, uint32_t level,
                              uint64_t key)
{
    struct nbh_group *g = *bucket_of(p, pasid, level, key);
    while (g && (g->key != key || g->pasid != pasid || g->level != level))
        g = g->hnext;
    return g;
}

/* Walkers whose view is the neighbourhood, for one made now. */
static uint32_t count_readers(const struct xlat_walker *p, uint32_t pasid, uint32_t level,
                              uint64_t key)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        const struct nbh_cl_view *v = &p->nbh.cl[w];
        n += v->level == level && v->key == key && v->pasid == pasid;
    }
    return n;
}

/* The neighbourhood, made empty if it has no member yet (never fails: there
 * is a record for every level of every request record). */
static struct nbh_group *find_or_make(struct xlat_walker *p, uint32_t pasid, uint32_t level,
                                      uint64_t key)
{
    struct nbh_group *g = find(p, pasid, level, key);
    if (g)
        return g;
    struct nbh_group **b = bucket_of(p, pasid, level, key);
    g = xlat__pool_take(&p->nbh.groups);
    *g = (struct nbh_group){.hnext = *b, .key = key, .pasid = pasid, .level = level,
                            .readers = count_readers(p, pasid, level, key)};
    *b = g;
    return g;
}

static void drop_group(struct xlat_walker *p, struct nbh_group *g)
{
    struct nbh_group **link = bucket_of(p, g->pasid, g->level, g->key);
    while (*link != g)
        link = &(*link)->hnext;
    *link = g->hnext;
    xlat__pool_put(&p->nbh.groups, g);
}

static void join(struct xlat_walker *p, struct walk_req *r, uint32_t level)
{
    struct nbh_slot *s = &r->nbh[level - 1];
    struct nbh_group *g =
        find_or_make(p, r->req.pasid, level, xlat__walk_nbh(p, r->req.vaddr, level));
    s->group = g;
    s->next = NULL;
    s->prev = g->tail;
    if (g->tail)
        g->tail->nbh[level - 1].next = r;
    else
        g->head = r;
    g->tail = r;
}

static void leave(struct xlat_walker *p, struct walk_req *r, uint32_t level)
{
    struct nbh_slot *s = &r->nbh[level - 1];
    struct nbh_group *g = s->group;
    if (!g)
        return;
    if (s->prev)
        s->prev->nbh[level - 1].next = s->next;
    else
        g->head = s->next;
    if (s->next)
        s->next->nbh[level - 1].prev = s->prev;
    else
        g->tail = s->prev;
    s->group = NULL;
    if (!g->head)
        drop_group(p, g);
}

void xlat__nbh_add(struct xlat_walker *p, struct walk_req *r)
{
    r->nbh = xlat__pool_take(&p->nbh.slots);
    for (uint32_t level = 1; level <= p->levels; level++) {
        r->nbh[level - 1].group = NULL;
        if (xlat__walk_deeper(level, r->pl))
            join(p, r, level);
    }
}

void xlat__nbh_remove(struct xlat_walker *p, struct walk_req *r)
{
    for (uint32_t level = 1; level <= p->levels; level++)
        leave(p, r, level);
    xlat__pool_put(&p->nbh.slots, r->nbh);
    r->nbh = NULL;
}

void xlat__nbh_sync(struct xlat_walker *p, struct walk_req *r)
{
    for (uint32_t level = p->levels; level >= 1 && !xlat__walk_deeper(level, r->pl); level--)
        leave(p, r, level);
}

void xlat__nbh_view_moved(struct xlat_walker *p, uint32_t w, const struct nbh_cl_view *v)
{
    const struct nbh_cl_view *old = &p->nbh.cl[w];
    struct nbh_group *g;
    if (old->level && (g = find(p, old->pasid, old->level, old->key)) != NULL)
        g->readers--;
    if (v->level && (g = find(p, v->pasid, v->level, v->key)) != NULL)
        g->readers++;
}

bool xlat__nbh_held(const struct xlat_walker *p, const struct walk_req *r)
{
    if (!r->nbh)
        return xlat__walk_cl(p, r); /* not in the buffer (yet): by the walkers */
    for (uint32_t level = 1; level <= p->levels; level++) {
        const struct nbh_group *g = r->nbh[level - 1].group;
        if (g && g->readers)
            return true;
    }
    return false;
}

struct walk_req *xlat__nbh_first(const struct xlat_walker *p, uint32_t pasid, uint32_t level,
                                 uint64_t key)
{
    const struct nbh_group *g = find(p, pasid, level, key);
    return g ? g->head : NULL;
}

struct walk_req *xlat__nbh_next(const struct walk_req *r, uint32_t level)
{
    return r->nbh[level - 1].next;
}
