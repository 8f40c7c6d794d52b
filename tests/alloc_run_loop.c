/* The allocation-failure loop over scenarios (tests/alloc_run.h). */
#include "alloc_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

void ar_mark(ar_run *r)
{
    xlat_fixed *none = NULL;
    AR_CHECK(xlat_fixed_create(r->ctx, NULL, &none) == XLAT_ERR_INVAL, "the mark");
    snprintf(r->mark, sizeof(r->mark), "%s", xlat_ctx_errmsg(r->ctx));
}

bool ar_ok(ar_run *r, int rc, const char *what)
{
    if (rc == XLAT_OK)
        return true;
    const char *msg = xlat_ctx_errmsg(r->ctx);
    AR_CHECK(rc == XLAT_ERR_NOMEM, "%s, k=%ld%s: %s: %s (%s)", r->name, r->k,
             r->only ? " only" : " on", what, xlat_strerror(rc), msg);
    AR_CHECK(r->ca.failed > 0, "%s, k=%ld: %s: NOMEM with memory to spare", r->name, r->k,
             what);
    AR_CHECK(msg && msg[0] != '\0' && strcmp(msg, r->mark) != 0,
             "%s, k=%ld: %s: NOMEM without a message of its own (\"%s\")", r->name, r->k, what,
             msg ? msg : "");
    return false;
}

static void ar_done(void *user, const xlat_resp *resp)
{
    ar_run *r = user;
    AR_CHECK(!r->in_call, "%s, k=%ld: request %llu answered inside translate", r->name,
             r->k, (unsigned long long)resp->id);
    AR_ASSERT(resp->id < r->sent);
    AR_CHECK(r->accepted[resp->id], "%s, k=%ld: refused request %llu answered", r->name,
             r->k, (unsigned long long)resp->id);
    r->answers[resp->id]++;
    r->answered++;
    if (r->pfn[resp->id] == AR_FAULT) {
        AR_CHECK(resp->status != XLAT_OK, "%s, k=%ld: request %llu for an unmapped page "
                 "answered frame 0x%llx", r->name, r->k, (unsigned long long)resp->id,
                 (unsigned long long)resp->pfn);
        return;
    }
    AR_CHECK(resp->status == XLAT_OK && resp->pfn == r->pfn[resp->id],
             "%s, k=%ld: request %llu: status %d, frame 0x%llx instead of 0x%llx", r->name,
             r->k, (unsigned long long)resp->id, resp->status,
             (unsigned long long)resp->pfn, (unsigned long long)r->pfn[resp->id]);
}

int ar_send(ar_run *r, ar_translate_fn fn, void *unit, xlat_req *req, uint64_t pfn)
{
    AR_ASSERT(r->sent < AR_MAX);
    req->id = r->sent++;
    r->pfn[req->id] = pfn;
    r->in_call = true;
    int rc = fn(unit, req, ar_done, r);
    r->in_call = false;
    AR_CHECK(rc == XLAT_OK || rc == XLAT_ERR_AGAIN, "%s, k=%ld: translate: %s (%s)",
             r->name, r->k, xlat_strerror(rc), xlat_ctx_errmsg(r->ctx));
    if (rc == XLAT_ERR_AGAIN)
        r->sent--; /* nothing was taken: the id is the next request's */
    r->accepted[req->id] = rc == XLAT_OK;
    r->taken += rc == XLAT_OK;
    return rc;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_target_translate(unit, req, done, user);
}

int ar_send_target(ar_run *r, const xlat_target *t, xlat_req *req, uint64_t pfn)
{
    return ar_send(r, target_translate, (void *)t, req, pfn);
}

void ar_send_taken(ar_run *r, ar_translate_fn fn, void *unit, xlat_req *req, uint64_t pfn)
{
    for (int tries = 0; ar_send(r, fn, unit, req, pfn) == XLAT_ERR_AGAIN; tries++) {
        AR_CHECK(tries < 100000, "%s, k=%ld: never taken", r->name, r->k);
        AR_OK(xlat_tick(r->ctx));
    }
}

