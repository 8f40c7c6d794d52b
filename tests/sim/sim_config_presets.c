/* xlat-sim's presets: each applies from any starting state, is listed,
 * names a known workload, and holds its paper's values (the spot checks
 * below cite the table or section each value comes from). */
#include <stdio.h>

#include "sim.h"
#include "sim_config_tests.h"
#include "testutil.h"

static void get(const sim_config *c, const char *s, const char *k, const char *want)
{
    char buf[1100];
    ck_assert_int_eq(sim_config_get(c, s, k, buf, sizeof(buf)), 0);
    ck_assert_msg(!strcmp(buf, want), "[%s] %s is '%s', not '%s'", s, k, buf, want);
}

/* ---- presets ----------------------------------------------------------------- */

static const char *const preset_names[] = {
    "least-baseline", "least-tlb", "least-multi-app", "least-infinite", "least-probe-ring",
    "barre-baseline", "barre", "fbarre", "fbarre-expand", "barre-l2-mshrs-x2", "barre-walkers-8",
    "barre-walkers-32", "barre-walkers-inf", "barre-iommu-tlb", "barre-least", "barre-shared-l2",
    "nbr-baseline", "nbr-coalesce", "gmmu-centralized", "gmmu-distributed", "gmmu-dynamic",
    "gmmu-ideal", "walk-fcfs", "walk-partition", "walk-dws", "walk-dwspp",
    "walk-dwspp-conservative", "walk-dwspp-aggressive"};
#define NPRESET_NAMES (sizeof(preset_names) / sizeof(preset_names[0]))

static const char *const workload_names[] = {"random", "adjacent", "partition", "stride",
                                             "scatter-gather", "mix", "irregular", "gups",
                                             "tenants", "barre-objects"};

static sim_config apply(const char *name)
{
    sim_config c;
    sim_error err = {{0}};
    memset(&c, 0xa5, sizeof(c)); /* a preset starts from the defaults, whatever was there */
    ck_assert_msg(sim_preset_apply(&c, name, &err) == 0, "%s: %s", name, err.msg);
    ck_assert_str_eq(c.preset, name);
    return c;
}

START_TEST(every_preset_applies)
{
    size_t n;
    const sim_preset_info *p = sim_presets(&n);
    ck_assert_uint_eq(n, NPRESET_NAMES);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(p[i].name, preset_names[i]);
        ck_assert(p[i].paper[0] && p[i].cite[0] && p[i].summary[0]);
        int known = 0;
        for (size_t w = 0; w < sizeof(workload_names) / sizeof(workload_names[0]); w++)
            known |= !strcmp(p[i].workload, workload_names[w]);
        ck_assert_msg(known, "%s: workload %s", p[i].name, p[i].workload);
        sim_config c = apply(p[i].name);
        ck_assert_str_eq(c.run.workload, p[i].workload);
        ck_assert_int_eq(c.gmmu, c.system.gmmu);
        ck_assert_ptr_null(c.system.l1);
        ck_assert_ptr_null(c.system.l2);
        ck_assert_ptr_null(c.system.iommu);
        ck_assert_ptr_null(c.iommu.walk);
        ck_assert_ptr_null(c.iommu_walk.pt);
        /* every knob of a preset reads back and sets to itself */
        size_t nk;
        const sim_knob_info *k = sim_knobs(&nk);
        for (size_t j = 0; j < nk; j++) {
            char buf[1100];
            ck_assert_int_eq(sim_config_get(&c, k[j].section, k[j].key, buf, sizeof(buf)), 0);
            sim_config d = c;
            sim_error err = {{0}};
            ck_assert_msg(sim_config_set(&d, k[j].section, k[j].key, buf, "t", &err) == 0,
                          "%s: %s", p[i].name, err.msg);
        }
    }
    sim_config c;
    sim_error err = {{0}};
    ck_assert_int_eq(sim_preset_apply(&c, "least", &err), -1);
    ck_assert(!strncmp(err.msg, "unknown preset 'least' (presets: least-baseline, least-tlb,", 59));
}
END_TEST

