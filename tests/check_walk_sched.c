/* Walker scheduling policies: FCFS, static partitioning, DWS and DWS++
 * ("Improving GPU Multi-tenancy with Page Walk Stealing"), against the test
 * vectors of notes/seed-004 §D.2-D.5. Every walk reads four levels with no
 * page walk cache at 25 cycles a read: exactly 100 cycles. */
#include <math.h>

#include "walk_fixture.h"
#include <xlat/experimental.h> /* preloads and the papers' rules, outside the stable API */

#define VA_BASE 0x40000000ull
#define PAGES 256
#define WALK 100

static walk_fixture f;

static uint64_t va(uint64_t id) { return VA_BASE + id * 4096; }

/* A 4-level table with pages 0..PAGES-1 mapped in PASIDs 0..3. */
static void table(void)
{
    wf_memory(&f, NULL, 0);
    wf_table(&f);
    for (uint32_t pasid = 0; pasid < 4; pasid++)
        for (uint64_t i = 0; i < PAGES; i++)
            ck_assert_int_eq(xlat_pagetable_map(f.pt, pasid, va(i), 0x80000 + pasid * 0x1000 + i,
                                                12, XLAT_PERM_R),
                             XLAT_OK);
}

static void config(xlat_walker_config *c, xlat_walk_sched s, uint32_t walkers, uint32_t queue,
                   uint32_t tenants)
{
    xlat_walker_config_init(c);
    c->sched = s;
    c->walkers = walkers;
    c->queue_entries = queue;
    c->tenants = tenants;
    c->mem_latency = 25;
}

static void pool(xlat_walk_sched s, uint32_t walkers, uint32_t queue, uint32_t tenants)
{
    xlat_walker_config c;
    table();
    config(&c, s, walkers, queue, tenants);
    wf_pool(&f, &c);
}

static void setup(void) { memset(&f, 0, sizeof(f)); }

static void teardown(void) { wf_destroy(&f); }

static int send(uint64_t id, uint32_t pasid)
{
    xlat_req req = {.id = id, .pasid = pasid, .vaddr = va(id), .access = XLAT_ACCESS_READ};
    return wf_send_req(&f, &req);
}

/* A request of the host's script: tenant = PASID with these pools. */
typedef struct arrival {
    uint64_t cycle, id;
    uint32_t pasid;
} arrival;

/* The host: at every cycle up to `end`, after the pool's events of that
 * cycle, it sends what is due; a refused request is retried every cycle,
 * in script order. */
static void play(const arrival *a, int n, uint64_t end)
{
    bool taken[64] = {false};
    ck_assert_int_le(n, 64);
    for (uint64_t now = 0; now <= end; now++) {
        wf_run_until(&f, now);
        for (int i = 0; i < n; i++)
            if (!taken[i] && a[i].cycle <= now)
                taken[i] = send(a[i].id, a[i].pasid) == XLAT_OK;
    }
    for (int i = 0; i < n; i++)
        ck_assert_msg(taken[i], "request %llu never taken", (unsigned long long)a[i].id);
}

static const xlat_walk_event *started(uint64_t id)
{
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == XLAT_WALK_START && f.ev[i].id == id)
            return &f.ev[i];
    return NULL;
}

/* What the tables of §D.3 say about one walk. */
typedef struct expect {
    uint64_t id, start;
    int32_t walker;
    bool stolen;
} expect;

static void check_walks(const expect *e, int n)
{
    for (int i = 0; i < n; i++) {
        const xlat_walk_event *ev = started(e[i].id);
        const xlat_resp *done = wf_done(&f, e[i].id);
        ck_assert_msg(ev && done, "walk %llu did not run", (unsigned long long)e[i].id);
        ck_assert_msg(ev->cycle == e[i].start && ev->walker == e[i].walker &&
                          ev->stolen == e[i].stolen,
                      "walk %llu: start %llu on W%d stolen %d, expected %llu on W%d stolen %d",
                      (unsigned long long)e[i].id, (unsigned long long)ev->cycle, ev->walker,
                      ev->stolen, (unsigned long long)e[i].start, e[i].walker, e[i].stolen);
        ck_assert_int_eq(done->status, XLAT_OK);
        ck_assert_uint_eq(done->completed, e[i].start + WALK);
    }
}

