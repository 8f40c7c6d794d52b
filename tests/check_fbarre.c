/*
 * F-Barre's intra-package translation ("Barre Chord: Efficient Virtual
 * Memory Translation for Multi-Chip-Module GPUs" §V-A): the Figure 12
 * walkthrough step by step and its negative variants, Example 5's flow,
 * the filter-update message, false positives and their NACK, message loss
 * and the oracle, and a randomized check that every frame handed out is
 * the page table's. Cycles are exact: L2 lookup 10, links 32 each way, PEC
 * step 1, ATS path 100 (the fixture's host).
 */
#include "fbarre_fixture.h"

#define ATS 100

/* Fig 12: pages 0xA1 (GPU0) and 0xA2 (GPU1) form a group on local frame
 * 0x200: 0xA1 -> 0xA200, 0xA2 -> 0xB200. */
static const xlat_pec_entry data2 = {.pasid = FX_PASID, .start_vpn = 0xA1, .end_vpn = 0xA2,
                                     .interlv_gran = 1, .gpu_map = {0, 1}, .positions = 2};
static const uint64_t data2_local[] = {0x200};

/* Fig 7a's data 1: 12 pages, 3 per chiplet, groups on 0x75, 0x88, 0x114. */
static const xlat_pec_entry data1 = {.pasid = FX_PASID, .start_vpn = 0x1, .end_vpn = 0xC,
                                     .interlv_gran = 3, .gpu_map = {0, 1, 2, 3}, .positions = 4};
static const uint64_t data1_local[] = {0x75, 0x88, 0x114};

static bool has(const fx *f, uint32_t g, uint32_t filter, uint64_t vpn)
{
    return xlat_fbarre_filter_contains(f->fb[g], filter, FX_PASID, vpn);
}

static size_t count(const fx *f, uint32_t g, uint32_t filter)
{
    return xlat_fbarre_filter_count(f->fb[g], filter);
}

static void expect_answer(const fx *f, uint64_t id, uint64_t pfn, uint64_t at)
{
    ck_assert_int_eq(f->ans[id].got, 1);
    ck_assert_int_eq(f->ans[id].status, XLAT_OK);
    ck_assert_uint_eq(f->ans[id].pfn, pfn);
    ck_assert_uint_eq(f->ans[id].at, at);
}

static uint32_t unit_of(const fx *f, uint32_t g) { return xlat_unit_id(f->ctx, f->fb[g]); }

/* Steps 0-2: GPU0's ATS answer for 0xA1 (sent at 0, forwarded by the L2 at
 * 10, answered at 110) fills its L2 and LCF; the two add messages leave at
 * 110 and 111 and reach GPU1's RCF0 at 142 and 143. */
static void steps_0_to_2(fx *f)
{
    fx_map_object(f, &data2, data2_local);
    fx_send(f, 0, 1, 0xA1);
    fx_run_to(f, 109);
    ck_assert_int_eq(f->ans[1].got, 0);
    fx_run_to(f, 110); /* step 0: ATS return (0xA1, 0xA200, group info, PEC entry) */
    expect_answer(f, 1, 0xA200, 110);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_tlb_probe(f->l2[0], FX_PASID, 0xA1000, &e), XLAT_OK);
    xlat_coal_info ci;
    xlat_coal_decode((uint64_t)e.meta.coal_info << 52, false, &ci);
    ck_assert_uint_eq(ci.bitmap, 0xC0); /* the L2 entry keeps the group information */
    ck_assert_uint_eq(ci.inter, 0);
    ck_assert_int_eq(xlat_fbarre_pec_lookup(f->fb[0], FX_PASID, 0xA2, NULL), XLAT_OK);
    ck_assert(has(f, 0, 0, 0xA1)); /* step 1: update LCF */
    ck_assert_uint_eq(count(f, 0, 0), 1);
    ck_assert_uint_eq(count(f, 1, 0), 0);
    fx_run_to(f, 142); /* step 2: update RCF0 with 0xA1 and its group's 0xA2 */
    ck_assert(has(f, 1, 0, 0xA1));
    ck_assert_uint_eq(count(f, 1, 0), 1);
    fx_run_to(f, 143);
    ck_assert(has(f, 1, 0, 0xA2));
    ck_assert_uint_eq(count(f, 1, 0), 2);
    ck_assert_uint_eq(fx_stats(f, 0).msgs_sent, 2);
    ck_assert_uint_eq(fx_stats(f, 1).msgs_received, 2);
}

