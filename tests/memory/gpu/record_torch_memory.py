#!/usr/bin/env python3
"""Records real PyTorch CUDA memory files for TrainScope's memory tests (run on a CUDA machine).

  record_torch_memory.py train OUTDIR   a small conv net, 2 warm-up + 8 steps, with
      torch.cuda.memory._record_memory_history on from the start and torch.profiler
      (profile_memory=True, record_shapes=True) around the 8 steps; a planted leak:
      keep_for_debug() keeps one activation (64x64x16x16 float32 = 4 MiB) per step, never freed.
      Writes train_snapshot.pickle (torch.cuda.memory._dump_snapshot), train_kineto.json.gz
      and train_facts.json (what torch itself reports: max_memory_allocated, the leak, times).
  record_torch_memory.py expandable OUTDIR   (run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)
      the same net, 6 steps under torch.profiler with a schedule (ProfilerStep#N), history with
      Python frames only (stacks="python"), a tensor used on a side stream (record_stream), and
      empty_cache() at the end (segment_map / segment_unmap events): expandable_snapshot.pickle,
      expandable_kineto.json.gz, expandable_facts.json.
  record_torch_memory.py oom OUTDIR     fragmentation: a 230 MiB cap (set_per_process_memory_fraction),
      fifty 4 MiB blocks (ten 20 MiB segments), every other block freed (100 MiB free in 4 MiB
      holes), then a 48 MiB request that fails although 100 MiB is free: oom_snapshot.pickle
      and oom_facts.json (the OutOfMemoryError message).
"""
import gzip, json, os, sys, time
import torch, torch.nn as nn

MiB = 1 << 20


def keep_for_debug(cache, t):
    cache.append(t.detach().clone())  # the planted leak


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64 * 8 * 8, 10)
        self.debug_cache = []

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = nn.functional.max_pool2d(h, 2)
        h = torch.relu(self.bn2(self.conv2(h)))
        keep_for_debug(self.debug_cache, h)
        h = nn.functional.max_pool2d(h, 2)
        return self.fc(h.flatten(1))


def train(out):
    torch.manual_seed(0)
    torch.cuda.memory._record_memory_history(max_entries=200000)
    t_start_ns = time.time_ns()
    m = Net().cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(2):
        step()
    torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    allocated_per_step = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True) as p:
        for _ in range(8):
            step()
            torch.cuda.synchronize()
            allocated_per_step.append(torch.cuda.memory_allocated())
            p.step()
    kineto = os.path.join(out, "train_kineto.json")
    p.export_chrome_trace(kineto)
    with open(kineto, "rb") as f, gzip.open(kineto + ".gz", "wb") as g:
        g.write(f.read())
    os.remove(kineto)
    snap = os.path.join(out, "train_snapshot.pickle")
    torch.cuda.memory._dump_snapshot(snap)
    s = torch.cuda.memory._snapshot()
    facts = {
        "torch": torch.__version__, "cuda": torch.version.cuda, "python": sys.version,
        "gpu": torch.cuda.get_device_name(0), "t_start_ns": t_start_ns, "t_end_ns": time.time_ns(),
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "memory_allocated_end": torch.cuda.memory_allocated(),
        "memory_reserved_end": torch.cuda.memory_reserved(),
        "allocated_after_each_profiled_step": allocated_per_step,
        "leak_tensors": len(m.debug_cache), "leak_bytes_each": m.debug_cache[0].numel() * 4,
        "snapshot_keys": sorted(s.keys()), "segments": len(s["segments"]),
        "trace_events": [len(t) for t in s["device_traces"]],
        "actions": sorted({e["action"] for t in s["device_traces"] for e in t}),
        "event_keys": sorted({k for t in s["device_traces"] for e in t for k in e}),
        "segment_keys": sorted({k for g in s["segments"] for k in g}),
        "block_keys": sorted({k for g in s["segments"] for b in g["blocks"] for k in b}),
        "allocator_settings": s.get("allocator_settings"),
        "first_event_time_us": s["device_traces"][0][0].get("time_us") if s["device_traces"][0] else None,
    }
    json.dump(facts, open(os.path.join(out, "train_facts.json"), "w"), indent=1, default=str)
    print(json.dumps({k: facts[k] for k in ("torch", "max_memory_allocated", "trace_events", "actions")}))


def expandable(out):
    torch.manual_seed(0)
    torch.cuda.memory._record_memory_history(max_entries=200000, stacks="python")
    m = Net().cuda()
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    side = torch.cuda.Stream()
    from torch.profiler import profile, ProfilerActivity, schedule
    reserved = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True, schedule=schedule(wait=1, warmup=1, active=4)) as p:
        for _ in range(6):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            t = torch.empty(1 << 20, device="cuda")  # used on the side stream, then freed
            with torch.cuda.stream(side):
                t.mul_(2)
            t.record_stream(side)
            del t
            torch.cuda.synchronize()
            reserved.append(torch.cuda.memory_reserved())
            p.step()
    kineto = os.path.join(out, "expandable_kineto.json")
    p.export_chrome_trace(kineto)
    with open(kineto, "rb") as f, gzip.open(kineto + ".gz", "wb") as g:
        g.write(f.read())
    os.remove(kineto)
    m.debug_cache.clear()
    torch.cuda.empty_cache()
    torch.cuda.memory._dump_snapshot(os.path.join(out, "expandable_snapshot.pickle"))
    s = torch.cuda.memory._snapshot()
    facts = {"torch": torch.__version__, "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
             "memory_reserved_end": torch.cuda.memory_reserved(),
             "memory_allocated_end": torch.cuda.memory_allocated(),
             "max_memory_allocated": torch.cuda.max_memory_allocated(),
             "reserved_after_each_step": reserved,
             "actions": sorted({e["action"] for t in s["device_traces"] for e in t}),
             "segments": len(s["segments"]),
             "expandable": [g["is_expandable"] for g in s["segments"]]}
    json.dump(facts, open(os.path.join(out, "expandable_facts.json"), "w"), indent=1)
    print(json.dumps(facts)[:600])


def oom(out):
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(230 * MiB / total)
    torch.cuda.memory._record_memory_history(max_entries=200000)
    blocks = [torch.empty(4 * MiB, dtype=torch.uint8, device="cuda") for _ in range(50)]
    for i in range(1, 50, 2):
        blocks[i] = None
    facts = {"torch": torch.__version__, "reserved_before": torch.cuda.memory_reserved(),
             "allocated_before": torch.cuda.memory_allocated()}
    try:
        big = torch.empty(48 * MiB, dtype=torch.uint8, device="cuda")
        facts["error"] = None
    except torch.cuda.OutOfMemoryError as e:
        facts["error"] = str(e)
    torch.cuda.memory._dump_snapshot(os.path.join(out, "oom_snapshot.pickle"))
    json.dump(facts, open(os.path.join(out, "oom_facts.json"), "w"), indent=1)
    print(json.dumps(facts)[:600])


if __name__ == "__main__":
    {"train": train, "oom": oom, "expandable": expandable}[sys.argv[1]](sys.argv[2])