static uint64_t makespan(void)
{
    uint64_t end = 0;
    for (int i = 0; i < f.ndone; i++)
        end = f.done[i].completed > end ? f.done[i].completed : end;
    return end;
}

static xlat_walker_tenant_stats tenant_stats(uint32_t t)
{
    xlat_walker_tenant_stats st;
    ck_assert_int_eq(xlat_walker_tenant_stats_get(f.pool, t, &st, sizeof(st)), XLAT_OK);
    return st;
}

/* ---- §D.3: A1..A12 at t0, B1 at t50; 4 walkers, A owns W0-W1 ------------ */

#define B1 101

static void d3_play(xlat_walk_sched s)
{
    arrival a[13];
    for (int i = 0; i < 12; i++)
        a[i] = (arrival){0, (uint64_t)i + 1, 0};
    a[12] = (arrival){50, B1, 1};
    pool(s, 4, 16, 2);
    play(a, 13, 800);
    ck_assert_int_eq(f.ndone, 13);
}

START_TEST(d3_fcfs)
{
    d3_play(XLAT_SCHED_FCFS);
    expect e[13];
    for (int i = 0; i < 12; i++)
        e[i] = (expect){(uint64_t)i + 1, (uint64_t)(i / 4) * WALK, i % 4, false};
    e[12] = (expect){B1, 300, 0, false};
    check_walks(e, 13);
    ck_assert_uint_eq(makespan(), 400);
    /* B1 queued behind eight A walks. */
    ck_assert_uint_eq(tenant_stats(1).interleave, 8);
    ck_assert_uint_eq(tenant_stats(1).interleave_max, 8);
}
END_TEST

static const expect d3_dws[13] = {
    {1, 0, 0, false},   {2, 0, 1, false},   {3, 0, 2, true},    {4, 0, 3, true},
    {5, 100, 0, false}, {6, 100, 1, false}, {7, 100, 3, true},  {B1, 100, 2, false},
    {8, 200, 1, false}, {9, 200, 0, false}, {10, 200, 2, true}, {11, 200, 3, true},
    {12, 300, 0, false}, /* from W1's queue: a sibling's walk, not a steal */
};

/* DWS++ before its first epoch ends (DIFF_THRES 1.0) is DWS. */
START_TEST(d3_dws_and_dwspp)
{
    d3_play(_i ? XLAT_SCHED_DWSPP : XLAT_SCHED_DWS);
    check_walks(d3_dws, 13);
    ck_assert_uint_eq(makespan(), 400);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.stolen, 5);
    ck_assert_uint_eq(tenant_stats(0).stolen, 5);
    ck_assert_uint_eq(tenant_stats(1).steals, 5);
    ck_assert_uint_eq(tenant_stats(0).steals, 0);
    /* B1 waited behind one foreign walk: the stolen A3 on W2. */
    ck_assert_uint_eq(tenant_stats(1).interleave, 1);
    ck_assert_uint_eq(tenant_stats(1).interleave_max, 1);
    ck_assert_uint_eq(tenant_stats(0).interleave, 0);
}
END_TEST

START_TEST(d3_partition)
{
    d3_play(XLAT_SCHED_PARTITION);
    expect e[13];
    for (int i = 0; i < 12; i++)
        e[i] = (expect){(uint64_t)i + 1, (uint64_t)(i / 2) * WALK, i % 2, false};
    e[12] = (expect){B1, 50, 2, false};
    check_walks(e, 13);
    ck_assert_uint_eq(makespan(), 600);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.stolen, 0);
    /* A11 and A12 were refused at t0 and at every retry until W0 and W1
     * took A3 and A4 at t100: 2 x 100 refusals. */
    ck_assert_uint_eq(st.refusals, 200);
    ck_assert_uint_eq(tenant_stats(1).interleave, 0);
}
END_TEST

/* Interleaved ownership: walker i belongs to tenant i mod 2. */
START_TEST(interleaved_assignment)
{
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_PARTITION, 4, 16, 2);
    c.assign = XLAT_ASSIGN_INTERLEAVED;
    wf_pool(&f, &c);
    arrival a[] = {{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, B1, 1}, {0, B1 + 1, 1}};
    play(a, 5, 400);
    expect e[] = {{1, 0, 0, false}, {2, 0, 2, false}, {3, 100, 0, false},
                  {B1, 0, 1, false}, {B1 + 1, 0, 3, false}};
    check_walks(e, 5);
}
END_TEST

