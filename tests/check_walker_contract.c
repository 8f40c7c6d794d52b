/* The walker pool keeps the completion rule (doc/walks.md): it never
 * answers from inside xlat_walker_translate(), it sets its own state before
 * it calls out, and the host may call back into it (mem_done, fault_resume)
 * from inside any of its call-outs. */
#include "walk_fixture.h"

static walk_fixture f;
static const uint64_t no_pfns[1] = {0};

/* The sender: counts answers delivered while it is inside translate. */
static int in_translate, answers_inside;
static xlat_resp answer[16];
static int nanswers;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    answers_inside += in_translate;
    ck_assert_int_lt(nanswers, 16);
    answer[nanswers++] = *r;
}

static int send(uint64_t id, uint32_t pasid, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = pasid, .access = XLAT_ACCESS_READ};
    in_translate = 1;
    int rc = xlat_walker_translate(f.pool, &req, on_done, NULL);
    in_translate = 0;
    return rc;
}

/* The host: a zero-latency memory that answers inside mem_read, and a
 * fault handler whose answer is chosen per test. */
static int mem_done_rc[16], nreads;
static int fault_status, faults;
static bool fault_maps;
static uint64_t held_fault;
static bool resume_held_in_read;

static int zero_latency_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    (void)user;
    (void)paddr;
    (void)bytes;
    if (resume_held_in_read) { /* a fault held since earlier, resumed from here */
        resume_held_in_read = false;
        ck_assert_int_eq(xlat_walker_fault_resume(f.pool, held_fault, XLAT_ERR_FAULT), XLAT_OK);
    }
    ck_assert_int_lt(nreads, 16);
    mem_done_rc[nreads++] = xlat_walker_mem_done(f.pool, token);
    ck_assert_int_eq(xlat_walker_mem_done(f.pool, token), XLAT_ERR_NOT_FOUND);
    return XLAT_OK;
}

static void on_fault(void *user, xlat_walker *p, const xlat_walk_fault *flt)
{
    (void)user;
    faults++;
    if (fault_maps)
        ck_assert_int_eq(xlat_pagetable_map(f.pt, flt->pasid, flt->vaddr & ~0xFFFull, 0x905, 12,
                                            XLAT_PERM_R), XLAT_OK);
    if (fault_status == 1) { /* hold it */
        held_fault = flt->token;
        return;
    }
    ck_assert_int_eq(xlat_walker_fault_resume(p, flt->token, fault_status), XLAT_OK);
}

static void pool(uint32_t walkers, uint32_t latency, xlat_mem_read_fn mem_read,
                 xlat_walk_fault_fn fault_fn)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.walkers = walkers;
    c.queue_entries = 8;
    c.mem_latency = latency;
    c.mem_read = mem_read;
    c.fault_fn = fault_fn;
    wf_pool(&f, &c);
}

static void setup(void)
{
    wf_memory(&f, no_pfns, 0);
    wf_table(&f);
    in_translate = answers_inside = nanswers = nreads = faults = 0;
    fault_status = XLAT_OK;
    fault_maps = resume_held_in_read = false;
}

static void teardown(void) { wf_destroy(&f); }

/* Regression: mem_done from inside mem_read found no outstanding read
 * (XLAT_ERR_NOT_FOUND) and the walk hung. */
START_TEST(zero_latency_memory_answers_inside_mem_read)
{
    pool(1, 10, zero_latency_read, NULL);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x40000000, 0x777, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(send(1, 1, 0x40000000), XLAT_OK);
    ck_assert_int_eq(nanswers, 0); /* not inside translate */
    wf_run_until(&f, 1);
    ck_assert_int_eq(nreads, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(mem_done_rc[i], XLAT_OK);
    ck_assert_int_eq(nanswers, 1);
    ck_assert_int_eq(answer[0].status, XLAT_OK);
    ck_assert_uint_eq(answer[0].pfn, 0x777);
    ck_assert_uint_eq(answer[0].completed, 0); /* four zero-latency reads */
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 0);
    ck_assert_int_eq(answers_inside, 0);
}
END_TEST

/* Regression: a PASID without a page table was answered (or its fault
 * raised and resumed) inside translate. */