/* Each preset's TLBs, IOMMU, walkers and PWC pass the library's own create
 * checks (ways dividing entries, walkers split among tenants, a queue slot
 * per walker, ...). The parts the program adds from other knobs (GMMUs with
 * their local tables, Barre's PEC buffer, F-Barre) are left out here. */
START_TEST(every_preset_builds)
{
    size_t n;
    const sim_preset_info *p = sim_presets(&n);
    for (size_t i = 0; i < n; i++) {
        sim_config c = apply(p[i].name);
        xlat_ctx *ctx = test_ctx(1, NULL);
        xlat_physmem *mem;
        xlat_pagetable *pt;
        xlat_pwc *pwc = NULL;
        xlat_system *sys = NULL;
        test_table(ctx, &mem, &pt);
        if (c.iommu_pwc)
            ck_assert_msg(xlat_pwc_create(ctx, &c.pwc, &pwc) == XLAT_OK, "%s: %s", p[i].name,
                          xlat_ctx_errmsg(ctx));
        c.iommu_walk.pt = pt;
        c.iommu_walk.pwc = pwc;
        c.iommu_walk.dwspp = &c.dwspp;
        c.iommu_walk.coal_aware = false; /* needs the PEC buffer the program makes */
        c.iommu.walk = &c.iommu_walk;
        c.system.l1 = &c.l1;
        c.system.l2 = &c.l2;
        c.system.iommu = &c.iommu;
        c.system.gmmu = false;
        ck_assert_msg(xlat_system_create(ctx, &c.system, &sys) == XLAT_OK, "%s: %s", p[i].name,
                      xlat_ctx_errmsg(ctx));
        xlat_system_destroy(sys);
        xlat_pwc_destroy(pwc);
        xlat_pagetable_destroy(pt);
        xlat_physmem_destroy(mem);
        xlat_ctx_destroy(ctx);
    }
}
END_TEST

static bool oracle_local(void *user, uint32_t gpu, const xlat_req *req)
{
    (void)user, (void)gpu, (void)req;
    return true;
}

/* The GMMU presets' GMMU and its walkers pass their create checks, with
 * what the program adds: the walkers' table, a local range, an oracle. */
START_TEST(gmmu_presets_build)
{
    static const char *names[] = {"gmmu-centralized", "gmmu-distributed", "gmmu-dynamic",
                                  "gmmu-ideal"};
    for (int i = 0; i < 4; i++) {
        sim_config c = apply(names[i]);
        xlat_ctx *ctx = test_ctx(1, NULL);
        xlat_physmem *mem;
        xlat_pagetable *pt;
        xlat_walker *w;
        xlat_gmmu *g;
        test_table(ctx, &mem, &pt);
        c.gmmu_walk.pt = pt;
        ck_assert_int_eq(xlat_walker_create(ctx, &c.gmmu_walk, &w), XLAT_OK);
        c.gmmu_cfg.walker = w;
        c.gmmu_cfg.local_size = UINT64_C(1) << 32;
        c.gmmu_cfg.oracle = oracle_local;
        ck_assert_msg(xlat_gmmu_create(ctx, &c.gmmu_cfg, &g) == XLAT_OK, "%s: %s", names[i],
                      xlat_ctx_errmsg(ctx));
        xlat_gmmu_destroy(g);
        xlat_walker_destroy(w);
        xlat_pagetable_destroy(pt);
        xlat_physmem_destroy(mem);
        xlat_ctx_destroy(ctx);
    }
}
END_TEST

