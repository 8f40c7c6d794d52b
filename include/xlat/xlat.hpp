/*
 * xlat/xlat.hpp: C++17 conveniences over libxlat's C API. Header-only; it
 * adds no symbol to the library and needs no exceptions or RTTI.
 *
 *   #include <xlat/xlat.hpp>
 *
 *   auto [ctx, rc] = xlat::make_ctx();                  // xlat::ctx_ptr, int
 *   xlat_tlb_config cfg = xlat::tlb_config();          // xlat_tlb_config_init()
 *   cfg.latency = 1;
 *   auto l1 = xlat::make_tlb(ctx, cfg);                // l1.ptr, l1.rc
 *   if (!l1) std::puts(xlat_ctx_errmsg(ctx.get()));
 *   xlat_tlb_set_next(l1.ptr.get(), nullptr);
 *   xlat_req req{};
 *   req.vaddr = 0x1000;
 *   xlat::translate(l1.ptr, req, [buf = std::move(buf)](const xlat_resp &r) { ... });
 *   xlat::advance_until_idle(ctx.get());
 *
 * Handles. xlat::ctx_ptr, tlb_ptr, cuckoo_ptr, fixed_ptr, link_ptr,
 * physmem_ptr, pagetable_ptr, pwc_ptr, walker_ptr, iommu_ptr, gmmu_ptr and
 * system_ptr are std::unique_ptr with a stateless deleter that calls the
 * matching xlat_<obj>_destroy() (so each is one pointer wide). .get() gives
 * the raw handle for every C call; the C functions never take ownership.
 *
 * Destruction order (the rule that matters). A unit must be destroyed
 * before the context that made it, and a unit before the units it refers
 * to without owning them (a walker's page table and page walk cache, a page
 * table's physical memory, a GMMU's walker, ...). C++ destroys locals and
 * members in the reverse order of their declaration, so:
 *   - declare the ctx_ptr first (as a class member: the first member), and
 *   - declare each unit after the units it refers to, i.e. in the order the
 *     C API requires you to create them.
 * Then leaving the scope destroys everything in a safe order. Do not rely
 * on xlat_ctx_destroy() destroying units it still has: today it does not.
 * Units that send to one another may be destroyed in any order as long as
 * the context is not advanced in between (ctx.h, "Tearing down"), which is
 * what a scope's exit does.
 *
 * Factories. xlat::make_<obj>(ctx, cfg) calls xlat_<obj>_create() and
 * returns an xlat::result<P> {P ptr; int rc;}: on success rc is XLAT_OK and
 * ptr owns the handle; on failure rc is the negative XLAT_ERR_* code, ptr
 * is empty and xlat_ctx_errmsg(ctx) has the detail. It converts to true on
 * success and unpacks with structured bindings (auto [p, rc] = ...).
 * xlat::<obj>_config() returns a config filled by xlat_<obj>_config_init().
 *
 * Exceptions are opt-in. Nothing here throws by default and the header
 * builds with -fno-exceptions. A host that defines XLAT_CXX_EXCEPTIONS
 * before including it (and builds with exceptions) also gets xlat::error
 * (a std::runtime_error carrying code() and the xlat_strerror() /
 * xlat_ctx_errmsg() text), xlat::check(rc, ctx), which throws for a
 * negative rc and returns any other, and xlat::take(result, ctx), which
 * returns the handle or throws.
 *
 * translate. xlat::translate(unit, req, on_done) sends req to a target, a
 * raw handle or a unique_ptr of a timed unit (tlb, fixed, link, walker,
 * gmmu, iommu, system). on_done is any callable taking const xlat_resp &,
 * move-only lambdas included. It is moved (or copied, for an lvalue) into
 * one heap block with operator new (std::nothrow):
 *   - accepted (XLAT_OK): called exactly once with the answer, from inside
 *     xlat_tick() / xlat_advance(), then destroyed and freed;
 *   - refused (XLAT_ERR_AGAIN, ...): destroyed and freed before translate
 *     returns, never called (libxlat: a refused call never calls back);
 *   - the block cannot be allocated: XLAT_ERR_NOMEM, nothing sent.
 * So unlike the C call, this translate allocates (one block per request,
 * outside the context's allocator). on_done runs inside libxlat's call
 * stack and must not throw (an exception leaving it calls std::terminate);
 * it follows the callback rules of ctx.h (it may send new requests; it must
 * not advance the clock or destroy the unit that calls it). A request still
 * in flight when its unit is destroyed is dropped by libxlat without an
 * answer, and its callable with it is never called nor freed: run the clock
 * until idle first (xlat::advance_until_idle()).
 *
 * Threads: as for the C API, one context and its units belong to one thread
 * at a time.
 */