/* ---- §D.2: arrival at the least-loaded owned walker --------------------- */

static bool held[PAGES];

static bool defer_held(void *user, const xlat_walk_info *cand)
{
    (void)user;
    return held[cand->id];
}

/* A owns W0-W3, all busy, queues holding [0, 2, 1, 0] walks (FWA = [12, 10,
 * 11, 12]): the next walk goes to W0 (most free slots, tie with W3). The
 * defer hook pins walks in place to build that state. */
START_TEST(d2_least_loaded)
{
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_DWS, 4, 48, 1);
    c.defer_fn = defer_held;
    wf_pool(&f, &c);
    memset(held, 0, sizeof(held));
    for (uint64_t id = 1; id <= 4; id++)
        ck_assert_int_eq(send(id, 0), XLAT_OK);
    for (uint64_t id = 11; id <= 17; id++) { /* P1..P7 -> q0 q1 q2 q3 q0 q1 q2 */
        held[id] = true;
        ck_assert_int_eq(send(id, 0), XLAT_OK);
    }
    wf_run_until(&f, 99);
    held[11] = held[15] = held[17] = held[14] = false;
    wf_run_until(&f, 100);
    /* W0 its own head P1; W1 (own queue pinned) the fullest sibling, q2,
     * whose first startable walk is P7; W2 then q0's P5 (q0 and q3 tie at
     * one, q1 has nothing startable); W3 its own P4. */
    expect e[] = {{11, 100, 0, false}, {17, 100, 1, false}, {15, 100, 2, false},
                  {14, 100, 3, false}};
    for (int i = 0; i < 4; i++) {
        const xlat_walk_event *ev = started(e[i].id);
        ck_assert(ev && ev->cycle == e[i].start && ev->walker == e[i].walker && !ev->stolen);
    }
    ck_assert_uint_eq(tenant_stats(0).queued, 3);
    ck_assert_int_eq(send(20, 0), XLAT_OK);
    ck_assert_uint_eq(tenant_stats(0).queued, 4); /* PEND_WALKS[A] += 1 */
    xlat_walk_info info;
    size_t n = xlat_walker_buffered(f.pool);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(xlat_walker_buffered_info(f.pool, n - 1, &info, sizeof(info)), XLAT_OK);
    ck_assert_uint_eq(info.id, 20);
    ck_assert_int_eq(info.queue, 0);
    ck_assert_int_eq(info.walker, -1);
}
END_TEST

/* ---- §D.4: the DWS++ ratio ladder --------------------------------------- */

#define NO_STEAL 1.0

START_TEST(d4_ladder)
{
    static const struct {
        uint64_t a, b;
        double def, cons, aggr, strict;
    } row[] = {
        {100, 100, 0.4, 0.4, 0.3, 0.4},
        {120, 80, 0.4, 0.4, 0.3, 0.6}, /* R = 1.5 exactly: paper <= keeps the lower rung */
        {125, 75, 0.6, 0.6, 0.3, 0.6},
        {140, 60, 0.8, 0.8, 0.3, 0.8},
        {150, 50, 0.8, 0.8, 0.3, 0.9},
        {155, 45, 0.9, 0.9, 0.3, 0.9},
        {160, 40, 0.9, 0.9, 0.3, NO_STEAL},
        {170, 30, NO_STEAL, NO_STEAL, 0.3, NO_STEAL},
        {200, 0, NO_STEAL, NO_STEAL, 0.3, NO_STEAL},
    };
    xlat_dwspp_config def, cons, aggr, strict;
    xlat_dwspp_preset(&def, XLAT_DWSPP_DEFAULT);
    xlat_dwspp_preset(&cons, XLAT_DWSPP_CONSERVATIVE);
    xlat_dwspp_preset(&aggr, XLAT_DWSPP_AGGRESSIVE);
    xlat_dwspp_preset(&strict, XLAT_DWSPP_DEFAULT);
    strict.strict_bounds = true;
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        for (int swap = 0; swap < 2; swap++) {
            uint64_t x = swap ? row[i].b : row[i].a, y = swap ? row[i].a : row[i].b;
            ck_assert_msg(xlat_dwspp_threshold(&def, x, y) == row[i].def, "row %u", i);
            ck_assert_msg(xlat_dwspp_threshold(&cons, x, y) == row[i].cons, "row %u", i);
            ck_assert_msg(xlat_dwspp_threshold(&aggr, x, y) == row[i].aggr, "row %u", i);
            ck_assert_msg(xlat_dwspp_threshold(&strict, x, y) == row[i].strict, "row %u", i);
        }
    }
    ck_assert(xlat_dwspp_threshold(NULL, 1, 1) == NO_STEAL);
    ck_assert(def.epoch_length == 200 && def.queue_thres == 0.51 && cons.queue_thres == 0.17 &&
              aggr.queue_thres == 0.51 && !def.strict_bounds);
}
END_TEST

