#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over the payload of make-gpu-payload.sh or
# `aicc-onnx-test --payload .device`: every case through the cubin path (aicc-run --device=cuda
# --test-data-set ...), $JOBS cases at a time (default 8; the GPU is shared by the processes).
# Prints one PASS/FAIL line per case (sorted) and a total; full log in ${OUT:-/tmp}/gpu-check.log.
# SANITIZER=memcheck|racecheck|synccheck|initcheck (or a comma list, or `all`) runs every case
# under compute-sanitizer with each of those tools as well: a case passes only when its outputs
# match and the sanitizer reports no error (--error-exitcode; leak checking on for memcheck).
set -uo pipefail
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
  args=(); for d in "$c"/test_data_set_*; do args+=(--test-data-set "$d"); done
  run=("$AICC_DEVICE_ROOT/bin/aicc-run" "$c/model.aicc" --device=cuda "${args[@]}")
  if ! "${run[@]}" >"$tmp/$name.log" 2>&1; then echo "FAIL $name"; return; fi
  local t extra
  for t in ${tools//,/ }; do
    extra=(); [ "$t" = memcheck ] && extra=(--leak-check full)
    if ! "$sanitizer" --tool "$t" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
         "${run[@]}" >>"$tmp/$name.log" 2>&1; then
      echo "FAIL $name ($t)"; return
    fi
  done
  echo "PASS $name${tools:+ ($tools clean)}"
}
export -f check_case
ls -d "$AICC_DEVICE_ROOT"/cases/*/ | xargs -P "${JOBS:-8}" -I{} bash -c 'check_case "$1"' _ {} \
  | sort -k2 > "$tmp/results"
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
