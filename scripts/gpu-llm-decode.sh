#!/usr/bin/env bash
# Issue 19's LLM benchmark in one GPU call (bench/llm_decode.py): on the GPU machine (torch
# 2.11, CUDA), carrying .device-cc.tar.xz (scripts/make-compiler-gpu-payload.sh):
#   bash scripts/gpu-llm-decode.sh | tee $OUT/llm.txt
# 1. exports the Llama-style decoder (d 2048, 8 layers, KV cache of 4096, f16, random weights
#    from a fixed seed) with the prompt length dynamic, at batch 1 and batch 16, into WORK
#    (default /tmp/aicc-llm, never the repo; ~1 GB each);
# 2. compiles each once with --dim seq=1..MAX for TARGET (default sm_90a), once more with the
#    decode step's own plan inside (--specialize seq=1, spec.aicc) and once for the decode
#    step alone (--dim seq=1, decode.aicc), in parallel;
# 3. runs bench/llm_decode.py run: correctness of a prefill and decode steps against torch's
#    eager module, then prefill (batch 1: 128 / 512 / 2048 tokens) and decode steps (batch 1
#    and 16) of aicc against torch eager, a CUDA graph of eager and
#    torch.compile(mode="reduce-overhead"), all in this run.
# Env: WORK, TARGET, BATCHES (default "1 16"), LLM_CONFIG / LLM_PROMPTS / LLM_DECODE_AT (bench/llm_decode.py),
# AICC_FLAGS (extra aicc-compile flags).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/gpu-compiler-env.sh
. "$root/scripts/gpu-compiler-env.sh" || exit 1
work=${WORK:-/tmp/aicc-llm}
target=${TARGET:-sm_90a}
batches=${BATCHES:-1 16}  # the batches to export, compile and run (a missing bundle is skipped)
max=$(python3 -c "import os,sys; sys.path.insert(0,'$root/bench'); import llm_decode as l; print(l.MAX)")
stamp() { echo "== $(date +%T) $*"; }
mkdir -p "$work"
for b in $batches; do
  if [ ! -f "$work/b$b/model.onnx" ]; then
    stamp "export batch $b"
    python3 "$root/bench/llm_decode.py" export "$work/b$b" "$b" 2>&1 | tail -1 || exit 1
  fi
done
stamp compile
pids=()
for b in $batches; do
  # shellcheck disable=SC2086
  ( s=$SECONDS; aicc-compile "$work/b$b/model.onnx" --target="$target" --dim seq=1..$max \
      ${AICC_FLAGS:-} -o "$work/b$b/model.aicc" > "$work/b$b/compile.log" 2>&1
    echo "batch $b: rc $?, $((SECONDS - s)) s"; tail -2 "$work/b$b/compile.log" ) &
  pids+=($!)
  # The same range with the decode step's own plan inside (--specialize seq=1).
  # shellcheck disable=SC2086
  ( s=$SECONDS; aicc-compile "$work/b$b/model.onnx" --target="$target" --dim seq=1..$max \
      --specialize seq=1 ${AICC_FLAGS:-} -o "$work/b$b/spec.aicc" > "$work/b$b/spec.log" 2>&1
    echo "batch $b specialized: rc $?, $((SECONDS - s)) s"; tail -2 "$work/b$b/spec.log" ) &
  pids+=($!)
  # The decode step alone (--dim seq=1): what a bundle specialized to decode gets.
  # shellcheck disable=SC2086
  ( s=$SECONDS; aicc-compile "$work/b$b/model.onnx" --target="$target" --dim seq=1 \
      ${AICC_FLAGS:-} -o "$work/b$b/decode.aicc" > "$work/b$b/decode.log" 2>&1
    echo "batch $b decode: rc $?, $((SECONDS - s)) s"; tail -2 "$work/b$b/decode.log" ) &
  pids+=($!)
done
wait "${pids[@]}"
ls -la "$work"/b*/model.aicc
stamp run
LLM_PROFILE=${LLM_PROFILE-1} python3 "$root/bench/llm_decode.py" run "$work/b1" "$work/b16"
stamp done