START_TEST(no_table_is_answered_from_tick)
{
    pool(2, 10, NULL, NULL); /* no fault handler: XLAT_ERR_FAULT */
    ck_assert_int_eq(send(1, 5, 0x1000), XLAT_OK);
    ck_assert_int_eq(nanswers, 0);
    wf_run_until(&f, 1);
    ck_assert_int_eq(nanswers, 1);
    ck_assert_int_eq(answer[0].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(answer[0].completed, 0);
    xlat_walker_destroy(f.pool);
    f.pool = NULL;
    pool(2, 10, NULL, on_fault); /* a handler that refuses at once */
    fault_status = XLAT_ERR_PERM;
    ck_assert_int_eq(send(2, 5, 0x1000), XLAT_OK);
    ck_assert_int_eq(faults, 0); /* not raised inside translate either */
    ck_assert_int_eq(nanswers, 1);
    wf_run_until(&f, 2);
    ck_assert_int_eq(faults, 1);
    ck_assert_int_eq(nanswers, 2);
    ck_assert_int_eq(answer[1].status, XLAT_ERR_PERM);
    ck_assert_uint_eq(answer[1].completed, 1);
    ck_assert_int_eq(answers_inside, 0);
}
END_TEST

/* Regression: a held fault resumed by the host from inside the mem_read of
 * another request's translate was answered inside that translate. */
START_TEST(resume_inside_translate_is_deferred)
{
    pool(2, 10, zero_latency_read, on_fault);
    fault_status = 1; /* hold */
    ck_assert_int_eq(send(1, 5, 0x1000), XLAT_OK); /* no table: faults */
    wf_run_until(&f, 1);
    ck_assert_int_eq(faults, 1);
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x2000, 0x900, 12, XLAT_PERM_R), XLAT_OK);
    resume_held_in_read = true;
    ck_assert_int_eq(send(2, 1, 0x2000), XLAT_OK);
    ck_assert_int_eq(resume_held_in_read, false);
    ck_assert_int_eq(nanswers, 0);
    wf_run_until(&f, 2);
    ck_assert_int_eq(nanswers, 2);
    ck_assert_uint_eq(answer[0].id, 1); /* the resumption was scheduled first */
    ck_assert_int_eq(answer[0].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(answer[0].completed, 1);
    ck_assert_uint_eq(answer[1].id, 2);
    ck_assert_uint_eq(answer[1].pfn, 0x900);
    ck_assert_uint_eq(answer[1].completed, 1);
    ck_assert_int_eq(answers_inside, 0);
}
END_TEST

/* Regression: resuming with XLAT_OK at once, without creating the table,
 * recursed (begin -> fault -> resume -> begin) until the stack overflowed.
 * The walk now ends with XLAT_ERR_FAULT after one fault. */
START_TEST(resume_ok_at_once_without_table_ends_with_fault)
{
    pool(1, 10, NULL, on_fault);
    fault_status = XLAT_OK;
    ck_assert_int_eq(send(1, 5, 0x1000), XLAT_OK);
    wf_run_until(&f, 1);
    ck_assert_int_eq(faults, 1);
    ck_assert_int_eq(nanswers, 1);
    ck_assert_int_eq(answer[0].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(answer[0].completed, 0);
    ck_assert_uint_eq(xlat_walker_busy(f.pool), 0);
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.faults, 1);
    ck_assert_uint_eq(st.reads, 0);
    ck_assert_int_eq(answers_inside, 0);
}
END_TEST

/* A handler that creates the table and resumes at once: the walk goes on
 * from the new root (four reads), also with a zero-latency memory. */
START_TEST(resume_ok_at_once_after_mapping_walks)
{
    pool(1, 10, NULL, on_fault);
    fault_maps = true;
    ck_assert_int_eq(send(1, 5, 0x3000), XLAT_OK);
    wf_run_until(&f, 100);
    ck_assert_int_eq(faults, 1);
    ck_assert_int_eq(nanswers, 1);
    ck_assert_int_eq(answer[0].status, XLAT_OK);
    ck_assert_uint_eq(answer[0].pfn, 0x905);
    ck_assert_uint_eq(answer[0].completed, 40);
    xlat_walker_destroy(f.pool);
    f.pool = NULL;
    pool(1, 10, zero_latency_read, on_fault); /* the same in zero time */
    ck_assert_int_eq(send(2, 6, 0x3000), XLAT_OK);
    wf_run_until(&f, 101);
    ck_assert_int_eq(faults, 2);
    ck_assert_int_eq(nreads, 4);
    ck_assert_int_eq(nanswers, 2);
    ck_assert_uint_eq(answer[1].pfn, 0x905);
    ck_assert_uint_eq(answer[1].completed, 100);
    ck_assert_int_eq(answers_inside, 0);
}
END_TEST

Suite *walker_contract_suite(void)
{
    Suite *s = suite_create("walker_contract");
    TCase *tc = test_case(s, "completion rule");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, zero_latency_memory_answers_inside_mem_read);
    tcase_add_test(tc, no_table_is_answered_from_tick);
    tcase_add_test(tc, resume_inside_translate_is_deferred);
    tcase_add_test(tc, resume_ok_at_once_without_table_ends_with_fault);
    tcase_add_test(tc, resume_ok_at_once_after_mapping_walks);
    return s;
}