void ar_run_begin(ar_run *r)
{
    r->running = true;
    r->attempts = r->ca.allocs + r->ca.failed;
}

void ar_run_end(ar_run *r)
{
    AR_CHECK(r->ca.allocs + r->ca.failed == r->attempts,
             "%s, k=%ld: %zu allocations while requests ran", r->name, r->k,
             r->ca.allocs + r->ca.failed - r->attempts);
    r->running = false;
}

void ar_drain(ar_run *r)
{
    for (long i = 0; xlat_next_event(r->ctx) != XLAT_NEVER; i++) {
        AR_CHECK(i < 10000000, "%s, k=%ld: the clock never goes idle", r->name, r->k);
        uint64_t next = xlat_next_event(r->ctx), now = xlat_now(r->ctx);
        AR_OK(xlat_advance(r->ctx, next > now ? next - now : 1));
    }
}

/* Every request the units took answered exactly once, no other. */
static void ar_check_answers(const ar_run *r)
{
    for (uint64_t id = 0; id < r->sent; id++)
        AR_CHECK(r->answers[id] == r->accepted[id],
                 "%s, k=%ld%s: request %llu %s, answered %d times", r->name, r->k,
                 r->only ? " only" : " on", (unsigned long long)id,
                 r->accepted[id] ? "accepted" : "refused", r->answers[id]);
}

/* One run; returns the allocations the allocator refused. */
static size_t ar_once(ar_run *r, ar_scenario_fn fn)
{
    const char *name = r->name;
    long k = r->k;
    bool only = r->only;
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->k = k;
    r->only = only;
    counting_alloc_init(&r->ca);
    r->ctx = test_ctx(11, &r->ca);
    r->ca.fail_after = k - 1;
    r->ca.fail_once = only;
    fn(r);
    AR_CHECK(!r->running, "%s: the scenario left its run phase open", name);
    size_t failed = r->ca.failed;
    r->ca.fail_after = -1;
    xlat_ctx_destroy(r->ctx);
    AR_CHECK(r->ca.live_bytes == 0 && r->ca.allocs == r->ca.frees,
             "%s, k=%ld%s: leaked %zu bytes (%zu allocations, %zu frees)", name, k,
             only ? " only" : " on", r->ca.live_bytes, r->ca.allocs, r->ca.frees);
    ar_check_answers(r);
    return failed;
}

static long *totals; /* [points, scenarios], shared with the forked tests */

static long ar_mode(ar_run *r, ar_scenario_fn fn, bool only)
{
    long points = 0;
    r->only = only;
    for (r->k = 1;; r->k++) {
        AR_CHECK(r->k < 100000, "%s: the scenario never ends", r->name);
        if (ar_once(r, fn) == 0)
            return points;
        points++;
    }
}

long ar_loop(const char *name, ar_scenario_fn fn)
{
    ar_run *r = calloc(1, sizeof(*r));
    AR_ASSERT(r != NULL);
    r->name = name;
    long only = ar_mode(r, fn, true);
    long from = ar_mode(r, fn, false);
    free(r);
    AR_CHECK(only > 2 && only == from, "%s: %ld and %ld failure points", name, only, from);
    printf("alloc_run: %s: %ld failure points (%ld k-th only, %ld from k-th on)\n", name,
           only + from, only, from);
    fflush(stdout);
    if (totals) {
        __atomic_add_fetch(&totals[0], only + from, __ATOMIC_RELAXED);
        __atomic_add_fetch(&totals[1], 1, __ATOMIC_RELAXED);
    }
    return only + from;
}

void ar_totals_begin(void)
{
    void *p = mmap(NULL, 2 * sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    totals = p == MAP_FAILED ? NULL : p;
    if (totals)
        totals[0] = totals[1] = 0;
}

void ar_totals_end(void)
{
    if (!totals)
        return;
    printf("alloc_run: %ld failure points over %ld scenarios\n", totals[0], totals[1]);
    fflush(stdout);
    munmap(totals, 2 * sizeof(long));
    totals = NULL;
}
