#!/usr/bin/python3
"""Writes a pair of Kineto traces for the run diff tests: a base trace, and the same trace with
one op made 3x slower (every call of it) and one new op inserted in every step.

    make_kineto_pair.py synthetic OUT_DIR [--steps N]
    make_kineto_pair.py from TRACE.json[.gz] OUT_DIR [--slow NAME] [--insert NAME]

Writes OUT_DIR/base.json, OUT_DIR/variant.json and OUT_DIR/pair.json (what was changed:
{"slowed", "inserted", "inserted_us", "steps"}). Python's standard library only.

Times are rewritten so the variant stays a consistent trace: every event that starts at or
after a changed point moves later by the time added there; the slowed op, its parents and
every host slice around the point (the step, on whichever thread) grow by it; device events
that started earlier (kernels already running) keep their duration.
"""
import argparse
import bisect
import gzip
import json
import os
import sys

INSERTED_DEFAULT = "aten::feature_dropout"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def events_of(doc):
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def thread_key(e):
    return (str(e.get("pid")), str(e.get("tid")))


def is_slice(e):
    return e.get("ph") == "X" and "dur" in e


DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "gpu_user_annotation"}


def is_device(e):
    return str(e.get("cat", "")).lower() in DEVICE_CATEGORIES


def self_times(events):
    """Self time per event index (duration minus direct children on the same thread)."""
    by_thread = {}
    for i, e in enumerate(events):
        if is_slice(e):
            by_thread.setdefault(thread_key(e), []).append(i)
    self_t = {}
    for idx in by_thread.values():
        idx.sort(key=lambda i: (events[i]["ts"], -events[i]["dur"]))
        stack = []
        for i in idx:
            e = events[i]
            self_t[i] = e["dur"]
            while stack and events[stack[-1]]["ts"] + events[stack[-1]]["dur"] <= e["ts"]:
                stack.pop()
            if stack and e["ts"] + e["dur"] <= events[stack[-1]]["ts"] + events[stack[-1]]["dur"]:
                self_t[stack[-1]] -= e["dur"]
            stack.append(i)
    return self_t


def steps_of(events):
    return sorted((e for e in events if is_slice(e) and str(e.get("name", "")).startswith("ProfilerStep#")),
                  key=lambda e: e["ts"])


def pick_slowed(events):
    """The aten:: op with the most self time that runs in every step (host threads only)."""
    steps = steps_of(events)
    st = self_times(events)
    total, seen = {}, {}
    for i, e in enumerate(events):
        name = str(e.get("name", ""))
        if not is_slice(e) or not name.startswith("aten::") or e.get("cat") not in ("Operator", "cpu_op"):
            continue
        total[name] = total.get(name, 0) + st[i]
        for k, s in enumerate(steps):
            if s["ts"] <= e["ts"] < s["ts"] + s["dur"]:
                seen.setdefault(name, set()).add(k)
    every = [n for n in total if len(seen.get(n, ())) == len(steps)]
    return max(every, key=lambda n: total[n])


def apply_points(events, points):
    """points: [(T, extra, thread, kind, op_ts)] in original times; kind 'slow' | 'insert'."""
    points = sorted(points, key=lambda p: p[0])
    times = [p[0] for p in points]
    cum = [0]
    for p in points:
        cum.append(cum[-1] + p[1])

    def shift(t):  # total time added at or before t
        return cum[bisect.bisect_right(times, t)]

    out = []
    for e in events:
        e = dict(e)
        if "ts" not in e or e.get("ph") == "M":
            out.append(e)
            continue
        ts = e["ts"]
        grow = 0
        if is_slice(e):
            end = ts + e["dur"]
            lo = bisect.bisect_left(times, ts)
            hi = bisect.bisect_right(times, end)
            for T, extra, thread, kind, op_ts in points[lo:hi]:
                if is_device(e):
                    continue  # a kernel already running keeps its duration
                if thread == thread_key(e) and kind == "slow" and ts <= op_ts and end >= T:
                    grow += extra  # the slowed op and its parents
                elif ts < T < end:
                    grow += extra  # host slices around the point (the step waits for it)
            e["dur"] = e["dur"] + grow
        e["ts"] = ts + shift(ts)
        out.append(e)
    return out


