#!/bin/sh
# `make bench`: every benchmark of bench/ with the arguments docs/PERFORMANCE.md quotes, one
# after the other, each printing its figures (and its peer's where it has one). Long: tens of
# minutes and a few GB under /tmp. Run one alone for a single figure (the commands are in
# docs/PERFORMANCE.md).
# Usage: bench/run_all.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
B="$BUILD/bench"
HERE=$(dirname "$0")
run() {  # run NAME ARGS...: a header, then the benchmark (a failure is reported, not fatal)
    name=$1
    shift
    printf '\n=== %s %s\n' "$name" "$*"
    "$B/$name" "$@" || echo "($name failed with exit code $?)"
}
run store_ingest
run trace_import
run json_tokenize
run timeline_open
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} run gui_timeline_frame
run h5_stats 256
run h5_open
run snapshot_read 1024
run log_call_cost
run debug_overhead
run rdr_overhead
run profile_overhead
run train_op_breakdown mlp
printf '\n=== run_train_bench.sh (the engine against PyTorch)\n'
sh "$HERE/run_train_bench.sh" "$BUILD" || echo "(run_train_bench.sh failed)"
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} run gui_command_run
run dp_speedup
run diff_align --runs 5
run cluster_import
QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} run gui_cluster_frame
