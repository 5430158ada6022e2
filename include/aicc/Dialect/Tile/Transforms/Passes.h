//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
#ifndef AICC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define AICC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace aicc::tile {
#define GEN_PASS_DECL
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"

/// Adds the pattern that rewrites each tile.block_load into tile.load: i32 element offsets
/// (batch * dims[1] + row + i) * dims[2] + col + j and a mask of the in-bounds elements (the
/// others read zero), built in the result's shape ([BC, BR] when transposed). The pattern
/// does not match a block_load whose dims[0] * dims[1] * dims[2] >= 2^31 (beyond i32
/// offsets) or whose element type is neither a float nor an integer; the
/// tile-expand-block-loads pass reports those as errors.
/// It also adds the pattern that rewrites each tile.block_store into tile.store at the same
/// offsets, masked where the block leaves the matrix (no padding; same 2^31 limit).
void populateExpandBlockLoadPatterns(mlir::RewritePatternSet &patterns);
} // namespace aicc::tile

#endif
