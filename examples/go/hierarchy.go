package main

import (
	"errors"
	"fmt"
)

// The hierarchy of examples/l1_l2.c, composed the way an akita (MGPUSim)
// host composes its TLBs: immutable specs, then the units built from them,
// then the wiring, each step apart.
type hierarchySpec struct {
	L1, L2       TLBSpec
	WalkLatency  uint32 // cycles of the fixed-latency responder below the L2
	WalkPFNShift uint64 // its identity map: pfn = vpn + WalkPFNShift
}

var l1l2Spec = hierarchySpec{
	L1:           TLBSpec{Name: "l1", Entries: 16, Ways: 16, Latency: 1}, // fully associative
	L2:           TLBSpec{Name: "l2", Entries: 512, Ways: 16, Latency: 10, MSHRs: 16},
	WalkLatency:  100,
	WalkPFNShift: 0x80000,
}

type hierarchy struct {
	L1, L2 *TLB
	Walker *Fixed
}

func buildHierarchy(ctx *Ctx, s hierarchySpec) (*hierarchy, error) {
	h := &hierarchy{}
	var err error
	if h.L1, err = ctx.NewTLB(s.L1); err != nil {
		return nil, err
	}
	if h.L2, err = ctx.NewTLB(s.L2); err != nil {
		h.Destroy()
		return nil, err
	}
	if h.Walker, err = ctx.NewFixed("walker", s.WalkLatency, s.WalkPFNShift); err != nil {
		h.Destroy()
		return nil, err
	}
	if err = h.wire(); err != nil {
		h.Destroy()
		return nil, err
	}
	return h, nil
}

// wire connects L1 -> L2 -> walker through their targets (ports).
func (h *hierarchy) wire() error {
	toL2, err := h.L2.Target()
	if err != nil {
		return err
	}
	toWalker, err := h.Walker.Target()
	if err != nil {
		return err
	}
	if err = h.L1.SetNext(toL2); err != nil {
		return err
	}
	return h.L2.SetNext(toWalker)
}

// Destroy frees the units built so far, the L1 first (it holds the L2).
func (h *hierarchy) Destroy() {
	if h.L1 != nil {
		h.L1.Destroy()
	}
	if h.L2 != nil {
		h.L2.Destroy()
	}
	if h.Walker != nil {
		h.Walker.Destroy()
	}
}

// answer is one response with its resolver's name.
type answer struct {
	Resp
	By string
}

type outcome struct {
	Answers []answer // by request id
	L1      TLBStats
	Live    int // callbacks still registered at the end: must be 0
}

// runL1L2 replays examples/l1_l2.c: two misses to one page (one MSHR), a
// miss to another page, and 200 cycles later a hit in the L1.
func runL1L2() (outcome, error) {
	ctx, err := NewCtx()
	if err != nil {
		return outcome{}, err
	}
	defer ctx.Destroy()
	h, err := buildHierarchy(ctx, l1l2Spec)
	if err != nil {
		return outcome{}, err
	}
	defer h.Destroy()

	vaddrs := []uint64{0x7f0000001000, 0x7f0000001040, 0x7f0000002000, 0x7f0000001080}
	out := outcome{Answers: make([]answer, len(vaddrs))}
	for i, va := range vaddrs {
		if i == 3 {
			ctx.Advance(200)
		}
		if err := sendRetrying(ctx, h.L1, uint64(i), va, &out); err != nil {
			return out, err
		}
	}
	ctx.RunUntilIdle()
	out.L1 = h.L1.Stats()
	out.Live = ctx.LiveHandles()
	return out, nil
}

// sendRetrying sends one request, a cycle later each time the L1 refuses.
func sendRetrying(ctx *Ctx, l1 *TLB, id, vaddr uint64, out *outcome) error {
	record := func(r Resp) { out.Answers[r.ID] = answer{r, ctx.UnitName(r.Resolver)} }
	for {
		err := l1.Translate(id, vaddr, 1, record)
		if !errors.Is(err, errAgain) {
			return err
		}
		ctx.Tick()
	}
}

// The answers examples/l1_l2.c prints, and the L1's counters.
var wantAnswers = []answer{
	{Resp{ID: 0, Vaddr: 0x7f0000001000, Paddr: 0x7f0080001000, Issued: 0, Completed: 111}, "walker"},
	{Resp{ID: 1, Vaddr: 0x7f0000001040, Paddr: 0x7f0080001040, Issued: 1, Completed: 111}, "walker"},
	{Resp{ID: 2, Vaddr: 0x7f0000002000, Paddr: 0x7f0080002000, Issued: 2, Completed: 113}, "walker"},
	{Resp{ID: 3, Vaddr: 0x7f0000001080, Paddr: 0x7f0080001080, Issued: 202, Completed: 203}, "l1"},
}

// Two refusals: requests 1 and 2 each wait a cycle for the L1's port.
var wantL1 = TLBStats{Accesses: 4, Hits: 1, Misses: 3, MSHRMerges: 1, Refusals: 2}

// mismatches lists every way `got` differs from what l1_l2.c shows.
func mismatches(got outcome) []string {
	var bad []string
	for i, w := range wantAnswers {
		g := got.Answers[i]
		g.Resolver = 0 // an id: the name is what is checked
		if g != w {
			bad = append(bad, fmt.Sprintf("request %d: got %+v, want %+v", i, g, w))
		}
	}
	if got.L1 != wantL1 {
		bad = append(bad, fmt.Sprintf("l1 stats: got %+v, want %+v", got.L1, wantL1))
	}
	if got.Live != 0 {
		bad = append(bad, fmt.Sprintf("%d callback handles never answered", got.Live))
	}
	return bad
}
