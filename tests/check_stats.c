/*
 * The unit registry and uniform statistics: every kind's counter names
 * against a golden list (a rename fails here), values against stats_get,
 * a whole 64-GPU system in one call (its latency histograms too), resets,
 * unknown ids, stable ids, and xlat_ctx_destroy tearing down whatever the
 * host left alive.
 */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#define MAX_SEEN 16384

/* What one enumeration saw, in order. */
typedef struct seen {
    size_t n;
    uint32_t id[MAX_SEEN];
    const char *kind[MAX_SEEN];
    const char *name[MAX_SEEN];
    const char *counter[MAX_SEEN];
    uint64_t value[MAX_SEEN];
} seen;

static seen got;

static void record(void *user, uint32_t unit_id, const char *unit_kind, const char *unit_name,
                   const char *counter, uint64_t value)
{
    seen *s = user;
    ck_assert_ptr_nonnull(unit_name);
    ck_assert_uint_lt(s->n, MAX_SEEN);
    s->id[s->n] = unit_id;
    s->kind[s->n] = unit_kind;
    s->name[s->n] = unit_name;
    s->counter[s->n] = counter;
    s->value[s->n++] = value;
}

static void unit_counters(xlat_ctx *ctx, const void *handle)
{
    got.n = 0;
    uint32_t id = xlat_unit_id(ctx, handle);
    ck_assert_uint_ne(id, 0);
    ck_assert_int_eq(xlat_unit_stats_foreach(ctx, id, record, &got), XLAT_OK);
}

/* The latency histogram's buckets, which every timed kind lists after its
 * counters ("@latency" in a list below). */
static const char *const latency_golden[] = {
    "latency.le_0000000000", "latency.le_0000000001", "latency.le_0000000003",
    "latency.le_0000000007", "latency.le_0000000015", "latency.le_0000000031",
    "latency.le_0000000063", "latency.le_0000000127", "latency.le_0000000255",
    "latency.le_0000000511", "latency.le_0000001023", "latency.le_0000002047",
    "latency.le_0000004095", "latency.le_0000008191", "latency.le_0000016383",
    "latency.le_0000032767", "latency.le_0000065535", "latency.le_0000131071",
    "latency.le_0000262143", "latency.le_0000524287", "latency.le_0001048575",
    "latency.le_0002097151", "latency.le_0004194303", "latency.le_0008388607",
    "latency.le_0016777215", "latency.le_0033554431", "latency.le_0067108863",
    "latency.le_0134217727", "latency.le_0268435455", "latency.le_0536870911",
    "latency.le_1073741823", "latency.le_inf",
};
#define LATENCY_NAMES (sizeof(latency_golden) / sizeof(latency_golden[0]))

/* The golden names, space-separated; "m_0..n" stands for m_0, m_1, ... m_n. */
static const struct {
    const char *kind;
    const char *names;
} golden[] = {
    {"tlb", "accesses hits misses mshr_merges refusals inserts updates evictions invalidations"
            " faults @latency"},
    {"cuckoo", ""},
    {"fixed", "requests refusals faults @latency"},
    {"link", "requests retries answers in_flight @latency"},
    {"physmem", ""},
    {"pagetable", "address_spaces nodes_0..6 bytes mapped_0..6"},
    {"pwc", "lookups misses hits_0..7 fills evictions"},
    {"walker", "requests refusals walks completed faults reads reads_level_0..6 pwc_lookups"
               " pwc_hits_0..6 coalesced partial_coalesces stolen mem_retries queue_cycles"
               " service_cycles queue_hist_0..31 service_hist_0..31 pec_answers pec_multicast"
               " rotations @latency"},
    {"iommu", "requests refusals tlb_hits tlb2_hits walks walk_answers remote_probes remote_hits"
              " remote_misses late_discarded faults fault_batches victims_in victims_dropped"
              " spills back_invalidations tracker_inserts tracker_full max_spill_chain"
              " walks_aborted @latency"},
    {"gmmu", "requests refusals completed local remote failed latency_cycles routed_0..2"
             " gmmu_walks wasted_walks iommu_requests parallel discarded_gmmu discarded_iommu"
             " gmmu_retries iommu_retries touched_local touched_remote epochs epochs_held"
             " decisions_0..2 pred_local_epochs pred_local_hits pred_local_total"
             " pred_remote_epochs pred_remote_hits pred_remote_total @latency"},
    {"system", "requests refusals probes probe_hits @latency"},
};

