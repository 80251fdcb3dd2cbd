#!/bin/bash
# Every check of TrainScope's GPU parts in one run, on a machine with an NVIDIA GPU
# (docs/GPU.md, "Checking on hardware"). From the project root:
#
#   bash bench/gpu_check.sh              the binaries of .dev/bundle.tar.xz (bench/gpu_bundle.sh),
#                                        or of BUILD=<build dir> when that is set
#   bash bench/gpu_check.sh --dry-run    no GPU: the same steps, small, on the emulated device
#                                        and PyTorch on the CPU (checks the script itself)
#
# Each step runs under a timeout and prints the command it ran and its figures:
#   1. the machine: GPU, driver, PyTorch, CUDA;
#   2. the device tests: test_engine (Device*, Backends*: every op, gradient and the trainer,
#      emulated and on cuda), test_gpu (Record*), test_cupti;
#   3. `trainscope-cli record` around a PyTorch CUDA program (bench/gpu/torch_target.py), its
#      kernels per step set against torch.profiler's count of the same program;
#   4. the engine on cuda against PyTorch on the same GPU and data, every model at batch 64
#      and 512: samples/s (the whole loop, and after the two warm-up steps), test accuracy,
#      and how the engine's step ran (CUDA Graph, launches per step, allocations and host
#      waits after the warm-up).
# Output under $OUT (default /tmp/tsgpu/out): log.txt (everything), summary.txt (the tables),
# results.jsonl (one JSON object per run). Environment: WORK (scratch, default /tmp/tsgpu),
# BUILD (a build folder instead of the bundle), SEED (0), LR (0.05).
# Takes about 3-4 minutes on an H100/H200; DEADLINE (340 s) bounds the whole: the order is the
# device tests, the engine against PyTorch, then `record` (verified on an H200 before).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
WORK=${WORK:-/tmp/tsgpu}
OUT=${OUT:-$WORK/out}
SEED=${SEED:-0}
LR=${LR:-0.05}
mkdir -p "$WORK" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
exec 3>&1  # the log, for what run() says while a command's output goes to a file
SUMMARY=$OUT/summary.txt
RESULTS=$OUT/results.jsonl
: > "$SUMMARY"
: > "$RESULTS"
SECONDS=0
PY=${PY:-$(command -v python3 || echo /usr/bin/python3)}
# The dry run needs a Python with PyTorch (a CPU build will do): Debian's where the first has none.
if [ $DRY = 1 ] && ! "$PY" -c 'import torch' 2>/dev/null && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    PY=/usr/bin/python3
fi

# The whole check must end within DEADLINE seconds (the GPU is lent for minutes): a step's
# timeout is its own limit or what is left, and a step that would start with less than 20 s
# left is skipped and said so.
DEADLINE=${DEADLINE:-340}
budget() {
    local left=$((DEADLINE - SECONDS))
    [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}
step() { echo; echo "=== [${SECONDS}s] $*"; }
note() { echo "$*" | tee -a "$SUMMARY"; }
# run NAME TIMEOUT CMD...: runs CMD under a timeout, prints it and its exit status; returns it.
run() {
    local name=$1 limit
    limit=$(budget "$2")
    shift 2
    if [ "$limit" -lt 20 ]; then
        note "SKIPPED $name: the check's ${DEADLINE}s are nearly spent" >&3
        return 125
    fi
    echo "+ [${SECONDS}s] (timeout ${limit}s) $*" >&3
    timeout --kill-after=10 "$limit" "$@"
    local rc=$?
    [ $rc -eq 124 ] && echo "!! $name: timed out after ${limit}s" >&3
    echo "-- [${SECONDS}s] $name: exit $rc" >&3
    return $rc
}
# json FILE EXPR: a field of the last JSON line of FILE (a Python expression over `d`).
json() {
    "$PY" - "$1" "$2" <<'EOF' 2>/dev/null || echo "?"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip().startswith("{")]
d = json.loads(lines[-1]) if lines else {}
try:
    v = eval(sys.argv[2], {}, {"d": d})
except Exception:
    v = "?"
print(f"{v:.4g}" if isinstance(v, float) else v)
EOF
}

step "machine"
echo "checkout: $ROOT ($(git -C "$ROOT" log -1 --format='%h %s' 2>/dev/null || echo 'no git'))"
if [ $DRY = 1 ]; then
    note "DRY RUN: no GPU is used (the emulated device, PyTorch on the CPU); no figure below is a GPU's"
else
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$SUMMARY"
fi
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tee -a "$SUMMARY"

