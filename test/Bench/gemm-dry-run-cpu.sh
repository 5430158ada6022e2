#!/usr/bin/env bash
# CPU dry run of the tensor-core GEMM benchmark (issue 6), so its scripts cannot rot: runs
# scripts/bench-gemm.sh for --target=cpu on the small cases and bench/gemm.py --device cpu over
# them (bundle reader, .pb writing and reading, float64 reference, relative error, timings and
# ratios, tables, JSON), with /usr/bin/python3 (torch 1.13 CPU). Then checks that the checker
# can fail: a bundle whose spec claims another function (GELU dropped) must be reported wrong,
# and a case without a bundle must be reported failed, each with exit status 1.
# Usage: gemm-dry-run-cpu.sh BUILD_DIR WORK_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
work=$2
rm -rf "$work"; mkdir -p "$work"
export AICC_BENCH_DEST=$work OUT=$work PYTHONDONTWRITEBYTECODE=1
cases='^num_(m77_n45_k33_|m128_n128_k64_bf16|bmm_4x1x257x129_.*_bf16|gemm_transB_bias_.*_bf16|linear_gelu_)'
cases+='|^llm_m1_n4096_k4096_bf16$'
"$root/scripts/bench-gemm.sh" "$build" cpu "$cases"
gemm=(/usr/bin/python3 "$root/bench/gemm.py" --device cpu --root "$work" --iters 1)
"${gemm[@]}" --bundle-info num_m77_n45_k33_f32 | tee "$work/info.txt"
grep -q "target cpu, code [0-9]* bytes (ELF), 2 input(s), 1 output(s)" "$work/info.txt"

"${gemm[@]}" | tee "$work/run.txt"
grep -q "^9 correct, 0 wrong, 0 failed, 0 skipped (of 9 selected)" "$work/run.txt"
grep -q "^| llm_m1_n4096_k4096_bf16 | 1 x 4096 x 4096 | .* | yes | .*x |" "$work/run.txt"
/usr/bin/python3 - "$work/gemm.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["cases"]["llm_m1_n4096_k4096_bf16"]
assert abs(r["aicc_vs_torch"] - r["torch_hot_ms"] / r["aicc_ms"]) < 1e-12, r
assert abs(r["aicc_TFLOPs"] - 2 * 4096 * 4096 / r["aicc_ms"] / 1e9) < 1e-12, r
PY

# --sass refuses a CPU bundle; its instruction counter reads cuobjdump's layout.
if "${gemm[@]}" --sass num_m77_n45_k33_f32 > "$work/sass.txt"; then exit 1; fi
grep -q "target cpu: the code section is not a cubin" "$work/sass.txt"
/usr/bin/python3 - "$root/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from gemm import sass_counts
text = """
	code for sm_90a
		Function : fused_0_epilogue
        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */
                                                                   /* 0x000fe40000000800 */
        /*0a80*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24, gsb0 ;
        /*0a90*/              @!UP0 HGMMA.64x128x16.F32 R24, gdesc[UR8], R24 ;
        /*0b00*/               @P0 FFMA R2, R3, R4, R5 ;
		Function : fused_1_epilogue
        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
"""
c = sass_counts(text)
assert c == {"fused_0_epilogue": {"LDC": 1, "HGMMA": 2, "FFMA": 1},
             "fused_1_epilogue": {"HMMA": 1}}, c
PY

# The checker fails: GELU dropped from a Linear + GELU spec (same operands, another function),
# and a case whose bundle is missing.
/usr/bin/python3 - "$work/.device/gemm" <<'PY'
import json, os, shutil, sys
d = sys.argv[1]
cases = json.load(open(os.path.join(d, "cases.json")))
src = next(c for c in cases if c["name"] == "num_linear_gelu_m257_n129_k100_bf16")
bad = dict(src, name="num_bad_spec_bf16", gelu=False)
gone = dict(cases[0], name="num_no_bundle_f16")
for c in (bad, gone):
    os.makedirs(os.path.join(d, c["name"]))
shutil.copy(os.path.join(d, src["name"], "model.aicc"), os.path.join(d, bad["name"]))
open(os.path.join(d, gone["name"], "compile.log"), "w").write("error: planted failure\n")
json.dump([bad, gone], open(os.path.join(d, "cases.json"), "w"))
PY
if "${gemm[@]}" > "$work/bad.txt" 2>&1; then
  echo "bench/gemm.py passed a wrong result and a missing bundle"; cat "$work/bad.txt"; exit 1
fi
grep -q "^| num_bad_spec_bf16 | bf16 | .* | \*\*NO\*\* |" "$work/bad.txt"
grep -q "^| num_no_bundle_f16 | .*FAILED: no bundle, aicc-compile failed: error: planted" \
  "$work/bad.txt"
grep -q "^0 correct, 1 wrong, 1 failed, 0 skipped (of 2 selected)" "$work/bad.txt"
echo "gemm dry run: OK"