/* ---- §D.5: the DWS++ steal decision ------------------------------------- */

/* 16 walkers, 2 tenants, 12-entry queues: 96 slots per tenant. */
START_TEST(d5_steal_decisions)
{
    static const struct {
        int row;
        bool conservative;
        double thres;
        bool is_stolen;
        uint32_t qlen;
        uint64_t own, other;
        bool steal;
    } row[] = {
        {1, false, 0.4, false, 3, 10, 60, true},  {2, false, 0.6, false, 3, 10, 60, false},
        {3, false, 0.4, true, 3, 10, 60, false},  {4, false, 0.4, false, 7, 20, 90, false},
        {5, false, 0.8, false, 6, 6, 90, true},   {6, false, 0.9, false, 6, 6, 90, false},
        {7, false, 0.4, false, 2, 40, 10, false}, {8, false, 1.0, false, 0, 5, 96, false},
        {11, true, 0.4, false, 3, 10, 60, false}, {12, true, 0.4, false, 2, 10, 60, true},
    };
    xlat_dwspp_config def, cons;
    xlat_dwspp_preset(&def, XLAT_DWSPP_DEFAULT);
    xlat_dwspp_preset(&cons, XLAT_DWSPP_CONSERVATIVE);
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        bool got = xlat_dwspp_should_steal(row[i].conservative ? &cons : &def, row[i].thres,
                                           row[i].is_stolen, row[i].qlen, 12, row[i].own, 96,
                                           row[i].other, 96);
        ck_assert_msg(got == row[i].steal, "row %d: %d", row[i].row, got);
    }
    ck_assert(!xlat_dwspp_should_steal(NULL, 0.0, false, 0, 12, 0, 96, 96, 96));
    ck_assert(!xlat_dwspp_should_steal(&def, 0.0, false, 0, 0, 0, 96, 96, 96));
    ck_assert(!xlat_dwspp_should_steal(&def, 0.0, false, 0, 12, 0, 96, 96, 0));
    /* diff can reach exactly 1.0 (other full, own empty): still no stealing. */
    ck_assert(!xlat_dwspp_should_steal(&def, 1.0, false, 0, 12, 0, 96, 96, 96));
    ck_assert(xlat_dwspp_should_steal(&def, 0.99, false, 0, 12, 0, 96, 96, 96));
}
END_TEST

/* Rows 9 and 10 are plain DWS: a walker whose owner has nothing queued
 * steals whatever is_stolen says, and idles when nothing is queued. */
START_TEST(d5_rows_9_10)
{
    pool(XLAT_SCHED_DWSPP, 4, 16, 2);
    /* B1, B2 on B's W2, W3; B3, B4 steal the idle W0, W1 (is_stolen set);
     * B5..B7 queue at t50: q2 = [B5, B7], q3 = [B6]. */
    arrival a[] = {{0, B1, 1},      {0, B1 + 1, 1},  {0, B1 + 2, 1},  {0, B1 + 3, 1},
                   {50, B1 + 4, 1}, {50, B1 + 5, 1}, {50, B1 + 6, 1}};
    play(a, 7, 100);
    /* t100, the four completions processed in walker-id order (§A.6), not
     * in start order (W2, W3, W0, W1): W0 (row 9, is_stolen set) steals the
     * head of B's fullest queue, B5; W1 (row 9 again) steals B7 (q2 and q3
     * tie at one walk: q2); W2 serves B6 from its sibling queue q3; W3
     * (row 10: nothing queued anywhere) idles. In start order W2 and W3
     * served B5 and B6, W0 stole B7 and W1 idled. */
    expect e[] = {{B1 + 2, 0, 0, true},    {B1 + 3, 0, 1, true},    {B1 + 4, 100, 0, true},
                  {B1 + 5, 100, 2, false}, {B1 + 6, 100, 1, true}};
    for (int i = 0; i < 5; i++) {
        const xlat_walk_event *ev = started(e[i].id);
        ck_assert_msg(ev && ev->cycle == e[i].start && ev->walker == e[i].walker &&
                          ev->stolen == e[i].stolen,
                      "walk %llu", (unsigned long long)e[i].id);
    }
    xlat_walk_info info;
    ck_assert_int_eq(xlat_walker_service_info(f.pool, 3, &info, sizeof(info)), XLAT_ERR_NOT_FOUND);
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 0);
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 3);
}
END_TEST

