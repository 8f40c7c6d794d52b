/* Page tables: the neighborhood paper's Figure 8 layout with exact entry and
 * line addresses, 4 KiB / 2 MiB / 1 GiB pages, 5-level and narrow
 * geometries, overlaps, atomic failure (FULL, NOMEM), every error path
 * leaving the table unchanged, entry accessors and software bits, raw
 * reads and writes, counters, and a random run against a list model. */
#include <stdlib.h>

#include "newer_config.h"
#include "testutil.h"
#include "xlat/pagetable.h"
#include "../lib/mem/pagetable_internal.h"

#define RW (XLAT_PERM_R | XLAT_PERM_W)
#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

static xlat_ctx *ctx;

static void setup(void) { ctx = test_ctx(7, NULL); }
static void teardown(void) { xlat_ctx_destroy(ctx); }

static xlat_physmem *make_mem_on(xlat_ctx *c, uint64_t base, uint64_t frames)
{
    xlat_region_config r = {base, frames};
    xlat_physmem_config pc;
    xlat_physmem *m = NULL;
    xlat_physmem_config_init(&pc);
    pc.region = &r;
    ck_assert_msg(xlat_physmem_create(c, &pc, &m) == XLAT_OK, "%s", xlat_ctx_errmsg(c));
    return m;
}

static xlat_physmem *make_mem(uint64_t base, uint64_t frames)
{
    return make_mem_on(ctx, base, frames);
}

static xlat_pagetable *make_pt_on(xlat_ctx *c, xlat_physmem *m, uint32_t levels, uint32_t bits)
{
    xlat_pagetable_config cfg;
    xlat_pagetable *pt = NULL;
    xlat_pagetable_config_init(&cfg);
    cfg.mem = m;
    cfg.levels = levels;
    cfg.bits_per_level = bits;
    ck_assert_msg(xlat_pagetable_create(c, &cfg, &pt) == XLAT_OK, "%s", xlat_ctx_errmsg(c));
    return pt;
}

static xlat_pagetable *make_pt(xlat_physmem *m, uint32_t levels, uint32_t bits)
{
    return make_pt_on(ctx, m, levels, bits);
}

static void map_ok(xlat_pagetable *pt, uint32_t pasid, uint64_t va, uint64_t pfn, uint8_t shift,
                   uint8_t perm)
{
    int rc = xlat_pagetable_map(pt, pasid, va, pfn, shift, perm);
    ck_assert_msg(rc == XLAT_OK, "map 0x%llx: %s", (unsigned long long)va, xlat_ctx_errmsg(ctx));
}

static void assert_step(const xlat_walk_trace *w, uint32_t i, uint8_t level, uint64_t node,
                        uint64_t entry, uint64_t line)
{
    ck_assert_uint_gt(w->steps, i);
    ck_assert_uint_eq(w->step[i].level, level);
    ck_assert_uint_eq(w->step[i].node_pfn, node);
    ck_assert_uint_eq(w->step[i].entry_paddr, entry);
    ck_assert_uint_eq(w->step[i].line_paddr, line);
}

/* ---- Figure 8 (notes/seed-002 §D.1) ----------------------------------- */

#define VA0 UINT64_C(0x7AA8C5289000)
#define VA1 UINT64_C(0x7AA8C528A000)
#define VA2 UINT64_C(0x7AA8C5410000)

/* Frames 0x100..0x500 with only 0x100, 0x200, 0x300, 0x400 and 0x500
 * free, so the nodes land exactly on the extract's frames. */
static xlat_physmem *fig8_mem(void)
{
    xlat_physmem *m = make_mem(0x100, 0x401);
    for (uint64_t p = 0x101; p < 0x500; p += 0x100)
        ck_assert_int_eq(xlat_physmem_take(m, p, 0xff), XLAT_OK);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 5);
    return m;
}

START_TEST(fig8_layout)
{
    xlat_physmem *m = fig8_mem();
    xlat_pagetable *pt = make_pt(m, 4, 9);
    const uint32_t want_idx[4] = {0x89, 0x29, 0xA3, 0xF5}; /* VA0, levels 1..4 */
    for (uint32_t k = 1; k <= 4; k++)
        ck_assert_uint_eq(xlat_pagetable_index(pt, VA0, k), want_idx[k - 1]);
    ck_assert_uint_eq(xlat_pagetable_index(pt, VA1, 1), 0x8A);
    ck_assert_uint_eq(xlat_pagetable_index(pt, VA2, 2), 0x2A);
    ck_assert_uint_eq(xlat_pagetable_index(pt, VA2, 1), 0x10);
    map_ok(pt, 1, VA0, 0x57, 12, RW);
    map_ok(pt, 1, VA1, 0x58, 12, RW);
    map_ok(pt, 1, VA2, 0xC3, 12, RW);
    uint64_t root;
    ck_assert_int_eq(xlat_pagetable_root(pt, 1, &root), XLAT_OK);
    ck_assert_uint_eq(root, 0x100);

    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, VA0 + 0x123, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 4);
    assert_step(&w, 0, 4, 0x100, 0x1007A8, 0x100780);
    assert_step(&w, 1, 3, 0x200, 0x200518, 0x200500);
    assert_step(&w, 2, 2, 0x300, 0x300148, 0x300140);
    assert_step(&w, 3, 1, 0x400, 0x400448, 0x400440);
    ck_assert_uint_eq(w.step[0].value, 0x200007); /* P | W | U and the L3 node */
    ck_assert_uint_eq(w.step[1].value, 0x300007);
    ck_assert_uint_eq(w.step[2].value, 0x400007);
    ck_assert_uint_eq(w.step[3].value, UINT64_C(0x8000000000057003)); /* NX | W | P */
    ck_assert_uint_eq(w.stop_level, 1);
    ck_assert_uint_eq(w.page_shift, 12);
    ck_assert_uint_eq(w.pfn, 0x57);
    ck_assert_uint_eq(w.perm, RW);

    /* VA1: same entries above, its leaf in the same 64-byte line */
    xlat_walk_trace w1;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, VA1, &w1), XLAT_OK);
    for (uint32_t i = 0; i < 3; i++)
        ck_assert_uint_eq(w1.step[i].entry_paddr, w.step[i].entry_paddr);
    assert_step(&w1, 3, 1, 0x400, 0x400450, 0x400440);
    ck_assert_uint_eq(w1.pfn, 0x58);

    /* VA2: shares L4 and L3 entries, its L2 entry is in VA0's L2 line */
    xlat_walk_trace w2;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, VA2, &w2), XLAT_OK);
    ck_assert_uint_eq(w2.step[0].entry_paddr, w.step[0].entry_paddr);
    ck_assert_uint_eq(w2.step[1].entry_paddr, w.step[1].entry_paddr);
    assert_step(&w2, 2, 2, 0x300, 0x300150, 0x300140);
    ck_assert_uint_eq(w2.step[2].value, 0x500007);
    assert_step(&w2, 3, 1, 0x500, 0x500080, 0x500080);
    ck_assert_uint_eq(w2.pfn, 0xC3);

    uint64_t v;
    ck_assert_int_eq(xlat_pagetable_read(pt, 0x1007A8, &v), XLAT_OK);
    ck_assert_uint_eq(v, 0x200007);
    ck_assert_int_eq(xlat_pagetable_read(pt, 0x400450, &v), XLAT_OK);
    ck_assert_uint_eq(v, UINT64_C(0x8000000000058003));
    ck_assert_int_eq(xlat_pagetable_read(pt, 0x400458, &v), XLAT_OK);
    ck_assert_uint_eq(v, 0);

    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.address_spaces, 1);
    ck_assert_uint_eq(st.nodes[4], 1);
    ck_assert_uint_eq(st.nodes[3], 1);
    ck_assert_uint_eq(st.nodes[2], 1);
    ck_assert_uint_eq(st.nodes[1], 2);
    ck_assert_uint_eq(st.bytes, 5 * 4096);
    ck_assert_uint_eq(st.mapped[1], 3);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0);
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 5);
    xlat_physmem_destroy(m);
}
END_TEST

