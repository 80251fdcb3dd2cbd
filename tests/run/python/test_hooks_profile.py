"""TRAINSCOPE_PROFILE: traces per cycle, named and renamed into place, step labels that
follow the schedule, the profiler's options, a cycle still open at exit."""
import json
import os
import re
import textwrap
import unittest

import hookrun
from hookrun import needs_torch
from test_hooks import TempDirTest


def step_labels(trace):
    return sorted(int(e["name"].split("#")[1]) for e in trace["traceEvents"]
                  if e.get("name", "").startswith("ProfilerStep#"))


@needs_torch
class ProfileTest(TempDirTest):
    def profile_run(self, schedule, steps, options=None):
        traces = os.path.join(self.dir, "traces")
        variables = {"TRAINSCOPE_PROFILE": schedule, "TRAINSCOPE_PROFILE_DIR": traces}
        if options is not None:
            variables["TRAINSCOPE_PROFILE_OPTIONS"] = options
        r = hookrun.run(["--steps", str(steps)], hookrun.hooks_env(self.dir, variables), self.dir,
                        script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        return r, traces

    def load_traces(self, r, traces):
        """The traces the events announce, checked: absolute paths, named
        rank<R>.<pid>.<n>.pt.trace.json with n = 1, 2, ..., no temporary file left."""
        paths = [t["path"] for t in r.of("trace")]
        pid = r.events()[0]["pid"]
        self.assertEqual(paths, [os.path.join(traces, "rank0.%d.%d.pt.trace.json" % (pid, n))
                                 for n in range(1, len(paths) + 1)])
        self.assertEqual(sorted(os.listdir(traces)), sorted(os.path.basename(p) for p in paths))
        out = []
        for p in paths:
            with open(p, encoding="utf-8") as f:
                out.append(json.load(f))
        return out

    def test_cycles_follow_the_schedule(self):
        r, traces = self.profile_run("wait=1,warmup=1,active=2,repeat=2", 10)
        docs = self.load_traces(r, traces)
        # Training steps 1.. are the schedule's 0..: cycles [wait 1, warm-up 2, active 3-4]
        # and [5, 6, 7-8]; steps 9-10 are past the schedule.
        self.assertEqual([step_labels(d) for d in docs], [[3, 4], [7, 8]])
        # Each trace is announced right after the step that completed it.
        events = r.events()
        where = [i for i, e in enumerate(events) if e["type"] == "trace"]
        self.assertEqual([events[i + 1] for i in where], [
            e for e in r.of("step") if e["step"] in (4, 8)])
        for d in docs:
            names = {e["name"] for e in d["traceEvents"]}
            self.assertIn("aten::addmm", names)
            self.assertIn("Optimizer.step#SGD.step", names)
            self.assertNotIn("distributedInfo", d)  # no process group in this run
            ops = [e for e in d["traceEvents"] if e.get("name") == "aten::addmm"]
            self.assertTrue(all("Input Dims" in e.get("args", {}) for e in ops))
            self.assertTrue(any(e.get("name") == "[memory]" for e in d["traceEvents"]))
            # The step slices lie on the Unix clock, in microseconds.
            steps = [e for e in d["traceEvents"] if e["name"].startswith("ProfilerStep#")]
            self.assertGreater(steps[0]["ts"], 1.5e15)
            self.assertEqual({e["cat"] for e in steps}, {"user_annotation"})  # as Kineto has them
            self.assertEqual({e["cat"] for e in ops}, {"cpu_op"})

    def test_open_cycle_is_written_at_exit_and_options(self):
        r, traces = self.profile_run("wait=0,warmup=1,active=3", 6, options="with_stack")
        docs = self.load_traces(r, traces)
        # Cycle 1: warm-up 1, active 2-4; cycle 2: warm-up 5, active 6 and the evaluation
        # after the last optimizer step (step 7), written when the interpreter exits.
        self.assertEqual([step_labels(d) for d in docs], [[2, 3, 4], [6, 7]])
        last = r.events()[-1]
        self.assertEqual(last["type"], "trace")
        ops = [e for e in docs[0]["traceEvents"] if e.get("ph") == "X"]
        self.assertFalse(any("Input Dims" in e["args"] for e in ops))  # shapes off
        self.assertFalse(any(e.get("name") == "[memory]" for e in docs[0]["traceEvents"]))
        stacks = [e["args"]["Call stack"] for e in ops if "Call stack" in e["args"]]
        self.assertTrue(any("mlp_fashion.py" in s for s in stacks))

    def test_scripts_own_profiler_wins(self):
        code = textwrap.dedent("""
            import torch
            w = torch.zeros(3, requires_grad=True)
            opt = torch.optim.SGD([w], lr=0.1)
            for step in range(1, 7):
                if step == 4:  # the script profiles steps 4-5 itself
                    own = torch.profiler.profile()
                    own.start()
                (w * 2).sum().backward()
                opt.step()
                if step == 5:
                    own.stop()
                    print("own profile:", len(own.key_averages()) > 0)
            """)
        traces = os.path.join(self.dir, "traces")
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_PROFILE": "wait=0,warmup=0,active=100",
                                           "TRAINSCOPE_PROFILE_DIR": traces})
        r = hookrun.run(["-c", code], env, self.dir)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIn("own profile: True", r.stdout)
        self.assertEqual([w["message"] for w in r.of("warning")],
                         ["profile: the script started its own torch profiler at step 4; "
                          "TRAINSCOPE_PROFILE stops there"])
        docs = self.load_traces(r, traces)
        self.assertEqual([step_labels(d) for d in docs], [[1, 2, 3, 4]])

    def test_bad_schedule_is_a_warning(self):
        r, traces = self.profile_run("wait=0,active=0", 2)
        self.assertEqual(r.of("trace"), [])
        self.assertFalse(os.path.exists(traces))
        self.assertTrue(re.search(r"TRAINSCOPE_PROFILE=.*active must be at least 1.*profiling is off",
                                  r.of("warning")[0]["message"]))


if __name__ == "__main__":
    unittest.main()
