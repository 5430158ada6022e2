//===- GraphScatterInPlace.cpp - a model input's ScatterND along its own axis ----===//
//
// graph-scatter-in-place (Passes.td). torch's index_copy of a KV cache along its sequence
// dim (HF's StaticCache.update, `cache.index_copy(2, pos, k)`) is exported by the dynamo
// exporter as
//
//   t = Transpose(cache, p)          p moves dims [a, a + k) to the front, the rest in order
//   s = ScatterND(t, indices, upd)   indices [T..., k], upd [T...] + t.shape[k:]
//   r = Transpose(s, inverse(p))
//
// which is scatter_nd(cache, indices, upd) {axis = a}: the same update slices, written where
// they land in the cache's own layout (GraphOps.td). When the cache is a model input read
// by nothing else, convert-graph-to-tile then writes the updates into the input's buffer
// and returns that buffer as the output (no copy of the cache, no transposes: a decode step
// moves T slices instead of the whole cache three times).
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHSCATTERINPLACE
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The axis `a` when `perm` moves dims [a, a + k) to the front in order and keeps the other
/// dims in their order; std::nullopt otherwise.
std::optional<int64_t> frontAxis(ArrayRef<int64_t> perm, int64_t k) {
  int64_t rank = perm.size();
  if (k < 1 || k > rank)
    return std::nullopt;
  int64_t a = perm[0];
  for (int64_t i = 0; i < k; ++i)
    if (perm[i] != a + i)
      return std::nullopt;
  int64_t next = 0;
  for (int64_t i = k; i < rank; ++i) {
    if (next == a)
      next += k;
    if (perm[i] != next++)
      return std::nullopt;
  }
  return a;
}

struct FoldScatterTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp outer, PatternRewriter &rewriter) const override {
    auto sc = outer.getInput().getDefiningOp<ScatterNDOp>();
    if (!sc || sc.getAxis() != 0 || !sc->hasOneUse())
      return rewriter.notifyMatchFailure(outer, "not the transpose of a scatter_nd's result");
    auto inner = sc.getData().getDefiningOp<TransposeOp>();
    if (!inner || !inner->hasOneUse())
      return rewriter.notifyMatchFailure(sc, "the data is not a transpose read only here");
    // Only a model input read by nothing else: its buffer can take the update in place.
    auto arg = dyn_cast<BlockArgument>(inner.getInput());
    if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) || !arg.hasOneUse())
      return rewriter.notifyMatchFailure(inner, "the transposed data is not a model input "
                                                "read only by this transpose");
    auto idxT = dyn_cast<RankedTensorType>(sc.getIndices().getType());
    if (!idxT || idxT.getRank() < 1)
      return failure();
    ArrayRef<int64_t> p = inner.getPerm(), q = outer.getPerm();
    std::optional<int64_t> a = frontAxis(p, idxT.getShape().back());
    if (!a || q.size() != p.size())
      return rewriter.notifyMatchFailure(inner, "the transpose does not move one run of "
                                                "dims to the front");
    for (size_t i = 0; i < p.size(); ++i)
      if (q[p[i]] != (int64_t)i)
        return rewriter.notifyMatchFailure(outer, "the second transpose is not the inverse");
    rewriter.replaceOpWithNewOp<ScatterNDOp>(outer, outer.getType(), arg, sc.getIndices(),
                                             sc.getUpdates(), sc.getReductionAttr(),
                                             rewriter.getI64IntegerAttr(*a));
    rewriter.eraseOp(sc);
    rewriter.eraseOp(inner);
    return success();
  }
};

struct GraphScatterInPlacePass
    : public aicc::graph::impl::GraphScatterInPlaceBase<GraphScatterInPlacePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldScatterTransposes>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
