#!/usr/bin/env python3
"""Writes PyTorch CUDA memory snapshot pickles for TrainScope's tests and benchmark.

A small caching-allocator simulation (PyTorch's rules, simplified: blocks rounded to 512 bytes,
2 MiB segments for requests up to 1 MiB, 20 MiB segments up to 10 MiB, a segment of its own
above; best fit, split and merge) runs a training loop and records what
torch.cuda.memory._snapshot() holds, in the layout of a PyTorch version:

  2.11  {'segments', 'device_traces', 'allocator_settings', 'external_annotations'}; events with
        time_us, compile_context, user_metadata, frames (C++ and Python frames, innermost first)
  2.1   {'segments', 'device_traces'}; events with time_us
  2.0   {'segments', 'device_traces'}; events without time_us
  1.13  a list of segments; blocks without address / requested_size, frames in history[0]

As torch does, each allocation has its own frames list (its CapturedTraceback), shared by its
free events and its block, and the frame dicts are shared by every list that holds them.

  make_snapshot.py OUT.pickle [--layout 2.11] [--protocol 4] [--steps 8] [--leak]
                   [--oom] [--devices 1] [--seed 0] [--expect OUT.json]
  make_snapshot.py OUT.pickle --stream --target-bytes N   (the benchmark's big file)

--leak plants keep_for_debug(): one 4 MiB block per step, never freed. --oom ends with a
fragmentation OOM: a cap on reserved memory, 4 MiB blocks with every other one freed, then a
48 MiB request. --expect writes what the file holds (the plan) and snapshot_reference.py's
figures for it. --stream writes protocol 4 opcode by opcode (the same object graph a
pickle.dump would write, checked with pickle.load by the tests) so a file of gigabytes needs
no memory for its object tree.
"""
import argparse, io, json, os, pickle, random, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import snapshot_reference  # noqa: E402

MiB = 1 << 20
CPP_FRAMES = [
    ("torch::unwind::unwind()", "??", 0),
    ("torch::CapturedTraceback::gather(bool, bool, bool)", "??", 0),
    ("torch::cuda::(anonymous namespace)::gather_with_cpp()", "memory_snapshot.cpp", 0),
    ("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)",
     "CUDACachingAllocator.cpp", 0),
    ("at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType)",
     "??", 0),
    ("at::native::empty_cuda(c10::ArrayRef<long>)", "??", 0),
    ("wrapper_CUDA_memory_format_empty", "RegisterCUDA_0.cpp", 0),
    ("c10::impl::wrap_kernel_functor_unboxed_<empty_memory_format>::call", "RegisterBackendSelect.cpp", 0),
    ("at::_ops::empty_memory_format::redispatch(c10::DispatchKeySet, c10::ArrayRef<c10::SymInt>)", "??", 0),
    ("at::_ops::empty_memory_format::call(c10::ArrayRef<c10::SymInt>)", "??", 0),
    ("torch::autograd::THPVariable_empty(_object*, _object*, _object*)", "python_torch_functions_2.cpp", 0),
    ("PyCMethod_New", "??", 0),
    ("_PyObject_MakeTpCall", "??", 0),
    ("_PyEval_EvalFrameDefault", "??", 0),
]
# Below the Python frames, as torch's C++ unwinding reports them.
CPP_OUTER = [("PyEval_EvalCode", "??", 0), ("PyRun_StringFlags", "??", 0),
             ("_PyRun_SimpleFileObject", "??", 0), ("_PyRun_AnyFileObject", "??", 0),
             ("Py_RunMain", "??", 0), ("Py_BytesMain", "??", 0), ("__libc_init_first", "??", 0),
             ("__libc_start_main", "??", 0), ("_start", "??", 0)]
