#!/usr/bin/python3
"""A reference for HTA's figures, written from HTA's definitions (HolisticTraceAnalysis:
hta/common/trace_parser.py, trace.py, trace_filter.py, hta/utils/utils.py,
hta/analyzers/breakdown_analysis.py, communication_analysis.py, cuda_kernel_analysis.py,
trace_counters.py) with the standard library only, so the tests can compare the studio's
figures with numbers computed apart from it, on the same trace file.

It follows HTA step by step on plain lists: parse the events, round fractional
microsecond timestamps inward (ts = ceil(ts), end = floor(ts + dur)), drop events without a
duration or category and the "Trace" span, split GPU rows (args stream >= 0 and correlation
>= 0, or the names "Event Sync" / "Context Sync") from CPU rows, filter (when two or more
ProfilerStep#N names exist: CPU rows starting before the latest ProfilerStep start, GPU rows
whose correlation id a kept CPU row has, one copy per such CPU row), then each analysis as
HTA writes it. Where HTA's pandas sort leaves the order of equal times open, the same rule
as the studio's (docs/DISTRIBUTED.md) is used: longer interval first; a launch before the GPU
rows that start with it; a copy's end before another's start.

Usage: hta_reference.py TRACE.json[.gz] [--include-last-step] [--delay-us N]
Prints one JSON object; all times in microseconds (HTA's unit).
"""
import gzip
import json
import math
import re
import sys

STEP = re.compile(r"^ProfilerStep#(\d+)")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        doc = json.loads(fh.read())
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def rows_of(events):
    any_float = any(isinstance(e.get("ts"), float) for e in events)
    rows = []
    for idx, e in enumerate(events):
        if "dur" not in e or e.get("dur") is None or e.get("cat") is None:
            continue
        if e.get("cat") == "Trace":
            continue
        ts, dur = e["ts"], e["dur"]
        if isinstance(ts, str):
            continue
        if any_float:
            end = math.floor(ts + dur)
            ts = math.ceil(ts)
        else:
            end = ts + dur
        args = e.get("args") or {}
        if not isinstance(args, dict):
            args = {}
        stream = args.get("stream", -1)
        corr = args.get("correlation", -1)
        stream = stream if isinstance(stream, int) else -1
        corr = corr if isinstance(corr, int) else -1
        rows.append({
            "index": idx, "name": e.get("name", ""), "cat": e["cat"], "ts": int(ts),
            "end": int(end), "stream": stream, "correlation": corr,
            "pid": e.get("pid"), "tid": e.get("tid"),
            "bw": args.get("memory bandwidth (GB/s)", 0.0),
        })
    return rows


def is_gpu(r):
    return (r["stream"] >= 0 and r["correlation"] >= 0) or r["name"] in ("Event Sync", "Context Sync")


def hta_filter(rows, include_last):
    step_names = {r["name"] for r in rows if STEP.match(r["name"])}
    gpu = [r for r in rows if is_gpu(r)]
    cpu = [r for r in rows if not is_gpu(r)]
    info = {"profiler_steps": len(step_names), "filtered": len(step_names) >= 2}
    if not info["filtered"]:
        return gpu, cpu, info
    steps = [r for r in cpu if STEP.match(r["name"])]
    last_start = max(r["ts"] for r in steps) if steps else min(r["ts"] for r in cpu)
    last_end = max(r["end"] for r in steps) if steps else max(r["end"] for r in cpu)
    info["last_step_start_us"] = last_start
    kept_cpu = [r for r in cpu if (r["ts"] <= last_end if include_last else r["ts"] < last_start)]
    counts = {}
    for r in kept_cpu:
        counts[r["correlation"]] = counts.get(r["correlation"], 0) + 1
    kept_gpu = []
    for r in gpu:
        kept_gpu.extend([r] * counts.get(r["correlation"], 0))
    return kept_gpu, kept_cpu, info


def kernel_type(name):
    if "ncclKernel" in name:
        return "COMMUNICATION"
    if "Memcpy" in name or "Memset" in name:
        return "MEMORY"
    return "COMPUTATION"


