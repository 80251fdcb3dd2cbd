#!/bin/sh
# Prints TrainScope's and PyTorch's training throughput on Fashion-MNIST in one run.
# Usage: bench/run_train_bench.sh BUILD_DIR [epochs] [limit_steps]
set -e
BUILD=${1:-build}
EPOCHS=${2:-1}
LIMIT=${3:-0}
HERE=$(dirname "$0")
"$BUILD/bench/train_throughput" "$EPOCHS" "$LIMIT"
PY=/usr/bin/python3
if $PY -c "import torch" 2>/dev/null; then
  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
    $PY "$HERE/peer_torch_train.py" "$EPOCHS" "$LIMIT"
else
  echo "pytorch    (not installed: apt-get install -y python3-torch)"
fi
