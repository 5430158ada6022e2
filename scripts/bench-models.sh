#!/usr/bin/env bash
# Host side of the whole-model benchmark (issue 16). MODELS_DIR holds what
# `python3 bench/models.py export OUT` wrote on the GPU machine (OUT/<name>/model.onnx,
# input_0.pb, exporter.txt). Compiles each model for TARGET (default sm_90a) into
# .device/models/<name>/model.aicc (a failed compile leaves compile.log) next to aicc-run and
# its two shared libraries. Then on the GPU machine, from the repo root, carrying .device:
#   python3 bench/models.py bench [NAME...]
# Usage: scripts/bench-models.sh MODELS_DIR [BUILD_DIR] [TARGET]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models=$1
build=${2:-$root/build}
target=${3:-sm_90a}
out=$root/.device
rm -rf "$out/models"; mkdir -p "$out/bin" "$out/lib" "$out/models"
cp "$build/bin/aicc-run" "$out/bin/"
for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"; done
for d in "$models"/*/; do
  name=$(basename "$d")
  o=$out/models/$name
  mkdir -p "$o"
  cp "$d/input_0.pb" "$o/"
  [ -f "$d/exporter.txt" ] && cp "$d/exporter.txt" "$o/"
  if "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" -o "$o/model.aicc" 2>"$o/compile.log"; then
    "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" --memory-report -o "$o/memory.txt" || true
    echo "compiled $name: $(grep -c '^launch' <(strings "$o/model.aicc")) launches"
  else
    echo "compile failed: $name: $(grep -m1 error "$o/compile.log" | head -c 300)"
  fi
done
du -sh "$out"
