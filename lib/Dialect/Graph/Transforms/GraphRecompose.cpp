//===- GraphRecompose.cpp - rebuild GELU and LayerNorm from their pieces ---===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHRECOMPOSE
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// True when `v` is a constant whose every element is `want` (relative tolerance 1e-6).
bool isSplat(Value v, double want) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  double got = attr.getSplatValue<APFloat>().convertToDouble();
  return std::abs(got - want) <= 1e-6 * std::max(1.0, std::abs(want));
}

/// For a commutative binary op, the operand that is not `known` (or null).
Value other(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

/// mul(mul(x, add(erf(div(x, sqrt2)), 1)), 0.5), and mul(x, mul(add(...), 0.5)).
struct RecomposeGelu : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    // Find the "add(erf(div(x, sqrt2)), 1)" term and x among the two nested muls.
    for (int half = 0; half < 2; ++half) {
      if (!isSplat(root->getOperand(half), 0.5))
        continue;
      auto inner = root->getOperand(1 - half).getDefiningOp<MulOp>();
      if (!inner)
        continue;
      for (int k = 0; k < 2; ++k) {
        auto add = inner->getOperand(k).getDefiningOp<AddOp>();
        Value x = inner->getOperand(1 - k);
        if (!add)
          continue;
        for (int j = 0; j < 2; ++j) {
          auto erf = add->getOperand(j).getDefiningOp<ErfOp>();
          if (!erf || !isSplat(add->getOperand(1 - j), 1.0))
            continue;
          auto div = erf.getInput().getDefiningOp<DivOp>();
          if (!div || div.getLhs() != x || !isSplat(div.getRhs(), std::sqrt(2.0)) ||
              x.getType() != root.getType())
            continue;
          rewriter.replaceOpWithNewOp<GeluOp>(root, root.getType(), x,
                                              rewriter.getStringAttr("none"));
          return success();
        }
      }
    }
    return failure();
  }
};

/// Trailing dims [axis, rank) of a keepdims reduce_mean, or -1.
int64_t trailingAxis(ReduceMeanOp r) {
  if (!r.getKeepdims())
    return -1;
  int64_t rank = r.getInput().getType().getRank();
  ArrayRef<int64_t> axes = r.getAxes();
  if (axes.empty() || axes.back() != rank - 1)
    return -1;
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1)
      return -1;
  return axes.front();
}

/// div(d, sqrt(add(reduce_mean(mul(d, d)), eps))), d = sub(x, reduce_mean(x)).
struct RecomposeLayerNorm : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp root, PatternRewriter &rewriter) const override {
    auto d = root.getLhs().getDefiningOp<SubOp>();
    auto sqrt = root.getRhs().getDefiningOp<SqrtOp>();
    if (!d || !sqrt)
      return failure();
    auto mean = d.getRhs().getDefiningOp<ReduceMeanOp>();
    Value x = d.getLhs();
    if (!mean || mean.getInput() != x || x.getType() != root.getType())
      return failure();
    int64_t axis = trailingAxis(mean);
    auto add = sqrt.getInput().getDefiningOp<AddOp>();
    if (axis < 0 || !add)
      return failure();
    for (int j = 0; j < 2; ++j) {
      auto var = add->getOperand(j).getDefiningOp<ReduceMeanOp>();
      DenseFPElementsAttr eps;
      if (!var || trailingAxis(var) != axis ||
          !matchPattern(add->getOperand(1 - j), m_Constant(&eps)) || !eps.isSplat())
        continue;
      auto sq = var.getInput().getDefiningOp<MulOp>();
      if (!sq || sq.getLhs() != d.getResult() || sq.getRhs() != d.getResult())
        continue;
      rewriter.replaceOpWithNewOp<LayerNormOp>(
          root, root.getType(), x, Value(), Value(), rewriter.getI64IntegerAttr(axis),
          rewriter.getF64FloatAttr(eps.getSplatValue<APFloat>().convertToDouble()));
      return success();
    }
    return failure();
  }
};

/// mul(layer_norm(x), w) -> layer_norm(x, scale = w); add(layer_norm(x, ...), b) -> bias.
template <typename OpTy, bool isScale>
struct AbsorbAffine : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    for (int j = 0; j < 2; ++j) {
      auto ln = op->getOperand(j).template getDefiningOp<LayerNormOp>();
      Value p = op->getOperand(1 - j);
      if (!ln || !ln->hasOneUse() || op.getType() != ln.getType())
        continue;
      auto pt = cast<RankedTensorType>(p.getType());
      int64_t normRank = ln.getType().getRank() - ln.getAxis();
      if (pt.getRank() > normRank || pt.getElementType() != ln.getType().getElementType())
        continue;
      if (isScale ? (bool)ln.getScale() || (bool)ln.getBias() : (bool)ln.getBias())
        continue;
      Value scale = isScale ? p : ln.getScale(), bias = isScale ? Value() : p;
      rewriter.replaceOpWithNewOp<LayerNormOp>(op, op.getType(), ln.getInput(), scale, bias,
                                               ln.getAxisAttr(), ln.getEpsilonAttr());
      return success();
    }
    return failure();
  }
};

struct GraphRecomposePass : public aicc::graph::impl::GraphRecomposeBase<GraphRecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecomposeGelu, RecomposeLayerNorm, AbsorbAffine<MulOp, true>,
                 AbsorbAffine<AddOp, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
