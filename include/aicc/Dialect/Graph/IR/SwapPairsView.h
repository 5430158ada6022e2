//===- SwapPairsView.h - x[.., j ^ 1] as graph views ------------------------===//
//
// The exchange of each adjacent pair of a tensor's last dim, result[.., j] = x[.., j ^ 1],
// written with standard graph ops: reshape to [.., N / 2, 2], reverse the last dim (a slice
// starting at 1 with step -1), reshape back. graph-rotary-into-projection writes it; the
// matmul template evaluates it in registers (tile.swap_pairs: both MMA accumulator layouts
// give a thread each column pair in registers 2i, 2i + 1).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_IR_SWAPPAIRSVIEW_H
#define AICC_DIALECT_GRAPH_IR_SWAPPAIRSVIEW_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include <array>
#include <optional>

namespace aicc::graph {

/// The three ops (reshape, reversing slice, reshape) of a swap of `v`'s column pairs that
/// starts at `first` (a user of `v`), when each has exactly one user in that chain and the
/// result has v's type; else none. v: a ranked tensor [.., N] with N even.
inline std::optional<std::array<mlir::Operation *, 3>> matchSwapPairsView(mlir::Value v,
                                                                           mlir::Operation *first) {
  auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
  auto r1 = mlir::dyn_cast<ReshapeOp>(first);
  if (!t || !t.hasStaticShape() || t.getRank() < 1 || t.getShape().back() % 2 || !r1 ||
      r1.getInput() != v || !r1.getResult().hasOneUse())
    return std::nullopt;
  llvm::SmallVector<int64_t> pairs(t.getShape());
  pairs.back() /= 2;
  pairs.push_back(2);
  if (r1.getType().getShape() != llvm::ArrayRef<int64_t>(pairs))
    return std::nullopt;
  auto rev = mlir::dyn_cast<SliceOp>(*r1.getResult().getUsers().begin());
  if (!rev || rev.getType() != r1.getType() || !rev.getResult().hasOneUse())
    return std::nullopt;
  int64_t last = (int64_t)pairs.size() - 1;
  for (int64_t d = 0; d < last; ++d)
    if (rev.getStarts()[d] != 0 || rev.getSteps()[d] != 1)
      return std::nullopt;
  if (rev.getStarts()[last] != 1 || rev.getSteps()[last] != -1)
    return std::nullopt;
  auto r2 = mlir::dyn_cast<ReshapeOp>(*rev.getResult().getUsers().begin());
  if (!r2 || r2.getType() != t)
    return std::nullopt;
  return std::array<mlir::Operation *, 3>{r1, rev, r2};
}

} // namespace aicc::graph

#endif
