#!/bin/bash
# Packs what bench/gpu_check.sh needs on a GPU machine that has CUDA, Python and PyTorch but
# none of the project's Debian libraries and no network (docs/GPU.md, "Checking on hardware"):
#   bench/gpu_bundle.sh [BUILD_DIR]        (default: build; run from anywhere in the checkout)
# writes <checkout>/.dev/ (ignored by git through info/exclude): bundle.tar.xz with
# trainscope-cli, the device test binaries (test_engine, test_gpu, test_cupti), the two GPU
# libraries (libtrainscope_cuda.so, libtrainscope_cupti.so) and every library they link that
# is not glibc's, the C++ runtime's or CUDA's (the GPU machine's own serve those), plus
# fallbacks of libcudart/libcupti; Fashion-MNIST's 10,000-sample split (the carry limit keeps
# the 60,000 out: the check trains and tests on it); and COMMIT, the commit it was built from
# (the check's scripts come from the checkout it runs in and warn when the two differ).
# The whole must stay under the 64 MiB a run may carry; it prints its size.
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
D=$ROOT/.dev
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.dev/' "$EXCLUDE" 2>/dev/null || echo '/.dev/' >> "$EXCLUDE"

STAGE=$(mktemp -d /tmp/tsbundle.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib/trainscope" "$STAGE/cudafallback"
need() { [ -f "$1" ] || { echo "gpu_bundle: missing $1 (build with the CUDA toolkit first: make build)" >&2; exit 1; }; }
need "$BUILD/app/trainscope-cli"
cp "$BUILD/app/trainscope-cli" "$STAGE/bin/"
for t in test_engine test_gpu test_cupti; do
    need "$BUILD/tests/$t"
    cp "$BUILD/tests/$t" "$STAGE/bin/"
done
for l in libtrainscope_cuda.so libtrainscope_cupti.so; do
    need "$BUILD/lib/trainscope/$l"
    cp "$BUILD/lib/trainscope/$l" "$STAGE/lib/trainscope/"
done
# Every linked library but the ones every Linux GPU machine has (glibc's, the C++ runtime's)
# and CUDA's own (the machine's toolkit or PyTorch's wheels provide them).
for f in "$STAGE"/bin/* "$STAGE"/lib/trainscope/*; do ldd "$f"; done | awk '/=> \//{print $3}' | sort -u |
    grep -v '/libtrainscope_' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|libnsl|libanl|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda|libcublas|libcublasLt|libcudart|libcupti|libnvrtc|libnvJitLink)\.so' |
    while read -r so; do cp -L "$so" "$STAGE/lib/"; done
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
for so in "$CUDA_HOME"/lib64/libcudart.so.13 "$CUDA_HOME"/extras/CUPTI/lib64/libcupti.so.13 "$CUDA_HOME"/lib64/libcupti.so.13; do
    [ -f "$so" ] && cp -L "$so" "$STAGE/cudafallback/"
done
strip --strip-debug "$STAGE"/bin/* "$STAGE"/lib/*.so* "$STAGE"/lib/trainscope/*.so 2>/dev/null || true

rm -rf "$D"
mkdir -p "$D/fm"
tar -C "$STAGE" -cJf "$D/bundle.tar.xz" .
FM=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
for f in t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
    [ -f "$FM/$f" ] || { echo "gpu_bundle: $FM/$f missing (Debian's dataset-fashion-mnist)" >&2; exit 1; }
    cp "$FM/$f" "$D/fm/"
done
git -C "$ROOT" log -1 --format='%H %s' > "$D/COMMIT"
echo "bundle of $(cut -c1-12 "$D/COMMIT") in $D:"
du -sh "$D" "$D"/* | sed 's/^/  /'
SIZE=$(du -sm "$D" | cut -f1)
if [ "$SIZE" -ge 60 ]; then echo "gpu_bundle: $SIZE MiB is too close to the 64 MiB carry limit" >&2; exit 1; fi