/* ---- page sizes and geometries ---------------------------------------- */

START_TEST(page_sizes)
{
    xlat_physmem *m = make_mem(0x100, 4096);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, UINT64_C(0x7f0000000000), 0x4242, 12, RW);
    map_ok(pt, 1, 2 * MIB, 3, 21, XLAT_PERM_R | XLAT_PERM_X | XLAT_PERM_U);
    map_ok(pt, 1, 2 * GIB, 5, 30, XLAT_PERM_W);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, UINT64_C(0x7f0000000fff), &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 4);
    ck_assert_uint_eq(w.page_shift, 12);
    ck_assert_uint_eq(w.pfn, 0x4242);
    ck_assert_uint_eq(w.step[3].value, UINT64_C(0x8000000004242003));

    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 2 * MIB + 0x12345, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 3);
    ck_assert_uint_eq(w.stop_level, 2);
    ck_assert_uint_eq(w.page_shift, 21);
    ck_assert_uint_eq(w.pfn, 3);
    ck_assert_uint_eq(w.step[2].value, 3 * 2 * MIB | XLAT_PTE_PS | XLAT_PTE_USER | XLAT_PTE_PRESENT);
    ck_assert_uint_eq(xlat_pte_pfn(w.step[2].value), 3 * 512);
    ck_assert_uint_eq(w.perm, XLAT_PERM_R | XLAT_PERM_X | XLAT_PERM_U);

    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 3 * GIB - 1, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 2);
    ck_assert_uint_eq(w.stop_level, 3);
    ck_assert_uint_eq(w.page_shift, 30);
    ck_assert_uint_eq(w.pfn, 5);
    ck_assert_uint_eq(w.step[1].value,
                      5 * GIB | XLAT_PTE_NX | XLAT_PTE_PS | XLAT_PTE_WRITABLE | XLAT_PTE_PRESENT);
    ck_assert_uint_eq(w.perm, RW); /* R is implied by presence */

    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 2 * MIB + 0x12345, &e), XLAT_OK);
    ck_assert_uint_eq(e.pasid, 1);
    ck_assert_uint_eq(e.vpn, 1);
    ck_assert_uint_eq(e.pfn, 3);
    ck_assert_uint_eq(e.page_shift, 21);
    ck_assert_uint_eq(e.perm, XLAT_PERM_R | XLAT_PERM_X | XLAT_PERM_U);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 2 * GIB + 7, &e), XLAT_OK);
    ck_assert_uint_eq(e.vpn, 2);
    ck_assert_uint_eq(e.pfn, 5);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 4 * MIB, NULL), XLAT_ERR_FAULT);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 2, 2 * MIB, NULL), XLAT_ERR_FAULT);

    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.mapped[1], 1);
    ck_assert_uint_eq(st.mapped[2], 1);
    ck_assert_uint_eq(st.mapped[3], 1);
    ck_assert_uint_eq(st.nodes[4], 1);
    ck_assert_uint_eq(st.nodes[3], 2); /* one under L4 entry 0xfe, one under entry 0 */
    ck_assert_uint_eq(st.nodes[2], 2);
    ck_assert_uint_eq(st.nodes[1], 1);
    ck_assert_uint_eq(st.bytes, 6 * 4096);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 4096 - 6);
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 4096);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(walk_faults)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x1000, &w), XLAT_ERR_FAULT);
    ck_assert_int_eq(w.status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(w.steps, 0);
    ck_assert_uint_eq(w.stop_level, 0);
    map_ok(pt, 1, 0x1000, 9, 12, RW);
    /* same leaf node, empty entry: four reads, fault at level 1 */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x2000, &w), XLAT_ERR_FAULT);
    ck_assert_uint_eq(w.steps, 4);
    ck_assert_uint_eq(w.stop_level, 1);
    ck_assert_uint_eq(w.step[3].value, 0);
    /* another L3 entry: two reads */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 5 * GIB, &w), XLAT_ERR_FAULT);
    ck_assert_uint_eq(w.steps, 2);
    ck_assert_uint_eq(w.stop_level, 3);
    ck_assert_uint_eq(w.page_shift, 0);
    /* beyond 48 bits: no read */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, UINT64_C(1) << 48, &w), XLAT_ERR_FAULT);
    ck_assert_uint_eq(w.steps, 0);
    ck_assert_int_eq(xlat_pagetable_walk(NULL, 1, 0, &w), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0, NULL), XLAT_ERR_INVAL);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(five_levels)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 5, 9);
    ck_assert_uint_eq(xlat_pagetable_levels(pt), 5);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 5), 48);
    const uint64_t top = (UINT64_C(1) << 57) - 4096;
    map_ok(pt, 3, top, 0xabc, 12, RW);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 3, top + 5, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 5);
    for (uint32_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(w.step[i].level, 5 - i);
        ck_assert_uint_eq(w.step[i].entry_paddr, (w.step[i].node_pfn << 12) + 511 * 8);
        ck_assert_uint_eq(w.step[i].line_paddr, (w.step[i].node_pfn << 12) + 0xfc0);
    }
    ck_assert_uint_eq(w.pfn, 0xabc);
    ck_assert_int_eq(xlat_pagetable_map(pt, 3, UINT64_C(1) << 57, 1, 12, RW), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 3, UINT64_C(1) << 57, NULL), XLAT_ERR_FAULT);
    map_ok(pt, 3, UINT64_C(1) << 48, 1, 30, RW); /* needs 57 bits: fine with 5 levels */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 3, UINT64_C(1) << 48, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 3);
    xlat_pagetable_destroy(pt);

    pt = make_pt(m, 4, 9);
    ck_assert_int_eq(xlat_pagetable_map(pt, 3, UINT64_C(1) << 48, 1, 12, RW), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_map(pt, 3, UINT64_C(0xffff800000000000), 1, 12, RW),
                     XLAT_ERR_INVAL); /* sign-extended addresses are not taken */
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(narrow_geometry)
{
    /* 3 levels of 4 bits: entries map 4 KiB, 64 KiB and 1 MiB; 24-bit addresses */
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 3, 4);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 1), 12);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 2), 16);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 3), 20);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 4), 0);
    ck_assert_uint_eq(xlat_pagetable_level_shift(pt, 0), 0);
    ck_assert_uint_eq(xlat_pagetable_index(pt, 0x123000, 3), 1);
    ck_assert_uint_eq(xlat_pagetable_index(pt, 0x123000, 2), 2);
    ck_assert_uint_eq(xlat_pagetable_index(pt, 0x123000, 1), 3);
    ck_assert_uint_eq(xlat_pagetable_index(pt, 0x123000, 4), 0);
    map_ok(pt, 1, 0x123000, 0x77, 12, RW);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x123abc, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 3);
    assert_step(&w, 0, 3, 0x100, 0x100008, 0x100000);
    assert_step(&w, 1, 2, 0x101, 0x101010, 0x101000);
    assert_step(&w, 2, 1, 0x102, 0x102018, 0x102000);
    map_ok(pt, 1, 0x450000, 0x9, 16, RW); /* a 64 KiB page at level 2 */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x45ffff, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 2);
    ck_assert_uint_eq(w.page_shift, 16);
    ck_assert_uint_eq(w.pfn, 9);
    map_ok(pt, 1, 0x800000, 0x3, 20, RW); /* a 1 MiB page in the root */
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x8fffff, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 1);
    ck_assert_uint_eq(w.stop_level, 3);
    ck_assert(w.step[0].value & XLAT_PTE_PS);
    ck_assert_uint_eq(xlat_pte_pfn(w.step[0].value), 0x300);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x200000, 1, 21, RW), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x1000000, 1, 12, RW), XLAT_ERR_INVAL);
    /* a 16-entry node uses the first 128 bytes of its frame */
    uint64_t v;
    ck_assert_int_eq(xlat_pagetable_read(pt, 0x100078, &v), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_read(pt, 0x100080, &v), XLAT_ERR_NOT_FOUND);
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.nodes[3] + st.nodes[2] + st.nodes[1], 4);
    ck_assert_uint_eq(st.bytes, 4 * 4096);
    xlat_pagetable_destroy(pt);

    pt = make_pt(m, 2, 9); /* two levels: 4 KiB and 2 MiB pages only */
    map_ok(pt, 1, 2 * MIB, 1, 21, RW);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0, 1, 30, RW), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 2 * MIB, &w), XLAT_OK);
    ck_assert_uint_eq(w.steps, 1);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

