#!/usr/bin/env bash
# CUDA graphs on and off give the same results (issue 16). Two halves:
#   scripts/gpu-graphs-check.sh --make [BUILD_DIR]   (here) builds .device/: aicc-run, the
#       runtime unit tests and their test kernels, and the committed models (models/mlp,
#       models/torch/*_opset17) compiled for sm_90a and sm_90 with their test data
#   scripts/gpu-graphs-check.sh                       (GPU machine, repo root, carrying .device)
#       runs the runtime's CUDA tests with AICC_CUDA_GRAPHS=1 and 0, and every model bundle
#       against its test data with graphs and with --no-cuda-graphs (rtol 1e-3, atol 1e-4),
#       and compares the two outputs byte for byte. One line per check; exit 1 on any failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/.device
if [ "${1:-}" = --make ]; then
  set -e
  build=${2:-$root/build}
  rm -rf "$dev"; mkdir -p "$dev/bin" "$dev/lib" "$dev/testdata" "$dev/cases"
  cp "$build/bin/aicc-run" "$build/bin/AICCRuntimeTests" "$dev/bin/"
  for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$dev/lib/"; done
  cp "$build"/unittests/Runtime/{add_kernel,tma_copy_kernel}.sm_90.cubin \
     "$build/lib/aicc_test_add_kernel.so" "$dev/testdata/"
  for d in "$root/models/mlp" "$root"/models/torch/*_opset17; do
    case "$d" in *_dyn*) continue;; esac # one shape each here (docs/symbolic-shapes.md)
    n=$(basename "$d"); mkdir -p "$dev/cases/$n"; cp -r "$d/test_data_set_0" "$dev/cases/$n/"
    for t in sm_90a sm_90; do "$build/bin/aicc-compile" "$d/model.onnx" --target=$t -o "$dev/cases/$n/$t.aicc"; done
  done
  du -sh "$dev"
  exit 0
fi
export LD_LIBRARY_PATH=$dev/lib
export AICC_TEST_CUBIN=$dev/testdata/add_kernel.sm_90.cubin
export AICC_TEST_TMA_CUBIN=$dev/testdata/tma_copy_kernel.sm_90.cubin
export AICC_TEST_KERNEL_SO=$dev/testdata/aicc_test_add_kernel.so
tmp=$(mktemp -d)
fail=0
for g in 1 0; do
  if AICC_CUDA_GRAPHS=$g "$dev/bin/AICCRuntimeTests" --gtest_filter='CUDA*' --gtest_brief=1 >"$tmp/rt.log" 2>&1; then
    echo "PASS runtime CUDA tests, AICC_CUDA_GRAPHS=$g"
  else
    echo "FAIL runtime CUDA tests, AICC_CUDA_GRAPHS=$g"; tail -20 "$tmp/rt.log"; fail=1
  fi
done
for c in "$dev"/cases/*/; do
  n=$(basename "$c")
  for t in sm_90a sm_90; do
    for g in on off; do
      flag=(); [ $g = off ] && flag=(--no-cuda-graphs)
      rm -rf "$tmp/$g"
      if "$dev/bin/aicc-run" "$c/$t.aicc" --device=cuda "${flag[@]}" --test-data-set "$c/test_data_set_0" \
           --rtol 1e-3 --atol 1e-4 --output-dir "$tmp/$g" >"$tmp/log" 2>&1; then
        echo "PASS $n $t graphs $g"
      else
        echo "FAIL $n $t graphs $g"; tail -5 "$tmp/log"; fail=1
      fi
    done
    if cmp -s "$tmp/on/output_0.pb" "$tmp/off/output_0.pb"; then
      echo "SAME $n $t: graphs on and off, byte for byte"
    else
      echo "DIFFER $n $t: graphs on and off"; fail=1
    fi
  done
done
rm -rf "$tmp"
exit $fail
