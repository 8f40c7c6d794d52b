/* xlat-sim's workload generators: the contract every one keeps (count,
 * determinism, ranges, objects) and the property that defines each pattern,
 * checked exactly where the pattern makes it exact. */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"
#include "testutil.h"

static const char *const names[] = {"random", "adjacent",  "partition", "stride",  "scatter-gather",
                                    "mix",    "irregular", "gups",      "tenants", "barre-objects"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* Check's asserts cost a write each even when they hold, which would
 * dominate loops over every request: this one calls Check only on failure. */
#define CHECK(expr)                                                            \
    do {                                                                       \
        if (!(expr))                                                           \
            ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #expr);              \
    } while (0)

typedef struct run {
    sim_source *src;
    sim_request *req;
    size_t n;
} run;

static sim_shape shape(uint32_t gpus, uint32_t cus, uint64_t requests, uint64_t seed)
{
    return (sim_shape){.gpus = gpus, .cus = cus, .pasids = 2, .page_shift = 12,
                       .seed = seed, .requests = requests};
}

/* Opens `spec` (which must succeed) and reads the whole stream. */
static run drain(const char *spec, const sim_shape *s)
{
    run r = {0};
    sim_error err = {{0}};
    ck_assert_msg(sim_workload_open(spec, s, &r.src, &err) == 0, "%s: %s", spec, err.msg);
    size_t cap = 1024;
    r.req = malloc(cap * sizeof(*r.req));
    int rc;
    while ((rc = sim_source_next(r.src, &r.req[r.n], &err)) == 1)
        if (++r.n == cap)
            r.req = realloc(r.req, (cap *= 2) * sizeof(*r.req));
    ck_assert_int_eq(rc, 0);
    return r;
}

static void done(run *r)
{
    sim_source_close(r->src);
    free(r->req);
}

static bool same_req(const sim_request *a, const sim_request *b)
{
    return a->gpu == b->gpu && a->cu == b->cu && a->pasid == b->pasid && a->vaddr == b->vaddr &&
           a->access == b->access && a->cycle == b->cycle;
}

/* The object holding request q (same pasid), or -1. */
static long object_of(const run *r, const sim_request *q)
{
    for (size_t i = 0; i < r->src->nobjects; i++) {
        const sim_object *o = &r->src->objects[i];
        if (o->pasid == q->pasid && q->vaddr >= o->vaddr && q->vaddr - o->vaddr < o->bytes)
            return (long)i;
    }
    return -1;
}

/* Page index from the first object's start (the patterns whose objects are
 * one contiguous data set). */
static uint64_t page_of(const run *r, const sim_request *q)
{
    return (q->vaddr - r->src->objects[0].vaddr) >> 12;
}

/* ---- the contract ------------------------------------------------------- */

/* Each listed parameter string is what a bare name opens with. */
START_TEST(test_list_matches_defaults)
{
    size_t n = 0;
    const sim_workload_info *info = sim_workloads(&n);
    ck_assert_uint_eq(n, NNAMES);
    sim_shape s = shape(4, 4, 10, 1);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(info[i].name, names[i]);
        ck_assert_ptr_nonnull(strstr(info[i].summary, "Sec."));
        char want[256];
        snprintf(want, sizeof(want), "%s:%s", info[i].name, info[i].params);
        for (char *c = want; *c; c++)
            if (*c == ' ')
                *c = ',';
        run r = drain(info[i].name, &s);
        ck_assert_str_eq(r.src->name, want);
        ck_assert(!r.src->timed);
        done(&r);
    }
}
END_TEST

START_TEST(test_deterministic_and_seeded)
{
    sim_shape s = shape(4, 8, 3000, 42), other = shape(4, 8, 3000, 43);
    run a = drain(names[_i], &s), b = drain(names[_i], &s), c = drain(names[_i], &other);
    ck_assert_uint_eq(a.n, 3000);
    ck_assert_uint_eq(b.n, 3000);
    size_t differ = 0;
    for (size_t i = 0; i < a.n; i++) {
        CHECK(same_req(&a.req[i], &b.req[i]));
        differ += !same_req(&a.req[i], &c.req[i]);
    }
    ck_assert_msg(differ > a.n / 2, "%s: seeds 42 and 43 differ in %zu", names[_i], differ);
    done(&a);
    done(&b);
    done(&c);
}
END_TEST

