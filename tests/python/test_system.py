"""The system builder: examples/iommu_least_tlb.c rebuilt in Python gives
the numbers that example prints (4 GPUs sharing 96 pages, baseline against
least-TLB), read both through the units' stats and the uniform counters."""

import unittest

import xlat

GPUS, CUS, PAGES, BASE, STRIDE = 4, 2, 96, 0x40000000, 24


def run(inclusion):
    with xlat.Context() as ctx:
        mem = xlat.PhysMem(ctx)
        pt = xlat.PageTable(ctx, mem=mem)
        assert pt.map_range(1, BASE, PAGES * 4096, 0, xlat.PERM_R | xlat.PERM_W) == PAGES
        walk = xlat.Config("walker", init="xlat_iommu_walker_config_init_sized", pt=pt)
        iommu = xlat.Config("iommu", walk=walk, tlb_entries=64, tlb_ways=16, inclusion=inclusion)
        l2 = xlat.Config("tlb", init="xlat_system_l2_config_init_sized", entries=32, ways=8)
        sc = xlat.Config("system", gpus=GPUS, cus=CUS, l2=l2, iommu=iommu, gpu_iommu_latency=300)
        system = xlat.System(ctx, sc)
        answered = []
        sent = 0
        for _ in range(4):
            for i in range(PAGES):
                for g in range(GPUS):
                    for twice in range(2):
                        page = (i + g * STRIDE) % PAGES
                        system.translate(BASE + page * 4096 + twice * 64, answered.append,
                                         id=sent, pasid=1, gpu=g, cu=i % CUS)
                        sent += 1
                        ctx.run()
        assert len(answered) == sent and all(r.status == xlat.OK for r in answered)
        l1 = [system.l1(g, c).stats() for g in range(GPUS) for c in range(CUS)]
        result = {
            "l1_hits": sum(s["hits"] for s in l1),
            "l1_accesses": sum(s["accesses"] for s in l1),
            "l2_hits": sum(system.l2(g).stats()["hits"] for g in range(GPUS)),
            "iommu": system.iommu().stats(),
            "iommu_counters": system.iommu().counters(),
            "kinds": sorted({u["kind"] for u in ctx.stats().values()}),
        }
        return result


class SystemTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = run("XLAT_INCL_MOSTLY")
        cls.least = run("XLAT_INCL_LEAST")

    def test_baseline_as_the_c_example(self):
        # "baseline   L1  50.0%  L2   0.0%  IOMMU TLB   0.0%  remote hits 0  walks 1536 (1536 answered first)"
        b = self.base
        self.assertEqual((b["l1_hits"], b["l1_accesses"], b["l2_hits"]), (1536, 3072, 0))
        self.assertEqual((b["iommu"]["tlb_hits"], b["iommu"]["remote_hits"], b["iommu"]["walks"],
                          b["iommu"]["walk_answers"]), (0, 0, 1536, 1536))

    def test_least_tlb_as_the_c_example(self):
        # "least-TLB  L1  50.0%  L2   0.0%  IOMMU TLB  87.5%  remote hits 94  walks 192 (98 answered first)"
        s = self.least["iommu"]
        self.assertEqual(self.least["l1_hits"], 1536)
        self.assertEqual(s["requests"], 1536)
        self.assertEqual(s["tlb_hits"], 1344)   # 87.5 % of 1536
        self.assertEqual((s["remote_hits"], s["walks"], s["walk_answers"]), (94, 192, 98))

    def test_uniform_counters_agree(self):
        s, c = self.least["iommu"], self.least["iommu_counters"]
        for name in ("requests", "tlb_hits", "walks", "walk_answers", "remote_hits"):
            self.assertEqual(c[name], s[name], name)
        self.assertIn("system", self.least["kinds"])
        self.assertIn("iommu", self.least["kinds"])

    def test_views_die_with_the_system(self):
        with xlat.Context() as ctx:
            mem = xlat.PhysMem(ctx)
            pt = xlat.PageTable(ctx, mem=mem)
            walk = xlat.Config("walker", init="xlat_iommu_walker_config_init_sized", pt=pt)
            system = xlat.System(ctx, gpus=2, cus=1, iommu=xlat.Config("iommu", walk=walk))
            self.assertEqual(system.gpus(), 2)
            l2 = system.l2(1)
            with self.assertRaises(IndexError):
                system.l2(2)
            system.close()
            with self.assertRaises(xlat.StateError):
                l2.stats()


if __name__ == "__main__":
    unittest.main()
