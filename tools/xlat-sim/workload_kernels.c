/*
 * Kernel-shaped workloads: irregular divergent kernels (neighbourhood-aware
 * translation), GUPS, two tenants (page walk stealing) and Barre's data
 * objects across chiplets. doc/sim-workloads.md describes each.
 */
#include "workload.h"

enum { FOOTPRINT };
enum { DIVERGENCE = 1, NEIGHBOR_RATE };
enum { ATOMIC = 1 };
enum { RATIO = 1 };
enum { OBJECTS = 1, REMOTE, INTERLV };

#define NBH_PAGES 8      /* leaf PTEs in one 64-byte line: a neighbourhood */
#define LIGHT_DIV 16     /* a light tenant's footprint: the heavy one's / 16 */
#define LIGHT_REUSE 8    /* a light tenant's accesses per page */
#define BARRE_REUSE 4    /* a chiplet's accesses per page of its stream */

static double unit(wl_state *w)
{
    return (double)(wl_rand(w) >> 11) * 0x1.0p-53;
}

/* One object of `pages` pages at WL_BASE + (index << 40). */
static void put_object(wl_state *w, size_t i, uint32_t pasid, uint32_t home, uint64_t pages)
{
    w->objs[i] = (sim_object){.pasid = pasid, .home_gpu = home,
                              .vaddr = WL_BASE + ((uint64_t)i << WL_REGION_SHIFT),
                              .bytes = pages * w->page_bytes};
}

/* ---- irregular --------------------------------------------------------- */

static int irregular_init(wl_state *w, sim_error *err)
{
    uint64_t d = wl_int(w, DIVERGENCE), pages = wl_int(w, FOOTPRINT);
    if (d == 1 && w->p[NEIGHBOR_RATE] > 0)
        return sim_fail(err, "workload irregular: neighbor_rate=%g needs divergence 2..64 (a "
                             "neighbour is another page of the same instruction)",
                        w->p[NEIGHBOR_RATE]);
    if (pages / NBH_PAGES < d)
        return sim_fail(err, "workload irregular: footprint=%llu is out of range %llu..%llu (a "
                             "neighbourhood of 8 pages per distinct page)",
                        (unsigned long long)pages, (unsigned long long)d * NBH_PAGES, WL_MAX_PAGES);
    if (wl_fit(w, pages, err) || wl_objects(w, 1, err))
        return -1;
    put_object(w, 0, 1, 0, pages);
    return 0;
}

/* How many of the d pages share their neighbourhood: rate * d, rounded at
 * random so the mean is exact; a lone paired page cannot exist, so 1
 * becomes 0 or 2 with equal chance (the mean stays 1). */
static uint32_t paired_pages(wl_state *w, uint32_t d, double rate)
{
    double x = rate * d;
    uint32_t m = (uint32_t)x;
    if (unit(w) < x - m)
        m++;
    if (m == 1)
        m = wl_below(w, 2) ? 2 : 0;
    return m;
}

/* A neighbourhood no earlier page of this instruction uses. */
static uint64_t fresh_group(wl_state *w, uint64_t *used, uint32_t *nused)
{
    uint64_t groups = wl_int(w, FOOTPRINT) / NBH_PAGES;
    for (;;) {
        uint64_t g = wl_below(w, groups);
        uint32_t i = 0;
        while (i < *nused && used[i] != g)
            i++;
        if (i == *nused) {
            used[(*nused)++] = g;
            return g;
        }
    }
}

/* `size` distinct pages of one fresh neighbourhood. */
static uint32_t put_cluster(wl_state *w, uint64_t *pages, uint32_t size, uint64_t *used,
                            uint32_t *nused)
{
    uint64_t g = fresh_group(w, used, nused);
    uint32_t slot[NBH_PAGES] = {0, 1, 2, 3, 4, 5, 6, 7};
    for (uint32_t i = 0; i < size; i++) {
        uint32_t j = i + (uint32_t)wl_below(w, NBH_PAGES - i);
        uint32_t t = slot[i];
        slot[i] = slot[j];
        slot[j] = t;
        pages[i] = g * NBH_PAGES + slot[i];
    }
    return size;
}

/* One warp instruction ("Neighborhood-aware address translation for
 * irregular GPU applications", §III, Fig. 5): `divergence` distinct pages
 * issued back to back by one CU, `paired` of them in neighbourhoods of two
 * (one of three when odd), the others alone in theirs; lanes shuffled. */
