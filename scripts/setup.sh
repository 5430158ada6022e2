#!/usr/bin/env bash
# Installs every Debian package aicc's build and tests need. Idempotent; safe on a fresh Debian 12 machine.
# scripts/check-deps.py (a ctest) checks that what the tests import, run and link is installed here.
# Usage: scripts/setup.sh            (as root, or with sudo available)
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libgtest-dev googletest
  python3 python3-numpy python3-onnx python3-pybind11 python3-protobuf python3-venv
  python3-dev python3-pytest   # the Python package in python/: its extension headers, its tests
  ca-certificates          # pip fetches the PyPI pins over https
  python3-torch            # bench-gemm-cpu: bench/gemm.py's CPU dry run (torch 1.13 CPU)
  python3-mpmath           # test/Numerics/edge_sweep.py: 50-digit expected values
  clang-22 libclang-rt-22-dev   # libFuzzer targets and the ASan/UBSan build (fuzz/)
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

# PyPI: the `onnx` package's newer conformance data (opsets past Debian's) and onnxruntime (an
# independent reference for tests without expected outputs), pinned, in the project's own
# virtualenv ($AICC_VENV, default <repo>/.venv; Debian's python3 stays untouched).
# onnx 1.22.0 is the last release whose wheel ships backend/test/data/node.
# torch 2.11 (with onnxscript, its dynamo exporter's dependency, and pytest): the Python
# package's torch.compile backend tests (ctest python-torch2, run on the CPU). PyPI has only
# the CUDA build for x86-64 Linux (about 4.7 GB installed, with its nvidia-* wheels; pip's
# cache keeps the download for the next venv).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${AICC_VENV:-$ROOT/.venv}
PYPI_PKGS=(onnx==1.22.0 onnxruntime==1.32.0 torch==2.11.0 onnxscript==0.7.2 pytest==9.2.0)
if [ ! -x "$VENV/bin/python" ]; then
  echo "aicc setup: creating $VENV"
  /usr/bin/python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" - "${PYPI_PKGS[@]}" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if all(version(p.split("==")[0]) == p.split("==")[1] for p in sys.argv[1:]) else 1)
PY
then
  echo "aicc setup: pip installing ${PYPI_PKGS[*]} into $VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PYPI_PKGS[@]}"
else
  echo "aicc setup: PyPI packages present in $VENV"
fi
