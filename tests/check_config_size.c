/* Config sizes across versions (doc/abi.md), for every create: a host built
 * against the first released struct (its pinned XLAT_*_CONFIG_SIZE_V0) is
 * accepted, whatever lies past its struct, and gets defaults for the rest;
 * one built against a newer header is accepted while the members this
 * libxlat does not know are zero and refused with XLAT_ERR_UNSUPPORTED once
 * one is set; anything smaller than the pinned size is XLAT_ERR_INVAL. */
#include "testutil.h"

#define EXTRA 16 /* bytes of a newer header's members */

/* What every create needs besides its own config. */
static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *walker;
    xlat_walker_config walk; /* a template for the IOMMU and the system */
    xlat_iommu_config iommu; /* a template for the system */
} f;

static void setup(void)
{
    memset(&f, 0, sizeof(f));
    ck_assert_int_eq(xlat_ctx_create(NULL, &f.ctx), XLAT_OK);
    test_table(f.ctx, &f.mem, &f.pt);
    xlat_walker_config_init(&f.walk);
    f.walk.pt = f.pt;
    ck_assert_int_eq(xlat_walker_create(f.ctx, &f.walk, &f.walker), XLAT_OK);
    xlat_iommu_config_init(&f.iommu);
    f.iommu.walk = &f.walk;
}

static void teardown(void)
{
    xlat_walker_destroy(f.walker);
    xlat_pagetable_destroy(f.pt);
    xlat_physmem_destroy(f.mem);
    xlat_ctx_destroy(f.ctx);
}

/* ---- one create of each kind, with a config whose struct_size is set ---- */

static void init_ctx(void *c) { xlat_ctx_config_init(c); }
static int make_ctx(const void *c)
{
    xlat_ctx *ctx = NULL;
    int rc = xlat_ctx_create(c, &ctx);
    xlat_ctx_destroy(ctx);
    return rc;
}

static void init_tlb(void *c) { xlat_tlb_config_init(c); }
static int make_tlb(const void *c)
{
    xlat_tlb *t = NULL;
    int rc = xlat_tlb_create(f.ctx, c, &t);
    xlat_tlb_destroy(t);
    return rc;
}

static void init_cuckoo(void *c) { xlat_cuckoo_config_init(c); }
static int make_cuckoo(const void *c)
{
    xlat_cuckoo *cf = NULL;
    int rc = xlat_cuckoo_create(f.ctx, c, &cf);
    xlat_cuckoo_destroy(cf);
    return rc;
}

static void init_fixed(void *c) { xlat_fixed_config_init(c); }
static int make_fixed(const void *c)
{
    xlat_fixed *x = NULL;
    int rc = xlat_fixed_create(f.ctx, c, &x);
    xlat_fixed_destroy(x);
    return rc;
}

static void init_link(void *c) { xlat_link_config_init(c); }
static int make_link(const void *c)
{
    xlat_link *l = NULL;
    int rc = xlat_link_create(f.ctx, c, &l);
    xlat_link_destroy(l);
    return rc;
}

static void init_physmem(void *c) { xlat_physmem_config_init(c); }
static int make_physmem(const void *c)
{
    xlat_physmem *m = NULL;
    int rc = xlat_physmem_create(f.ctx, c, &m);
    xlat_physmem_destroy(m);
    return rc;
}

static void init_pagetable(void *c)
{
    xlat_pagetable_config_init(c);
    ((xlat_pagetable_config *)c)->mem = f.mem;
}
static int make_pagetable(const void *c)
{
    xlat_pagetable *pt = NULL;
    int rc = xlat_pagetable_create(f.ctx, c, &pt);
    xlat_pagetable_destroy(pt);
    return rc;
}

static void init_pwc(void *c) { xlat_pwc_config_init(c); }
static int make_pwc(const void *c)
{
    xlat_pwc *p = NULL;
    int rc = xlat_pwc_create(f.ctx, c, &p);
    xlat_pwc_destroy(p);
    return rc;
}

static void init_walker(void *c)
{
    xlat_walker_config_init(c);
    ((xlat_walker_config *)c)->pt = f.pt;
}
static int make_walker(const void *c)
{
    xlat_walker *w = NULL;
    int rc = xlat_walker_create(f.ctx, c, &w);
    xlat_walker_destroy(w);
    return rc;
}

