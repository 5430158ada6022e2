#!/usr/bin/env bash
# The GPU attention kernel (issue 17) on a GPU: correctness cases and the benchmark vs SDPA.
#
#   scripts/gpu-attention.sh compile [BUILD_DIR] [TARGETS] [BENCH_CASES]   (here; no GPU needed)
#     Writes the correctness cases (test/Tools/Inputs/attention_cases.py --gpu: the model and
#     one test data set each, expected outputs computed in float64 with numpy) and compiles
#     each with --attention=fused for every target of TARGETS (comma-separated, default
#     sm_90a,sm_90) into .device/attn-check/<target>/<case>.aicc; writes the benchmark models
#     (bench/attention_models.py; BENCH_CASES: comma-separated case names, default all, "none"
#     for none) and compiles each for the first target, fused (fused.aicc: the default kernel,
#     on sm_90a FlashAttention-3 with the overlap and the ping-pong; plain.aicc / ovl.aicc /
#     pp.aicc with neither / only --attention-overlap / only --attention-pingpong; persist.aicc
#     with --attention-persistent (AICC_ATTN_VARIANTS: another list); mma64.aicc
#     with --attention-block-m=64, the mma.sync kernel; decode cases nosplit.aicc with
#     --attention-kv-splits=1), and sm_90a's correctness cases also as plain kernels
#     (attn-check/sm_90a-plain) and persistent ones (attn-check/sm_90a-persist), and non-causal ones
#     also --attention=unfused (the four-kernel form), into .device/attn/<case>/; copies aicc-run
#     and the two shared libraries it needs to .device/{bin,lib}. Replaces .device/attn*.
#   scripts/gpu-attention.sh run [BENCH_CASE...]                          (on the GPU machine)
#     Runs every correctness case with aicc-run --device=cuda --test-data-set (tolerances by
#     dtype) and prints PASS / FAIL per case and target, then bench/attention.py (torch SDPA in
#     the same run; $OUT/attention.json). Exit 1 when a case fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pay=$root/.device
case "${1:-}" in
compile)
  build=${2:-$root/build}
  IFS=, read -r -a targets <<< "${3:-sm_90a,sm_90}"
  bench=${4:-}
  rm -rf "$pay/attn" "$pay/attn-check"; mkdir -p "$pay/bin" "$pay/lib" "$pay/attn" "$pay/attn-check/data"
  cp "$build/bin/aicc-run" "$pay/bin/"
  for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$pay/lib/"; done
  cases=$(mktemp -d)
  /usr/bin/python3 "$root/test/Tools/Inputs/attention_cases.py" "$cases" --gpu || exit 1
  rc=0
  for m in "$cases"/*.mlir; do
    name=$(basename "$m" .mlir)
    cp -r "$cases/$name" "$pay/attn-check/data/"
    for t in "${targets[@]}"; do
      mkdir -p "$pay/attn-check/$t"
      "$build/bin/aicc-compile" "$m" --target="$t" --attention=fused -o "$pay/attn-check/$t/$name.aicc" \
        || { echo "compile failed: $name $t" >&2; rc=1; }
      if [ "$t" = sm_90a ]; then
        # The FlashAttention-3 kernel with its intra-warpgroup overlap and ping-pong too.
        mkdir -p "$pay/attn-check/sm_90a-plain"
        "$build/bin/aicc-compile" "$m" --target="$t" --attention=fused --attention-overlap=false \
          --attention-pingpong=false -o "$pay/attn-check/sm_90a-plain/$name.aicc" \
          || { echo "compile failed: $name plain" >&2; rc=1; }
        # ... and on a persistent grid.
        mkdir -p "$pay/attn-check/sm_90a-persist"
        "$build/bin/aicc-compile" "$m" --target="$t" --attention=fused --attention-persistent=true \
          -o "$pay/attn-check/sm_90a-persist/$name.aicc" \
          || { echo "compile failed: $name persist" >&2; rc=1; }
      fi
    done
  done
  rm -rf "$cases"
  if [ "$bench" != none ]; then
    models=$(mktemp -d)
    # shellcheck disable=SC2086
    /usr/bin/python3 "$root/bench/attention_models.py" "$models" ${bench//,/ } || exit 1
    for m in "$models"/*.mlir; do
      name=$(basename "$m" .mlir)
      mkdir -p "$pay/attn/$name"
      "$build/bin/aicc-compile" "$m" --target="${targets[0]}" --attention=fused -o "$pay/attn/$name/fused.aicc" \
        || { echo "compile failed: $name fused" >&2; rc=1; }
      # The variants (bench/attention.py's KINDS): without the overlap, and the mma.sync kernel;
      # decode cases: without the key split (nosplit).
      # AICC_ATTN_VARIANTS (';'-separated "KIND FLAGS..." entries) replaces the prefill list.
      variants=("plain --attention-overlap=false --attention-pingpong=false"
                "ovl --attention-overlap=true --attention-pingpong=false"
                "pp --attention-overlap=false --attention-pingpong=true" "mma64 --attention-block-m=64"
                "persist --attention-persistent=true")
      if [ -n "${AICC_ATTN_VARIANTS:-}" ]; then IFS=';' read -r -a variants <<< "$AICC_ATTN_VARIANTS"; fi
      case $name in *_decode_*) variants=("nosplit --attention-kv-splits=1") ;; esac
      for v in "${variants[@]}"; do
        # shellcheck disable=SC2086
        "$build/bin/aicc-compile" "$m" --target="${targets[0]}" --attention=fused ${v#* } \
          -o "$pay/attn/$name/${v%% *}.aicc" || { echo "compile failed: $name ${v%% *}" >&2; rc=1; }
      done
      case $name in *_causal|*_decode_*) ;; *)
        # The four-kernel form materializes the S x S scores: past 2^31 elements it is
        # refused (i32 offsets), and the case is timed fused only.
        "$build/bin/aicc-compile" "$m" --target="${targets[0]}" --attention=unfused -o "$pay/attn/$name/unfused.aicc" \
          2> "$pay/attn/$name/unfused.log" || echo "note: $name has no unfused bundle: $(grep -m1 error "$pay/attn/$name/unfused.log")" ;;
      esac
    done
    rm -rf "$models"
  fi
  du -sh "$pay"
  exit $rc
  ;;
run)
  shift
  export LD_LIBRARY_PATH=$pay/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  rc=0
  for t in "$pay"/attn-check/*/; do
    t=${t%/}; [ "$(basename "$t")" = data ] && continue
    for b in "$t"/*.aicc; do
      name=$(basename "$b" .aicc)
      case $name in *bf16*) tol=(--atol 2e-2 --rtol 2e-2) ;; *) tol=(--atol 4e-3 --rtol 1e-2) ;; esac
      if out=$("$pay/bin/aicc-run" "$b" --device=cuda --test-data-set "$pay/attn-check/data/$name" "${tol[@]}" 2>&1) \
          && grep -q "1 of 1 test data set(s) passed" <<< "$out"; then
        echo "PASS $(basename "$t") $name"
      else
        echo "FAIL $(basename "$t") $name"; echo "$out" | tail -5; rc=1
      fi
    done
  done
  if [ -n "$(ls -A "$pay/attn" 2>/dev/null)" ]; then
    python3 "$root/bench/attention.py" "$@" || rc=1
  fi
  exit $rc
  ;;
*)
  sed -n 2,16p "$0"; exit 2 ;;
esac
