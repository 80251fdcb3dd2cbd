"""mindspore_standin.py: MindSpore's log formats and level rules, LossMonitor lines, the
RDR export in the layout the studio's reader takes (core/debug/rdr/rdr_reader.cpp)."""
import json
import os
import re
import shutil
import subprocess
import unittest

import hookrun
from test_hooks import TempDirTest

CPP = re.compile(r"^\[(DEBUG|INFO|WARNING|ERROR|EXCEPTION)\] ([A-Z_]+)\((\d+),([0-9a-f]+),python\):"
                 r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[([^\]:]+\.cc):(\d+)\] (\w+)\] (.*)$")
PY = re.compile(r"^\[(DEBUG|INFO|WARNING|ERROR|CRITICAL)\] ME\((\d+):(\d+),MainProcess\):"
                r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[([^\]:]+\.py):(\d+)\] (.*)$")
RDR_FILES = ["graph_0.ir", "exec_order.txt", "memory_alloc.txt", "log_tail.txt", "run_state.txt"]


class MindSporeStandInTest(TempDirTest):
    def standin(self, args, **env):
        e = hookrun.base_env()
        for k in ("GLOG_v", "MS_SUBMODULE_LOG_v", "MS_RDR_ENABLE", "MS_RDR_MODE", "MS_RDR_PATH"):
            e.pop(k, None)
        e.update({k: str(v) for k, v in env.items()})
        return hookrun.run(args, e, self.dir, script="mindspore_standin.py")

    def records(self, stderr):
        """(kind, level, module) of every log record on stderr."""
        out = []
        for line in stderr.splitlines():
            m = CPP.match(line)
            if m:
                out.append(("cpp", m.group(1), m.group(2)))
                continue
            m = PY.match(line)
            if m:
                out.append(("py", m.group(1), "ME"))
        return out

    def test_default_level_and_loss_monitor(self):
        r = self.standin(["--steps", "7", "--steps-per-epoch", "5"])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.stdout.splitlines()[:2], ["epoch: 1 step: 1, loss is 2.1492",
                                                      "epoch: 1 step: 2, loss is 1.9897"])
        self.assertRegex(r.stdout.splitlines()[-1], r"^epoch: 2 step: 2, loss is \d\.\d{4}$")
        recs = self.records(r.stderr)
        self.assertEqual(len(recs), len(r.stderr.splitlines()))  # every line is a record
        self.assertEqual({level for _, level, _ in recs}, {"WARNING"})  # GLOG_v=2
        self.assertEqual({kind for kind, _, _ in recs}, {"cpp", "py"})

    def test_glog_v_and_submodule_levels(self):
        r = self.standin(["--steps", "2"], GLOG_v="1", MS_SUBMODULE_LOG_v="{KERNEL:0, DEVICE:3,NOPE:1}")
        self.assertEqual(r.rc, 0, r.describe())
        recs = self.records(r.stderr)
        self.assertIn(("cpp", "DEBUG", "KERNEL"), recs)  # KERNEL's own level 0
        self.assertNotIn(("cpp", "DEBUG", "RUNTIME_FRAMEWORK"), recs)  # GLOG_v=1 for the rest
        self.assertIn(("cpp", "INFO", "ME"), recs)
        self.assertFalse([x for x in recs if x[2] == "DEVICE"])  # DEVICE only ERROR and up
        self.assertIn("unknown sub-module 'NOPE' ignored", r.stderr)
        r = self.standin(["--steps", "2"], GLOG_v="3")
        self.assertEqual(self.records(r.stderr), [])
        r = self.standin(["--steps", "2"], GLOG_v="x")
        self.assertIn("GLOG_v='x' is not a log level", r.stderr)

    def test_failure_writes_the_rdr_export(self):
        root = os.path.join(self.dir, "rdr")
        r = self.standin(["--steps", "7", "--fail"], GLOG_v="0", MS_RDR_ENABLE="1", MS_RDR_PATH=root,
                         RANK_ID="3")
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("[ERROR] DEVICE(", r.stderr)
        self.assertTrue(r.stderr.rstrip().splitlines()[-1].startswith("mindspore/ccsrc/"))
        self.assertIn("Traceback (most recent call last):", r.stderr)
        folder = os.path.join(root, "rank_3", "rdr")
        self.assertEqual(sorted(os.listdir(folder)), sorted(RDR_FILES + ["rdr_index.json"]))
        with open(os.path.join(folder, "rdr_index.json")) as f:
            index = json.load(f)
        self.assertEqual((index["format"], index["version"], index["reason"]),
                         ("trainscope-rdr", 1, "op_exception"))
        self.assertEqual((index["epoch"], index["step"], index["failing_step"], index["rank_id"]),
                         (2, 7, 7, 3))
        self.assertTrue(index["failing_op"].endswith("fc2-Dense/MatMul-op3"))
        self.assertEqual(index["files"], RDR_FILES)
        self.assertRegex(index["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        # exec_order.txt as rdr_reader parses it: the failing op is the current step's last row.
        with open(os.path.join(folder, "exec_order.txt")) as f:
            text = f.read()
        current = text[text.index("## current"):text.index("## previous")].strip().splitlines()
        self.assertEqual(current[0], "## current epoch=2 step=7 ops=4 kept=4")
        self.assertEqual(current[1], "seqid\top\tscope\tinputs\toutputs")
        last = current[-1].split("\t")
        self.assertEqual((int(last[0]), last[2]), (index["failing_seqid"], index["failing_op"]))
        with open(os.path.join(folder, "log_tail.txt")) as f:
            self.assertIn("[ERROR] DEVICE(", f.read())
        with open(os.path.join(folder, "run_state.txt")) as f:
            state = f.read()
        self.assertTrue(state.startswith("epoch: 2\nstep: 7\nloss: "))
        json.loads(state.split("config:\n", 1)[1])
        self.check_with_cli(root, index)

    def test_rdr_modes(self):
        root = os.path.join(self.dir, "rdr")
        r = self.standin(["--steps", "3"], MS_RDR_ENABLE="1", MS_RDR_PATH=root)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertFalse(os.path.exists(root))  # mode 1: abnormal ends only
        r = self.standin(["--steps", "3"], MS_RDR_ENABLE="1", MS_RDR_MODE="2", MS_RDR_PATH=root)
        self.assertEqual(r.rc, 0, r.describe())
        with open(os.path.join(root, "rank_0", "rdr", "rdr_index.json")) as f:
            self.assertEqual(json.load(f)["reason"], "normal_end")
        r = self.standin(["--steps", "1", "--fail"], MS_RDR_ENABLE="1", MS_RDR_PATH="relative/dir")
        self.assertEqual(r.rc, 1)
        self.assertIn("RDR path must be an absolute path", r.stderr)

    def check_with_cli(self, root, index):
        """With TRAINSCOPE_CLI (the built trainscope-cli), the studio's reader agrees."""
        cli = os.environ.get("TRAINSCOPE_CLI") or shutil.which("trainscope-cli")
        if not cli:
            return
        out = subprocess.run([cli, "rdr", root, "--json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        read = json.loads(out.stdout)
        self.assertEqual(read["problems"], [])
        for key in ("reason", "failing_op", "failing_seqid", "failing_step", "step", "rank_id"):
            self.assertEqual(read[key], index[key], key)


if __name__ == "__main__":
    unittest.main()
