//===- ImportMisc.cpp - ONNX misc ops -> graph dialect ----------------------===//
//
// ops that fit no other family: ThresholdedRelu, IsInf, IsNaN, LRN,
// MeanVarianceNormalization. Each is a decomposition into existing graph ops.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importMiscOps(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  if (op == "ThresholdedRelu")
    return importThresholdedRelu(nc);
  if (op == "IsInf" || op == "IsNaN")
    return importIsInfNaN(nc);
  if (op == "LRN")
    return importLRN(nc);
  if (op == "MeanVarianceNormalization")
    return importMVN(nc);
  return std::nullopt;
}

/// ThresholdedRelu (ONNX operator spec, opset 10): y = x > alpha ? x : 0.
LogicalResult Importer::importThresholdedRelu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto alpha = getFloat(nc, "alpha", 1.0f);
  if (failed(in) || failed(alpha))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  Type elem = t->getElementType();
  Value keep =
      graph::GreaterOp::create(b, nc.loc, RankedTensorType::get(t->getShape(), b.getI1Type()), *in,
                               scalarF(nc.loc, elem, *alpha));
  Value zero = scalarF(nc.loc, elem, 0.0);
  return define(nc, 0, graph::WhereOp::create(b, nc.loc, *t, keep, *in, zero));
}

/// IsNaN (opset 9/13): x != x, i.e. not(x == x) with the ordered comparison.
/// IsInf (opset 10): x == +inf when detect_positive, x == -inf when detect_negative.
LogicalResult Importer::importIsInfNaN(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  auto boolT = RankedTensorType::get(t->getShape(), b.getI1Type());
  Location loc = nc.loc;
  if (nc.opType() == "IsNaN") {
    Value same = graph::EqualOp::create(b, loc, boolT, *in, *in);
    return define(nc, 0, graph::NotOp::create(b, loc, boolT, same));
  }
  auto pos = getInt(nc, "detect_positive", 1), neg = getInt(nc, "detect_negative", 1);
  if (failed(pos) || failed(neg))
    return failure();
  Type elem = t->getElementType();
  double inf = std::numeric_limits<double>::infinity();
  Value result;
  for (auto [on, v] : {std::pair{*pos != 0, inf}, std::pair{*neg != 0, -inf}}) {
    if (!on)
      continue;
    Value eq = graph::EqualOp::create(b, loc, boolT, *in, scalarF(loc, elem, v));
    result = result ? graph::OrOp::create(b, loc, boolT, result, eq).getResult() : eq;
  }
  if (!result) // neither sign detected: all false
    result = createConstant(loc, DenseElementsAttr::get(boolT, false));
  return define(nc, 0, result);
}

/// LRN (ONNX operator spec; Krizhevsky et al., "ImageNet Classification with Deep
/// Convolutional Neural Networks", 2012, section 3.3):
///   square_sum[n, c, d...] = sum of x[n, i, d...]^2 for i in
///     [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] (clipped to [0, C)),
///   y = x / (bias + alpha / size * square_sum)^beta.
/// The window sum is an average pool over the channel dim of [N, 1, C, prod(D)] with
/// zero padding counted (count_include_pad), times size; so alpha / size * square_sum is
/// alpha * that average.
LogicalResult Importer::importLRN(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto alpha = getFloat(nc, "alpha", 0.0001f), beta = getFloat(nc, "beta", 0.75f),
       bias = getFloat(nc, "bias", 1.0f);
  auto size = getInt(nc, "size", 0);
  if (failed(in) || failed(alpha) || failed(beta) || failed(bias) || failed(size))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  if (!findAttr(nc, "size"))
    return nodeError(nc) << "attribute 'size' is required";
  if (*size < 1)
    return nodeError(nc) << "attribute 'size' must be >= 1, got " << *size;
  if (t->getRank() < 2)
    return nodeError(nc) << "input must have rank >= 2 ([N, C, D1, ...]), got " << *t;
  Location loc = nc.loc;
  Type elem = t->getElementType();
  int64_t n = t->getDimSize(0), c = t->getDimSize(1), rest = 1;
  for (int64_t d = 2; d < t->getRank(); ++d)
    rest *= t->getDimSize(d);
  Value sq = bin<graph::MulOp>(loc, *in, *in);
  Value sq4 = reshape(loc, sq, {n, 1, c, rest});
  int64_t lo = (*size - 1) / 2, hi = *size - 1 - lo;
  auto i64s = [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); };
  Value avg = graph::AvgPoolOp::create(b, loc, sq4.getType(), sq4, i64s({*size, 1}), i64s({1, 1}),
                                       i64s({lo, 0, hi, 0}), i64s({1, 1}), b.getBoolAttr(true));
  Value scaled =
      bin<graph::MulOp>(loc, reshape(loc, avg, t->getShape()), scalarF(loc, elem, *alpha));
  Value base = bin<graph::AddOp>(loc, scaled, scalarF(loc, elem, *bias));
  Value denom = bin<graph::PowOp>(loc, base, scalarF(loc, elem, *beta));
  return define(nc, 0, bin<graph::DivOp>(loc, *in, denom));
}

/// MeanVarianceNormalization (ONNX operator spec, opset 9/13; function body):
///   y = (x - E[x]) / (sqrt(E[(x - E[x])^2]) + 1e-9), means over `axes` (default
///   [0, 2, 3]). The spec's body writes the variance as E[x^2] - E[x]^2; the centred
///   form is the same quantity, computed without cancellation.
LogicalResult Importer::importMVN(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto axesAttr = getInts(nc, "axes");
  if (failed(in) || failed(axesAttr))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  SmallVector<int64_t> axes = *axesAttr ? **axesAttr : SmallVector<int64_t>{0, 2, 3};
  for (int64_t &a : axes) {
    auto norm = normalizeAxis(nc, a, t->getRank(), /*allowRank=*/false);
    if (failed(norm))
      return failure();
    a = *norm;
  }
  llvm::sort(axes);
  if (axes.empty() || std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return nodeError(nc) << "axes " << shapeStr(axes) << " must be non-empty and not repeat";
  Location loc = nc.loc;
  Type elem = t->getElementType();
  Value mean = buildReduce<graph::ReduceMeanOp>(loc, *in, axes, true);
  Value d = bin<graph::SubOp>(loc, *in, mean);
  Value var = buildReduce<graph::ReduceMeanOp>(loc, bin<graph::MulOp>(loc, d, d), axes, true);
  Value stddev = graph::SqrtOp::create(b, loc, var.getType(), var);
  Value denom = bin<graph::AddOp>(loc, stddev, scalarF(loc, elem, 1e-9));
  return define(nc, 0, bin<graph::DivOp>(loc, d, denom));
}
