#!/bin/sh
# Makes the screenshots of docs/PROFILING.md: a profiled MLP and a profiled LeNet-5 run on
# Fashion-MNIST (the first 20 steps, the default schedule), shown in the Steps, Memory,
# Advice and timeline views (the timeline also zoomed to one step). Run from the repository
# root after building trainscope and trainscope-cli in build/.
# OPENBLAS_NUM_THREADS=1 keeps the step times steady on a shared machine.
set -eu
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
shot() {  # shot NAME VIEW SESSION [extra args]
    name=$1 view=$2 session=$3
    shift 3
    xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope --screenshot "$out/$name.png" \
        --view "$view" --size 1600x950 "$@" "$session"
}
for model in mlp lenet5; do
    s="$work/$model.tscope"
    build/app/trainscope-cli train --model "$model" --dataset fashion-mnist --limit-steps 40 \
        --eval-limit 1000 --profile -o "$s" >/dev/null
    shot "profile_${model}_steps" steps "$s"
    shot "profile_${model}_memory" memory "$s"
    shot "profile_${model}_advice" advice "$s"
    shot "profile_${model}_timeline" timeline "$s"
    # One steady step, zoomed: its phases and ops.
    range=$(build/app/trainscope-cli query "$s" "SELECT s.ts || ',' || (s.ts + s.dur) FROM slices s \
        JOIN strings n ON n.id = s.name_id WHERE n.str = 'ProfilerStep#10'" --json |
        sed -n 's/.*"\([0-9]*,[0-9]*\)".*/\1/p')
    shot "profile_${model}_timeline_step" timeline "$s" --time-range "$range"
done
