/*
 * least-TLB's multi-GPU sharing patterns and multi-application mixes
 * ("Improving Address Translation in Multi-GPUs via Sharing and Spilling
 * aware TLB Design", §3.1.2: Table 3 for the patterns, Table 4 for the
 * mixes). The data set of `footprint` pages is cut into one slice per GPU,
 * each slice a data object placed on its GPU; the patterns differ in which
 * slices a GPU reaches and in what order. A slice's sharers are always a
 * run of consecutive GPUs (mod gpus), so a page's sharing degree is exact.
 */
#include "workload.h"

enum { FOOTPRINT, SHARING, STRIDE };
enum { APPS = 1, HEAVY };

#define SWEEP_REUSE 4    /* accesses per page of a sweep: a stencil row's neighbours */
#define LIGHT_REUSE 8    /* a light application's reuse per page */
#define PHASE_TURNS 1024 /* a GPU's turns per butterfly stage */

#define FOOT(def) {"footprint", def, 1, WL_MAX_PAGES, 0}
#define SHARE(def) {"sharing", def, 1, 1024, WL_UPTO_GPUS}

static uint64_t slice_start(const wl_state *w, uint64_t h)
{
    return h * wl_int(w, FOOTPRINT) / w->shape.gpus;
}

static uint64_t slice_len(const wl_state *w, uint64_t h)
{
    return slice_start(w, h + 1) - slice_start(w, h);
}

/* Page q of the window of `count` slices from slice h0 (mod gpus), as an
 * address in the slice's object. */
static uint64_t window_addr(wl_state *w, uint32_t h0, uint32_t count, uint64_t q)
{
    uint32_t g = w->shape.gpus;
    for (uint32_t j = 0;; j++) {
        uint32_t h = (h0 + j) % g;
        if (q < slice_len(w, h) || j + 1 == count)
            return wl_addr(w, h, q % slice_len(w, h));
        q -= slice_len(w, h);
    }
}

static uint64_t window_len(const wl_state *w, uint32_t h0, uint32_t count)
{
    uint64_t n = 0;
    for (uint32_t j = 0; j < count; j++)
        n += slice_len(w, (h0 + j) % w->shape.gpus);
    return n;
}

/* One object per GPU slice, placed on that GPU. */
static int slices_init(wl_state *w, sim_error *err)
{
    uint32_t g = w->shape.gpus;
    if (wl_int(w, FOOTPRINT) < g)
        return sim_fail(err, "workload %s: footprint=%llu is out of range %u..%llu (a page per GPU)",
                        w->kind->info.name, (unsigned long long)wl_int(w, FOOTPRINT), g,
                        WL_MAX_PAGES);
    if (wl_fit(w, wl_int(w, FOOTPRINT), err) || wl_objects(w, g, err))
        return -1;
    for (uint32_t h = 0; h < g; h++)
        w->objs[h] = (sim_object){.pasid = 1, .home_gpu = h,
                                  .vaddr = WL_BASE + slice_start(w, h) * w->page_bytes,
                                  .bytes = slice_len(w, h) * w->page_bytes};
    return 0;
}

/* random (PR, BS): a GPU picks uniformly among the slices it shares, then a
 * uniform page of it; slice h is shared by GPUs h .. h+sharing-1. */
static uint32_t random_burst(wl_state *w, sim_request *r)
{
    uint32_t g = w->shape.gpus;
    uint32_t h = (uint32_t)((r->gpu + g - wl_below(w, wl_int(w, SHARING))) % g);
    r->vaddr = wl_addr(w, h, wl_below(w, slice_len(w, h)));
    return 1;
}

/* adjacent (FIR, ST): the GPU sweeps a window of `sharing` slices centred on
 * its own (a stencil's rows plus its neighbours' halo), SWEEP_REUSE
 * accesses per page, from a random start. */
static uint32_t adjacent_burst(wl_state *w, sim_request *r)
{
    uint32_t g = w->shape.gpus, s = (uint32_t)wl_int(w, SHARING);
    uint32_t h0 = (r->gpu + g - (s - 1) / 2) % g;
    uint64_t n = w->gpu_count[r->gpu] / SWEEP_REUSE + w->start[(size_t)r->gpu * w->shape.cus];
    r->vaddr = window_addr(w, h0, s, n % window_len(w, h0, s));
    return 1;
}

/* partition (KM, AES): uniform pages of the GPU's own slice only. */
static uint32_t partition_burst(wl_state *w, sim_request *r)
{
    r->vaddr = wl_addr(w, r->gpu, wl_below(w, slice_len(w, r->gpu)));
    return 1;
}

/* stride (FFT): at stage k = turns / PHASE_TURNS the GPUs form groups of
 * `sharing` consecutive GPUs, rotated by k, so the partners change at each
 * step; a CU walks its group's slices `stride` pages at a time. */
static uint32_t stride_burst(wl_state *w, sim_request *r)
{
    uint32_t g = w->shape.gpus, s = (uint32_t)wl_int(w, SHARING);
    uint32_t k = (uint32_t)(w->gpu_count[r->gpu] / PHASE_TURNS % g);
    uint32_t first = (r->gpu + k) % g / s * s;
    uint32_t count = first + s > g ? g - first : s;
    uint32_t h0 = (first + g - k) % g;
    uint64_t len = window_len(w, h0, count);
    uint64_t q = wl_cu_start(w, r) % len + wl_cu_turn(w, r) % len * (wl_int(w, STRIDE) % len);
    r->vaddr = window_addr(w, h0, count, q % len);
    return 1;
}

