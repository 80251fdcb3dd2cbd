#!/bin/sh
# Makes the screenshots of the device analyses (docs/PROFILING.md, "GPU and NPU traces"):
# the Kernel view and the GPU view on the real PyTorch 2.11 trace of a bf16 transformer block
# from an H200 (tests/data/torch211_h200), and the Kernel view on the real Ascend
# kernel_details.csv of the shared corpus. Run from the repository root after building
# trainscope and trainscope-cli in build/.
set -eu
out=docs/screenshots
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shot() {  # shot OUT.png ARGS...: the studio under Xvfb, 1600x950
    png=$1
    shift
    xvfb-run -a -s "-screen 0 1920x1080x24" build/app/trainscope --screenshot "$out/$png" \
        --size 1600x950 "$@"
}
build/app/trainscope-cli import -o "$work/h200.tscope" \
    tests/data/torch211_h200/transformer_bf16_h200.pt.trace.json.gz >/dev/null
shot kernel_view.png --view kernels "$work/h200.tscope"
shot gpu_view.png --view gpu "$work/h200.tscope"
corpus=${TRAINSCOPE_CORPUS:-../shared/corpus}
if [ -f "$corpus/real/ascend/kernel_details.csv" ]; then
    build/app/trainscope-cli import -o "$work/npu.tscope" "$corpus/real/ascend/kernel_details.csv" >/dev/null
    shot kernel_view_ascend.png --view kernels "$work/npu.tscope"
fi
