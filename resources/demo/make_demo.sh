#!/bin/sh
# Builds the studio's demo session: real training runs of the bundled engine on Fashion-MNIST
# (synthetic data when the Debian dataset package is absent): an MLP for three epochs with its
# curves and per-epoch evaluation (Training, Curves), and a LeNet-5 run of 200 steps profiled
# over steps 50-59 (Timeline, Op statistics, Steps, Memory, Advice).
# Usage: make_demo.sh TRAINSCOPE_CLI OUT.tscope
set -e
CLI=$1
OUT=$2
rm -f "$OUT" "$OUT-wal" "$OUT-shm" "$OUT.tmp" "$OUT.tmp-wal" "$OUT.tmp-shm"
DATASET=synthetic
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  DATASET=fashion-mnist
fi
"$CLI" train --model mlp --dataset "$DATASET" --epochs 3 --batch-size 64 --optimizer sgd \
  --lr 0.05 --momentum 0.9 --lr-schedule cosine --seed 7 --eval-each-epoch \
  --name "MLP, cosine LR" -o "$OUT.tmp" --json > /dev/null
"$CLI" train --model lenet5 --dataset "$DATASET" --epochs 1 --limit-steps 200 --batch-size 64 \
  --optimizer sgd --lr 0.05 --momentum 0.9 --seed 7 --eval-limit 2000 --profile \
  --profile-schedule 50,0,10,1 --name "LeNet-5, profiled" -o "$OUT.tmp" --json > /dev/null
mv "$OUT.tmp" "$OUT"
rm -f "$OUT.tmp-wal" "$OUT.tmp-shm"
