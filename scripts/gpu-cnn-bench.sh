#!/usr/bin/env bash
# Issue 18's CNN benchmark in one GPU call, everything on the GPU machine: export, compile,
# time. ResNet-50's f16 weights (51 MB per batch size) are past what a call carries, so the
# models are exported and compiled there, not here.
#
#   AICC_BIN_DIR=DIR scripts/gpu-cnn-bench.sh [all|layers|models]     (on the GPU machine)
#
# AICC_BIN_DIR holds aicc-compile and aicc-run (a payload unpacked there; LD_LIBRARY_PATH set
# by the caller so that both find their libraries); python3 with torch 2.11, torchvision,
# onnx, onnxscript and numpy; ptxas found by aicc-compile (CUDA_HOME, /usr/local/cuda or PATH).
#  1. exports into a work dir (WORK, default /tmp/aicc-cnn, emptied first; never the repo),
#     all at once:
#     `python3 bench/models.py export WORK/models NAME` for each of CNN_MODELS (default
#     resnet18_f16_b1 resnet18_f16_b32 resnet50_f16_b1 resnet50_f16_b32; dynamo exporter, fixed
#     seeds) and `python3 bench/conv_layers.py export WORK/layers` (the 29 distinct conv
#     layers of ResNet-18 / ResNet-50 and the 4-channel stem, batch 1 and 32; LAYER_BATCHES,
#     default 1,32);
#  2. aicc-compile --target=TARGET (default sm_90a) every model and layer, JOBS (default nproc)
#     at a time (xargs -P), largest first; WORK/<dir>/<name>/model.aicc or compile.log;
#     $OUT/compile.tsv: name, exit status, seconds, launches (kernels) per bundle;
#  3. `bench/conv_layers.py bench` (aicc against cuDNN per layer shape; $OUT/conv_layers.json,
#     conv_layers.md), then `bench/models.py bench` over the models ($OUT/models.json,
#     models.md; torch eager, a CUDA graph of eager and torch.compile reduce-overhead, the
#     issue's anchors, against aicc, every output checked against torch).
# REUSE=1 skips 1 and 2 and times the bundles an earlier run left in WORK (a second call on
# the same warm machine, e.g. `REUSE=1 scripts/gpu-cnn-bench.sh models`).
# The argument picks the benches (default all). Everything printed also goes to
# $OUT/gpu-cnn-bench.log. Knobs passed through: AICC_BENCH_ITERS (default 200),
# AICC_BENCH_COMPILE_MODES (here default "reduce-overhead"; "default,reduce-overhead" adds
# torch.compile's default mode), AICC_CONV_NOGRAPH=1 (aicc-run without CUDA graphs too).
# A smoke run without a GPU (the layers only; bench/models.py bench needs CUDA):
#   AICC_BIN_DIR=build/bin TARGET=cpu AICC_BENCH_DEVICE=cpu AICC_BENCH_ITERS=2 \
#   LAYER_BATCHES=1 LAYER_EXPORT_FLAGS=--small scripts/gpu-cnn-bench.sh layers
# Exit 1 when a compile or a bench failed (the benches run all the same).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
: "${AICC_BIN_DIR:?AICC_BIN_DIR: the folder holding aicc-compile and aicc-run}"
OUT=${OUT:-/tmp/gpu-cnn-out}
export OUT AICC_BIN_DIR
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-cnn-bench.log") 2>&1
target=${TARGET:-sm_90a}
jobs=${JOBS:-$(nproc)}
py=${PYTHON:-python3}
models=${CNN_MODELS:-resnet18_f16_b1 resnet18_f16_b32 resnet50_f16_b1 resnet50_f16_b32}
work=${WORK:-/tmp/aicc-cnn}
# The issue's anchors are reduce-overhead and a replayed CUDA graph of eager: the default
# torch.compile (another ~30 s of inductor per model) only when asked for.
export AICC_BENCH_COMPILE_MODES=${AICC_BENCH_COMPILE_MODES:-reduce-overhead}
if [ "${REUSE:-0}" != 1 ]; then rm -rf "$work"; fi
mkdir -p "$work/models" "$work/layers"
rc=0
t0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - t0 )) s: $*"; }
stamp "aicc-cnn-bench: $what, target $target, $jobs jobs, work $work, $($py -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "(no GPU)")')"
"$AICC_BIN_DIR/aicc-compile" --version | head -3

