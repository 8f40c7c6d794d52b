"""Every error path: bad config values, misuse of closed objects,
back-pressure, destroy order, and xlat-sim's JSON."""

import os
import unittest

import xlat


class ErrorTest(unittest.TestCase):
    def test_bad_config_carries_the_library_message(self):
        with xlat.Context() as ctx:
            with self.assertRaises(xlat.InvalidError) as caught:
                xlat.Tlb(ctx, entries=16, ways=3)
            e = caught.exception
            self.assertEqual(e.code, xlat.lib.XLAT_ERR_INVAL)
            self.assertEqual(e.name, xlat.strerror(xlat.lib.XLAT_ERR_INVAL))
            self.assertEqual(e.detail, ctx.errmsg())
            self.assertTrue(e.detail)
            self.assertIn(e.detail, str(e))
            self.assertIsInstance(e, xlat.XlatError)

    def test_closed_objects(self):
        ctx = xlat.Context()
        tlb = xlat.Tlb(ctx, entries=16, ways=16)
        ctx.close()
        ctx.close()  # twice does nothing
        with self.assertRaises(xlat.StateError):
            ctx.tick()
        with self.assertRaises(xlat.StateError):
            tlb.translate(0x1000)
        with self.assertRaises(xlat.StateError):
            xlat.Tlb(ctx)

    def test_busy_next_level(self):
        with xlat.Context() as ctx:
            l1 = xlat.Tlb(ctx, name="l1", entries=16, ways=16)
            fixed = xlat.Fixed(ctx, name="walker", latency=5)
            l1.set_next(fixed)
            with self.assertRaises(xlat.BusyError):
                fixed.close()
            l1.close()
            fixed.close()
            self.assertEqual(ctx.stats(), {})

    def test_context_closes_in_a_valid_order(self):
        ctx = xlat.Context()
        walker = xlat.Fixed(ctx, latency=5)  # created first, held by both TLBs' chain
        l2 = xlat.Tlb(ctx, entries=64, ways=4)
        l1 = xlat.Tlb(ctx, entries=16, ways=16)
        l1.set_next(l2)
        l2.set_next(walker)
        l1.translate(0x1000)  # in flight when the context goes
        ctx.close()
        self.assertTrue(ctx.closed)
        self.assertFalse([k for k, (c, _) in xlat.context._pending.items() if c is ctx])
        del ctx, l1, l2, walker  # the finalizer has nothing left to do

    def test_back_pressure_is_false(self):
        with xlat.Context() as ctx:
            fixed = xlat.Fixed(ctx, latency=10, max_outstanding=1)
            self.assertTrue(fixed.translate(0x1000))
            self.assertFalse(fixed.translate(0x2000))  # XLAT_ERR_AGAIN: nothing taken
            ctx.run()
            self.assertEqual(len(ctx.completed), 1)
            self.assertTrue(fixed.translate(0x2000))
            ctx.run()
            self.assertEqual([r.vaddr for r in ctx.completed], [0x1000, 0x2000])

    def test_translate_refused_outright(self):
        with xlat.Context() as ctx:
            tlb = xlat.Tlb(ctx, entries=16, ways=16)  # no next level
            calls = []
            with self.assertRaises(xlat.XlatError):
                tlb.translate(0x1000, calls.append, access=99)
            ctx.run()
            self.assertEqual(calls, [])

    def test_finalizer_never_raises(self):
        ctx = xlat.Context()
        xlat.Tlb(ctx, entries=16, ways=16)
        del ctx  # closes through __del__


@unittest.skipUnless(os.access(xlat.sim._paths.SIM, os.X_OK) or os.environ.get("XLAT_SIM"),
                     "xlat-sim was not built")
class RunSimTest(unittest.TestCase):
    def test_json(self):
        out = xlat.run_sim("least-tlb", workload="random", requests=2000, sets={"l2.entries": 64})
        self.assertEqual(out["run"]["preset"], "least-tlb")
        self.assertEqual(out["run"]["source"], "random:footprint=8192,sharing=4")
        self.assertEqual(out["summary"]["requests"], 2000)
        self.assertEqual(out["summary"]["l1"]["accesses"], 2000)
        self.assertEqual(out["summary"]["l2"]["hits"], 9)
        self.assertEqual(out["summary"]["iommu_tlb"]["hits"], 158)

    def test_failure_message(self):
        with self.assertRaisesRegex(RuntimeError, "unknown workload 'stream'"):
            xlat.run_sim("least-tlb", workload="stream")
        with self.assertRaises(FileNotFoundError):
            xlat.run_sim("least-tlb", sim="/nonexistent/xlat-sim-" + "x")


if __name__ == "__main__":
    unittest.main()
