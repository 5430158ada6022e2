//===- TileToCPU.h - tile program ids -> host kernel parameters --*- C++ -*-===//
//
// The per-op part of convert-tile-to-cpu (lib/Conversion/TileToCPU): in a kernel whose
// signature the pass has extended (its buffers, then pid x, y, z and grid x, y, z as
// `index` parameters, with `tile.cpu_kernel` = the buffer count), tile.program_id and
// tile.num_programs become index_casts of those parameters to i32.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_CONVERSION_TILETOCPU_TILETOCPU_H
#define AICC_CONVERSION_TILETOCPU_TILETOCPU_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace aicc {
/// Adds the tile.program_id / tile.num_programs -> kernel parameter patterns. An op outside
/// a func with `tile.cpu_kernel` does not match.
void populateTileToCPUPatterns(mlir::RewritePatternSet &patterns);
} // namespace aicc

#endif
