//===- AttentionOperands.h - graph.attention operands as GPU block matrices -*- C++ -*-===//
//
// A GPU attention kernel reads Q, K^T and V with tile.block_load: blocks of a batch of
// row-major [rows, cols] matrices (TileOps.td). An operand that reaches the kernel through
// transposes of a contiguous tensor X (the head split of [B, S, H, D] -> [B, H, S, D], K^T
// = [B, H, D, S]) is still such a block when X's last dim stays the operand's contiguous dim:
// with rowDim the X dim the operand's rows run along, the matrices are
//
//   dims = (prod X[0 .. rowDim), X[rowDim], prod X[rowDim + 1 ..]),
//
// each other X dim k below rowDim selects the matrix (batch += idx_k * stride_k / (dims[1] *
// dims[2])) and each one above it (but the last) a column offset (col += idx_k * stride_k):
// the head h of a [B, S, H, D] tensor is the column offset h * D of the [B, S, H * D]
// matrix. graph-fuse uses this to decide which transposes a GPU attention group takes,
// graph-recompose-attention which attention the kernel runs, and the attention template
// (buildAttentionGPU) to write the block loads.
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_IR_ATTENTIONOPERANDS_H
#define AICC_DIALECT_GRAPH_IR_ATTENTIONOPERANDS_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace aicc::graph {

/// An attention operand read as blocks of row-major matrices of `root` (a contiguous
/// tensor X): operand dim i is X dim perm[i] (the transposes composed).
struct AttentionOperandView {
  mlir::Value root;
  llvm::SmallVector<int64_t> perm;
  /// The X dim the operand's rows run along: the operand's dim r-2 (Q, V), or its last dim
  /// (K^T read as K's rows: `keyRows`).
  int64_t rowDim = 0;
  bool keyRows = false;
};

/// The view of attention operand `v` (operand `index` of graph.attention: 0 Q, 1 K^T, 2 V)
/// through the transposes `follow` accepts, when it is one (see the file comment): X's last
/// dim is the operand's contiguous one (its last dim; for K^T its dim r-2, the rows being
/// its last dim). A K^T read without a transpose (X = K^T itself) has rowDim = r-2 and no
/// column offsets.
inline std::optional<AttentionOperandView>
attentionOperandView(mlir::Value v, unsigned index,
                     llvm::function_ref<bool(TransposeOp)> follow) {
  auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
  int64_t n = t.getRank();
  if (n < 2)
    return std::nullopt;
  AttentionOperandView view;
  for (int64_t i = 0; i < n; ++i)
    view.perm.push_back(i);
  view.root = v;
  while (auto tr = view.root.getDefiningOp<TransposeOp>()) {
    if (!follow(tr))
      break;
    // result dim i = input dim perm[i]: operand dim i = input dim perm_tr[perm[i]].
    for (int64_t &p : view.perm)
      p = tr.getPerm()[p];
    view.root = tr.getInput();
  }
  llvm::ArrayRef<int64_t> p = view.perm;
  bool identity = llvm::all_of(llvm::seq<int64_t>(0, n), [&](int64_t i) { return p[i] == i; });
  if (index == 1 && p[n - 2] == n - 1) {
    view.keyRows = true;
    view.rowDim = p[n - 1];
    return view;
  }
  if (index == 1) // K^T stored: plain matrices only (the key tail is masked by dims[2])
    return identity ? std::optional(AttentionOperandView{view.root, view.perm, n - 2, false})
                    : std::nullopt;
  if (p[n - 1] != n - 1)
    return std::nullopt;
  view.rowDim = p[n - 2];
  return view;
}

/// The X dim the rows of an attention result y run along when transpose `t` of y (the head
/// merge [B, H, S, Dv] -> [B, S, H, Dv]) is what the kernel stores: X = t's result, X dim j
/// = y dim perm[j]; y's last dim must stay X's last (contiguous) dim. The store is then a
/// block of the matrices of X the file comment gives.
inline std::optional<int64_t> attentionResultRowDim(TransposeOp t) {
  llvm::ArrayRef<int64_t> perm = t.getPerm();
  int64_t n = perm.size();
  if (n < 2 || perm[n - 1] != n - 1)
    return std::nullopt;
  for (int64_t j = 0; j < n; ++j)
    if (perm[j] == n - 2)
      return j;
  return std::nullopt;
}

} // namespace aicc::graph

#endif // AICC_DIALECT_GRAPH_IR_ATTENTIONOPERANDS_H
