//===- StridedView.h - chains of graph view ops as strided views -*- C++ -*-===//
//
// A chain of view ops (graph.transpose, reshape, slice, expand) applied to a contiguous
// row-major tensor X reads X's buffer at affine offsets: element (i_0, ..., i_{n-1}) of the
// result is X's flat element
//
//   offset + i_0 * strides[0] + ... + i_{n-1} * strides[n-1]
//
// when every dim of the result has one stride. In between, a reshape may merge dims whose
// strides do not line up (torch's [S, B, E] -> [S, B * H, D] of a projection's third): the
// merged dim is kept as a list of (size, stride) modes, as in the hierarchical layouts of
// CUTLASS's CuTe (CUTLASS documentation, "CuTe Layouts"), and a later
// reshape that splits it along those modes ([B * H, S, D] -> [B, H, S, D]) gives one
// stride per dim again. A kernel that reads such a view by index arithmetic needs no copy
// kernel for the chain (docs/fusion.md, "Views"); the GPU attention kernel reads its
// operands this way (AttentionOperands.h).
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_IR_STRIDEDVIEW_H
#define AICC_DIALECT_GRAPH_IR_STRIDEDVIEW_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace aicc::graph {

/// A strided view of the contiguous buffer of `root` (a statically shaped ranked tensor):
/// element i of the view is root's flat element `offset + sum_k i_k * strides[k]`. Offsets
/// and strides are in elements; strides of size-1 dims carry no meaning (they are given the
/// contiguous value, shape[k+1] * strides[k+1], so that a size-1 dim never splits a run).
struct StridedView {
  mlir::Value root;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> shape, strides;
};

/// One (size, stride) pair of a dim of a view: a dim is a list of modes, outermost first;
/// its index i is split over the modes' sizes (row-major) and each part steps its mode's
/// stride. Size-1 modes are left out (a dim of one element has none); an expanded
/// (broadcast) dim is a mode of stride 0.
struct ViewMode {
  int64_t size, stride;
};
using ViewModes = llvm::SmallVector<ViewMode, 2>;

/// A view of the contiguous buffer of `root` whose dims are lists of modes: element i is
/// root's flat element offset + sum over dims k and their modes j of
/// ((i_k / inner_kj) % size_kj) * stride_kj, inner_kj the product of the sizes of dim k's
/// modes after j.
struct ModeView {
  mlir::Value root;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<ViewModes> dims;
};

/// The strides of `newShape` when a view (shape, strides) is reshaped to it (same number of
/// elements), or none when a dim of the result would not have one stride (it merges dims
/// that are not one contiguous run: torch.Tensor.view's rule) or the view has no elements.
std::optional<llvm::SmallVector<int64_t>> reshapeStrides(llvm::ArrayRef<int64_t> shape,
                                                         llvm::ArrayRef<int64_t> strides,
                                                         llvm::ArrayRef<int64_t> newShape);

/// The view ops from `v` up: v's defining op, its input's defining op, ..., as long as
/// each is a graph.transpose, reshape, slice or expand with static shapes that `follow`
/// accepts. The first element defines v; the last one's input is the deepest root.
llvm::SmallVector<mlir::Operation *> viewChain(mlir::Value v,
                                               llvm::function_ref<bool(mlir::Operation *)> follow);

/// `v` as a strided view of the input of chain[depth - 1] (of `v` itself when depth is 0),
/// through chain[0 .. depth) (viewChain's order), or none when some dim of `v` has no
/// single stride, a reshape on the way splits inside a mode whose size it does not divide,
/// or a slice takes part of a dim of several modes or has a step <= 0.
std::optional<StridedView> composeView(mlir::Value v, llvm::ArrayRef<mlir::Operation *> chain,
                                       size_t depth);

/// composeView's view with every dim as its modes (a dim may have several: GQA's
/// [B, KVH, G, S, D] expand of K merged into [B, H, S, D] is dim H = (KVH, S * D), (G, 0)).
/// None when a reshape splits inside a mode whose size it does not divide or a slice takes
/// part of a dim of several modes or has a step <= 0.
std::optional<ModeView> composeModes(mlir::Value v, llvm::ArrayRef<mlir::Operation *> chain,
                                     size_t depth);

} // namespace aicc::graph

#endif // AICC_DIALECT_GRAPH_IR_STRIDEDVIEW_H