/* GPU0's one-entry L2 takes another page at 150: 0xA1 is evicted. */
static void evict_a1(fx *f)
{
    fx_run_to(f, 150);
    xlat_tlb_entry other = {.pasid = FX_PASID, .vpn = 0x500, .pfn = 0x9999, .page_shift = 12,
                            .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_tlb_insert(f->l2[0], &other, NULL), 1);
}

/* GPU1's miss on 0xA2 at 200 finds no filter: ATS at 210, answer at 310. */
static void gpu1_miss_goes_to_ats(fx *f)
{
    fx_run_to(f, 200);
    fx_send(f, 1, 2, 0xA2);
    fx_run_to(f, 310);
    expect_answer(f, 2, 0xB200, 310);
    ck_assert_uint_eq(f->ats_requests, 2);
    ck_assert_uint_eq(fx_stats(f, 0).peer_requests, 0);
}

START_TEST(fig12_walkthrough)
{
    fx f;
    fx_init(&f, 2, NULL, 512, ATS);
    steps_0_to_2(&f);
    fx_run_to(&f, 200);
    /* Step 3: GPU1 misses 0xA2 at 200 (its L2 forwards at 210); TLB and LCF
     * miss, RCF0 hits: the request reaches GPU0 at 242. */
    fx_send(&f, 1, 2, 0xA2);
    fx_run_to(&f, 241);
    ck_assert_uint_eq(fx_stats(&f, 0).peer_requests, 0);
    fx_run_to(&f, 242);
    ck_assert_uint_eq(fx_stats(&f, 0).peer_requests, 1);
    /* Steps 4-7: PEC(0xA2) at 243 gives the candidate 0xA1, the LCF hits,
     * one TLB visit (10), the frame (1): answered at 254, back at 286. */
    fx_run_to(&f, 243);
    ck_assert_uint_eq(fx_stats(&f, 0).peer_answers, 1);
    fx_run_to(&f, 285);
    ck_assert_int_eq(f.ans[2].got, 0);
    fx_run_to(&f, 286); /* step 8: remote hit, 86 cycles after the miss */
    expect_answer(&f, 2, 0xB200, 286);
    ck_assert_uint_eq(f.ans[2].resolver, unit_of(&f, 0));
    /* Post-conditions. */
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_tlb_probe(f.l2[1], FX_PASID, 0xA2000, &e), XLAT_OK);
    ck_assert_uint_eq(e.pfn, 0xB200);
    xlat_coal_info ci;
    xlat_coal_decode((uint64_t)e.meta.coal_info << 52, false, &ci);
    ck_assert_uint_eq(ci.bitmap, 0xC0);
    ck_assert_uint_eq(ci.inter, 1);
    ck_assert(has(&f, 1, 1, 0xA2)); /* GPU1's LCF = {0xA2} */
    ck_assert_uint_eq(count(&f, 1, 1), 1);
    ck_assert_int_eq(xlat_fbarre_pec_lookup(f.fb[1], FX_PASID, 0xA2, NULL), XLAT_OK);
    fx_run_to(&f, 319); /* GPU0's RCF1 = {0xA2, 0xA1} */
    ck_assert(has(&f, 0, 1, 0xA2) && has(&f, 0, 1, 0xA1));
    ck_assert_uint_eq(count(&f, 0, 1), 2);
    xlat_tlb_stats l2;
    xlat_tlb_stats_get(f.l2[0], &l2, sizeof(l2));
    ck_assert_uint_eq(l2.accesses, 1); /* GPU0's L2 served no lookup for the peer */
    ck_assert_uint_eq(xlat_tlb_count(f.l2[0]), 1);
    ck_assert_uint_eq(f.ats_requests, 1); /* 0xA1 only */
    ck_assert_uint_eq(fx_stats(&f, 1).peer_hits, 1);
    ck_assert_uint_eq(fx_stats(&f, 1).ats_requests, 0);
    ck_assert_uint_eq(fx_stats(&f, 0).ats_requests, 1);
    ck_assert_int_eq(f.breaches, 0);
    fx_fini(&f);
}
END_TEST