/* ---- overlaps ----------------------------------------------------------- */

START_TEST(overlaps)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, 2 * MIB, 1, 21, RW);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 2 * MIB + 0x1000, 1, 12, RW), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 2 * MIB, 2, 21, RW), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0, 1, 30, RW), XLAT_ERR_EXIST);
    map_ok(pt, 1, 4 * MIB, 7, 12, RW);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 4 * MIB, 8, 12, RW), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 4 * MIB, 8, 21, RW), XLAT_ERR_EXIST);
    /* the same address in another address space is independent */
    map_ok(pt, 2, 4 * MIB, 9, 12, RW);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 4 * MIB, &e), XLAT_OK);
    ck_assert_uint_eq(e.pfn, 7);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 2, 4 * MIB, &e), XLAT_OK);
    ck_assert_uint_eq(e.pfn, 9);

    /* a large page may replace nodes that map nothing any more */
    xlat_pagetable_stats st;
    uint64_t free_before = xlat_physmem_free_frames(m, 0);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 4 * MIB), XLAT_OK);
    map_ok(pt, 1, 4 * MIB, 8, 21, RW);
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.nodes[1], 1); /* pasid 2's; pasid 1's empty L1 node is gone */
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), free_before + 1);
    ck_assert_uint_eq(st.mapped[2], 2);
    ck_assert_uint_eq(st.mapped[1], 1);
    /* and a 1 GiB page over an L2 node whose L1 nodes are empty */
    map_ok(pt, 1, GIB + 0x5000, 1, 12, RW);
    map_ok(pt, 1, GIB + 9 * MIB, 1, 12, RW);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, GIB, 1, 30, RW), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, GIB + 0x5000), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, GIB, 1, 30, RW), XLAT_ERR_EXIST);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, GIB + 9 * MIB), XLAT_OK);
    free_before = xlat_physmem_free_frames(m, 0);
    map_ok(pt, 1, GIB, 1, 30, RW);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), free_before + 3); /* L2 and two L1 */
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.mapped[3], 1);
    ck_assert_uint_eq(st.nodes[2], 2); /* pasid 1 (0..1 GiB) and pasid 2 */
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 64);
    xlat_physmem_destroy(m);
}
END_TEST

/* ---- failures change nothing ------------------------------------------ */

struct snap {
    xlat_pagetable_stats st;
    uint64_t free_frames;
    xlat_walk_trace w[6];
};

static const uint64_t probe_va[6] = {0x1000, 0x2000, 2 * MIB, 4 * GIB + 0x3000, GIB, 0};

static void take_snap(const xlat_pagetable *pt, const xlat_physmem *m, struct snap *s)
{
    memset(s, 0, sizeof(*s));
    xlat_pagetable_stats_get(pt, &s->st, sizeof(s->st));
    s->free_frames = xlat_physmem_free_frames(m, 0);
    for (int i = 0; i < 6; i++)
        xlat_pagetable_walk(pt, 1, probe_va[i], &s->w[i]);
}

static void assert_unchanged(const xlat_pagetable *pt, const xlat_physmem *m,
                             const struct snap *before, int rc, int want, int line)
{
    struct snap after;
    ck_assert_msg(rc == want, "line %d: rc %d, want %d", line, rc, want);
    take_snap(pt, m, &after);
    ck_assert_msg(memcmp(before, &after, sizeof(after)) == 0, "line %d changed the table", line);
}

#define UNCHANGED(call, want) assert_unchanged(pt, m, &s, (call), (want), __LINE__)