def merge(intervals):
    """HTA's merge_kernel_intervals: groups open when a row starts after every earlier end."""
    ordered = sorted(intervals, key=lambda iv: (iv[0], -iv[1]))
    groups = []
    running_max = None
    for ts, end in ordered:
        if running_max is None or ts > running_max:
            groups.append([ts, end])
        else:
            groups[-1][0] = min(groups[-1][0], ts)
            groups[-1][1] = max(groups[-1][1], end)
        running_max = end if running_max is None else max(running_max, end)
    groups.sort()
    return groups


def describe(values):
    values = sorted(values)
    n = len(values)
    out = {"count": n}
    if n == 0:
        return out
    mean = sum(values) / n
    out["mean"] = mean
    out["std"] = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0

    def q(p):
        pos = p * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        return values[lo] + (values[hi] - values[lo]) * (pos - lo)

    out.update({"min": values[0], "p25": q(0.25), "p50": q(0.5), "p75": q(0.75), "max": values[-1]})
    return out


def main():
    path = sys.argv[1]
    include_last = "--include-last-step" in sys.argv
    delay = 30
    if "--delay-us" in sys.argv:
        delay = int(sys.argv[sys.argv.index("--delay-us") + 1])
    rows = rows_of(load(path))
    kept_gpu, kept_cpu, info = hta_filter(rows, include_last)
    kernels = [r for r in kept_gpu + kept_cpu if r["stream"] != -1]
    out = dict(info)
    out["gpu_rows_kept"] = len(kernels)
    if not kernels:
        print(json.dumps(out))
        return

    # Temporal breakdown (get_temporal_breakdown) and overlap (get_comm_comp_overlap).
    all_m = merge([(k["ts"], k["end"]) for k in kernels])
    comp_m = merge([(k["ts"], k["end"]) for k in kernels if kernel_type(k["name"]) == "COMPUTATION"])
    comm_m = merge([(k["ts"], k["end"]) for k in kernels if kernel_type(k["name"]) == "COMMUNICATION"])
    kernel_time = all_m[-1][1] - all_m[0][0]
    idle = kernel_time - sum(e - s for s, e in all_m)
    compute = sum(e - s for s, e in comp_m)
    out["temporal"] = {
        "kernel_time": kernel_time, "idle": idle, "compute": compute,
        "non_compute": kernel_time - compute - idle,
        "idle_pctg": round(100 * idle / kernel_time, 2) if kernel_time else 0.0,
        "compute_pctg": round(100 * compute / kernel_time, 2) if kernel_time else 0.0,
        "non_compute_pctg": round(100 * (kernel_time - compute - idle) / kernel_time, 2) if kernel_time else 0.0,
    }
    if comm_m:
        points = sorted([(s, 1) for s, _ in comm_m] + [(e, -1) for _, e in comm_m] +
                        [(s, 2) for s, _ in comp_m] + [(e, -2) for _, e in comp_m],
                        key=lambda p: p[0])
        level, overlap = 0, 0
        for i, (t, d) in enumerate(points):
            level += d
            if level == 3 and i + 1 < len(points):
                overlap += points[i + 1][0] - t
        comm_time = sum(e - s for s, e in comm_m)
        out["comm_comp_overlap_pctg"] = round(100 * overlap / comm_time, 2) if comm_time else None

    # Launches: the CPU row with the kernel's correlation id (HTA's index_correlation).
    launch_ts = {}
    for r in kept_cpu:
        if r["correlation"] >= 0 and r["correlation"] not in launch_ts:
            launch_ts[r["correlation"]] = r["ts"]

    # Idle time breakdown per stream (get_idle_time_breakdown).
    idle_out = {}
    for stream in sorted({k["stream"] for k in kernels}):
        ks = sorted([k for k in kernels if k["stream"] == stream], key=lambda k: (k["ts"], -k["end"]))
        acc = {"host_wait": 0, "kernel_wait": 0, "other": 0}
        for prev, cur in zip(ks, ks[1:]):
            gap = cur["ts"] - prev["end"]
            lt = launch_ts.get(cur["correlation"])
            if lt is not None and lt > prev["end"]:
                acc["host_wait"] += gap
            elif gap < delay:
                acc["kernel_wait"] += gap
            else:
                acc["other"] += gap
        idle_out[str(stream)] = acc
    out["idle"] = idle_out

    # Queue length (get_queue_length_summary) and launch statistics (get_cuda_kernel_launch_stats).
    queue_names = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
                   "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel",
                   "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
                   "runFunction - job_prep_and_submit_for_execution"}
    stat_names = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
                  "runFunction - job_prep_and_submit_for_execution"}
    gpu_by_corr = {}
    for k in kernels:
        if k["correlation"] >= 0 and is_gpu(k):
            gpu_by_corr.setdefault(k["correlation"], k)
    series = {}
    cpu_d, gpu_d, delays = [], [], []
    for c in kept_cpu:
        if c["stream"] != -1 or c["correlation"] < 0 or c["correlation"] not in gpu_by_corr:
            continue
        k = gpu_by_corr[c["correlation"]]
        if c["name"] in queue_names:
            series.setdefault(k["stream"], []).extend([(c["ts"], 0, 1), (k["ts"], 1, -1)])
        if c["name"] in stat_names:
            cpu_d.append(c["end"] - c["ts"])
            gpu_d.append(k["end"] - k["ts"])
            delays.append(k["ts"] - c["ts"] + (c["end"] - c["ts"]))
    queue = {}
    for stream, pts in series.items():
        pts.sort(key=lambda p: (p[0], p[1]))
        level, values = 0, []
        for _, _, d in pts:
            level += d
            values.append(level)
        queue[str(stream)] = describe(values)
    out["queue"] = queue
    out["launch"] = {"launches": len(cpu_d), "cpu": describe(cpu_d), "gpu": describe(gpu_d),
                     "delay": describe(delays)}

    # Memory bandwidth (get_memory_bw_summary).
    bw = {}
    for k in kernels:
        if kernel_type(k["name"]) != "MEMORY":
            continue
        n = k["name"]
        kind = "Memset" if n[:6] == "Memset" else ("Memcpy Unknown" if n[:6] != "Memcpy" else n[:11])
        d = k["end"] - k["ts"]
        d = 1 if d == 0 else d
        bw.setdefault(kind, []).extend([(k["ts"], 1, k["bw"]), (k["ts"] + d, 0, -k["bw"])])
    mem = {}
    for kind, pts in bw.items():
        pts.sort(key=lambda p: (p[0], p[1]))
        level, positive = 0.0, []
        for _, _, v in pts:
            level += v
            value = 0.0 if level < 0 else level
            if value > 0:
                positive.append(value)
        mem[kind] = describe(positive)
    out["memory_bw"] = mem

    # User annotation per kernel (get_gpu_kernels_with_user_annotations): the deepest kept
    # gpu_user_annotation on the kernel's own pid/tid that overlaps it.
    anns = [r for r in kept_cpu if r["cat"] == "gpu_user_annotation"]

    def depth_of(a):
        return sum(1 for o in anns if o is not a and o["pid"] == a["pid"] and o["tid"] == a["tid"]
                   and o["ts"] <= a["ts"] and a["end"] <= o["end"] and (o["end"] - o["ts"]) > (a["end"] - a["ts"]))

    depths = {id(a): depth_of(a) for a in anns}
    counts = {}
    for k in kernels:
        best = None
        kend = max(k["end"], k["ts"] + 1)
        for a in anns:
            if a["pid"] != k["pid"] or a["tid"] != k["tid"]:
                continue
            if not (a["ts"] < kend and k["ts"] < a["end"]):
                continue
            key = (depths[id(a)], -(a["end"] - a["ts"]))
            if best is None or key > (depths[id(best)], -(best["end"] - best["ts"])):
                best = a
        name = best["name"] if best else ""
        counts[name] = counts.get(name, 0) + 1
    out["annotations"] = counts
    print(json.dumps(out))


if __name__ == "__main__":
    main()