/* Expands a golden list into `out` (names separated by spaces). */
static size_t expand(const char *names, char out[][40], size_t max)
{
    size_t n = 0;
    char word[24]; /* with "_" and an index it fits an entry of out */
    int used;
    while (sscanf(names, " %23s%n", word, &used) == 1) {
        names += used;
        char *dots = strstr(word, "..");
        if (strcmp(word, "@latency") == 0) {
            for (size_t b = 0; b < LATENCY_NAMES && n < max; b++)
                snprintf(out[n++], sizeof(out[0]), "%s", latency_golden[b]);
            continue;
        }
        if (!dots) {
            snprintf(out[n++], sizeof(out[0]), "%s", word);
            continue;
        }
        int last = atoi(dots + 2);
        *(dots - 2) = '\0'; /* "m_0..n" -> "m" */
        for (int i = 0; i <= last && n < max; i++)
            snprintf(out[n++], sizeof(out[0]), "%s_%d", word, i);
    }
    return n;
}

static size_t golden_count(const char *kind)
{
    static char names[160][40];
    for (size_t k = 0; k < sizeof(golden) / sizeof(golden[0]); k++)
        if (strcmp(golden[k].kind, kind) == 0)
            return expand(golden[k].names, names, 160);
    ck_abort_msg("no golden list for %s", kind);
    return 0;
}

/* The counters just recorded are the golden list of `kind`, in order. */
static void assert_golden(const char *kind)
{
    static char names[160][40];
    size_t n = 0;
    for (size_t k = 0; k < sizeof(golden) / sizeof(golden[0]); k++)
        if (strcmp(golden[k].kind, kind) == 0)
            n = expand(golden[k].names, names, 160);
    ck_assert_uint_eq(got.n, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(got.kind[i], kind);
        ck_assert_str_eq(got.counter[i], names[i]);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(got.counter[i], got.counter[j]);
    }
}

/* One of every kind, on the host's page table. */
typedef struct every {
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_tlb *tlb;
    xlat_cuckoo *cuckoo;
    xlat_fixed *fixed;
    xlat_link *link;
    xlat_pwc *pwc;
    xlat_walker *walker;
    xlat_iommu *iommu;
    xlat_gmmu *gmmu;
    xlat_system *system;
} every;

static void iommu_templates(xlat_iommu_config *ic, xlat_walker_config *wc, xlat_pagetable *pt)
{
    xlat_iommu_walker_config_init(wc);
    wc->pt = pt;
    xlat_iommu_config_init(ic);
    ic->walk = wc;
    ic->tlb_entries = 64;
    ic->tlb_ways = 8;
}

static void make_every(xlat_ctx *ctx, every *e)
{
    test_table(ctx, &e->mem, &e->pt);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    ck_assert_int_eq(xlat_tlb_create(ctx, &tc, &e->tlb), XLAT_OK);
    xlat_cuckoo_config cc;
    xlat_cuckoo_config_init(&cc);
    ck_assert_int_eq(xlat_cuckoo_create(ctx, &cc, &e->cuckoo), XLAT_OK);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &e->fixed), XLAT_OK);
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    ck_assert_int_eq(xlat_link_create(ctx, &lc, &e->link), XLAT_OK);
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    ck_assert_int_eq(xlat_pwc_create(ctx, &pc, &e->pwc), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = e->pt;
    ck_assert_int_eq(xlat_walker_create(ctx, &wc, &e->walker), XLAT_OK);
    xlat_iommu_config ic;
    xlat_walker_config iwc;
    iommu_templates(&ic, &iwc, e->pt);
    ck_assert_int_eq(xlat_iommu_create(ctx, &ic, &e->iommu), XLAT_OK);
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.walker = e->walker;
    ck_assert_int_eq(xlat_gmmu_create(ctx, &gc, &e->gmmu), XLAT_OK);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    ic.inclusion = XLAT_INCL_LEAST;
    sc.gpus = 2;
    sc.cus = 2;
    sc.iommu = &ic;
    sc.probe_ring = true;
    ck_assert_int_eq(xlat_system_create(ctx, &sc, &e->system), XLAT_OK);
}

