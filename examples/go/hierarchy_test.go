package main

import (
	"errors"
	"testing"
)

func TestL1L2AsInC(t *testing.T) {
	got, err := runL1L2()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range mismatches(got) {
		t.Error(b)
	}
}

// A refused request deletes its handle at once; an accepted one keeps it
// until its answer, from inside a later tick.
func TestRefusedRequestHoldsNoHandle(t *testing.T) {
	ctx, err := NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Destroy()
	h, err := buildHierarchy(ctx, l1l2Spec)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy()

	answered := 0
	done := func(Resp) { answered++ }
	if err := h.L1.Translate(0, 0x1000, 1, done); err != nil {
		t.Fatalf("first request: %v", err)
	}
	// the L1 takes one request a cycle
	if err := h.L1.Translate(1, 0x2000, 1, done); !errors.Is(err, errAgain) {
		t.Fatalf("second request in the same cycle: got %v, want %v", err, errAgain)
	}
	if ctx.LiveHandles() != 1 || answered != 0 {
		t.Fatalf("after one accepted and one refused: %d handles, %d answers; want 1, 0",
			ctx.LiveHandles(), answered)
	}
	ctx.RunUntilIdle()
	if ctx.LiveHandles() != 0 || answered != 1 {
		t.Fatalf("after the run: %d handles, %d answers; want 0, 1", ctx.LiveHandles(), answered)
	}
	// l1 1 + l2 10 + walker 100, as request 0 of l1_l2.c
	if now := ctx.Now(); now != 111 {
		t.Fatalf("idle at cycle %d, want 111", now)
	}
}
