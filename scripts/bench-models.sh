#!/usr/bin/env bash
# Host side of the whole-model benchmark (issue 16). MODELS_DIR holds what
# `python3 bench/models.py export OUT` wrote on the GPU machine (OUT/<name>/model.onnx,
# input_0.pb, exporter.txt). Compiles each model for TARGET (default sm_90a) into
# .device/models/<name>/model.aicc (a failed compile leaves compile.log) next to aicc-run and
# its two shared libraries. Then on the GPU machine, from the repo root, carrying .device:
#   python3 bench/models.py bench [NAME...]
# AICC_BENCH_VARIANTS='NAME:FLAGS;NAME:FLAGS' also compiles every model with each variant's
# aicc-compile FLAGS into .device/models/<model>@NAME/ (bench/models.py times torch once per
# model and aicc once per bundle), e.g. AICC_BENCH_VARIANTS='mv:--matvec-max-rows=16'.
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
compile_one() { # SRC_DIR OUT_NAME FLAGS...
  local d=$1 name=$2 o=$out/models/$2
  shift 2
  mkdir -p "$o"
  cp "$d/input_0.pb" "$o/"
  [ -f "$d/exporter.txt" ] && cp "$d/exporter.txt" "$o/"
  if "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" "$@" -o "$o/model.aicc" 2>"$o/compile.log"; then
    "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" "$@" --memory-report -o "$o/memory.txt" || true
    echo "compiled $name: $(grep -c '^launch' <(strings "$o/model.aicc")) launches"
  else
    echo "compile failed: $name: $(grep -m1 error "$o/compile.log" | head -c 300)"
  fi
}
IFS=';' read -r -a variants <<< "${AICC_BENCH_VARIANTS:-}"
for d in "$models"/*/; do
  name=$(basename "$d")
  compile_one "$d" "$name"
  for v in "${variants[@]}"; do
    [ -n "$v" ] || continue
    read -r -a flags <<< "${v#*:}"
    compile_one "$d" "$name@${v%%:*}" "${flags[@]}"
  done
done
du -sh "$out"
