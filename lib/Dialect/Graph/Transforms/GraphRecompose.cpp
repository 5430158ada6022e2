//===- GraphRecompose.cpp - rebuild GELU, LayerNorm, RMSNorm --------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <optional>

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHRECOMPOSE
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// True when `v` is a constant whose every element is `want`, within the
/// rounding of the constant's element type (relative 1e-6 for f32/f64, 1e-3
/// for f16, 8e-3 for bf16: exporters round sqrt(2/pi) etc. to the model dtype).
bool isSplat(Value v, double want) {
  DenseFPElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  Type et = attr.getElementType();
  double tol = et.isF16() ? 1e-3 : et.isBF16() ? 8e-3 : 1e-6;
  double got = attr.getSplatValue<APFloat>().convertToDouble();
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

/// For a commutative binary op, the operand that is not `known` (or null).
Value other(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

/// The three factors of a product a*b*c written as mul(a, mul(b, c)) or
/// mul(mul(a, b), c) in any operand order; the inner mul must have no other
/// user (it disappears in the rewrite).
std::optional<SmallVector<Value, 3>> threeFactors(MulOp root) {
  for (int i = 0; i < 2; ++i) {
    auto inner = root->getOperand(i).getDefiningOp<MulOp>();
    if (inner && inner->hasOneUse())
      return SmallVector<Value, 3>{root->getOperand(1 - i), inner.getLhs(), inner.getRhs()};
  }
  return std::nullopt;
}

/// Finds a permutation of `f` that makes (f[0] == 0.5 splat, f[1] == x,
/// pred(x, f[2])) hold; returns x or null.
template <typename Pred> Value matchHalfXTerm(ArrayRef<Value> f, Pred pred) {
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto &p : perms)
    if (isSplat(f[p[0]], 0.5) && pred(f[p[1]], f[p[2]]))
      return f[p[1]];
  return {};
}

/// `v` is add(t, 1) or add(1, t) with t defined by OpTy; returns t's op.
template <typename OpTy> OpTy onePlus(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return {};
  for (int j = 0; j < 2; ++j)
    if (isSplat(add->getOperand(1 - j), 1.0))
      if (auto t = add->getOperand(j).getDefiningOp<OpTy>())
        return t;
  return {};
}

/// `v` is x * c or c * x with c a splat equal to `want`.
bool isScaled(Value v, Value x, double want) {
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return false;
  Value c = other(mul, x);
  return c && isSplat(c, want);
}

/// `v` is x*x*x in any association.
bool isCube(Value v, Value x) {
  auto m = v.getDefiningOp<MulOp>();
  if (!m)
    return false;
  for (int i = 0; i < 2; ++i) {
    auto sq = m->getOperand(i).getDefiningOp<MulOp>();
    if (m->getOperand(1 - i) == x && sq && sq.getLhs() == x && sq.getRhs() == x)
      return true;
  }
  return false;
}

/// GELU, erf form (ONNX Gelu approximate="none"; PyTorch's exact GELU):
/// 0.5 * x * (1 + erf(x / sqrt(2))) with the product in any association and
/// order, and x / sqrt(2) also as x * (1 / sqrt(2)).
struct RecomposeGelu : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    auto f = threeFactors(root);
    if (!f)
      return failure();
    Value x = matchHalfXTerm(*f, [](Value x, Value t) {
      auto erf = onePlus<ErfOp>(t);
      if (!erf)
        return false;
      Value arg = erf.getInput();
      if (auto div = arg.getDefiningOp<DivOp>())
        return div.getLhs() == x && isSplat(div.getRhs(), std::sqrt(2.0));
      return isScaled(arg, x, 1.0 / std::sqrt(2.0));
    });
    if (!x || x.getType() != root.getType())
      return failure();
    rewriter.replaceOpWithNewOp<GeluOp>(root, root.getType(), x, rewriter.getStringAttr("none"));
    return success();
  }
};

/// GELU, tanh form (ONNX Gelu approximate="tanh"; PyTorch gelu(approximate="tanh"),
/// GPT-2's "new GELU"; Hendrycks & Gimpel, arXiv:1606.08415, eq. 2):
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), the cube as x*x*x
/// (graph.pow x^3 canonicalizes to it) and the products in any order.
struct RecomposeGeluTanh : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    auto f = threeFactors(root);
    if (!f)
      return failure();
    const double beta = std::sqrt(2.0 / M_PI), kappa = 0.044715;
    Value x = matchHalfXTerm(*f, [&](Value x, Value t) {
      auto tanh = onePlus<TanhOp>(t);
      if (!tanh)
        return false;
      auto scaled = tanh.getInput().getDefiningOp<MulOp>();
      if (!scaled)
        return false;
      for (int i = 0; i < 2; ++i) {
        if (!isSplat(scaled->getOperand(1 - i), beta))
          continue;
        auto sum = scaled->getOperand(i).getDefiningOp<AddOp>();
        Value cubeTerm = sum ? other(sum, x) : Value();
        if (!cubeTerm)
          continue;
        auto m = cubeTerm.getDefiningOp<MulOp>();
        if (!m)
          continue;
        for (int j = 0; j < 2; ++j)
          if (isSplat(m->getOperand(1 - j), kappa) && isCube(m->getOperand(j), x))
            return true;
      }
      return false;
    });
    if (!x || x.getType() != root.getType())
      return failure();
    rewriter.replaceOpWithNewOp<GeluOp>(root, root.getType(), x, rewriter.getStringAttr("tanh"));
    return success();
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

