#!/usr/bin/env bash
# Installs TrainScope's build and test dependencies from Debian 12 packages only.
# Idempotent: when everything is installed it calls no apt command at all.
# CUDA/CUPTI are used from /usr/local/cuda when present and are never installed here.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-qpa-plugins libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libsqlite3-dev sqlite3
  libprotobuf-dev protobuf-compiler
  # ONNX export: ONNX's own onnx.proto (compiled with protoc; libonnx is not linked), and
  # the tests' checker with full shape inference (docs/ENGINE.md, "ONNX export")
  libonnx-dev python3-onnx
  libhdf5-dev hdf5-tools
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev
  rapidjson-dev
  libopenblas-dev
  # the engine's convolutions through oneDNN's JIT kernels (optional: TRAINSCOPE_WITH_DNNL)
  libdnnl-dev
  # data-parallel training's collectives (docs/DISTRIBUTED.md)
  libgloo-dev
  xvfb xauth fonts-dejavu-core fonts-wqy-zenhei
  dataset-fashion-mnist
  python3 python3-numpy python3-h5py
  # a real PyTorch (1.13, CPU, gloo) for the command-run tests: scripts, hooks, 2-rank DDP
  python3-torch
  # the .deb and its test (make package, make test): dpkg-shlibdeps and CPack's use of `file`,
  # man pages from --help, the freedesktop validators, the shared MIME database the test copies
  dpkg-dev file help2man desktop-file-utils appstream shared-mime-info
  # the sanitizer build and the fuzz targets (make test, make fuzz): clang, its sanitizer and
  # libFuzzer runtimes, llvm-symbolizer for readable reports
  clang libclang-rt-14-dev llvm
  # the format check (ctest format.clang_format, `make format`): this version only, so that
  # every machine formats alike
  clang-format-14
)
# Peers for benchmarks only (large; installed by `make bench`, not by make run/test).
if [[ "${1:-}" == "--bench" ]]; then
  PACKAGES+=(hyperfine)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${#missing[@]} missing Debian packages: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
