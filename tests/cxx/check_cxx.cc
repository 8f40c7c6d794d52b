/*
 * The C++ header xlat/xlat.hpp, as a C++17 host uses it: RAII handles that
 * give every byte back, exact timing through translate with lambdas, the
 * callable's life (called once then freed; freed unseen when refused), the
 * factories' status. Built twice by the Makefile: with -fno-exceptions
 * -fno-rtti (the default mode) and with XLAT_CXX_EXCEPTIONS (the opt-in
 * throwing helpers). No framework: the last line is "N passed, M failed"
 * and the exit status is non-zero on any failure.
 */
#include <xlat/xlat.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

/* ---- a tiny harness ---------------------------------------------------- */

int checks_failed; /* in the running test */

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);           \
            checks_failed++;                                                                 \
        }                                                                                    \
    } while (0)

#define CHECK_EQ(a, b)                                                                       \
    do {                                                                                     \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);     \
        if (va_ != vb_) {                                                                    \
            std::printf("  %s:%d: %s == %s: 0x%llx != 0x%llx\n", __FILE__, __LINE__, #a, #b, \
                        va_, vb_);                                                           \
            checks_failed++;                                                                 \
        }                                                                                    \
    } while (0)

/* ---- a counting allocator for the contexts ----------------------------- */

struct counting_alloc {
    long long live_bytes = 0;
    long long live_blocks = 0;
    long long allocs = 0;
    xlat_allocator hooks{};
    counting_alloc()
    {
        hooks.alloc = [](void *user, size_t size, size_t align) -> void * {
            auto *self = static_cast<counting_alloc *>(user);
            void *p = nullptr;
            if (align < sizeof(void *))
                align = sizeof(void *);
            if (posix_memalign(&p, align, size ? size : 1) != 0)
                return nullptr;
            self->live_bytes += (long long)size;
            self->live_blocks++;
            self->allocs++;
            return p;
        };
        hooks.free = [](void *user, void *ptr, size_t size) {
            auto *self = static_cast<counting_alloc *>(user);
            if (ptr == nullptr)
                return;
            self->live_bytes -= (long long)size;
            self->live_blocks--;
            std::free(ptr);
        };
        hooks.user = this;
    }
    xlat::ctx_ptr make_ctx()
    {
        xlat_ctx_config cc = xlat::ctx_config();
        cc.allocator = &hooks;
        auto r = xlat::make_ctx(cc);
        return std::move(r.ptr);
    }
};

/* ---- an instrumented callable ----------------------------------------- */

struct counts {
    int constructed = 0; /* every constructor, copies and moves included */
    int destroyed = 0;
    int calls = 0;
    int live() const { return constructed - destroyed; }
};

struct probe {
    counts *c;
    explicit probe(counts *cc) : c(cc) { c->constructed++; }
    probe(const probe &o) : c(o.c) { c->constructed++; }
    probe(probe &&o) noexcept : c(o.c) { c->constructed++; }
    probe &operator=(const probe &) = delete;
    ~probe() { c->destroyed++; }
    void operator()(const xlat_resp &) { c->calls++; }
};

/* A response as the test keeps it: the resolver's name (xlat_unit_name of
 * its id) copied. */
struct answer {
    xlat_resp r;
    std::string resolver;
};

xlat_req make_req(uint64_t id, uint64_t vaddr)
{
    xlat_req q{};
    q.id = id;
    q.vaddr = vaddr;
    q.pasid = 1;
    q.access = XLAT_ACCESS_READ;
    return q;
}

/* ---- tests ------------------------------------------------------------- */

static_assert(sizeof(xlat::tlb_ptr) == sizeof(void *), "a stateless deleter");
static_assert(sizeof(xlat::ctx_ptr) == sizeof(void *), "a stateless deleter");
static_assert(!std::is_copy_constructible_v<xlat::system_ptr>, "handles are move-only");

/* examples/l1_l2.c in C++: L1 (16 entries, latency 1) over L2 (512, latency
 * 10, 16 MSHRs) over a 100-cycle responder with pfn_offset 0x80000; the
 * same cycles and frames as the C example prints. */