/* Completions of one cycle are processed in walker-id order (seed-004
 * note §A.6), whatever order their walks started in. DWS, A owns W0-W1,
 * B owns W2-W3, no idle steal. t0: B1 -> W2, B2 -> W3, A1 -> W0, A2 -> W1
 * (start order W2, W3, W0, W1); A3 -> q0, B3 -> q2, B4 -> q3. All four
 * finish at t100. In walker-id order W0 serves A3; W1 (A has nothing left)
 * steals B3, the head of B's fullest queue (q2 and q3 tie: q2); W2 serves
 * B4 from q3; W3 idles. In start order W2 and W3 would serve B3 and B4
 * first and nothing would be stolen. */
START_TEST(same_cycle_completions_in_walker_order)
{
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_DWS, 4, 16, 2);
    c.idle_steal = false;
    wf_pool(&f, &c);
    arrival a[] = {{0, B1, 1},     {0, B1 + 1, 1}, {0, 1, 0},
                   {0, 2, 0},      {0, 3, 0},      {0, B1 + 2, 1}, {0, B1 + 3, 1}};
    play(a, 7, 300);
    ck_assert_int_eq(f.ndone, 7);
    expect e[] = {{B1, 0, 2, false},      {B1 + 1, 0, 3, false}, {1, 0, 0, false},
                  {2, 0, 1, false},       {3, 100, 0, false},    {B1 + 2, 100, 1, true},
                  {B1 + 3, 100, 2, false}};
    check_walks(e, 7);
    ck_assert_uint_eq(tenant_stats(0).steals, 1);
    ck_assert_uint_eq(tenant_stats(1).stolen, 1);
}
END_TEST

/* ---- DWS++ stealing while the owner has walks queued -------------------- */

/* A1..A5 and a backlog of 20 B walks, B's queues kept full by retries.
 * With DIFF_THRES 0.3 (Aggressive, an epoch per arrival) A's walkers steal
 * while A walks wait; no two steals in a row; A5 waits behind two stolen
 * walks on W0 (interleaving is bounded, not 1, under DWS++). */
static int backlog(arrival *a)
{
    static const uint64_t first[] = {1, B1, 2, B1 + 1, 3, 4, 5};
    int n = 0;
    for (int i = 0; i < 7; i++)
        a[n++] = (arrival){0, first[i], first[i] > 100};
    for (uint64_t id = B1 + 2; id < B1 + 20; id++)
        a[n++] = (arrival){0, id, 1};
    return n;
}

START_TEST(dwspp_steals_with_owner_pending)
{
    xlat_walker_config c;
    arrival a[32];
    table();
    config(&c, XLAT_SCHED_DWSPP, 4, 16, 2);
    xlat_dwspp_config d;
    xlat_dwspp_preset(&d, XLAT_DWSPP_AGGRESSIVE);
    d.epoch_length = 1;
    c.dwspp = &d;
    wf_pool(&f, &c);
    play(a, backlog(a), 600);
    ck_assert(xlat_walker_diff_thres(f.pool, 0) == 0.3);
    /* The pending difference is normalised by all 16 queue entries (§VI-B).
     * t100: A3, A5 queued at W0, A4 at W1, B's 8 slots full: W0 steals B3,
     * (8 - 3) / 16 > 0.3; W1 then sees (7 - 3) / 16 = 0.25 and serves A4.
     * t200: W0 (is_stolen) serves A3; W1 steals with A5 still queued.
     * t300: W0 steals again; W1 (is_stolen) serves A5 from W0's queue. */
    expect e[] = {
        {B1 + 2, 100, 0, true}, {4, 100, 1, false},     {3, 200, 0, false},
        {B1 + 6, 200, 1, true}, {B1 + 10, 300, 0, true}, {5, 300, 1, false},
    };
    check_walks(e, 6);
    /* A3 waited behind one steal, A5 behind two (W0's at t100 and t300). */
    ck_assert_uint_eq(tenant_stats(0).interleave, 3);
    ck_assert_uint_eq(tenant_stats(0).interleave_max, 2);
}
END_TEST

