//===- TransposeUtils.h - permutations for the passes that move transposes -*- C++ -*-===//
//
// Shared by graph-conv-layout and graph-sink-transposes. A permutation `perm` is in
// graph.transpose's convention: result dim i is input dim perm[i].
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_TRANSFORMS_TRANSPOSEUTILS_H
#define AICC_DIALECT_GRAPH_TRANSFORMS_TRANSPOSEUTILS_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

namespace aicc::graph {

/// `t` with its dims permuted by `perm`.
inline mlir::RankedTensorType permuted(mlir::RankedTensorType t, llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return mlir::RankedTensorType::get(shape, t.getElementType());
}

/// The permutation that undoes `perm`.
inline llvm::SmallVector<int64_t> inversePerm(llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return inv;
}

/// A new graph.transpose of `v` by `perm`.
inline mlir::Value transpose(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                             llvm::ArrayRef<int64_t> perm) {
  auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
  return TransposeOp::create(b, loc, permuted(t, perm), v, b.getDenseI64ArrayAttr(perm));
}

/// Elementwise ops whose value at a position depends only on the operands' values at that
/// position (so they commute with a permutation of the dims). isElementwise also lists
/// expand (shape-changing) and trilu (reads the position), which do not.
inline bool commutesWithTranspose(mlir::Operation *op) {
  return isElementwise(op) && !llvm::isa<ExpandOp, TriluOp>(op) && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 && op->getNumOperands() >= 1;
}

} // namespace aicc::graph

#endif // AICC_DIALECT_GRAPH_TRANSFORMS_TRANSPOSEUTILS_H
