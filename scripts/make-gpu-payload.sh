#!/usr/bin/env bash
# Builds .device/ (or $AICC_PAYLOAD): aicc-run (+ the two shared libraries it needs), and every
# conformance case of scripts/conformance-cases.txt, the bundled MLP and the committed PyTorch
# exports (models/torch/*) compiled for a GPU target, with their test data. Run here (no GPU
# needed); then `scripts/gpu-check.sh` (AICC_DEVICE_ROOT=the same dir) runs it on the GPU
# machine. Extra aicc-compile flags: $AICC_PAYLOAD_FLAGS.
# Usage: scripts/make-gpu-payload.sh [BUILD_DIR] [TARGET]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
target=${2:-sm_90}
data=/usr/share/libonnx-testdata/data
out=${AICC_PAYLOAD:-$root/.device}
read -r -a flags <<< "${AICC_PAYLOAD_FLAGS:-}"
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib" "$out/cases"
cp "$build/bin/aicc-run" "$out/bin/"
for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"; done
# The runtime's unit tests and their test kernels (gpu-check.sh runs the CUDA ones).
if [ -f "$build/unittests/Runtime/add_kernel.sm_90.cubin" ]; then
  mkdir -p "$out/testdata"
  cp "$build/bin/AICCRuntimeTests" "$out/bin/"
  cp "$build"/unittests/Runtime/{add_kernel,tma_copy_kernel}.sm_90.cubin \
     "$build/lib/aicc_test_add_kernel.so" "$out/testdata/"
fi
add_case() { # name model.onnx testdir...
  local name=$1 model=$2; shift 2
  compile_case "$name" "$model"
  for d in "$@"; do cp -r "$d" "$out/cases/$name/"; done
}
compile_case() { # name model [aicc-compile flags...]
  local name=$1 model=$2; shift 2
  mkdir -p "$out/cases/$name"
  if ! "$build/bin/aicc-compile" "$model" --target="$target" "${flags[@]}" "$@" -o "$out/cases/$name/model.aicc" 2>"$out/cases/$name/compile.log"; then
    echo "compile failed: $name"; return 0
  fi
}
while read -r pat; do
  case "$pat" in ''|'#'*) continue;; esac
  for dir in $data/$pat; do
    [ -f "$dir/model.onnx" ] || continue
    add_case "$(echo "${dir#$data/}" | tr / _)" "$dir/model.onnx" "$dir"/test_data_set_*
  done
done < "$root/scripts/conformance-cases.txt"
if [ -f "$root/models/mlp/model.onnx" ]; then
  add_case mlp "$root/models/mlp/model.onnx" "$root/models/mlp"/test_data_set_*
fi
for m in "$root"/models/torch/*/model.onnx; do
  d=$(dirname "$m") n=torch_$(basename "$(dirname "$m")")
  # The exports with a dynamic batch as one bundle for batch 1 to 8 (their data sets are at
  # 1, 3 and 8; docs/symbolic-shapes.md); the ones aicc refuses a range for are left out.
  case "$d" in
    *_dynseq_*|*bert_encoder_dynbatch_*) continue;;
    *_dynbatch_*) compile_case "$n" "$m" --dim batch=1..8;;
    *) compile_case "$n" "$m";;
  esac
  for t in "$d"/test_data_set_*; do cp -r "$t" "$out/cases/$n/"; done
done
# The tensor-core kernel templates on Hopper (wgmma, TMA loads and stores, tensor maps): no
# test data (aicc-run feeds pseudo-random inputs); they are there for compute-sanitizer.
if [ "$target" = sm_90a ]; then
  in=$root/test/Tools/Inputs
  compile_case kernel_matmul_f16_bias_relu_tma "$in/matmul-f16-bias-relu.mlir"
  compile_case kernel_matmul_f16_bias_relu_regs "$in/matmul-f16-bias-relu.mlir" --wgmma-tma-store=false
  compile_case kernel_matmul_f16_bias_relu_256 "$in/matmul-f16-bias-relu.mlir" --matmul-config=128x256x64x3
  compile_case kernel_matmul_f16_bias_gelu_tma "$in/matmul-f16-bias-gelu.mlir"
  compile_case kernel_conv_nchw40_f16_tma "$in/conv-nchw40-f16.mlir" --matmul-config=128x128x64x4
fi
du -sh "$out"
