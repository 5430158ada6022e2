#!/usr/bin/env bash
# The test command: setup + build, then every test (GoogleTest, lit/FileCheck incl. the ONNX
# conformance cases on the CPU target, PTX assembled by ptxas when present) through ctest.
# Exits non-zero when any test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AICC_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)"