step "binaries"
if [ -n "${BUILD:-}" ] || [ $DRY = 1 ]; then
    B=$(cd "${BUILD:-$ROOT/build}" && pwd)
    CLI=$B/app/trainscope-cli
    TESTS=$B/tests
    export TRAINSCOPE_GPU_LIB_DIR=$B/lib/trainscope
    echo "build folder: $B"
else
    BUNDLE=$ROOT/.dev/bundle.tar.xz
    if [ ! -f "$BUNDLE" ]; then
        echo "no $BUNDLE: make it with bench/gpu_bundle.sh where the project builds, or set BUILD"
        exit 2
    fi
    [ -f "$ROOT/.dev/COMMIT" ] && echo "bundle built from: $(cut -c1-60 "$ROOT/.dev/COMMIT")"
    head=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)
    if [ -n "$head" ] && [ -f "$ROOT/.dev/COMMIT" ] && [ "$(cut -d' ' -f1 "$ROOT/.dev/COMMIT")" != "$head" ]; then
        note "warning: the bundle was built from another commit than this checkout's ($head)"
    fi
    P=$WORK/prefix
    rm -rf "$P" && mkdir -p "$P" && tar -xJf "$BUNDLE" -C "$P"
    # Bundled libraries this machine has itself: its own (newer) ones serve.
    for f in "$P"/lib/*.so*; do
        [ -e "$f" ] || continue
        n=$(basename "$f")
        ldconfig -p 2>/dev/null | awk '{print $1}' | grep -qx "$n" && rm -f "$f"
    done
    kept=""
    for f in "$P"/lib/*.so*; do [ -e "$f" ] && kept="$kept $(basename "$f")"; done
    echo "bundled libraries kept:${kept:- none}"
    L=""
    for n in libcublas.so.13 libcublasLt.so.13 libcudart.so.13 libcupti.so.13; do
        p=""
        for c in /usr/local/cuda*/targets/x86_64-linux/lib/"$n" /usr/local/cuda*/lib64/"$n" \
                 /usr/local/cuda*/lib/"$n" /usr/local/cuda*/extras/CUPTI/lib64/"$n"; do
            [ -f "$c" ] && { p=$c; break; }
        done
        [ -z "$p" ] && p=$(find /usr/local /opt /usr/lib /usr/lib64 -name "$n" -not -path "$P/*" 2>/dev/null | head -1)
        echo "$n -> ${p:-not found (the bundled fallback serves where there is one)}"
        [ -n "$p" ] && L=$L:$(dirname "$p")
    done
    # the engine module links the collector beside it (the build tree's RUNPATH names this
    # machine's build folder, not the bundle)
    export LD_LIBRARY_PATH=${L#:}:$P/lib/trainscope:$P/lib:$P/cudafallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export TRAINSCOPE_GPU_LIB_DIR=$P/lib/trainscope
    CLI=$P/bin/trainscope-cli
    TESTS=$P/bin
fi
export TRAINSCOPE_CLI=$CLI
for f in "$CLI" "$TESTS"/test_engine "$TESTS"/test_gpu "$TESTS"/test_cupti "$TRAINSCOPE_GPU_LIB_DIR"/*.so; do
    if [ ! -e "$f" ]; then note "MISSING: $f"; continue; fi
    missing=$(ldd "$f" 2>/dev/null | grep "not found")
    [ -n "$missing" ] && note "MISSING for $f: $missing"
done
FM=$WORK/fm  # the 10,000-sample split serves as training and test set (the bundle's limit)
mkdir -p "$FM"
for kind in images-idx3 labels-idx1; do
    src=$ROOT/.dev/fm/t10k-$kind-ubyte.gz
    [ -f "$src" ] || src=/usr/share/datasets/fashion-mnist/t10k-$kind-ubyte.gz
    cp "$src" "$FM/t10k-$kind-ubyte.gz" && cp "$src" "$FM/train-$kind-ubyte.gz"
done
ls -la "$FM"

step "device tests"
if [ $DRY = 1 ]; then
    ENGINE_FILTER='*DeviceStep.AStep*:*DeviceOps.ShapeOps*'
    export TRAINSCOPE_DEVICE_EMULATION=1
else
    ENGINE_FILTER='*Device*:*Backends*'
fi
# test NAME ARGS...: one test binary, its counts into the summary, its failures shown.
test_binary() {
    local name=$1
    shift
    run "$name" 150 "$TESTS/$name" "$@" --gtest_brief=1 > "$WORK/$name.txt" 2>&1
    local rc=$?
    grep -E "tests? from .* ran|^\[  (PASSED|SKIPPED|FAILED)  \]" "$WORK/$name.txt" | tail -12
    grep -B2 -A12 "Failure" "$WORK/$name.txt" | head -60
    local passed failed skipped
    passed=$(grep -oE "\[  PASSED  \] [0-9]+" "$WORK/$name.txt" | grep -oE "[0-9]+$" | tail -1)
    failed=$(grep -cE "^\[  FAILED  \] .*\(" "$WORK/$name.txt")
    skipped=$(grep -oE "\[  SKIPPED \] [0-9]+" "$WORK/$name.txt" | grep -oE "[0-9]+$" | tail -1)
    note "$(printf '%-12s exit %-3s passed %-4s failed %-3s skipped %s' "$name" "$rc" "${passed:-0}" "$failed" "${skipped:-0}")"
    cp "$WORK/$name.txt" "$OUT/" 2>/dev/null
}
test_binary test_engine "--gtest_filter=$ENGINE_FILTER"
test_binary test_gpu '--gtest_filter=*Record*'
test_binary test_cupti

step "the engine on cuda against PyTorch on the same GPU and data (seed $SEED, SGD lr $LR momentum 0.9)"
# batch:epochs; 10,000 samples: 156 steps at 64, 5 x 19 = 95 steps at 512.
if [ $DRY = 1 ]; then
    CONFIGS="64:1"
    MODELS="mlp lenet5"
    LIMIT="--limit-steps 6 --eval-limit 256"
    PEER_LIMIT=":6"
else
    PEER_LIMIT=""
    CONFIGS="64:1 512:5"
    MODELS="mlp lenet5 resnet8 shufflenetv2"
    LIMIT=""
fi
SPECS=""
for m in $MODELS; do
    for c in $CONFIGS; do
        b=${c%%:*}
        e=${c##*:}
        SPECS="$SPECS $m:$b:$e$PEER_LIMIT"
        f=$WORK/engine_${m}_$b
        rm -f "$f.tscope"
        # shellcheck disable=SC2086
        run "engine $m batch $b" 45 "$CLI" train --model "$m" --device cuda --dataset fashion-mnist --data-dir "$FM" --epochs "$e" --batch-size "$b" --optimizer sgd --lr "$LR" --momentum 0.9 --seed "$SEED" $LIMIT --json -o "$f.tscope" > "$f.json" 2> "$f.err"
        tail -3 "$f.err"
        "$PY" - "$f.json" "$m" "$b" >> "$RESULTS" <<'EOF' 2>/dev/null || echo "{\"peer\":\"engine\",\"model\":\"$m\",\"batch\":$b,\"error\":\"no JSON\"}" >> "$RESULTS"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip().startswith("{")]
d = json.loads(lines[-1])
r = d.get("device_run", {})
print(json.dumps({"peer": "engine", "model": sys.argv[2], "batch": int(sys.argv[3]),
                  "status": d.get("status"), "reason": d.get("reason"), "steps": d.get("steps"),
                  "samples_per_s": d.get("samples_per_s"),
                  "samples_per_s_after_warmup": r.get("samples_per_s_after_warmup"),
                  "accuracy": d.get("eval", {}).get("accuracy"),
                  "final_loss": d.get("final", {}).get("loss"), "device": d.get("device_name"),
                  "device_run": r}))
EOF
        tail -1 "$RESULTS"
    done
done
if [ $DRY = 1 ]; then export TS_PEER_DEVICE=cpu; fi
# shellcheck disable=SC2086
run "pytorch" 150 "$PY" "$ROOT/bench/gpu/torch_peer.py" "$FM" 1 "$SEED" "$LR" $SPECS > "$WORK/torch.jsonl" 2> "$WORK/torch.err"
tail -5 "$WORK/torch.err"
cat "$WORK/torch.jsonl"
grep '^{' "$WORK/torch.jsonl" >> "$RESULTS"

step "record a PyTorch CUDA program, and torch.profiler's count of the same program"
if [ $DRY = 1 ]; then
    run record 60 "$CLI" record --help > /dev/null
    note "record: not run (no GPU)"
else
    STEPS=20
    rm -f "$WORK/rec.tscope"
    run record 150 "$CLI" record -o "$WORK/rec.tscope" --json -- "$PY" "$ROOT/bench/gpu/torch_target.py" $STEPS > "$WORK/rec.json" 2>&1
    tail -c 1500 "$WORK/rec.json"; echo
    Q="SELECT count(*) AS n FROM slices s JOIN strings c ON c.id = s.cat_id WHERE c.str = 'kernel'"
    run query 60 "$CLI" query "$WORK/rec.tscope" "$Q" --json > "$WORK/rec_kernels.json" 2>&1
    cat "$WORK/rec_kernels.json"; echo
    run query 60 "$CLI" query "$WORK/rec.tscope" "SELECT c.str, count(*) FROM slices s JOIN strings c ON c.id = s.cat_id GROUP BY 1 ORDER BY 2 DESC" 2>&1 | head -12
    run kineto 150 "$PY" "$ROOT/bench/gpu/torch_target.py" $STEPS --kineto "$WORK/kineto.json" > "$WORK/kineto_count.json" 2>&1
    tail -3 "$WORK/kineto_count.json"
    ours=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("rows") or d.get("result") or []; v=r[0] if r else None; v=v.get("n") if isinstance(v,dict) else (v[0] if isinstance(v,list) else v); print(int(v))' "$WORK/rec_kernels.json" 2>/dev/null || echo "?")
    theirs=$(json "$WORK/kineto_count.json" 'd["kineto_kernels"]')
    # The recorded program ran 3 warm-up steps before its STEPS; torch.profiler saw the STEPS.
    verdict=$("$PY" -c "
o, t, s = '$ours', '$theirs', $STEPS
if not (o.isdigit() and t.isdigit()) or int(t) == 0:
    print('NOT COMPARED (a count is missing)')
else:
    a, b = int(o) / (s + 3), int(t) / s
    print(f'{a:.2f} vs {b:.2f} kernels per step: ' + ('MATCH' if abs(a - b) <= 0.05 * b else 'MISMATCH'))
")
    note "record: $ours kernels over $STEPS+3 steps; torch.profiler: $theirs over $STEPS steps; $verdict"
    echo "{\"check\":\"record\",\"recorded_kernels\":\"$ours\",\"kineto_kernels\":\"$theirs\",\"steps\":$STEPS,\"verdict\":\"$verdict\"}" >> "$RESULTS"
fi

step "summary"
"$PY" - "$RESULTS" <<'EOF' | tee -a "$SUMMARY"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
eng = {(r["model"], r["batch"]): r for r in rows if r.get("peer") == "engine"}
tor = {(r["model"], r["batch"]): r for r in rows if r.get("peer") == "torch" and "model" in r}
for r in rows:
    if r.get("peer") == "torch" and "settings" in r:
        print("pytorch:", ", ".join(f"{k} {v}" for k, v in r["settings"].items()))
def f(v, spec="{:,.0f}"):
    return spec.format(v) if isinstance(v, (int, float)) else "-"
print(f"{'model':13} {'batch':>5} | {'engine s/s':>11} {'after warm-up':>13} | {'torch s/s':>10} {'after warm-up':>13} | {'ratio':>6} | {'acc engine':>10} {'acc torch':>9} | graph launches/step allocs waits")
for key in sorted(set(eng) | set(tor), key=lambda k: (["mlp", "lenet5", "resnet8", "shufflenetv2"].index(k[0]) if k[0] in ["mlp", "lenet5", "resnet8", "shufflenetv2"] else 9, k[1])):
    e, t = eng.get(key, {}), tor.get(key, {})
    r = e.get("device_run") or {}
    ew, tw = e.get("samples_per_s_after_warmup"), t.get("samples_per_s_after_warmup")
    ratio = f"{ew / tw:.2f}x" if isinstance(ew, (int, float)) and isinstance(tw, (int, float)) and tw > 0 else "-"
    status = "" if e.get("status") in (None, "completed") else f"  engine {e.get('status')}: {e.get('reason')}"
    print(f"{key[0]:13} {key[1]:>5} | {f(e.get('samples_per_s')):>11} {f(ew):>13} | {f(t.get('samples_per_s')):>10} {f(tw):>13} | {ratio:>6} | "
          f"{f(e.get('accuracy'), '{:.4f}'):>10} {f(t.get('accuracy'), '{:.4f}'):>9} | {str(r.get('cuda_graph', '-')):5} {f(r.get('enqueued_per_step'), '{:.1f}'):>14} {f(r.get('allocations'), '{}'):>6} {f(r.get('host_waits'), '{}'):>5}{status}")
    if r and not r.get("cuda_graph"):
        print(f"{'':21}(no graph: {r.get('cuda_graph_reason')})")
EOF
note "total ${SECONDS}s"
echo "written: $OUT/log.txt $OUT/summary.txt $OUT/results.jsonl"
exec 1>&- 2>&-  # tee sees the end of its input and finishes log.txt
sleep 1
