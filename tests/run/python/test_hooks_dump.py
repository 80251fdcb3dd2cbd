"""TRAINSCOPE_DUMP_CONFIG: the engine's HDF5 layout, attributes and seqids; steps,
dump_list, op_filter, dump_mode and file_per."""
import os
import unittest

import hookrun
from hookrun import needs_h5py
from test_hooks import TempDirTest

if hookrun.HAVE_H5PY:
    import h5py
    import numpy as np

# mlp_fashion.py's leaf modules, in the order they run in one step.
STEP_OPS = [("Linear", "MLP/fc1"), ("ReLU", "MLP/relu"), ("Linear", "MLP/fc2"),
            ("CrossEntropyLoss", "CrossEntropyLoss")]
ATTRS = {"op_type", "scope", "step", "dtype", "shape", "wall_time", "direction", "global_seq"}


def datasets(f):
    out = []
    f.visititems(lambda name, obj: out.append(name) if isinstance(obj, h5py.Dataset) else None)
    return sorted(out)


@needs_h5py
class DumpTest(TempDirTest):
    def dump_run(self, config, steps=3):
        path = hookrun.write_json(os.path.join(self.dir, "dump.json"), config)
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_DUMP_CONFIG": path})
        r = hookrun.run(["--steps", str(steps)], env, self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.of("warning"), [])
        self.assertIn("dump", r.events()[0]["features"])
        return r

    def test_per_step_files_layout_and_attributes(self):
        r = self.dump_run({"dump_path": "dumps", "steps": "1-2,4", "file_per": "step"}, steps=5)
        files = r.of("dump_file")
        base = os.path.join(self.dir, "dumps")
        self.assertEqual([(d["path"], d["step"]) for d in files],
                         [(os.path.join(base, "step_%d.h5" % n), n) for n in (1, 2, 4)])
        self.assertEqual(sorted(os.listdir(base)), ["step_1.h5", "step_2.h5", "step_4.h5"])
        # Each file is announced before its step's "step" event.
        types = [(e["type"], e.get("step")) for e in r.events()]
        self.assertLess(types.index(("dump_file", 2)), types.index(("step", 2)))
        with h5py.File(files[1]["path"], "r") as f:
            self.assertEqual(f.attrs["dump_format"], "op/seqid/{input,output}/i")
            expected = []
            for op, n in (("CrossEntropyLoss", 1), ("Linear", 2), ("ReLU", 1)):
                for seq in range(n):
                    expected += ["%s/%d/input/0" % (op, seq), "%s/%d/output/0" % (op, seq)]
            expected.append("CrossEntropyLoss/0/input/1")  # the labels
            self.assertEqual(datasets(f), sorted(expected))
            for global_seq, (op, scope) in enumerate(STEP_OPS):
                seqid = [o for o, _ in STEP_OPS[:global_seq]].count(op)
                group = f["%s/%d" % (op, seqid)]
                self.assertEqual((group.attrs["seq_id"], group.attrs["global_seq"]), (seqid, global_seq))
                for io in ("input", "output"):
                    ds = group[io]["0"]
                    a = ds.attrs
                    self.assertEqual(set(a.keys()), ATTRS)
                    self.assertEqual((a["op_type"], a["scope"], a["step"], a["direction"]),
                                     (op, scope, 2, "forward"))
                    self.assertEqual(a["global_seq"], global_seq)
                    self.assertEqual(a["dtype"], ds.dtype.name)
                    self.assertEqual(tuple(a["shape"]), ds.shape)
                    self.assertGreater(a["wall_time"], 1.5e9)
            # Values: fc1's output is relu's input, and the loss output is a scalar.
            np.testing.assert_array_equal(f["Linear/0/output/0"][()].clip(min=0), f["ReLU/0/output/0"][()])
            self.assertEqual(f["Linear/0/input/0"].shape, (64, 784))
            self.assertEqual(f["CrossEntropyLoss/0/output/0"].shape, ())
            self.assertEqual(f["CrossEntropyLoss/0/input/1"].dtype, np.int64)

    def test_filtered_run_file_keeps_full_seqids(self):
        r = self.dump_run({"dump": {"dump_path": "dumps", "file_per": "run", "dump_mode": "output",
                                    "dump_list": ["ReLU", "MLP/fc2"], "steps": [2, 3]}})
        files = r.of("dump_file")
        self.assertEqual([(d["path"], d["step"]) for d in files],
                         [(os.path.join(self.dir, "dumps", "dump.h5"), -1)])
        self.assertEqual(r.events()[-1]["type"], "dump_file")  # closed at exit
        with h5py.File(files[0]["path"], "r") as f:
            # Steps 2 and 3 count on in one file: fc1 is Linear 0 and 2, fc2 is 1 and 3.
            self.assertEqual(datasets(f), ["Linear/1/output/0", "Linear/3/output/0",
                                           "ReLU/0/output/0", "ReLU/1/output/0"])
            self.assertEqual([f["Linear/%d/output/0" % s].attrs["step"] for s in (1, 3)], [2, 3])
            self.assertEqual(f["Linear/3/output/0"].attrs["scope"], "MLP/fc2")
            self.assertEqual([f["Linear/%d" % s].attrs["global_seq"] for s in (1, 3)], [2, 6])

    def test_inputs_by_filter_into_a_named_file(self):
        r = self.dump_run({"dump_path": "out/model.h5", "file_per": "run", "dump_mode": "input",
                           "op_filter": "fc1$", "dump_op_switch": "off", "dump_list": ["Linear"]},
                          steps=2)
        path = os.path.join(self.dir, "out", "model.h5")
        self.assertEqual([d["path"] for d in r.of("dump_file")], [path])
        with h5py.File(path, "r") as f:
            self.assertEqual(datasets(f), ["Linear/0/input/0", "Linear/2/input/0"])

    def test_no_grad_evaluation_is_not_dumped(self):
        # mlp_fashion.py evaluates under torch.no_grad() after training: none of it is dumped.
        r = self.dump_run({"dump_path": "dumps", "file_per": "run", "dump_list": ["Linear"]}, steps=2)
        with h5py.File(r.of("dump_file")[0]["path"], "r") as f:
            self.assertEqual(sorted(f["Linear"].keys()), ["0", "1", "2", "3"])
            self.assertEqual({f["Linear/%d/input/0" % s].shape[0] for s in range(4)}, {64})

    def test_without_h5py_one_warning(self):
        fake = self.folder("fake_h5py")
        self.write("fake_h5py/h5py/__init__.py", "raise ImportError('no h5py in this test')\n")
        path = hookrun.write_json(os.path.join(self.dir, "dump.json"), {"dump_path": "dumps"})
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_DUMP_CONFIG": path}, extra_path=[fake])
        r = hookrun.run(["--steps", "2"], env, self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual([w["message"] for w in r.of("warning")],
                         ["dump: h5py is not importable (no h5py in this test); no dumps"])
        self.assertEqual(r.events()[0]["features"], ["steps"])
        self.assertEqual(r.of("dump_file"), [])

    def test_switch_off_dumps_nothing(self):
        r = self.dump_run({"dump_path": "dumps", "dump_op_switch": "off"}, steps=2)
        self.assertEqual(r.of("dump_file"), [])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "dumps")))

    def test_write_error_stops_dumping_not_the_run(self):
        blocker = os.path.join(self.dir, "dumps")
        with open(blocker, "w") as f:
            f.write("a file where the dump folder should be")
        path = hookrun.write_json(os.path.join(self.dir, "dump.json"), {"dump_path": "dumps"})
        r = hookrun.run(["--steps", "3"], hookrun.hooks_env(self.dir, {"TRAINSCOPE_DUMP_CONFIG": path}),
                        self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        warnings = [w["message"] for w in r.of("warning")]
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("dumping stopped, the run goes on", warnings[0])
        self.assertEqual(r.of("dump_file"), [])
        self.assertEqual(len(r.of("step")), 3)


if __name__ == "__main__":
    unittest.main()
