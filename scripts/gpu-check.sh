#!/usr/bin/env bash
# Runs on the GPU machine, from the repo root, over the payload of make-gpu-payload.sh:
# every case through the cubin path (aicc-run --device=cuda --test-data-set ...).
# Prints one PASS/FAIL line per case and a total; full log in ${OUT:-/tmp}/gpu-check.log.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH=$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=${OUT:-/tmp}/gpu-check.log
: > "$log"
pass=0; fail=0
for c in "$root"/.device/cases/*/; do
  name=$(basename "$c")
  if [ ! -f "$c/model.aicc" ]; then echo "FAIL $name (no bundle: $(head -c 200 "$c/compile.log"))"; fail=$((fail+1)); continue; fi
  args=(); for d in "$c"/test_data_set_*; do args+=(--test-data-set "$d"); done
  if "$root/.device/bin/aicc-run" "$c/model.aicc" --device=cuda "${args[@]}" >>"$log" 2>&1; then
    echo "PASS $name"; pass=$((pass+1))
  else
    echo "FAIL $name"; fail=$((fail+1)); tail -5 "$log"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