USER = "/home/user/train.py"
TORCH = "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py"
# site -> Python frames, innermost first
SITES = {
    "param": [("__init__", TORCH, 96), ("build_model", USER, 20), ("<module>", USER, 70)],
    "conv1": [("_conv_forward", TORCH, 453), ("forward", USER, 31), ("train_step", USER, 50),
              ("<module>", USER, 72)],
    "relu1": [("forward", USER, 32), ("train_step", USER, 50), ("<module>", USER, 72)],
    "conv2": [("_conv_forward", TORCH, 453), ("forward", USER, 33), ("train_step", USER, 50),
              ("<module>", USER, 72)],
    "keep_for_debug": [("keep_for_debug", USER, 12), ("forward", USER, 34),
                       ("train_step", USER, 50), ("<module>", USER, 72)],
    "grad_tmp": [("backward", "/usr/lib/python3/dist-packages/torch/autograd/__init__.py", 266),
                 ("train_step", USER, 52), ("<module>", USER, 72)],
    "grad": [("backward", "/usr/lib/python3/dist-packages/torch/autograd/__init__.py", 266),
             ("train_step", USER, 52), ("<module>", USER, 72)],
    "momentum": [("_single_tensor_sgd", "/usr/lib/python3/dist-packages/torch/optim/sgd.py", 300),
                 ("train_step", USER, 53), ("<module>", USER, 72)],
    "oom_fill": [("fill", USER, 80), ("<module>", USER, 90)],
    "oom_big": [("big", USER, 85), ("<module>", USER, 91)],
}


class Frames:
    """Shared frame dicts and a fresh list per allocation, as torch's snapshot has them."""

    def __init__(self, deep):
        self.deep = deep
        self.frame = {}

    def get(self, name, filename, line):
        key = (name, filename, line)
        if key not in self.frame:
            self.frame[key] = {"name": name, "filename": filename, "line": line}
        return self.frame[key]

    def stack(self, site):
        py = [self.get(n, f, l) for n, f, l in SITES[site]]
        if not self.deep:
            return py
        cpp = [self.get(n, f, l) for n, f, l in CPP_FRAMES]
        outer = [self.get(n, f, l) for n, f, l in CPP_OUTER]
        return cpp[:-1] + py[:1] + cpp[-1:] + py[1:-1] + outer + py[-1:]