START_TEST(names_are_golden)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    every e;
    make_every(ctx, &e);
    const void *handle[] = {e.tlb, e.cuckoo, e.fixed, e.link, e.mem, e.pt,
                            e.pwc, e.walker, e.iommu, e.gmmu, e.system};
    for (size_t k = 0; k < sizeof(handle) / sizeof(handle[0]); k++) {
        unit_counters(ctx, handle[k]);
        uint32_t id = xlat_unit_id(ctx, handle[k]);
        ck_assert_str_eq(xlat_unit_kind(ctx, id), golden[k].kind);
        ck_assert_str_eq(xlat_unit_name(ctx, id), golden[k].kind); /* the default names */
        assert_golden(golden[k].kind);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Counters come in struct order: for a struct of uint64_t only, the i-th
 * counter is its i-th word. A timed unit's latency buckets follow. */
static void assert_values(xlat_ctx *ctx, const void *handle, const void *stats, size_t size)
{
    size_t words = size / sizeof(uint64_t);
    xlat_latency_hist lat;
    int rc = xlat_unit_latency_get(ctx, xlat_unit_id(ctx, handle), &lat, sizeof(lat));
    ck_assert(rc == XLAT_OK || rc == XLAT_ERR_UNSUPPORTED);
    ck_assert_uint_eq(got.n, words + (rc == XLAT_OK ? XLAT_LATENCY_BUCKETS : 0));
    for (size_t b = 0; rc == XLAT_OK && b < XLAT_LATENCY_BUCKETS; b++)
        ck_assert_uint_eq(got.value[words + b], lat.bucket[b]);
    for (size_t i = 0; i < words; i++) {
        uint64_t v;
        memcpy(&v, (const char *)stats + i * sizeof(v), sizeof(v));
        ck_assert_msg(got.value[i] == v, "%s: %llu, not %llu", got.counter[i],
                      (unsigned long long)got.value[i], (unsigned long long)v);
    }
}

START_TEST(values_equal_stats_get)
{
    xlat_ctx *ctx = test_ctx(2, NULL);
    every e;
    make_every(ctx, &e);
    for (uint64_t p = 0; p < 600; p++) {
        xlat_tlb_entry te = {.pasid = 1, .vpn = p * 7, .pfn = p, .page_shift = 12,
                             .perm = XLAT_PERM_R};
        ck_assert_int_ge(xlat_tlb_insert(e.tlb, &te, NULL), XLAT_OK);
        (void)xlat_tlb_lookup(e.tlb, 1, (p * 3) << 12, NULL);
        ck_assert_int_eq(xlat_pagetable_map(e.pt, 1, p << 21, p, 12, XLAT_PERM_R), XLAT_OK);
    }
    xlat_tlb_stats ts;
    xlat_tlb_stats_get(e.tlb, &ts, sizeof(ts));
    ck_assert_uint_gt(ts.evictions, 0);
    unit_counters(ctx, e.tlb);
    assert_values(ctx, e.tlb, &ts, sizeof(ts));
    xlat_pagetable_stats ps;
    xlat_pagetable_stats_get(e.pt, &ps, sizeof(ps));
    ck_assert_uint_gt(ps.mapped[1], 0);
    unit_counters(ctx, e.pt);
    assert_values(ctx, e.pt, &ps, sizeof(ps));
    xlat_ctx_destroy(ctx);
}
END_TEST

static size_t answered;

static void record_answer(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_eq(r->status, XLAT_OK);
    answered++;
}

static size_t count_kind(const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; i < got.n; i++)
        n += strcmp(got.kind[i], kind) == 0;
    return n;
}

