/* The MCM package of F-Barre's tests (fbarre_fixture.h). */
#include "fbarre_fixture.h"

const uint64_t fx_base[FX_MAXC] = {0xA000, 0xB000, 0xC000, 0xD000};

static void port_deliver(void *user, uint32_t pasid, uint64_t msg)
{
    fx_port *p = user;
    if (!p->lose)
        xlat_fbarre_receive(p->to, pasid, msg);
}

static void ats_fire(void *arg)
{
    fx_ats_slot *s = arg;
    xlat_resp r;
    memset(&r, 0, sizeof(r));
    r.id = s->req.id;
    r.vaddr = s->req.vaddr;
    r.pasid = s->req.pasid;
    xlat_tlb_entry e;
    r.status = xlat_pagetable_lookup(s->f->pt, s->req.pasid, s->req.vaddr, &e);
    if (r.status == XLAT_OK) {
        r.pfn = e.pfn;
        r.page_shift = e.page_shift;
        r.perm = e.perm;
        r.meta = e.meta;
        r.paddr = e.pfn << e.page_shift | (s->req.vaddr & 0xFFF);
    }
    r.completed = xlat_now(s->f->ctx);
    s->busy = 0; /* state first: done may send again */
    s->done(s->user, &r);
}

/* The ATS path: PCIe, the IOMMU's walk and the way back as one delay. */
static int ats_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    fx *f = unit;
    for (int i = 0; i < FX_ATS_SLOTS; i++) {
        fx_ats_slot *s = &f->ats[i];
        if (s->busy)
            continue;
        *s = (fx_ats_slot){.f = f, .req = *req, .done = done, .user = user, .busy = 1};
        f->ats_requests++;
        if (f->ats_delay == 0)
            ats_fire(s); /* a host may answer inside its own translate */
        else
            ck_assert_int_eq(xlat_schedule(f->ctx, f->ats_delay, ats_fire, s), XLAT_OK);
        return XLAT_OK;
    }
    return XLAT_ERR_AGAIN;
}

static void l2_done(void *user, const xlat_resp *r)
{
    fx *f = user;
    if (f->in_call)
        f->breaches++;
    ck_assert_uint_lt(r->id, FX_ANSWERS);
    fx_answer *a = &f->ans[r->id];
    a->got++;
    a->status = r->status;
    a->pfn = r->pfn;
    a->at = r->completed;
    a->resolver = r->resolver;
}

static void make_l2(fx *f, uint32_t g, uint32_t entries)
{
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = entries;
    tc.ways = entries < 16 ? entries : 16;
    tc.latency = 10; /* Table II */
    tc.mshrs = 16;
    ck_assert_int_eq(xlat_tlb_create(f->ctx, &tc, &f->l2[g]), XLAT_OK);
}

static void chiplet_config(const fx *f, uint32_t g, const xlat_fbarre_config *tmpl,
                           xlat_fbarre_config *c)
{
    if (tmpl)
        *c = *tmpl;
    else
        xlat_fbarre_config_init(c);
    c->chiplet = g;
    c->chiplets = f->n;
    for (uint32_t i = 0; i < f->n; i++)
        c->base_pfn[i] = fx_base[i];
}

/* Chiplet g's L2 over its unit, the ATS path and the PEC source. */
static void wire_chiplet(fx *f, uint32_t g, uint32_t entries)
{
    make_l2(f, g, entries);
    ck_assert_int_eq(xlat_fbarre_attach_l2(f->fb[g], f->l2[g]), XLAT_OK);
    xlat_target ats = XLAT_TARGET_INIT;
    ats.translate = ats_translate;
    ats.unit = f;
    ck_assert_int_eq(xlat_fbarre_set_next(f->fb[g], &ats), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_set_pec_source(f->fb[g], xlat_fbarre_pec_from_buffer, f->iommu_pec),
                     XLAT_OK);
    xlat_target t = TEST_TARGET(fbarre, f->fb[g]);
    ck_assert_int_eq(xlat_tlb_set_next(f->l2[g], &t), XLAT_OK);
}

static void make_chiplet(fx *f, uint32_t g, const xlat_fbarre_config *tmpl, uint32_t entries)
{
    xlat_fbarre_config c;
    chiplet_config(f, g, tmpl, &c);
    ck_assert_int_eq(xlat_fbarre_create(f->ctx, &c, &f->fb[g]), XLAT_OK);
    wire_chiplet(f, g, entries);
}

/* Chiplet i's path to chiplet j: a 32-cycle link each way (Table II). */
static void connect(fx *f, uint32_t i, uint32_t j)
{
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.latency = lc.latency_back = 32;
    ck_assert_int_eq(xlat_link_create(f->ctx, &lc, &f->link[i][j]), XLAT_OK);
    xlat_target far = XLAT_TARGET_INIT;
    ck_assert_int_eq(xlat_fbarre_get_peer_target(f->fb[j], &far), XLAT_OK);
    ck_assert_int_eq(xlat_link_set_next(f->link[i][j], &far), XLAT_OK);
    xlat_target near = TEST_TARGET(link, f->link[i][j]);
    f->port[i][j].to = f->fb[j];
    ck_assert_int_eq(xlat_fbarre_set_peer(f->fb[i], j, &near, port_deliver, &f->port[i][j]),
                     XLAT_OK);
}

