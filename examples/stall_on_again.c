/*
 * A host loop that stalls a compute unit on back-pressure instead of
 * polling. Four CUs share an L1 TLB with two MSHRs over a 50-cycle fixed
 * responder; each CU sends one request a cycle, every one a miss. When
 * xlat_tlb_translate() refuses with XLAT_ERR_AGAIN (nothing was taken), the
 * CU stalls and registers with the TLB's wake-up through its target's
 * `wait` hook (xlat_tlb_get_target(), xlat_target::wait); the wake-up makes
 * it ready again, and it retries once. The loop never ticks cycle by cycle:
 * it advances to the earlier of the library's next event
 * (xlat_next_event()) and the next cycle a CU is ready to send. Copy this
 * for the issue loop of a host with many senders.
 *
 *   cc stall_on_again.c $(pkg-config --cflags --libs libxlat) -o stall_on_again
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define CUS 4
#define PER_CU 8 /* requests each CU sends */
#define BASE 0x7f0000000000ull

typedef struct cu {
    xlat_ctx *ctx;
    unsigned id;
    unsigned sent;     /* requests accepted by the L1 */
    uint64_t ready_at; /* next cycle it may send; XLAT_NEVER while stalled */
    bool woken;        /* its next send is a retry after a wake-up */
    unsigned refusals, wakeups, retries;
} cu;

static unsigned answers[CUS * PER_CU]; /* answers per request id: must end at 1 each */

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    answers[r->id]++;
}

/* The TLB's wake-up: called from inside xlat_advance() once it may accept
 * again. Only state changes here; the CU sends from the host loop. */
static void on_wake(void *user)
{
    cu *c = user;
    c->wakeups++;
    c->woken = true;
    c->ready_at = xlat_now(c->ctx);
}

/* The CU's next request: accepted, or stalled until the L1 wakes it. */
static int cu_send(cu *c, xlat_tlb *l1, const xlat_target *t)
{
    xlat_req req = {.id = c->id * PER_CU + c->sent,
                    .vaddr = BASE + (uint64_t)(c->id * PER_CU + c->sent) * 4096,
                    .pasid = 1, .access = XLAT_ACCESS_READ, .cu = (uint16_t)c->id};
    if (c->woken)
        c->retries++;
    c->woken = false;
    int rc = xlat_tlb_translate(l1, &req, on_done, NULL);
    if (rc == XLAT_OK) {
        c->sent++;
        c->ready_at = c->sent < PER_CU ? xlat_now(c->ctx) + 1 : XLAT_NEVER;
        return XLAT_OK;
    }
    if (rc != XLAT_ERR_AGAIN)
        return rc;
    c->refusals++;
    c->ready_at = XLAT_NEVER; /* stalled: no polling */
    return t->wait(t->unit, on_wake, c);
}

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

int main(void)
{
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return EXIT_FAILURE;

    /* A small L1: two misses outstanding at most, one lookup a cycle. */
    xlat_tlb_config tc;
    xlat_tlb *l1;
    xlat_tlb_config_init(&tc);
    tc.name = "l1";
    tc.entries = 64;
    tc.ways = 64;
    tc.latency = 1;
    tc.mshrs = 2;
    tc.ports = 1;
    if (xlat_tlb_create(ctx, &tc, &l1) != XLAT_OK)
        return fail(ctx, "l1");
    xlat_fixed_config fc;
    xlat_fixed *below;
    xlat_fixed_config_init(&fc);
    fc.name = "walker";
    fc.latency = 50;
    if (xlat_fixed_create(ctx, &fc, &below) != XLAT_OK)
        return fail(ctx, "fixed");

    /* The L1's target carries the wait hook the CUs register with. */
    xlat_target to_below = XLAT_TARGET_INIT, to_l1 = XLAT_TARGET_INIT;
    if (xlat_fixed_get_target(below, &to_below) != XLAT_OK ||
        xlat_tlb_set_next(l1, &to_below) != XLAT_OK || xlat_tlb_get_target(l1, &to_l1) != XLAT_OK)
        return fail(ctx, "wiring");
    if (!to_l1.wait) {
        fprintf(stderr, "the L1's target has no wait hook\n");
        return EXIT_FAILURE;
    }

    cu cus[CUS];
    for (unsigned i = 0; i < CUS; i++)
        cus[i] = (cu){.ctx = ctx, .id = i, .ready_at = 0};

    /* The host loop: send for every ready CU, then jump to the next
     * cycle where something happens. */
    for (;;) {
        uint64_t next = xlat_next_event(ctx);
        for (unsigned i = 0; i < CUS; i++) {
            if (cus[i].ready_at <= xlat_now(ctx) && cu_send(&cus[i], l1, &to_l1) != XLAT_OK)
                return fail(ctx, "send");
            if (cus[i].ready_at < next)
                next = cus[i].ready_at;
        }
        if (xlat_next_event(ctx) < next) /* a send may have posted an event */
            next = xlat_next_event(ctx);
        if (next == XLAT_NEVER)
            break;
        if (xlat_advance(ctx, next - xlat_now(ctx)) != XLAT_OK)
            return fail(ctx, "advance");
    }

    /* Every request answered exactly once; every retry follows a wake-up
     * and every refusal got one (no CU polled). */
    int ok = 1;
    unsigned refusals = 0, wakeups = 0, retries = 0;
    for (unsigned i = 0; i < CUS; i++) {
        cu *c = &cus[i];
        printf("cu %u: %u requests, %u refused, %u wake-ups, %u retries\n", c->id, c->sent,
               c->refusals, c->wakeups, c->retries);
        ok = ok && c->sent == PER_CU && c->retries == c->wakeups && c->wakeups == c->refusals;
        refusals += c->refusals;
        wakeups += c->wakeups;
        retries += c->retries;
    }
    for (unsigned id = 0; id < CUS * PER_CU; id++)
        ok = ok && answers[id] == 1;
    ok = ok && refusals > 0; /* the MSHRs did push back */
    printf("%s: %d requests answered once each by cycle %llu; %u refusals, %u wake-ups, %u retries\n",
           ok ? "ok" : "MISMATCH", CUS * PER_CU, (unsigned long long)xlat_now(ctx), refusals,
           wakeups, retries);

    xlat_tlb_destroy(l1);
    xlat_fixed_destroy(below);
    xlat_ctx_destroy(ctx);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
