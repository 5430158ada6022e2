# Sanitizer and fuzzer instrumentation for a separate build directory (docs/fuzzing.md).
#
#   -DAICC_SANITIZE=address,undefined   instrument every aicc library, tool and test with these
#                                       sanitizers (any -fsanitize= list clang or gcc accepts)
#   -DAICC_ENABLE_FUZZERS=ON            also add libFuzzer coverage instrumentation
#                                       (-fsanitize=fuzzer-no-link) and build the fuzz/ targets;
#                                       needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-22)
#
# Debian's libLLVM / libMLIR / libprotobuf stay uninstrumented: bugs inside them show up as plain
# signals, not sanitizer reports, and their memory is not poisoned.
#
# Choices:
#  - UBSan is fatal (-fno-sanitize-recover=all) so every report is a crash that libFuzzer and
#    ctest see; `vptr` is off because aicc builds with -fno-rtti (LLVM's flags).
#  - -O1 -gline-tables-only: the usual fuzzing build (fast enough, symbolized stacks).
#  - NDEBUG is undefined so that aicc's assert()s and LLVM's inline header checks (cast<>,
#    ArrayRef indexing, ...) run. LLVM's ABI does not depend on NDEBUG
#    (LLVM_ENABLE_ABI_BREAKING_CHECKS fixes it at LLVM's build), so this is safe to mix.
#  - _GLIBCXX_ASSERTIONS (ABI-neutral by design) turns libstdc++'s precondition checks on:
#    `*` of an empty std::optional / mlir::FailureOr, vector[] out of range. Without it such
#    a read is silent garbage that fails only sometimes.
#  - FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the OSS-Fuzz convention) is defined on the fuzz
#    targets only, never on the libraries the sanitized unit tests use.
set(AICC_SANITIZE "" CACHE STRING
    "Comma-separated -fsanitize= list for all aicc code, e.g. address,undefined (empty: none)")
option(AICC_ENABLE_FUZZERS "Build the libFuzzer targets in fuzz/ (clang only)" OFF)

set(AICC_FUZZ_LINK_FLAGS "")
if(AICC_ENABLE_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "AICC_ENABLE_FUZZERS needs clang (libFuzzer); configure with "
                      "-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22")
endif()

if(AICC_SANITIZE)
  set(_aicc_san_flags -fsanitize=${AICC_SANITIZE} -fno-sanitize-recover=all
      -fno-omit-frame-pointer -O1 -UNDEBUG -D_GLIBCXX_ASSERTIONS)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    list(APPEND _aicc_san_flags -gline-tables-only)
  else()
    list(APPEND _aicc_san_flags -g1)
  endif()
  if(AICC_SANITIZE MATCHES "undefined")
    # vptr needs RTTI, which aicc (like LLVM) builds without.
    list(APPEND _aicc_san_flags -fno-sanitize=vptr)
  endif()
  add_compile_options(${_aicc_san_flags})
  add_link_options(-fsanitize=${AICC_SANITIZE})
  message(STATUS "aicc: sanitizers: ${AICC_SANITIZE}")
endif()

if(AICC_ENABLE_FUZZERS)
  if(NOT AICC_SANITIZE)
    message(WARNING "AICC_ENABLE_FUZZERS without AICC_SANITIZE: the fuzzers find only crashes "
                    "(use -DAICC_SANITIZE=address,undefined)")
  endif()
  # Coverage feedback in every aicc library; the fuzz targets link libFuzzer itself.
  add_compile_options(-fsanitize=fuzzer-no-link)
  set(AICC_FUZZ_LINK_FLAGS -fsanitize=fuzzer)
  message(STATUS "aicc: libFuzzer targets enabled (fuzz/)")
endif()
