#!/usr/bin/env bash
# The installed aicc package (ctest install-consumer): `cmake --install` of the build tree into
# a fresh prefix, checks of what it holds (versioned shared libraries with their SONAME, the
# public headers only, each compiling on its own, the CMake package files, the tools'
# --version), then examples/consumer configured with find_package(aicc) against that prefix,
# built and run: it compiles an ONNX model from memory and checks the bundle's output.
# Any failing step fails the test (set -e; every check is a command that exits non-zero).
# Usage: install-consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
# lib/ (or lib/<multiarch>/ under /usr): where the package's CMake files went.
lib=$(cd "$(dirname "$(find "$prefix" -name aiccConfig.cmake)")/../.." && pwd)

# Shared libraries: the real file, the SONAME link and the development link.
version=$(sed -n 's/^#define AICC_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/aicc/Version.h")
major=${version%%.*}
for name in aicc_runtime aicc_compiler; do
  test -f "$lib/lib$name.so.$version"
  test -L "$lib/lib$name.so.$major"
  test -L "$lib/lib$name.so"
  readelf -d "$lib/lib$name.so.$version" >"$work/$name.dynamic"
  grep -q "Library soname: \[lib$name.so.$major\]" "$work/$name.dynamic"
done
# The runtime needs no LLVM; the compiler exports its API and not its internals. (Listings go
# to files first: `nm | grep -q` would kill nm with SIGPIPE, a failure under pipefail.)
readelf -d "$lib/libaicc_runtime.so" >"$work/runtime.dynamic"
if grep 'NEEDED.*lib\(LLVM\|MLIR\)' "$work/runtime.dynamic"; then
  echo "libaicc_runtime.so links LLVM/MLIR" >&2
  exit 1
fi
nm -DC --defined-only "$lib/libaicc_compiler.so" >"$work/compiler.symbols"
nm -DC --defined-only "$lib/libaicc_runtime.so" >"$work/runtime.symbols"
grep -q ' aicc::compileModel\(\[abi:cxx11\]\)\?(' "$work/compiler.symbols"
# (Weak template instantiations over runtime types, std::vector<IODesc> ..., may be there.)
if grep ' [TDB] aicc::runtime::' "$work/compiler.symbols"; then
  echo "libaicc_compiler.so exports aicc::runtime functions (they belong to libaicc_runtime.so)" >&2
  exit 1
fi
grep -q ' aicc::runtime::Session::run(' "$work/runtime.symbols"

# Headers: exactly the public ones; none includes an MLIR header; each compiles alone (the
# runtime's with no include path but the prefix, the compiler's with LLVM's).
(cd "$prefix/include" && find aicc -type f | sort) >"$work/headers.txt"
cat >"$work/headers.expected" <<'LIST'
aicc/Compiler.h
aicc/Pipelines/PipelineConfig.h
aicc/Pipelines/PipelineOptions.def
aicc/Runtime/Bundle.h
aicc/Runtime/Limits.h
aicc/Runtime/MemoryPlan.h
aicc/Runtime/Model.h
aicc/Runtime/ReadFile.h
aicc/Runtime/Session.h
aicc/Runtime/Status.h
aicc/Runtime/XXHash64.h
aicc/Support/CheckedSize.h
aicc/Version.h
LIST
diff -u "$work/headers.expected" "$work/headers.txt"
if grep -rn '#include "mlir/' "$prefix/include/aicc"; then
  echo "an installed header includes MLIR" >&2
  exit 1
fi
for h in $(grep '\.h$' "$work/headers.txt"); do
  case $h in
  aicc/Runtime/* | aicc/Version.h) flags=() ;;
  *) flags=(-isystem /usr/lib/llvm-22/include) ;;
  esac
  echo "#include \"$h\"" | c++ -std=c++17 -fsyntax-only -I "$prefix/include" "${flags[@]}" -x c++ -
done

# The tools, installed with their RUNPATH.
"$prefix/bin/aicc-compile" --version >"$work/compile.version"
"$prefix/bin/aicc-run" --version >"$work/run.version"
grep -q "^aicc $version (commit " "$work/compile.version"
grep -q "^aicc $version (commit " "$work/run.version"

# The consumer, against the installed package only.
cmake -G Ninja -S "$src/examples/consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer-configure.log"
cmake --build "$work/consumer" >"$work/consumer-build.log"
# A hang is a failure too (the compile takes about a second).
timeout 300 "$work/consumer/aicc-consumer" | tee "$work/consumer.out"
grep -q '^y = \[1.5, 1, 5, 7\]: ok$' "$work/consumer.out"
echo "install-consumer: ok"
