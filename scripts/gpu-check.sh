#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over the payload of make-gpu-payload.sh or
# `aicc-onnx-test --payload .device`: every case through the cubin path (aicc-run --device=cuda
# --test-data-set ...), $JOBS cases at a time (default 8; the GPU is shared by the processes).
# Prints one PASS/FAIL line per case (sorted) and a total; full log in ${OUT:-/tmp}/gpu-check.log.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export AICC_DEVICE_ROOT=$root/.device
log=${OUT:-/tmp}/gpu-check.log
tmp=$(mktemp -d)
export tmp
check_case() {
  c=$1; name=$(basename "$c")
  if [ ! -f "$c/model.aicc" ]; then
    echo "FAIL $name (no bundle: $(head -c 200 "$c/compile.log" 2>/dev/null))"; return
  fi
  args=(); for d in "$c"/test_data_set_*; do args+=(--test-data-set "$d"); done
  if "$AICC_DEVICE_ROOT/bin/aicc-run" "$c/model.aicc" --device=cuda "${args[@]}" \
       >"$tmp/$name.log" 2>&1; then
    echo "PASS $name"
  else
    echo "FAIL $name"
  fi
}
export -f check_case
ls -d "$root"/.device/cases/*/ | xargs -P "${JOBS:-8}" -I{} bash -c 'check_case "$1"' _ {} \
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