/* Variant (a): 0xA1 leaves GPU0's L2 (a one-entry L2 takes another page):
 * the LCF forgets it and delete messages (150, 151) empty GPU1's RCF0 by
 * 183; GPU1's miss on 0xA2 then takes the ATS path. */
START_TEST(fig12_delete)
{
    fx f;
    fx_init(&f, 2, NULL, 1, ATS);
    steps_0_to_2(&f);
    evict_a1(&f);
    ck_assert_uint_eq(count(&f, 0, 0), 0);
    fx_run_to(&f, 182);
    ck_assert_uint_eq(count(&f, 1, 0), 1);
    fx_run_to(&f, 183);
    ck_assert_uint_eq(count(&f, 1, 0), 0);
    gpu1_miss_goes_to_ats(&f);
    fx_fini(&f);
}
END_TEST

/* Variant (b): the delete messages of (a) are lost. RCF0 still hits, GPU0
 * finds no candidate in its LCF and NACKs at 243; GPU1 gets the NACK at
 * 275 and sends the ATS then (serial fallback): answered at 375. */
START_TEST(fig12_lost_update)
{
    fx f;
    fx_init(&f, 2, NULL, 1, ATS);
    steps_0_to_2(&f);
    f.port[0][1].lose = 1;
    evict_a1(&f);
    fx_run_to(&f, 200);
    ck_assert_uint_eq(count(&f, 1, 0), 2);
    fx_send(&f, 1, 2, 0xA2);
    fx_run_to(&f, 374);
    ck_assert_int_eq(f.ans[2].got, 0);
    fx_run_to(&f, 375);
    expect_answer(&f, 2, 0xB200, 375);
    ck_assert_uint_eq(fx_stats(&f, 0).nacks_sent, 1);
    ck_assert_uint_eq(fx_stats(&f, 0).lcf_false_positives, 0);
    ck_assert_uint_eq(fx_stats(&f, 1).nacks_received, 1);
    ck_assert_uint_eq(fx_stats(&f, 1).rcf_false_positives[0], 1);
    ck_assert_uint_eq(fx_stats(&f, 1).peer_hits, 0);
    ck_assert_uint_eq(f.ats_requests, 2);
    fx_fini(&f);
}
END_TEST

/* Variant (c): a shootdown (the TLBs flushed, every filter reset) before
 * GPU1's miss: it goes to the IOMMU. */
START_TEST(fig12_shootdown)
{
    fx f;
    fx_init(&f, 2, NULL, 512, ATS);
    steps_0_to_2(&f);
    fx_run_to(&f, 150);
    for (uint32_t g = 0; g < 2; g++) {
        ck_assert_int_ge(xlat_tlb_flush(f.l2[g]), 0);
        ck_assert_int_eq(xlat_fbarre_shootdown(f.fb[g]), XLAT_OK);
        for (uint32_t x = 0; x < 2; x++)
            ck_assert_uint_eq(count(&f, g, x), 0);
        ck_assert_int_eq(xlat_fbarre_pec_lookup(f.fb[g], FX_PASID, 0xA1, NULL), XLAT_ERR_NOT_FOUND);
        ck_assert_uint_eq(fx_stats(&f, g).shootdowns, 1);
    }
    gpu1_miss_goes_to_ats(&f);
    fx_fini(&f);
}
END_TEST

/* §D.8 local path: GPU0's L2 holds 0x4 (0xB075, order 1) from an ATS, and
 * its PEC buffer data 1's entry. Its miss on 0x1 probes the candidates 0x4,
 * 0x7, 0xA in its LCF; 0x4 hits; one TLB visit, then 0x1 = order 0 ->
 * 0xA075 at 210 + 10 + 1. Then GPU3's miss on 0xA (Example 4) is answered
 * by GPU0 from 0x1's entry: 0xD075 without a walk. */