START_TEST(test_default_count)
{
    sim_shape s = shape(4, 8, 0, 1);
    run r = drain(names[_i], &s);
    ck_assert_uint_eq(r.n, 100000);
    done(&r);
}
END_TEST

/* Every request on a real GPU and CU, inside a declared object of its
 * pasid; objects page aligned; GPUs interleaved round by round. */
START_TEST(test_requests_in_range)
{
    sim_shape s = shape(4, 8, 20000, 7);
    run r = drain(names[_i], &s);
    ck_assert_uint_ge(r.src->nobjects, 1);
    for (size_t i = 0; i < r.src->nobjects; i++) {
        ck_assert_uint_eq(r.src->objects[i].vaddr % 4096, 0);
        ck_assert_uint_gt(r.src->objects[i].bytes, 0);
        ck_assert_uint_lt(r.src->objects[i].home_gpu, 4);
    }
    uint64_t per_gpu[4] = {0};
    for (size_t i = 0; i < r.n; i++) {
        const sim_request *q = &r.req[i];
        bool ok = q->gpu < 4 && q->cu < 8 && q->pasid >= 1 && q->access <= XLAT_ACCESS_ATOMIC &&
                  object_of(&r, q) >= 0;
        per_gpu[q->gpu % 4]++;
        /* by the time request i is issued every GPU has had its turns */
        for (int g = 0; g < 4; g++)
            ok &= per_gpu[q->gpu % 4] <= per_gpu[g] + 64;
        if (!ok)
            ck_abort_msg("%s: request %zu: GPU %u CU %u pasid %u at %#llx", names[_i], i, q->gpu,
                         q->cu, q->pasid, (unsigned long long)q->vaddr);
    }
    done(&r);
}
END_TEST

/* ---- the least-TLB patterns ---------------------------------------------- */

/* A page's GPUs form a cyclic run of exactly `sharing` consecutive GPUs. */
static void check_sharing(const char *pattern, uint32_t sharing)
{
    char spec[64];
    snprintf(spec, sizeof(spec), "%s:footprint=64,sharing=%u", pattern, sharing);
    sim_shape s = shape(4, 4, 40000, 3);
    run r = drain(spec, &s);
    unsigned mask[64] = {0};
    for (size_t i = 0; i < r.n; i++)
        mask[page_of(&r, &r.req[i])] |= 1u << r.req[i].gpu;
    for (int p = 0; p < 64; p++) {
        ck_assert_msg(__builtin_popcount(mask[p]) == (int)sharing, "%s page %d: mask %x", spec, p,
                      mask[p]);
        bool run_found = false;
        for (uint32_t first = 0; first < 4; first++) {
            unsigned want = 0;
            for (uint32_t j = 0; j < sharing; j++)
                want |= 1u << ((first + j) % 4);
            run_found |= want == mask[p];
        }
        ck_assert_msg(run_found, "%s page %d: GPUs %x are not neighbours", spec, p, mask[p]);
    }
    done(&r);
}

START_TEST(test_sharing_degree)
{
    static const char *const shared[] = {"random", "adjacent", "scatter-gather"};
    for (size_t i = 0; i < 3; i++)
        for (uint32_t s = 1; s <= 4; s++)
            check_sharing(shared[i], s);
    check_sharing("partition", 1);
}
END_TEST

/* partition: GPU g touches only its own slice, the object placed on g. */
START_TEST(test_partition_own_slice)
{
    sim_shape s = shape(4, 4, 20000, 5);
    run r = drain("partition", &s);
    ck_assert_uint_eq(r.src->nobjects, 4);
    for (size_t i = 0; i < r.n; i++)
        CHECK(r.src->objects[object_of(&r, &r.req[i])].home_gpu == r.req[i].gpu);
    done(&r);
}
END_TEST

/* stride: on one GPU a CU's consecutive pages are exactly `stride` apart
 * (mod the footprint); on four, the GPU groups rotate so GPU 0 meets
 * different partners, and the stride holds within each stage. */
