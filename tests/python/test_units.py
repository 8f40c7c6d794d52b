"""The structures and the walker: cuckoo filter, page table + physical
memory, a walker pool over them; configs and their errors."""

import unittest

import xlat


class CuckooTest(unittest.TestCase):
    def test_contains_remove(self):
        with xlat.Context() as ctx:
            cf = xlat.Cuckoo(ctx, capacity=1024)
            for key in (1, 2, 3, 0xdeadbeef):
                cf.insert(key)
            self.assertEqual(len(cf), 4)
            self.assertTrue(cf.contains(0xdeadbeef))
            self.assertIn(2, cf)
            cf.remove(2)
            self.assertNotIn(2, cf)
            self.assertEqual(len(cf), 3)
            with self.assertRaises(xlat.NotFoundError) as caught:
                cf.remove(2)
            self.assertEqual(caught.exception.code, xlat.lib.XLAT_ERR_NOT_FOUND)


class PageTableTest(unittest.TestCase):
    def test_map_walk_lookup(self):
        with xlat.Context() as ctx:
            mem = xlat.PhysMem(ctx)
            pt = xlat.PageTable(ctx, mem=mem)
            pt.map(1, 0x7f0000001000, 0x1234, perm=xlat.PERM_R)
            entry = pt.lookup(1, 0x7f0000001000)
            self.assertEqual((entry["vpn"], entry["pfn"], entry["page_shift"], entry["perm"]),
                             (0x7f0000001, 0x1234, 12, xlat.PERM_R))
            trace = pt.walk(1, 0x7f0000001abc)
            self.assertEqual(trace["status"], xlat.OK)
            self.assertEqual([s["level"] for s in trace["step"]], [4, 3, 2, 1])
            self.assertEqual(trace["pfn"], 0x1234)
            self.assertEqual(trace["step"][-1]["value"] & 0x000FFFFFFFFFF000, 0x1234 << 12)
            with self.assertRaises(xlat.XlatError):
                pt.lookup(1, 0x7f0000002000)
            pt.unmap(1, 0x7f0000001000)
            with self.assertRaises(xlat.XlatError):
                pt.lookup(1, 0x7f0000001000)

    def test_walker_translates(self):
        with xlat.Context() as ctx:
            mem = xlat.PhysMem(ctx)
            pt = xlat.PageTable(ctx, mem=mem)
            pt.map(1, 0x5000, 0x777)
            walker = xlat.Walker(ctx, name="ptw", pt=pt, walkers=2, mem_latency=10)
            answers = []
            self.assertTrue(walker.translate(0x5040, answers.append, pasid=1, id=1))
            self.assertTrue(walker.translate(0x9000, answers.append, pasid=1, id=2))
            ctx.run()
            by_id = {r.id: r for r in answers}
            self.assertEqual(by_id[1].paddr, (0x777 << 12) | 0x40)
            self.assertEqual(by_id[1].status, xlat.OK)
            self.assertEqual(by_id[2].status, xlat.lib.XLAT_ERR_FAULT)
            self.assertEqual(walker.stats()["walks"], 2)
            # pt is held by the walker's config: closing the context closes all
        self.assertTrue(ctx.closed)


class ConfigTest(unittest.TestCase):
    def test_defaults_and_sizes(self):
        cfg = xlat.Config("tlb", entries=64)
        self.assertEqual(cfg.entries, 64)
        self.assertEqual(cfg._ptr.struct_size, xlat.ffi.sizeof("xlat_tlb_config"))
        self.assertGreater(cfg.ways, 0)  # the library's default, not zero memory
        cfg.name = "mine"
        self.assertEqual(cfg.name, "mine")

    def test_unknown_field(self):
        with self.assertRaisesRegex(AttributeError, "xlat_tlb_config has no settable field 'entrys'"):
            xlat.Config("tlb", entrys=64)
        cfg = xlat.Config("cuckoo")
        with self.assertRaises(AttributeError):
            cfg.struct_size = 4
        with self.assertRaisesRegex(ValueError, "no config struct xlat_nothing_config"):
            xlat.Config("nothing")


if __name__ == "__main__":
    unittest.main()
