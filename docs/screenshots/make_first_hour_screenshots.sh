#!/bin/sh
# Makes the screenshots of issue 26 ("the first hour in the studio"), each at 1280x720 and at
# 1920x1080 (first_hour/<name>_1280.png, first_hour/<name>_1920.png): a newcomer's first hour
# on real traces (Kineto's worker0 trace from the shared corpus, a PyTorch 2.11 trace from an
# H200 in tests/data) and real runs (Debian's PyTorch). Run from the repository root after
# building build/ (trainscope, trainscope-cli, the demo session). Settings and sessions go
# to a temporary home, never the user's.
#   SIZES="1280x720" ONLY="timeline_kineto" sh docs/screenshots/make_first_hour_screenshots.sh
set -eu
out=docs/screenshots/first_hour
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" OMP_NUM_THREADS=1
export TRAINSCOPE_DEMO_SESSION="$PWD/build/resources/demo.tscope"
corpus=../shared/corpus
kineto=$corpus/real/kineto/worker0.1623143089861.pt.trace.json.gz
h200=tests/data/torch211_h200/transformer_bf16_h200.pt.trace.json.gz
cli=build/app/trainscope-cli
SIZES=${SIZES:-"1280x720 1920x1080"}
ONLY=${ONLY:-}

shot() {  # shot NAME [trainscope args]: the whole window at each screen size
    name=$1
    shift
    if [ -n "$ONLY" ] && [ "$ONLY" != "$name" ]; then return 0; fi
    for size in $SIZES; do
        w=${size%x*}
        xvfb-run -a -s "-screen 0 ${size}x24" build/app/trainscope --screenshot \
            "$out/${name}_$w.png" --size "$size" --window "$@" || echo "failed: $name $size"
    done
}

# Sessions made from the traces, and a trace with real import problems.
$cli import "$kineto" -o "$work/kineto.tscope" >/dev/null
$cli import "$h200" -o "$work/h200.tscope" >/dev/null
/usr/bin/python3 - "$work/broken.json" <<'EOF'
import json, sys
ev = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "python3 train.py"}}]
for i in range(30):
    ev.append({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 5})
    if i % 7 == 0:
        ev.append({"ph": "E", "pid": 1, "tid": 2, "ts": 10 * i + 3})  # E without B
ev.append({"ph": "X", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 400})  # no dur
open(sys.argv[1], "w").write(json.dumps(ev, indent=0))
EOF
$cli import "$kineto" "$work/broken.json" -o "$work/problems.tscope" >/dev/null || true
# Unrelated clocks: Kineto's Unix time (2021) and the H200's time since boot.
$cli import "$kineto" "$h200" -o "$work/clocks.tscope" >/dev/null
cp "$work/clocks.tscope" "$work/clocks_aligned.tscope"
/usr/bin/python3 - "$work/clocks_aligned.tscope" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(ref,), = db.execute("SELECT min(ts_min) FROM sources WHERE id = 1")
for sid, lo in db.execute("SELECT id, ts_min FROM sources WHERE id != 1").fetchall():
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", ("timeline.align.%d" % sid,
               '{"mode":"first_event","offset_ns":%d}' % (ref - lo)))
db.commit()
EOF

# 1. The demo: a working copy made once, kept (and where it is kept in the status bar).
shot fh01_demo --view summary
# 2. Sessions the studio made, with their sizes.
shot fh02_manage_sessions --open-dialog sessions
# 3. An import cancelled: what it undid and what the session keeps.
/usr/bin/python3 - "$work/big.json.gz" <<'EOF'
import gzip, sys
with gzip.open(sys.argv[1], "wt", compresslevel=1) as f:
    f.write("[")
    for i in range(3000000):
        f.write('%s{"ph":"X","name":"op%d","pid":1,"tid":%d,"ts":%d,"dur":1}' % ("," if i else "", i % 50, i % 4, i))
    f.write("]")
