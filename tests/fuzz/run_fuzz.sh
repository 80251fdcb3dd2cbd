#!/usr/bin/env bash
# Runs the fuzz targets of BUILD (a clang build with -DTRAINSCOPE_FUZZ=ON, e.g. build-asan)
# for SECONDS each, FUZZ_JOBS at a time (default: the number of cores; libFuzzer runs one
# thread a target), seeded from ../shared/corpus (tests/fuzz/seeds/<t>.txt),
# tests/fuzz/seeds/<t>/ and every input that once crashed the target
# (tests/fuzz/regressions/<t>/). Fixed seed (-seed=1), so a run is repeatable on one machine.
# The first finding stops it with a non-zero exit; libFuzzer leaves the input in
# BUILD/fuzz/artifacts/<t>/ (replay: BUILD/tests/fuzz/fuzz_<t> FILE; then add it to
# tests/fuzz/regressions/<t>/ with the fix).
# Usage: run_fuzz.sh BUILD SECONDS|ci [TARGET...]   (default: every target)
# "ci" (make test): a fixed number of inputs per target, about 6 s each on the reference
# machine, at most 30 s: the same inputs on any machine, so CI does not pass or fail by how
# fast it is (HDF5 1.10 has memory bugs of its own on damaged files that a longer run of
# fuzz_hdf5 reaches: tests/fuzz/library_crashes/).
set -euo pipefail
build=$(cd "$1" && pwd)
seconds=$2
shift 2
declare -A ci_runs=([chrome_tokenizer]=60000 [chrome_import]=400 [nsys]=1500 [hdf5]=800
                    [log_lines]=15000 [tfevents]=1500 [checkpoint]=100000 [rdr]=1500
                    [session_open]=1000 [torch_memory]=3000 [json_readers]=1500
                    [ascend_profiler]=200 [gpu_analysis]=300
                    [mindspore_summary]=800 [mindspore_lineage]=1500 [npy]=3000 [msdump]=1500
                    [msrdr]=1500)
# Input size caps in ci mode, where the seeds would let inputs grow past what the target needs:
# json_readers' seeds hold documents nested 200,000 deep (1.2 MB), and inputs that large
# took 44 ms each, so the 30 s cap stopped it at ~730 of its 1,500 inputs. At 8 KiB it runs
# all 1,500 and reaches as much coverage (6,167 edges against 6,144 at 64 KiB); the deep
# documents themselves are replayed whole by test_fuzz_regressions in every build.
declare -A ci_max_len=([json_readers]=8192)
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
corpus=${TRAINSCOPE_CORPUS:-$project/../shared/corpus}
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  # Every target BUILD has (tests/fuzz/CMakeLists.txt builds one per registered body), so a new
  # target is run without a second list to keep (a hand-kept one lost two in a merge).
  for exe in "$build"/tests/fuzz/fuzz_*; do
    if [[ -f $exe && -x $exe ]]; then targets+=("${exe##*/fuzz_}"); fi
  done
  [[ ${#targets[@]} -gt 0 ]] || { echo "run_fuzz: no fuzz target in $build/tests/fuzz" >&2; exit 2; }
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
cli=$build/app/trainscope-cli

# One target: its corpus folder made afresh, then libFuzzer on it; its log in BUILD/fuzz/<t>.log.
run_target() {
  local t=$1 exe=$build/tests/fuzz/fuzz_$1 work=$build/fuzz/corpus/$1
  local artifacts=$build/fuzz/artifacts/$1 log=$build/fuzz/$1.log line src seed dir
  rm -rf "$work"
  mkdir -p "$work" "$artifacts"
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line || $line == \#* ]] && continue
    if [[ $line == project:* ]]; then src=$project/${line#project:}; else src=$corpus/$line; fi
    if [[ ! -f $src ]]; then echo "run_fuzz: seed $src is missing (skipped)"; continue; fi
    if [[ $t == session_open ]]; then  # a session made of the trace
      seed=$work/$(basename "$src").tscope
      "$cli" import "$src" -o "$seed" > /dev/null
      sqlite3 "$seed" "PRAGMA journal_mode=DELETE" > /dev/null
    else
      cp "$src" "$work/"
    fi
  done < "$here/seeds/$t.txt"
  for dir in "$here/seeds/$t" "$here/regressions/$t"; do
    if [[ -d $dir ]]; then find "$dir" -type f ! -name README.md -exec cp {} "$work/" \;; fi
  done
  local start budget=(-max_total_time="$seconds")
  start=$(date +%s)
  if [[ $seconds == ci ]]; then
    budget=(-runs="${ci_runs[$t]}" -max_total_time=30)
    if [[ -n ${ci_max_len[$t]:-} ]]; then budget+=(-max_len="${ci_max_len[$t]}"); fi
  fi
  if ! "$exe" "${budget[@]}" -seed=1 -timeout=30 -rss_limit_mb=3072 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "run_fuzz: fuzz_$t found a problem; the input is in $artifacts/ (log: $log)" >&2
    return 1
  fi
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  echo "run_fuzz: fuzz_$t: ${runs:-?} inputs in $(($(date +%s) - start)) s, nothing found"
}

for t in "${targets[@]}"; do
  [[ -x $build/tests/fuzz/fuzz_$t ]] || { echo "run_fuzz: $build/tests/fuzz/fuzz_$t is missing (configure with -DTRAINSCOPE_FUZZ=ON)" >&2; exit 2; }
  if [[ $seconds == ci && -z ${ci_runs[$t]:-} ]]; then
    echo "run_fuzz: $t has no fixed-input count in ci_runs" >&2
    exit 2
  fi
done
jobs_max=${FUZZ_JOBS:-$(nproc)}
started=$(date +%s)
declare -A pids=()
failed=0
for t in "${targets[@]}"; do
  while [[ ${#pids[@]} -ge $jobs_max ]]; do
    wait -n -p done_pid || failed=1
    unset "pids[$done_pid]"
    [[ $failed -eq 0 ]] || break 2
  done
  run_target "$t" &
  pids[$!]=$t
done
while [[ $failed -eq 0 && ${#pids[@]} -gt 0 ]]; do
  wait -n -p done_pid || failed=1
  unset "pids[$done_pid]"
done
if [[ $failed -ne 0 ]]; then
  # the first finding stops the run: the targets still running are stopped
  for pid in "${!pids[@]}"; do pkill -TERM -P "$pid" 2> /dev/null || true; kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  exit 1
fi
echo "run_fuzz: ${#targets[@]} targets, $(($(date +%s) - started)) s ($jobs_max at a time)"
