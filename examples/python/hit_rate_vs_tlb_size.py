#!/usr/bin/env python3
"""Sweep the L2 TLB's size on one xlat-sim workload and show the L2 hit
rate against it: a chart (hit_rate_vs_tlb_size.png) when matplotlib is
installed (Debian: python3-matplotlib), the table on stdout always.

    PYTHONPATH=build/python python3 examples/python/hit_rate_vs_tlb_size.py [OUT.png]
"""

import sys

import xlat

PRESET, WORKLOAD, REQUESTS = "least-baseline", "random:footprint=4096", 20000
SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048)


def sweep():
    rows = []
    for entries in SIZES:
        out = xlat.run_sim(PRESET, workload=WORKLOAD, requests=REQUESTS,
                           sets={"l2.entries": entries, "l2.ways": min(entries, 16)})
        rows.append((entries, out["summary"]["l2"]["hit_rate"], out["summary"]["walks"]["iommu"]))
    return rows


def draw(rows, path):
    try:
        import matplotlib
    except ImportError:
        print("(no chart: matplotlib is not installed; apt-get install -y python3-matplotlib)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r[0] for r in rows], [100 * r[1] for r in rows], marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("L2 TLB entries (per GPU)")
    ax.set_ylabel("L2 TLB hit rate (%)")
    ax.set_title("%s, %s, %d requests" % (PRESET, WORKLOAD, REQUESTS))
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print("chart: %s" % path)


def main():
    rows = sweep()
    print("%8s  %9s  %11s" % ("entries", "L2 hits", "IOMMU walks"))
    for entries, rate, walks in rows:
        print("%8d  %8.1f%%  %11d" % (entries, 100 * rate, walks))
    draw(rows, sys.argv[1] if len(sys.argv) > 1 else "hit_rate_vs_tlb_size.png")


if __name__ == "__main__":
    main()