/* The DWS++ parameters: a template a walker copies at create. */
static void init_dwspp(void *c) { xlat_dwspp_preset(c, XLAT_DWSPP_CONSERVATIVE); }
static int make_dwspp(const void *c)
{
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = f.pt;
    wc.sched = XLAT_SCHED_DWSPP;
    wc.tenants = 2;
    wc.dwspp = c;
    xlat_walker *w = NULL;
    int rc = xlat_walker_create(f.ctx, &wc, &w);
    xlat_walker_destroy(w);
    return rc;
}

static void init_pec_buffer(void *c) { xlat_pec_buffer_config_init(c); }
static int make_pec_buffer(const void *c)
{
    xlat_pec_buffer *p = NULL;
    int rc = xlat_pec_buffer_create(f.ctx, c, &p);
    xlat_pec_buffer_destroy(p);
    return rc;
}

static void init_fbarre(void *c) { xlat_fbarre_config_init(c); }
static int make_fbarre(const void *c)
{
    xlat_fbarre *fb = NULL;
    int rc = xlat_fbarre_create(f.ctx, c, &fb);
    xlat_fbarre_destroy(fb);
    return rc;
}

static void init_fbarre_mesh(void *c) { xlat_fbarre_mesh_config_init(c); }
static int make_fbarre_mesh(const void *c)
{
    xlat_fbarre_mesh *m = NULL;
    int rc = xlat_fbarre_mesh_create(f.ctx, c, &m);
    xlat_fbarre_mesh_destroy(m);
    return rc;
}

static void init_gmmu(void *c)
{
    xlat_gmmu_config_init(c);
    ((xlat_gmmu_config *)c)->walker = f.walker;
}
static int make_gmmu(const void *c)
{
    xlat_gmmu *g = NULL;
    int rc = xlat_gmmu_create(f.ctx, c, &g);
    xlat_gmmu_destroy(g);
    return rc;
}

static void init_iommu(void *c)
{
    xlat_iommu_config_init(c);
    ((xlat_iommu_config *)c)->walk = &f.walk;
}
static int make_iommu(const void *c)
{
    xlat_iommu *m = NULL;
    int rc = xlat_iommu_create(f.ctx, c, &m);
    xlat_iommu_destroy(m);
    return rc;
}

static void init_system(void *c)
{
    xlat_system_config_init(c);
    ((xlat_system_config *)c)->iommu = &f.iommu;
    ((xlat_system_config *)c)->gpus = 2;
    ((xlat_system_config *)c)->cus = 2;
}
static int make_system(const void *c)
{
    xlat_system *s = NULL;
    int rc = xlat_system_create(f.ctx, c, &s);
    xlat_system_destroy(s);
    return rc;
}

struct config_kind {
    const char *name;
    size_t size_v0, size;
    void (*init)(void *cfg);
    int (*make)(const void *cfg);
};

#define KIND(name, type, v0) {#name, v0, sizeof(type), init_##name, make_##name}