#ifndef XLAT_XLAT_HPP
#define XLAT_XLAT_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "xlat/xlat.hpp needs C++17; C programs include xlat/xlat.h"
#endif

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "xlat.h"

#ifdef XLAT_CXX_EXCEPTIONS
#if !defined(__cpp_exceptions) && !defined(__EXCEPTIONS)
#error "XLAT_CXX_EXCEPTIONS is defined but exceptions are disabled (-fno-exceptions)"
#endif
#include <stdexcept>
#include <string>
#endif

namespace xlat {

/* ---- owning handles --------------------------------------------------- */

/** A stateless deleter calling libxlat's destroy function `Destroy`. A
 *  unit another unit still holds is not destroyed (::XLAT_ERR_BUSY): the
 *  context's destroy takes it, so declare the ctx_ptr first (it goes last). */
template <class T, auto Destroy>
struct deleter {
    void operator()(T *p) const noexcept { (void)Destroy(p); }
};

using ctx_ptr       = std::unique_ptr<xlat_ctx, deleter<xlat_ctx, &xlat_ctx_destroy>>;
using tlb_ptr       = std::unique_ptr<xlat_tlb, deleter<xlat_tlb, &xlat_tlb_destroy>>;
using cuckoo_ptr    = std::unique_ptr<xlat_cuckoo, deleter<xlat_cuckoo, &xlat_cuckoo_destroy>>;
using fixed_ptr     = std::unique_ptr<xlat_fixed, deleter<xlat_fixed, &xlat_fixed_destroy>>;
using link_ptr      = std::unique_ptr<xlat_link, deleter<xlat_link, &xlat_link_destroy>>;
using physmem_ptr   = std::unique_ptr<xlat_physmem, deleter<xlat_physmem, &xlat_physmem_destroy>>;
using pagetable_ptr = std::unique_ptr<xlat_pagetable,
                                      deleter<xlat_pagetable, &xlat_pagetable_destroy>>;
using pwc_ptr       = std::unique_ptr<xlat_pwc, deleter<xlat_pwc, &xlat_pwc_destroy>>;
using walker_ptr    = std::unique_ptr<xlat_walker, deleter<xlat_walker, &xlat_walker_destroy>>;
using iommu_ptr     = std::unique_ptr<xlat_iommu, deleter<xlat_iommu, &xlat_iommu_destroy>>;
using gmmu_ptr      = std::unique_ptr<xlat_gmmu, deleter<xlat_gmmu, &xlat_gmmu_destroy>>;
using system_ptr    = std::unique_ptr<xlat_system, deleter<xlat_system, &xlat_system_destroy>>;

/** What a factory returns: the owning handle (empty on failure) and the status. */
template <class P>
struct result {
    P   ptr;            /**< owns the handle when rc == XLAT_OK, empty otherwise */
    int rc = XLAT_OK;   /**< XLAT_OK or a negative XLAT_ERR_* */
    explicit operator bool() const noexcept { return rc == XLAT_OK; }
};

/* ---- targets ---------------------------------------------------------- */

/** @name A unit as an ::xlat_target
 *  The unit's xlat_X_get_target() into a fresh ::XLAT_TARGET_INIT; on
 *  failure the target's `translate` is NULL, which every set_next refuses
 *  (and xlat_ctx_errmsg() says why). */
/** @{ */
#define XLAT_CXX_TARGET(kind)                                    \
    inline xlat_target target(xlat_##kind *unit) noexcept        \
    {                                                            \
        xlat_target t = XLAT_TARGET_INIT;                        \
        if (xlat_##kind##_get_target(unit, &t) != XLAT_OK)       \
            t.translate = nullptr;                               \
        return t;                                                \
    }
XLAT_CXX_TARGET(tlb)
XLAT_CXX_TARGET(fixed)
XLAT_CXX_TARGET(link)
XLAT_CXX_TARGET(walker)
XLAT_CXX_TARGET(iommu)
XLAT_CXX_TARGET(gmmu)
#undef XLAT_CXX_TARGET
/** @} */

/* ---- configs ---------------------------------------------------------- */

namespace detail {
template <class C>
inline C init_config(void (*init)(C *)) noexcept
{
    C c{};
    init(&c);
    return c;
}
} // namespace detail

inline xlat_ctx_config ctx_config() noexcept { return detail::init_config(&xlat_ctx_config_init); }
inline xlat_tlb_config tlb_config() noexcept { return detail::init_config(&xlat_tlb_config_init); }
inline xlat_cuckoo_config cuckoo_config() noexcept { return detail::init_config(&xlat_cuckoo_config_init); }
inline xlat_fixed_config fixed_config() noexcept { return detail::init_config(&xlat_fixed_config_init); }
inline xlat_link_config link_config() noexcept { return detail::init_config(&xlat_link_config_init); }
inline xlat_physmem_config physmem_config() noexcept { return detail::init_config(&xlat_physmem_config_init); }
inline xlat_pagetable_config pagetable_config() noexcept { return detail::init_config(&xlat_pagetable_config_init); }
inline xlat_pwc_config pwc_config() noexcept { return detail::init_config(&xlat_pwc_config_init); }
inline xlat_walker_config walker_config() noexcept { return detail::init_config(&xlat_walker_config_init); }
inline xlat_walker_config iommu_walker_config() noexcept { return detail::init_config(&xlat_iommu_walker_config_init); }
inline xlat_iommu_config iommu_config() noexcept { return detail::init_config(&xlat_iommu_config_init); }
inline xlat_gmmu_config gmmu_config() noexcept { return detail::init_config(&xlat_gmmu_config_init); }
inline xlat_system_config system_config() noexcept { return detail::init_config(&xlat_system_config_init); }
inline xlat_tlb_config system_l1_config() noexcept { return detail::init_config(&xlat_system_l1_config_init); }
inline xlat_tlb_config system_l2_config() noexcept { return detail::init_config(&xlat_system_l2_config_init); }

/* ---- factories -------------------------------------------------------- */

namespace detail {
template <class P, class C, class T>
inline result<P> create(int (*fn)(xlat_ctx *, const C *, T **), xlat_ctx *ctx, const C &cfg) noexcept
{
    T *raw = nullptr;
    int rc = fn(ctx, &cfg, &raw);
    return result<P>{P(rc == XLAT_OK ? raw : nullptr), rc};
}
} // namespace detail

/** A context; with no config, the defaults (seed 0, malloc). */
inline result<ctx_ptr> make_ctx(const xlat_ctx_config *cfg = nullptr) noexcept
{
    xlat_ctx *raw = nullptr;
    int rc = xlat_ctx_create(cfg, &raw);
    return result<ctx_ptr>{ctx_ptr(rc == XLAT_OK ? raw : nullptr), rc};
}
inline result<ctx_ptr> make_ctx(const xlat_ctx_config &cfg) noexcept { return make_ctx(&cfg); }

#define XLAT_HPP_FACTORY(obj)                                                                     \
    inline result<obj##_ptr> make_##obj(xlat_ctx *ctx, const xlat_##obj##_config &cfg) noexcept \
    {                                                                                             \
        return detail::create<obj##_ptr>(&xlat_##obj##_create, ctx, cfg);                        \
    }                                                                                             \
    inline result<obj##_ptr> make_##obj(const ctx_ptr &ctx, const xlat_##obj##_config &cfg) noexcept \
    {                                                                                             \
        return make_##obj(ctx.get(), cfg);                                                        \
    }
/* make_tlb, make_cuckoo, ...: (xlat_ctx * or const ctx_ptr &, const config &) */
XLAT_HPP_FACTORY(tlb)
XLAT_HPP_FACTORY(cuckoo)
XLAT_HPP_FACTORY(fixed)
XLAT_HPP_FACTORY(link)
XLAT_HPP_FACTORY(physmem)
XLAT_HPP_FACTORY(pagetable)
XLAT_HPP_FACTORY(pwc)
XLAT_HPP_FACTORY(walker)
XLAT_HPP_FACTORY(iommu)
XLAT_HPP_FACTORY(gmmu)
XLAT_HPP_FACTORY(system)
#undef XLAT_HPP_FACTORY

/* ---- translate with a callable ---------------------------------------- */

namespace detail {
/* The C completion: call the heap-held callable once, then free it. */
template <class Fn>
void done_thunk(void *user, const xlat_resp *resp) noexcept
{
    Fn *fn = static_cast<Fn *>(user);
    (*fn)(*resp);
    delete fn;
}

template <class U, class F>
int send(int (*translate)(U *, const xlat_req *, xlat_done_fn, void *), U *unit,
         const xlat_req &req, F &&on_done)
{
    using Fn = std::decay_t<F>;
    static_assert(std::is_invocable_v<Fn &, const xlat_resp &>,
                  "xlat::translate: on_done must be callable as on_done(const xlat_resp &)");
    Fn *fn = new (std::nothrow) Fn(std::forward<F>(on_done));
    if (fn == nullptr)
        return XLAT_ERR_NOMEM;
    int rc = translate(unit, &req, &done_thunk<Fn>, fn);
    if (rc != XLAT_OK)
        delete fn; /* refused: libxlat will never call back */
    return rc;
}
} // namespace detail

/** Send `req` to `target`; see the top of this header for on_done's life. */
template <class F>
int translate(const xlat_target &target, const xlat_req &req, F &&on_done)
{
    return detail::send(&xlat_target_translate, &target, req, std::forward<F>(on_done));
}

#define XLAT_HPP_TRANSLATE(obj)                                                              \
    template <class F>                                                                       \
    int translate(xlat_##obj *unit, const xlat_req &req, F &&on_done)                        \
    {                                                                                        \
        return detail::send(&xlat_##obj##_translate, unit, req, std::forward<F>(on_done));  \
    }                                                                                        \
    template <class F>                                                                       \
    int translate(const obj##_ptr &unit, const xlat_req &req, F &&on_done)                   \
    {                                                                                        \
        return translate(unit.get(), req, std::forward<F>(on_done));                         \
    }
/* translate(xlat_tlb * or const tlb_ptr &, req, on_done), and so on */
XLAT_HPP_TRANSLATE(tlb)
XLAT_HPP_TRANSLATE(fixed)
XLAT_HPP_TRANSLATE(link)
XLAT_HPP_TRANSLATE(walker)
XLAT_HPP_TRANSLATE(gmmu)
XLAT_HPP_TRANSLATE(iommu)
XLAT_HPP_TRANSLATE(system)
#undef XLAT_HPP_TRANSLATE

/**
 * Advance `ctx` from event to event until nothing is pending, so that every
 * accepted request has been answered (and its callable freed).
 * @return XLAT_OK, or what xlat_advance() refused with (XLAT_ERR_STATE
 *         from inside a callback, XLAT_ERR_INVAL for a NULL ctx).
 */
inline int advance_until_idle(xlat_ctx *ctx) noexcept
{
    if (ctx == nullptr)
        return XLAT_ERR_INVAL;
    for (std::uint64_t t; (t = xlat_next_event(ctx)) != XLAT_NEVER;) {
        int rc = xlat_advance(ctx, t - xlat_now(ctx));
        if (rc != XLAT_OK)
            return rc;
    }
    return XLAT_OK;
}
inline int advance_until_idle(const ctx_ptr &ctx) noexcept { return advance_until_idle(ctx.get()); }

/* ---- exceptions, only when the host asks for them ---------------------- */

#ifdef XLAT_CXX_EXCEPTIONS
/** A libxlat failure: code() is the XLAT_ERR_*, what() its name and detail. */
class error : public std::runtime_error {
public:
    error(int code, const char *detail)
        : std::runtime_error(std::string(xlat_strerror(code)) +
                             (detail != nullptr && *detail != '\0' ? std::string(": ") + detail
                                                                   : std::string())),
          code_(code)
    {
    }
    int code() const noexcept { return code_; }

private:
    int code_;
};

/** Throw xlat::error for a negative rc (detail from `ctx` if given); else return rc. */
inline int check(int rc, const xlat_ctx *ctx = nullptr)
{
    if (rc < 0)
        throw error(rc, ctx != nullptr ? xlat_ctx_errmsg(ctx) : nullptr);
    return rc;
}
inline int check(int rc, const ctx_ptr &ctx) { return check(rc, ctx.get()); }

/** The handle of a successful factory call, or throw xlat::error. */
template <class P>
P take(result<P> &&r, const xlat_ctx *ctx = nullptr)
{
    check(r.rc, ctx);
    return std::move(r.ptr);
}
template <class P>
P take(result<P> &&r, const ctx_ptr &ctx)
{
    return take(std::move(r), ctx.get());
}
#endif /* XLAT_CXX_EXCEPTIONS */

} // namespace xlat

#endif /* XLAT_XLAT_HPP */