def make_variant(events, slowed, inserted, inserted_us):
    steps = steps_of(events)
    if not steps:
        sys.exit("make_kineto_pair: the trace has no ProfilerStep#N slices")
    if any(e.get("name") == inserted for e in events):
        sys.exit("make_kineto_pair: %s is already in the trace; pick another --insert" % inserted)
    points, new = [], []
    for e in events:
        if is_slice(e) and e.get("name") == slowed:
            points.append((e["ts"] + e["dur"], 2 * e["dur"], thread_key(e), "slow", e["ts"]))
    for s in steps:
        # After the second direct child of the step on its thread (or the first, if alone).
        kids = sorted((e for e in events if is_slice(e) and thread_key(e) == thread_key(s)
                       and s["ts"] < e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"]),
                      key=lambda e: (e["ts"], -e["dur"]))
        top, end = [], -1
        for k in kids:
            if k["ts"] >= end:
                top.append(k)
                end = k["ts"] + k["dur"]
        anchor = top[min(1, len(top) - 1)] if top else None
        T = anchor["ts"] + anchor["dur"] if anchor else s["ts"]
        points.append((T, inserted_us, thread_key(s), "insert", T))
        new.append({"ph": "X", "cat": s.get("cat", "cpu_op"), "name": inserted, "pid": s["pid"],
                    "tid": s["tid"], "ts": T, "dur": inserted_us,
                    "args": {"Input Dims": [[64, 256]], "Input type": ["float"]}})
    variant = apply_points(events, points)
    for n in new:  # at T plus what was added before T: a slowed op ending at T, not the insertion
        T = n["ts"]
        n["ts"] = T + sum(p[1] for p in points if p[0] < T or (p[0] == T and p[3] == "slow"))
        variant.append(n)
    return variant, len(steps)


def synthetic(steps):
    """A small Kineto trace: host ops nested under ProfilerStep#N, kernels on stream 7."""
    ev = [{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "thread_name", "pid": 100, "tid": 1, "args": {"name": "thread 1 (python3)"}},
          {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}}]
    corr = [1000]
    gpu_free = [0]

    def op(name, ts, dur, cat="cpu_op", args=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": 1, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        ev.append(e)

    def launch(ts, kernel, kdur):
        corr[0] += 1
        op("cudaLaunchKernel", ts, 6, "cuda_runtime", {"correlation": corr[0]})
        start = max(ts + 10, gpu_free[0])
        gpu_free[0] = start + kdur
        ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": start,
                   "dur": kdur, "args": {"correlation": corr[0], "stream": 7}})
        ev.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr[0], "pid": 100, "tid": 1, "ts": ts})
        ev.append({"ph": "f", "cat": "ac2g", "name": "ac2g", "id": corr[0], "pid": 0, "tid": 7,
                   "ts": start, "bp": "e"})

    def with_kernel(name, ts, dur, kernel, kdur, args=None):
        op(name, ts, dur, args=args)
        launch(ts + 2, kernel, kdur)
        return ts + dur

    t = 1_000_000
    for n in range(1, steps + 1):
        step_start = t
        t += 5
        op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 400, "user_annotation")
        t += 405
        for layer in range(3):
            op("aten::linear", t, 130)
            op("aten::t", t + 2, 8)
            with_kernel("aten::addmm", t + 12, 110, "volta_sgemm_128x64_nn", 60,
                        {"Input Dims": [[64, 256], [64, 256], [256, 256]]})
            t += 135
            op("aten::relu", t, 40)
            with_kernel("aten::clamp_min", t + 3, 30, "elementwise_kernel", 8)
            t += 45
        op("aten::mse_loss", t, 60)
        t += 65
        op("aten::zeros_like", t, 12)
        t += 15
        for layer in range(3):
            op("autograd::engine::evaluate_function: ReluBackward0", t, 50)
            op("ReluBackward0", t + 2, 45)
            with_kernel("aten::threshold_backward", t + 4, 40, "threshold_backward_kernel", 9)
            t += 55
            op("autograd::engine::evaluate_function: AddmmBackward0", t, 150)
            op("AddmmBackward0", t + 2, 145)
            with_kernel("aten::mm", t + 4, 65, "volta_sgemm_64x64_nt", 55)
            with_kernel("aten::mm", t + 72, 70, "volta_sgemm_64x64_tn", 58)
            t += 155
        op("Optimizer.step#SGD.step", t, 8 * 22 + 4)
        for p in range(8):
            with_kernel("aten::add_", t + 2 + 22 * p, 20, "vectorized_elementwise_kernel", 5)
        t += 8 * 22 + 10
        op("ProfilerStep#%d" % n, step_start, t - step_start)
        t += 20
    return {"schemaVersion": 1, "traceEvents": ev, "deviceProperties": []}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["synthetic", "from"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--slow", default=None)
    ap.add_argument("--insert", default=INSERTED_DEFAULT)
    ap.add_argument("--insert-us", type=int, default=None)
    o = ap.parse_args()
    if o.mode == "synthetic":
        if len(o.args) != 1:
            ap.error("synthetic OUT_DIR")
        doc = synthetic(o.steps)
        slowed = o.slow or "aten::mse_loss"
        inserted_us = o.insert_us or 20
        out_dir = o.args[0]
    else:
        if len(o.args) != 2:
            ap.error("from TRACE OUT_DIR")
        doc = load(o.args[0])
        slowed = o.slow or pick_slowed(events_of(doc))
        inserted_us = o.insert_us or 50
        out_dir = o.args[1]
    events = events_of(doc)
    variant, steps = make_variant(events, slowed, o.insert, inserted_us)
    os.makedirs(out_dir, exist_ok=True)
    base_doc = dict(doc) if isinstance(doc, dict) else {"traceEvents": doc}
    var_doc = dict(base_doc)
    base_doc["traceEvents"] = events
    var_doc["traceEvents"] = variant
    with open(os.path.join(out_dir, "base.json"), "w") as f:
        json.dump(base_doc, f)
    with open(os.path.join(out_dir, "variant.json"), "w") as f:
        json.dump(var_doc, f)
    with open(os.path.join(out_dir, "pair.json"), "w") as f:
        json.dump({"slowed": slowed, "inserted": o.insert, "inserted_us": inserted_us, "steps": steps}, f)
    print(json.dumps({"slowed": slowed, "inserted": o.insert, "steps": steps}))


if __name__ == "__main__":
    main()
