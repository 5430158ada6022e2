#!/usr/bin/env bash
# Builds .device-py/ (or $AICC_PYTHON_PAYLOAD) for the Python package's GPU tests
# (python/tests, markers gpu and torch2) on the GPU machine, whose python3 is CPython 3.12
# with torch 2.11 and numpy 2 and which has no LLVM/MLIR (docs/python.md, "GPU tests"):
#   .device-py/python/aicc/    the runtime-only package (AICC_ENABLE_COMPILER=OFF) built for
#                              CPython 3.12 against PyPI's pybind11 (numpy 2 support)
#   .device-py/lib/            libprotobuf / libonnx_proto, which its TensorProto reader needs
#   .device-py/bundles/        the test models compiled here for TARGET (NAME.TARGET.aicc)
# Run here, after the build; then on the GPU machine, from the repo root, with .device-py
# carried:
#   LD_LIBRARY_PATH=.device-py/lib PYTHONPATH=.device-py/python python3 -m pytest -q -rs \
#       -p no:cacheprovider python/tests -m "gpu or torch2"
# Usage: scripts/make-python-gpu-payload.sh [BUILD_DIR] [TARGET]   (default build, sm_90a)
# $AICC_GPU_PYTHON: a CPython 3.12 with headers (default: pyenv's 3.12 where present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
target=${2:-sm_90a}
out=${AICC_PYTHON_PAYLOAD:-$root/.device-py}
py=${AICC_GPU_PYTHON:-$(ls -d /root/.pyenv/versions/3.12*/bin/python3 2>/dev/null | tail -1)}
[ -x "$py" ] || { echo "make-python-gpu-payload: set AICC_GPU_PYTHON to a CPython 3.12"; exit 2; }
rtbuild=$root/build-py312-runtime
if [ ! -x "$rtbuild/venv/bin/python" ]; then
  "$py" -m venv "$rtbuild/venv"
  "$rtbuild/venv/bin/pip" install --quiet --disable-pip-version-check "pybind11>=2.12"
fi
if [ ! -f "$rtbuild/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$rtbuild" -DCMAKE_BUILD_TYPE=Release -DAICC_ENABLE_COMPILER=OFF \
    -DAICC_ENABLE_TESTS=OFF -DPython_EXECUTABLE="$rtbuild/venv/bin/python"
fi
ninja -C "$rtbuild" _aicc
rm -rf "$out"; mkdir -p "$out/python" "$out/lib" "$out/bundles"
cp -r "$rtbuild/python/aicc" "$out/python/"
rm -rf "$out/python/aicc/__pycache__"
for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"; done
"$build/bin/aicc-compile" "$root/models/mlp/model.onnx" --target="$target" \
  -o "$out/bundles/mlp.$target.aicc"
"$build/bin/aicc-compile" "$root/models/torch/convnet_dynbatch_opset17/model.onnx" \
  --target="$target" --dim batch=1..8 -o "$out/bundles/convnet_dynbatch.$target.aicc"
du -sh "$out"
