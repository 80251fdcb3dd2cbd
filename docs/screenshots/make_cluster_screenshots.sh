#!/bin/sh
# Makes the screenshots of docs/DISTRIBUTED.md ("Cluster view"): a real 4-rank PyTorch job on
# gloo (Debian's python3-torch, tests/run/python/scripts/ddp_gloo.py) launched by
# `trainscope-cli launch --nproc 4 --profile`, rank 2 made slow by a 30 ms sleep in its data
# loading, shown in the Cluster view and in the timeline of rank 2's slowest step. Run from
# the repository root after building trainscope and trainscope-cli in build/.
set -eu
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
s="$work/ddp.tscope"
build/app/trainscope-cli launch -o "$s" --nproc 4 --profile --profile-schedule 0,1,8,1 --quiet -- \
    /usr/bin/python3 tests/run/python/scripts/ddp_gloo.py --steps 14 --slow-rank 2 --sleep-ms 30 \
    >/dev/null
build/app/trainscope-cli cluster "$s"
xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope "$s" --screenshot \
    "$out/cluster_view.png" --view cluster --size 1600x950
