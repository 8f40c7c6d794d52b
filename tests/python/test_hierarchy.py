"""examples/l1_l2.c through Python: the same completion cycles, resolvers
and hit/miss counts as the C example prints."""

import unittest

import xlat

VADDRS = (0x7f0000001000, 0x7f0000001040, 0x7f0000002000, 0x7f0000001080)


def build(ctx):
    l1 = xlat.Tlb(ctx, name="l1", entries=16, ways=16, latency=1)
    l2 = xlat.Tlb(ctx, name="l2", entries=512, ways=16, latency=10, mshrs=16)
    walker = xlat.Fixed(ctx, name="walker", latency=100, pfn_offset=0x80000)
    l1.set_next(l2)
    l2.set_next(walker)
    return l1, l2, walker


class HierarchyTest(unittest.TestCase):
    def test_l1_l2_fixed_cycles(self):
        answers = []
        with xlat.Context() as ctx:
            l1, _, _ = build(ctx)
            for i, vaddr in enumerate(VADDRS):
                if i == 3:
                    ctx.advance(200)
                while not l1.translate(vaddr, answers.append, id=i, pasid=1):
                    ctx.tick()  # one port: back-pressure, retry next cycle
            self.assertEqual(len(answers), 3)  # 0..2 answered within the 200 cycles
            ctx.run()
            got = [(r.id, r.paddr, r.resolver_name, r.issued, r.completed, r.status)
                   for r in answers]
            self.assertEqual(got, [
                (0, 0x7f0080001000, "walker", 0, 111, xlat.OK),
                (1, 0x7f0080001040, "walker", 1, 111, xlat.OK),
                (2, 0x7f0080002000, "walker", 2, 113, xlat.OK),
                (3, 0x7f0080001080, "l1", 202, 203, xlat.OK),
            ])
            stats = l1.stats()
            self.assertEqual((stats["accesses"], stats["hits"], stats["misses"],
                              stats["mshr_merges"]), (4, 1, 3, 1))
            self.assertEqual(ctx.next_event(), xlat.NEVER)
            self.assertEqual(ctx.now(), 203)

    def test_no_callback_collects_responses(self):
        with xlat.Context() as ctx:
            l1, _, _ = build(ctx)
            self.assertTrue(l1.translate(0x1000, pasid=1, id=7))
            self.assertEqual(ctx.completed, [])  # never inside translate
            ctx.run()
            self.assertEqual([(r.id, r.completed) for r in ctx.completed], [(7, 111)])

    def test_uniform_counters_match_stats(self):
        with xlat.Context() as ctx:
            l1, l2, walker = build(ctx)
            l1.translate(0x1000, pasid=1)
            ctx.run()
            self.assertEqual(l1.counters()["misses"], 1)
            self.assertEqual(l2.counters()["misses"], 1)
            self.assertEqual(walker.counters()["requests"], 1)
            every = ctx.stats()
            self.assertEqual(sorted(u["name"] for u in every.values()), ["l1", "l2", "walker"])
            self.assertEqual(every[l1.id]["kind"], "tlb")
            self.assertEqual(every[l1.id]["counters"]["latency.le_0000000127"], 1)
            ctx.stats_reset()
            self.assertEqual(l1.counters()["misses"], 0)

    def test_exception_in_callback_raised_after_advance(self):
        def boom(_resp):
            raise ValueError("from the callback")

        with xlat.Context() as ctx:
            l1, _, _ = build(ctx)
            l1.translate(0x1000, boom, pasid=1)
            with self.assertRaisesRegex(ValueError, "from the callback"):
                ctx.run()
            ctx.advance(5)  # the context is still usable


if __name__ == "__main__":
    unittest.main()
