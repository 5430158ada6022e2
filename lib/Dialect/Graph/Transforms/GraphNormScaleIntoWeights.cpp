//===- GraphNormScaleIntoWeights.cpp - RMS norm scale into projection weights ----===//
//
// (x * r * g) @ W = (x * r) @ (diag(g) W) for RMSNorm (r = rsqrt(mean(x^2) + eps) per row,
// Zhang & Sennrich 2019) followed by projections by constant weights. The scale-free norm
// left behind is what graph-fuse moves into the GEMM as its prologue (rule norm-prologue):
// one kernel for the norm and the projection. The rules are in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHNORMSCALEINTOWEIGHTS
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The elements of float constant `v` as doubles (row-major), or none (not a constant, not
/// a float type, or an unreadable resource).
std::optional<std::vector<double>> constantValues(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return std::nullopt;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  auto ft = t ? dyn_cast<FloatType>(t.getElementType()) : FloatType();
  if (!ft || !t.hasStaticShape())
    return std::nullopt;
  std::vector<double> out;
  out.reserve(t.getNumElements());
  if (auto d = dyn_cast<DenseFPElementsAttr>(a)) {
    for (const APFloat &x : d.getValues<APFloat>())
      out.push_back(x.convertToDouble());
    return out;
  }
  auto r = dyn_cast<DenseResourceElementsAttr>(a);
  AsmResourceBlob *blob = r ? r.getRawHandle().getBlob() : nullptr;
  unsigned bits = ft.getWidth();
  if (!blob || bits % 8)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  int64_t eb = bits / 8;
  if ((int64_t)data.size() != t.getNumElements() * eb)
    return std::nullopt;
  for (int64_t i = 0; i < t.getNumElements(); ++i) {
    uint64_t raw = 0;
    std::memcpy(&raw, data.data() + i * eb, eb);
    APFloat x(ft.getFloatSemantics(), APInt(bits, raw));
    out.push_back(x.convertToDouble());
  }
  return out;
}

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
    if (!norm.getRms() || norm.getBias() || !norm.getScale() || !xt.hasStaticShape() ||
        static_cast<int64_t>(norm.getAxis()) != xt.getRank() - 1)
      return failure();
    int64_t K = xt.getShape().back();
    auto g = constantValues(norm.getScale());
    if (!g || (int64_t)g->size() != K)
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
      auto w = constantValues(p.w);
      if (!w)
        return failure();
      weights.push_back(std::move(*w));
    }
    // W'[k, n] = g[k] * W[k, n] (W[n, k] under transB), rounded once to W's type.
    for (auto [p, w] : llvm::zip(projections, weights)) {
      auto wt = cast<RankedTensorType>(p.w.getType());
      auto ft = cast<FloatType>(wt.getElementType());
      int64_t rows = wt.getDimSize(0), cols = wt.getDimSize(1);
      SmallVector<APFloat> scaled;
      scaled.reserve(w.size());
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          APFloat x(w[i * cols + j] * (*g)[p.transB ? j : i]);
          bool lost;
          x.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
          scaled.push_back(x);
        }
      OpBuilder b(p.op);
      Value newW = ConstantOp::create(b, p.w.getLoc(), wt, DenseElementsAttr::get(wt, scaled));
      p.op->replaceUsesOfWith(p.w, newW);
      if (Operation *old = p.w.getDefiningOp(); old && old->use_empty())
        old->erase();
    }
    Value g0 = norm.getScale();
    norm.getScaleMutable().clear();
    if (Operation *old = g0.getDefiningOp(); old && old->use_empty())
      old->erase();
    return success();
  }
};

} // namespace
