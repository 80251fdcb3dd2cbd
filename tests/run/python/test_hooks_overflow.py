"""TRAINSCOPE_OVERFLOW on nan_script.py: findings, the stop, the switch in dump.json."""
import os
import textwrap
import unittest

import hookrun
from hookrun import needs_h5py, needs_torch
from test_hooks import TempDirTest

LOG_PROB = ("NaiveLogSoftmax", "Net/log_prob")


@needs_torch
class OverflowTest(TempDirTest):
    def test_findings(self):
        r = hookrun.run(["--steps", "5"], hookrun.hooks_env(self.dir, {"TRAINSCOPE_OVERFLOW": "1"}),
                        self.dir, script="nan_script.py")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.events()[0]["features"], ["steps", "overflow"])
        self.assertEqual([e["step"] for e in r.of("step")], [1, 2, 3, 4, 5])
        found = r.of("overflow")
        first = found[0]
        # Step 3: log(softmax) underflows to -inf; its NaN gradients reach the weights and
        # from step 4 on every module's output holds NaN, fc1's first.
        self.assertEqual((first["step"], first["op"], first["scope"], first["seqid"], first["tensor"]),
                         (3,) + LOG_PROB + (0, "output/0"))
        self.assertGreater(first["neginf"], 0)
        self.assertEqual((first["nan"], first["posinf"]), (0, 0))
        self.assertEqual([(e["op"], e["scope"], e["seqid"]) for e in found if e["step"] == 4],
                         [("Linear", "Net/fc1", 0), ("ReLU", "Net/relu", 0), ("Linear", "Net/fc2", 1),
                          LOG_PROB + (0,)])
        self.assertTrue(all(e["nan"] > 0 for e in found if e["step"] == 4))
        self.assertEqual(sorted({e["step"] for e in found}), [3, 4, 5])
        self.assertIn("loss is NaN at step 3", r.stderr)
        self.assertEqual(r.of("stop"), [])

    def test_stop(self):
        r = hookrun.run(["--steps", "6"], hookrun.hooks_env(self.dir, {"TRAINSCOPE_OVERFLOW": "stop"}),
                        self.dir, script="nan_script.py")
        self.assertEqual(r.rc, 3, r.describe())
        types = [e["type"] for e in r.events()]
        self.assertEqual(types[-3:], ["overflow", "step", "stop"])
        self.assertEqual(r.of("step")[-1]["step"], 3)
        reason = r.of("stop")[0]["reason"]
        for part in ("step 3", "NaiveLogSoftmax", "Net/log_prob", "output/0", "-Inf"):
            self.assertIn(part, reason)
        self.assertIn("TrainScope: run stopped: " + reason, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotIn("loss is NaN at step 4", r.stderr)

    def test_at_most_64_events_per_step(self):
        code = textwrap.dedent("""
            import torch
            from torch import nn
            net = nn.Sequential(*[nn.Identity() for _ in range(70)])
            w = torch.ones(2, requires_grad=True)
            opt = torch.optim.SGD([w], lr=0.1)
            for step in range(2):
                x = w * torch.tensor([1.0, float("nan")])
                net(x).sum().backward()
                opt.step()
            """)
        r = hookrun.run(["-c", code], hookrun.hooks_env(self.dir, {"TRAINSCOPE_OVERFLOW": "1"}), self.dir)
        self.assertEqual(r.rc, 0, r.describe())
        found = r.of("overflow")
        self.assertEqual([len([e for e in found if e["step"] == s]) for s in (1, 2)], [64, 64])
        self.assertEqual([e["seqid"] for e in found[:64]], list(range(64)))
        self.assertEqual([e["scope"] for e in found[:2]], ["Sequential/0", "Sequential/1"])
        self.assertEqual([w["message"] for w in r.of("warning")],
                         ["overflow check: 6 more tensors with NaN/Inf in step %d were not reported "
                          "(at most 64 per step)" % s for s in (1, 2)])

    @needs_h5py
    def test_stop_on_overflow_from_dump_json(self):
        path = hookrun.write_json(os.path.join(self.dir, "dump.json"),
                                  {"dump_path": "dumps", "stop_on_overflow": True})
        r = hookrun.run(["--steps", "6"], hookrun.hooks_env(self.dir, {"TRAINSCOPE_DUMP_CONFIG": path}),
                        self.dir, script="nan_script.py")
        self.assertEqual(r.rc, 3, r.describe())
        self.assertEqual(r.events()[0]["features"], ["steps", "overflow", "stop_on_overflow", "dump"])
        self.assertEqual([d["step"] for d in r.of("dump_file")], [1, 2, 3])
        import h5py
        import numpy as np

        with h5py.File(r.of("dump_file")[-1]["path"], "r") as f:
            out = f["NaiveLogSoftmax/0/output/0"][()]
            self.assertEqual(int(np.isneginf(out).sum()), r.of("overflow")[0]["neginf"])
            self.assertTrue(np.isfinite(f["Linear/1/output/0"][()]).all())


if __name__ == "__main__":
    unittest.main()