static uint32_t irregular_burst(wl_state *w, sim_request *r)
{
    uint32_t d = (uint32_t)wl_int(w, DIVERGENCE);
    uint32_t m = paired_pages(w, d, w->p[NEIGHBOR_RATE]);
    uint64_t pages[WL_MAX_BURST], used[WL_MAX_BURST];
    uint32_t n = 0, nused = 0;
    for (uint32_t c = 0; c < m / 2; c++)
        n += put_cluster(w, pages + n, (m % 2 && c + 1 == m / 2) ? 3 : 2, used, &nused);
    while (n < d)
        n += put_cluster(w, pages + n, 1, used, &nused);
    for (uint32_t i = d; i > 1; i--) {
        uint32_t j = (uint32_t)wl_below(w, i);
        uint64_t t = pages[i - 1];
        pages[i - 1] = pages[j];
        pages[j] = t;
    }
    for (uint32_t i = 0; i < d; i++)
        r[i].vaddr = wl_addr(w, 0, pages[i]);
    return d;
}

const wl_kind wl_irregular = {
    {"irregular", "footprint=16384 divergence=32 neighbor_rate=0.4",
     "divergent warp instructions with neighbouring pages (Neighborhood-aware translation, "
     "Sec. III, Fig. 5)"},
    {{"footprint", 16384, 1, WL_MAX_PAGES, 0},
     {"divergence", 32, 1, WL_MAX_BURST, 0},
     {"neighbor_rate", 0.4, 0, 1, WL_FRAC}},
    irregular_init, irregular_burst};

/* ---- gups ---------------------------------------------------------------- */

static int one_table_init(wl_state *w, sim_error *err)
{
    if (wl_fit(w, wl_int(w, FOOTPRINT), err) || wl_objects(w, 1, err))
        return -1;
    put_object(w, 0, 1, 0, wl_int(w, FOOTPRINT));
    return 0;
}

/* Every update a uniform page of the whole table, from every GPU. */
static uint32_t gups_burst(wl_state *w, sim_request *r)
{
    r->vaddr = wl_addr(w, 0, wl_below(w, wl_int(w, FOOTPRINT)));
    r->access = wl_int(w, ATOMIC) ? XLAT_ACCESS_ATOMIC : XLAT_ACCESS_WRITE;
    return 1;
}

const wl_kind wl_gups = {
    {"gups", "footprint=16384 atomic=0",
     "random read-modify-write updates over one table (Barre Chord, Sec. III-A, Table I: gups)"},
    {{"footprint", 16384, 1, WL_MAX_PAGES, 0}, {"atomic", 0, 0, 1, 0}},
    one_table_init, gups_burst};

/* ---- tenants ------------------------------------------------------------- */

static uint64_t light_pages(const wl_state *w)
{
    uint64_t p = wl_int(w, FOOTPRINT) / LIGHT_DIV;
    return p ? p : 1;
}

/* CUs 0 .. heavy_cus-1 of every GPU run tenant 1: a spatial partition, so
 * the request shares are the CU shares. */
static uint32_t heavy_cus(const wl_state *w)
{
    uint32_t c = (uint32_t)((w->shape.cus * wl_int(w, RATIO) + 50) / 100);
    if (c < 1)
        c = 1;
    return c < w->shape.cus ? c : w->shape.cus - 1;
}

static int tenants_init(wl_state *w, sim_error *err)
{
    if (w->shape.cus < 2)
        return sim_fail(err, "workload tenants: needs 2..1024 CUs per GPU to split between the "
                             "tenants (has %u)",
                        w->shape.cus);
    if (wl_fit(w, wl_int(w, FOOTPRINT), err) || wl_objects(w, 2, err))
        return -1;
    put_object(w, 0, 1, 0, wl_int(w, FOOTPRINT));
    put_object(w, 1, 2, 0, light_pages(w));
    return 0;
}

/* "Improving GPU Multi-tenancy with Page Walk Stealing", §III: tenant 1 is
 * walk intensive like GUPS (uniform pages of the whole footprint); tenant 2
 * is light (each CU sweeps footprint/16 pages, LIGHT_REUSE per page). */
