"""In-process tests of trainscope_hooks' pieces: the parsers (same rules as the engine's
C++), the events writer, scopes of the module hooks, the device (deferred) paths."""
import gzip
import io
import json
import os
import struct
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

import hookrun

sys.path.insert(0, hookrun.HOOKS_DIR)
sys.path.insert(0, hookrun.SCRIPTS)

from trainscope_hooks import events as ev  # noqa: E402
from trainscope_hooks.dump_config import DumpConfigError, parse_dump_config  # noqa: E402
from trainscope_hooks.runtime import Runtime  # noqa: E402
from trainscope_hooks.settings import Settings, parse_profile_options, parse_schedule  # noqa: E402


class RecordingEvents:
    """Stands in for EventWriter: keeps the events in a list."""

    def __init__(self):
        self.list = []

    def emit(self, kind, **fields):
        self.list.append(dict(type=kind, **fields))

    def warning(self, message):
        self.emit("warning", message=message)

    def of(self, kind):
        return [e for e in self.list if e["type"] == kind]


def make_runtime(env=None):
    events = RecordingEvents()
    return Runtime(Settings(env or {}), events), events


class SettingsTest(unittest.TestCase):
    def test_schedule(self):
        self.assertEqual(parse_schedule("wait=1,warmup=2,active=3,repeat=4,skip_first=5"),
                         {"wait": 1, "warmup": 2, "active": 3, "repeat": 4, "skip_first": 5})
        self.assertEqual(parse_schedule(" active=2 ,"),
                         {"wait": 0, "warmup": 0, "active": 2, "repeat": 0, "skip_first": 0})
        self.assertEqual(parse_schedule("")["active"], 1 << 30)  # the engine's default: all
        for bad in ("wait=-1", "active=0", "wait", "sleep=1", "wait=1.5", "wait="):
            with self.assertRaises(ValueError, msg=bad):
                parse_schedule(bad)

    def test_profile_options(self):
        self.assertEqual(parse_profile_options(None),
                         ({"record_shapes": True, "profile_memory": True, "with_stack": False}, []))
        self.assertEqual(parse_profile_options("with_stack,bogus"),
                         ({"record_shapes": False, "profile_memory": False, "with_stack": True}, ["bogus"]))
        self.assertEqual(parse_profile_options("")[0],
                         dict.fromkeys(("record_shapes", "profile_memory", "with_stack"), False))

    def test_rank_and_world(self):
        s = Settings({"RANK": "2", "RANK_ID": "5", "WORLD_SIZE": "4"})
        self.assertEqual((s.rank, s.world_size), (2, 4))
        s = Settings({"TRAINSCOPE_RANK": "7", "RANK": "2", "RANK_SIZE": "8"})
        self.assertEqual((s.rank, s.world_size), (7, 8))
        s = Settings({"RANK_ID": "3"})
        self.assertEqual((s.rank, s.world_size, s.warnings), (3, 1, []))
        s = Settings({"TRAINSCOPE_RANK": "x", "RANK": "1"})
        self.assertEqual(s.rank, 1)
        self.assertEqual(len(s.warnings), 1)

    def test_overflow_modes(self):
        self.assertEqual(Settings({"TRAINSCOPE_OVERFLOW": "1"}).overflow, "check")
        self.assertEqual(Settings({"TRAINSCOPE_OVERFLOW": "stop"}).overflow, "stop")
        s = Settings({})
        s.raise_overflow("check")
        s.raise_overflow("stop")
        s.raise_overflow("check")
        self.assertEqual(s.overflow, "stop")


