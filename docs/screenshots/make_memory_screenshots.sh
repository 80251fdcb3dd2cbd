#!/bin/sh
# Makes the screenshots of docs/MEMORY.md from PyTorch 2.11's own files
# (tests/data/torch_memory: a training run with a planted leak, its Kineto trace, a
# fragmentation OOM) and two profiled engine runs (batch 32 and 64) for the Diff view's
# Memory tab. Run from the repository root after building trainscope and trainscope-cli in build/.
set -eu
out=docs/screenshots
data=tests/data/torch_memory
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shot() {  # shot OUT.png ARGS...: the studio under Xvfb, 1500x950
    png=$1
    shift
    xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope --screenshot "$out/$png" \
        --size 1500x950 "$@"
}
shot memory_snapshot_timeline.png --view memory-snapshot --tab "Active memory" "$data/train_snapshot.pickle"
shot memory_snapshot_answers.png --view memory-snapshot --tab "Answers" "$data/train_snapshot.pickle"
shot memory_snapshot_oom_state.png --view memory-snapshot --tab "Allocator state" "$data/oom_snapshot.pickle"
build/app/trainscope-cli import "$data/train_kineto.json.gz" -o "$work/kineto.tscope" >/dev/null
shot memory_kineto_peak_ops.png --view memory --tab "Live at the peak" "$work/kineto.tscope"
shot memory_by_op.png --view memory --tab "Memory by op" "$work/kineto.tscope"
for b in 32 64; do
    build/app/trainscope-cli train --model lenet5 --dataset synthetic --synthetic-samples 640 \
        --epochs 1 --batch-size $b --optimizer sgd --lr 0.05 --seed 1 -o "$work/engine.tscope" \
        --profile --profile-schedule 0,0,6,1 --eval-limit 64 >/dev/null
done
shot diff_memory.png --view diff --tab "Memory" "$work/engine.tscope"
