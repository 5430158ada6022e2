#!/usr/bin/env bash
# The test command: setup + build, then every test (GoogleTest, lit/FileCheck incl. the ONNX
# conformance cases on the CPU target, PTX assembled by ptxas when present) through ctest,
# then the sanitizer build's tests and a short fuzzing run (below).
# Exits non-zero when any test fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AICC_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)"

# Sanitizers and fuzzers (docs/fuzzing.md): a second build dir ($AICC_SAN_BUILD_DIR, default
# build-san: clang-22, ASan + UBSan, libFuzzer) runs the unit tests under the sanitizers,
# replays fuzz/regressions and fuzzes every target for AICC_FUZZ_SECONDS (default 60) seconds,
# two at a time. Findings are kept in build-san/fuzz-artifacts/ with the command that
# reproduces them. AICC_SKIP_SANITIZERS=1 leaves this part out (quick local runs only).
if [[ ${AICC_SKIP_SANITIZERS:-0} != 1 ]]; then
  start=$SECONDS
  bash "$root/scripts/fuzz.sh" --build
  bash "$root/scripts/fuzz.sh" --unit-tests
  bash "$root/scripts/fuzz.sh" --seeds
  bash "$root/scripts/fuzz.sh" --short "${AICC_FUZZ_SECONDS:-60}"
  echo "test.sh: sanitizer build, sanitized unit tests and fuzzers took $((SECONDS - start)) s"
fi