/* scatter-gather (MT, MM): a CU alternates a sequential READ of its own slice
 * with a WRITE to a random page of one of the `sharing - 1` next GPUs'
 * slices (its own when sharing is 1): a page of slice h is read by GPU h
 * and written by GPUs h-sharing+1 .. h-1. */
static uint32_t scatter_burst(wl_state *w, sim_request *r)
{
    uint32_t g = w->shape.gpus, s = (uint32_t)wl_int(w, SHARING);
    uint64_t m = wl_cu_turn(w, r);
    if (m % 2 == 0) {
        uint64_t len = slice_len(w, r->gpu);
        r->vaddr = wl_addr(w, r->gpu, (wl_cu_start(w, r) + m / 2) % len);
        return 1;
    }
    uint32_t h = s == 1 ? r->gpu : (uint32_t)((r->gpu + 1 + wl_below(w, s - 1)) % g);
    r->vaddr = wl_addr(w, h, wl_below(w, slice_len(w, h)));
    r->access = XLAT_ACCESS_WRITE;
    return 1;
}

const wl_kind wl_random = {
    {"random", "footprint=8192 sharing=4",
     "uniform pages, each shared by `sharing` GPUs (least-TLB, Sec. 3.1.2, Table 3: PR, BS)"},
    {FOOT(8192), SHARE(4)}, slices_init, random_burst};
const wl_kind wl_adjacent = {
    {"adjacent", "footprint=8192 sharing=2",
     "sweeps over windows of neighbouring GPUs' slices (least-TLB, Sec. 3.1.2, Table 3: FIR, ST)"},
    {FOOT(8192), SHARE(2)}, slices_init, adjacent_burst};
const wl_kind wl_partition = {
    {"partition", "footprint=8192 sharing=1",
     "each GPU on its own slice, nothing shared (least-TLB, Sec. 3.1.2, Table 3: KM, AES)"},
    {FOOT(8192), {"sharing", 1, 1, 1, 0}}, slices_init, partition_burst};
const wl_kind wl_stride = {
    {"stride", "footprint=8192 sharing=2 stride=16",
     "strided walks shared by changing GPU groups (least-TLB, Sec. 3.1.2, Table 3: FFT)"},
    {FOOT(8192), SHARE(2), {"stride", 16, 1, WL_MAX_PAGES, 0}}, slices_init, stride_burst};
const wl_kind wl_scatter_gather = {
    {"scatter-gather", "footprint=8192 sharing=4",
     "local reads, writes to other GPUs' slices (least-TLB, Sec. 3.1.2, Table 3: MT, MM)"},
    {FOOT(8192), SHARE(4)}, slices_init, scatter_burst};

/* ---- mix: one application per block of GPUs ------------------------------- */

static uint32_t app_of(const wl_state *w, uint32_t gpu)
{
    return (uint32_t)((uint64_t)gpu * wl_int(w, APPS) / w->shape.gpus);
}

static uint64_t app_pages(const wl_state *w, uint32_t app)
{
    uint64_t heavy = wl_int(w, FOOTPRINT);
    if (app < wl_int(w, HEAVY))
        return heavy;
    return heavy / 16 ? heavy / 16 : 1;
}

static int mix_init(wl_state *w, sim_error *err)
{
    uint32_t apps = (uint32_t)wl_int(w, APPS);
    if (wl_int(w, HEAVY) > apps)
        return sim_fail(err, "workload mix: heavy=%llu is out of range 0..%u (the apps)",
                        (unsigned long long)wl_int(w, HEAVY), apps);
    if (wl_fit(w, wl_int(w, FOOTPRINT), err) || wl_objects(w, apps, err))
        return -1;
    for (uint32_t a = 0; a < apps; a++) {
        uint32_t home = (uint32_t)(((uint64_t)a * w->shape.gpus + apps - 1) / apps);
        w->objs[a] = (sim_object){.pasid = a + 1, .home_gpu = home,
                                  .vaddr = WL_BASE + ((uint64_t)a << WL_REGION_SHIFT),
                                  .bytes = app_pages(w, a) * w->page_bytes};
    }
    return 0;
}

/* Applications 1..heavy are TLB-miss intensive (uniform pages of a large
 * footprint, like MT or ST); the rest are light (a sweep of footprint/16
 * pages with LIGHT_REUSE accesses per page, like FIR or AES). */
static uint32_t mix_burst(wl_state *w, sim_request *r)
{
    uint32_t a = app_of(w, r->gpu);
    uint64_t pages = app_pages(w, a);
    r->pasid = a + 1;
    if (a < wl_int(w, HEAVY)) {
        r->vaddr = wl_addr(w, a, wl_below(w, pages));
        return 1;
    }
    uint64_t n = w->gpu_count[r->gpu] / LIGHT_REUSE + w->start[(size_t)r->gpu * w->shape.cus];
    r->vaddr = wl_addr(w, a, n % pages);
    return 1;
}

const wl_kind wl_mix = {
    {"mix", "footprint=8192 apps=4 heavy=2",
     "one application per GPU block, heavy and light (least-TLB, Sec. 3.1.2, Table 4)"},
    {FOOT(8192), {"apps", 4, 1, 1024, WL_UPTO_GPUS}, {"heavy", 2, 0, 1024, WL_UPTO_GPUS}},
    mix_init, mix_burst};
