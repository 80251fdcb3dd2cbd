#!/usr/bin/python3
"""A reference for the TensorBoard profiler plugin's overview figures (torch_tb_profiler:
profiler/step_parser.py, overall_parser.py, gpu_metrics_parser.py, range_utils.py),
written from the plugin's definitions with the standard library, for the tests to compare
the studio's figures with on the same trace file.

Steps: the host ProfilerStep#N events; a runtime call (cuda_runtime / cuda_driver) inside a
host step launched the GPU rows with its correlation id; a step's device side is the first
start and last end of those rows; the joined step runs from max(previous joined end, host
start) to max(host end, device end); trailing steps without GPU rows, and a last step with
fewer than 80% of the rows of the one before, are left out. Split per step: kernel, memcpy,
memset, communication, runtime, data loading, CPU execution, other, each instant to the
first active. GPU utilisation per device: merged kernel time inside [first step start,
last step end] over that span.

Usage: plugin_reference.py TRACE.json[.gz]; prints one JSON object, times in nanoseconds
(the trace's microseconds x 1000, rounded to the nanosecond as the studio stores them).
"""
import gzip
import json
import sys

ROLES = ["kernel", "memcpy", "memset", "communication", "runtime", "data_loading", "cpu_exec"]


def ns(x):
    return int(round(float(x) * 1000))


def merged(ranges):
    out = []
    for s, e in sorted(ranges):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length_in(ranges, lo, hi):
    return sum(max(0, min(e, hi) - max(s, lo)) for s, e in ranges)


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        doc = json.loads(fh.read())
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X" and "dur" in e]
    step = []
    runtimes = []
    gpu = []
    roles = {r: [] for r in ROLES}
    for e in events:
        cat, name = e.get("cat", ""), e.get("name", "")
        s, t = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        args = e.get("args") or {}
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            comm = cat == "kernel" and (name.startswith("nccl") or "ncclKernel" in name)
            role = {"kernel": "communication" if comm else "kernel", "gpu_memcpy": "memcpy",
                    "gpu_memset": "memset"}[cat]
            roles[role].append((s, t))
            gpu.append({"s": s, "e": t, "corr": args.get("correlation"), "cat": cat,
                        "device": args.get("device", 0)})
        elif cat in ("cuda_runtime", "cuda_driver"):
            roles["runtime"].append((s, t))
            runtimes.append({"s": s, "e": t, "corr": args.get("correlation")})
        elif cat in ("cpu_op", "user_annotation", "python_function"):
            if name.startswith("ProfilerStep#") and cat != "python_function":
                step.append({"n": int(name.split("#")[1]), "s": s, "e": t})
            elif name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__"):
                roles["data_loading"].append((s, t))
            else:
                roles["cpu_exec"].append((s, t))
    step.sort(key=lambda x: x["s"])
    by_corr = {}
    for g in gpu:
        by_corr.setdefault(g["corr"], []).append(g)
    for st in step:
        st["launched"] = 0
        st["ds"], st["de"] = None, None
        for r in runtimes:
            if r["s"] >= st["s"] and r["e"] <= st["e"]:
                for g in by_corr.get(r["corr"], []):
                    st["launched"] += 1
                    st["ds"] = g["s"] if st["ds"] is None else min(st["ds"], g["s"])
                    st["de"] = g["e"] if st["de"] is None else max(st["de"], g["e"])
    prev = step[0]["s"]
    matched = {id(g) for st in step for r in runtimes if r["s"] >= st["s"] and r["e"] <= st["e"]
               for g in by_corr.get(r["corr"], [])}
    if step[0]["ds"] is not None:
        for g in gpu:
            if id(g) not in matched and g["e"] < step[0]["ds"]:
                prev = max(prev, g["e"])
    for st in step:
        st["start"] = max(prev, st["s"])
        st["end"] = max(st["e"], st["start"]) if st["ds"] is None else max(st["e"], st["de"], st["start"])
        prev = st["end"]
    keep = len(step)
    i = len(step) - 1
    while i >= 0 and step[i]["launched"] == 0:
        i -= 1
    if i >= 0:
        keep = i + 1
        if i > 0 and step[i - 1]["launched"] * 0.8 > step[i]["launched"]:
            keep = i
    overview = step[:keep]
    role_ranges = {r: merged(v) for r, v in roles.items()}
    split = {r: 0 for r in ROLES + ["other"]}
    for st in overview:
        # Each instant goes to the first active role: walk the role boundaries.
        cuts = {st["start"], st["end"]}
        for r in ROLES:
            for s, e in role_ranges[r]:
                if e > st["start"] and s < st["end"]:
                    cuts.update((max(s, st["start"]), min(e, st["end"])))
        cuts = sorted(cuts)
        for a, b in zip(cuts, cuts[1:]):
            mid_role = "other"
            for r in ROLES:
                if any(s <= a and b <= e for s, e in role_ranges[r]):
                    mid_role = r
                    break
            split[mid_role] += b - a
    lo, hi = overview[0]["start"], overview[-1]["end"]
    util = {}
    for dev in sorted({g["device"] for g in gpu if g["cat"] == "kernel"}):
        k = merged([(g["s"], g["e"]) for g in gpu if g["cat"] == "kernel" and g["device"] == dev])
        util[str(dev)] = length_in(k, lo, hi) / (hi - lo)
    print(json.dumps({
        "steps": [{"number": st["n"], "start": st["start"], "end": st["end"],
                   "device_start": st["ds"], "device_end": st["de"], "launched": st["launched"],
                   "in_overview": i < keep} for i, st in enumerate(step)],
        "split": split, "utilization": util, "span": [lo, hi]}))


if __name__ == "__main__":
    main()
