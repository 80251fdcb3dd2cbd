"""Command runs, the basics: start-up (sitecustomize chaining, hooks off, torch missing),
steps and losses, the user's own failure, a bad dump.json.

    /usr/bin/python3 -m unittest discover -s tests/run/python -p 'test_*.py'
"""
import os
import re
import tempfile
import textwrap
import unittest

import hookrun
from hookrun import needs_torch


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="tshooks_")
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def folder(self, name):
        path = os.path.join(self.dir, name)
        os.makedirs(path, exist_ok=True)
        return path

    def write(self, relpath, text):
        path = os.path.join(self.dir, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))
        return path


class StartUpTest(TempDirTest):
    """sitecustomize: chaining, the off switch, processes without torch."""

    def test_debian_sitecustomize_still_runs(self):
        # Debian's sitecustomize imports apport_python_hook and calls install(): a fake
        # one after ours on PYTHONPATH shows by its effect that Debian's file was run.
        own = hookrun.run(["-c", "import sitecustomize; print(sitecustomize.__file__)"],
                          dict(hookrun.base_env(), PYTHONPATH=""), self.dir)
        debian = own.stdout.strip()
        text = hookrun.read_text(debian) if own.rc == 0 and os.path.isfile(debian) else ""
        if "apport_python_hook" not in text:
            self.skipTest("%s has no Debian sitecustomize importing apport_python_hook" % hookrun.PYTHON)
        marker = os.path.join(self.dir, "apport.marker")
        fake = self.folder("fake_apport")
        self.write("fake_apport/apport_python_hook.py", """
            def install():
                open(%r, "w").write("installed")
            """ % marker)
        code = "import sitecustomize as s; print(s.__file__); print(s.chained.__file__)"
        for hooks in ("0", "1"):
            os.path.exists(marker) and os.unlink(marker)
            env = hookrun.base_env([fake])
            env["TRAINSCOPE_HOOKS"] = hooks
            r = hookrun.run(["-c", code], env, self.dir)
            self.assertEqual(r.rc, 0, r.describe())
            ours, chained = r.stdout.split()
            self.assertEqual(os.path.realpath(ours),
                             os.path.realpath(os.path.join(hookrun.HOOKS_DIR, "sitecustomize.py")))
            self.assertEqual(os.path.realpath(chained), os.path.realpath(debian))
            self.assertTrue(os.path.exists(marker), "Debian's sitecustomize did not run (hooks %s)" % hooks)

    def test_next_sitecustomize_on_the_path_runs_once(self):
        later = self.folder("later")
        self.write("later/sitecustomize.py", """
            import builtins, sys
            builtins.later_sitecustomize_runs = getattr(builtins, "later_sitecustomize_runs", 0) + 1
            builtins.later_sitecustomize_name = __name__
            builtins.later_sitecustomize_in_modules = sys.modules.get("sitecustomize") is not None
            """)
        code = ("import builtins, sitecustomize; print(builtins.later_sitecustomize_runs, "
                "builtins.later_sitecustomize_name, "
                "sitecustomize.__file__.endswith('resources/python/sitecustomize.py'))")
        r = hookrun.run(["-c", code], hookrun.base_env([later]), self.dir)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.stdout.split(), ["1", "sitecustomize", "True"])

    def test_error_in_next_sitecustomize_is_reported_like_site_does(self):
        later = self.folder("broken")
        self.write("broken/sitecustomize.py", "raise ValueError('broken on purpose')\n")
        r = hookrun.run(["-c", "print('ran')"], hookrun.base_env([later]), self.dir)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.stdout.strip(), "ran")
        self.assertIn("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                      "ValueError: broken on purpose", r.stderr)

    def test_hooks_off_writes_nothing(self):
        if not hookrun.HAVE_TORCH:
            self.skipTest("torch is not importable")
        dump = hookrun.write_json(os.path.join(self.dir, "dump.json"), {"dump_path": "dumps"})
        env = hookrun.hooks_env(self.dir, {
            "TRAINSCOPE_LOSS": "1", "TRAINSCOPE_PROFILE": "wait=0,warmup=0,active=1",
            "TRAINSCOPE_PROFILE_DIR": os.path.join(self.dir, "traces"),
            "TRAINSCOPE_DUMP_CONFIG": dump, "TRAINSCOPE_OVERFLOW": "1"})
        del env["TRAINSCOPE_HOOKS"]
        r = hookrun.run(["--steps", "2"], env, self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(sorted(os.listdir(self.dir)), ["dump.json"])

    def test_process_that_never_imports_torch_does_not_load_it(self):
        code = ("import sys, trainscope_hooks; "
                "print('torch' in sys.modules, trainscope_hooks.runtime() is not None)")
        r = hookrun.run(["-c", code], hookrun.hooks_env(self.dir), self.dir)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.stdout.split(), ["False", "True"])
        hello = r.of("hello")
        self.assertEqual(len(hello), 1)
        self.assertIsNone(hello[0]["torch"])  # written at exit: torch never came

    def test_torch_missing(self):
        fake = self.folder("fake_torch")
        self.write("fake_torch/torch/__init__.py", "raise ImportError('no torch in this test')\n")
        # A script without torch (the MindSpore stand-in) and one that tries torch.
        r = hookrun.run(["--steps", "3"], hookrun.hooks_env(self.dir, extra_path=[fake]), self.dir,
                        script="mindspore_standin.py")
        self.assertEqual(r.rc, 0, r.describe())
        code = textwrap.dedent("""
            try:
                import torch
            except ImportError as err:
                print("no torch:", err)
            """)
        r2 = hookrun.run(["-c", code], hookrun.hooks_env(self.dir, extra_path=[fake]), self.dir)
        self.assertEqual(r2.rc, 0, r2.describe())
        self.assertIn("no torch: no torch in this test", r2.stdout)
        files = r2.event_files()  # both runs wrote to this folder
        self.assertEqual(len(files), 2)
        for path in files:
            events = r2.events(path)
            self.assertEqual(events[0]["type"], "hello")
            self.assertIsNone(events[0]["torch"])
            self.assertEqual(events[0]["features"], [])
            self.assertEqual([e["type"] for e in events], ["hello"])

    def test_bad_variables_are_warnings(self):
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_PROFILE": "wait=1,bogus=2",
                                           "TRAINSCOPE_OVERFLOW": "maybe",
                                           "TRAINSCOPE_RANK": "three"})
        r = hookrun.run(["--steps", "1"], env, self.dir, script="mindspore_standin.py")
        self.assertEqual(r.rc, 0, r.describe())
        events = r.events()
        self.assertEqual(events[0]["type"], "hello")  # held warnings follow the hello
        text = " | ".join(e["message"] for e in r.of("warning"))
        self.assertIn("TRAINSCOPE_PROFILE='wait=1,bogus=2'", text)
        self.assertIn("TRAINSCOPE_OVERFLOW='maybe'", text)
        self.assertIn("TRAINSCOPE_RANK='three' is not an integer", text)


