#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh), configures and builds aicc into build/ (or $AICC_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AICC_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$build" -j"$(nproc)"