START_TEST(failures_change_nothing)
{
    xlat_physmem *m = make_mem(0x100, 14);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, 0x1000, 1, 12, RW);
    map_ok(pt, 1, 2 * MIB, 2, 21, RW);
    map_ok(pt, 1, GIB, 3, 30, RW);
    uint64_t leaf = 0, root = 0, v;
    ck_assert_int_eq(xlat_pagetable_root(pt, 1, &root), XLAT_OK);
    struct snap s;
    take_snap(pt, m, &s);
    leaf = s.w[0].step[3].entry_paddr;
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x1800, 1, 12, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 4 * MIB + 0x1000, 1, 21, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x3000, 1, 13, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x3000, 1, 39, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, UINT64_C(1) << 48, 1, 12, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x3000, UINT64_C(1) << 40, 12, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 4 * MIB, UINT64_C(1) << 31, 21, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x3000, 1, 12, 0x10), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0x1000, 1, 12, RW), XLAT_ERR_EXIST);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0, 1, 21, RW), XLAT_ERR_EXIST);
    UNCHANGED(xlat_pagetable_map(pt, 1, 2 * MIB + 0x1000, 1, 12, RW), XLAT_ERR_EXIST);
    UNCHANGED(xlat_pagetable_map(pt, 1, GIB + 4 * MIB, 1, 21, RW), XLAT_ERR_EXIST);
    UNCHANGED(xlat_pagetable_map(pt, 1, 0, 1, 30, RW), XLAT_ERR_EXIST);
    UNCHANGED(xlat_pagetable_map(NULL, 1, 0x3000, 1, 12, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_unmap(pt, 1, 0x2000), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_unmap(pt, 2, 0x1000), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_unmap(pt, 1, 2 * MIB + 0x1000), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_unmap(pt, 1, 0x1008), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_unmap(pt, 1, UINT64_MAX), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_unmap(NULL, 1, 0x1000), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_protect(pt, 1, 0x2000, RW), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_protect(pt, 1, 0x1000, 0x20), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_protect(NULL, 1, 0x1000, RW), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_write(pt, root << 12, 0), XLAT_ERR_PERM);
    UNCHANGED(xlat_pagetable_write(pt, root << 12, s.w[0].step[0].value + 0x1000), XLAT_ERR_PERM);
    UNCHANGED(xlat_pagetable_write(pt, (root << 12) + 8, 0x7007), XLAT_ERR_PERM);
    UNCHANGED(xlat_pagetable_write(pt, leaf + 4, 0), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_write(pt, 0x5000, 0), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_write(NULL, leaf, 0), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_read(pt, leaf + 4, &v), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_read(pt, 0x5000, &v), XLAT_ERR_NOT_FOUND);
    UNCHANGED(xlat_pagetable_read(pt, leaf, NULL), XLAT_ERR_INVAL);
    UNCHANGED(xlat_pagetable_read(NULL, leaf, &v), XLAT_ERR_INVAL);
    /* out of frames: 14 - 4 nodes = 10 left; each new 512 GiB slot needs 3 */
    for (uint64_t i = 1; i <= 3; i++)
        map_ok(pt, 1, i << 39, 1, 12, RW);
    take_snap(pt, m, &s);
    ck_assert_uint_eq(s.free_frames, 1);
    UNCHANGED(xlat_pagetable_map(pt, 1, UINT64_C(4) << 39, 1, 12, RW), XLAT_ERR_FULL);
    UNCHANGED(xlat_pagetable_map(pt, 1, (UINT64_C(1) << 39) + GIB, 1, 12, RW), XLAT_ERR_FULL);
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 14);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(full_rolls_back)
{
    xlat_physmem *m = make_mem(0x100, 7);
    ck_assert_int_eq(xlat_physmem_take(m, 0x103, 4), XLAT_OK);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x1000, 1, 12, RW), XLAT_ERR_FULL);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 3);
    uint64_t root;
    ck_assert_int_eq(xlat_pagetable_root(pt, 1, &root), XLAT_ERR_NOT_FOUND);
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.address_spaces, 0);
    ck_assert_uint_eq(st.bytes, 0);
    /* a 1 GiB page needs only the root and an L3 node */
    map_ok(pt, 1, 0, 1, 30, RW);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 1);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, GIB, 1, 12, RW), XLAT_ERR_FULL); /* needs 2 */
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 1);
    ck_assert_int_eq(xlat_physmem_free(m, 0x103, 1), XLAT_OK);
    map_ok(pt, 1, GIB, 1, 12, RW);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 0);
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 4);
    xlat_physmem_destroy(m);
}
END_TEST

/* Fails the k-th allocation of a map, for every k until the map succeeds. */
static void nomem_sweep(uint64_t va, int first_map)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c = test_ctx(1, &ca);
    size_t base = ca.live_bytes;
    xlat_physmem *m = make_mem_on(c, 0x100, 64);
    xlat_pagetable *pt = make_pt_on(c, m, 4, 9);
    if (!first_map)
        ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x1000, 1, 12, RW), XLAT_OK);
    xlat_pagetable_stats before, after;
    xlat_pagetable_stats_get(pt, &before, sizeof(before));
    uint64_t free_before = xlat_physmem_free_frames(m, 0);
    for (long k = 0;; k++) {
        ca.fail_after = k;
        int rc = xlat_pagetable_map(pt, 1, va, 2, 12, RW);
        ca.fail_after = -1;
        if (rc == XLAT_OK)
            break;
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_int_lt(k, 20);
        xlat_pagetable_stats_get(pt, &after, sizeof(after));
        ck_assert_mem_eq(&before, &after, sizeof(after));
        ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), free_before);
        ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, va, NULL), XLAT_ERR_FAULT);
    }
    /* failed attempts did not even move the frame allocator's cursor: the
     * nodes are the frames a first-time success would have taken */
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, va, &w), XLAT_OK);
    for (uint32_t i = first_map ? 0 : 1; i < 4; i++)
        ck_assert_uint_eq(w.step[i].node_pfn, 0x100 + i + (first_map ? 0 : 3));
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
    ck_assert_uint_eq(ca.live_bytes, base);
    xlat_ctx_destroy(c);
}

START_TEST(nomem_rolls_back)
{
    nomem_sweep(UINT64_C(0x7f0000000000), 1);
    nomem_sweep(UINT64_C(0x7f0000000000), 0);
}
END_TEST

START_TEST(queries_do_not_allocate)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c = test_ctx(1, &ca);
    xlat_physmem *m = make_mem_on(c, 0x100, 64);
    xlat_pagetable *pt = make_pt_on(c, m, 4, 9);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x1000, 1, 12, RW), XLAT_OK);
    size_t allocs = ca.allocs;
    xlat_walk_trace w;
    xlat_tlb_entry e;
    uint64_t v;
    for (uint64_t va = 0; va < 64 * 4096; va += 4096) {
        xlat_pagetable_walk(pt, 1, va, &w);
        xlat_pagetable_lookup(pt, 1, va, &e);
        xlat_pagetable_read(pt, w.step[0].entry_paddr, &v);
        xlat_pagetable_protect(pt, 1, va, XLAT_PERM_R);
        xlat_pagetable_write(pt, w.step[w.steps - 1].entry_paddr, w.step[w.steps - 1].value);
    }
    ck_assert_uint_eq(ca.allocs, allocs);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
    xlat_ctx_destroy(c);
}
END_TEST

/* ---- unmap, protect, entries ------------------------------------------ */

