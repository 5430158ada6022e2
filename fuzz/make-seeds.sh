#!/usr/bin/env bash
# Builds the fuzzers' seed corpora (docs/fuzzing.md); nothing here is committed.
# usage: fuzz/make-seeds.sh MAIN_BUILD_DIR OUT_DIR
#   MAIN_BUILD_DIR  a built aicc tree (the gcc/Release build/): aicc-compile, aicc-make-test-bundle
#   OUT_DIR         gets onnx/ tensorproto/ numpy/ mlir/ bundle/, one file per seed (named by content
#                   hash, so re-running adds nothing twice)
# Sources:
#   onnx         the conformance models (model.onnx <= 128 KiB) of /usr/share/libonnx-testdata/data,
#                of the venv's onnx package ($AICC_VENV) and models/
#   tensorproto  their test data (input_*.pb, output_*.pb <= 64 KiB)
#   numpy        the .npy / .npz files of unittests/Runtime/testdata
#   mlir         every *.mlir under test/, split at '// -----' like -split-input-file, each piece
#                prefixed by the pipeline selector FuzzMLIR.cpp reads ('4' tile IR -> cpu pipeline,
#                '3' fused graph -> tile pipeline, else both '0' graph and '2' graph..tile)
#   bundle       aicc-make-test-bundle's bundles, a few conformance models compiled with
#                aicc-compile --target=cpu, and (when ptxas is found) f16 matmul / conv inputs of
#                test/Tools compiled for sm_90a (tensor maps, format version 2); their code
#                sections are cut to 4 bytes (the target never loads them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: make-seeds.sh MAIN_BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: make-seeds.sh MAIN_BUILD_DIR OUT_DIR}
mkdir -p "$out"/{onnx,tensorproto,numpy,mlir,bundle}
venv=${AICC_VENV:-$root/.venv}

# copy_seeds DIR MAXBYTES: copies stdin's paths (one a line) of at most MAXBYTES into DIR.
copy_seeds() {
  local dir=$1 max=$2 f h
  while IFS= read -r f; do
    [[ $(stat -c %s "$f") -le $max ]] || continue
    h=$(sha1sum "$f" | cut -c1-16)
    [[ -e $dir/$h ]] || cp "$f" "$dir/$h"
  done
}

data_dirs=()
[[ -d /usr/share/libonnx-testdata/data ]] && data_dirs+=(/usr/share/libonnx-testdata/data)
for d in "$venv"/lib/python3*/site-packages/onnx/backend/test/data; do
  [[ -d $d ]] && data_dirs+=("$d")
done
data_dirs+=("$root/models")

find "${data_dirs[@]}" -name '*.onnx' | copy_seeds "$out/onnx" $((128 << 10))
find "${data_dirs[@]}" \( -name 'input_*.pb' -o -name 'output_*.pb' \) |
  copy_seeds "$out/tensorproto" $((64 << 10))
find "$root/unittests/Runtime/testdata" \( -name '*.npy' -o -name '*.npz' \) |
  copy_seeds "$out/numpy" $((64 << 10))

/usr/bin/python3 - "$root/test" "$out/mlir" <<'PY'
import hashlib, pathlib, re, sys
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in sorted(src.rglob("*.mlir")):
    for piece in re.split(r"(?m)^// -----.*$", f.read_text(errors="replace")):
        if not piece.strip():
            continue
        if re.search(r"\btile\.(program_id|load|store|block_load|block_store|dot|schedule)", piece):
            selectors = "4"
        elif "graph.fusion_group" in piece:
            selectors = "3"
        else:
            selectors = "02"
        for s in selectors:
            data = (s + piece).encode()
            (dst / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
PY

# Bundles: the runtime tests' hand-made ones, then real compiles.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -x $build/bin/aicc-make-test-bundle && -f $build/lib/aicc_test_add_kernel.so ]]; then
  "$build/bin/aicc-make-test-bundle" cpu "$build/lib/aicc_test_add_kernel.so" "$tmp/rt" >/dev/null
  ls "$tmp"/rt/*.aicc | copy_seeds "$out/bundle" $((256 << 10))
else
  echo "make-seeds: $build has no aicc-make-test-bundle; skipping the runtime tests' bundles" >&2
fi
node=/usr/share/libonnx-testdata/data/node
cpu_inputs=()
for m in test_add test_relu test_matmul_2d test_gemm_default_matrix_bias test_conv_with_strides_padding \
         test_reduce_sum_keepdims_example test_gather_0 test_concat_2d_axis_0 test_softmax_axis_0 \
         test_transpose_default test_maxpool_2d_default test_slice test_where_example; do
  cpu_inputs+=("$node/$m/model.onnx")
done
cpu_inputs+=("$root/models/mlp/model.onnx")
# sm_90a: f16 matmul / conv with TMA tensor maps (format version 2).
gpu_inputs=("$root/test/Tools/Inputs/matmul-f16-bias-relu.mlir" "$root/test/Tools/Inputs/conv-nchw-f16.mlir"
            "$node/test_add/model.onnx")
have_ptxas=0
{ command -v ptxas || [[ -x ${CUDA_HOME:-/usr/local/cuda}/bin/ptxas ]]; } >/dev/null && have_ptxas=1
# compile TARGET INPUT...: prints the bundles that compiled.
compile() {
  local t=$1 f name; shift
  for f in "$@"; do
    [[ -f $f ]] || continue
    name=$(basename "$(dirname "$f")")-$(basename "$f")
    if "$build/bin/aicc-compile" "$f" --target="$t" -o "$tmp/$name.$t.aicc" 2>/dev/null; then
      echo "$tmp/$name.$t.aicc"
    fi
  done
}
{
  compile cpu "${cpu_inputs[@]}"
  [[ $have_ptxas == 1 ]] && compile sm_90a "${gpu_inputs[@]}"
  true
} | copy_seeds "$out/bundle" $((256 << 10))

# The target never loads a seed's code section: cut it (fuzz/shrink_bundle_seeds.py).
/usr/bin/python3 "$root/fuzz/shrink_bundle_seeds.py" "$out/bundle"

# fuzz/mlir.dict should name every graph.* / tile.* op.
for inc in "$build"/include/aicc/Dialect/*/IR/*Ops.h.inc; do
  grep -ho 'StringLiteral("\(graph\|tile\)\.[a-z_0-9]*")' "$inc" | sed 's/.*("\(.*\)")/\1/'
done | sort -u | while read -r op; do
  grep -q "^\"$op\"$" "$root/fuzz/mlir.dict" ||
    echo "make-seeds: warning: fuzz/mlir.dict lacks \"$op\" (add it)" >&2
done
for d in onnx tensorproto numpy mlir bundle; do
  echo "make-seeds: $d: $(ls "$out/$d" | wc -l) seeds"
done
