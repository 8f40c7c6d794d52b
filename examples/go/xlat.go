package main

// A thin Go face on the libxlat units this example uses. Each completion
// callback travels through C as a runtime/cgo.Handle: Go hands C the
// handle's integer value, the helpers below turn it into the `void *user`
// libxlat carries, and xlatGoDone (callback.go) turns it back. Go never
// converts the integer to unsafe.Pointer, which is what go vet asks.

/*
#cgo pkg-config: libxlat
#include <stdint.h>
#include <stdlib.h>
#include <xlat/xlat.h>

extern void xlatGoDone(uintptr_t handle, xlat_resp *resp);

static void xlat_go_done(void *user, const xlat_resp *resp)
{
	xlatGoDone((uintptr_t)user, (xlat_resp *)resp);
}

static int xlat_go_tlb_translate(xlat_tlb *tlb, const xlat_req *req, uintptr_t handle)
{
	return xlat_tlb_translate(tlb, req, xlat_go_done, (void *)handle);
}

static xlat_target xlat_go_target(void)
{
	xlat_target t = XLAT_TARGET_INIT;
	return t;
}
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// Errors carry libxlat's name for the status and the context's detail.
type xlatError struct {
	what   string
	status C.int
	detail string
}

func (e *xlatError) Error() string {
	return fmt.Sprintf("%s: %s (%s)", e.what, C.GoString(C.xlat_strerror(e.status)), e.detail)
}

// errAgain is a refused request: nothing was taken, try a later cycle.
var errAgain = fmt.Errorf("libxlat: %s", C.GoString(C.xlat_strerror(C.XLAT_ERR_AGAIN)))

// Ctx is one clock domain. It and every unit built on it belong to one
// goroutine at a time (doc/threads.md); lock the goroutine to its thread
// for the context's life if the host needs the same thread throughout.
type Ctx struct {
	c    *C.xlat_ctx
	live int // handles given to C and not yet answered
}

func NewCtx() (*Ctx, error) {
	var c *C.xlat_ctx
	if rc := C.xlat_ctx_create(nil, &c); rc != C.XLAT_OK {
		return nil, &xlatError{"context", rc, ""}
	}
	return &Ctx{c: c}, nil
}

func (x *Ctx) err(what string, rc C.int) error {
	return &xlatError{what, rc, C.GoString(C.xlat_ctx_errmsg(x.c))}
}

// Destroy frees the context; every unit on it must be destroyed first.
func (x *Ctx) Destroy() { C.xlat_ctx_destroy(x.c) }

func (x *Ctx) Now() uint64 { return uint64(C.xlat_now(x.c)) }
func (x *Ctx) Tick()       { C.xlat_tick(x.c) }

// RunUntilIdle jumps from event to event, as an event-driven engine
// (akita's) does, until nothing is left to happen.
func (x *Ctx) RunUntilIdle() {
	for next := C.xlat_next_event(x.c); next != C.XLAT_NEVER; next = C.xlat_next_event(x.c) {
		C.xlat_advance(x.c, next-C.xlat_now(x.c))
	}
}

func (x *Ctx) Advance(cycles uint64) { C.xlat_advance(x.c, C.uint64_t(cycles)) }

// UnitName names the unit a response's Resolver points at.
func (x *Ctx) UnitName(id uint32) string {
	return C.GoString(C.xlat_unit_name(x.c, C.uint32_t(id)))
}

// LiveHandles counts the callbacks handed to libxlat and not answered yet.
func (x *Ctx) LiveHandles() int { return x.live }

// Resp is a copy of xlat_resp's fields this example reads.
type Resp struct {
	ID, Vaddr, Paddr, Issued, Completed uint64
	Status                              int
	Resolver                            uint32
}

// TLBSpec is the immutable part of a TLB, akita-style: what to build.
type TLBSpec struct {
	Name                   string
	Entries, Ways, Latency uint32
	MSHRs                  uint32 // 0: the library's default
}

type TLB struct {
	ctx *Ctx
	t   *C.xlat_tlb
}

func (x *Ctx) NewTLB(s TLBSpec) (*TLB, error) {
	var cfg C.xlat_tlb_config
	C.xlat_tlb_config_init(&cfg)
	name := C.CString(s.Name)
	defer C.free(unsafe.Pointer(name))
	cfg.name = name // copied by create
	cfg.entries = C.uint32_t(s.Entries)
	cfg.ways = C.uint32_t(s.Ways)
	cfg.latency = C.uint32_t(s.Latency)
	if s.MSHRs != 0 {
		cfg.mshrs = C.uint32_t(s.MSHRs)
	}
	var t *C.xlat_tlb
	if rc := C.xlat_tlb_create(x.c, &cfg, &t); rc != C.XLAT_OK {
		return nil, x.err(s.Name, rc)
	}
	return &TLB{x, t}, nil
}

func (t *TLB) Destroy() { C.xlat_tlb_destroy(t.t) }

// Target is what a TLB's miss path points at.
type Target struct{ t C.xlat_target }

func (t *TLB) Target() (Target, error) {
	tg := Target{C.xlat_go_target()}
	if rc := C.xlat_tlb_get_target(t.t, &tg.t); rc != C.XLAT_OK {
		return tg, t.ctx.err("tlb target", rc)
	}
	return tg, nil
}

// SetNext wires the TLB's misses to `next`, a unit of the same context.
func (t *TLB) SetNext(next Target) error {
	if rc := C.xlat_tlb_set_next(t.t, &next.t); rc != C.XLAT_OK {
		return t.ctx.err("set_next", rc)
	}
	return nil
}

// Translate sends one request; done runs from inside a later Tick/Advance,
// exactly once, and only when Translate returned nil.
func (t *TLB) Translate(id, vaddr uint64, pasid uint32, done func(Resp)) error {
	req := C.xlat_req{id: C.uint64_t(id), vaddr: C.uint64_t(vaddr), pasid: C.uint32_t(pasid),
		access: C.XLAT_ACCESS_READ}
	ctx := t.ctx
	h := cgo.NewHandle(func(r Resp) {
		ctx.live--
		done(r)
	})
	rc := C.xlat_go_tlb_translate(t.t, &req, C.uintptr_t(h))
	switch rc {
	case C.XLAT_OK:
		ctx.live++
		return nil
	case C.XLAT_ERR_AGAIN:
		h.Delete() // refused: the callback will never run
		return errAgain
	default:
		h.Delete()
		return ctx.err("translate", rc)
	}
}

// TLBStats is xlat_tlb_stats' counters this example checks.
type TLBStats struct{ Accesses, Hits, Misses, MSHRMerges, Refusals uint64 }

func (t *TLB) Stats() TLBStats {
	var s C.xlat_tlb_stats
	C.xlat_tlb_stats_get(t.t, &s, C.sizeof_xlat_tlb_stats)
	return TLBStats{uint64(s.accesses), uint64(s.hits), uint64(s.misses),
		uint64(s.mshr_merges), uint64(s.refusals)}
}

// Fixed answers every request after a fixed latency: a stand-in for the
// MMU's page-table walker.
type Fixed struct {
	ctx *Ctx
	f   *C.xlat_fixed
}

func (x *Ctx) NewFixed(name string, latency uint32, pfnOffset uint64) (*Fixed, error) {
	var cfg C.xlat_fixed_config
	C.xlat_fixed_config_init(&cfg)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	cfg.name = cname
	cfg.latency = C.uint32_t(latency)
	cfg.pfn_offset = C.uint64_t(pfnOffset)
	var f *C.xlat_fixed
	if rc := C.xlat_fixed_create(x.c, &cfg, &f); rc != C.XLAT_OK {
		return nil, x.err(name, rc)
	}
	return &Fixed{x, f}, nil
}

func (f *Fixed) Destroy() { C.xlat_fixed_destroy(f.f) }

func (f *Fixed) Target() (Target, error) {
	tg := Target{C.xlat_go_target()}
	if rc := C.xlat_fixed_get_target(f.f, &tg.t); rc != C.XLAT_OK {
		return tg, f.ctx.err("fixed target", rc)
	}
	return tg, nil
}
