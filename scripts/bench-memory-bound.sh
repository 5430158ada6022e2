#!/usr/bin/env bash
# Host side of the memory-bound benchmark (issue 5): makes the models (bench/memory_bound_models.py),
# compiles each for TARGET (default sm_90) into .device/bench/<case>/model.aicc next to aicc-run and
# its two shared libraries, and packs .gpu/bench.tgz. On the GPU machine, from the repo root:
#   tar xzf .gpu/bench.tgz && python3 bench/memory_bound.py [CASE...]
# Usage: scripts/bench-memory-bound.sh [BUILD_DIR] [TARGET]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
target=${2:-sm_90}
out=$root/.device
rm -rf "$out/bench"; mkdir -p "$out/bin" "$out/lib" "$out/bench" "$root/.gpu"
cp "$build/bin/aicc-run" "$out/bin/"
for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"; done
models=$(mktemp -d)
/usr/bin/python3 "$root/bench/memory_bound_models.py" "$models"
for d in "$models"/*/; do
  name=$(basename "$d")
  mkdir -p "$out/bench/$name"
  "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" -o "$out/bench/$name/model.aicc"
done
rm -rf "$models"
tar czf "$root/.gpu/bench.tgz" -C "$root" .device/bin .device/lib .device/bench
du -sh "$root/.gpu/bench.tgz"
