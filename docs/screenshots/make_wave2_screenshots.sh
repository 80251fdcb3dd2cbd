#!/bin/sh
# Makes the screenshots of the SQL tab, the stack-samples mode of the op statistics and the
# Training panel on the new models. Run from the repository root after building build/.
#   - query_view.png: the SQL tab over the bundled demo session (the time per op name);
#   - stats_samples.png: "Stack samples" of a Chrome trace with CPU sampling (top-level
#     stackFrames + samples, as Chrome's profiler writes them), generated here: a training
#     loop sampled every 1 ms for 4 s on two threads;
#   - training_shufflenet.png: ShuffleNet V2 x0.5 training live in the Training panel
#     (Device box, the new models in the Model box), beside the demo session's runs.
set -eu
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shot() {  # shot NAME [args]
    name=$1
    shift
    xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope --screenshot "$out/$name.png" \
        --size 1600x950 "$@"
}
shot query_view --view query --query "-- time per op name over the demo session's slices
SELECT s.str AS name, count(*) AS calls, round(sum(sl.dur) / 1e6, 3) AS total_ms,
       round(avg(sl.dur) / 1e3, 1) AS avg_us, max(sl.depth) AS max_depth
FROM slices sl JOIN strings s ON s.id = sl.name_id
GROUP BY sl.name_id ORDER BY sum(sl.dur) DESC LIMIT 40"

/usr/bin/python3 - "$work/sampled.json" <<'EOF'
import json, random, sys
random.seed(7)
stacks = {  # leaf paths, root first, with their weights
    ("main", "train", "train_step", "forward", "conv2d", "mkldnn_convolution"): 30,
    ("main", "train", "train_step", "forward", "batch_norm"): 8,
    ("main", "train", "train_step", "backward", "conv2d_backward", "col2im"): 22,
    ("main", "train", "train_step", "backward", "conv2d_backward", "sgemm"): 18,
    ("main", "train", "train_step", "optimizer_step", "sgd_update"): 5,
    ("main", "train", "data_loader", "__next__", "decode_jpeg"): 9,
    ("main", "train", "data_loader", "__next__", "collate"): 4,
    ("main", "train", "log_metrics", "tensorboard_write"): 2,
}
frames, ids = {}, {}
def frame(path):
    if path in ids:
        return ids[path]
    fid = str(len(ids) + 1)
    ids[path] = fid
    frames[fid] = {"name": path[-1], "category": "python"}
    if len(path) > 1:
        frames[fid]["parent"] = frame(path[:-1])
    return fid
paths, weights = list(stacks), list(stacks.values())
samples = []
for tid in (1, 2):
    for i in range(4000):
        path = random.choices(paths, weights)[0]
        if tid == 2:
            path = ("main", "train", "data_loader", "__next__", random.choice(["decode_jpeg", "collate"]))
        samples.append({"cpu": tid - 1, "tid": tid, "ts": 1000.0 * i, "name": "cycles",
                        "sf": frame(path), "weight": 1})
events = [{"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "MainThread"}},
          {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "DataLoader"}},
          {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "python train.py"}}]
for step in range(40):
    events.append({"ph": "X", "pid": 1, "tid": 1, "ts": step * 100000, "dur": 98000,
                   "name": f"ProfilerStep#{step}", "cat": "user_annotation"})
json.dump({"traceEvents": events, "stackFrames": frames, "samples": samples}, open(sys.argv[1], "w"))
EOF
build/app/trainscope-cli import "$work/sampled.json" -o "$work/sampled.tscope" >/dev/null
shot stats_samples "$work/sampled.tscope" --view stats --tab "Stack samples"

# Into the demo session (a copy), beside its MLP and LeNet-5 runs.
shot training_shufflenet --view training \
    --train '{"model":"shufflenetv2","epochs":1,"batch_size":64}' \
    --screenshot-delay 45
