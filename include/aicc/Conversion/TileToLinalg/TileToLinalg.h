//===- TileToLinalg.h - tile ops -> linalg / tensor / scf patterns -*- C++ -*-===//
//
// The per-op lowerings of convert-tile-to-linalg (lib/Conversion/TileToLinalg), as
// conversion patterns for other drivers to reuse: tile.make_range, tile.splat,
// tile.expand_dims, tile.broadcast, tile.load, tile.dot and tile.reduce become
// destination-style linalg ops over tensor.empty (tile.expand_dims a tensor.expand_shape).
// Tile values are static tensors before and after: no type conversion. tile.store,
// tile.program_id and tile.num_programs are not lowered here (convert-tile-store-to-scf and
// the target lowering do); tile.block_load / tile.block_store must have been expanded
// (tile-expand-block-loads).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_CONVERSION_TILETOLINALG_TILETOLINALG_H
#define AICC_CONVERSION_TILETOLINALG_TILETOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace aicc {
/// Adds the tile -> linalg conversion patterns (one OpConversionPattern per tile op) to
/// `patterns`.
void populateTileToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// Marks the ops populateTileToLinalgPatterns lowers illegal in `target` (and linalg, tensor,
/// arith, scf, memref legal).
void configureTileToLinalgTarget(mlir::ConversionTarget &target);
} // namespace aicc

#endif
