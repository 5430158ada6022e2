//===- AttentionOperands.h - graph.attention operands as GPU block matrices -*- C++ -*-===//
//
// A GPU attention kernel reads Q, K^T and V with tile.block_load: blocks of a batch of
// row-major [rows, cols] matrices (TileOps.td), element (b, r, c) at flat offset
// (b * dims[1] + r) * dims[2] + c of a kernel input X. An operand that reaches the kernel
// through view ops of a contiguous X (transposes, reshapes, slices, expands: a strided view
// of X, StridedView.h) is still such a block when
//   - its contiguous dim (the last; for K^T read as K's rows, dim r-2) has stride 1;
//   - its row dim (r-2; for K^T as K's rows, the last) has stride R >= its columns: the
//     matrices have dims[2] = R columns and dims[1] = that dim's size as rows;
//   - every other dim (each of its modes) steps whole matrices (a stride multiple of
//     dims[1] * R), columns inside one row (the columns they and the base reach, plus the
//     operand's own, fit in R), or nothing (a broadcast, stride 0); the view's base offset
//     starts at row 0 of a matrix;
//   - the row stride, the base column and the column steps are whole 16-byte chunks (the
//     kernel's cp.async copies).
// So the head h of [B, S, H, D] is the column offset h * D of the [B, S, H * D] matrices,
// the q / k / v thirds of a fused [B, S, 3 * H * D] projection (a Split, or select after
// an unflatten) the column offsets 0, H * D, 2 * H * D, and a sequence-first [S, B, E]
// tensor gives matrices of S rows with row stride B * E, and GQA's K expanded from KVH to
// H = KVH * G heads reads kv head h / G. graph-fuse uses this to decide
// which views a GPU attention group takes, graph-recompose-attention which attention the
// kernel runs, and the attention template (buildAttentionGPU) to write the block loads.
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_IR_ATTENTIONOPERANDS_H
#define AICC_DIALECT_GRAPH_IR_ATTENTIONOPERANDS_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/IR/StridedView.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include <array>
#include <optional>