START_TEST(test_stride)
{
    sim_shape one = shape(1, 4, 4000, 9);
    run r = drain("stride:footprint=64,stride=5", &one);
    uint64_t last[4];
    for (size_t i = 0; i < r.n; i++) {
        uint64_t p = page_of(&r, &r.req[i]);
        if (i >= 4)
            CHECK((p + 64 - last[r.req[i].cu]) % 64 == 5);
        last[r.req[i].cu] = p;
    }
    done(&r);
    sim_shape four = shape(4, 4, 40000, 9);
    r = drain("stride:footprint=256,stride=3,sharing=2", &four);
    unsigned slices = 0;
    size_t ok = 0, pairs = 0;
    uint64_t prev[16];
    for (size_t i = 0; i < r.n; i++) {
        const sim_request *q = &r.req[i];
        uint64_t p = page_of(&r, q);
        if (q->gpu == 0)
            slices |= 1u << (p / 64);
        size_t k = q->gpu * 4 + q->cu;
        if (i >= 16) {
            pairs++;
            ok += (p + 256 - prev[k]) % 256 == 3 || (p + 128 - prev[k]) % 128 == 3;
        }
        prev[k] = p;
    }
    ck_assert_uint_eq(slices, 0xB); /* its own, then partners 1 and 3 */
    ck_assert_msg(ok * 10 >= pairs * 9, "stride held for %zu of %zu", ok, pairs);
    done(&r);
}
END_TEST

/* mix: app a (pasid a+1) alone on GPU a; heavy apps touch many more pages. */
START_TEST(test_mix)
{
    sim_shape s = shape(4, 4, 40000, 11);
    run r = drain("mix:footprint=4096,heavy=2", &s);
    ck_assert_uint_eq(r.src->nobjects, 4);
    static uint8_t seen[4][4096];
    memset(seen, 0, sizeof(seen));
    size_t distinct[4] = {0};
    for (size_t i = 0; i < r.n; i++) {
        const sim_request *q = &r.req[i];
        CHECK(q->pasid == q->gpu + 1);
        long o = object_of(&r, q);
        uint64_t p = (q->vaddr - r.src->objects[o].vaddr) >> 12;
        distinct[o] += !seen[o][p];
        seen[o][p] = 1;
    }
    for (int a = 0; a < 2; a++)
        for (int l = 2; l < 4; l++)
            ck_assert_msg(distinct[a] > 8 * distinct[l], "heavy %zu, light %zu", distinct[a],
                          distinct[l]);
    done(&r);
}
END_TEST

/* ---- the kernels ----------------------------------------------------------- */

/* Each instruction is `d` consecutive requests of one CU on distinct pages;
 * returns the measured share of pages with a neighbour in the instruction. */
static double neighbor_share(const char *spec, uint32_t d)
{
    sim_shape s = shape(2, 4, 6400 * d, 13);
    run r = drain(spec, &s);
    size_t paired = 0, wrong = 0;
    for (size_t i = 0; i < r.n; i += d) {
        for (uint32_t a = 0; a < d; a++) {
            const sim_request *q = &r.req[i + a];
            wrong += q->gpu != r.req[i].gpu || q->cu != r.req[i].cu;
            bool near = false;
            for (uint32_t b = 0; b < d; b++) {
                uint64_t pa = q->vaddr >> 12, pb = r.req[i + b].vaddr >> 12;
                wrong += b != a && pa == pb;
                near |= b != a && pa / 8 == pb / 8;
            }
            paired += near;
        }
    }
    ck_assert_msg(wrong == 0, "%s: %zu lanes on another CU or a repeated page", spec, wrong);
    done(&r);
    return (double)paired / (6400.0 * d);
}

START_TEST(test_irregular_neighbours)
{
    ck_assert(neighbor_share("irregular:divergence=16,neighbor_rate=0", 16) == 0.0);
    ck_assert(neighbor_share("irregular:divergence=16,neighbor_rate=1", 16) == 1.0);
    static const double rates[] = {0.03, 0.25, 0.4, 0.77};
    for (size_t i = 0; i < 4; i++) {
        char spec[80];
        snprintf(spec, sizeof(spec), "irregular:divergence=16,neighbor_rate=%g", rates[i]);
        double got = neighbor_share(spec, 16);
        ck_assert_msg(got > rates[i] - 0.01 && got < rates[i] + 0.01, "%s: %g", spec, got);
    }
    double wave = neighbor_share("irregular", 32);
    ck_assert_msg(wave > 0.39 && wave < 0.41, "default: %g", wave);
}
END_TEST

