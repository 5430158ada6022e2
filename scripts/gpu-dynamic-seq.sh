#!/usr/bin/env bash
# Issue 19's one-bundle-for-every-prompt-length check and benchmark, in one GPU call: on the
# GPU machine (torch 2.11, CUDA), with the compiler payload unpacked at /tmp/aicc
# (scripts/make-compiler-gpu-payload.sh), carry .device-cc.tar.xz:
#   bash scripts/gpu-dynamic-seq.sh | tee $OUT/dynseq.txt
# 1. exports bench/dynamic_seq.py's GPT-2 (2 layers, d 768, f16, 1024 positions) with the
#    sequence dynamic (dynamo exporter) into WORK (default /tmp/aicc-dynseq, never the repo);
# 2. compiles it once for sm_90a with --dim seq=1..1024 (sym.aicc: a tile config per shape
#    bucket), once more with --shape-buckets=1 (sym1.aicc: the bound's configs), once for
#    sm_90 (the mma.sync kernels, checked only) and once per length with --dim seq=N
#    (seqN.aicc), in parallel;
# 3. runs bench/dynamic_seq.py run: per length the symbolic bundle against torch with
#    --poison, then aicc (symbolic, one-config symbolic and specialized, CUDA graphs) against torch eager, a CUDA
#    graph of eager and torch.compile(mode="reduce-overhead"), all in this run.
# Env: LENGTHS (default "1 7 64 128 513 1024"), TARGET (sm_90a), WORK.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/gpu-compiler-env.sh
. "$root/scripts/gpu-compiler-env.sh" || exit 1
work=${WORK:-/tmp/aicc-dynseq}
lengths=${LENGTHS:-1 7 64 128 513 1024}
target=${TARGET:-sm_90a}
rm -rf "$work" && mkdir -p "$work"
stamp() { echo "== $(date +%T) $*"; }
stamp export
python3 "$root/bench/dynamic_seq.py" export "$work" 2>&1 | tail -2 || exit 1
stamp compile
pids=()
( s=$SECONDS; aicc-compile "$work/model.onnx" --target="$target" --dim seq=1..1024 \
    -o "$work/sym.aicc" > "$work/sym.log" 2>&1; echo "sym.aicc: rc $?, $((SECONDS - s)) s" \
    > "$work/times.log" ) &
pids+=($!)
# The same with one tile config for every length (--shape-buckets=1): the baseline the shape
# buckets are measured against, in this run.
aicc-compile "$work/model.onnx" --target="$target" --dim seq=1..1024 --shape-buckets=1 \
  -o "$work/sym1.aicc" > "$work/sym1.log" 2>&1 &
pids+=($!)
aicc-compile "$work/model.onnx" --target=sm_90 --dim seq=1..1024 -o "$work/sym_sm90.aicc" \
  > "$work/sym_sm90.log" 2>&1 &
pids+=($!)
for n in $lengths; do
  aicc-compile "$work/model.onnx" --target="$target" --dim seq="$n" -o "$work/seq$n.aicc" \
    > "$work/seq$n.log" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
cat "$work/times.log" 2>/dev/null; tail -3 "$work/sym.log"
ls -la "$work"/*.aicc
stamp run
# shellcheck disable=SC2086
python3 "$root/bench/dynamic_seq.py" run "$work" $lengths
stamp done