/* An allocator that frees nothing until the test ends, so that a freed
 * node's memory still looks like the node: a read that trusted a stale
 * pointer would find its old entries. */
typedef struct late_free {
    void *block[256];
    size_t n;
} late_free;

static void *late_alloc(void *user, size_t size, size_t align)
{
    late_free *lf = user;
    size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    void *p = aligned_alloc(a, (size + a - 1) / a * a);
    if (p)
        lf->block[lf->n++] = p;
    ck_assert_uint_lt(lf->n, 256);
    return p;
}

static void late_release(void *user, void *ptr, size_t size)
{
    (void)user, (void)ptr, (void)size;
}

/* Reads remember the node a frame holds (pagetable_read.c): a node freed
 * (a large page takes its place) is never read again through that memory,
 * and a new node on the same frame is read as itself. */
START_TEST(reads_follow_freed_and_reused_frames)
{
    late_free lf = {.n = 0};
    xlat_ctx_config cc;
    xlat_ctx *lc = NULL;
    xlat_ctx_config_init(&cc);
    xlat_allocator hooks = {late_alloc, late_release, &lf};
    cc.allocator = &hooks;
    ck_assert_int_eq(xlat_ctx_create(&cc, &lc), XLAT_OK);
    xlat_physmem *m = make_mem_on(lc, 0x100, 64);
    xlat_pagetable *pt = make_pt_on(lc, m, 4, 9);
    xlat_walk_trace w;
    uint64_t v;
    map_ok(pt, 1, 2 * MIB + 0x3000, 0x33, 12, RW);
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 2 * MIB + 0x3000, &w), XLAT_OK);
    uint64_t leaf_node = w.step[3].node_pfn, entry = w.step[3].entry_paddr;
    ck_assert_int_eq(xlat_pagetable_read(pt, entry, &v), XLAT_OK);
    ck_assert_uint_eq(xlat_pte_pfn(v), 0x33);
    /* the 2 MiB page frees the level-1 node: its frame is no node any more */
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 2 * MIB + 0x3000), XLAT_OK);
    map_ok(pt, 1, 2 * MIB, 0x200, 21, RW);
    ck_assert_int_eq(xlat_pagetable_read(pt, entry, &v), XLAT_ERR_NOT_FOUND);
    /* new level-1 nodes until one takes the freed frame back (64 frames):
     * its own entries are read there */
    uint64_t node = 0, pfn = 0;
    for (uint64_t k = 2; k < 64 && node != leaf_node; k++) {
        pfn = 0x40 + k;
        map_ok(pt, 1, 2 * k * MIB + 0x3000, pfn, 12, RW);
        ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 2 * k * MIB + 0x3000, &w), XLAT_OK);
        node = w.step[3].node_pfn;
    }
    ck_assert_uint_eq(node, leaf_node);
    ck_assert_int_eq(xlat_pagetable_read(pt, entry, &v), XLAT_OK);
    ck_assert_uint_eq(xlat_pte_pfn(v), pfn);
    xlat_ctx_destroy(lc);
    for (size_t i = 0; i < lf.n; i++)
        free(lf.block[i]);
}
END_TEST

START_TEST(unmap_and_protect)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, 0x1000, 1, 12, RW);
    map_ok(pt, 1, 2 * MIB, 2, 21, XLAT_PERM_R | XLAT_PERM_X);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_protect(pt, 1, 2 * MIB + 0x777, RW | XLAT_PERM_U), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 2 * MIB, &e), XLAT_OK);
    ck_assert_uint_eq(e.perm, RW | XLAT_PERM_U);
    ck_assert_uint_eq(e.pfn, 2);
    ck_assert_uint_eq(e.page_shift, 21);
    ck_assert_int_eq(xlat_pagetable_protect(pt, 1, 0x1fff, XLAT_PERM_X), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x1000, &e), XLAT_OK);
    ck_assert_uint_eq(e.perm, XLAT_PERM_R | XLAT_PERM_X);

    xlat_pagetable_stats before, after;
    xlat_pagetable_stats_get(pt, &before, sizeof(before));
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 2 * MIB), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 2 * MIB), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 2 * MIB, NULL), XLAT_ERR_FAULT);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 0x1000), XLAT_OK);
    xlat_pagetable_stats_get(pt, &after, sizeof(after));
    ck_assert_uint_eq(after.mapped[1] + after.mapped[2], 0);
    ck_assert_mem_eq(after.nodes, before.nodes, sizeof(after.nodes)); /* nodes stay */
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x1000, &w), XLAT_ERR_FAULT);
    ck_assert_uint_eq(w.steps, 4);
    ck_assert_uint_eq(w.step[3].value, 0);
    ck_assert_int_eq(xlat_pagetable_protect(pt, 1, 0x1000, RW), XLAT_ERR_NOT_FOUND);
    /* a freed slot maps again */
    map_ok(pt, 1, 0x1000, 5, 12, RW);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x1000, &e), XLAT_OK);
    ck_assert_uint_eq(e.pfn, 5);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(pte_accessors)
{
    uint64_t e = UINT64_C(0xFFFFFFFFFFFFFFFF);
    ck_assert_uint_eq(xlat_pte_pfn(e), (UINT64_C(1) << 40) - 1);
    ck_assert_uint_eq(xlat_pte_set_pfn(e, 0), e & ~XLAT_PTE_PFN_MASK);
    ck_assert_uint_eq(xlat_pte_set_pfn(0, 0x12345), 0x12345000);
    ck_assert_uint_eq(xlat_pte_pfn(xlat_pte_set_pfn(0x867, 0xABCDE)), 0xABCDE);
    ck_assert_uint_eq(xlat_pte_set_pfn(0x867, 0xABCDE) & ~XLAT_PTE_PFN_MASK, 0x867);
    ck_assert_uint_eq(xlat_pte_set_pfn(0, UINT64_MAX), XLAT_PTE_PFN_MASK); /* 40 bits kept */
    ck_assert_uint_eq(xlat_pte_perm(0), 0);
    ck_assert_uint_eq(xlat_pte_perm(XLAT_PTE_WRITABLE | XLAT_PTE_USER), 0); /* not present */
    ck_assert_uint_eq(xlat_pte_perm(XLAT_PTE_PRESENT), XLAT_PERM_R | XLAT_PERM_X);
    ck_assert_uint_eq(xlat_pte_perm(XLAT_PTE_PRESENT | XLAT_PTE_NX), XLAT_PERM_R);
    ck_assert_uint_eq(xlat_pte_perm(e), RW | XLAT_PERM_U);
    for (uint32_t v = 0; v < 8; v++) {
        uint64_t x = xlat_pte_set_avail_low(UINT64_C(0x8000000012345067), v);
        ck_assert_uint_eq(xlat_pte_avail_low(x), v);
        ck_assert_uint_eq(x & ~(UINT64_C(7) << 9), UINT64_C(0x8000000012345067));
    }
    ck_assert_uint_eq(xlat_pte_set_avail_low(0, 0xF), UINT64_C(7) << 9);
    ck_assert_uint_eq(xlat_pte_avail_low(e), 7);
    for (uint32_t v = 0; v < 2048; v += 97) {
        uint64_t x = xlat_pte_set_avail_high(UINT64_C(0x8000000012345067), v);
        ck_assert_uint_eq(xlat_pte_avail_high(x), v);
        ck_assert_uint_eq(x & ~(UINT64_C(0x7FF) << 52), UINT64_C(0x8000000012345067));
    }
    ck_assert_uint_eq(xlat_pte_set_avail_high(0, 0xFFFF), UINT64_C(0x7FF) << 52);
    ck_assert_uint_eq(xlat_pte_avail_high(e), 0x7FF);
    ck_assert_uint_eq(xlat_pte_set_avail_high(e, 0), e & ~(UINT64_C(0x7FF) << 52));
}
END_TEST

