#!/usr/bin/env bash
# Installs every Debian package aicc's build and tests need. Idempotent; safe on a fresh Debian 12 machine.
# Usage: scripts/setup.sh            (as root, or with sudo available)
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libgtest-dev googletest
  python3 python3-numpy python3-onnx python3-pybind11 python3-protobuf
  zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev libxml2-dev
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "aicc setup: installing ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "aicc setup: all Debian packages present"
fi