/* 64 GPUs of 2 CUs over `pt`, with or without the probing ring. */
static xlat_system *system_64(xlat_ctx *ctx, xlat_pagetable *pt, bool probe_ring)
{
    xlat_iommu_config ic;
    xlat_walker_config wc;
    iommu_templates(&ic, &wc, pt);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 64;
    sc.cus = 2;
    sc.iommu = &ic;
    sc.probe_ring = probe_ring;
    xlat_system *sys;
    ck_assert_int_eq(xlat_system_create(ctx, &sc, &sys), XLAT_OK);
    return sys;
}

START_TEST(a_64_gpu_system_in_one_call)
{
    xlat_ctx *ctx = test_ctx(3, NULL);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    (void)system_64(ctx, pt, false);
    got.n = 0;
    ck_assert_int_eq(xlat_stats_foreach(ctx, record, &got), XLAT_OK);
    /* 64 x (2 L1s + an L2) and the IOMMU's TLB; 64 links; the IOMMU and its
     * walkers; the system; the host's page table, 16 (physical memory
     * counts nothing). */
    size_t tlbs = 64 * 3 + 1;
    ck_assert_uint_eq(count_kind("tlb"), tlbs * golden_count("tlb"));
    ck_assert_uint_eq(count_kind("link"), 64 * golden_count("link"));
    ck_assert_uint_eq(count_kind("walker"), golden_count("walker"));
    ck_assert_uint_eq(count_kind("iommu"), golden_count("iommu"));
    ck_assert_uint_eq(count_kind("system"), golden_count("system"));
    ck_assert_uint_eq(count_kind("pagetable"), golden_count("pagetable"));
    ck_assert_uint_eq(got.n, tlbs * (10 + LATENCY_NAMES) + 64 * (4 + LATENCY_NAMES) + 94 +
                                 20 + 4 + 3 * LATENCY_NAMES + 16);
    /* Creation order: the host's page table first, the system last. */
    ck_assert_str_eq(got.kind[0], "pagetable");
    ck_assert_str_eq(got.kind[got.n - 1], "system");
    xlat_ctx_destroy(ctx);
}
END_TEST

/* got[i] is a latency bucket, not a counter of the stats struct. */
static bool is_latency(size_t i) { return strncmp(got.counter[i], "latency.", 8) == 0; }

/* Every timed unit's buckets, as listed, against xlat_unit_latency_get();
 * returns the answers they count in units named `suffix` (".cu0.l1"). */
static uint64_t check_listed_buckets(xlat_ctx *ctx, const char *suffix)
{
    uint64_t answers = 0;
    for (size_t i = 0; i < got.n; i++) {
        if (!is_latency(i) || strcmp(got.counter[i], latency_golden[0]) != 0)
            continue;
        xlat_latency_hist lat;
        ck_assert_int_eq(xlat_unit_latency_get(ctx, got.id[i], &lat, sizeof(lat)), XLAT_OK);
        for (size_t b = 0; b < LATENCY_NAMES; b++) { /* consecutive, in sorted order */
            ck_assert_uint_eq(got.id[i + b], got.id[i]);
            ck_assert_str_eq(got.counter[i + b], latency_golden[b]);
            ck_assert(b == 0 || strcmp(got.counter[i + b - 1], got.counter[i + b]) < 0);
            ck_assert_uint_eq(got.value[i + b], lat.bucket[b]);
            size_t len = strlen(got.name[i]), tail = strlen(suffix);
            if (len >= tail && strcmp(got.name[i] + len - tail, suffix) == 0)
                answers += lat.bucket[b];
        }
    }
    return answers;
}