void test_l1_l2_exact()
{
    counting_alloc heap;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        CHECK(ctx != nullptr);

        xlat_tlb_config cfg = xlat::tlb_config();
        cfg.name = "l1";
        cfg.entries = 16;
        cfg.ways = 16;
        cfg.latency = 1;
        auto [l1, rc1] = xlat::make_tlb(ctx, cfg);
        CHECK_EQ(rc1, XLAT_OK);
        cfg.name = "l2";
        cfg.entries = 512;
        cfg.ways = 16;
        cfg.latency = 10;
        cfg.mshrs = 16;
        auto l2 = xlat::make_tlb(ctx, cfg);
        CHECK(l2);
        xlat_fixed_config fc = xlat::fixed_config();
        fc.name = "walker";
        fc.latency = 100;
        fc.pfn_offset = 0x80000;
        auto walker = xlat::make_fixed(ctx, fc);
        CHECK(walker);

        xlat_target to_l2 = xlat::target(l2.ptr.get());
        xlat_target to_walker = xlat::target(walker.ptr.get());
        CHECK_EQ(xlat_tlb_set_next(l1.get(), &to_l2), XLAT_OK);
        CHECK_EQ(xlat_tlb_set_next(l2.ptr.get(), &to_walker), XLAT_OK);

        std::vector<answer> got;
        const uint64_t vaddr[] = {0x7f0000001000, 0x7f0000001040, 0x7f0000002000, 0x7f0000001080};
        int refused = 0;
        for (uint64_t i = 0; i < 4; i++) {
            if (i == 3)
                CHECK_EQ(xlat_advance(ctx.get(), 200), XLAT_OK);
            for (;;) {
                size_t before = got.size();
                xlat_ctx *c = ctx.get();
                int rc = xlat::translate(l1, make_req(i, vaddr[i]), [&got, c](const xlat_resp &r) {
                    const char *name = xlat_unit_name(c, r.resolver);
                    got.push_back(answer{r, name ? name : ""});
                });
                CHECK_EQ(got.size(), before); /* never answered inside the call */
                if (rc != XLAT_ERR_AGAIN) {
                    CHECK_EQ(rc, XLAT_OK);
                    break;
                }
                refused++;
                xlat_tick(ctx.get()); /* one port: retry next cycle */
            }
        }
        CHECK_EQ(got.size(), 3); /* the first three, during the advance of 200 */
        CHECK_EQ(xlat::advance_until_idle(ctx), XLAT_OK);
        CHECK_EQ(refused, 2);

        struct want {
            uint64_t id, paddr, issued, completed;
            const char *resolver;
        } const expect[] = {
            {0, 0x7f0080001000, 0, 111, "walker"},
            {1, 0x7f0080001040, 1, 111, "walker"},
            {2, 0x7f0080002000, 2, 113, "walker"},
            {3, 0x7f0080001080, 202, 203, "l1"},
        };
        CHECK_EQ(got.size(), 4);
        for (size_t i = 0; i < got.size() && i < 4; i++) {
            CHECK_EQ(got[i].r.id, expect[i].id);
            CHECK_EQ(got[i].r.status, XLAT_OK);
            CHECK_EQ(got[i].r.paddr, expect[i].paddr);
            CHECK_EQ(got[i].r.pfn, expect[i].paddr >> 12);
            CHECK_EQ(got[i].r.issued, expect[i].issued);
            CHECK_EQ(got[i].r.completed, expect[i].completed);
            CHECK(got[i].resolver == expect[i].resolver);
        }
        xlat_tlb_stats s;
        xlat_tlb_stats_get(l1.get(), &s, sizeof(s));
        CHECK_EQ(s.accesses, 4);
        CHECK_EQ(s.hits, 1);
        CHECK_EQ(s.misses, 3);
        CHECK_EQ(s.mshr_merges, 1);
        CHECK(heap.live_bytes > 0);
        /* ctx was declared first, so it is destroyed last */
    }
    CHECK_EQ(heap.live_bytes, 0);
    CHECK_EQ(heap.live_blocks, 0);
    CHECK(heap.allocs > 0);
}

/* A move-only lambda (it owns a std::unique_ptr<int>) is taken, called once
 * at the exact cycle and freed with what it captured. */