class DumpConfigTest(unittest.TestCase):
    def parse(self, obj):
        return parse_dump_config(json.dumps(obj), base_dir="/base")

    def test_defaults_and_fields(self):
        c = self.parse({})
        self.assertEqual((c.dump_path, c.mode, c.dump_list, c.op_switch, c.steps, c.file_per_step),
                         ("/base/dump", "all", [], True, set(), True))
        c = self.parse({"dump": {"dump_path": "/abs/x", "dump_mode": "input", "steps": "1-3,7",
                                 "dump_list": ["Linear", {"op_name": "Net/fc1"}], "file_per": "run",
                                 "dump_op_switch": "off", "check_overflow": "on"}})
        self.assertEqual((c.dump_path, c.mode, c.steps, c.dump_list, c.file_per_step, c.op_switch,
                          c.check_overflow), ("/abs/x", "input", {1, 2, 3, 7}, ["Linear", "Net/fc1"],
                                              False, False, True))
        self.assertEqual(self.parse({"steps": 4}).steps, {4})
        self.assertEqual(self.parse({"steps": [1, 5]}).steps, {1, 5})

    def test_errors_have_the_engines_messages(self):
        cases = [
            ({"dump_mode": "both"}, 'dump.json: "dump_mode" must be input, output or all'),
            ({"dump_path": 3}, 'dump.json: "dump_path" must be a string'),
            ({"dump_list": "Linear"}, 'dump.json: "dump_list" must be an array'),
            ({"dump_list": [1]}, 'dump.json: "dump_list" entries must be op names'),
            ({"steps": [1, "2"]}, 'dump.json: "steps" array must hold integers'),
            ({"steps": True}, 'dump.json: "steps" must be an integer, array or "a-b,c"'),
            ({"steps": "3-1"}, 'dump.json: bad step range "3-1"'),
            ({"steps": "x"}, 'dump.json: bad step "x"'),
            ({"file_per": "epoch"}, 'dump.json: "file_per" must be step or run'),
            ({"dump_op_switch": "maybe"}, 'dump.json: "dump_op_switch" must be on/off or a boolean'),
        ]
        for obj, message in cases:
            with self.assertRaises(DumpConfigError, msg=obj) as cm:
                self.parse(obj)
            self.assertEqual(str(cm.exception), message)
        with self.assertRaisesRegex(DumpConfigError, r'^dump.json: bad "op_filter" regex'):
            self.parse({"op_filter": "("})
        with self.assertRaisesRegex(DumpConfigError, "^dump.json: "):
            parse_dump_config("{")
        with self.assertRaisesRegex(DumpConfigError, "top level must be an object"):
            parse_dump_config("[]")

    def test_wants_op(self):
        self.assertTrue(self.parse({}).wants_op("Net/fc1", "Linear"))
        self.assertFalse(self.parse({"dump_op_switch": "off"}).wants_op("Net/fc1", "Linear"))
        c = self.parse({"dump_op_switch": "off", "dump_list": ["ReLU", "Net/fc1"]})
        self.assertEqual([c.wants_op(*x) for x in (("Net/fc1", "Linear"), ("Net/fc2", "Linear"),
                                                  ("Net/relu", "ReLU"))], [True, False, True])
        c = self.parse({"op_filter": "fc[12]"})
        self.assertEqual([c.wants_op(n, "Linear") for n in ("Net/fc1", "Net/fc3")], [True, False])
        c = self.parse({"steps": "2"})
        self.assertEqual([c.wants_step(s) for s in (1, 2, 3)], [False, True, False])

    def test_file_for_step(self):
        c = self.parse({"dump_path": "/d"})
        self.assertEqual(c.file_for_step(3), "/d/step_3.h5")
        self.assertEqual(c.file_for_step(3, rank=1, world_size=2), "/d/rank_1/step_3.h5")
        c = self.parse({"dump_path": "/d", "file_per": "run"})
        self.assertEqual(c.file_for_step(3), "/d/dump.h5")
        self.assertEqual(c.file_for_step(3, 0, 4), "/d/rank_0/dump.h5")
        c = self.parse({"dump_path": "/d/model.h5", "file_per": "run"})
        self.assertEqual(c.file_for_step(3), "/d/model.h5")
        self.assertEqual(c.file_for_step(3, 2, 4), "/d/rank_2/model.h5")
        c = self.parse({"dump_path": "/d/model.h5"})
        self.assertEqual(c.file_for_step(3), "/d/model/step_3.h5")


class EventsTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def read(self, path):
        with open(path) as f:
            return [hookrun.strict_json(line) for line in f]

    def test_strict_json_for_non_finite_values(self):
        inf = float("inf")
        line = ev.encode({"type": "scalar", "value": float("nan"), "list": [inf, -inf, 1.5]})
        self.assertEqual(hookrun.strict_json(line),
                         {"type": "scalar", "value": "NaN", "list": ["Infinity", "-Infinity", 1.5]})

    def test_own_encoder_matches_json(self):
        # Without json loaded (a process that never imports torch) events are encoded by
        # hand: the same text as json's encoder gives.
        records = [{"type": "hello", "pid": 12, "torch": None, "features": ["steps", "loss"]},
                   {"type": "warning", "message": 'quote " backslash \\ tab \t nl \n \x01 é'},
                   {"type": "scalar", "value": float("nan"), "ok": True, "no": False, "x": [1e-05, -0.0]},
                   {"type": "overflow", "nan": 3, "ts": 1795594418884565956, "v": float("-inf")}]
        for record in records:
            own = ev._encode_value(record)
            self.assertEqual(own, ev.encode(record))
            hookrun.strict_json(own)

    def test_hello_first_and_path_template(self):
        w = ev.EventWriter(os.path.join(self.dir, "sub", "e.rank{rank}.{pid}.jsonl"), 3)
        w.warning("early")
        path = os.path.join(self.dir, "sub", "e.rank3.%d.jsonl" % os.getpid())
        self.assertEqual(w.path, path)
        self.assertFalse(os.path.exists(path))
        w.hello(pid=os.getpid(), rank=3)
        w.emit("step", step=1, ts=ev.now_ns())
        w.hello(pid=0)  # only once
        self.assertEqual([e["type"] for e in self.read(path)], ["hello", "warning", "step"])
        w.close()

    def test_without_a_file_warnings_go_to_stderr(self):
        w = ev.EventWriter(None, 0)
        err = io.StringIO()
        with redirect_stderr(err):
            w.hello(pid=1)
            w.warning("look here")
            w.emit("step", step=1)
        self.assertEqual(err.getvalue(), "trainscope_hooks: warning: look here\n")

    @unittest.skipUnless(hasattr(os, "fork"), "needs fork")
    def test_forked_child_writes_its_own_file(self):
        template = os.path.join(self.dir, "e.{pid}.jsonl")
        w = ev.EventWriter(template, 0)
        w.hello(pid=os.getpid(), rank=0)
        pid = os.fork()
        if pid == 0:  # the child: what a DataLoader worker would do
            try:
                w.after_fork_in_child()
                w.warning("from the child")
                w.close()
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        w.emit("step", step=1)
        parent = self.read(template.replace("{pid}", str(os.getpid())))
        child = self.read(template.replace("{pid}", str(pid)))
        self.assertEqual([e["type"] for e in parent], ["hello", "step"])
        self.assertEqual([(e["type"], e.get("pid")) for e in child], [("hello", pid), ("warning", None)])
        w.close()