static const struct config_kind kinds[] = {
    KIND(ctx, xlat_ctx_config, XLAT_CTX_CONFIG_SIZE_V0),
    KIND(tlb, xlat_tlb_config, XLAT_TLB_CONFIG_SIZE_V0),
    KIND(cuckoo, xlat_cuckoo_config, XLAT_CUCKOO_CONFIG_SIZE_V0),
    KIND(fixed, xlat_fixed_config, XLAT_FIXED_CONFIG_SIZE_V0),
    KIND(link, xlat_link_config, XLAT_LINK_CONFIG_SIZE_V0),
    KIND(physmem, xlat_physmem_config, XLAT_PHYSMEM_CONFIG_SIZE_V0),
    KIND(pagetable, xlat_pagetable_config, XLAT_PAGETABLE_CONFIG_SIZE_V0),
    KIND(pwc, xlat_pwc_config, XLAT_PWC_CONFIG_SIZE_V0),
    KIND(walker, xlat_walker_config, XLAT_WALKER_CONFIG_SIZE_V0),
    KIND(dwspp, xlat_dwspp_config, XLAT_DWSPP_CONFIG_SIZE_V0),
    KIND(pec_buffer, xlat_pec_buffer_config, XLAT_PEC_BUFFER_CONFIG_SIZE_V0),
    KIND(fbarre, xlat_fbarre_config, XLAT_FBARRE_CONFIG_SIZE_V0),
    KIND(fbarre_mesh, xlat_fbarre_mesh_config, XLAT_FBARRE_MESH_CONFIG_SIZE_V0),
    KIND(gmmu, xlat_gmmu_config, XLAT_GMMU_CONFIG_SIZE_V0),
    KIND(iommu, xlat_iommu_config, XLAT_IOMMU_CONFIG_SIZE_V0),
    KIND(system, xlat_system_config, XLAT_SYSTEM_CONFIG_SIZE_V0),
};
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* A config of kind `k` at the start of `buf` (aligned, zeroed beyond the
 * library's struct) with struct_size `size`. */
static void *config_in(uint64_t *buf, const struct config_kind *k, size_t size)
{
    memset(buf, 0, k->size + EXTRA);
    k->init(buf);
    *(uint32_t *)buf = (uint32_t)size; /* struct_size is every config's first member */
    return buf;
}

#define BUF_WORDS 256 /* room for the largest config and EXTRA */

START_TEST(pinned_size_is_accepted)
{
    const struct config_kind *k = &kinds[_i];
    uint64_t buf[BUF_WORDS];
    ck_assert_uint_le(k->size_v0, k->size);
    ck_assert_uint_le(k->size + EXTRA, sizeof(buf));
    config_in(buf, k, k->size_v0);
    /* What an older host's struct does not have is not read: here garbage. */
    memset((char *)buf + k->size_v0, 0xA5, k->size + EXTRA - k->size_v0);
    ck_assert_msg(k->make(buf) == XLAT_OK, "%s: %s", k->name, xlat_ctx_errmsg(f.ctx));
}
END_TEST

START_TEST(newer_zero_members_are_accepted)
{
    const struct config_kind *k = &kinds[_i];
    uint64_t buf[BUF_WORDS];
    config_in(buf, k, k->size + EXTRA);
    ck_assert_msg(k->make(buf) == XLAT_OK, "%s: %s", k->name, xlat_ctx_errmsg(f.ctx));
}
END_TEST

START_TEST(newer_member_set_is_unsupported)
{
    const struct config_kind *k = &kinds[_i];
    uint64_t buf[BUF_WORDS];
    for (size_t at = k->size; at < k->size + EXTRA; at++) {
        config_in(buf, k, k->size + EXTRA);
        ((unsigned char *)buf)[at] = 1;
        ck_assert_msg(k->make(buf) == XLAT_ERR_UNSUPPORTED, "%s byte %zu", k->name, at);
    }
    if (strcmp(k->name, "ctx") != 0) /* a context can say nothing before it exists */
        ck_assert_msg(strstr(xlat_ctx_errmsg(f.ctx), "newer libxlat"), "%s: %s", k->name,
                      xlat_ctx_errmsg(f.ctx));
}
END_TEST

START_TEST(below_pinned_size_is_invalid)
{
    const struct config_kind *k = &kinds[_i];
    uint64_t buf[BUF_WORDS];
    config_in(buf, k, k->size_v0 - 1);
    ck_assert_msg(k->make(buf) == XLAT_ERR_INVAL, "%s", k->name);
}
END_TEST

/* The pinned sizes are the members of the first release, on this ABI: the
 * TLB's ended at `index`, the walker's at `coalesce_fill_pwc` (its clock and
 * Barre Chord's PEC options came later), the IOMMU's at `fault_timeout` (its
 * clock, no_tlb and tracker_exact came later), the system's at `gmmu_cfg`
 * (shared_l2 and F-Barre's came later); every other config is still its
 * first release (nothing past the pinned members but the struct's tail
 * padding and a clock ratio). */
START_TEST(pinned_sizes)
{
    ck_assert_uint_eq(XLAT_TLB_CONFIG_SIZE_V0, offsetof(xlat_tlb_config, hits_in_flight));
    ck_assert_uint_lt(offsetof(xlat_walker_config, clock_num) - XLAT_WALKER_CONFIG_SIZE_V0,
                      _Alignof(uint32_t)); /* clock_num is the first member past the pinned ones */
    ck_assert_uint_eq(XLAT_IOMMU_CONFIG_SIZE_V0, offsetof(xlat_iommu_config, clock_num));
    ck_assert_uint_eq(XLAT_SYSTEM_CONFIG_SIZE_V0, offsetof(xlat_system_config, shared_l2));
    for (size_t i = 0; i < KINDS; i++)
        if (strcmp(kinds[i].name, "tlb") != 0 && strcmp(kinds[i].name, "walker") != 0 &&
            strcmp(kinds[i].name, "iommu") != 0 && strcmp(kinds[i].name, "system") != 0)
            ck_assert_msg(kinds[i].size - kinds[i].size_v0 < _Alignof(max_align_t), "%s",
                          kinds[i].name);
}
END_TEST

/* An older host's TLB config, without the members added after the first
 * release, gets their defaults: `hits_in_flight` past its end reads 1 here,
 * but the default (ports x (latency + 1)) applies, so two hits of one cycle
 * on two ports are both accepted (with 1, the second is refused). */
static void count_done(void *user, const xlat_resp *r)
{
    (void)r;
    ++*(int *)user;
}

START_TEST(older_tlb_gets_defaults)
{
    uint64_t buf[BUF_WORDS];
    xlat_tlb_config *c = config_in(buf, &kinds[1], XLAT_TLB_CONFIG_SIZE_V0);
    c->ports = 2;
    c->hits_in_flight = 1; /* past the older struct: never read */
    xlat_tlb *t = NULL;
    ck_assert_int_eq(xlat_tlb_create(f.ctx, c, &t), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(t, NULL), XLAT_OK);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 1, .pfn = 7, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    xlat_req req = {.vaddr = 0x1000, .pasid = 1};
    int done = 0;
    ck_assert_int_eq(xlat_tlb_translate(t, &req, count_done, &done), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_translate(t, &req, count_done, &done), XLAT_OK);
    ck_assert_int_eq(xlat_advance(f.ctx, 10), XLAT_OK);
    ck_assert_int_eq(done, 2);
    xlat_tlb_destroy(t);
}
END_TEST

/* Every config_init as a host built against another release calls it: the
 * exported _sized function given that host's size. */
typedef void (*init_sized_fn)(void *cfg, size_t size);
static void dwspp_default_sized(void *cfg, size_t size)
{
    xlat_dwspp_preset_sized(cfg, size, XLAT_DWSPP_DEFAULT);
}

#define SIZED(name, type, v0) {#name, v0, sizeof(type), (init_sized_fn)name##_sized}
static const struct {
    const char *name;
    size_t size_v0, size;
    init_sized_fn init;
} sized_inits[] = {
    SIZED(xlat_ctx_config_init, xlat_ctx_config, XLAT_CTX_CONFIG_SIZE_V0),
    SIZED(xlat_tlb_config_init, xlat_tlb_config, XLAT_TLB_CONFIG_SIZE_V0),
    SIZED(xlat_system_l1_config_init, xlat_tlb_config, XLAT_TLB_CONFIG_SIZE_V0),
    SIZED(xlat_system_l2_config_init, xlat_tlb_config, XLAT_TLB_CONFIG_SIZE_V0),
    SIZED(xlat_cuckoo_config_init, xlat_cuckoo_config, XLAT_CUCKOO_CONFIG_SIZE_V0),
    SIZED(xlat_fixed_config_init, xlat_fixed_config, XLAT_FIXED_CONFIG_SIZE_V0),
    SIZED(xlat_link_config_init, xlat_link_config, XLAT_LINK_CONFIG_SIZE_V0),
    SIZED(xlat_physmem_config_init, xlat_physmem_config, XLAT_PHYSMEM_CONFIG_SIZE_V0),
    SIZED(xlat_pagetable_config_init, xlat_pagetable_config, XLAT_PAGETABLE_CONFIG_SIZE_V0),
    SIZED(xlat_pwc_config_init, xlat_pwc_config, XLAT_PWC_CONFIG_SIZE_V0),
    SIZED(xlat_walker_config_init, xlat_walker_config, XLAT_WALKER_CONFIG_SIZE_V0),
    SIZED(xlat_iommu_walker_config_init, xlat_walker_config, XLAT_WALKER_CONFIG_SIZE_V0),
    SIZED(xlat_gmmu_config_init, xlat_gmmu_config, XLAT_GMMU_CONFIG_SIZE_V0),
    SIZED(xlat_iommu_config_init, xlat_iommu_config, XLAT_IOMMU_CONFIG_SIZE_V0),
    SIZED(xlat_system_config_init, xlat_system_config, XLAT_SYSTEM_CONFIG_SIZE_V0),
    SIZED(xlat_pec_buffer_config_init, xlat_pec_buffer_config, XLAT_PEC_BUFFER_CONFIG_SIZE_V0),
    SIZED(xlat_barre_alloc_config_init, xlat_barre_alloc_config,
          XLAT_BARRE_ALLOC_CONFIG_SIZE_V0),
    SIZED(xlat_barre_object_init, xlat_barre_object, XLAT_BARRE_OBJECT_SIZE_V0),
    SIZED(xlat_fbarre_config_init, xlat_fbarre_config, XLAT_FBARRE_CONFIG_SIZE_V0),
    SIZED(xlat_fbarre_mesh_config_init, xlat_fbarre_mesh_config, XLAT_FBARRE_MESH_CONFIG_SIZE_V0),
    {"xlat_dwspp_preset", XLAT_DWSPP_CONFIG_SIZE_V0, sizeof(xlat_dwspp_config),
     dwspp_default_sized},
};
#define SIZED_INITS (sizeof(sized_inits) / sizeof(sized_inits[0]))

/* A host built against the first release: its struct ends at the pinned
 * size, and nothing after it is written; its struct_size says its size and
 * what it has equals this release's defaults. */
START_TEST(config_init_writes_an_older_struct_only)
{
    unsigned char full[BUF_WORDS * 8], old[BUF_WORDS * 8];
    size_t v0 = sized_inits[_i].size_v0, size = sized_inits[_i].size;
    ck_assert_uint_le(size + EXTRA, sizeof(old));
    memset(full, 0, sizeof(full));
    sized_inits[_i].init(full, size);
    memset(old, 0xA5, sizeof(old));
    sized_inits[_i].init(old, v0);
    uint32_t got;
    memcpy(&got, old, sizeof(got));
    ck_assert_msg(got == v0, "%s: struct_size %u, not %zu", sized_inits[_i].name, got, v0);
    ck_assert_msg(memcmp(old + 4, full + 4, v0 - 4) == 0, "%s", sized_inits[_i].name);
    for (size_t i = v0; i < sizeof(old); i++)
        ck_assert_msg(old[i] == 0xA5, "%s wrote byte %zu of a %zu-byte struct",
                      sized_inits[_i].name, i, v0);
    memset(old, 0xA5, sizeof(old));
    sized_inits[_i].init(old, 3); /* no room for struct_size: nothing */
    ck_assert_uint_eq(old[0], 0xA5);
    sized_inits[_i].init(NULL, size);
}
END_TEST

/* A host built against a newer release: what this one does not know is
 * zeroed, so a create accepts the struct. */
START_TEST(config_init_zeroes_a_newer_struct)
{
    unsigned char full[BUF_WORDS * 8], newer[BUF_WORDS * 8];
    size_t size = sized_inits[_i].size;
    memset(full, 0, sizeof(full));
    sized_inits[_i].init(full, size);
    memset(newer, 0xA5, sizeof(newer));
    sized_inits[_i].init(newer, size + EXTRA);
    uint32_t got;
    memcpy(&got, newer, sizeof(got));
    ck_assert_uint_eq(got, size + EXTRA);
    ck_assert(memcmp(newer + 4, full + 4, size - 4) == 0);
    for (size_t i = size; i < size + EXTRA; i++)
        ck_assert_uint_eq(newer[i], 0);
    ck_assert_uint_eq(newer[size + EXTRA], 0xA5);
}
END_TEST

Suite *config_size_suite(void)
{
    Suite *s = suite_create("config_size");
    TCase *tc = tcase_create("creates");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, pinned_size_is_accepted, 0, KINDS);
    tcase_add_loop_test(tc, newer_zero_members_are_accepted, 0, KINDS);
    tcase_add_loop_test(tc, config_init_writes_an_older_struct_only, 0, SIZED_INITS);
    tcase_add_loop_test(tc, config_init_zeroes_a_newer_struct, 0, SIZED_INITS);
    tcase_add_loop_test(tc, newer_member_set_is_unsupported, 0, KINDS);
    tcase_add_loop_test(tc, below_pinned_size_is_invalid, 0, KINDS);
    tcase_add_test(tc, pinned_sizes);
    tcase_add_test(tc, older_tlb_gets_defaults);
    suite_add_tcase(s, tc);
    return s;
}