START_TEST(software_bits_survive)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, 0x1000, 1, 12, RW);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x1000, &w), XLAT_OK);
    uint64_t leaf = w.step[3].entry_paddr, l2 = w.step[2].entry_paddr, v;
    /* Barre-style group information in a leaf, a tag in a pointer entry */
    uint64_t tagged = xlat_pte_set_avail_low(xlat_pte_set_avail_high(w.step[3].value, 0x5A5), 5);
    ck_assert_int_eq(xlat_pagetable_write(pt, leaf, tagged), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_write(pt, l2, xlat_pte_set_avail_low(w.step[2].value, 3)),
                     XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_protect(pt, 1, 0x1000, XLAT_PERM_R | XLAT_PERM_X), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_read(pt, leaf, &v), XLAT_OK);
    ck_assert_uint_eq(xlat_pte_avail_high(v), 0x5A5);
    ck_assert_uint_eq(xlat_pte_avail_low(v), 5);
    ck_assert_uint_eq(v & ~PT_AVAIL_MASK, UINT64_C(0x1001)); /* P, no W, no NX */
    map_ok(pt, 1, 0x2000, 2, 12, RW); /* same nodes: the pointer's tag stays */
    ck_assert_int_eq(xlat_pagetable_read(pt, l2, &v), XLAT_OK);
    ck_assert_uint_eq(xlat_pte_avail_low(v), 3);
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x2000, &w), XLAT_OK);
    ck_assert_uint_eq(w.pfn, 2);
    /* a host may stamp a free slot before mapping it: map keeps the stamp */
    uint64_t slot3 = leaf + 16;
    ck_assert_int_eq(xlat_pagetable_write(pt, slot3, xlat_pte_set_avail_high(0, 0x123)), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x3000, NULL), XLAT_ERR_FAULT);
    map_ok(pt, 1, 0x3000, 3, 12, RW);
    ck_assert_int_eq(xlat_pagetable_read(pt, slot3, &v), XLAT_OK);
    ck_assert_uint_eq(xlat_pte_avail_high(v), 0x123);
    ck_assert_uint_eq(xlat_pte_pfn(v), 3);
    /* unmap clears the whole entry */
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 0x3000), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_read(pt, slot3, &v), XLAT_OK);
    ck_assert_uint_eq(v, 0);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(raw_writes)
{
    xlat_physmem *m = make_mem(0x100, 64);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    map_ok(pt, 1, 0x1000, 1, 12, RW);
    xlat_walk_trace w;
    ck_assert_int_eq(xlat_pagetable_walk(pt, 1, 0x1000, &w), XLAT_OK);
    uint64_t leaf = w.step[3].entry_paddr, l2 = w.step[2].entry_paddr, v;
    /* a leaf written by hand is a mapping like any other */
    uint64_t e = XLAT_PTE_PRESENT | XLAT_PTE_WRITABLE | xlat_pte_set_pfn(0, 0x99);
    ck_assert_int_eq(xlat_pagetable_write(pt, leaf + 8, e), XLAT_OK);
    xlat_tlb_entry te;
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x2000, &te), XLAT_OK);
    ck_assert_uint_eq(te.pfn, 0x99);
    ck_assert_uint_eq(te.perm, RW | XLAT_PERM_X);
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.mapped[1], 2);
    /* clearing P by hand removes it; so does unmap afterwards report nothing */
    ck_assert_int_eq(xlat_pagetable_write(pt, leaf + 8, e & ~XLAT_PTE_PRESENT), XLAT_OK);
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.mapped[1], 1);
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, 0x2000), XLAT_ERR_NOT_FOUND);
    /* accessed / dirty on a pointer are fine; frame and P are not */
    ck_assert_int_eq(xlat_pagetable_write(pt, l2, w.step[2].value | XLAT_PTE_ACCESSED), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_write(pt, l2, w.step[2].value | XLAT_PTE_PS), XLAT_ERR_PERM);
    ck_assert_int_eq(xlat_pagetable_write(pt, l2, xlat_pte_set_pfn(w.step[2].value, 0x100)),
                     XLAT_ERR_PERM);
    ck_assert_int_eq(xlat_pagetable_write(pt, l2, w.step[2].value & ~XLAT_PTE_PRESENT),
                     XLAT_ERR_PERM);
    /* a large leaf may be written into an empty level-2 slot; a pointer may not */
    ck_assert_int_eq(xlat_pagetable_write(pt, l2 + 8, XLAT_PTE_PRESENT | (2 * MIB)), XLAT_ERR_PERM);
    ck_assert_int_eq(
        xlat_pagetable_write(pt, l2 + 8, XLAT_PTE_PRESENT | XLAT_PTE_PS | (4 * MIB)), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 2 * MIB + 5, &te), XLAT_OK);
    ck_assert_uint_eq(te.pfn, 2);
    ck_assert_uint_eq(te.page_shift, 21);
    /* a present entry in the root is always a pointer */
    ck_assert_int_eq(xlat_pagetable_write(pt, w.step[0].entry_paddr + 8,
                                          XLAT_PTE_PRESENT | XLAT_PTE_PS | GIB),
                     XLAT_ERR_PERM);
    ck_assert_int_eq(xlat_pagetable_read(pt, l2 + 8, &v), XLAT_OK);
    ck_assert_uint_eq(v, XLAT_PTE_PRESENT | XLAT_PTE_PS | (4 * MIB));
    /* walkers' fast path */
    uint64_t root;
    ck_assert_int_eq(xlat__pt_read(pt, leaf, &v), XLAT_OK);
    ck_assert_uint_eq(v, w.step[3].value);
    ck_assert_int_eq(xlat__pt_read(pt, leaf + 1, &v), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat__pt_read(pt, 0x10000000, &v), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat__pt_root(pt, 1, &root), XLAT_OK);
    ck_assert_uint_eq(root, w.step[0].node_pfn);
    ck_assert_int_eq(xlat__pt_root(pt, 2, &root), XLAT_ERR_NOT_FOUND);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(m);
}
END_TEST

