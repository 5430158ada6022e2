#!/usr/bin/env bash
# Host side of the tensor-core GEMM benchmark and GPU numerics check (issue 6): makes the models
# (bench/gemm_models.py: every operand a graph input, so no weights and no .pb files travel; the
# GPU side draws the operands), compiles each for TARGET (default sm_90a) into
# .device/gemm/<case>/model.aicc next to aicc-run and its two shared libraries, copies
# cases.json (the specs bench/gemm.py reads), and packs .gpu/gemm.tgz. A case that does not
# compile keeps its compile.log there instead of a bundle (bench/gemm.py reports it and goes on).
# On the GPU machine, from the repo root:
#   tar xzf .gpu/gemm.tgz && python3 bench/gemm.py [REGEX...]
#   python3 bench/gemm.py --sass mm4096_f16      (HGMMA count of one case's cubin)
# Usage: scripts/bench-gemm.sh [BUILD_DIR] [TARGET] [CASE_REGEX]
# AICC_BENCH_DEST=DIR puts .device/ and .gpu/ under DIR instead of the repo root (the CPU dry
# run, test/Bench/gemm-dry-run-cpu.sh, uses it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
target=${2:-sm_90a}
filter=${3:-}
dest=${AICC_BENCH_DEST:-$root}
out=$dest/.device
rm -rf "$out/gemm"; mkdir -p "$out/bin" "$out/lib" "$out/gemm" "$dest/.gpu"
cp "$build/bin/aicc-run" "$out/bin/"
for l in libonnx_proto.so.1 libprotobuf.so.32; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"
done
/usr/bin/python3 "$root/bench/gemm_models.py" "$out/gemm" --filter "$filter"
failed=0
for d in "$out"/gemm/*/; do
  name=$(basename "$d")
  # Per-case compile flags (cases.json "compile_flags", e.g. --allow-tf32).
  flags=$(/usr/bin/python3 -c "import json,sys; c=[x for x in json.load(open('$out/gemm/cases.json')) if x['name']=='$name']; print(' '.join(c[0].get('compile_flags', [])) if c else '')")
  if ! "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" $flags -o "$d/model.aicc" \
       > "$d/compile.log" 2>&1; then
    echo "compile FAILED: $name: $(head -c 300 "$d/compile.log")"
    rm -f "$d/model.aicc"
    failed=$((failed + 1))
  fi
done
n=$(ls "$out"/gemm/*/model.aicc 2>/dev/null | wc -l)
echo "$n bundle(s) for $target, $failed compile failure(s)"
tar czf "$dest/.gpu/gemm.tgz" -C "$dest" .device/bin .device/lib .device/gemm
du -sh "$dest/.gpu/gemm.tgz"
