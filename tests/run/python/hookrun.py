"""Helpers of the command-run tests: run a client script the way the studio's launcher
does (resources/python first on PYTHONPATH, TRAINSCOPE_* variables) and read back what it
left: the events files, traces, dumps."""
import glob
import json
import os
import socket
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
HOOKS_DIR = os.path.join(REPO, "resources", "python")
SCRIPTS = os.path.join(HERE, "scripts")
PYTHON = sys.executable
TIMEOUT_S = 120


def importable(name):
    try:
        __import__(name)
        return True
    except Exception:
        return False


HAVE_TORCH = importable("torch")
HAVE_H5PY = importable("h5py")
needs_torch = unittest.skipUnless(
    HAVE_TORCH, "torch is not importable by %s (use Debian's /usr/bin/python3)" % PYTHON)
needs_h5py = unittest.skipUnless(
    HAVE_TORCH and HAVE_H5PY, "torch and h5py are needed (use Debian's /usr/bin/python3)")


def strict_json(line):
    """json.loads that refuses NaN/Infinity tokens (the events must be strict JSON)."""
    def bad(token):
        raise ValueError("non-strict JSON token %s" % token)
    return json.loads(line, parse_constant=bad)


class Result:
    """A finished run (`proc` a CompletedProcess, or None for the events of a folder)."""

    def __init__(self, proc, folder):
        self.rc = proc.returncode if proc else None
        self.stdout = proc.stdout if proc else ""
        self.stderr = proc.stderr if proc else ""
        self.folder = folder

    def event_files(self):
        return sorted(glob.glob(os.path.join(self.folder, "events.*.jsonl")))

    def events(self, path=None):
        """Every event of the run's events files (or of one), in file order."""
        out = []
        for p in [path] if path else self.event_files():
            with open(p, encoding="utf-8") as f:
                for line in f:
                    out.append(strict_json(line))
        return out

    def of(self, kind, path=None):
        return [e for e in self.events(path) if e["type"] == kind]

    def describe(self):
        return "rc %s\n--- stdout\n%s\n--- stderr\n%s" % (self.rc, self.stdout[-3000:], self.stderr[-3000:])


def base_env(extra_path=()):
    """The environment of a command run: ours first on PYTHONPATH, no stray TRAINSCOPE_*."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TRAINSCOPE_") and k not in ("RANK", "WORLD_SIZE", "RANK_ID",
                                                            "RANK_SIZE", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join([HOOKS_DIR] + list(extra_path))
    env["OMP_NUM_THREADS"] = "1"
    return env


def hooks_env(folder, variables=None, extra_path=()):
    """base_env() with TRAINSCOPE_HOOKS=1, events in `folder` and `variables` set."""
    env = base_env(extra_path)
    env["TRAINSCOPE_HOOKS"] = "1"
    env["TRAINSCOPE_EVENTS"] = os.path.join(folder, "events.rank{rank}.{pid}.jsonl")
    env.update({k: str(v) for k, v in (variables or {}).items()})
    return env


def run(args, env, folder, script=None, timeout=TIMEOUT_S):
    """Runs `script` (a file in scripts/) with `args`, or `args` alone as the command
    line, in `folder`; returns a Result."""
    cmd = [PYTHON, os.path.join(SCRIPTS, script)] + list(args) if script else [PYTHON] + list(args)
    proc = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)
    return Result(proc, folder)


def start(script, args, env, folder):
    """Starts a script without waiting (a rank of a distributed run)."""
    return subprocess.Popen([PYTHON, os.path.join(SCRIPTS, script)] + list(args), cwd=folder,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)
    return path
