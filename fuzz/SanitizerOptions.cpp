//===- SanitizerOptions.cpp - Default ASan options of the fuzz targets ----===//
//
// Linked into every fuzz target, so that running one by hand behaves like scripts/fuzz.sh
// (which also exports ASAN_OPTIONS; the environment variable, when set, is applied after
// these defaults).
//
// allow_user_poisoning=0: LLVM's BumpPtrAllocator (llvm/Support/Allocator.h) poisons the unused
// part of each slab when it is compiled with ASan and unpoisons what it hands out. aicc's
// instrumented code inlines that header, but the allocator objects it reaches (MLIR's storage
// uniquer) are mostly used by Debian's uninstrumented libMLIR, which never unpoisons: memory
// handed out by libMLIR then reads as "use-after-poison" in aicc code. Ignoring manual poisoning
// removes those false reports; heap, stack and global checks are unaffected.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_leaks=1:detect_stack_use_after_return=1:"
         "strict_string_checks=1:check_initialization_order=1";
}

// Reports are fatal already (-fno-sanitize-recover=all); a stack makes them actionable.
extern "C" const char *__ubsan_default_options() { return "print_stacktrace=1"; }
