#!/usr/bin/env bash
# The main job: setup + build, compile the bundled PyTorch MLP (models/mlp/model.onnx) and run it
# against torch's recorded output, on the GPU (cubin path, sm_90) when one is present,
# otherwise on the CPU target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AICC_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
model=$root/models/mlp/model.onnx
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  target=sm_90; device=cuda
else
  target=cpu; device=cpu
fi
echo "== aicc-compile $model --target=$target"
"$build/bin/aicc-compile" "$model" --target=$target -o "$out/mlp.aicc"
echo "== fusion groups (kernels):"
"$build/bin/aicc-compile" "$model" --target=$target --emit=fused -o - | grep -o 'graph.fusion_group "[a-z]*"' | sort | uniq -c
echo "== aicc-run --device=$device"
"$build/bin/aicc-run" "$out/mlp.aicc" --device=$device --test-data-set "$root/models/mlp/test_data_set_0"