START_TEST(example5_local_and_peer)
{
    fx f;
    fx_init(&f, 4, NULL, 512, ATS);
    fx_map_object(&f, &data1, data1_local);
    fx_send(&f, 0, 1, 0x4);
    fx_run_to(&f, 200);
    expect_answer(&f, 1, 0xB075, 110);
    fx_send(&f, 0, 2, 0x1);
    fx_run_to(&f, 221);
    expect_answer(&f, 2, 0xA075, 221);
    ck_assert_uint_eq(f.ans[2].resolver, unit_of(&f, 0));
    ck_assert_uint_eq(fx_stats(&f, 0).local_hits, 1);
    ck_assert_uint_eq(f.ats_requests, 1);
    ck_assert(has(&f, 0, 0, 0x1));
    /* Messages of 0x1's fill (4 pages to 3 peers from 221) reach GPU3 by 264. */
    fx_run_to(&f, 300);
    ck_assert(has(&f, 3, 0, 0xA));
    fx_send(&f, 3, 3, 0xA); /* L2 at 310, GPU0 at 342, search 343: 0x1 first */
    fx_run_to(&f, 386);
    expect_answer(&f, 3, 0xD075, 386);
    ck_assert_uint_eq(fx_stats(&f, 3).peer_hits, 1);
    ck_assert_uint_eq(f.ats_requests, 1);
    fx_fini(&f);
}
END_TEST

/* §D.11: add 0xA2 from GPU0 = command 1, sender 000, 40-bit page. */
START_TEST(d11_message_encoding)
{
    xlat_fbarre_msg m = {.add = true, .sender = 0, .vpn = 0xA2};
    ck_assert_uint_eq(xlat_fbarre_msg_encode(&m), 0x800000000A2ull);
    xlat_fbarre_msg back;
    xlat_fbarre_msg_decode(0x800000000A2ull, &back);
    ck_assert(back.add);
    ck_assert_uint_eq(back.sender, 0);
    ck_assert_uint_eq(back.vpn, 0xA2);
    m = (xlat_fbarre_msg){.add = false, .sender = 5, .vpn = 0xFFFFFFFFFFull};
    ck_assert_uint_eq(xlat_fbarre_msg_encode(&m), 0x5FFFFFFFFFFull);
    m = (xlat_fbarre_msg){.add = true, .sender = 9, .vpn = 0x1230000000001ull}; /* cut */
    ck_assert_uint_eq(xlat_fbarre_msg_encode(&m), (1ull << 43) | (1ull << 40) | 1);
    ck_assert_uint_lt(xlat_fbarre_msg_encode(&m), 1ull << 44);
    ck_assert_uint_eq(xlat_fbarre_msg_encode(NULL), 0);
    xlat_fbarre_msg_decode(0, NULL);
}
END_TEST

/* False positives, each with its exact cost: an RCF hit whose peer has
 * nothing (NACK at once), a peer's LCF hit its L2 does not back (a wasted
 * TLB visit, then the NACK), and a local LCF hit that gives nothing (a
 * wasted TLB visit, then the ATS). */
START_TEST(false_positives_and_nack)
{
    fx f;
    fx_init(&f, 2, NULL, 512, ATS);
    fx_map_object(&f, &data2, data2_local);
    xlat_fbarre_msg add = {.add = true, .sender = 0, .vpn = 0xA2};
    xlat_fbarre_receive(f.fb[1], FX_PASID, xlat_fbarre_msg_encode(&add));
    fx_send(&f, 1, 1, 0xA2); /* FB1 10, GPU0 42, NACK 43, back 75, ATS 175 */
    fx_run_to(&f, 175);
    expect_answer(&f, 1, 0xB200, 175);
    ck_assert_uint_eq(fx_stats(&f, 1).rcf_false_positives[0], 1);
    /* GPU1 now holds 0xA2 and data 2's entry. A phantom 0x700 (a page of
     * no group) in its LCF, reported but never in its L2, reaches GPU0's
     * RCF1 by 32. GPU0's miss on 0x700: GPU1 at 342, its LCF hits, one
     * wasted TLB visit, no group to try: NACK at 353, back at 385, ATS. */
    ck_assert_int_eq(xlat_pagetable_map(f.pt, FX_PASID, 0x700000, 0x7777, 12, XLAT_PERM_R),
                     XLAT_OK);
    xlat_tlb_entry ghost = {.pasid = FX_PASID, .vpn = 0x700, .pfn = 0x7777, .page_shift = 12,
                            .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_fbarre_l2_inserted(f.fb[1], &ghost), XLAT_OK);
    fx_run_to(&f, 300);
    ck_assert(has(&f, 0, 1, 0x700));
    fx_send(&f, 0, 2, 0x700);
    fx_run_to(&f, 484);
    ck_assert_int_eq(f.ans[2].got, 0);
    fx_run_to(&f, 485);
    expect_answer(&f, 2, 0x7777, 485);
    ck_assert_uint_eq(fx_stats(&f, 1).lcf_false_positives, 1);
    ck_assert_uint_eq(fx_stats(&f, 1).nacks_sent, 1);
    ck_assert_uint_eq(fx_stats(&f, 0).rcf_false_positives[1], 1);
    /* 0xA2 leaves GPU1's L2 unheard (an invalidation is no eviction), so
     * its LCF still holds it: GPU1's miss on 0xA1 at 500 finds the
     * candidate 0xA2 in the LCF, visits the L2 for nothing (520), and
     * sends the ATS. */
    ck_assert_int_eq(xlat_tlb_invalidate(f.l2[1], FX_PASID, 0xA2000), 1);
    fx_run_to(&f, 500);
    fx_send(&f, 1, 3, 0xA1);
    fx_run_to(&f, 619);
    ck_assert_int_eq(f.ans[3].got, 0);
    fx_run_to(&f, 620);
    expect_answer(&f, 3, 0xA200, 620);
    ck_assert_uint_eq(fx_stats(&f, 1).lcf_false_positives, 2);
    ck_assert_uint_eq(fx_stats(&f, 1).local_hits, 0);
    fx_fini(&f);
}
END_TEST