static void fx_start(fx *f, uint32_t n, uint32_t ats_delay)
{
    memset(f, 0, sizeof(*f));
    f->ctx = test_ctx(7, NULL);
    test_table(f->ctx, &f->mem, &f->pt);
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    ck_assert_int_eq(xlat_pec_buffer_create(f->ctx, &pc, &f->iommu_pec), XLAT_OK);
    f->n = n;
    f->ats_delay = ats_delay;
}

void fx_init(fx *f, uint32_t n, const xlat_fbarre_config *tmpl, uint32_t l2_entries,
             uint32_t ats_delay)
{
    fx_start(f, n, ats_delay);
    for (uint32_t g = 0; g < n; g++)
        make_chiplet(f, g, tmpl, l2_entries);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++)
            if (i != j)
                connect(f, i, j);
}

void fx_init_mesh(fx *f, uint32_t n, uint32_t l2_entries, uint32_t ats_delay)
{
    fx_start(f, n, ats_delay);
    xlat_fbarre_config unit;
    chiplet_config(f, 0, NULL, &unit);
    xlat_fbarre_mesh_config mc;
    xlat_fbarre_mesh_config_init(&mc);
    mc.chiplets = n;
    mc.chiplet = &unit;
    ck_assert_int_eq(xlat_fbarre_mesh_create(f->ctx, &mc, &f->mesh), XLAT_OK);
    for (uint32_t g = 0; g < n; g++) {
        f->fb[g] = xlat_fbarre_mesh_chiplet(f->mesh, g);
        wire_chiplet(f, g, l2_entries);
    }
}

void fx_fini(fx *f)
{
    ck_assert_uint_eq(xlat__events_overruns(f->ctx), 0);
    xlat_ctx_destroy(f->ctx);
}

void fx_map_object(fx *f, const xlat_pec_entry *d, const uint64_t *locals)
{
    uint64_t g = d->interlv_gran, per_round = g * d->positions;
    uint8_t bitmap = 0;
    for (uint32_t k = 0; k < d->positions; k++)
        bitmap |= (uint8_t)(0x80 >> d->gpu_map[k]);
    for (uint64_t v = d->start_vpn; v <= d->end_vpn; v++) {
        uint64_t off = v - d->start_vpn, r = off / per_round;
        uint64_t k = off % per_round / g, j = off % g;
        uint64_t pfn = fx_base[d->gpu_map[k]] + locals[r * g + j];
        ck_assert_int_eq(xlat_pagetable_map(f->pt, d->pasid, v << 12, pfn, 12,
                                            XLAT_PERM_R | XLAT_PERM_W),
                         XLAT_OK);
        xlat_coal_info ci = {.bitmap = bitmap, .inter = (uint8_t)k};
        uint32_t bits = (uint32_t)(xlat_coal_encode(0, &ci, false) >> 52);
        ck_assert_int_eq(xlat_pagetable_set_avail_high(f->pt, d->pasid, v << 12, bits), XLAT_OK);
    }
    ck_assert_int_eq(xlat_pec_buffer_insert(f->iommu_pec, d), XLAT_OK);
}

void fx_send(fx *f, uint32_t g, uint64_t id, uint64_t vpn)
{
    xlat_req r = {.id = id, .vaddr = vpn << 12, .pasid = FX_PASID, .access = XLAT_ACCESS_READ,
                  .gpu = (uint16_t)g};
    f->in_call = 1;
    ck_assert_int_eq(xlat_tlb_translate(f->l2[g], &r, l2_done, f), XLAT_OK);
    f->in_call = 0;
}

void fx_send_until_taken(fx *f, uint32_t g, uint64_t id, uint64_t vpn)
{
    xlat_req r = {.id = id, .vaddr = vpn << 12, .pasid = FX_PASID, .access = XLAT_ACCESS_READ,
                  .gpu = (uint16_t)g};
    for (;;) {
        f->in_call = 1;
        int rc = xlat_tlb_translate(f->l2[g], &r, l2_done, f);
        f->in_call = 0;
        if (rc == XLAT_OK)
            return;
        ck_assert_int_eq(rc, XLAT_ERR_AGAIN);
        ck_assert_int_eq(xlat_tick(f->ctx), XLAT_OK);
    }
}

void fx_run_to(fx *f, uint64_t t)
{
    ck_assert_uint_le(xlat_now(f->ctx), t);
    ck_assert_int_eq(xlat_advance(f->ctx, t - xlat_now(f->ctx)), XLAT_OK);
}

xlat_fbarre_stats fx_stats(const fx *f, uint32_t g)
{
    xlat_fbarre_stats st;
    xlat_fbarre_stats_get(f->fb[g], &st, sizeof(st));
    return st;
}
