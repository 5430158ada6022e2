#!/usr/bin/env bash
# Issue 14's GPU proof, on the GPU machine from the repo root: every payload under .device/
# (made here by make-gpu-payload.sh / aicc-onnx-test --payload, packed as .device/NAME.tar.xz
# or unpacked as .device/NAME/) through scripts/gpu-check.sh, plain and under
# compute-sanitizer. Per payload NAME the tools are $SAN_<NAME> (default: all four tools;
# empty: plain runs only); e.g. SAN_conf=memcheck. PASS/FAIL lines and logs: NAME.{results,log};
# everything is packed into $OUT/gpu-reliability.tar.xz at the end (the machine returns at
# most 8 files). Exit 1 when any run fails.
#
# Made here:
#   AICC_PAYLOAD=.device/sm90  scripts/make-gpu-payload.sh build sm_90
#   AICC_PAYLOAD=.device/sm90a scripts/make-gpu-payload.sh build sm_90a
#   build/bin/aicc-onnx-test --target sm_90 --payload .device/conf \
#       --only-passing test/Conformance/expected-cpu.txt   (+ bin/ and lib/ from sm90)
#   for p in sm90 sm90a conf; do tar -C .device -cJf .device/$p.tar.xz $p; done
# Run there: scripts/gpu-reliability.sh [NAME...]   (default: every payload found)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpu-reliability}
mkdir -p "$out/logs"
cd "$root/.device" || exit 2
for t in *.tar.xz; do [ -e "$t" ] && [ ! -d "${t%.tar.xz}" ] && tar -xJf "$t"; done
names=("$@")
if [ ${#names[@]} = 0 ]; then
  for d in */; do [ -d "$d/cases" ] && names+=("${d%/}"); done
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/logs/gpu.txt"
compute-sanitizer --version | tail -1 | tee -a "$out/logs/gpu.txt"
status=0
for n in "${names[@]}"; do
  var=SAN_$n
  tools=${!var-all}
  # gpu-check.sh runs each case plain first, then under each tool: one run gives both.
  start=$SECONDS
  AICC_DEVICE_ROOT=$root/.device/$n SANITIZER=$tools JOBS=${JOBS:-16} OUT=$out/logs \
    bash "$root/scripts/gpu-check.sh" > "$out/logs/$n.results" 2>&1
  rc=$?
  mv "$out/logs/gpu-check.log" "$out/logs/$n.log" 2>/dev/null
  echo "gpu-reliability: $n ($tools): $(tail -1 "$out/logs/$n.results"), $((SECONDS - start)) s"
  [ $rc = 0 ] || { status=1; grep -m 20 "^FAIL" "$out/logs/$n.results" || true; }
done
tar -C "$out" -cJf "$out/gpu-reliability.tar.xz" logs && rm -rf "$out/logs"
exit $status
