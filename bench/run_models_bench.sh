#!/bin/sh
# ResNet-8 and ShuffleNet V2 x0.5 trained by TrainScope's engine and by PyTorch on the same
# CPU, in one command: one epoch of Fashion-MNIST each (batch 64, SGD lr 0.05 momentum 0.9,
# pixels/255, shuffled, last partial batch dropped), for SEEDS seeds, the two engines
# alternating so a machine whose load changes treats both alike. Both use THREADS threads
# (default: the core count, at most 8, the engine's own default): TS_NUM_THREADS for the
# engine, torch.set_num_threads for PyTorch (OpenBLAS at one thread, as bench/run_train_bench.sh).
# Prints every run, then per model the mean samples/s and mean test accuracy over the seeds
# and the ratio. See docs/PERFORMANCE.md ("Training engine: ResNet and ShuffleNet").
# Usage: bench/run_models_bench.sh [BUILD_DIR] [SEEDS] [EPOCHS] [LIMIT_STEPS] [MODELS]
set -e
BUILD=${1:-build}
SEEDS=${2:-3}
EPOCHS=${3:-1}
LIMIT=${4:-0}
MODELS=${5:-"resnet8 shufflenetv2"}
CORES=$(nproc)
THREADS=${THREADS:-$([ "$CORES" -gt 8 ] && echo 8 || echo "$CORES")}
HERE=$(dirname "$0")
PY=/usr/bin/python3
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
HAVE_TORCH=1
$PY -c "import torch" 2>/dev/null || HAVE_TORCH=0
[ "$HAVE_TORCH" = 1 ] || echo "pytorch    (not installed: apt-get install -y python3-torch)"
echo "threads=$THREADS seeds=$SEEDS epochs=$EPOCHS limit_steps=$LIMIT load: $(cut -d' ' -f1-3 /proc/loadavg)"
for seed in $(seq "$SEEDS"); do
  for model in $MODELS; do
    TS_NUM_THREADS=$THREADS "$BUILD/bench/train_throughput" "$model" "$EPOCHS" "$LIMIT" "$seed" | tee -a "$OUT"
    if [ "$HAVE_TORCH" = 1 ]; then
      LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
        $PY "$HERE/peer_torch_models.py" "$model" "$EPOCHS" "$LIMIT" "$seed" "$THREADS" | tee -a "$OUT"
    fi
  done
done
echo "mean of $SEEDS seeds (samples/s, test accuracy); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for model in $MODELS; do
  awk -v m="$model" '
    $2 == m { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
              n[$1]++; sps[$1] += v["samples/s"]; acc[$1] += v["test_acc"] }
    END {
      line = sprintf("  %-12s trainscope %6.0f samples/s, acc %.4f", m, sps["trainscope"] / n["trainscope"],
                     acc["trainscope"] / n["trainscope"])
      if (n["pytorch"] > 0)
        line = line sprintf("   pytorch %6.0f samples/s, acc %.4f   ratio %.2fx, accuracy %+.2f points", sps["pytorch"] / n["pytorch"],
                            acc["pytorch"] / n["pytorch"], (sps["trainscope"] / n["trainscope"]) / (sps["pytorch"] / n["pytorch"]),
                            100 * (acc["trainscope"] / n["trainscope"] - acc["pytorch"] / n["pytorch"]))
      print line
    }' "$OUT"
done
