//===- MatmulConfigSyntax.h - the --matmul-config value -----------*- C++ -*-===//
//
// The syntax and bounds of the matmul-config knob (aicc-compile --matmul-config,
// aicc-pipeline{matmul-config=...}, CompileOptions::matmulConfig):
// BMxBNxBK[xSTAGES[xSPLIT_K]], e.g. 128x128x64x6. verifyPipelineConfig refuses a malformed
// value before any pass runs; the matmul and conv-GEMM templates apply the parsed value.
// Plain data, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_MATMULCONFIGSYNTAX_H
#define AICC_TARGET_MATMULCONFIGSYNTAX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace aicc {

/// Bounds well past every target's space (tensor-core blocks <= 256, 8 stages; a generic GPU
/// kernel's tiles share 48 KiB): larger values only overflowed i32 tile ranges and int64
/// shared-memory sizes, or had the CPU kernel allocate a [BM, BN] tile of gigabytes. The tile
/// dialect's #tile.matmul_config verifier enforces the same (TileDialect.cpp).
constexpr int64_t kMaxMatmulConfigBlock = 1024;
constexpr int64_t kMaxMatmulConfigStages = 16;
constexpr int64_t kMaxMatmulConfigSplitK = 16;

/// A parsed matmul-config value.
struct MatmulConfigOverride {
  /// BLOCK_M, BLOCK_N, BLOCK_K in elements, each in [1, kMaxMatmulConfigBlock].
  int64_t blockM = 0, blockN = 0, blockK = 0;
  /// num_stages in [1, kMaxMatmulConfigStages]; unset: the template's own.
  std::optional<int64_t> numStages;
  /// K slices in [1, kMaxMatmulConfigSplitK]; 1 when not given.
  int64_t splitK = 1;
};

/// Parses BMxBNxBK, BMxBNxBKxSTAGES or BMxBNxBKxSTAGESxSPLIT_K: three to five decimal
/// integers joined by 'x', nothing else (no signs, spaces or trailing text), each >= 1 and
/// within the bounds above. The error quotes the value, says which field is wrong and shows
/// the syntax.
llvm::Expected<MatmulConfigOverride> parseMatmulConfig(llvm::StringRef text);

} // namespace aicc

#endif // AICC_TARGET_MATMULCONFIGSYNTAX_H
