"""Two ranks of ddp_gloo.py, started here (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT as
the launcher sets them), with losses, profiles and dumps on."""
import json
import os
import unittest

import hookrun
from hookrun import needs_h5py
from test_hooks import TempDirTest

WORLD = 2


@needs_h5py
class DdpTest(TempDirTest):
    def test_two_ranks(self):
        dump = hookrun.write_json(os.path.join(self.dir, "dump.json"),
                                  {"dump_path": "dumps", "steps": [2], "dump_list": ["Linear"]})
        traces = os.path.join(self.dir, "traces")
        port = hookrun.free_port()
        procs = []
        for rank in range(WORLD):
            env = hookrun.hooks_env(self.dir, {
                "TRAINSCOPE_LOSS": "1", "TRAINSCOPE_DUMP_CONFIG": dump,
                "TRAINSCOPE_PROFILE": "wait=1,warmup=1,active=2,repeat=1",
                "TRAINSCOPE_PROFILE_DIR": traces,
                "RANK": rank, "WORLD_SIZE": WORLD, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
            procs.append(hookrun.start("ddp_gloo.py", ["--steps", "6", "--slow-rank", "1",
                                                      "--sleep-ms", "20", "--timeout-s", "60"],
                                       env, self.dir))
        outputs = [p.communicate(timeout=hookrun.TIMEOUT_S) for p in procs]
        for p, (out, err) in zip(procs, outputs):
            self.assertEqual(p.returncode, 0, "rank failed:\n%s\n%s" % (out, err[-3000:]))

        result = hookrun.Result(None, self.dir)
        files = result.event_files()
        self.assertEqual(len(files), WORLD)
        for rank in range(WORLD):
            path = [f for f in files if os.path.basename(f).startswith("events.rank%d." % rank)][0]
            events = result.events(path)
            hello = events[0]
            self.assertEqual((hello["type"], hello["rank"], hello["world_size"]), ("hello", rank, WORLD))
            self.assertEqual(hello["features"], ["steps", "loss", "dump", "profile"])
            self.assertEqual([e["step"] for e in events if e["type"] == "step"], list(range(1, 7)))
            self.assertEqual(len([e for e in events if e["type"] == "scalar"]), 6)
            self.assertEqual([e for e in events if e["type"] == "warning"], [])
            # One trace: steps 3-4, with the rank in distributedInfo.
            trace_paths = [e["path"] for e in events if e["type"] == "trace"]
            self.assertEqual(len(trace_paths), 1)
            self.assertEqual(os.path.basename(trace_paths[0]),
                             "rank%d.%d.1.pt.trace.json" % (rank, hello["pid"]))
            with open(trace_paths[0], encoding="utf-8") as f:
                trace = json.load(f)
            self.assertEqual(trace["distributedInfo"], {"backend": "gloo", "rank": rank, "world_size": WORLD})
            steps = sorted(e["name"] for e in trace["traceEvents"] if e["name"].startswith("ProfilerStep#"))
            self.assertEqual(steps, ["ProfilerStep#3", "ProfilerStep#4"])
            # Dumps go under rank_<R>/ and keep the single-process scopes (DDP looked through).
            dumps = [e for e in events if e["type"] == "dump_file"]
            self.assertEqual([(d["path"], d["step"]) for d in dumps],
                             [(os.path.join(self.dir, "dumps", "rank_%d" % rank, "step_2.h5"), 2)])
            import h5py

            with h5py.File(dumps[0]["path"], "r") as f:
                self.assertEqual(sorted(f["Linear"].keys()), ["0", "1"])
                self.assertEqual(f["Linear/0/input/0"].attrs["scope"], "MLP/fc1")
                self.assertEqual(f["Linear/1/output/0"].attrs["scope"], "MLP/fc2")
        self.assertEqual(sorted(n for n in os.listdir(traces) if n.startswith(".")), [])


if __name__ == "__main__":
    unittest.main()