@needs_torch
class TrainingRunTest(TempDirTest):
    """mlp_fashion.py and raise_script.py under the hooks."""

    def test_steps_and_losses_with_a_step_lr(self):
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_LOSS": "1", "TRAINSCOPE_RANK": "0"})
        r = hookrun.run(["--steps", "12", "--log-every", "4"], env, self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        files = r.event_files()
        self.assertEqual(len(files), 1)
        self.assertRegex(os.path.basename(files[0]), r"^events\.rank0\.\d+\.jsonl$")
        events = r.events()
        hello = events[0]
        self.assertEqual(hello["type"], "hello")
        self.assertEqual((hello["rank"], hello["world_size"]), (0, 1))
        self.assertEqual(hello["features"], ["steps", "loss"])
        self.assertTrue(hello["torch"])
        self.assertEqual(str(hello["pid"]), files[0].split(".")[-2])
        self.assertEqual([e["step"] for e in r.of("step")], list(range(1, 13)))
        scalars = r.of("scalar")
        self.assertEqual([(s["tag"], s["step"]) for s in scalars], [("train/loss", n) for n in range(1, 13)])
        printed = {int(m.group(1)): float(m.group(2))
                   for m in re.finditer(r"epoch: 1 step: (\d+), loss is ([\d.]+)", r.stdout)}
        self.assertEqual(sorted(printed), [4, 8, 12])
        for step, value in printed.items():
            self.assertAlmostEqual(scalars[step - 1]["value"], value, places=4)
        # The StepLR kept stepping (10 steps: lr 0.1 -> 0.05) and saw no misuse.
        self.assertIn("lr now 0.05", r.stderr)
        self.assertNotIn("lr_scheduler.step()", r.stderr)
        # Every timestamp is Unix nanoseconds, in order.
        ts = [e["ts"] for e in events if "ts" in e]
        self.assertEqual(ts, sorted(ts))
        self.assertGreater(ts[0], 1.5e18)

    def test_users_exception_is_untouched(self):
        dump = hookrun.write_json(os.path.join(self.dir, "dump.json"), {"dump_path": "dumps"})
        env = hookrun.hooks_env(self.dir, {
            "TRAINSCOPE_LOSS": "1", "TRAINSCOPE_OVERFLOW": "stop", "TRAINSCOPE_DUMP_CONFIG": dump,
            "TRAINSCOPE_PROFILE": "wait=0,warmup=0,active=10",
            "TRAINSCOPE_PROFILE_DIR": os.path.join(self.dir, "traces")})
        r = hookrun.run(["--fail-at", "3"], env, self.dir, script="raise_script.py")
        self.assertEqual(r.rc, 1, r.describe())
        tail = r.stderr[r.stderr.index("Traceback (most recent call last):"):]
        self.assertRegex(tail, r'File ".*raise_script\.py", line \d+, in load_batch')
        self.assertTrue(tail.rstrip().endswith(
            "RuntimeError: raise_script: simulated failure in the data pipeline at step 3"), tail)
        self.assertNotIn("trainscope", tail.lower())
        self.assertEqual([e["step"] for e in r.of("step")], [1, 2])
        self.assertEqual(len(r.of("scalar")), 2)
        # At exit the open profile cycle and dump file were still written.
        self.assertEqual(len(r.of("trace")), 1)
        self.assertEqual([d["step"] for d in r.of("dump_file")], [1, 2])
        self.assertEqual(r.of("warning"), [])

    def test_bad_dump_config_is_a_warning(self):
        bad = self.write("dump.json", '{"dump_path": "dumps", "dump_mode": "both"')
        env = hookrun.hooks_env(self.dir, {"TRAINSCOPE_DUMP_CONFIG": bad})
        r = hookrun.run(["--steps", "2"], env, self.dir, script="mlp_fashion.py")
        self.assertEqual(r.rc, 0, r.describe())
        warnings = [w["message"] for w in r.of("warning")]
        self.assertEqual(len(warnings), 1, warnings)
        self.assertTrue(warnings[0].startswith("dump.json: "), warnings)
        self.assertIn("dumping is off", warnings[0])
        self.assertNotIn("dump", r.events()[0]["features"])
        self.assertEqual(len(r.of("step")), 2)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "dumps")))


if __name__ == "__main__":
    unittest.main()
