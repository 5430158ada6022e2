//===- GraphScatterToSelect.cpp - a few run-time rows of ScatterND as selects ----===//
//
// graph-scatter-to-select (Passes.td). ScatterND writing T <= max-updates slices of the
// first dim at run-time positions (torch's index_copy / index_put of a KV cache at the
// step's positions: indices [T, 1]) is, for every element of the result,
//
//   result = data;  for t in 0..T-1:  result = where(iota0 == norm(indices[t]), updates[t], result)
//
// (iota0: a constant [N, 1, ..., 1] of 0..N-1 along dim 0; norm: a negative index plus N, as
// ScatterND counts it, then clamped to [0, N - 1] as aicc's scatter kernel clamps,
// docs/onnx-import.md), every op at the data's shape over expand views of the positions, the
// iota and the update: elementwise ops and views only, so graph-fuse puts the whole update
// in one elementwise kernel with the transposes around it (index_copy along an inner dim is
// exported transpose -> ScatterND -> transpose), instead of a copy of the data, the scatter
// and the transposes' copies. The last of duplicate positions wins, as ScatterND's order has
// it; a position outside [-N, N) (ScatterND: an error) updates the nearest row, like the
// scatter kernel, never memory past the tensor.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHSCATTERTOSELECT
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The iota constant has N elements: at most this many (a cap on the constant's bytes).
constexpr int64_t kMaxIotaElements = 1 << 20;

struct ScatterToSelect : public OpRewritePattern<ScatterNDOp> {
  ScatterToSelect(MLIRContext *ctx, int64_t maxUpdates)
      : OpRewritePattern(ctx), maxUpdates(maxUpdates) {}
  int64_t maxUpdates;

  LogicalResult matchAndRewrite(ScatterNDOp op, PatternRewriter &rewriter) const override {
    auto dataT = dyn_cast<RankedTensorType>(op.getData().getType());
    auto idxT = dyn_cast<RankedTensorType>(op.getIndices().getType());
    auto updT = dyn_cast<RankedTensorType>(op.getUpdates().getType());
    if (op.getReduction() != "none" || op.getAxis() != 0 || !dataT || !idxT || !updT ||
        !dataT.hasStaticShape() || !idxT.hasStaticShape() || !updT.hasStaticShape() ||
        dataT.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "not a static ScatterND without reduction");
    int64_t r = dataT.getRank(), n = dataT.getDimSize(0);
    if (idxT.getRank() != 2 || idxT.getDimSize(1) != 1 ||
        !(idxT.getElementType().isSignlessInteger(64) ||
          idxT.getElementType().isSignlessInteger(32)))
      return rewriter.notifyMatchFailure(op, "indices are not [T, 1] i64 / i32 positions of dim 0");
    int64_t t = idxT.getDimSize(0);
    SmallVector<int64_t> updShape{t};
    llvm::append_range(updShape, dataT.getShape().drop_front());
    if (t < 1 || t > maxUpdates || updT.getShape() != ArrayRef<int64_t>(updShape) || n < 1 ||
        n > kMaxIotaElements)
      return rewriter.notifyMatchFailure(op, "not a few slices of dim 0");
    Location loc = op.getLoc();
    Type ie = idxT.getElementType();
    unsigned bits = ie.getIntOrFloatBitWidth();
    // Every op at the data's shape (the operands' broadcasts are expand views), so that
    // graph-fuse keeps the position arithmetic in the one kernel that writes the result.
    auto full = [&](Type e) { return RankedTensorType::get(dataT.getShape(), e); };
    auto fullI = full(ie), fullB = full(rewriter.getI1Type());
    SmallVector<int64_t> unit(r, 1), col(r, 1);
    col[0] = n;
    auto unitT = RankedTensorType::get(unit, ie), colT = RankedTensorType::get(col, ie);
    SmallVector<APInt> iota;
    for (int64_t i = 0; i < n; ++i)
      iota.push_back(APInt(bits, i, /*isSigned=*/true));
    Value iotaV = ExpandOp::create(
        rewriter, loc, fullI,
        ConstantOp::create(rewriter, loc, colT, DenseElementsAttr::get(colT, iota)));
    auto scalar = [&](int64_t v) -> Value {
      auto t = RankedTensorType::get({}, ie);
      return ConstantOp::create(rewriter, loc, t,
                                DenseElementsAttr::get(t, APInt(bits, v, /*isSigned=*/true)));
    };
    Value zero = scalar(0), size = scalar(n), last = scalar(n - 1);
    Value result = op.getData();
    SmallVector<int64_t> updOne(updShape);
    updOne[0] = 1;
    for (int64_t k = 0; k < t; ++k) {
      // indices[k] at every element; a negative position counts from the end.
      Value idx = SliceOp::create(rewriter, loc, RankedTensorType::get({1, 1}, ie), op.getIndices(),
                                  rewriter.getDenseI64ArrayAttr({k, 0}),
                                  rewriter.getDenseI64ArrayAttr({1, 1}));
      idx = ExpandOp::create(rewriter, loc, fullI, ReshapeOp::create(rewriter, loc, unitT, idx));
      Value neg = LessOp::create(rewriter, loc, fullB, idx, zero);
      idx = WhereOp::create(rewriter, loc, fullI, neg,
                            AddOp::create(rewriter, loc, fullI, idx, size), idx);
      // Out of range: clamped to [0, N - 1], as the scatter kernel does
      // (docs/onnx-import.md, "Indices out of range").
      idx =
          MinOp::create(rewriter, loc, fullI, MaxOp::create(rewriter, loc, fullI, idx, zero), last);
      Value hit = EqualOp::create(rewriter, loc, fullB, iotaV, idx);
      SmallVector<int64_t> starts(r, 0), steps(r, 1);
      starts[0] = k;
      Value upd = SliceOp::create(
          rewriter, loc, RankedTensorType::get(updOne, updT.getElementType()), op.getUpdates(),
          rewriter.getDenseI64ArrayAttr(starts), rewriter.getDenseI64ArrayAttr(steps));
      upd = ExpandOp::create(rewriter, loc, dataT, upd);
      result = WhereOp::create(rewriter, loc, dataT, hit, upd, result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GraphScatterToSelectPass
    : public aicc::graph::impl::GraphScatterToSelectBase<GraphScatterToSelectPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxUpdates < 0) {
      getOperation().emitError("graph-scatter-to-select: max-updates must be >= 0, got ")
          << static_cast<int64_t>(maxUpdates);
      return signalPassFailure();
    }
    if (maxUpdates == 0)
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<ScatterToSelect>(&getContext(), static_cast<int64_t>(maxUpdates));
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