/* The same traffic under DWS: A's walkers never steal while A waits. */
START_TEST(dws_no_steal_with_owner_pending)
{
    arrival a[32];
    pool(XLAT_SCHED_DWS, 4, 16, 2);
    play(a, backlog(a), 600);
    expect e[] = {{3, 100, 0, false}, {4, 100, 1, false}, {5, 200, 0, false}};
    check_walks(e, 3);
    ck_assert_uint_eq(tenant_stats(0).interleave_max, 0);
    /* A's walkers steal only once no A walk waits: after A5 started. */
    const xlat_walk_event *a5 = started(5);
    for (const xlat_walk_event *ev = f.ev; ev < a5; ev++)
        ck_assert(!(ev->kind == XLAT_WALK_START && ev->walker < 2 && ev->stolen));
}
END_TEST

/* ---- DWS++ epochs -------------------------------------------------------- */

static void send_many(uint32_t pasid, uint64_t *id, int n)
{
    for (int i = 0; i < n; i++, (*id)++)
        ck_assert_int_eq(send(*id % PAGES, pasid), XLAT_OK);
}

/* Epoch after epoch, DIFF_THRES keeps its value for 199 arrivals and takes
 * the ladder's rung at the 200th (paper bounds, then strict bounds). */
START_TEST(dwspp_epoch_switches)
{
    static const struct {
        int a, b;
        double paper, strict;
    } epoch[] = {{120, 80, 0.4, 0.6},  {150, 50, 0.8, 0.9},           {100, 100, 0.4, 0.4},
                 {160, 40, 0.9, NO_STEAL}, {170, 30, NO_STEAL, NO_STEAL}, {125, 75, 0.6, 0.6},
                 {0, 200, NO_STEAL, NO_STEAL}};
    bool strict = _i;
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_DWSPP, 4, 2048, 2);
    xlat_dwspp_config d;
    xlat_dwspp_preset(&d, XLAT_DWSPP_DEFAULT);
    d.strict_bounds = strict;
    c.dwspp = &d;
    c.pt = f.pt; /* untraced: 1,400 arrivals */
    ck_assert_int_eq(xlat_walker_create(f.ctx, &c, &f.pool), XLAT_OK);
    uint64_t id = 0;
    double before = NO_STEAL;
    for (unsigned e = 0; e < sizeof(epoch) / sizeof(epoch[0]); e++) {
        double after = strict ? epoch[e].strict : epoch[e].paper;
        send_many(0, &id, epoch[e].a);
        send_many(1, &id, epoch[e].b - 1);
        ck_assert_msg(xlat_walker_diff_thres(f.pool, 0) == before, "epoch %u", e);
        ck_assert_msg(xlat_walker_diff_thres(f.pool, 1) == before, "epoch %u", e);
        send_many(1, &id, 1);
        ck_assert_msg(xlat_walker_diff_thres(f.pool, 0) == after, "epoch %u", e);
        ck_assert_msg(xlat_walker_diff_thres(f.pool, 1) == after, "epoch %u", e);
        before = after;
    }
    ck_assert(xlat_walker_diff_thres(f.pool, 2) == NO_STEAL);
    ck_assert(xlat_walker_diff_thres(NULL, 0) == NO_STEAL);
}
END_TEST