/// sqrt(add(reduce_mean(mul(x, x)), eps)) over trailing dims of `x`: the RMS of `x`
/// (Zhang, Sennrich 2019). Returns the first normalized dim and eps.
std::optional<std::pair<int64_t, double>> matchRMS(Value x, Value rms) {
  auto sqrt = rms.getDefiningOp<SqrtOp>();
  auto add = sqrt ? sqrt.getInput().getDefiningOp<AddOp>() : AddOp();
  if (!add)
    return std::nullopt;
  for (int j = 0; j < 2; ++j) {
    auto ms = add->getOperand(j).getDefiningOp<ReduceMeanOp>();
    DenseFPElementsAttr eps;
    if (!ms || !matchPattern(add->getOperand(1 - j), m_Constant(&eps)) || !eps.isSplat())
      continue;
    auto sq = ms.getInput().getDefiningOp<MulOp>();
    int64_t axis = trailingAxis(ms);
    if (!sq || sq.getLhs() != x || sq.getRhs() != x || axis < 0)
      continue;
    return std::pair{axis, eps.getSplatValue<APFloat>().convertToDouble()};
  }
  return std::nullopt;
}

/// RMS norm as exported (ONNX RMSNormalization's function body, PyTorch / Hugging Face
/// RMSNorm): div(x, rms(x)) or mul(x, reciprocal(rms(x))) -> layer_norm rms. Below
/// RecomposeLayerNorm's benefit, which takes div(d, rms(d)) with d = x - mean(x) first.
struct RecomposeRMSNorm : public OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp root, PatternRewriter &rewriter) const override {
    Value x = root.getLhs();
    auto m = matchRMS(x, root.getRhs());
    if (!m || x.getType() != root.getType())
      return failure();
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        root, root.getType(), x, Value(), Value(), rewriter.getI64IntegerAttr(m->first),
        rewriter.getF64FloatAttr(m->second), rewriter.getBoolAttr(true));
    return success();
  }
};
struct RecomposeRMSNormReciprocal : public OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp root, PatternRewriter &rewriter) const override {
    for (int j = 0; j < 2; ++j) {
      Value x = root->getOperand(j);
      auto r = root->getOperand(1 - j).getDefiningOp<ReciprocalOp>();
      auto m = r ? matchRMS(x, r.getInput()) : std::nullopt;
      if (!m || x.getType() != root.getType())
        continue;
      rewriter.replaceOpWithNewOp<LayerNormOp>(
          root, root.getType(), x, Value(), Value(), rewriter.getI64IntegerAttr(m->first),
          rewriter.getF64FloatAttr(m->second), rewriter.getBoolAttr(true));
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
                                               ln.getAxisAttr(), ln.getEpsilonAttr(),
                                               ln.getRmsAttr());
      return success();
    }
    return failure();
  }
};

/// cast(layer_norm(cast(x) : T -> f32)) : f32 -> T -> layer_norm(x) for a 16-bit float T
/// (torch's RMSNorm: `x.float()`, normalize, `.to(x.dtype)`, then `* weight`): a T norm is
/// computed in f32 and rounded once to T (LayerNormOp), the same value; the scale that
/// follows is then absorbed (AbsorbAffine) and the norm can be a GEMM's prologue.
struct NarrowLayerNorm : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp root, PatternRewriter &rewriter) const override {
    auto ln = root.getInput().getDefiningOp<LayerNormOp>();
    if (!ln || !ln->hasOneUse() || ln.getScale() || ln.getBias())
      return failure();
    auto wide = ln.getInput().getDefiningOp<CastOp>();
    if (!wide || wide.getInput().getType() != root.getType() ||
        !ln.getType().getElementType().isF32())
      return failure();
    Type t = cast<ShapedType>(root.getType()).getElementType();
    if (!t.isF16() && !t.isBF16())
      return failure();
    rewriter.replaceOpWithNewOp<LayerNormOp>(root, root.getType(), wide.getInput(), Value(),
                                             Value(), ln.getAxisAttr(), ln.getEpsilonAttr(),
                                             ln.getRmsAttr());
    return success();
  }
};

struct GraphRecomposePass : public aicc::graph::impl::GraphRecomposeBase<GraphRecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecomposeGelu, RecomposeGeluTanh, AbsorbAffine<MulOp, true>,
                 AbsorbAffine<AddOp, false>, RecomposeRMSNorm, RecomposeRMSNormReciprocal,
                 NarrowLayerNorm>(&getContext());
    patterns.add<RecomposeLayerNorm>(&getContext(), /*benefit=*/2);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
