#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over the payload of make-gpu-payload.sh or
# `aicc-onnx-test --payload .device`: every case through the cubin path (aicc-run --device=cuda
# --test-data-set ...), $JOBS cases at a time (default 8; the GPU is shared by the processes).
# Prints one PASS/FAIL line per case (sorted) and a total; full log in ${OUT:-/tmp}/gpu-check.log.
# SANITIZER=memcheck|racecheck|synccheck|initcheck (or a comma list, or `all`) runs every case
# under compute-sanitizer with each of those tools as well: a case passes only when its outputs
# match and the sanitizer reports no error (--error-exitcode; leak checking on for memcheck; a
# "Program hit CUDA_ERROR_..." API error fails the case too). When the payload holds
# bin/AICCRuntimeTests (make-gpu-payload.sh copies it with its test kernels), its CUDA tests run
# as well, plain and under the same tools.
# GRAPHS=both (the default) runs every passing case a second time with --no-cuda-graphs and
# compares the outputs of the two runs byte for byte (issue 16: a plan replayed as one CUDA
# graph computes exactly what one launch per kernel does), and the runtime tests with
# AICC_CUDA_GRAPHS=0 too; GRAPHS=on runs each once, with graphs.
set -uo pipefail
export GRAPHS=${GRAPHS:-both}
root=$(cd "$(dirname "$0")/.." && pwd)
export AICC_DEVICE_ROOT=${AICC_DEVICE_ROOT:-$root/.device}
export LD_LIBRARY_PATH=$AICC_DEVICE_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=${OUT:-/tmp}/gpu-check.log
tmp=$(mktemp -d)
export tmp
tools=${SANITIZER:-}
[ "$tools" = all ] && tools=memcheck,racecheck,synccheck,initcheck
export tools
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export sanitizer
if [ -n "$tools" ] && [ ! -x "$sanitizer" ]; then echo "gpu-check: no compute-sanitizer"; exit 2; fi
check_case() {
  c=$1; name=$(basename "$c")
  if [ ! -f "$c/model.aicc" ]; then
    echo "FAIL $name (no bundle: $(head -c 200 "$c/compile.log" 2>/dev/null))"; return
  fi
  # No test data (the kernel-template cases): aicc-run feeds pseudo-random inputs.
  args=(); for d in "$c"/test_data_set_*; do [ -d "$d" ] && args+=(--test-data-set "$d"); done
  # A run that hangs fails its case after CASE_TIMEOUT seconds (default 60) instead of
  # stalling the suite.
  run=(timeout "${CASE_TIMEOUT:-60}" "$AICC_DEVICE_ROOT/bin/aicc-run" "$c/model.aicc" --device=cuda "${args[@]}")
  if ! "${run[@]}" --output-dir "$tmp/$name.on" >"$tmp/$name.log" 2>&1; then echo "FAIL $name"; return; fi
  if [ "$GRAPHS" = both ]; then
    if ! "${run[@]}" --no-cuda-graphs --output-dir "$tmp/$name.off" >>"$tmp/$name.log" 2>&1; then
      echo "FAIL $name (--no-cuda-graphs)"; return
    fi
    if ! diff -r "$tmp/$name.on" "$tmp/$name.off" >>"$tmp/$name.log" 2>&1; then
      echo "FAIL $name (outputs with and without CUDA graphs differ)"; return
    fi
  fi
  rm -rf "$tmp/$name.on" "$tmp/$name.off"
  local t extra
  for t in ${tools//,/ }; do
    extra=(); [ "$t" = memcheck ] && extra=(--leak-check full)
    if ! "$sanitizer" --tool "$t" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
         "${run[@]}" >"$tmp/$name.$t" 2>&1 || grep -q 'Program hit CUDA_ERROR' "$tmp/$name.$t"; then
      cat "$tmp/$name.$t" >>"$tmp/$name.log"; echo "FAIL $name ($t)"; return
    fi
    cat "$tmp/$name.$t" >>"$tmp/$name.log"; rm -f "$tmp/$name.$t"
  done
  local same=""; [ "$GRAPHS" = both ] && same=" (graphs on = off)"
  echo "PASS $name${tools:+ ($tools clean)}$same"
}
export -f check_case
# Results also stream to ${OUT:-/tmp}/gpu-check.progress as cases finish.
ls -d "$AICC_DEVICE_ROOT"/cases/*/ | xargs -P "${JOBS:-8}" -I{} bash -c 'check_case "$1"' _ {} \
  | tee "${OUT:-/tmp}/gpu-check.progress" | sort -k2 > "$tmp/results"
# The runtime's own CUDA tests (cubins built from unittests/Runtime/*.cu.ptx at configure time).
if [ -x "$AICC_DEVICE_ROOT/bin/AICCRuntimeTests" ]; then
  export AICC_TEST_CUBIN=$AICC_DEVICE_ROOT/testdata/add_kernel.sm_90.cubin
  export AICC_TEST_TMA_CUBIN=$AICC_DEVICE_ROOT/testdata/tma_copy_kernel.sm_90.cubin
  export AICC_TEST_KERNEL_SO=$AICC_DEVICE_ROOT/testdata/aicc_test_add_kernel.so
  rt=("$AICC_DEVICE_ROOT/bin/AICCRuntimeTests" --gtest_filter='CUDA*')
  if "${rt[@]}" >"$tmp/runtime-tests.log" 2>&1; then st=PASS; else st=FAIL; fi
  if [ "$GRAPHS" = both ] && [ $st = PASS ]; then
    AICC_CUDA_GRAPHS=0 "${rt[@]}" >>"$tmp/runtime-tests.log" 2>&1 || st="FAIL (AICC_CUDA_GRAPHS=0)"
  fi
  for t in ${tools//,/ }; do
    [ $st = PASS ] || break
    extra=(); [ "$t" = memcheck ] && extra=(--leak-check full)
    # Left out: the tests that make the driver fail on purpose, which the sanitizer reports as
    # API errors (an invalid image for cuModuleLoadData, a kernel name not in the cubin for
    # cuModuleGetFunction, a tensor map that does not match the kernel).
    "$sanitizer" --tool "$t" "${extra[@]}" --error-exitcode 99 --print-limit 20 "${rt[@]}" \
      --gtest_filter='CUDA*:-*FailsCleanlyOnBadCodeOrMissingDriver:*RejectsBlockLargerThanTheKernelAllows:*RejectsTensorMapParameterMismatch' >"$tmp/runtime-tests.$t" 2>&1 \
      && ! grep -q 'Program hit CUDA_ERROR' "$tmp/runtime-tests.$t" || st="FAIL ($t)"
    cat "$tmp/runtime-tests.$t" >>"$tmp/runtime-tests.log"; rm -f "$tmp/runtime-tests.$t"
  done
  echo "$st AICCRuntimeTests CUDA*${tools:+ ($tools)}" >> "$tmp/results"
fi
cat "$tmp/results"
: > "$log"
for f in "$tmp"/*.log; do echo "== $(basename "$f" .log)" >> "$log"; cat "$f" >> "$log"; done
grep '^FAIL' "$tmp/results" | while read -r _ name _; do
  echo "---- $name"; tail -5 "$tmp/$name.log" 2>/dev/null
done
pass=$(grep -c '^PASS' "$tmp/results"); fail=$(grep -c '^FAIL' "$tmp/results")
echo "$pass passed, $fail failed"
rm -rf "$tmp"
[ "$fail" = 0 ]