@unittest.skipUnless(hookrun.importable("numpy"), "numpy is not importable")
class FashionDataTest(unittest.TestCase):
    def test_read_idx(self):
        import numpy as np

        import fashion_data

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x-idx3-ubyte.gz")
            data = np.arange(5 * 2 * 3, dtype=np.uint8).reshape(5, 2, 3)
            with gzip.open(path, "wb") as f:
                f.write(struct.pack(">HBB", 0, 8, 3) + struct.pack(">III", 5, 2, 3) + data.tobytes())
            np.testing.assert_array_equal(fashion_data.read_idx(path), data)
            np.testing.assert_array_equal(fashion_data.read_idx(path, limit=2), data[:2])


@hookrun.needs_torch
class TorchPartsTest(unittest.TestCase):
    def test_scopes(self):
        import torch
        from torch import nn

        from trainscope_hooks.modules import ModuleTracker

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
                self.head = nn.Linear(4, 2)
                self.also_head = self.head  # shared: keeps its first name

            def forward(self, x):
                return self.also_head(self.features(x))

        rt, events = make_runtime()

        class Spy:
            calls = []

            def wants(self, scope, op):
                return True

            def before(self, info, inputs):
                self.calls.append((info.op, info.scope))
                return None

        tracker = ModuleTracker(rt, torch, Spy(), None)
        tracker.install()
        try:
            net = Net()
            net(torch.ones(1, 4))
            nn.DataParallel(net)(torch.ones(1, 4))  # looked through, as DDP is
            nn.Tanh()(torch.ones(1))
            with torch.no_grad():
                net(torch.ones(1, 4))  # ignored
        finally:
            tracker.remove()
        expected = [("Linear", "Net/features.0"), ("ReLU", "Net/features.1"), ("Linear", "Net/head")]
        self.assertEqual(Spy.calls, expected * 2 + [("Tanh", "Tanh")])
        self.assertEqual(events.list, [])

    def test_device_paths_read_at_step_end(self):
        import torch

        from trainscope_hooks.loss import LossRecorder
        from trainscope_hooks.modules import ModuleInfo
        from trainscope_hooks.overflow import OverflowChecker

        rt, events = make_runtime()
        loss = LossRecorder(rt)
        loss.patch(torch)
        overflow = OverflowChecker(rt, torch, stop=True)
        try:
            # What record()/check() queue for a tensor off the CPU, read at the step's end.
            loss._pending.append((1, torch.tensor(0.25), 11))
            counts = torch.stack([torch.tensor(2), torch.tensor(0), torch.tensor(1)])
            overflow._queued.append(((1, "Linear", "Net/fc1", 0, "output/0", 12), counts))
            x = torch.tensor([1.0, float("nan")])
            overflow.check(ModuleInfo("Net/relu", "ReLU", True, False), 0, (x * 2, [x + 1], "no tensor"))
            z = torch.tensor([1.0, 2.0], requires_grad=True)
            (z * 3).sum().backward()  # one scalar, read at once on the CPU, not twice
            reason = rt.end_step()
        finally:
            torch.Tensor.backward = torch.Tensor.backward.__wrapped__
            torch.autograd.backward = torch.autograd.backward.__wrapped__
        scalars = [(s["step"], s["value"]) for s in events.of("scalar")]
        self.assertEqual(scalars, [(1, 9.0), (1, 0.25)])
        self.assertEqual(events.of("scalar")[1]["ts"], 11)
        found = [(e["op"], e["tensor"], e["nan"], e["neginf"]) for e in events.of("overflow")]
        self.assertEqual(found, [("ReLU", "output/0", 1, 0), ("ReLU", "output/1", 1, 0),
                                 ("Linear", "output/0", 2, 1)])
        self.assertEqual(reason, rt.stop_reason)
        self.assertIn("overflow at step 1: ReLU Net/relu (seqid 0) output/0 has 1 NaN", reason)
        self.assertEqual(events.of("step")[0]["step"], 1)
        self.assertEqual(rt.step, 2)


if __name__ == "__main__":
    unittest.main()