void test_move_only_lambda()
{
    counting_alloc heap;
    counts c;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        xlat_fixed_config fc = xlat::fixed_config();
        fc.latency = 7;
        fc.pfn_offset = 0x100;
        auto fixed = xlat::make_fixed(ctx, fc);
        CHECK(fixed);

        auto owned = std::make_unique<int>(42);
        int seen = 0;
        uint64_t at = 0, pfn = 0;
        auto cb = [owned = std::move(owned), token = probe(&c), &seen, &at, &pfn](
                      const xlat_resp &r) mutable {
            seen += *owned;
            at = r.completed;
            pfn = r.pfn;
            token(r);
        };
        static_assert(!std::is_copy_constructible_v<decltype(cb)>, "the lambda is move-only");
        CHECK_EQ(xlat::translate(fixed.ptr, make_req(9, 0x5000), std::move(cb)), XLAT_OK);
        CHECK_EQ(seen, 0);
        CHECK_EQ(xlat_advance(ctx.get(), 6), XLAT_OK);
        CHECK_EQ(seen, 0);
        CHECK_EQ(xlat_tick(ctx.get()), XLAT_OK);
        CHECK_EQ(seen, 42);
        CHECK_EQ(at, 7);
        CHECK_EQ(pfn, 0x5 + 0x100);
        CHECK_EQ(c.calls, 1);
        /* the moved-from lambda still exists here; the heap one is gone */
        CHECK_EQ(c.live(), 1);
        CHECK_EQ(xlat::advance_until_idle(ctx), XLAT_OK);
        CHECK_EQ(c.calls, 1);
    }
    CHECK_EQ(c.live(), 0);
    CHECK_EQ(heap.live_bytes, 0);
}

/* Refused translates free the callable at once and never call it: ports
 * exhausted (XLAT_ERR_AGAIN), no timed unit yet (XLAT_ERR_STATE), a bad
 * access (XLAT_ERR_INVAL). */
void test_refused_frees_callable()
{
    counting_alloc heap;
    counts accepted, refused;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        xlat_tlb_config cfg = xlat::tlb_config();
        cfg.entries = 16;
        cfg.ways = 16;
        cfg.latency = 1;
        cfg.ports = 1;
        auto tlb = xlat::make_tlb(ctx, cfg);
        CHECK(tlb);

        /* before xlat_tlb_set_next(): no timed unit */
        CHECK_EQ(xlat::translate(tlb.ptr, make_req(0, 0x1000), probe(&refused)), XLAT_ERR_STATE);
        CHECK_EQ(refused.calls, 0);
        CHECK_EQ(refused.live(), 0);

        CHECK_EQ(xlat_tlb_set_next(tlb.ptr.get(), nullptr), XLAT_OK);
        CHECK_EQ(xlat::translate(tlb.ptr, make_req(1, 0x1000), probe(&accepted)), XLAT_OK);
        CHECK_EQ(accepted.live(), 1); /* held until the answer */

        /* the one port of this cycle is taken */
        probe lvalue(&refused); /* an lvalue is copied in, the copy freed */
        CHECK_EQ(xlat::translate(tlb.ptr.get(), make_req(2, 0x2000), lvalue), XLAT_ERR_AGAIN);
        xlat_target t = xlat::target(tlb.ptr.get());
        CHECK_EQ(xlat::translate(t, make_req(3, 0x3000), probe(&refused)), XLAT_ERR_AGAIN);
        xlat_req bad = make_req(4, 0x4000);
        bad.access = (xlat_access)99;
        CHECK_EQ(xlat::translate(t, bad, probe(&refused)), XLAT_ERR_INVAL);
        CHECK_EQ(refused.calls, 0);
        CHECK_EQ(refused.live(), 1); /* only `lvalue` itself */
        CHECK(refused.constructed >= 5);

        CHECK_EQ(xlat::advance_until_idle(ctx), XLAT_OK);
        CHECK_EQ(accepted.calls, 1);
        CHECK_EQ(accepted.live(), 0);
        CHECK_EQ(refused.calls, 0);

        xlat_tlb_stats s;
        xlat_tlb_stats_get(tlb.ptr.get(), &s, sizeof(s));
        CHECK_EQ(s.accesses, 1);
        CHECK_EQ(s.refusals, 2);
    }
    CHECK_EQ(refused.live(), 0);
    CHECK_EQ(heap.live_bytes, 0);
}

/* A callable may send the next request from inside its own call; each one
 * is called once and freed. */