START_TEST(test_gups_updates)
{
    sim_shape s = shape(4, 4, 5000, 17);
    run w = drain("gups", &s), a = drain("gups:atomic=1", &s);
    for (size_t i = 0; i < w.n; i++) {
        CHECK(w.req[i].access == XLAT_ACCESS_WRITE);
        CHECK(a.req[i].access == XLAT_ACCESS_ATOMIC);
    }
    done(&w);
    done(&a);
}
END_TEST

/* tenants: pasid 1 on ratio% of the CUs, so exactly ratio% of requests;
 * pasid 1 spreads over many pages, pasid 2 stays on few. */
START_TEST(test_tenants_shares)
{
    sim_shape s = shape(2, 10, 20000, 19);
    run r = drain("tenants:ratio=30", &s);
    size_t first = 0;
    static uint8_t seen[2][16384];
    memset(seen, 0, sizeof(seen));
    size_t distinct[2] = {0};
    for (size_t i = 0; i < r.n; i++) {
        const sim_request *q = &r.req[i];
        CHECK(q->pasid == (q->cu < 3 ? 1u : 2u));
        first += q->pasid == 1;
        long o = object_of(&r, q);
        uint64_t p = (q->vaddr - r.src->objects[o].vaddr) >> 12;
        distinct[o] += !seen[o][p];
        seen[o][p] = 1;
    }
    ck_assert_uint_eq(first, 6000);
    ck_assert_msg(distinct[0] > 4 * distinct[1], "%zu vs %zu", distinct[0], distinct[1]);
    done(&r);
}
END_TEST

/* barre-objects: the chiplet LASP places page i of an object on is
 * (i / interlv) % gpus; a `remote` share goes to the two neighbours. */
static double barre_remote(const char *spec)
{
    sim_shape s = shape(4, 4, 40000, 23);
    run r = drain(spec, &s);
    size_t remote = 0;
    for (size_t i = 0; i < r.n; i++) {
        const sim_request *q = &r.req[i];
        long o = object_of(&r, q);
        uint64_t page = (q->vaddr - r.src->objects[o].vaddr) >> 12;
        uint32_t chiplet = (uint32_t)(page / 4 % 4);
        if (chiplet != q->gpu) {
            remote++;
            CHECK(chiplet == (q->gpu + 1) % 4 || chiplet == (q->gpu + 3) % 4);
        }
    }
    done(&r);
    return (double)remote / 40000.0;
}

START_TEST(test_barre_locality)
{
    ck_assert(barre_remote("barre-objects:remote=0") == 0.0);
    double got = barre_remote("barre-objects");
    ck_assert_msg(got > 0.09 && got < 0.11, "remote share %g", got);
    got = barre_remote("barre-objects:remote=0.5,objects=3,footprint=1000");
    ck_assert_msg(got > 0.48 && got < 0.52, "remote share %g", got);
}
END_TEST

/* ---- bad specs ---------------------------------------------------------------- */

