#!/usr/bin/env python3
"""Captures real artifacts from PyTorch 2.x on a GPU for TrainScope's format work (issues 28, 30, 27):
 1. a Kineto trace of a bf16 transformer block (record_shapes, profile_memory, with_stack; 4 active steps)
 2. a CUDA memory snapshot with a planted leak (a list that keeps one tensor per step)
 3. a CUDA memory snapshot holding an `oom` event
 4. a TensorBoard event file with histogram, image and hparams (if tensorboard is installed)
Usage: capture.py OUTDIR"""
import gzip, json, os, pickle, shutil, sys, time, torch, torch.nn as nn
out = sys.argv[1]; os.makedirs(out, exist_ok=True); dev = torch.device("cuda")
torch.manual_seed(0)
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0), flush=True)

# 1. transformer block, bf16, profiled
blk = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True).to(dev).to(torch.bfloat16)
opt = torch.optim.AdamW(blk.parameters(), lr=1e-4)
x = torch.randn(16, 256, 512, device=dev, dtype=torch.bfloat16)
def tstep():
    opt.zero_grad(set_to_none=True); y = blk(x); loss = y.float().pow(2).mean(); loss.backward(); opt.step()
from torch.profiler import profile, ProfilerActivity, schedule
t0 = time.time()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=1, warmup=1, active=4),
             record_shapes=True, profile_memory=True, with_stack=True) as p:
    for i in range(6): tstep(); p.step()
torch.cuda.synchronize()
p.export_chrome_trace(f"{out}/kineto.json")
ev = json.load(open(f"{out}/kineto.json"))["traceEvents"]
cats = {}
for e in ev: cats[e.get("cat")] = cats.get(e.get("cat"), 0) + 1
steps = sorted({e["name"] for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")})
print("kineto transformer:", len(ev), "events", json.dumps(cats), "steps", steps, f"{time.time()-t0:.1f}s", flush=True)
with open(f"{out}/kineto.json", "rb") as f, gzip.open(f"{out}/transformer_bf16_h200.pt.trace.json.gz", "wb", 6) as g: shutil.copyfileobj(f, g)
os.remove(f"{out}/kineto.json")

# 2. memory snapshot with a planted leak
torch.cuda.empty_cache()
torch.cuda.memory._record_memory_history(max_entries=20000)
m = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).to(dev)
o2 = torch.optim.SGD(m.parameters(), lr=0.01)
leak = []
def leaky_step(i):
    a = torch.randn(256, 1024, device=dev)
    loss = m(a).pow(2).mean(); o2.zero_grad(); loss.backward(); o2.step()
    leak.append(torch.empty(1 << 20, device=dev))   # 4 MiB kept each step, never freed
for i in range(12): leaky_step(i)
torch.cuda.synchronize()
torch.cuda.memory._dump_snapshot(f"{out}/snapshot_leak.pickle")
s = pickle.load(open(f"{out}/snapshot_leak.pickle", "rb"))
print("snapshot_leak:", os.path.getsize(f"{out}/snapshot_leak.pickle"), "bytes keys", list(s.keys()),
      "segments", len(s["segments"]), "traces", [len(t) for t in s["device_traces"]], flush=True)
print("actions", sorted({e["action"] for t in s["device_traces"] for e in t}))
print("segment keys", sorted(s["segments"][0].keys()), "block keys", sorted(s["segments"][0]["blocks"][0].keys()))
print("trace keys", sorted(s["device_traces"][0][0].keys()), "frame", s["device_traces"][0][-1].get("frames", [None])[:1])
with open(f"{out}/snapshot_leak.pickle", "rb") as f: head = f.read(2); print("pickle protocol byte", head)
torch.cuda.memory._record_memory_history(enabled=None)
del leak

# 3. oom snapshot
torch.cuda.memory._record_memory_history(max_entries=5000)
keep = [torch.empty(256 << 20, device=dev) for _ in range(3)]  # 3 GiB
try:
    huge = torch.empty(1 << 40, device=dev)  # 4 TiB: fails
except torch.OutOfMemoryError as e:
    print("oom raised:", str(e)[:200])
torch.cuda.memory._dump_snapshot(f"{out}/snapshot_oom.pickle")
s = pickle.load(open(f"{out}/snapshot_oom.pickle", "rb"))
print("snapshot_oom:", os.path.getsize(f"{out}/snapshot_oom.pickle"), "actions", sorted({e["action"] for t in s["device_traces"] for e in t}))
torch.cuda.memory._record_memory_history(enabled=None)
del keep

# 4. tensorboard
try:
    from torch.utils.tensorboard import SummaryWriter
    w = SummaryWriter(f"{out}/tb")
    for st in range(5):
        w.add_scalar("loss/train", 1.0 / (st + 1), st)
        w.add_histogram("fc1/weight", torch.randn(1000) * (st + 1), st)
        w.add_image("sample", torch.rand(3, 16, 16), st)
    w.add_hparams({"lr": 0.01, "batch": 64, "opt": "sgd"}, {"hparam/accuracy": 0.91})
    w.close()
    import tarfile
    with tarfile.open(f"{out}/tensorboard_torch211.tar.gz", "w:gz") as t: t.add(f"{out}/tb", arcname="tb")
    shutil.rmtree(f"{out}/tb"); print("tensorboard written")
except Exception as e:
    print("tensorboard unavailable:", repr(e)[:200])
