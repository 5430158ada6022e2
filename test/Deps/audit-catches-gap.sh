#!/usr/bin/env bash
# scripts/check-deps.py must fail, naming the module and the file that imports it, when
# setup.sh no longer installs a package a test needs (here: python3-torch, which
# test/Bench/gemm-dry-run-cpu.sh's bench/gemm.py imports).
# Usage: audit-catches-gap.sh SOURCE_DIR BUILD_DIR VENV
set -euo pipefail
src=$1 build=$2 venv=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
grep -q '^  python3-torch ' "$src/scripts/setup.sh"
sed '/^  python3-torch /d' "$src/scripts/setup.sh" > "$tmp/setup.sh"
if /usr/bin/python3 "$src/scripts/check-deps.py" --setup "$tmp/setup.sh" --build "$build" \
     --venv "$venv" > "$tmp/out.txt" 2>&1; then
  echo "check-deps passed although setup.sh lacks python3-torch"; cat "$tmp/out.txt"; exit 1
fi
grep -q "bench/gemm.py:[0-9]*: Python module 'torch' is found at .*owned by python3-torch, which setup.sh does not install" "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }
echo "check-deps reports the gap:"; grep torch "$tmp/out.txt" | head -3
