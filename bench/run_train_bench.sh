#!/bin/sh
# TrainScope's and PyTorch's training throughput on Fashion-MNIST in one run: the MLP and
# LeNet-5, batch 64, SGD lr 0.05 momentum 0.9, pixels/255 (see train_throughput.cpp and
# peer_torch_train.py). The two engines run alternately, ROUNDS times each, so a machine
# whose load changes treats both alike; the summary gives each one's best round and the
# ratio. PyTorch uses OpenBLAS (not the 10x slower reference BLAS) with one BLAS thread and
# torch.set_num_threads(2), as the issue specifies.
# Usage: bench/run_train_bench.sh [BUILD_DIR] [EPOCHS] [LIMIT_STEPS] [ROUNDS]
set -e
BUILD=${1:-build}
EPOCHS=${2:-1}
LIMIT=${3:-0}
ROUNDS=${4:-3}
HERE=$(dirname "$0")
PY=/usr/bin/python3
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
HAVE_TORCH=1
$PY -c "import torch" 2>/dev/null || HAVE_TORCH=0
[ "$HAVE_TORCH" = 1 ] || echo "pytorch    (not installed: apt-get install -y python3-torch)"
for round in $(seq "$ROUNDS"); do
  for model in mlp lenet5; do
    "$BUILD/bench/train_throughput" "$model" "$EPOCHS" "$LIMIT" | tee -a "$OUT"
    if [ "$HAVE_TORCH" = 1 ]; then
      LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
        $PY "$HERE/peer_torch_train.py" "$model" "$EPOCHS" "$LIMIT" | tee -a "$OUT"
    fi
  done
done
echo "best of $ROUNDS rounds (samples/s, test accuracy):"
for model in mlp lenet5; do
  awk -v m="$model" '
    $2 == m { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
              if (v["samples/s"] > best[$1]) { best[$1] = v["samples/s"]; acc[$1] = v["test_acc"] } }
    END {
      line = sprintf("  %-7s trainscope %7d (acc %s)", m, best["trainscope"], acc["trainscope"])
      if (best["pytorch"] > 0)
        line = line sprintf("   pytorch %7d (acc %s)   ratio %.2fx", best["pytorch"], acc["pytorch"],
                            best["trainscope"] / best["pytorch"])
      print line
    }' "$OUT"
done
