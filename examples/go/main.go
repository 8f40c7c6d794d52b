// Command l1l2 drives libxlat's L1 -> L2 -> walker hierarchy from Go
// through cgo and checks every answer against examples/l1_l2.c's.
package main

import (
	"fmt"
	"os"
)

func main() {
	got, err := runL1L2()
	if err != nil {
		fmt.Fprintln(os.Stderr, "l1l2:", err)
		os.Exit(1)
	}
	for _, a := range got.Answers {
		fmt.Printf("request %d  vaddr %#x -> paddr %#x  %-8s cycles %d..%d (%d)\n",
			a.ID, a.Vaddr, a.Paddr, a.By, a.Issued, a.Completed, a.Completed-a.Issued)
	}
	fmt.Printf("l1: %d accesses, %d hits, %d misses (%d merged), %d refused\n",
		got.L1.Accesses, got.L1.Hits, got.L1.Misses, got.L1.MSHRMerges, got.L1.Refusals)
	if bad := mismatches(got); len(bad) > 0 {
		for _, b := range bad {
			fmt.Fprintln(os.Stderr, "l1l2:", b)
		}
		os.Exit(1)
	}
	fmt.Println("all answers and counters as examples/l1_l2.c shows them")
}
