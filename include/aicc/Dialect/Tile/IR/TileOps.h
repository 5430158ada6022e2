//===- TileOps.h - aicc tile dialect ----------------------------*- C++ -*-===//
//
// The tile dialect: block-level kernel programs. See TileOps.td / TileAttrs.td.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_TILE_IR_TILEOPS_H
#define AICC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "aicc/Dialect/Tile/IR/TileOpsDialect.h.inc"
#include "aicc/Dialect/Tile/IR/TileOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "aicc/Dialect/Tile/IR/TileOpsAttrDefs.h.inc"

#define GET_OP_CLASSES
#include "aicc/Dialect/Tile/IR/TileOps.h.inc"

namespace aicc::tile {
/// Name of the discardable attribute that marks a func.func as a tile kernel.
constexpr llvm::StringLiteral kScheduleAttrName = "tile.schedule";
/// Returns the schedule of a tile kernel, or null when `op` is not one.
ScheduleAttr getSchedule(mlir::Operation *op);
} // namespace aicc::tile

#endif