START_TEST(least_tlb_values)
{
    sim_config c = apply("least-baseline");
    ck_assert_uint_eq(c.system.gpus, 4);
    ck_assert_uint_eq(c.system.cus, 64);
    ck_assert_uint_eq(c.system.gpu_iommu_latency, 300);
    ck_assert_uint_eq(c.l1.entries, 16);
    ck_assert_uint_eq(c.l2.entries, 512);
    ck_assert_uint_eq(c.l2.latency, 10);
    ck_assert_uint_eq(c.iommu.tlb_entries, 4096);
    ck_assert_uint_eq(c.iommu.tlb_ways, 64);
    ck_assert_uint_eq(c.iommu.tlb_latency, 200);
    ck_assert_uint_eq(c.iommu_walk.walkers, 8);
    ck_assert_uint_eq(c.iommu_walk.mem_latency * 4, 500);
    get(&c, "iommu", "inclusion", "mostly");
    c = apply("least-tlb");
    get(&c, "iommu", "inclusion", "least");
    ck_assert(!c.iommu.multi_app);
    ck_assert_uint_eq(c.iommu.tracker_entries, 2048);
    ck_assert_uint_eq(c.iommu.spill_counter, 1);
    c = apply("least-multi-app");
    ck_assert(c.iommu.multi_app);
    ck_assert_uint_eq(c.run.pasids, 4);
    c = apply("least-infinite");
    ck_assert_uint_eq(c.iommu.tlb_entries, 0);
    ck_assert(!c.iommu.no_tlb);
    c = apply("least-probe-ring");
    ck_assert(c.system.probe_ring);
    ck_assert_uint_eq(c.system.probe_latency, 120);
    get(&c, "iommu", "inclusion", "mostly");
}
END_TEST

START_TEST(barre_values)
{
    sim_config c = apply("barre-baseline");
    ck_assert_uint_eq(c.system.gpus, 4);
    ck_assert_uint_eq(c.system.cus, 64);
    ck_assert_uint_eq(c.system.gpu_iommu_latency, 150);
    ck_assert_uint_eq(c.l1.entries, 64);
    ck_assert_uint_eq(c.l1.mshrs, 16);
    ck_assert_uint_eq(c.l2.entries, 512);
    ck_assert_uint_eq(c.l2.mshrs, 16);
    ck_assert(c.iommu.no_tlb);
    ck_assert_uint_eq(c.iommu_walk.walkers, 16);
    ck_assert_uint_eq(c.iommu_walk.queue_entries, 48);
    ck_assert(!c.barre.enable);
    c = apply("barre");
    ck_assert(c.barre.enable && !c.barre.fbarre && !c.iommu_walk.coal_aware);
    ck_assert_uint_eq(c.barre.pec_entries, 5);
    get(&c, "barre", "placement", "lasp");
    c = apply("fbarre");
    ck_assert(c.barre.enable && c.barre.fbarre && c.iommu_walk.coal_aware);
    ck_assert_uint_eq(c.barre.max_merge, 1);
    ck_assert_uint_eq(c.fbarre.fp_bits, 9);
    ck_assert_uint_eq(c.fbarre.filter_rows, 256);
    c = apply("fbarre-expand");
    ck_assert(c.barre.fbarre);
    ck_assert_uint_eq(c.barre.max_merge, 2);
    ck_assert_uint_eq(apply("barre-walkers-8").iommu_walk.walkers, 8);
    ck_assert_uint_eq(apply("barre-walkers-32").iommu_walk.walkers, 32);
    ck_assert_uint_eq(apply("barre-walkers-inf").iommu_walk.walkers, XLAT_MCM_WALKERS_UNBOUNDED);
    ck_assert_uint_eq(apply("barre-l2-mshrs-x2").l2.mshrs, 32);
    c = apply("barre-iommu-tlb");
    ck_assert(!c.iommu.no_tlb);
    ck_assert_uint_eq(c.iommu.tlb_entries, 2048);
    ck_assert_uint_eq(c.iommu.tlb_latency, 200);
    c = apply("barre-least");
    get(&c, "iommu", "inclusion", "least");
    ck_assert(c.iommu.tracker_exact);
    ck_assert(apply("barre-shared-l2").system.shared_l2);
}
END_TEST

