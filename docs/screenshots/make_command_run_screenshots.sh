#!/bin/sh
# Makes the screenshots of docs/RUNS.md: command runs of real PyTorch scripts (Debian's
# python3-torch) and of the MindSpore stand-in, recorded by the studio and the CLI. Run from
# the repository root after building trainscope and trainscope-cli in build/.
#   - runs_training_live.png: the Training panel's Command tab mid-run (started from the
#     studio with --launch): live curves over a finished baseline, progress, history;
#   - runs_timeline.png: the trace the run's profiler wrote, imported while it ran;
#   - runs_logs.png: the MindSpore stand-in's records (levels from GLOG_v, a traceback with
#     MindSpore's C++ call stack as one record).
set -eu
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
scripts=$(pwd)/tests/run/python/scripts
s="$work/runs.tscope"
shot() {  # shot NAME VIEW [extra args]
    name=$1 view=$2
    shift 2
    xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope "$s" --screenshot "$out/$name.png" \
        --view "$view" --size 1600x950 "$@"
}
build/app/trainscope-cli launch -o "$s" --name "baseline (lr 0.1)" --quiet -- \
    /usr/bin/python3 "$scripts/mlp_fashion.py" --steps 2000 --lr 0.1 >/dev/null
spec='{"name":"mlp_fashion.py lr 0.3, profiled","program":"/usr/bin/python3",
 "args":["'"$scripts"'/mlp_fashion.py","--steps","40000","--lr","0.3","--log-every","50"],
 "cwd":"'"$work"'","profile":true,"profile_schedule":{"wait":20,"warmup":2,"active":3,"repeat":1},
 "overflow_check":true,"log_levels":["GLOBAL=INFO"]}'
shot runs_training_live training --launch "$spec" --screenshot-delay 8
shot runs_timeline timeline --find "ProfilerStep#24"
echo '{"rdr": {"enable": true, "mode": 1}}' > "$work/rdr.json"
build/app/trainscope-cli launch -o "$s" --name "MindSpore stand-in" --rdr "$work/rdr.json" \
    --log-level GLOBAL=INFO --log-level KERNEL=DEBUG --quiet -- \
    /usr/bin/python3 "$scripts/mindspore_standin.py" --steps 12 --fail >/dev/null || true
shot runs_logs logs
