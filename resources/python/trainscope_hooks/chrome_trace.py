"""Chrome-trace files of torch.profiler cycles, completed for the studio.

With Kineto (the usual PyTorch builds) ``export_chrome_trace`` writes Kineto's JSON
object, and torch itself adds ``distributedInfo`` when torch.distributed was initialised
when the cycle's recording started. ``ensure_distributed_info`` adds it when it is
missing (the process group came up later), reading only the head of the file when it is
already there.

Without Kineto (Debian's torch 1.13, ``torch.autograd.kineto_available()`` False) torch
falls back to a Python exporter that writes a bare JSON array: no ``distributedInfo``
(there is no object to hold it), times relative to the start of the recording, no input
shapes and no memory events, and names not JSON-escaped. ``write_legacy_trace`` writes the
cycle's events itself instead, in Kineto's object layout: ``cpu_op`` slices (and
``user_annotation`` ones for record_function ranges such as ``ProfilerStep#N``) with
absolute times (Unix microseconds), ``Input Dims``/``Input type`` args when shapes were recorded,
``[memory]`` instants with ``Bytes``/``Device Type``/``Device Id`` when memory was
profiled, ``Call stack`` with stacks, and ``distributedInfo``.
"""
import json
import os

_USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: a record_function range
_FILTERED_NAMES = frozenset((
    "[memory]", "[OutOfMemory]", "profiler::_record_function_enter",
    "profiler::_record_function_enter_new", "profiler::_record_function_exit",
    "aten::is_leaf", "aten::output_nr", "aten::_version",
))


def distributed_info(torch):
    """{"backend", "rank", "world_size"} when torch.distributed is initialised, else None."""
    dist = getattr(torch, "distributed", None)
    try:
        if dist is None or not dist.is_available() or not dist.is_initialized():
            return None
        return {"backend": str(dist.get_backend()), "rank": dist.get_rank(),
                "world_size": dist.get_world_size()}
    except Exception:
        return None


def ensure_distributed_info(path, info, head_bytes=1 << 16):
    """Adds ``distributedInfo`` to the trace at `path` unless it has it (or info is None).

    Kineto writes its metadata before ``traceEvents``, so the head of the file tells; only
    a trace without it is loaded and rewritten."""
    if info is None:
        return False
    with open(path, "rb") as f:
        head = f.read(head_bytes)
    if b'"distributedInfo"' in head:
        return False
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, list):
        doc = {"traceEvents": doc}
    if "distributedInfo" in doc:
        return False
    doc["distributedInfo"] = info
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return True


def _device_index(value):
    """Kineto writes -1 for the CPU; the legacy events give the int8 as 255."""
    value = int(value)
    return value - 256 if value >= 128 else value


def _enum_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return getattr(value, "value", 0)


def write_legacy_trace(result, path, pid, dist_info, record_shapes, with_stack):
    """Writes the events of a finished non-Kineto profile (``prof.profiler.kineto_results``)
    to `path` as a Kineto-style Chrome trace object."""
    events = sorted(result.events(), key=lambda e: e.start_us())
    threads = set()
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"schemaVersion": 1, "displayTimeUnit": "ms", "traceName": %s'
                % json.dumps(os.path.basename(path)))
        if dist_info is not None:
            f.write(', "distributedInfo": %s' % json.dumps(dist_info))
        f.write(', "traceEvents": [\n')
        first = True
        for e in events:
            name = e.name()
            tid = e.start_thread_id()
            if name == "[memory]":
                ev = {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                      "pid": pid, "tid": tid, "ts": e.start_us(),
                      "args": {"Device Type": _enum_int(e.device_type()),
                               "Device Id": _device_index(e.device_index()), "Bytes": e.nbytes()}}
            elif name in _FILTERED_NAMES:
                continue
            else:
                args = {"External id": e.correlation_id()}
                if e.sequence_nr() >= 0:
                    args["Sequence number"] = e.sequence_nr()
                    args["Fwd thread id"] = e.fwd_thread_id()
                if record_shapes:
                    args["Input Dims"] = e.shapes()
                    args["Input type"] = e.dtypes()
                if with_stack and e.stack():
                    args["Call stack"] = ";".join(e.stack())
                cat = "user_annotation" if _enum_int(e.scope()) == _USER_SCOPE else "cpu_op"
                ev = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                      "ts": e.start_us(), "dur": e.duration_us(), "args": args}
            threads.add(tid)
            f.write(("" if first else ",\n") + json.dumps(ev))
            first = False
        meta = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                 "args": {"name": "python %d" % pid}}]
        meta += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": t,
                  "args": {"name": "thread %d" % t}} for t in sorted(threads)]
        for ev in meta:
            f.write(("" if first else ",\n") + json.dumps(ev))
            first = False
        f.write("\n]}\n")