START_TEST(stats_and_spaces)
{
    xlat_physmem *m = make_mem(0x100, 256);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    for (uint32_t pasid = 10; pasid < 15; pasid++)
        for (uint64_t i = 0; i < 600; i++) /* 600 pages: two L1 nodes */
            map_ok(pt, pasid, i << 12, i + pasid, 12, RW);
    map_ok(pt, 12, 8 * GIB, 1, 21, RW);
    xlat_pagetable_stats st;
    xlat_pagetable_stats_get(pt, &st, sizeof(st));
    ck_assert_uint_eq(st.address_spaces, 5);
    ck_assert_uint_eq(st.nodes[4], 5);
    ck_assert_uint_eq(st.nodes[3], 5);
    ck_assert_uint_eq(st.nodes[2], 6);
    ck_assert_uint_eq(st.nodes[1], 10);
    ck_assert_uint_eq(st.nodes[5] + st.nodes[6] + st.nodes[0], 0);
    ck_assert_uint_eq(st.bytes, 26 * 4096);
    ck_assert_uint_eq(st.mapped[1], 3000);
    ck_assert_uint_eq(st.mapped[2], 1);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 256 - 26);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 13, 599 << 12, &e), XLAT_OK);
    ck_assert_uint_eq(e.pfn, 599 + 13);
    ck_assert_uint_eq(e.pasid, 13);
    xlat_pagetable_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.bytes + st.address_spaces, 0);
    xlat_pagetable_stats_get(pt, NULL, 0);
    ck_assert_uint_eq(xlat_pagetable_levels(NULL), 0);
    ck_assert_uint_eq(xlat_pagetable_level_shift(NULL, 1), 0);
    ck_assert_uint_eq(xlat_pagetable_index(NULL, 0x1000, 1), 0);
    ck_assert_int_eq(xlat_pagetable_lookup(NULL, 1, 0, NULL), XLAT_ERR_INVAL);
    uint64_t root;
    ck_assert_int_eq(xlat_pagetable_root(NULL, 1, &root), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_root(pt, 1, NULL), XLAT_ERR_INVAL);
    xlat_pagetable_destroy(pt);
    xlat_pagetable_destroy(NULL);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 256);
    xlat_physmem_destroy(m);
}
END_TEST

static int create_rc(xlat_physmem *m, uint32_t levels, uint32_t bits, uint32_t shift,
                     uint32_t region)
{
    xlat_pagetable_config c;
    xlat_pagetable *pt = NULL;
    xlat_pagetable_config_init(&c);
    c.mem = m;
    c.levels = levels;
    c.bits_per_level = bits;
    c.page_shift = shift;
    c.node_region = region;
    int rc = xlat_pagetable_create(ctx, &c, &pt);
    if (rc == XLAT_OK)
        xlat_pagetable_destroy(pt);
    else
        ck_assert_ptr_null(pt);
    return rc;
}