static void fill_gpu0_with(fx *f, uint64_t vpn)
{
    fx_map_object(f, &data1, data1_local);
    fx_send(f, 0, 1, vpn); /* filled at 110: 4 pages to 3 peers = 12 messages */
    fx_run_to(f, 110);
}

START_TEST(drop_probability)
{
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    c.drop_prob = 1;
    fx f;
    fx_init(&f, 4, &c, 512, ATS);
    fill_gpu0_with(&f, 0x4);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_sent, 0);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_dropped, 12);
    fx_run_to(&f, 200);
    for (uint32_t x = 1; x < 4; x++)
        ck_assert_uint_eq(count(&f, x, 0), 0);
    fx_fini(&f);

    c.drop_prob = 0; /* one a cycle from 110: the last leaves at 121, lands at 153 */
    fx_init(&f, 4, &c, 512, ATS);
    fill_gpu0_with(&f, 0x4);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_sent, 12);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_dropped, 0);
    fx_run_to(&f, 152);
    ck_assert_uint_eq(count(&f, 3, 0), 3);
    fx_run_to(&f, 153);
    for (uint32_t x = 1; x < 4; x++)
        ck_assert_uint_eq(count(&f, x, 0), 4);
    fx_fini(&f);

    c.msg_queue = 2; /* 110 and 111 leave, 112 waits with one other: the rest drop */
    fx_init(&f, 4, &c, 512, ATS);
    fill_gpu0_with(&f, 0x4);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_sent, 3);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_dropped, 9);
    fx_run_to(&f, 200);
    ck_assert_uint_eq(count(&f, 1, 0), 3);
    fx_fini(&f);
}
END_TEST

/* Fig 19's oracle: every message lands msg_latency after it was made,
 * whatever the rate, the queue and the drop probability. */
START_TEST(oracle_delivery)
{
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    c.oracle = 1;
    c.drop_prob = 1;
    c.msg_queue = 0;
    fx f;
    fx_init(&f, 4, &c, 512, ATS);
    fill_gpu0_with(&f, 0x4);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_sent, 12);
    fx_run_to(&f, 141);
    ck_assert_uint_eq(count(&f, 3, 0), 0);
    fx_run_to(&f, 142);
    for (uint32_t x = 1; x < 4; x++)
        ck_assert_uint_eq(count(&f, x, 0), 4);
    ck_assert_uint_eq(fx_stats(&f, 0).msgs_dropped, 0);
    fx_fini(&f);
}
END_TEST

