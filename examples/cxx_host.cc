/*
 * A C++17 host class over xlat/xlat.hpp: an L1 TLB over a page-table walker,
 * owned by RAII handles declared in the order the C API creates them (the
 * context first, so it goes last), wired with xlat::target(), and fed with
 * xlat::translate() and lambdas that capture the host's own state. The
 * program checks that a page's first access is walked, that the second is an
 * L1 hit on the same frame, sooner, and that every callback ran.
 *
 *   c++ -std=c++17 cxx_host.cc $(pkg-config --cflags --libs libxlat) -o cxx_host
 */
#include <xlat/xlat.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct answer {
    std::uint64_t vaddr, paddr, cycles;
    std::string resolver;
};

class host {
public:
    /* Builds the units; ok() says whether every step succeeded. */
    host()
    {
        auto c = xlat::make_ctx();
        if (!c)
            return;
        ctx_ = std::move(c.ptr);
        xlat_physmem_config pc = xlat::physmem_config();
        auto m = xlat::make_physmem(ctx_, pc);
        if (!m) {
            fail("physmem");
            return;
        }
        mem_ = std::move(m.ptr);
        xlat_pagetable_config tc = xlat::pagetable_config();
        tc.mem = mem_.get();
        auto p = xlat::make_pagetable(ctx_, tc);
        if (!p) {
            fail("pagetable");
            return;
        }
        pt_ = std::move(p.ptr);
        xlat_walker_config wc = xlat::walker_config();
        wc.name = "walker";
        wc.pt = pt_.get();
        auto w = xlat::make_walker(ctx_, wc);
        if (!w) {
            fail("walker");
            return;
        }
        walker_ = std::move(w.ptr);
        xlat_tlb_config lc = xlat::system_l1_config();
        lc.name = "l1";
        auto l = xlat::make_tlb(ctx_, lc);
        if (!l) {
            fail("l1");
            return;
        }
        l1_ = std::move(l.ptr);
        xlat_target to_walker = xlat::target(walker_.get());
        if (xlat_tlb_set_next(l1_.get(), &to_walker) != XLAT_OK) {
            fail("wiring");
            return;
        }
        ok_ = true;
    }

    bool ok() const { return ok_; }

    /* `pages` pages of address space 1 on frames the placement chooses. */
    bool map(std::uint64_t vaddr, std::uint64_t pages)
    {
        if (xlat_pagetable_map_range(pt_.get(), 1, vaddr, pages * 4096, 0,
                                     XLAT_PERM_R | XLAT_PERM_W) != (std::int64_t)pages) {
            fail("map_range");
            return false;
        }
        return true;
    }

    /* Sends one read and runs the clock until it is answered; the lambda
     * captures the host and the cycle the read was sent. */
    bool read(std::uint64_t vaddr)
    {
        xlat_req req{};
        req.id = next_id_++;
        req.vaddr = vaddr;
        req.pasid = 1;
        req.access = XLAT_ACCESS_READ;
        std::uint64_t issued = xlat_now(ctx_.get());
        int rc = xlat::translate(l1_, req, [this, issued](const xlat_resp &r) {
            if (r.status == XLAT_OK)
                answers_.push_back({r.vaddr, r.paddr, r.completed - issued,
                                    xlat_unit_name(ctx_.get(), r.resolver)});
        });
        if (rc != XLAT_OK) {
            std::fprintf(stderr, "translate: %s\n", xlat_strerror(rc));
            return false;
        }
        return xlat::advance_until_idle(ctx_) == XLAT_OK;
    }

    const std::vector<answer> &answers() const { return answers_; }

private:
    void fail(const char *what)
    {
        std::fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx_.get()));
    }

    /* Declaration order is creation order: destruction runs backwards. */
    xlat::ctx_ptr ctx_;
    xlat::physmem_ptr mem_;
    xlat::pagetable_ptr pt_;
    xlat::walker_ptr walker_;
    xlat::tlb_ptr l1_;
    std::vector<answer> answers_;
    std::uint64_t next_id_ = 0;
    bool ok_ = false;
};

} // namespace

int main()
{
    const std::uint64_t base = 0x7f0000000000;
    host h;
    if (!h.ok() || !h.map(base, 16))
        return EXIT_FAILURE;
    /* Page 3 twice, then page 5 once. */
    for (std::uint64_t va : {base + 3 * 4096 + 0x10, base + 3 * 4096 + 0x80, base + 5 * 4096})
        if (!h.read(va))
            return EXIT_FAILURE;
    for (const answer &a : h.answers())
        std::printf("vaddr 0x%llx -> paddr 0x%llx  %-7s %llu cycles\n", (unsigned long long)a.vaddr,
                    (unsigned long long)a.paddr, a.resolver.c_str(), (unsigned long long)a.cycles);

    const auto &a = h.answers();
    bool good = a.size() == 3 && a[0].resolver == "walker" && a[1].resolver == "l1" &&
                (a[0].paddr >> 12) == (a[1].paddr >> 12) && a[1].cycles < a[0].cycles &&
                a[2].resolver == "walker" && (a[2].paddr >> 12) != (a[0].paddr >> 12);
    if (!good) {
        std::fprintf(stderr, "expected a walk, an L1 hit on the same frame, then a walk\n");
        return EXIT_FAILURE;
    }
    std::printf("first touch walked, second hit the L1 on the same frame\n");
    return EXIT_SUCCESS;
}