if [ "${REUSE:-0}" != 1 ]; then
# 1. Exports, in parallel (the dynamo exports take a few seconds each; the layers need numpy
#    and onnx only).
pids=()
if [ "$what" != models ]; then
  # shellcheck disable=SC2086
  $py "$root/bench/conv_layers.py" export "$work/layers" --batches "${LAYER_BATCHES:-1,32}" \
    ${LAYER_EXPORT_FLAGS:-} > "$work/layers-export.log" 2>&1 & pids+=($!)
fi
if [ "$what" != layers ]; then
  for m in $models; do
    $py "$root/bench/models.py" export "$work/models" "$m" > "$work/export-$m.log" 2>&1 & pids+=($!)
  done
fi
for p in "${pids[@]}"; do wait "$p" || rc=1; done
tail -n 2 "$work"/*export*.log
stamp "exported"

# 2. Compiles, largest model first (xargs hands out the list in order).
compile_one() { # DIR: DIR/model.onnx -> DIR/model.aicc; prints name, status, seconds, launches
  local d=$1 s e st n=-
  s=$(date +%s%N)
  "$AICC_BIN_DIR/aicc-compile" "$d/model.onnx" --target="$target" -o "$d/model.aicc" \
    > "$d/compile.log" 2>&1
  st=$?
  e=$(date +%s%N)
  # launch records of the manifest (text at the bundle's start: docs/bundle-format.md)
  [ "$st" = 0 ] && n=$(grep -a -c '^launch ' "$d/model.aicc")
  printf '%s\t%s\t%s\t%s\n' "$(basename "$d")" "$st" "$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')" "$n"
  [ "$st" = 0 ] || { echo "compile failed: $(basename "$d"): $(grep -m1 -i error "$d/compile.log" | head -c 300)" >&2; }
}
export -f compile_one
export target
{
  # the zoo's order reversed: ResNet-50 at batch 32 first
  [ "$what" != layers ] && printf "$work/models/%s\n" $models | tac
  # layers: batch 32 before batch 1
  [ "$what" != models ] && ls -d "$work"/layers/*_b32 "$work"/layers/*_b1 2>/dev/null
} | grep . | xargs -P "$jobs" -I{} bash -c 'compile_one {}' > "$OUT/compile.tsv"
awk -F'\t' '$2 != 0 { bad++ } END { printf "%d bundles, %d failed\n", NR, bad }' "$OUT/compile.tsv"
awk -F'\t' '$2 != 0 { bad = 1 } END { exit bad }' "$OUT/compile.tsv" || rc=1
echo "models (name, status, seconds, kernels): $(grep '^resnet' "$OUT/compile.tsv" | tr '\t' ' ' | paste -sd';')"
echo "layers with more than 1 kernel: $(awk -F'\t' '$1 ~ /^c[0-9]/ && $4 != 1' "$OUT/compile.tsv" | tr '\t' ' ' | paste -sd';')"
stamp "compiled"
fi

# 3. Timings, one bench at a time (nothing else runs on the machine meanwhile).
if [ "$what" != models ]; then
  $py "$root/bench/conv_layers.py" bench "$work/layers" || rc=1
  stamp "conv layers timed"
fi
if [ "$what" != layers ]; then
  # shellcheck disable=SC2086
  AICC_BENCH_MODELS_DIR=$work/models $py "$root/bench/models.py" bench $models \
    | tee "$work/models-bench.log" || rc=1
  sed -n '/^| model |/,$p' "$work/models-bench.log" > "$OUT/models.md"
  stamp "models timed"
fi
ls -la "$OUT"
exit $rc