EOF
cp "$work/kineto.tscope" "$work/cancel.tscope"
shot fh03_import_cancelled "$work/cancel.tscope" "$work/big.json.gz" --cancel-after 0.4
# 4-6, 8, 9. A real Kineto trace in the timeline: fits 1280x720, long args wrap in the
# details, names elided in the middle, µs on the ruler with the absolute time.
shot fh04_timeline_kineto "$work/kineto.tscope" --view timeline
shot fh05_details_call_stack "$work/kineto.tscope" --view timeline --find "aten::conv2d"
shot fh09_process_labels "$work/h200.tscope" --view timeline
# 7. The command palette.
shot fh07_palette "$work/kineto.tscope" --view timeline --open-dialog "palette:mem"
# 10. Import problems by reason and file position.
shot fh10_import_problems "$work/problems.tscope" --view problems
# 11. Unrelated clocks: said, then aligned (shown on each source's header).
shot fh11_clocks_unrelated "$work/clocks.tscope" --view timeline
shot fh11_clocks_aligned "$work/clocks_aligned.tscope" --view timeline
# 12. Op statistics: Self % (sums to 100) and Total % of range; the trace span left out.
shot fh12_op_stats "$work/h200.tscope" --view stats
# 13. Empty views say what to do (a session that holds one run and no trace).
$cli launch -o "$work/none.tscope" --name "hello" --no-hooks --quiet -- echo hello >/dev/null
shot fh13_empty_timeline "$work/none.tscope" --view timeline
shot fh13_empty_steps "$work/none.tscope" --view steps
# 14. A typo'd program: said plainly, with a button that removes the run.
shot fh14_junk_run "$work/none.tscope" --view training \
    --launch '{"program":"pythn3","args":["train.py","--epochs","2"],"python_hooks":false}'
# 15. The Cluster header and its tables; the Diff headline names the enclosing op.
s="$work/ddp.tscope"
$cli launch -o "$s" --nproc 4 --profile --profile-schedule 0,1,8,1 --quiet -- \
    /usr/bin/python3 tests/run/python/scripts/ddp_gloo.py --steps 14 --slow-rank 2 --sleep-ms 30 \
    >/dev/null 2>&1 || true
shot fh15_cluster "$s" --view cluster
/usr/bin/python3 tests/diff/make_kineto_pair.py from "$kineto" "$work/pair" --slow aten::cudnn_convolution >/dev/null
$cli import "$work/pair/base.json" "$work/pair/variant.json" -o "$work/pair.tscope" >/dev/null
shot fh15_diff "$work/pair.tscope" --view diff
# 16. A script's profiler cycles in its working folder: imported without --watch, each
# named by its cycle and placed when it was written (torch's exporter starts each at 0).
mkdir -p "$work/exp"
cat > "$work/exp/train.sh" <<'EOF'
mkdir -p log
for c in 1 2 3; do
  echo "cycle $c"
  printf '[{"ph":"X","name":"ProfilerStep#%d","pid":7,"tid":7,"ts":0,"dur":40000},{"ph":"X","name":"aten::mm","pid":7,"tid":7,"ts":5000,"dur":20000}]' $c > log/w.$c.pt.trace.json
  sleep 1
done
EOF
$cli launch -o "$work/cycles.tscope" --cwd "$work/exp" --quiet -- sh train.sh >/dev/null
shot fh16_profiler_cycles "$work/cycles.tscope" --view timeline
# 17. Every key on one sheet; search marks when zoomed out.
shot fh17_shortcuts "$work/kineto.tscope" --view timeline --open-dialog keys
shot fh17_search_marks "$work/kineto.tscope" --view timeline --search "aten::add_"
# 18. Counter tracks with a scale; Compare dumps: the first divergent link, A − B.
$cli import "$corpus/real/catapult/instance_counters.json" -o "$work/counters.tscope" >/dev/null
shot fh18_counters "$work/counters.tscope" --view timeline
shot fh18_compare "$corpus/generated/hdf5/dump_npu.h5" "$corpus/generated/hdf5/dump_gpu.h5" --view compare
# 19. The dark theme: window, timeline canvas and plots.
shot fh19_dark_timeline "$work/kineto.tscope" --view timeline --theme dark
shot fh19_dark_steps "$work/kineto.tscope" --view steps --theme dark
# 20. The SQL tab's table browser and example.
shot fh20_sql "$work/kineto.tscope" --view query --query "SELECT n.str AS name, count(*) AS calls, sum(dur) AS total_ns
FROM slices s JOIN strings n ON n.id = s.name_id
GROUP BY name ORDER BY total_ns DESC LIMIT 20"
echo "screenshots in $out"