void test_chained_from_callback()
{
    counting_alloc heap;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        xlat_link_config lc = xlat::link_config();
        lc.latency = 3;
        lc.latency_back = 2;
        auto link = xlat::make_link(ctx, lc);
        xlat_fixed_config fc = xlat::fixed_config();
        fc.latency = 10;
        auto fixed = xlat::make_fixed(ctx, fc);
        CHECK(link && fixed);
        xlat_target below = xlat::target(fixed.ptr.get());
        CHECK_EQ(xlat_link_set_next(link.ptr.get(), &below), XLAT_OK);

        std::vector<uint64_t> done_at;
        struct chain {
            xlat_link *link;
            std::vector<uint64_t> *done_at;
            int left;
            void operator()(const xlat_resp &r)
            {
                done_at->push_back(r.completed);
                if (left > 0)
                    CHECK_EQ(xlat::translate(link, make_req(r.id + 1, 0x1000),
                                             chain{link, done_at, left - 1}),
                             XLAT_OK);
            }
        };
        CHECK_EQ(xlat::translate(link.ptr, make_req(0, 0x1000), chain{link.ptr.get(), &done_at, 2}),
                 XLAT_OK);
        CHECK_EQ(xlat::advance_until_idle(ctx), XLAT_OK);
        CHECK_EQ(done_at.size(), 3);
        for (size_t i = 0; i < done_at.size(); i++)
            CHECK_EQ(done_at[i], 15 * (i + 1)); /* 3 + 10 + 2 each */
    }
    CHECK_EQ(heap.live_bytes, 0);
}

/* Every handle type through its factory, released by RAII in declaration
 * order reversed, with nothing left on the context's allocator. */
void test_every_handle_raii()
{
    counting_alloc heap;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        CHECK(ctx != nullptr);

        xlat_cuckoo_config cc = xlat::cuckoo_config();
        cc.capacity = 1000;
        auto cuckoo = xlat::make_cuckoo(ctx, cc);
        CHECK(cuckoo);

        xlat_region_config region{};
        region.base_pfn = 0x100000;
        region.frames = 4096;
        xlat_physmem_config pmc = xlat::physmem_config();
        pmc.regions = 1;
        pmc.region = &region;
        auto [mem, rc_mem] = xlat::make_physmem(ctx, pmc);
        CHECK_EQ(rc_mem, XLAT_OK);

        xlat_pagetable_config ptc = xlat::pagetable_config();
        ptc.mem = mem.get();
        auto [pt, rc_pt] = xlat::make_pagetable(ctx, ptc);
        CHECK_EQ(rc_pt, XLAT_OK);
        CHECK_EQ(xlat_pagetable_map(pt.get(), 1, 0x7f0000000000, 0x4242, 12,
                                    XLAT_PERM_R | XLAT_PERM_W),
                 XLAT_OK);

        auto pwc = xlat::make_pwc(ctx, xlat::pwc_config());
        CHECK(pwc);

        xlat_walker_config wc = xlat::walker_config();
        wc.pt = pt.get();
        wc.pwc = pwc.ptr.get();
        auto walker = xlat::make_walker(ctx, wc);
        CHECK(walker);

        xlat_gmmu_config gc = xlat::gmmu_config();
        gc.walker = walker.ptr.get();
        auto gmmu = xlat::make_gmmu(ctx, gc);
        CHECK_EQ(gmmu.rc, XLAT_OK);
        if (!gmmu)
            std::printf("  gmmu: %s\n", xlat_ctx_errmsg(ctx.get()));

        xlat_walker_config iwc = xlat::iommu_walker_config();
        iwc.pt = pt.get();
        xlat_iommu_config ic = xlat::iommu_config();
        ic.walk = &iwc;
        auto iommu = xlat::make_iommu(ctx, ic);
        CHECK(iommu);

        xlat_system_config sc = xlat::system_config();
        sc.iommu = &ic;
        auto sys = xlat::make_system(ctx, sc);
        CHECK(sys);

        auto link = xlat::make_link(ctx, xlat::link_config());
        auto tlb = xlat::make_tlb(ctx, xlat::tlb_config());
        auto fixed = xlat::make_fixed(ctx, xlat::fixed_config());
        CHECK(link && tlb && fixed);

        /* a walk through the walker pool, answered with the mapped frame */
        uint64_t pfn = 0;
        int calls = 0;
        CHECK_EQ(xlat::translate(walker.ptr, make_req(1, 0x7f0000000123),
                                 [&](const xlat_resp &r) {
                                     pfn = r.pfn;
                                     calls++;
                                 }),
                 XLAT_OK);
        /* and one through the whole system */
        int sys_calls = 0, sys_status = 1;
        xlat_req q = make_req(2, 0x7f0000000456);
        q.gpu = 1;
        CHECK_EQ(xlat::translate(sys.ptr, q,
                                 [&](const xlat_resp &r) {
                                     sys_status = r.status;
                                     sys_calls++;
                                 }),
                 XLAT_OK);
        CHECK_EQ(xlat::advance_until_idle(ctx), XLAT_OK);
        CHECK_EQ(calls, 1);
        CHECK_EQ(pfn, 0x4242);
        CHECK_EQ(sys_calls, 1);
        CHECK_EQ(sys_status, XLAT_OK);
        CHECK(heap.live_bytes > 0);
    }
    CHECK_EQ(heap.live_bytes, 0);
    CHECK_EQ(heap.live_blocks, 0);
}

