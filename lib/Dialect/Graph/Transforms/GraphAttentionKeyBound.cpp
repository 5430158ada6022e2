//===- GraphAttentionKeyBound.cpp - the last visible key of each query, from the mask --===//
//
// Part of graph-recompose-attention (Passes.td). A model with a fixed-capacity KV cache
// (HF transformers' StaticCache; bench/llm_decode.py) attends over the whole cache with the
// mask "key j is visible from query i when j <= pos[i]", which torch exports as
//
//   bias = where(less_equal(keys, pos), 0, c)      keys = [0, 1, ..., Skv - 1] as [1.., Skv],
//                                                  pos [.., Sq, 1], c = -inf or finfo.min
//
// (or where(greater(keys, pos), c, 0), or with the comparison's operands swapped). Every
// key past max(pos) over a block of queries then weighs nothing, so graph.attention gets
// `key_bound` = pos (GraphOps.td) and the GPU kernels end each query block's key loop at
// the block's largest pos + 1: a decode step at position 512 of a 4096-key cache reads 513
// keys, a prompt's causal blocks stop at its diagonal (FlashAttention's `cache_seqlens`,
// Dao et al., flash_attn_with_kvcache; FlexAttention's block mask skips likewise).
//
// The bias is then exactly "c past key_bound": it goes, and the op adds c itself
// (`key_bound_mask` = c), so no kernel computes, stores or loads the [Sq, Skv] mask and the
// FlashAttention-3 kernel (which takes no bias varying along the query rows) takes the
// attention. The bound is also a promise the kernels use to end their key loops: c must be
// -inf or at most -65504 (f16's lowest, the finfo.min exporters write for f16), so a masked
// key's weight exp(s_j + c - m) is 0 in f32 (and f64) unless the row's scores spread over
// more than ~65000, which no finite 16-bit attention reaches in practice.
//
//===----------------------------------------------------------------------===//
#include "GraphAttentionKeyBound.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The one value of a splat floating-point constant, or none.
std::optional<double> splatFloat(Value v) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `v` is a constant integer tensor [1, .., 1, n] holding 0, 1, .., n - 1 (the key
/// positions, torch.arange(max_cache_len)).
bool isKeyIota(Value v, int64_t n) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  DenseIntElementsAttr attr;
  if (!t || t.getRank() < 1 || t.getShape().back() != n || t.getNumElements() != n ||
      !matchPattern(v, m_Constant(&attr)))
    return false;
  int64_t i = 0;
  for (const APInt &x : attr.getValues<APInt>())
    if (x.getSExtValue() != i++)
      return false;
  return true;
}

/// Whether `v` is an integer tensor [1, .., 1, sq or 1, 1] (one position per query row, or
/// one for every row: a decode step's, or its grouped queries packed as rows).
bool isRowPositions(Value v, int64_t sq) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() < 2 || !t.getElementType().isSignlessInteger() ||
      t.getElementType().getIntOrFloatBitWidth() < 32 || t.getShape().back() != 1 ||
      (t.getShape().end()[-2] != sq && t.getShape().end()[-2] != 1))
    return false;
  return llvm::all_of(t.getShape().drop_back(2), [](int64_t d) { return d == 1; });
}

/// pos when `cond` is "key j visible" (j <= pos[i], pos[i] >= j) or, with `maskedWhenTrue`,
/// "key j masked" (j > pos[i], pos[i] < j), keys the iota of Skv.
Value positionsOf(Value cond, bool maskedWhenTrue, int64_t sq, int64_t skv) {
  Operation *d = cond.getDefiningOp();
  if (!d || d->getNumOperands() != 2)
    return {};
  Value x = d->getOperand(0), y = d->getOperand(1);
  // (keys, pos) for "keys OP pos", swapped for "pos OP keys".
  auto pick = [&](bool keysFirst) -> Value {
    Value keys = keysFirst ? x : y, pos = keysFirst ? y : x;
    return isKeyIota(keys, skv) && isRowPositions(pos, sq) ? pos : Value();
  };
  if (!maskedWhenTrue) {
    if (isa<LessEqualOp>(d))
      return pick(true);
    if (isa<GreaterEqualOp>(d))
      return pick(false);
  } else {
    if (isa<GreaterOp>(d))
      return pick(true);
    if (isa<LessOp>(d))
      return pick(false);
  }
  return {};
}

struct AttachKeyBound : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp att, PatternRewriter &rewriter) const override {
    if (att.getKeyBound() || !att.getBias())
      return failure();
    auto where = att.getBias().getDefiningOp<WhereOp>();
    if (!where)
      return rewriter.notifyMatchFailure(att, "the bias is not a where");
    auto lhs = splatFloat(where.getLhs()), rhs = splatFloat(where.getRhs());
    if (!lhs || !rhs)
      return rewriter.notifyMatchFailure(where, "the where does not pick between constants");
    auto masked = [](double c) { return c <= -65504.0; }; // -inf included
    bool maskedWhenTrue;
    double c;
    if (*lhs == 0.0 && masked(*rhs))
      maskedWhenTrue = false, c = *rhs;
    else if (masked(*lhs) && *rhs == 0.0)
      maskedWhenTrue = true, c = *lhs;
    else
      return rewriter.notifyMatchFailure(where, "not a 0 / -inf choice");
    Value pos =
        positionsOf(where.getCond(), maskedWhenTrue, att.getQueryLength(), att.getKeyLength());
    if (!pos)
      return rewriter.notifyMatchFailure(where, "the condition is not keys <= positions");
    rewriter.modifyOpInPlace(att, [&] {
      att.getKeyBoundMutable().assign(pos);
      att.getBiasMutable().clear();
      att.setKeyBoundMaskAttr(rewriter.getF64FloatAttr(c));
    });
    return success();
  }
};

} // namespace

void aicc::graph::populateAttentionKeyBoundPatterns(RewritePatternSet &patterns) {
  patterns.add<AttachKeyBound>(patterns.getContext());
}