START_TEST(nbr_and_gmmu_values)
{
    sim_config c = apply("nbr-baseline");
    ck_assert_uint_eq(c.system.gpus, 1);
    ck_assert_uint_eq(c.system.cus, 8);
    ck_assert_uint_eq(c.l1.entries, 32);
    ck_assert_uint_eq(c.iommu.tlb_entries, 32);
    ck_assert_uint_eq(c.iommu.tlb2_entries, 256);
    ck_assert_uint_eq(c.iommu.buffer_entries, 256);
    ck_assert_uint_eq(c.iommu_walk.walkers, 8);
    ck_assert(c.iommu_pwc && !c.iommu_walk.coalesce);
    get(&c, "iommu_walk", "sched", "fcfs");
    ck_assert(apply("nbr-coalesce").iommu_walk.coalesce);
    static const char *modes[] = {"centralized", "distributed", "dynamic", "ideal"};
    for (int m = 0; m < 4; m++) {
        char name[32];
        snprintf(name, sizeof(name), "gmmu-%s", modes[m]);
        c = apply(name);
        ck_assert(c.gmmu && c.system.gmmu);
        get(&c, "gmmu", "mode", modes[m]);
        get(&c, "gmmu", "t1", "0.85");
        get(&c, "gmmu", "t2", "0.15");
        ck_assert_uint_eq(c.gmmu_cfg.epoch_cycles, 10000);
        ck_assert_uint_eq(c.gmmu_cfg.counter_bits, 8);
        ck_assert_uint_eq(c.gmmu_walk.walkers, 64);
        ck_assert_uint_eq(c.iommu_walk.walkers, 8);
        ck_assert_uint_eq(c.system.cus, 36);
        ck_assert_uint_eq(c.l2.entries, 256);
    }
}
END_TEST

START_TEST(walk_stealing_values)
{
    static const char *scheds[][2] = {{"walk-fcfs", "fcfs"}, {"walk-partition", "partition"},
                                      {"walk-dws", "dws"}, {"walk-dwspp", "dwspp"}};
    for (int i = 0; i < 4; i++) {
        sim_config c = apply(scheds[i][0]);
        get(&c, "iommu_walk", "sched", scheds[i][1]);
        ck_assert_uint_eq(c.iommu_walk.tenants, 2);
        ck_assert_uint_eq(c.run.pasids, 2);
        ck_assert_uint_eq(c.iommu_walk.walkers, 16);
        ck_assert_uint_eq(c.iommu_walk.queue_entries, 192);
        ck_assert_uint_eq(c.l2.entries, 1024);
        ck_assert_uint_eq(c.l1.mshrs, 12);
        ck_assert_uint_eq(c.pwc.entries[0], 128);
        ck_assert(c.iommu_pwc);
    }
    sim_config c = apply("walk-dwspp");
    ck_assert_uint_eq(c.dwspp.epoch_length, 200);
    get(&c, "dwspp", "queue_thres", "0.51");
    get(&c, "dwspp", "diff_thres.0", "0.4");
    get(&c, "dwspp", "diff_thres.3", "0.9");
    ck_assert_double_ge(c.dwspp.diff_thres[4], 1.0);
    c = apply("walk-dwspp-conservative");
    get(&c, "dwspp", "queue_thres", "0.17");
    get(&c, "dwspp", "diff_thres.0", "0.4");
    c = apply("walk-dwspp-aggressive");
    get(&c, "dwspp", "queue_thres", "0.51");
    for (int r = 0; r < 5; r++)
        ck_assert_double_eq(c.dwspp.diff_thres[r], 0.3);
}
END_TEST

void sim_config_preset_tests(Suite *s)
{
    TCase *tc = test_case(s, "presets");
    tcase_add_test(tc, every_preset_applies);
    tcase_add_test(tc, every_preset_builds);
    tcase_add_test(tc, gmmu_presets_build);
    tcase_add_test(tc, least_tlb_values);
    tcase_add_test(tc, barre_values);
    tcase_add_test(tc, nbr_and_gmmu_values);
    tcase_add_test(tc, walk_stealing_values);
}
