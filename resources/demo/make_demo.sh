#!/bin/sh
# Builds the studio's demo session: a real training run of the bundled engine on
# Fashion-MNIST (synthetic data when the Debian dataset package is absent), recorded with
# its scalars. Usage: make_demo.sh TRAINSCOPE_CLI OUT.tscope
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
  -o "$OUT.tmp" --json > /dev/null
mv "$OUT.tmp" "$OUT"
rm -f "$OUT.tmp-wal" "$OUT.tmp-shm"
