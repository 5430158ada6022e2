#!/usr/bin/env bash
# Builds .device-cc.tar.xz: the whole compiler for the GPU machine, which has CPython 3.12
# (torch 2.11, numpy 2, onnx) and CUDA 13 (ptxas, libdevice) but no LLVM/MLIR and no network.
# Its contents, unpacked into one folder D:
#   D/python/aicc/       the Python package with the compiler, for CPython 3.12: its extension
#                        links LLVM/MLIR statically (-DAICC_LINK_LLVM_STATIC=ON,
#                        cmake/AICCLLVMLibs.cmake; about 180 MB, 35 MB compressed)
#   D/bin/aicc-run       the runtime tool (no LLVM)
#   D/bin/aicc-compile   `python3 -m aicc compile "$@"`: the package's command line, which
#                        writes the same bytes as aicc-compile (python/tests/test_cli.py).
#                        The C++ aicc-compile with its own static LLVM would double the
#                        payload past the 64 MiB a device call carries.
#   D/lib/               the shared libraries those need that the GPU machine lacks
#                        (protobuf, ONNX's proto, ...)
# Built in a separate build dir, $AICC_GPU_BUILD_DIR (default build-gpu-payload), which
# ccache makes quick after a normal build. On the GPU machine, carrying .device-cc.tar.xz:
#   mkdir -p /tmp/aicc && tar -xJf .device-cc.tar.xz -C /tmp/aicc
#   export PATH=/tmp/aicc/bin:$PATH LD_LIBRARY_PATH=/tmp/aicc/lib PYTHONPATH=/tmp/aicc/python
#   python3 -m pytest -q -rs -p no:cacheprovider python/tests        # every case, GPU ones too
# Usage: scripts/make-compiler-gpu-payload.sh
# $AICC_GPU_PYTHON: a CPython 3.12 with headers (default: pyenv's 3.12 where present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${AICC_GPU_PYTHON:-$(ls -d /root/.pyenv/versions/3.12*/bin/python3 2>/dev/null | tail -1)}
[ -x "$py" ] || { echo "make-compiler-gpu-payload: set AICC_GPU_PYTHON to a CPython 3.12"; exit 2; }
b=${AICC_GPU_BUILD_DIR:-$root/build-gpu-payload}
if [ ! -x "$b/venv/bin/python" ]; then
  mkdir -p "$b"
  "$py" -m venv "$b/venv"
  "$b/venv/bin/pip" install --quiet --disable-pip-version-check "pybind11>=2.12"
fi
if [ ! -f "$b/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$b" -DCMAKE_BUILD_TYPE=Release -DAICC_LINK_LLVM_STATIC=ON \
    -DAICC_ENABLE_TESTS=OFF -DPython_EXECUTABLE="$b/venv/bin/python"
fi
ninja -C "$b" -j"$(nproc)" aicc-run _aicc
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/python"
cp "$b/bin/aicc-run" "$stage/bin/"
cat > "$stage/bin/aicc-compile" <<'SH'
#!/bin/sh
# The Python package's command line (python -m aicc compile), with this payload's package.
here=$(dirname "$(readlink -f "$0")")
PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m aicc compile "$@"
SH
chmod +x "$stage/bin/aicc-compile"
cp -r "$b/python/aicc" "$stage/python/"
rm -rf "$stage/python/aicc/__pycache__"
# The package's metadata as pip installs it (pyproject.toml), so that importlib.metadata on
# PYTHONPATH finds its torch_dynamo_backends entry point: torch.compile(backend="aicc") works
# whether torch or aicc is imported first.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/pyproject.toml" | head -1)
mkdir -p "$stage/python/aicc-$version.dist-info"
printf 'Metadata-Version: 2.1\nName: aicc\nVersion: %s\n' "$version" \
  > "$stage/python/aicc-$version.dist-info/METADATA"
printf '[torch_dynamo_backends]\naicc = aicc._torch:aicc_backend\n' \
  > "$stage/python/aicc-$version.dist-info/entry_points.txt"
strip --strip-unneeded "$stage/bin/aicc-run" "$stage/python/aicc/"_aicc*.so
# Shared libraries outside glibc / libstdc++ / libgcc / zlib that the GPU machine's image
# (Ubuntu 24.04 with CUDA) may lack: carried, versions as Debian 12 has them.
for f in "$stage/bin/aicc-run" "$stage/python/aicc/"_aicc*.so; do
  ldd "$f" | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*|libz.so*|ld-linux*) ;;
    libcuda.so*) ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
ls -la "$stage/bin" "$stage/lib" "$stage/python/aicc"
tar -C "$stage" -cf - bin lib python | xz -T0 -6 > "$root/.device-cc.tar.xz.tmp"
mv "$root/.device-cc.tar.xz.tmp" "$root/.device-cc.tar.xz"
du -h "$root/.device-cc.tar.xz"