class Allocator:
    def __init__(self, device, emit, frames, cap=None):
        self.device, self.emit, self.frames, self.cap = device, emit, frames, cap
        self.segments = []  # dicts: address, size, large, blocks (list of [addr,size,req,frames|None])
        self.where = {}  # block address -> its segment
        self.next_addr = 0x7F0000000000 + device * 0x1000000000
        self.time = 1_700_000_000_000_000

    def tick(self, us=7):
        self.time += us
        return self.time

    def reserved(self):
        return sum(s["size"] for s in self.segments)

    def malloc(self, req, site):
        size = max(512, (req + 511) // 512 * 512)
        large = size > MiB
        best = None
        for seg in self.segments:
            if seg["large"] != large:
                continue
            for i, b in enumerate(seg["blocks"]):
                if b[3] is None and b[1] >= size and (best is None or b[1] < best[2]):
                    best = (seg, i, b[1])
        if best is None:
            segsize = 2 * MiB if not large else (20 * MiB if size < 10 * MiB else (size + 2 * MiB - 1) // (2 * MiB) * (2 * MiB))
            if self.cap is not None and self.reserved() + segsize > self.cap:
                self.empty_cache()
                if self.reserved() + segsize > self.cap:
                    self.emit({"action": "oom", "device_free": 149_347_762_176, "size": req,
                               "stream": 0, "time_us": self.tick(), "frames": self.frames.stack(site)})
                    raise MemoryError(req)
            addr = self.next_addr
            self.next_addr += (segsize + 2 * MiB - 1) // (2 * MiB) * (2 * MiB) + 2 * MiB
            seg = {"address": addr, "size": segsize, "large": large, "blocks": [[addr, segsize, 0, None]]}
            self.segments.append(seg)
            self.where[addr] = seg
            self.emit({"action": "segment_alloc", "addr": addr, "size": segsize, "stream": 0,
                       "time_us": self.tick(), "frames": self.frames.stack(site)})
            best = (seg, 0, segsize)
        seg, i, _ = best
        blocks = seg["blocks"]
        b = blocks[i]
        if b[1] > size:
            blocks.insert(i + 1, [b[0] + size, b[1] - size, 0, None])
            self.where[b[0] + size] = seg
            b[1] = size
        frames = self.frames.stack(site)
        b[2], b[3] = req, frames
        self.emit({"action": "alloc", "addr": b[0], "size": req, "stream": 0, "time_us": self.tick(),
                   "frames": frames})
        return b[0]

    def find(self, addr):
        seg = self.where[addr]
        for i, b in enumerate(seg["blocks"]):
            if b[0] == addr:
                return seg, i
        raise KeyError(addr)

    def free(self, addr):
        seg, i = self.find(addr)
        b = seg["blocks"][i]
        t = self.tick()
        for act in ("free_requested", "free_completed"):
            self.emit({"action": act, "addr": addr, "size": b[2], "stream": 0, "time_us": t,
                       "frames": b[3]})
        b[2], b[3] = 0, None
        bl = seg["blocks"]
        if i + 1 < len(bl) and bl[i + 1][3] is None:
            b[1] += bl[i + 1][1]
            del self.where[bl[i + 1][0]]
            del bl[i + 1]
        if i > 0 and bl[i - 1][3] is None:
            bl[i - 1][1] += b[1]
            del self.where[bl[i][0]]
            del bl[i]

    def empty_cache(self):
        keep = []
        for seg in self.segments:
            if len(seg["blocks"]) == 1 and seg["blocks"][0][3] is None:
                self.where.pop(seg["address"], None)
                self.emit({"action": "segment_free", "addr": seg["address"], "size": seg["size"],
                           "stream": 0, "time_us": self.tick(), "frames": []})
            else:
                keep.append(seg)
        self.segments = keep


def simulate(args, emit_for_device, annotate):
    """Runs the training loop; returns the allocators (their state is the snapshot's)."""
    rnd = random.Random(args.seed)
    frames = Frames(deep=True)
    allocs = []
    plan = {"leak_site": "keep_for_debug" if args.leak else None, "leak_count": 0,
            "leak_bytes_each": 4 * MiB, "steps": args.steps, "oom": None, "preexisting": 0}
    for dev in range(args.devices):
        a = Allocator(dev, emit_for_device(dev), frames,
                      cap=None)
        allocs.append(a)
        # Parameters allocated before _record_memory_history: blocks without frames, no events.
        silent = Allocator(dev, lambda e: None, frames)
        silent.next_addr, silent.time = a.next_addr, a.time
        for _ in range(3):
            silent.malloc(rnd.choice([4096, 65536, 2 * MiB + 512]), "param")
        for seg in silent.segments:
            for b in seg["blocks"]:
                if b[3] is not None:
                    b[3] = []
                    plan["preexisting"] += 1
        a.segments, a.next_addr, a.where = silent.segments, silent.next_addr, silent.where
        steps = args.steps if not args.stream else 10 ** 9
        grads, moms = [], []
        for step in range(steps):
            if args.stream and args.budget():
                break
            annotate(dev, "Optimizer.zero_grad#SGD.zero_grad", a.tick(3), a.tick(2))
            for g in grads:
                a.free(g)
            grads = []
            acts = []
            for site, size in (("conv1", 3 * MiB), ("relu1", 3 * MiB), ("conv2", 6 * MiB)):
                acts.append(a.malloc(size + rnd.randrange(0, 4) * 512, site))
                for _ in range(args.small):
                    acts.append(a.malloc(rnd.choice([512, 1024, 3456, 8192, 65536]), site))
            if args.leak:
                a.malloc(4 * MiB, "keep_for_debug")
                plan["leak_count"] += 1
            for _ in range(4):
                t = a.malloc(rnd.choice([MiB // 2, 2 * MiB, 5 * MiB]), "grad_tmp")
                a.free(t)
            for x in reversed(acts):
                a.free(x)
            for _ in range(3):
                grads.append(a.malloc(rnd.choice([4096, 65536, 2 * MiB + 512]), "grad"))
            t0 = a.tick(5)
            if step == 0:
                for _ in range(3):
                    moms.append(a.malloc(rnd.choice([4096, 65536, 2 * MiB + 512]), "momentum"))
            annotate(dev, "Optimizer.step#SGD.step", t0, a.tick(4))
        if args.oom and dev == 0:
            a.empty_cache()
            blocks = [a.malloc(4 * MiB, "oom_fill") for _ in range(50)]
            for x in blocks[1::2]:
                a.free(x)
            a.cap = a.reserved() + 30 * MiB  # room for no 48 MiB segment
            try:
                a.malloc(48 * MiB, "oom_big")
            except MemoryError:
                plan["oom"] = {"requested": 48 * MiB}
    return allocs, plan


def segment_dicts(allocs, layout):
    out = []
    for a in allocs:
        for seg in a.segments:
            blocks = []
            allocated = requested = 0
            for addr, size, req, fr in seg["blocks"]:
                active = fr is not None
                if active:
                    allocated += size
                    requested += req
                if layout == "1.13":
                    b = {"size": size, "state": "active_allocated" if active else "inactive"}
                    if active and fr:
                        b["history"] = [{"addr": addr, "real_size": req, "frames": fr}]
                else:
                    b = {"address": addr, "size": size, "requested_size": req if active else 0,
                         "state": "active_allocated" if active else "inactive",
                         "frames": fr if active else []}
                blocks.append(b)
            d = {"device": a.device, "address": seg["address"], "total_size": seg["size"],
                 "allocated_size": allocated, "active_size": allocated}
            if layout != "1.13":
                d["requested_size"] = requested
            d["stream"] = 0
            d["segment_type"] = "large" if seg["large"] else "small"
            if layout == "2.11":
                d["segment_pool_id"] = (0, 0)
                d["is_expandable"] = False
                d["frames"] = []
            d["blocks"] = blocks
            out.append(d)
    return out


def shape_event(e, layout):
    if layout in ("2.0", "1.13"):
        e = {k: v for k, v in e.items() if k != "time_us"}
    if layout == "2.11":
        frames = e.pop("frames")
        e["compile_context"] = "N/A"
        e["user_metadata"] = ""
        e["frames"] = frames
    return e


SETTINGS = {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
            "expandable_segments": False, "roundup_power2_divisions": {"1": 0, "2": 0}}


def build(args):
    traces = [[] for _ in range(args.devices)]
    annotations = []
    allocs, plan = simulate(
        args, lambda d: (lambda e: traces[d].append(shape_event(e, args.layout))),
        lambda d, name, t0, t1: annotations.extend(
            [{"stage": "START", "name": name, "device": d, "time_us": t0},
             {"stage": "END", "name": name, "device": d, "time_us": t1}]))
    segs = segment_dicts(allocs, args.layout)
    if args.layout == "1.13":
        return segs, plan
    snap = {"segments": segs, "device_traces": traces}
    if args.layout == "2.11":
        snap["allocator_settings"] = SETTINGS
        snap["external_annotations"] = annotations
    return snap, plan


class StreamPickler:
    """Protocol 4, written as it goes: MEMOIZE after each container and new str, BINGET /
    LONG_BINGET for what was written before (by identity, as pickle's memo does), items in
    batches of 1000, FRAME headers for each ~64 KiB."""

    def __init__(self, f):
        self.f, self.memo, self.buf = f, {}, bytearray()
        self.keep = []  # objects in the memo stay alive, so their ids stay theirs
        self.memo_str = {}
        self.n = 0  # memo entries so far (MEMOIZE numbers them in order)
        self.written = 0
        self.f.write(b"\x80\x04")

    def flush_frame(self, force=False):
        if len(self.buf) >= 65536 or (force and self.buf):
            self.f.write(b"\x95" + struct.pack("<Q", len(self.buf)) + self.buf)
            self.written += 9 + len(self.buf)
            self.buf = bytearray()

    def memoize(self, obj=None):
        if obj is not None:
            self.memo[id(obj)] = self.n
            self.keep.append(obj)
        self.n += 1
        self.buf += b"\x94"

    def get(self, obj):
        i = self.memo.get(id(obj))
        if i is None:
            return False
        self.buf += (b"h" + bytes([i])) if i < 256 else (b"j" + struct.pack("<I", i))
        return True

    def str(self, s):
        if s in self.memo_str:
            i = self.memo_str[s]
            self.buf += (b"h" + bytes([i])) if i < 256 else (b"j" + struct.pack("<I", i))
            return
        b = s.encode("utf-8", "surrogatepass")
        self.buf += (b"\x8c" + bytes([len(b)]) + b) if len(b) < 256 else (b"X" + struct.pack("<I", len(b)) + b)
        self.memo_str[s] = self.n
        self.memoize()

    def value(self, v):
        if v is None:
            self.buf += b"N"
        elif v is True:
            self.buf += b"\x88"
        elif v is False:
            self.buf += b"\x89"
        elif isinstance(v, int):
            if 0 <= v < 256:
                self.buf += b"K" + bytes([v])
            elif 0 <= v < 65536:
                self.buf += b"M" + struct.pack("<H", v)
            elif -2 ** 31 <= v < 2 ** 31:
                self.buf += b"J" + struct.pack("<i", v)
            else:
                n = (v.bit_length() + 8) // 8
                self.buf += b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)
        elif isinstance(v, float):
            self.buf += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            self.str(v)
        elif isinstance(v, tuple):
            for x in v:
                self.value(x)
            self.buf += bytes([0x84 + len(v)]) if 1 <= len(v) <= 3 else b")"
        elif isinstance(v, list):
            if self.get(v):
                return
            self.buf += b"]"
            self.memoize(v)
            self.items(v)
        elif isinstance(v, dict):
            if self.get(v):
                return
            self.buf += b"}"
            self.memoize(v)
            self.pairs(v)
        else:
            raise TypeError(type(v))
        self.flush_frame()

    def items(self, seq):
        seq = list(seq)
        for i in range(0, len(seq), 1000):
            batch = seq[i:i + 1000]
            if len(batch) > 1:
                self.buf += b"("
            for x in batch:
                self.value(x)
            self.buf += b"e" if len(batch) > 1 else b"a"

    def pairs(self, d):
        kv = list(d.items())
        for i in range(0, len(kv), 1000):
            batch = kv[i:i + 1000]
            if len(batch) > 1:
                self.buf += b"("
            for k, v in batch:
                self.value(k)
                self.value(v)
            self.buf += b"u" if len(batch) > 1 else b"s"

    def open(self, opcode):
        """A container referenced once: its opcode and its memo entry."""
        self.buf += opcode
        self.memoize()

    def stop(self):
        self.buf += b"."
        self.flush_frame(force=True)


def write_stream(args):
    """The benchmark's file: 2.11 layout on one device, events streamed in batches."""
    out = open(args.out, "wb")
    p = StreamPickler(out)
    p.open(b"}")
    p.buf += b"("
    # Segments go first in torch's dict; here the events do, so they can stream (a dict's
    # key order does not change what it holds).
    p.str("device_traces")
    p.open(b"]")
    p.open(b"]")
    batch = []
    target = args.target_bytes

    def emit(e):
        batch.append(shape_event(e, "2.11"))
        if len(batch) == 1000:
            p.buf += b"("
            for x in batch:
                p.value(x)
            p.buf += b"e"
            batch.clear()

    def budget():
        return p.written + len(p.buf) >= target

    args.budget = budget
    args.devices = 1
    allocs, plan = simulate(args, lambda d: emit, lambda *a: None)
    if batch:
        p.buf += b"("
        for x in batch:
            p.value(x)
        p.buf += b"e"
    p.buf += b"a"  # the device's list into device_traces
    p.str("segments")
    p.value(segment_dicts(allocs, "2.11"))
    p.buf += b"u"
    p.stop()
    out.close()
    return plan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layout", default="2.11", choices=["2.11", "2.1", "2.0", "1.13"])
    ap.add_argument("--protocol", type=int, default=4)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--small", type=int, default=2, help="small allocations per layer and step")
    ap.add_argument("--devices", type=int, default=1)
    ap.add_argument("--leak", action="store_true")
    ap.add_argument("--oom", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--expect")
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--target-bytes", type=float, default=0)
    args = ap.parse_args()
    args.target_bytes = int(args.target_bytes)
    if args.stream:
        plan = write_stream(args)
    else:
        args.budget = lambda: False
        snap, plan = build(args)
        with open(args.out, "wb") as f:
            pickle.dump(snap, f, protocol=args.protocol)
    if args.expect:
        data = pickle.load(open(args.out, "rb"))
        ref = snapshot_reference.segsum(data)
        traces = data.get("device_traces", []) if isinstance(data, dict) else []
        ref["devices"] = {str(d): snapshot_reference.timeline(data, d)
                          for d in range(len(traces)) if traces[d]}
        json.dump({"layout": args.layout, "protocol": args.protocol, "plan": plan,
                   "reference": ref}, open(args.expect, "w"), indent=1)


if __name__ == "__main__":
    main()