/* One translation per GPU through a 64-GPU system with a probing ring:
 * every timed unit's histogram comes through the one call, and each CU 0
 * L1 TLB counts the answer it gave. */
START_TEST(a_64_gpu_system_histograms)
{
    xlat_ctx *ctx = test_ctx(9, NULL);
    answered = 0;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    for (uint64_t g = 0; g < 64; g++)
        ck_assert_int_eq(xlat_pagetable_map(pt, 1, g << 12, 0x900 + g, 12, XLAT_PERM_R), XLAT_OK);
    xlat_system *sys = system_64(ctx, pt, true);
    for (uint16_t g = 0; g < 64; g++) {
        xlat_req req = {.id = g, .vaddr = (uint64_t)g << 12, .pasid = 1, .gpu = g};
        ck_assert_int_eq(xlat_system_translate(sys, &req, record_answer, NULL), XLAT_OK);
    }
    xlat_advance(ctx, 100000);
    ck_assert_uint_eq(answered, 64);
    got.n = 0;
    ck_assert_int_eq(xlat_stats_foreach(ctx, record, &got), XLAT_OK);
    ck_assert_uint_eq(check_listed_buckets(ctx, ".cu0.l1"), 64);
    ck_assert_uint_eq(check_listed_buckets(ctx, ".cu1.l1"), 0);
    size_t timed_units = 64 * 3 + 1 + 64 + 1 + 1 + 1; /* TLBs, links, walker, IOMMU, system */
    size_t listed = 0;
    for (size_t i = 0; i < got.n; i++)
        listed += is_latency(i);
    ck_assert_uint_eq(listed, timed_units * LATENCY_NAMES);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(reset_by_id_and_all)
{
    xlat_ctx *ctx = test_ctx(4, NULL);
    every e;
    make_every(ctx, &e);
    for (uint64_t p = 0; p < 100; p++)
        (void)xlat_tlb_lookup(e.tlb, 1, p << 12, NULL);
    ck_assert_int_eq(xlat_stats_reset(ctx, xlat_unit_id(ctx, e.tlb)), XLAT_OK);
    unit_counters(ctx, e.tlb);
    for (size_t i = 0; i < got.n; i++)
        ck_assert_uint_eq(got.value[i], 0);
    for (uint64_t p = 0; p < 100; p++)
        (void)xlat_tlb_lookup(e.tlb, 1, p << 12, NULL);
    ck_assert_int_eq(xlat_stats_reset(ctx, 0), XLAT_OK);
    got.n = 0;
    ck_assert_int_eq(xlat_stats_foreach(ctx, record, &got), XLAT_OK);
    ck_assert_uint_gt(got.n, 0);
    for (size_t i = 0; i < got.n; i++) /* a page table's figures describe it: kept */
        ck_assert_msg(got.value[i] == 0 || strcmp(got.kind[i], "pagetable") == 0, "%s.%s",
                      got.kind[i], got.counter[i]);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(unknown_ids)
{
    xlat_ctx *ctx = test_ctx(5, NULL);
    ck_assert_int_eq(xlat_unit_stats_foreach(ctx, 12345, record, &got), XLAT_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "12345"));
    ck_assert_int_eq(xlat_unit_stats_foreach(ctx, 0, record, &got), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_stats_reset(ctx, 12345), XLAT_ERR_NOT_FOUND);
    ck_assert_ptr_null(xlat_unit_name(ctx, 12345));
    ck_assert_ptr_null(xlat_unit_kind(ctx, 0));
    ck_assert_uint_eq(xlat_unit_id(ctx, &got), 0);
    ck_assert_uint_eq(xlat_unit_id(NULL, &got), 0);
    ck_assert_int_eq(xlat_stats_foreach(NULL, record, &got), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_stats_foreach(ctx, NULL, &got), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_stats_reset(NULL, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_unit_stats_foreach(NULL, 1, record, &got), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_unit_stats_foreach(ctx, 1, NULL, &got), XLAT_ERR_INVAL);
    ck_assert_ptr_null(xlat_unit_name(NULL, 1));
    ck_assert_ptr_null(xlat_unit_kind(NULL, 1));
    ck_assert_uint_eq(xlat_unit_id(ctx, NULL), 0);
    /* The new resets and default templates do nothing for NULL. */
    xlat_link_stats_reset(NULL);
    xlat_iommu_stats_reset(NULL);
    xlat_system_stats_reset(NULL);
    xlat_system_l1_config_init(NULL);
    xlat_system_l2_config_init(NULL);
    xlat_iommu_walker_config_init(NULL);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(ids_unique_and_stable)
{
    xlat_ctx *ctx = test_ctx(6, NULL);
    every e;
    make_every(ctx, &e);
    got.n = 0;
    ck_assert_int_eq(xlat_stats_foreach(ctx, record, &got), XLAT_OK);
    uint32_t tlb = xlat_unit_id(ctx, e.tlb), newest = 0;
    for (size_t i = 0; i < got.n; i++) {
        ck_assert_uint_ne(got.id[i], 0);
        for (size_t j = 0; j < i; j++) /* a unit's counters are consecutive */
            ck_assert(got.id[j] != got.id[i] || got.id[i - 1] == got.id[i]);
        newest = got.id[i] > newest ? got.id[i] : newest;
    }
    ck_assert_uint_eq(xlat_unit_id(ctx, e.tlb), tlb);
    ck_assert_str_eq(xlat_unit_kind(ctx, tlb), "tlb");
    xlat_tlb_destroy(e.tlb);
    ck_assert_ptr_null(xlat_unit_kind(ctx, tlb));
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.name = "again";
    ck_assert_int_eq(xlat_tlb_create(ctx, &tc, &e.tlb), XLAT_OK);
    uint32_t again = xlat_unit_id(ctx, e.tlb);
    ck_assert_uint_gt(again, newest); /* never reused */
    ck_assert_str_eq(xlat_unit_name(ctx, again), "again");
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Units whose kind is known, among the first `max` ids. */
static size_t live_units(xlat_ctx *ctx, uint32_t max)
{
    size_t n = 0;
    for (uint32_t id = 1; id <= max; id++)
        n += xlat_unit_kind(ctx, id) != NULL;
    return n;
}

START_TEST(failed_create_registers_nothing)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(7, &ca);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    xlat_iommu_config ic;
    xlat_walker_config wc;
    iommu_templates(&ic, &wc, pt);
    ic.inclusion = XLAT_INCL_LEAST;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 2;
    sc.cus = 2;
    sc.iommu = &ic;
    for (long k = 1; k < 400; k += 7) { /* failures inside every part of the build */
        xlat_system *sys = NULL;
        ca.fail_after = k;
        int rc = xlat_system_create(ctx, &sc, &sys);
        ca.fail_after = -1;
        if (rc == XLAT_OK)
            xlat_system_destroy(sys);
        ck_assert_uint_eq(live_units(ctx, 8192), 2);
    }
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* A context destroyed with every kind of unit alive leaks nothing. */
START_TEST(ctx_destroy_tears_down)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(8, &ca);
    every e;
    make_every(ctx, &e);
    xlat_pwc_destroy(e.pwc); /* some destroyed first: still fine */
    ck_assert_uint_gt(ca.live_bytes, 0);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
    ck_assert_uint_eq(ca.allocs, ca.frees);
}
END_TEST

Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = test_case(s, "registry");
    tcase_add_test(tc, names_are_golden);
    tcase_add_test(tc, values_equal_stats_get);
    tcase_add_test(tc, a_64_gpu_system_in_one_call);
    tcase_add_test(tc, a_64_gpu_system_histograms);
    tcase_add_test(tc, reset_by_id_and_all);
    tcase_add_test(tc, unknown_ids);
    tcase_add_test(tc, ids_unique_and_stable);
    tcase_add_test(tc, failed_create_registers_nothing);
    tcase_add_test(tc, ctx_destroy_tears_down);
    return s;
}
