#!/usr/bin/env bash
# Compile variants of one benchmark case (bench/gemm_models.py) under different aicc-compile
# flags, for same-run A/B timings of schedules and epilogues on the GPU machine. Each variant
# becomes its own case CASE@NAME in .device/gemm (next to what scripts/bench-gemm.sh put
# there, which stays), and .gpu/gemm.tgz is repacked. On the GPU machine:
#   tar xzf .gpu/gemm.tgz && python3 bench/gemm.py 'CASE'
# Usage: scripts/bench-variants.sh BUILD_DIR TARGET CASE NAME='FLAGS' [NAME='FLAGS' ...]
#   e.g. scripts/bench-variants.sh build sm_90a mm4096_f16 s3='--matmul-config=128x128x64x3' \
#          s5='--matmul-config=128x128x64x5'
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 4 ] || { sed -n 2,9p "$0" >&2; exit 2; }
build=$1 target=$2 case=$3; shift 3
out=$root/.device
mkdir -p "$out/bin" "$out/lib" "$out/gemm" "$root/.gpu"
cp "$build/bin/aicc-run" "$out/bin/"
for l in libonnx_proto.so.1 libprotobuf.so.32; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$out/lib/"; done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/bench/gemm_models.py" "$tmp" --filter "^$case\$" > /dev/null
[ -f "$tmp/$case/model.onnx" ] || { echo "no case $case in bench/gemm_models.py" >&2; exit 1; }
[ -f "$out/gemm/cases.json" ] || echo '[]' > "$out/gemm/cases.json"
for v in "$@"; do
  case "$v" in
    *=*) ;;
    *) echo "bench-variants.sh: variant '$v' is not NAME='FLAGS'" >&2; exit 2 ;;
  esac
done
failed=0
for v in "$@"; do
  name=${v%%=*} flags=${v#*=}
  d=$out/gemm/$case@$name
  rm -rf "$d"; mkdir -p "$d"; cp "$tmp/$case/model.onnx" "$d/"
  base=$(/usr/bin/python3 -c "import json; c=json.load(open('$tmp/cases.json'))[0]; print(' '.join(c.get('compile_flags', [])))")
  # Flags are split on spaces (no flag value may contain one); no glob expansion.
  set -f
  # shellcheck disable=SC2086
  if ! "$build/bin/aicc-compile" "$d/model.onnx" --target="$target" $base $flags -o "$d/model.aicc" \
       > "$d/compile.log" 2>&1; then
    set +f
    echo "compile FAILED: $case@$name: $(head -c 300 "$d/compile.log")" >&2
    rm -rf "$d"; failed=$((failed + 1)); continue
  fi
  set +f
  /usr/bin/python3 - "$tmp/cases.json" "$out/gemm/cases.json" "$case@$name" "$base $flags" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))[0]
cases = [x for x in json.load(open(sys.argv[2])) if x["name"] != sys.argv[3]]
c["name"] = sys.argv[3]
c["compile_flags"] = sys.argv[4].split()
cases.append(c)
json.dump(cases, open(sys.argv[2], "w"), indent=1)
PY
  echo "$case@$name: $base $flags"
done
tar czf "$root/.gpu/gemm.tgz" -C "$root" .device/bin .device/lib .device/gemm
[ "$failed" = 0 ] || { echo "$failed variant(s) failed to compile" >&2; exit 1; }
