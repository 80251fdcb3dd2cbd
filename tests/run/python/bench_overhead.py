"""Overhead of the hooks: start-up of a Python process, time per training step of
mlp_fashion.py with the hooks off and on, and the hooks' own cost per step measured in
one process (not a test; run it by hand):

    /usr/bin/python3 tests/run/python/bench_overhead.py [--rounds 7] [--steps 400]

Processes run interleaved, round after round, so a busy machine slows them alike; the
medians (and minima) are printed with the difference to the baseline. The in-process
part compares, in the same process, the first optimizer (whose step() is wrapped) with a
second one (not wrapped), and the wrapped backward() with torch's own.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import hookrun

STEP_RE = re.compile(r"\(([\d.]+) ms/step, ([\d.]+) ms CPU/step\)")


def step_variants(folder):
    hooks = hookrun.hooks_env(folder)
    hooks.pop("TRAINSCOPE_EVENTS")
    with_events = hookrun.hooks_env(folder)
    loss = dict(with_events, TRAINSCOPE_LOSS="1")
    overflow = dict(with_events, TRAINSCOPE_OVERFLOW="1")
    no_path = hookrun.base_env()
    no_path.pop("PYTHONPATH")
    return [("baseline (no PYTHONPATH)", no_path),
            ("hooks off (PYTHONPATH only)", hookrun.base_env()),
            ("TRAINSCOPE_HOOKS=1, no events file", hooks),
            ("TRAINSCOPE_HOOKS=1 + events", with_events),
            ("TRAINSCOPE_HOOKS=1 + TRAINSCOPE_LOSS=1", loss),
            ("TRAINSCOPE_HOOKS=1 + TRAINSCOPE_OVERFLOW=1", overflow)]


def startup_variants(folder):
    empty = os.path.join(folder, "empty")
    os.makedirs(empty, exist_ok=True)
    off = hookrun.base_env()
    empty_env = dict(off, PYTHONPATH=empty)
    on = hookrun.hooks_env(folder)
    return [("python -c pass, PYTHONPATH=<empty folder>", empty_env, "pass"),
            ("python -c pass, PYTHONPATH=resources/python (off)", off, "pass"),
            ("python -c pass, TRAINSCOPE_HOOKS=1", on, "pass"),
            ("python -c 'import torch', PYTHONPATH=<empty folder>", empty_env, "import torch"),
            ("python -c 'import torch', TRAINSCOPE_HOOKS=1", on, "import torch")]


def micro(repeat=2000):
    """Runs under TRAINSCOPE_HOOKS=1 TRAINSCOPE_LOSS=1: the hooks' cost per call."""
    import timeit

    import torch

    torch.set_num_threads(1)
    w = torch.zeros(4, requires_grad=True)
    w.grad = torch.zeros(4)
    hooked = torch.optim.SGD([w], lr=0.0)  # the first optimizer: its step() ends a step
    plain = torch.optim.SGD([torch.zeros(4, requires_grad=True)], lr=0.0)
    plain.param_groups[0]["params"][0].grad = torch.zeros(4)
    x = torch.ones(4)

    def loss():
        return (w * x).sum()

    def backward_hooked():
        loss().backward()

    wrapped_autograd = torch.autograd.backward
    real_autograd = wrapped_autograd.__wrapped__

    def backward_plain():  # torch's own Tensor.backward and autograd.backward
        torch.autograd.backward = real_autograd
        try:
            torch.Tensor.backward.__wrapped__(loss())
        finally:
            torch.autograd.backward = wrapped_autograd

    def best(fn):
        return min(timeit.repeat(fn, number=repeat, repeat=5)) / repeat * 1e6

    rows = [("optimizer.step()", best(plain.step), best(hooked.step)),
            ("loss.backward()", best(backward_plain), best(backward_hooked))]
    for name, a, b in rows:
        print("  %-18s torch %7.2f us   with hooks %7.2f us   (%+.2f us per call)" % (name, a, b, b - a))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--startup-runs", type=int, default=40)
    p.add_argument("--micro", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.micro:
        return micro()
    with tempfile.TemporaryDirectory() as folder:
        print("hooks' own cost in one process (best of 5 x 2000 calls; events written):")
        env = hookrun.hooks_env(folder, {"TRAINSCOPE_LOSS": "1"})
        out = subprocess.run([hookrun.PYTHON, os.path.abspath(__file__), "--micro"], env=env,
                             cwd=folder, capture_output=True, text=True, check=True)
        print(out.stdout, end="")

        print("start-up, median of %d runs (ms):" % args.startup_runs)
        variants = startup_variants(folder)
        times = {name: [] for name, _, _ in variants}
        for _ in range(args.startup_runs):
            for name, env, code in variants:
                t = time.perf_counter()
                subprocess.run([hookrun.PYTHON, "-c", code], env=env, cwd=folder, check=True)
                times[name].append(1000 * (time.perf_counter() - t))
        for name, _, _ in variants:
            print("  %-55s %8.2f" % (name, statistics.median(times[name])))

        print("mlp_fashion.py --steps %d, medians of %d rounds:" % (args.steps, args.rounds))
        variants = step_variants(folder)
        wall = {name: [] for name, _ in variants}
        cpu = {name: [] for name, _ in variants}
        for _ in range(args.rounds):
            for name, env in variants:
                r = hookrun.run(["--steps", str(args.steps), "--log-every", str(args.steps + 1)],
                                env, folder, script="mlp_fashion.py")
                if r.rc != 0:
                    raise SystemExit(r.describe())
                m = STEP_RE.search(r.stderr)
                wall[name].append(float(m.group(1)))
                cpu[name].append(float(m.group(2)))
        base_wall = statistics.median(wall[variants[0][0]])
        base_cpu = statistics.median(cpu[variants[0][0]])
        for name, _ in variants:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            print("  %-42s wall %6.3f ms/step (%+6.1f us)   CPU %6.3f ms/step (%+6.1f us)"
                  % (name, w, 1000 * (w - base_wall), c, 1000 * (c - base_cpu)))


if __name__ == "__main__":
    main()
