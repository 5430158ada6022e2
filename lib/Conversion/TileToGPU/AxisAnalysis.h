//===- AxisAnalysis.h - contiguity / divisibility / constancy of tile offsets -*- C++ -*-===//
//
// Triton's AxisInfo analysis (lib/Analysis/AxisInfo.cpp of Triton), reduced to 1-D tiles and
// scalars: the one divisibility and contiguity analysis of the GPU lowerings. The register
// path (convert-tile-to-gpu-registers) asks it whether a load's offsets are 16-byte vectors;
// the mma.sync path (convert-tile-dot-to-mma-sync) whether a column offset is a multiple of
// its copy granule.
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_AXISANALYSIS_H
#define AICC_LIB_CONVERSION_TILETOGPU_AXISANALYSIS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>

namespace aicc {

/// Cap of AxisInfo::divisibility (the divisibility of 0).
constexpr int64_t kMaxDiv = int64_t(1) << 30;

/// The largest power of two (at most kMaxDiv) dividing `c`; kMaxDiv for 0.
int64_t pow2Factor(int64_t c);

/// Triton's AxisInfo for 1-D i32 tiles (and i32/index scalars): the tile splits into runs of
/// `contiguity` consecutive values (each starting at an element index that is a multiple of
/// it), the first value of each run is a multiple of `divisibility`, and runs of `constancy`
/// elements hold one value. All three are powers of two.
struct AxisInfo {
  int64_t contiguity = 1, divisibility = 1, constancy = 1;
};

/// AxisInfo of values built from constants, tile.make_range, tile.splat / broadcast /
/// expand_dims, program ids, scf.for induction variables (lb + k * step), casts, and
/// arith add, sub, mul, shl by a constant, and div and rem by a constant. Anything else is
/// {1, 1, 1}. Wrap-around of i32 arithmetic is not modelled (the templates check that
/// offsets fit). Results are cached per value: build one per kernel, and do not keep it
/// across rewrites of the values it has seen.
class AxisAnalysis {
public:
  AxisInfo get(mlir::Value v);
  /// Whether every value of `v` is provably a multiple of `m` (a power of two).
  bool isMultipleOf(mlir::Value v, int64_t m) { return get(v).divisibility % m == 0; }

private:
  llvm::DenseMap<mlir::Value, AxisInfo> cache;

  AxisInfo compute(mlir::Value v);
  /// Whether every value of the i32/index scalar or tile `v` is provably >= 0.
  bool isNonNegative(mlir::Value v, int depth = 0);
};

} // namespace aicc

#endif