static uint32_t tenants_burst(wl_state *w, sim_request *r)
{
    if (r->cu < heavy_cus(w)) {
        r->vaddr = wl_addr(w, 0, wl_below(w, wl_int(w, FOOTPRINT)));
        return 1;
    }
    r->pasid = 2;
    uint64_t n = wl_cu_start(w, r) + wl_cu_turn(w, r) / LIGHT_REUSE;
    r->vaddr = wl_addr(w, 1, n % light_pages(w));
    return 1;
}

const wl_kind wl_tenants = {
    {"tenants", "footprint=16384 ratio=50",
     "a walk-intensive and a light tenant, ratio% of CUs to the first (Page Walk Stealing, "
     "Sec. III, Table II)"},
    {{"footprint", 16384, 1, WL_MAX_PAGES, 0}, {"ratio", 50, 1, 99, 0}},
    tenants_init, tenants_burst};

/* ---- barre-objects ---------------------------------------------------------- */

static uint64_t object_pages(const wl_state *w, uint64_t o)
{
    uint64_t p = wl_int(w, FOOTPRINT), n = wl_int(w, OBJECTS);
    return (o + 1) * p / n - o * p / n;
}

/* The pages LASP places on chiplet g: `interlv` of every gpus * interlv. */
static uint64_t chiplet_pages(const wl_state *w, uint64_t o, uint32_t g)
{
    uint64_t gran = wl_int(w, INTERLV), round = gran * w->shape.gpus;
    uint64_t len = object_pages(w, o), rem = len % round;
    uint64_t tail = rem > g * gran ? rem - g * gran : 0;
    return len / round * gran + (tail < gran ? tail : gran);
}

/* The k-th page of object o on chiplet g, as a page index of the object. */
static uint64_t chiplet_page(const wl_state *w, uint32_t g, uint64_t k)
{
    uint64_t gran = wl_int(w, INTERLV);
    return k / gran * gran * w->shape.gpus + g * gran + k % gran;
}

static int barre_init(wl_state *w, sim_error *err)
{
    uint64_t n = wl_int(w, OBJECTS), least = n * w->shape.gpus * wl_int(w, INTERLV);
    if (wl_int(w, FOOTPRINT) < least)
        return sim_fail(err, "workload barre-objects: footprint=%llu is out of range %llu..%llu "
                             "(objects x gpus x interlv: a round of every object on every chiplet)",
                        (unsigned long long)wl_int(w, FOOTPRINT), (unsigned long long)least,
                        WL_MAX_PAGES);
    if (wl_fit(w, wl_int(w, FOOTPRINT), err) || wl_objects(w, n, err))
        return -1;
    for (size_t o = 0; o < n; o++)
        put_object(w, o, 1, (uint32_t)(o % w->shape.gpus), object_pages(w, o));
    return 0;
}

/* Barre Chord §II (LASP) and §IV: chiplets stream their own pages of every
 * object in lockstep (the same k at about the same time, which is what
 * lets a coalescing group's members be pending together); a `remote`
 * share goes to the same k on a neighbouring chiplet (a halo). */
static uint32_t barre_burst(wl_state *w, sim_request *r)
{
    uint32_t gpus = w->shape.gpus, g = r->gpu;
    uint64_t total = 0, n = w->start[0] + w->gpu_count[g] / BARRE_REUSE;
    for (uint64_t o = 0; o < wl_int(w, OBJECTS); o++)
        total += chiplet_pages(w, o, g);
    n %= total;
    uint64_t o = 0;
    while (n >= chiplet_pages(w, o, g))
        n -= chiplet_pages(w, o++, g);
    if (gpus > 1 && unit(w) < w->p[REMOTE]) {
        g = wl_below(w, 2) ? (g + 1) % gpus : (g + gpus - 1) % gpus;
        n %= chiplet_pages(w, o, g);
    }
    r->vaddr = wl_addr(w, o, chiplet_page(w, g, n));
    return 1;
}

const wl_kind wl_barre_objects = {
    {"barre-objects", "footprint=8192 objects=4 remote=0.1 interlv=4",
     "LASP-placed data objects, mostly local per chiplet (Barre Chord, Sec. II and IV)"},
    {{"footprint", 8192, 1, WL_MAX_PAGES, 0},
     {"objects", 4, 1, 16, 0},
     {"remote", 0.1, 0, 1, WL_FRAC},
     {"interlv", 4, 1, 1024, 0}},
    barre_init, barre_burst};
