package main

// Only declarations may precede an //export in cgo: the C helpers that
// call this function live in xlat.go.

/*
#include <stdint.h>
#include <xlat/xlat.h>
*/
import "C"

import "runtime/cgo"

// xlatGoDone is every request's completion callback: `handle` is the
// cgo.Handle Translate made; each accepted request is answered exactly
// once, so the handle is deleted here.
//
//export xlatGoDone
func xlatGoDone(handle C.uintptr_t, resp *C.xlat_resp) {
	h := cgo.Handle(handle)
	done := h.Value().(func(Resp))
	h.Delete()
	done(Resp{
		ID: uint64(resp.id), Vaddr: uint64(resp.vaddr), Paddr: uint64(resp.paddr),
		Issued: uint64(resp.issued), Completed: uint64(resp.completed),
		Status: int(resp.status), Resolver: uint32(resp.resolver),
	})
}