static const struct bad {
    const char *spec;
    uint32_t cus, page_shift;
    const char *msg;
} bad[] = {
    {"nosuch", 4, 12, "unknown workload 'nosuch' (known: random, adjacent, partition, stride, "
                      "scatter-gather, mix, irregular, gups, tenants, barre-objects)"},
    {":footprint=1", 4, 12, "unknown workload ''"},
    {"random:foo=1", 4, 12,
     "workload random: unknown parameter 'foo' (parameters: footprint=8192 sharing=4)"},
    {"random:footprint=abc", 4, 12, "workload random: footprint: 'abc' is not a whole number in 1..16777216"},
    {"random:footprint=", 4, 12, "workload random: footprint: '' is not a whole number"},
    {"random:sharing=two", 4, 12,
     "workload random: sharing: 'two' is not a whole number in 1..4 (the GPUs)"},
    {"random:footprint=-5", 4, 12, "workload random: footprint: '-5' is not a whole number"},
    {"random:footprint=1e3", 4, 12, "workload random: footprint: '1e3' is not a whole number"},
    {"random:footprint=99999999999999999999", 4, 12, "is not a whole number"},
    {"random:footprint=0", 4, 12, "workload random: footprint=0 is out of range 1..16777216"},
    {"random:footprint=16777217", 4, 12, "footprint=16777217 is out of range 1..16777216"},
    {"random:footprint=2", 4, 12,
     "workload random: footprint=2 is out of range 4..16777216 (a page per GPU)"},
    {"random:sharing=5", 4, 12, "workload random: sharing=5 is out of range 1..4 (the GPUs)"},
    {"partition:sharing=2", 4, 12, "workload partition: sharing=2 is out of range 1..1"},
    {"stride:stride=0", 4, 12, "workload stride: stride=0 is out of range 1..16777216"},
    {"mix:apps=2,heavy=3", 4, 12, "workload mix: heavy=3 is out of range 0..2 (the apps)"},
    {"mix:apps=5", 4, 12, "workload mix: apps=5 is out of range 1..4 (the GPUs)"},
    {"irregular:neighbor_rate=1.5", 4, 12,
     "workload irregular: neighbor_rate=1.5 is out of range 0..1"},
    {"irregular:neighbor_rate=x", 4, 12, "workload irregular: neighbor_rate: 'x' is not a number in 0..1"},
    {"irregular:divergence=65", 4, 12, "workload irregular: divergence=65 is out of range 1..64"},
    {"irregular:divergence=1", 4, 12, "neighbor_rate=0.4 needs divergence 2..64"},
    {"irregular:footprint=100", 4, 12, "footprint=100 is out of range 256..16777216"},
    {"gups:atomic=2", 4, 12, "workload gups: atomic=2 is out of range 0..1"},
    {"gups:footprint=16777216", 4, 30,
     "workload gups: footprint: 16777216 pages of 1073741824 bytes do not fit in the 1 TiB "
     "region of a data object"},
    {"tenants:ratio=100", 4, 12, "workload tenants: ratio=100 is out of range 1..99"},
    {"tenants", 1, 12, "workload tenants: needs 2..1024 CUs per GPU"},
    {"barre-objects:footprint=16", 4, 12,
     "workload barre-objects: footprint=16 is out of range 64..16777216"},
    {"barre-objects:objects=17", 4, 12, "workload barre-objects: objects=17 is out of range 1..16"},
};

START_TEST(test_bad_specs)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sim_shape s = shape(4, bad[i].cus, 10, 1);
        s.page_shift = bad[i].page_shift;
        sim_source *src = (sim_source *)&s; /* must stay untouched */
        sim_error err = {{0}};
        ck_assert_int_eq(sim_workload_open(bad[i].spec, &s, &src, &err), -1);
        ck_assert_ptr_eq(src, (sim_source *)&s);
        ck_assert_msg(strstr(err.msg, bad[i].msg), "%s: got \"%s\"", bad[i].spec, err.msg);
        ck_assert_int_eq(sim_workload_open(bad[i].spec, &s, &src, NULL), -1);
    }
}
END_TEST

Suite *sim_workload_suite(void)
{
    Suite *s = suite_create("sim_workload");
    TCase *tc = test_case(s, "contract");
    tcase_add_test(tc, test_list_matches_defaults);
    tcase_add_loop_test(tc, test_deterministic_and_seeded, 0, NNAMES);
    tcase_add_loop_test(tc, test_default_count, 0, NNAMES);
    tcase_add_loop_test(tc, test_requests_in_range, 0, NNAMES);
    tcase_add_test(tc, test_bad_specs);
    tc = test_case(s, "patterns");
    tcase_add_test(tc, test_sharing_degree);
    tcase_add_test(tc, test_partition_own_slice);
    tcase_add_test(tc, test_stride);
    tcase_add_test(tc, test_mix);
    tcase_add_test(tc, test_irregular_neighbours);
    tcase_add_test(tc, test_gups_updates);
    tcase_add_test(tc, test_tenants_shares);
    tcase_add_test(tc, test_barre_locality);
    return s;
}