namespace aicc::graph {

/// One term of the matrix or column index of an operand element: operand dim `dim`'s
/// index i adds ((i / div) % size) * step (a dim of several modes, StridedView.h, gives
/// one term per mode: GQA's head h of K reads kv head h / G).
struct AttentionIndexTerm {
  unsigned dim;
  int64_t div, size, step;
};

/// An attention operand read as blocks of row-major matrices of `root` (a contiguous
/// tensor X, see the file comment): operand element (i_0, ..., i_{r-1}) is element
/// (batch + batch terms, row, col + column terms + contiguous index) of the dims[0] x
/// dims[1] x dims[2] matrices, row being the row dim's index.
struct AttentionOperandView {
  mlir::Value root;
  std::array<int64_t, 3> dims = {0, 0, 0};
  int64_t batch = 0, col = 0;
  llvm::SmallVector<AttentionIndexTerm> batchTerms, colTerms;
  /// K^T read as K's rows ([.., D, S] with D contiguous: a transpose of K).
  bool keyRows = false;
  /// The view ops read through, the operand's defining op first (viewChain's order).
  llvm::SmallVector<mlir::Operation *> ops;
};

/// `view` (of operand `index` of graph.attention: 0 Q, 1 K^T, 2 V) as block matrices of
/// its root, when it is one (the file comment). The row and contiguous dims must have one
/// mode each; a batch dim may have several (each a term), broadcast modes (stride 0) add
/// nothing. A stored K^T (its last dim contiguous) is read in [D, BLOCK_N] blocks at
/// column n0, so it must be plain matrices whose columns are exactly the keys (the key
/// tail is masked by dims[2]).
inline std::optional<AttentionOperandView> attentionBlockMatrix(const ModeView &view,
                                                                unsigned index) {
  int64_t n = view.shape.size();
  if (n < 2 || (int64_t)view.dims.size() != n)
    return std::nullopt;
  llvm::ArrayRef<int64_t> shape = view.shape;
  // The one stride of a dim of at most one mode (`whenEmpty` for a dim of one element).
  auto strideOf = [&](int64_t k, int64_t whenEmpty) -> std::optional<int64_t> {
    if (view.dims[k].size() > 1)
      return std::nullopt;
    return view.dims[k].empty() ? whenEmpty : view.dims[k][0].stride;
  };
  AttentionOperandView m;
  m.root = view.root;
  int64_t c = n - 1, rd = n - 2;
  if (index == 1 && shape[n - 2] > 1 && shape[n - 1] > 1 && strideOf(n - 2, 0) == 1) {
    m.keyRows = true;
    c = n - 2;
    rd = n - 1;
  }
  auto contiguous = strideOf(c, 1), rowStrideOr = strideOf(rd, shape[c]);
  if (!contiguous || *contiguous != 1 || !rowStrideOr)
    return std::nullopt;
  int64_t rowStride = *rowStrideOr, rows = shape[rd];
  auto total = llvm::cast<mlir::RankedTensorType>(view.root.getType()).getNumElements();
  if (rowStride < shape[c] || rows < 1 || view.offset < 0)
    return std::nullopt;
  auto matrix = llvm::checkedMul(rows, rowStride);
  if (!matrix || total % *matrix)
    return std::nullopt;
  m.col = view.offset % rowStride;
  if ((view.offset / rowStride) % rows)
    return std::nullopt; // the base is not at row 0 of a matrix (the row mask would be off)
  m.batch = view.offset / *matrix;
  m.dims = {total / *matrix, rows, rowStride};
  int64_t colReach = m.col + shape[c];
  for (int64_t k = 0; k < n; ++k) {
    if (k == c || k == rd)
      continue;
    int64_t div = shape[k];
    for (ViewMode mode : view.dims[k]) {
      div /= mode.size;
      AttentionIndexTerm t{(unsigned)k, div, mode.size, 0};
      if (mode.stride == 0)
        continue; // broadcast: every index reads the same element
      if (mode.stride > 0 && mode.stride % *matrix == 0) {
        t.step = mode.stride / *matrix;
        m.batchTerms.push_back(t);
      } else if (mode.stride > 0 && mode.stride < rowStride) {
        t.step = mode.stride;
        m.colTerms.push_back(t);
        colReach += (mode.size - 1) * mode.stride;
      } else {
        return std::nullopt;
      }
    }
  }
  if (colReach > rowStride)
    return std::nullopt;
  // The GPU kernel copies rows in 16-byte chunks (cp.async): the row stride, the base
  // column and every column step must be whole chunks.
  unsigned bits = llvm::cast<mlir::ShapedType>(view.root.getType()).getElementTypeBitWidth();
  int64_t chunk = bits && bits <= 128 ? 128 / bits : 1;
  if (rowStride % chunk || m.col % chunk ||
      llvm::any_of(m.colTerms, [&](const AttentionIndexTerm &t) { return t.step % chunk; }))
    return std::nullopt;
  if (index == 1 && !m.keyRows && (m.col != 0 || rowStride != shape[c] || !m.colTerms.empty()))
    return std::nullopt;
  return m;
}

/// The view of attention operand `v` (operand `index` of graph.attention) through the view
/// ops `follow` accepts (viewChain): the deepest root of the chain whose view is block
/// matrices (attentionBlockMatrix) and whose root `acceptRoot` (when given) accepts; `v`
/// itself, a contiguous tensor, when none is deeper. None for a stored K^T that is not
/// plain matrices of its keys, or when `acceptRoot` refuses every root.
inline std::optional<AttentionOperandView>
attentionOperandView(mlir::Value v, unsigned index,
                     llvm::function_ref<bool(mlir::Operation *)> follow,
                     llvm::function_ref<bool(mlir::Value)> acceptRoot = nullptr) {
  llvm::SmallVector<mlir::Operation *> chain = viewChain(v, follow);
  for (size_t depth = chain.size() + 1; depth-- > 0;) {
    auto view = composeModes(v, chain, depth);
    if (!view || (acceptRoot && !acceptRoot(view->root)))
      continue;
    if (auto m = attentionBlockMatrix(*view, index)) {
      m->ops.assign(chain.begin(), chain.begin() + depth);
      return m;
    }
  }
  return std::nullopt;
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