/* The same walkthrough through xlat_fbarre_mesh_create(): same cycles. */
START_TEST(mesh_builder)
{
    fx f;
    fx_init_mesh(&f, 2, 512, ATS);
    steps_0_to_2(&f);
    fx_run_to(&f, 200);
    fx_send(&f, 1, 2, 0xA2);
    fx_run_to(&f, 286);
    expect_answer(&f, 2, 0xB200, 286);
    ck_assert_int_eq(xlat_fbarre_mesh_shootdown(f.mesh), XLAT_OK);
    ck_assert_uint_eq(count(&f, 1, 1) + count(&f, 1, 0), 0);
    ck_assert_ptr_null(xlat_fbarre_mesh_chiplet(f.mesh, 2));
    /* The L2s still send to its units. */
    ck_assert_int_eq(xlat_fbarre_mesh_destroy(f.mesh), XLAT_ERR_BUSY);
    for (uint32_t g = 0; g < 2; g++)
        ck_assert_int_eq(xlat_tlb_set_next(f.l2[g], NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_mesh_destroy(f.mesh), XLAT_OK);
    fx_fini(&f);
}
END_TEST


/* ---- randomized: every frame handed out is the page table's ----------- */

#define RND_PAGES 160

/* Three data objects (random interleaving, a shuffled GPU_map, 1-3
 * rounds) and 16 pages of no group; their pages go to `pages`. */
static size_t random_objects(fx *f, uint64_t *seed, uint64_t *pages)
{
    size_t n = 0;
    for (uint32_t o = 0; o < 3; o++) {
        xlat_pec_entry d = {.pasid = FX_PASID, .start_vpn = 0x1000 * (o + 1),
                            .interlv_gran = 1 + (uint32_t)(test_rand(seed) % 4), .positions = 4};
        for (uint8_t k = 0; k < 4; k++)
            d.gpu_map[k] = k;
        for (int k = 3; k > 0; k--) {
            int j = (int)(test_rand(seed) % (uint64_t)(k + 1));
            uint8_t t = d.gpu_map[k];
            d.gpu_map[k] = d.gpu_map[j];
            d.gpu_map[j] = t;
        }
        uint64_t rounds = 1 + test_rand(seed) % 3, size = rounds * d.interlv_gran * 4;
        d.end_vpn = d.start_vpn + size - 1;
        uint64_t locals[12];
        for (uint64_t i = 0; i < rounds * d.interlv_gran; i++)
            locals[i] = 0x300 + o * 0x100 + i * 7;
        fx_map_object(f, &d, locals);
        for (uint64_t v = d.start_vpn; v <= d.end_vpn; v++)
            pages[n++] = v;
    }
    for (uint64_t i = 0; i < 16; i++) {
        ck_assert_int_eq(xlat_pagetable_map(f->pt, FX_PASID, (0x5000 + i) << 12, 0x9000 + i, 12,
                                            XLAT_PERM_R),
                         XLAT_OK);
        pages[n++] = 0x5000 + i;
    }
    return n;
}

/* 2000 requests from random chiplets over the objects' pages, with small
 * L2s (evictions), lossy messages and a shootdown halfway; every answer's
 * frame is xlat_pagetable_lookup()'s, and both intra-package paths served
 * some. */
static void random_run(uint32_t ats_delay, uint64_t seed)
{
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    c.drop_prob = 0.2;
    fx f;
    fx_init(&f, 4, &c, 16, ats_delay);
    uint64_t pages[RND_PAGES], asked[2000];
    size_t n = random_objects(&f, &seed, pages);
    for (uint64_t id = 0; id < 2000; id++) {
        asked[id] = pages[test_rand(&seed) % n];
        fx_send_until_taken(&f, (uint32_t)(test_rand(&seed) % 4), id, asked[id]);
        if (id == 1000) /* a shootdown while requests are in flight */
            for (uint32_t x = 0; x < 4; x++)
                ck_assert_int_eq(xlat_fbarre_shootdown(f.fb[x]), XLAT_OK);
        fx_run_to(&f, xlat_now(f.ctx) + test_rand(&seed) % 3);
    }
    fx_run_to(&f, xlat_now(f.ctx) + 2000);
    for (uint64_t id = 0; id < 2000; id++) {
        xlat_tlb_entry e;
        ck_assert_int_eq(xlat_pagetable_lookup(f.pt, FX_PASID, asked[id] << 12, &e), XLAT_OK);
        ck_assert_int_eq(f.ans[id].got, 1);
        ck_assert_int_eq(f.ans[id].status, XLAT_OK);
        ck_assert_uint_eq(f.ans[id].pfn, e.pfn);
    }
    uint64_t local = 0, peer = 0;
    for (uint32_t x = 0; x < 4; x++) {
        local += fx_stats(&f, x).local_hits;
        peer += fx_stats(&f, x).peer_hits;
    }
    ck_assert_uint_gt(local, 0);
    ck_assert_uint_gt(peer, 0);
    ck_assert_int_eq(f.breaches, 0);
    fx_fini(&f);
}

/* The ATS host answers inside its translate, a cycle later, or after 100. */
START_TEST(random_frames_are_the_page_tables)
{
    static const uint32_t delay[] = {0, 1, ATS};
    random_run(delay[_i], 0xF0 + (uint64_t)_i);
}
END_TEST

/* ---- refusals and errors ----------------------------------------------- */

static void done_ignore(void *user, const xlat_resp *r)
{
    int *answers = user;
    ck_assert_int_eq(r->status, XLAT_ERR_NOT_FOUND); /* nothing beyond: no next target */
    ++*answers;
}

static int create_with(xlat_ctx *ctx, void (*change)(xlat_fbarre_config *))
{
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    change(&c);
    xlat_fbarre *fb = (xlat_fbarre *)&c;
    int rc = xlat_fbarre_create(ctx, &c, &fb);
    ck_assert_ptr_eq(fb, (xlat_fbarre *)&c); /* untouched */
    ck_assert_str_ne(xlat_ctx_errmsg(ctx), "");
    return rc;
}

static void one_chiplet(xlat_fbarre_config *c) { c->chiplets = 1; }
static void nine_chiplets(xlat_fbarre_config *c) { c->chiplets = 9; }
static void chiplet_out(xlat_fbarre_config *c) { c->chiplet = 4; }
static void expanded_five(xlat_fbarre_config *c) { c->expanded = 1, c->chiplets = 5; }
static void rows_300(xlat_fbarre_config *c) { c->filter_rows = 300; }
static void ways_9(xlat_fbarre_config *c) { c->filter_ways = 9; }
static void fp_bits_3(xlat_fbarre_config *c) { c->fp_bits = 3; }
static void drop_too_likely(xlat_fbarre_config *c) { c->drop_prob = 1.5; }
static void no_rate(xlat_fbarre_config *c) { c->msgs_per_cycle = 0; }
static void no_records(xlat_fbarre_config *c) { c->max_outstanding = 0; }
static void no_pec(xlat_fbarre_config *c) { c->pec_entries = 0; }
static void old_struct(xlat_fbarre_config *c) { c->struct_size = 8; }
static void bad_clock(xlat_fbarre_config *c) { c->clock_num = 3; }

START_TEST(config_errors)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    void (*bad[])(xlat_fbarre_config *) = {one_chiplet,  nine_chiplets,   chiplet_out, expanded_five,
                                           rows_300,     ways_9,          fp_bits_3,   drop_too_likely,
                                           no_rate,      no_records,      no_pec,      old_struct,
                                           bad_clock};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_int_eq(create_with(ctx, bad[i]), XLAT_ERR_INVAL);
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    xlat_fbarre *fb;
    ck_assert_int_eq(xlat_fbarre_create(NULL, &c, &fb), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_create(ctx, NULL, &fb), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_create(ctx, &c, NULL), XLAT_ERR_INVAL);
    xlat_fbarre_config_init(NULL);
    xlat_fbarre_mesh_config mc;
    xlat_fbarre_mesh_config_init(&mc);
    mc.chiplets = 9;
    xlat_fbarre_mesh *mesh;
    ck_assert_int_eq(xlat_fbarre_mesh_create(ctx, &mc, &mesh), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_mesh_create(ctx, NULL, &mesh), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_mesh_shootdown(NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_mesh_destroy(NULL), XLAT_OK);
    xlat_fbarre_mesh_config_init(NULL);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(call_errors)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    c.max_outstanding = 1;
    c.peer_slots = 1;
    xlat_fbarre *fb;
    ck_assert_int_eq(xlat_fbarre_create(ctx, &c, &fb), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_set_peer(fb, 0, NULL, NULL, NULL), XLAT_ERR_INVAL); /* itself */
    ck_assert_int_eq(xlat_fbarre_set_peer(fb, 4, NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_set_peer(NULL, 1, NULL, NULL, NULL), XLAT_ERR_INVAL);
    xlat_target hollow = XLAT_TARGET_INIT;
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &hollow), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_set_next(NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_attach_l2(NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_set_pec_source(NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_shootdown(NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_pec_lookup(NULL, 1, 1, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_l2_inserted(fb, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_get_target(NULL, &hollow), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fbarre_get_peer_target(NULL, &hollow), XLAT_ERR_INVAL);
    ck_assert(!xlat_fbarre_filter_contains(NULL, 0, 1, 1));
    ck_assert_uint_eq(xlat_fbarre_filter_count(fb, 4), 0);
    xlat_fbarre_receive(fb, 1, 7ull << 40); /* from a chiplet beyond the package: ignored */
    ck_assert_uint_eq(xlat_fbarre_filter_count(fb, 0) + xlat_fbarre_filter_count(fb, 1), 0);
    /* One record each: the second request and the second peer request wait. */
    xlat_target own = TEST_TARGET(fbarre, fb), peer = XLAT_TARGET_INIT;
    ck_assert_int_eq(xlat_fbarre_get_peer_target(fb, &peer), XLAT_OK);
    xlat_req r = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    int answers = 0;
    ck_assert_int_eq(xlat_target_translate(&own, &r, done_ignore, &answers), XLAT_OK);
    ck_assert_int_eq(xlat_target_translate(&own, &r, done_ignore, &answers), XLAT_ERR_AGAIN);
    ck_assert_int_eq(xlat_target_translate(&peer, &r, done_ignore, &answers), XLAT_OK);
    ck_assert_int_eq(xlat_target_translate(&peer, &r, done_ignore, &answers), XLAT_ERR_AGAIN);
    r.access = (xlat_access)9;
    ck_assert_int_eq(xlat_target_translate(&own, &r, done_ignore, &answers), XLAT_ERR_INVAL);
    ck_assert_int_eq(answers, 0); /* never inside the call */
    ck_assert_int_eq(xlat_advance(ctx, 5), XLAT_OK);
    ck_assert_int_eq(answers, 2); /* no next target, and a NACK */
    /* Held by an L2: not destroyed until it is rewired. */
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l2, &own), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_attach_l2(fb, l2), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_destroy(fb), XLAT_ERR_BUSY);
    ck_assert_int_eq(xlat_tlb_set_next(l2, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_destroy(l2), XLAT_OK); /* an L2 destroyed first is detached */
    ck_assert_int_eq(xlat_fbarre_destroy(fb), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_destroy(NULL), XLAT_OK);
    xlat_ctx_destroy(ctx);
}
END_TEST

static void name_of(void *user, uint32_t id, const char *kind, const char *unit,
                    const char *counter, uint64_t value)
{
    (void)id, (void)unit, (void)value;
    if (strcmp(kind, "fbarre") == 0 && strcmp(counter, "rcf_false_positives_7") == 0)
        ++*(int *)user;
}

START_TEST(stats_by_name)
{
    fx f;
    fx_init(&f, 2, NULL, 512, ATS);
    int found = 0;
    ck_assert_int_eq(xlat_stats_foreach(f.ctx, name_of, &found), XLAT_OK);
    ck_assert_int_eq(found, 2);
    fx_map_object(&f, &data2, data2_local);
    fx_send(&f, 0, 1, 0xA1);
    fx_run_to(&f, 200);
    ck_assert_uint_eq(fx_stats(&f, 0).ats_requests, 1);
    ck_assert_int_eq(xlat_stats_reset(f.ctx, unit_of(&f, 0)), XLAT_OK);
    ck_assert_uint_eq(fx_stats(&f, 0).ats_requests, 0);
    fx_fini(&f);
}
END_TEST

Suite *fbarre_suite(void);

Suite *fbarre_suite(void)
{
    Suite *s = suite_create("fbarre");
    TCase *tc = test_case(s, "walkthrough");
    tcase_add_test(tc, fig12_walkthrough);
    tcase_add_test(tc, fig12_delete);
    tcase_add_test(tc, fig12_lost_update);
    tcase_add_test(tc, fig12_shootdown);
    tcase_add_test(tc, example5_local_and_peer);
    tcase_add_test(tc, d11_message_encoding);
    tcase_add_test(tc, false_positives_and_nack);
    tcase_add_test(tc, drop_probability);
    tcase_add_test(tc, oracle_delivery);
    tcase_add_test(tc, mesh_builder);
    tc = test_case(s, "random");
    tcase_add_loop_test(tc, random_frames_are_the_page_tables, 0, 3);
    tc = test_case(s, "errors");
    tcase_add_test(tc, config_errors);
    tcase_add_test(tc, call_errors);
    tcase_add_test(tc, stats_by_name);
    return s;
}
