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

#include "aicc/Dialect/Tile/IR/TileOpsEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "aicc/Dialect/Tile/IR/TileOpsAttrDefs.h.inc"

// After the attribute classes: the dialect's discardable-attribute helpers name them.
#include "aicc/Dialect/Tile/IR/TileOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "aicc/Dialect/Tile/IR/TileOps.h.inc"

namespace aicc::tile {
/// Most K slices a split-K matmul (#tile.matmul_config's split_k) may have: each slice
/// writes a [batch, M, N] f32 partial product, so the bound caps that temporary at 16x the
/// output's elements (the heuristic stays at one wave of programs, below it on every chip).
constexpr int64_t kMaxSplitK = 16;

/// The names of the dialect's discardable attributes, declared in TileDialect.td
/// (discardableAttrs; what each means is documented there).
constexpr llvm::StringLiteral kScheduleAttrName = TileDialect::ScheduleAttrHelper::getNameStr();
constexpr llvm::StringLiteral kCpuKernelAttrName = TileDialect::CpuKernelAttrHelper::getNameStr();
constexpr llvm::StringLiteral kLayoutAttrName = TileDialect::LayoutAttrHelper::getNameStr();
constexpr llvm::StringLiteral kLayoutsAttrName = TileDialect::LayoutsAttrHelper::getNameStr();
constexpr llvm::StringLiteral kProgramsPerCTAAttrName =
    TileDialect::ProgramsPerCtaAttrHelper::getNameStr();
constexpr llvm::StringLiteral kMatmulConfigAttrName =
    TileDialect::MatmulConfigAttrHelper::getNameStr();
constexpr llvm::StringLiteral kWgmmaAttrName = TileDialect::WgmmaAttrHelper::getNameStr();
constexpr llvm::StringLiteral kMmaSyncAttrName = TileDialect::MmaSyncAttrHelper::getNameStr();
constexpr llvm::StringLiteral kRegisterPathRefusedAttrName =
    TileDialect::RegisterPathRefusedAttrHelper::getNameStr();
constexpr llvm::StringLiteral kWgmmaRefusedAttrName =
    TileDialect::WgmmaRefusedAttrHelper::getNameStr();
constexpr llvm::StringLiteral kTmaStoreRefusedAttrName =
    TileDialect::TmaStoreRefusedAttrHelper::getNameStr();
constexpr llvm::StringLiteral kMmaSyncRefusedAttrName =
    TileDialect::MmaSyncRefusedAttrHelper::getNameStr();
constexpr llvm::StringLiteral kSmemStoreRefusedAttrName =
    TileDialect::SmemStoreRefusedAttrHelper::getNameStr();
constexpr llvm::StringLiteral kLaunchGridAttrName = TileDialect::LaunchGridAttrHelper::getNameStr();
constexpr llvm::StringLiteral kLaunchBlockAttrName =
    TileDialect::LaunchBlockAttrHelper::getNameStr();
constexpr llvm::StringLiteral kDynamicSharedBytesAttrName =
    TileDialect::DynamicSharedBytesAttrHelper::getNameStr();
constexpr llvm::StringLiteral kTensorMapsAttrName = TileDialect::TensorMapsAttrHelper::getNameStr();
constexpr llvm::StringLiteral kTensorMapAttrName = TileDialect::TensorMapAttrHelper::getNameStr();
constexpr llvm::StringLiteral kInPlaceAttrName = TileDialect::InPlaceAttrHelper::getNameStr();
constexpr llvm::StringLiteral kSymGridAttrName = TileDialect::SymgridAttrHelper::getNameStr();
constexpr llvm::StringLiteral kSymValuesAttrName = TileDialect::SymvaluesAttrHelper::getNameStr();
constexpr llvm::StringLiteral kMatmulBucketsAttrName =
    TileDialect::MatmulBucketsAttrHelper::getNameStr();
constexpr llvm::StringLiteral kSymRangeAttrName = TileDialect::SymrangeAttrHelper::getNameStr();

/// Returns the schedule of a tile kernel, or null when `op` is not one.
ScheduleAttr getSchedule(mlir::Operation *op);

// What a tile.reduce kind means (ReduceKind.cpp), for every lowering of tile.reduce and every
// template that combines partial tiles. One NaN rule: on floats max / min propagate NaN
// (IEEE 754-2019 maximum / minimum, arith.maximumf / minimumf; PTX max.NaN / min.NaN), as
// ONNX ReduceMax / ReduceMin require and as the reference evaluator computes
// (docs/numerics.md). Integers: signed max / min, wrapping add / mul.
/// The identity of `kind` as a double (float padding of masked lanes): 0, 1, -inf, +inf.
double reduceIdentityValue(ReduceKind kind);
/// The identity of `kind` for element type `elem`: reduceIdentityValue for floats; 0, 1,
/// the signed minimum, the signed maximum for integers.
mlir::TypedAttr reduceIdentity(mlir::Builder &b, ReduceKind kind, mlir::Type elem);
/// `x` combined with `y` by `kind`: scalars or same-typed tensors of float or integer
/// elements.
mlir::Value reduceCombine(mlir::OpBuilder &b, mlir::Location loc, ReduceKind kind, mlir::Value x,
                          mlir::Value y);

/// Which GPU lowering has taken a kernel func, read from the attribute the lowering sets
/// (tile.wgmma, tile.mma_sync, tile.layouts). Portable: none of them (convert-tile-to-gpu
/// distributes the kernel's tiles over the block's threads itself).
enum class KernelPath { Portable, Registers, Wgmma, MmaSync };
KernelPath getKernelPath(mlir::Operation *fn);
/// A tensor-core lowering (wgmma or mma.sync) has taken `fn`.
inline bool isTensorCoreKernel(mlir::Operation *fn) {
  KernelPath p = getKernelPath(fn);
  return p == KernelPath::Wgmma || p == KernelPath::MmaSync;
}
} // namespace aicc::tile

#endif