/* A factory that fails returns an empty pointer, the code, and leaves the
 * detail on the context. */
void test_factory_errors()
{
    counting_alloc heap;
    {
        xlat_ctx_config bad_ctx = xlat::ctx_config();
        bad_ctx.struct_size = 1;
        auto c = xlat::make_ctx(bad_ctx);
        CHECK(!c);
        CHECK_EQ(c.rc, XLAT_ERR_INVAL);
        CHECK(c.ptr == nullptr);

        xlat::ctx_ptr ctx = heap.make_ctx();
        xlat_tlb_config cfg = xlat::tlb_config();
        cfg.ways = 0;
        auto [tlb, rc] = xlat::make_tlb(ctx, cfg);
        CHECK_EQ(rc, XLAT_ERR_INVAL);
        CHECK(tlb == nullptr);
        CHECK(std::strlen(xlat_ctx_errmsg(ctx.get())) > 0);

        /* moving a handle moves ownership; reset destroys at once */
        auto good = xlat::make_tlb(ctx, xlat::tlb_config());
        xlat::tlb_ptr moved = std::move(good.ptr);
        CHECK(good.ptr == nullptr && moved != nullptr);
        long long before = heap.live_bytes;
        moved.reset();
        CHECK(heap.live_bytes < before);
    }
    CHECK_EQ(heap.live_bytes, 0);
}

#ifdef XLAT_CXX_EXCEPTIONS
/* The opt-in throwing helpers. */
void test_exceptions()
{
    counting_alloc heap;
    {
        xlat::ctx_ptr ctx = heap.make_ctx();
        xlat_tlb_config cfg = xlat::tlb_config();
        cfg.ways = 0;
        int code = 0;
        std::string what;
        try {
            xlat::tlb_ptr tlb = xlat::take(xlat::make_tlb(ctx, cfg), ctx);
            CHECK(false);
        } catch (const xlat::error &e) {
            code = e.code();
            what = e.what();
        }
        CHECK_EQ(code, XLAT_ERR_INVAL);
        CHECK(what.find("XLAT_ERR_INVAL") != std::string::npos);
        CHECK(what.find(xlat_ctx_errmsg(ctx.get())) != std::string::npos);

        xlat::tlb_ptr tlb = xlat::take(xlat::make_tlb(ctx, xlat::tlb_config()), ctx);
        CHECK(tlb != nullptr);
        CHECK_EQ(xlat::check(1, ctx), 1); /* non-negative values pass through */
        bool thrown = false;
        try {
            xlat::check(XLAT_ERR_AGAIN);
        } catch (const std::runtime_error &) {
            thrown = true;
        }
        CHECK(thrown);
    }
    CHECK_EQ(heap.live_bytes, 0);
}
#endif

struct test_case {
    const char *name;
    void (*fn)();
};

const test_case tests[] = {
    {"l1_l2_exact", test_l1_l2_exact},
    {"move_only_lambda", test_move_only_lambda},
    {"refused_frees_callable", test_refused_frees_callable},
    {"chained_from_callback", test_chained_from_callback},
    {"every_handle_raii", test_every_handle_raii},
    {"factory_errors", test_factory_errors},
#ifdef XLAT_CXX_EXCEPTIONS
    {"exceptions", test_exceptions},
#endif
};

} // namespace

int main()
{
    int passed = 0, failed = 0;
#ifdef XLAT_CXX_EXCEPTIONS
    const char *mode = "exceptions";
#else
    const char *mode = "no exceptions";
#endif
    std::printf("xlat.hpp (%s):\n", mode);
    for (const test_case &t : tests) {
        checks_failed = 0;
        t.fn();
        std::printf("  %-24s %s\n", t.name, checks_failed ? "FAILED" : "ok");
        if (checks_failed)
            failed++;
        else
            passed++;
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
