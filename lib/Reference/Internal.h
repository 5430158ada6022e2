//===- Internal.h - private helpers of the reference evaluator -*- C++ -*-===//
//
// Shared by lib/Reference/*.cpp only. Each op family has one file with one dispatch
// function: it returns std::nullopt for an op outside its family, else the op's result
// (or failure after a diagnostic). Adding an op: write its function in its family's file
// and add a Case to that file's dispatch.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_REFERENCE_INTERNAL_H
#define AICC_LIB_REFERENCE_INTERNAL_H

#include "aicc/Reference/Evaluator.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace aicc::reference::detail {

/// Operands of one op, in operand order (never null).
using Operands = llvm::ArrayRef<const Tensor *>;
using EvalResult = mlir::FailureOr<Tensor>;

/// The statically shaped ranked tensor type of `op`'s result `i` (checked by the driver
/// before any family runs).
inline mlir::RankedTensorType resultType(mlir::Operation *op, unsigned i = 0) {
  return mlir::cast<mlir::RankedTensorType>(op->getResult(i).getType());
}

/// Row-major strides of `shape` in elements.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Multi-index of row-major position `linear` in `shape`.
void unravel(int64_t linear, llvm::ArrayRef<int64_t> shape, llvm::SmallVectorImpl<int64_t> &idx);

/// Row-major position of multi-index `idx` in `shape`.
int64_t ravel(llvm::ArrayRef<int64_t> idx, llvm::ArrayRef<int64_t> shape);

/// Position in a tensor of shape `in` that numpy-broadcasts to the output multi-index
/// `outIdx` (leading dims of the output missing in `in` are dropped, size-1 dims read 0).
int64_t broadcastIndex(llvm::ArrayRef<int64_t> outIdx, llvm::ArrayRef<int64_t> in);

/// Wraps `v` to the width and signedness of integer type `t` (two's complement; i1 and
/// uiN are zero-extended, other types sign-extended).
int64_t wrapToWidth(int64_t v, mlir::IntegerType t);

/// Rounds `v` to the nearest value of float type `t` (ties to even).
double roundToFloatType(double v, mlir::FloatType t);

std::optional<EvalResult> evalElementwiseOp(mlir::Operation *op, Operands in);
std::optional<EvalResult> evalReductionOp(mlir::Operation *op, Operands in);
std::optional<EvalResult> evalContractionOp(mlir::Operation *op, Operands in);
std::optional<EvalResult> evalDataMovementOp(mlir::Operation *op, Operands in);

} // namespace aicc::reference::detail

#endif // AICC_LIB_REFERENCE_INTERNAL_H
