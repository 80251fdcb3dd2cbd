#!/bin/sh
# Builds the studio's demo session: real training runs of the bundled engine on Fashion-MNIST
# (synthetic data when the Debian dataset package is absent): an MLP for three epochs with its
# curves and per-epoch evaluation (Training, Curves), and a LeNet-5 run of 200 steps profiled
# over steps 50-59 (Timeline, Op statistics, Steps, Memory, Advice).
# The runs log at INFO (GLOG_v=1), so the Logs view has their records; stderr goes to
# OUT.log and is shown only when a run fails.
# Usage: make_demo.sh TRAINSCOPE_CLI OUT.tscope
set -e
CLI=$1
OUT=$2
rm -f "$OUT" "$OUT-wal" "$OUT-shm" "$OUT.tmp" "$OUT.tmp-wal" "$OUT.tmp-shm"
DATASET=synthetic
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  DATASET=fashion-mnist
fi
export GLOG_v=1
LOG="$OUT.log"
trap 'rm -f "$LOG"' EXIT
run() { "$CLI" "$@" > /dev/null 2> "$LOG" || { cat "$LOG" >&2; exit 1; }; }
run train --model mlp --dataset "$DATASET" --epochs 3 --batch-size 64 --optimizer sgd \
  --lr 0.05 --momentum 0.9 --lr-schedule cosine --seed 7 --eval-each-epoch \
  --name "MLP, cosine LR" -o "$OUT.tmp" --json
run train --model lenet5 --dataset "$DATASET" --epochs 1 --limit-steps 200 --batch-size 64 \
  --optimizer sgd --lr 0.05 --momentum 0.9 --seed 7 --eval-limit 2000 --profile \
  --profile-schedule 50,0,10,1 --name "LeNet-5, profiled" -o "$OUT.tmp" --json
mv "$OUT.tmp" "$OUT"
rm -f "$OUT.tmp-wal" "$OUT.tmp-shm"