/* A refused arrival does not count towards the epoch. */
START_TEST(dwspp_refusals_do_not_count)
{
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_DWSPP, 2, 4, 2);
    xlat_dwspp_config d;
    xlat_dwspp_preset(&d, XLAT_DWSPP_DEFAULT);
    d.epoch_length = 6;
    c.dwspp = &d;
    wf_pool(&f, &c);
    /* A0 on W0, A1 stolen by the idle W1, A2 and A3 fill q0; A4 is refused
     * five times. */
    uint64_t id = 0;
    send_many(0, &id, 4);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(send(id, 0), XLAT_ERR_AGAIN);
    id++;
    ck_assert(xlat_walker_diff_thres(f.pool, 0) == NO_STEAL);
    send_many(1, &id, 2); /* the 5th and 6th arrivals: A 4, B 2, R = 2 */
    ck_assert(xlat_walker_diff_thres(f.pool, 0) == 0.6);
    ck_assert(xlat_walker_diff_thres(f.pool, 1) == 0.6);
}
END_TEST

/* With more than two tenants each compares its arrivals with those of the
 * tenant that has the most walks pending (§VI-C), not the most arrivals. */
START_TEST(dwspp_epoch_many_tenants)
{
    xlat_walker_config c;
    table();
    config(&c, XLAT_SCHED_DWSPP, 3, 3 * 256, 3);
    c.pt = f.pt; /* untraced: 400 arrivals */
    ck_assert_int_eq(xlat_walker_create(f.ctx, &c, &f.pool), XLAT_OK);
    uint64_t id = 0;
    /* Epoch 1: A's first three walks take the three idle walkers; queued A
     * 97, B 80, C 20: the reference is A (100 arrivals). */
    send_many(0, &id, 100);
    send_many(1, &id, 80);
    send_many(2, &id, 20);
    ck_assert(xlat_walker_diff_thres(f.pool, 0) == 0.4);      /* itself: R = 1 */
    ck_assert(xlat_walker_diff_thres(f.pool, 1) == 0.4);      /* 100 / 80 */
    ck_assert(xlat_walker_diff_thres(f.pool, 2) == NO_STEAL); /* 100 / 20 */
    /* Epoch 2: queued A 137, B 140, C 120: the reference is B (60
     * arrivals), though C had the most arrivals (100). */
    send_many(1, &id, 60);
    send_many(0, &id, 40);
    send_many(2, &id, 100);
    ck_assert(xlat_walker_diff_thres(f.pool, 0) == 0.4); /* 60 / 40 = 1.5 */
    ck_assert(xlat_walker_diff_thres(f.pool, 1) == 0.4); /* itself */
    ck_assert(xlat_walker_diff_thres(f.pool, 2) == 0.6); /* 100 / 60 */
}
END_TEST

/* ---- DWS with more than two tenants --------------------------------------- */

/* A, B, C own one walker each; C's walker steals from the tenant with the
 * most queued walks, the lowest id on a tie. */
START_TEST(dws_victim_most_queued)
{
    bool tie = _i;
    pool(XLAT_SCHED_DWS, 3, 12, 3);
    arrival a[] = {{0, 1, 0},  {0, B1, 1},     {0, 201, 2},    {0, 2, 0},
                   {0, 3, 0},  {0, B1 + 1, 1}, {0, B1 + 2, 1}, {0, B1 + 3, 1}};
    play(a, tie ? 7 : 8, 100);
    const xlat_walk_event *ev = started(tie ? 3 : B1 + 2);
    ck_assert(ev && ev->cycle == 100 && ev->walker == 2 && ev->stolen);
}
END_TEST

/* ---- refusals and create errors ------------------------------------------ */

/* A tenant whose queues are full is refused; the other is not. */
START_TEST(full_tenant_refused)
{
    static const xlat_walk_sched s[] = {XLAT_SCHED_PARTITION, XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};
    pool(s[_i], 4, 8, 2);
    ck_assert_int_eq(send(B1, 1), XLAT_OK);
    ck_assert_int_eq(send(B1 + 1, 1), XLAT_OK);
    for (uint64_t id = 1; id <= 6; id++) /* two start, four fill q0, q1 */
        ck_assert_int_eq(send(id, 0), XLAT_OK);
    ck_assert_int_eq(send(7, 0), XLAT_ERR_AGAIN);
    ck_assert_int_eq(send(B1 + 2, 1), XLAT_OK);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.requests, 9);
    ck_assert_uint_eq(tenant_stats(0).queued, 4);
    ck_assert_uint_eq(xlat_walker_buffered(f.pool), 5);
    wf_run_until(&f, 10 * WALK);
    ck_assert_int_eq(f.ndone, 9);
}
END_TEST