START_TEST(config_errors)
{
    xlat_pagetable_config c;
    xlat_pagetable_config_init(&c);
    ck_assert_uint_eq(c.struct_size, sizeof(c));
    ck_assert_ptr_null(c.mem);
    ck_assert_uint_eq(c.levels, 4);
    ck_assert_uint_eq(c.bits_per_level, 9);
    ck_assert_uint_eq(c.page_shift, 12);
    ck_assert_uint_eq(c.node_region, 0);
    xlat_physmem *m = make_mem(0x100, 64);
    ck_assert_int_eq(create_rc(m, 4, 9, 12, 0), XLAT_OK);
    ck_assert_int_eq(create_rc(m, 5, 9, 12, 0), XLAT_OK);
    ck_assert_int_eq(create_rc(m, 6, 7, 12, 0), XLAT_OK);  /* 54 bits */
    ck_assert_int_eq(create_rc(m, 6, 8, 12, 0), XLAT_ERR_INVAL); /* 60 bits */
    ck_assert_int_eq(create_rc(m, 6, 9, 12, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 2, 1, 12, 0), XLAT_OK);
    ck_assert_int_eq(create_rc(m, 1, 9, 12, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 7, 4, 12, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 4, 0, 12, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 4, 10, 12, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 4, 9, 16, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(m, 4, 9, 12, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(NULL, 4, 9, 12, 0), XLAT_ERR_INVAL);
    xlat_pagetable *pt = NULL;
    c.mem = m;
    ck_assert_int_eq(xlat_pagetable_create(NULL, &c, &pt), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_create(ctx, NULL, &pt), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_create(ctx, &c, NULL), XLAT_ERR_INVAL);
    c.struct_size = 8;
    ck_assert_int_eq(xlat_pagetable_create(ctx, &c, &pt), XLAT_ERR_INVAL);
    XLAT_TEST_NEWER(xlat_pagetable_config) newer = {.cfg = c};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_pagetable_create(ctx, &newer.cfg, &pt), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_null(pt);
    xlat_physmem_destroy(m);
}
END_TEST

/* ---- random run against a list of mappings ---------------------------- */

struct mapping {
    uint64_t va, pfn;
    uint8_t shift, perm;
};

struct pt_model {
    struct mapping *m;
    size_t n;
};

static struct mapping *model_find(struct pt_model *md, uint64_t va)
{
    for (size_t i = 0; i < md->n; i++)
        if (va - md->m[i].va < (UINT64_C(1) << md->m[i].shift))
            return &md->m[i];
    return NULL;
}

static int model_overlaps(const struct pt_model *md, uint64_t va, uint8_t shift)
{
    uint64_t end = va + (UINT64_C(1) << shift);
    for (size_t i = 0; i < md->n; i++)
        if (md->m[i].va < end && va < md->m[i].va + (UINT64_C(1) << md->m[i].shift))
            return 1;
    return 0;
}

/* Addresses crowd a few megabytes at 0 and at 1 GiB, so that pages of all
 * three sizes keep colliding. */
static uint64_t random_va(uint64_t r, uint8_t shift)
{
    uint64_t gib = (r >> 40) % 2 * GIB;
    if (shift == 30)
        return gib;
    if (shift == 21)
        return gib + (r >> 8) % 4 * 2 * MIB;
    return gib + (r >> 8) % 2048 * 4096;
}

static void random_map(xlat_pagetable *pt, struct pt_model *md, uint64_t r)
{
    static const uint8_t shifts[8] = {12, 12, 12, 12, 12, 21, 21, 30};
    uint8_t shift = shifts[r % 8];
    uint64_t va = random_va(r, shift), pfn = (r >> 20) % 1000;
    uint8_t perm = (uint8_t)((r >> 50) & 15);
    int rc = xlat_pagetable_map(pt, 1, va, pfn, shift, perm);
    ck_assert_int_eq(rc, model_overlaps(md, va, shift) ? XLAT_ERR_EXIST : XLAT_OK);
    if (rc == XLAT_OK)
        md->m[md->n++] = (struct mapping){va, pfn, shift, perm};
}

static void random_unmap(xlat_pagetable *pt, struct pt_model *md, uint64_t r)
{
    uint64_t va = md->n && r % 2 ? md->m[(r >> 8) % md->n].va : random_va(r, 12) + (r >> 50) % 2 * 8;
    struct mapping *hit = model_find(md, va);
    int want = !hit ? XLAT_ERR_NOT_FOUND : hit->va != va ? XLAT_ERR_INVAL : XLAT_OK;
    ck_assert_int_eq(xlat_pagetable_unmap(pt, 1, va), want);
    if (want == XLAT_OK)
        *hit = md->m[--md->n];
}

static void random_lookup(xlat_pagetable *pt, struct pt_model *md, uint64_t r)
{
    uint64_t va = random_va(r, 12) + (r >> 50) % 4096;
    struct mapping *hit = model_find(md, va);
    xlat_tlb_entry e;
    int rc = xlat_pagetable_lookup(pt, 1, va, &e);
    ck_assert_int_eq(rc, hit ? XLAT_OK : XLAT_ERR_FAULT);
    if (!hit)
        return;
    ck_assert_uint_eq(e.pfn, hit->pfn);
    ck_assert_uint_eq(e.page_shift, hit->shift);
    ck_assert_uint_eq(e.perm, hit->perm | XLAT_PERM_R);
}

START_TEST(matches_model)
{
    xlat_physmem *m = make_mem(0x100, 1024);
    xlat_pagetable *pt = make_pt(m, 4, 9);
    struct pt_model md = {calloc(4096, sizeof(struct mapping)), 0};
    uint64_t st = 3;
    for (int i = 0; i < 20000; i++) {
        uint64_t r = test_rand(&st);
        if (r % 3 == 0)
            random_map(pt, &md, r >> 2);
        else if (r % 3 == 1)
            random_unmap(pt, &md, r >> 2);
        else
            random_lookup(pt, &md, r >> 2);
    }
    xlat_pagetable_stats s;
    xlat_pagetable_stats_get(pt, &s, sizeof(s));
    uint64_t per_level[4] = {0};
    for (size_t i = 0; i < md.n; i++)
        per_level[md.m[i].shift == 12 ? 1 : md.m[i].shift == 21 ? 2 : 3]++;
    for (int k = 1; k <= 3; k++)
        ck_assert_uint_eq(s.mapped[k], per_level[k]);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 1024 - s.bytes / 4096);
    xlat_pagetable_destroy(pt);
    ck_assert_uint_eq(xlat_physmem_free_frames(m, 0), 1024);
    xlat_physmem_destroy(m);
    free(md.m);
}
END_TEST

/* A range mapped in one call, each page on a frame of the memory; all or
 * nothing when a page of it cannot be mapped. */
START_TEST(map_range_all_or_nothing)
{
    xlat_ctx *c = test_ctx(1, NULL);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(c, &mem, &pt);
    uint64_t before = xlat_physmem_free_frames(mem, 0);
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x10000000, 10 * 4096 + 1, 0,
                                              XLAT_PERM_R | XLAT_PERM_W), 11);
    for (uint64_t i = 0; i < 11; i++) {
        xlat_tlb_entry e;
        ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x10000000 + i * 4096, &e), XLAT_OK);
        ck_assert_uint_eq(e.perm & XLAT_PERM_W, XLAT_PERM_W);
    }
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x10000000 + 11 * 4096, NULL), XLAT_ERR_FAULT);
    uint64_t after = xlat_physmem_free_frames(mem, 0);
    ck_assert_uint_lt(after, before - 10); /* 11 frames and the nodes */
    /* a range overlapping the last pages: refused, nothing of it left */
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x10000000 + 2 * 4096, 16 * 4096, 0,
                                              XLAT_PERM_R),
                     XLAT_ERR_EXIST);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(c), "xlat_pagetable_map_range: page"));
    ck_assert_uint_eq(xlat_physmem_free_frames(mem, 0), after);
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x30000001, 4096, 0, XLAT_PERM_R),
                     XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(c), "not page-aligned"));
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x30000000, 0, 0, XLAT_PERM_R),
                     XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_map_range(NULL, 1, 0x30000000, 1, 0, XLAT_PERM_R),
                     XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x30000000, 4096, 99, XLAT_PERM_R),
                     XLAT_ERR_INVAL); /* no region 99 */
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x30000000, NULL), XLAT_ERR_FAULT);
    xlat_ctx_destroy(c);
}
END_TEST

/* A memory too small: the pages mapped before it ran out are taken back. */
START_TEST(map_range_full_takes_back)
{
    xlat_ctx *c = test_ctx(1, NULL);
    xlat_region_config r[2] = {{.base_pfn = 0x100, .frames = 8}, {.base_pfn = 0x1000, .frames = 64}};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 2;
    pc.region = r;
    xlat_physmem *mem;
    ck_assert_int_eq(xlat_physmem_create(c, &pc, &mem), XLAT_OK);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = mem;
    tc.node_region = 1;
    xlat_pagetable *pt;
    ck_assert_int_eq(xlat_pagetable_create(c, &tc, &pt), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x40000000, 9 * 4096, 0, XLAT_PERM_R),
                     XLAT_ERR_FULL);
    ck_assert_uint_eq(xlat_physmem_free_frames(mem, 0), 8);
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0x40000000, NULL), XLAT_ERR_FAULT);
    ck_assert_int_eq(xlat_pagetable_map_range(pt, 1, 0x40000000, 8 * 4096, 0, XLAT_PERM_R), 8);
    xlat_ctx_destroy(c);
}
END_TEST

Suite *pagetable_suite(void)
{
    Suite *s = suite_create("pagetable");
    TCase *tc = test_case(s, "layout");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fig8_layout);
    tcase_add_test(tc, page_sizes);
    tcase_add_test(tc, map_range_all_or_nothing);
    tcase_add_test(tc, map_range_full_takes_back);
    tcase_add_test(tc, walk_faults);
    tcase_add_test(tc, reads_follow_freed_and_reused_frames);
    tcase_add_test(tc, five_levels);
    tcase_add_test(tc, narrow_geometry);
    tcase_add_test(tc, overlaps);
    tcase_add_test(tc, stats_and_spaces);
    tc = test_case(s, "failures");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, failures_change_nothing);
    tcase_add_test(tc, full_rolls_back);
    tcase_add_test(tc, nomem_rolls_back);
    tcase_add_test(tc, queries_do_not_allocate);
    tcase_add_test(tc, config_errors);
    tc = test_case(s, "entries");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, unmap_and_protect);
    tcase_add_test(tc, pte_accessors);
    tcase_add_test(tc, software_bits_survive);
    tcase_add_test(tc, raw_writes);
    tcase_add_test(tc, matches_model);
    return s;
}
