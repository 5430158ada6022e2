//===- GraphNormScaleIntoWeights.cpp - norm scale and bias into projection weights ===//
//
// (x * r * g) @ W = (x * r) @ (diag(g) W) for RMSNorm (r = rsqrt(mean(x^2) + eps) per row,
// Zhang & Sennrich 2019) followed by projections by constant weights; for LayerNorm
// (Ba et al. 2016) also (n * g + beta) @ W = n @ (diag(g) W) + beta @ W, n = (x - mu) r.
// The scale-free norm left behind is what graph-fuse moves into the GEMM as its prologue
// (rule norm-prologue): one kernel for the norm and the projection. The rules are in
// Passes.td.
//
//===----------------------------------------------------------------------===//
#include "ConstantValues.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHNORMSCALEINTOWEIGHTS
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// A projection of the normalized value: its left operand is `n` and its weight a 2-D
/// constant of a float type, K rows ([K, N]) or, under Gemm's transB, K columns.
struct Projection {
  Operation *op;
  Value w;
  bool transB;
};

std::optional<Projection> projectionOf(Operation *user, Value n, int64_t K) {
  Projection p{user, Value(), false};
  if (auto mm = dyn_cast<MatMulOp>(user)) {
    if (mm.getLhs() != n || mm.getRhs() == n)
      return std::nullopt;
    p.w = mm.getRhs();
  } else if (auto gemm = dyn_cast<GemmOp>(user)) {
    if (gemm.getA() != n || gemm.getB() == n || gemm.getC() == n || gemm.getTransA())
      return std::nullopt;
    p.w = gemm.getB();
    p.transB = gemm.getTransB();
  } else {
    return std::nullopt;
  }
  auto wt = dyn_cast<RankedTensorType>(p.w.getType());
  if (!wt || wt.getRank() != 2 || !wt.hasStaticShape() || wt.getDimSize(p.transB ? 1 : 0) != K ||
      !isa<FloatType>(wt.getElementType()) || !matchPattern(p.w, m_Constant()))
    return std::nullopt;
  return p;
}