static int try_create(xlat_walk_sched s, uint32_t walkers, uint32_t queue, uint32_t tenants,
                      void (*tweak)(xlat_dwspp_config *))
{
    xlat_walker_config c;
    xlat_walker *p = NULL;
    config(&c, s, walkers, queue, tenants);
    c.pt = f.pt;
    xlat_dwspp_config d;
    xlat_dwspp_preset(&d, XLAT_DWSPP_DEFAULT);
    if (tweak)
        tweak(&d);
    c.dwspp = &d;
    int rc = xlat_walker_create(f.ctx, &c, &p);
    if (rc != XLAT_OK)
        ck_assert(p == NULL && xlat_ctx_errmsg(f.ctx)[0]);
    xlat_walker_destroy(p);
    return rc;
}

static void epoch0(xlat_dwspp_config *d) { d->epoch_length = 0; }
static void ratios_down(xlat_dwspp_config *d) { d->ratio[2] = 1.9; }
static void ratio_below_one(xlat_dwspp_config *d) { d->ratio[0] = 0.5; }
static void diff_negative(xlat_dwspp_config *d) { d->diff_thres[1] = -0.1; }
static void diff_nan(xlat_dwspp_config *d) { d->diff_thres[4] = NAN; }
static void queue_thres_big(xlat_dwspp_config *d) { d->queue_thres = 1.5; }
static void flat_ladder(xlat_dwspp_config *d) { xlat_dwspp_preset(d, XLAT_DWSPP_AGGRESSIVE); }

START_TEST(create_errors)
{
    static const xlat_walk_sched s[] = {XLAT_SCHED_PARTITION, XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};
    table();
    xlat_walk_sched k = s[_i];
    ck_assert_int_eq(try_create(k, 6, 24, 4, NULL), XLAT_ERR_INVAL); /* 6 % 4 */
    ck_assert_int_eq(try_create(k, 2, 8, 4, NULL), XLAT_ERR_INVAL);  /* more tenants */
    ck_assert_int_eq(try_create(k, 4, 3, 2, NULL), XLAT_ERR_INVAL);  /* queue < walkers */
    ck_assert_int_eq(try_create(k, 4, 16, 0, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(try_create(k, 65, 65, 65, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(try_create(k, 64, 64, 64, NULL), XLAT_OK);
    ck_assert_int_eq(try_create(k, 4, 4, 2, NULL), XLAT_OK); /* one slot a walker */
    ck_assert_int_eq(try_create(k, 4, 7, 4, NULL), XLAT_OK); /* 7 / 4: one slot each */
    void (*bad[])(xlat_dwspp_config *) = {epoch0,       ratios_down, ratio_below_one,
                                          diff_negative, diff_nan,    queue_thres_big};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_int_eq(try_create(k, 4, 16, 2, bad[i]),
                         k == XLAT_SCHED_DWSPP ? XLAT_ERR_INVAL : XLAT_OK);
    ck_assert_int_eq(try_create(k, 4, 16, 2, flat_ladder), XLAT_OK);
}
END_TEST

Suite *walk_sched_suite(void)
{
    Suite *s = suite_create("walk_sched");
    TCase *tc = test_case(s, "d3");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, d3_fcfs);
    tcase_add_loop_test(tc, d3_dws_and_dwspp, 0, 2);
    tcase_add_test(tc, d3_partition);
    tcase_add_test(tc, interleaved_assignment);
    tcase_add_test(tc, same_cycle_completions_in_walker_order);
    tc = test_case(s, "dws");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, d2_least_loaded);
    tcase_add_loop_test(tc, dws_victim_most_queued, 0, 2);
    tcase_add_test(tc, dws_no_steal_with_owner_pending);
    tc = test_case(s, "dwspp");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, d4_ladder);
    tcase_add_test(tc, d5_steal_decisions);
    tcase_add_test(tc, d5_rows_9_10);
    tcase_add_test(tc, dwspp_steals_with_owner_pending);
    tcase_add_loop_test(tc, dwspp_epoch_switches, 0, 2);
    tcase_add_test(tc, dwspp_refusals_do_not_count);
    tcase_add_test(tc, dwspp_epoch_many_tenants);
    tc = test_case(s, "errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, full_tenant_refused, 0, 3);
    tcase_add_loop_test(tc, create_errors, 0, 3);
    return s;
}
