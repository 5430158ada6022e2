#!/usr/bin/env bash
# Models at protobuf's size limits load, compile and run (issue 4: "Models up to 2 GB and
# models with external data files load"):
#   external: a 2.21 GB embedding table as external data (a sparse file) + an inline MatMul
#   inline:   a 1.88 GB ModelProto (the table inline), just under the 2 GiB protobuf limit
# Each is compiled for the CPU target and its outputs compared with numpy's (float64) by
# aicc-run. Needs ~4.5 GB of free disk in $TMPDIR per case (removed afterwards).
# Usage: run.sh BIN_DIR
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/aicc-large-XXXXXX")
trap 'rm -rf "$work"' EXIT
for mode in external inline; do
  flag=""
  [ "$mode" = inline ] && flag=--inline
  /usr/bin/python3 "$here/make_large_model.py" "$work/$mode" $flag
  "$bin/aicc-compile" "$work/$mode/model.onnx" --target=cpu -o "$work/$mode.aicc"
  "$bin/aicc-run" "$work/$mode.aicc" --test-data-set "$work/$mode/test_data_set_0"
  rm -rf "$work/$mode" "$work/$mode.aicc"
  echo "large model ($mode): PASS"
done
