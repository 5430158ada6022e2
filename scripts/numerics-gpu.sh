#!/usr/bin/env bash
# The numerics edge sweep (test/Numerics/edge_sweep.py, docs/numerics.md) on a GPU.
#
#   scripts/numerics-gpu.sh compile [BUILD_DIR] [TARGET]   (here; no GPU needed)
#     Compiles every sweep case for TARGET (default sm_90) into .device/numerics/cases/
#     (model.aicc, one test data set per input class with the expected outputs computed
#     here, the tolerances) and copies aicc-run and the two shared libraries it needs to
#     .device/numerics/{bin,lib}. scripts/make-gpu-payload.sh replaces all of .device/:
#     run it first when both payloads are wanted.
#   scripts/numerics-gpu.sh run                             (on the GPU machine, repo root)
#     Runs every case with aicc-run --device=cuda on each class's data set and prints the
#     table op x input class (ok, GPU: a mismatch, ERR: no bundle or no result) and a
#     total (NUMERICS_DEVICE=cpu runs a CPU payload the same way); aicc-run's reports go to ${OUT:-/tmp}/numerics-gpu.log. Exit 1 on any cell
#     that is not ok.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pay=$root/.device/numerics
case "${1:-}" in
compile)
  build=${2:-$root/build}
  target=${3:-sm_90}
  rm -rf "$pay"; mkdir -p "$pay/bin" "$pay/lib"
  cp "$build/bin/aicc-run" "$pay/bin/"
  for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$pay/lib/"; done
  /usr/bin/python3 "$root/test/Numerics/edge_sweep.py" payload "$pay" --target "$target" \
    --bin "$build/bin"
  rc=$?
  du -sh "$pay"
  exit $rc
  ;;
run)
  [ -d "$pay/cases" ] || { echo "no payload: run 'scripts/numerics-gpu.sh compile' first" >&2; exit 2; }
  export LD_LIBRARY_PATH=$pay/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  log=${OUT:-/tmp}/numerics-gpu.log
  : > "$log"
  results=$(mktemp)
  for c in "$pay"/cases/*/; do
    c=${c%/}; name=$(basename "$c")
    read -r -a classes < "$c/classes"
    out=$(mktemp)
    if [ -f "$c/model.aicc" ]; then
      # One aicc-run per distinct tolerance (cells/<class>/tol: rtol atol).
      for tol in $(for k in "${classes[@]}"; do tr ' ' ':' < "$c/cells/$k/tol"; done | sort -u); do
        sets=()
        for k in "${classes[@]}"; do
          [ "$(tr ' ' ':' < "$c/cells/$k/tol")" = "$tol" ] && sets+=(--test-data-set "$c/cells/$k")
        done
        "$pay/bin/aicc-run" "$c/model.aicc" --device="${NUMERICS_DEVICE:-cuda}" --rtol "${tol%%:*}" --atol "${tol##*:}" \
          "${sets[@]}" >> "$out" 2>&1
      done
    else
      echo "no bundle: $(head -c 300 "$c/compile.log")" >> "$out"
    fi
    { echo "== $name"; cat "$out"; } >> "$log"
    # A header whenever the classes change, then rows "<op> <dtype> <layout> <status...>".
    if [ "${classes[*]}" != "${last:-}" ]; then
      last="${classes[*]}"
      printf '%-20s %-5s %-7s %s\n' op dtype layout "$(printf '%-8s' "${classes[@]}")" >> "$results"
    fi
    while read -r k op dt layout; do
      row=$(awk -v k="$k" -v classes="${classes[*]}" '
        /^test data set / { n = split($4, p, "/"); cell = p[n] }
        $1 == "output" && $2 == k { st[cell] = ($0 ~ / PASS/) ? "ok" : "GPU" }
        END { m = split(classes, cl, " "); s = "";
              for (i = 1; i <= m; i++) s = s sprintf("%-8s", (cl[i] in st) ? st[cl[i]] : "ERR");
              print s }' "$out")
      printf '%-20s %-5s %-7s %s\n' "$op" "$dt" "$layout" "$row" >> "$results"
    done < "$c/ops"
    rm -f "$out"
  done
  cat "$results"
  ok=$(grep -o '\bok\b' "$results" | wc -l)
  bad=$(grep -oE '\b(GPU|ERR)\b' "$results" | wc -l)
  rm -f "$results"
  echo "cells: ok $ok, not ok $bad (details: $log)"
  [ "$bad" = 0 ]
  ;;
*)
  echo "usage: scripts/numerics-gpu.sh compile [BUILD_DIR] [TARGET] | run" >&2; exit 2 ;;
esac