struct GraphNormScaleIntoWeightsPass
    : public aicc::graph::impl::GraphNormScaleIntoWeightsBase<GraphNormScaleIntoWeightsPass> {
  using GraphNormScaleIntoWeightsBase::GraphNormScaleIntoWeightsBase;

  void runOnOperation() override {
    SmallVector<LayerNormOp> norms;
    getOperation().walk([&](LayerNormOp op) { norms.push_back(op); });
    for (LayerNormOp norm : norms)
      (void)fold(norm);
  }

  LogicalResult fold(LayerNormOp norm) {
    auto xt = cast<RankedTensorType>(norm.getInput().getType());
    // RMS: a scale and no bias. LayerNorm: a scale, a bias or both.
    bool foldable =
        norm.getRms() ? !norm.getBias() && norm.getScale() : norm.getScale() || norm.getBias();
    if (!foldable || !xt.hasStaticShape() ||
        static_cast<int64_t>(norm.getAxis()) != xt.getRank() - 1)
      return failure();
    int64_t K = xt.getShape().back();
    std::optional<std::vector<double>> g, beta;
    if (norm.getScale())
      if (g = floatConstantValues(norm.getScale()); !g || (int64_t)g->size() != K)
        return failure();
    if (norm.getBias())
      if (beta = floatConstantValues(norm.getBias()); !beta || (int64_t)beta->size() != K)
        return failure();
    Value n = norm.getResult();
    SmallVector<Projection> projections;
    for (Operation *u : n.getUsers()) {
      auto p = projectionOf(u, n, K);
      if (!p)
        return failure();
      projections.push_back(*p);
    }
    if (projections.empty())
      return failure();
    SmallVector<std::vector<double>> weights;
    for (const Projection &p : projections) {
      auto w = floatConstantValues(p.w);
      if (!w)
        return failure();
      weights.push_back(std::move(*w));
    }
    // The bias's product beta @ W of each projection (f64, from the weights as they were),
    // and where it goes: into the constant of the projection's one user, an add of a
    // constant [N] (a Linear's bias), or a new add after the projection.
    SmallVector<std::vector<double>> biasTerms;
    SmallVector<AddOp> biasAdds;
    if (beta)
      for (auto [p, w] : llvm::zip(projections, weights)) {
        auto wt = cast<RankedTensorType>(p.w.getType());
        int64_t cols = wt.getDimSize(1), N = p.transB ? wt.getDimSize(0) : cols;
        double alpha = 1.0;
        if (auto gemm = dyn_cast<GemmOp>(p.op))
          alpha = gemm.getAlpha().convertToDouble();
        std::vector<double> t(N, 0.0);
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j)
            t[j] += (*beta)[k] * w[p.transB ? j * cols + k : k * cols + j];
        for (double &x : t)
          x *= alpha;
        biasTerms.push_back(std::move(t));
        biasAdds.push_back(biasAddOf(p.op->getResult(0), N));
      }
    // W'[k, n] = g[k] * W[k, n] (W[n, k] under transB), rounded once to W's type.
    if (g)
      for (auto [p, w] : llvm::zip(projections, weights)) {
        auto wt = cast<RankedTensorType>(p.w.getType());
        int64_t rows = wt.getDimSize(0), cols = wt.getDimSize(1);
        std::vector<double> scaled;
        scaled.reserve(w.size());
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            scaled.push_back(w[i * cols + j] * (*g)[p.transB ? j : i]);
        replaceConstant(p.op, p.w, roundedFloatAttr(wt, scaled));
      }
    // b' = b + beta @ W, rounded once to the result's type.
    for (auto [i, term] : llvm::enumerate(biasTerms)) {
      Operation *proj = projections[i].op;
      Value y = proj->getResult(0);
      auto yt = cast<RankedTensorType>(y.getType());
      auto bt = RankedTensorType::get({(int64_t)term.size()}, yt.getElementType());
      if (AddOp add = biasAdds[i]) {
        Value c = add.getLhs() == y ? add.getRhs() : add.getLhs();
        std::vector<double> sum = *floatConstantValues(c);
        for (auto [s, t] : llvm::zip(sum, term))
          s += t;
        replaceConstant(add, c, roundedFloatAttr(cast<RankedTensorType>(c.getType()), sum));
        continue;
      }
      OpBuilder b(proj->getContext());
      b.setInsertionPointAfter(proj);
      Value c = ConstantOp::create(b, proj->getLoc(), bt, roundedFloatAttr(bt, term));
      auto add = AddOp::create(b, proj->getLoc(), yt, y, c);
      y.replaceAllUsesExcept(add.getResult(), add);
    }
    Value g0 = norm.getScale(), b0 = norm.getBias();
    norm.getScaleMutable().clear();
    norm.getBiasMutable().clear();
    for (Value v : {g0, b0})
      if (Operation *old = v ? v.getDefiningOp() : nullptr; old && old->use_empty())
        old->erase();
    return success();
  }

  /// The add that gives projection result `y` a constant [N] bias of y's element type when
  /// it is y's only user (a Linear's bias), else null.
  static AddOp biasAddOf(Value y, int64_t N) {
    if (!y.hasOneUse())
      return AddOp();
    auto add = dyn_cast<AddOp>(*y.getUsers().begin());
    if (!add || add.getLhs() == add.getRhs())
      return AddOp();
    Value c = add.getLhs() == y ? add.getRhs() : add.getLhs();
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    auto yt = cast<RankedTensorType>(y.getType());
    if (!ct || ct.getRank() != 1 || ct.getDimSize(0) != N ||
        ct.getElementType() != yt.getElementType() || add.getType() != yt ||
        !floatConstantValues(c))
      return AddOp();
    return add;
  }

  /// Replaces operand `old` of `user`, a constant, by a new constant `value` (the old one
  /// erased when nothing else reads it).
  static void replaceConstant(Operation *user, Value old, DenseElementsAttr value) {
    OpBuilder b(user);
    Value c = ConstantOp::create(b, old.getLoc(), value.getType(), value);
    user->replaceUsesOfWith(old, c);
    if (Operation *def = old.getDefiningOp(); def && def->use_empty())
      def->erase();
  }
};

} // namespace
