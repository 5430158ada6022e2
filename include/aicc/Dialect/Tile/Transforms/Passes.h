//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
#ifndef AICC_DIALECT_TILE_TRANSFORMS_PASSES_H
#define AICC_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace aicc::tile {
#define GEN_PASS_DECL
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace aicc::tile

#endif
