//===- ImportLoss.cpp - ONNX loss ops -> graph dialect ----------------------===//
//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: decomposed into gather,
// where, log_softmax and reductions exactly as the operators' function bodies in
// the ONNX spec (onnx/defs/math/defs.cc, opsets 12 and 13; the reference
// implementations onnx/reference/ops/op_negative_log_likelihood_loss.py and
// op_softmax_cross_entropy_loss.py).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

/// Elements the one-pass reduction template (GraphToTile/ReductionTemplate.cpp,
/// kMaxReduction) reduces per output element; sumAll splits larger sums.
static constexpr int64_t kMaxOnePassReduction = 4096;

void Importer::registerLossOps(OpTable &t) {
  t.add("NegativeLogLikelihoodLoss", 12, handle<&Importer::importNegativeLogLikelihoodLoss>);
  t.add("SoftmaxCrossEntropyLoss", 12, handle<&Importer::importSoftmaxCrossEntropyLoss>);
}

/// Checks shared by both losses: input [N, C, d1..dk] float, target [N, d1..dk] int32 or
/// int64, weight [C] of the input's element type; reduction is none, sum or mean;
/// ignore_index is present or not (absence means no target is ignored).
FailureOr<Importer::LossArgs> Importer::parseLossArgs(const NodeCtx &nc, RankedTensorType input,
                                                      Value target, Value weight) {
  if (input.getRank() < 2)
    return nodeError(nc) << "input must have shape [N, C, d1, ..., dk], got "
                         << shapeStr(input.getShape());
  auto tt = cast<RankedTensorType>(target.getType());
  auto tElem = dyn_cast<IntegerType>(tt.getElementType());
  if (!tElem || !tElem.isSignless() || (tElem.getWidth() != 32 && tElem.getWidth() != 64))
    return nodeError(nc) << "target must be an int32 or int64 tensor, got " << tt;
  SmallVector<int64_t> want(input.getShape());
  want.erase(want.begin() + 1);
  if (tt.getShape() != ArrayRef<int64_t>(want))
    return nodeError(nc) << "target shape " << shapeStr(tt.getShape())
                         << " must be the input's without dim 1: " << shapeStr(want);
  if (weight) {
    auto wt = cast<RankedTensorType>(weight.getType());
    if (wt.getElementType() != input.getElementType() || wt.getRank() != 1 ||
        wt.getDimSize(0) != input.getDimSize(1))
      return nodeError(nc) << "weight must be a [" << input.getDimSize(1)
                           << "] tensor of the input's element type, got " << wt;
  }
  LossArgs args;
  auto reduction = getString(nc, "reduction", "mean");
  if (failed(reduction))
    return failure();
  if (*reduction != "none" && *reduction != "sum" && *reduction != "mean")
    return nodeError(nc) << "reduction '" << *reduction << "' is not one of 'none', 'sum', 'mean'";
  args.reduction = *reduction;
  if (findAttr(nc, "ignore_index")) {
    auto ii = getInt(nc, "ignore_index", 0);
    if (failed(ii))
      return failure();
    // An int32 target never equals an ignore_index outside the int32 range.
    if (tElem.getWidth() == 64 || (*ii >= INT32_MIN && *ii <= INT32_MAX))
      args.ignoreIndex = *ii;
  }
  return args;
}

/// ONNX NegativeLogLikelihoodLoss (function body, opset 13):
///   t' = ignored ? 0 : t               (a safe index for the gathers)
///   loss[n, d] = ignored ? 0 : -input[n, t'[n, d], d] * w[n, d]
///   w[n, d]    = ignored ? 0 : weight[t'[n, d]]   (1 without weight)
///   none: loss; sum: sum(loss); mean: sum(loss) / sum(w), or mean(loss) when neither
///   weight nor ignore_index is given.
/// Targets outside [0, C) that are not ignore_index are undefined behaviour in ONNX; the
/// gather kernels clamp them into range.
Value Importer::buildNLLLoss(Location loc, Value logProb, Value target, Value weight,
                             const LossArgs &args) {
  auto xt = cast<RankedTensorType>(logProb.getType());
  auto tt = cast<RankedTensorType>(target.getType());
  Type f = xt.getElementType();
  auto perElem = RankedTensorType::get(tt.getShape(), f);
  auto boolT = RankedTensorType::get(tt.getShape(), b.getI1Type());
  Value t = target, valid;
  if (args.ignoreIndex) {
    auto scalarT = RankedTensorType::get({}, tt.getElementType());
    Value ii = intConstantOf(loc, scalarT, {*args.ignoreIndex});
    Value ignored = graph::EqualOp::create(b, loc, boolT, target, ii);
    valid = graph::NotOp::create(b, loc, boolT, ignored);
    t = graph::WhereOp::create(b, loc, tt, valid, target, intConstantOf(loc, scalarT, {0}));
  }
  SmallVector<int64_t> idxShape(tt.getShape());
  idxShape.insert(idxShape.begin() + 1, 1);
  Value idx = reshape(loc, t, idxShape);
  Value g = graph::GatherElementsOp::create(b, loc, RankedTensorType::get(idxShape, f), logProb,
                                            idx, b.getI64IntegerAttr(1));
  g = reshape(loc, g, tt.getShape());
  Value loss = graph::NegOp::create(b, loc, perElem, g);
  Value zero = valid ? scalarF(loc, f, 0.0) : Value();
  if (valid)
    loss = graph::WhereOp::create(b, loc, perElem, valid, loss, zero);
  Value w;
  if (weight) {
    w = graph::GatherOp::create(b, loc, perElem, weight, t, b.getI64IntegerAttr(0));
    if (valid)
      w = graph::WhereOp::create(b, loc, perElem, valid, w, zero);
    loss = graph::MulOp::create(b, loc, perElem, loss, w);
  } else if (valid) {
    w = castTo(loc, valid, f);
  }
  if (args.reduction == "none")
    return loss;
  Value sum = sumAll(loc, loss);
  if (args.reduction == "sum")
    return sum;
  Value denom = w ? sumAll(loc, w) : scalarF(loc, f, (double)tt.getNumElements());
  return graph::DivOp::create(b, loc, sum.getType(), sum, denom);
}

Value Importer::sumAll(Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t n = t.getNumElements();
  if (t.getRank() == 0)
    return v;
  if (n <= kMaxOnePassReduction)
    return buildReduce<graph::ReduceSumOp>(loc, v,
                                           llvm::to_vector(llvm::seq<int64_t>(0, t.getRank())),
                                           /*keepdims=*/false);
  // Row sums of a [rows, cols] view (cols <= 4096), then the sum of those: a divisor of n
  // for cols when one is large enough, else zero padding to rows * cols.
  Value flat = reshape(loc, v, {n});
  while (n > kMaxOnePassReduction) {
    int64_t rows = llvm::divideCeil(n, kMaxOnePassReduction);
    int64_t cols = llvm::divideCeil(n, rows);
    for (int64_t d = cols; d >= cols / 2; --d)
      if (n % d == 0) {
        cols = d;
        rows = n / d;
        break;
      }
    if (rows * cols != n)
      flat = graph::PadOp::create(b, loc, RankedTensorType::get({rows * cols}, t.getElementType()),
                                  flat, b.getDenseI64ArrayAttr({0}),
                                  b.getDenseI64ArrayAttr({rows * cols - n}),
                                  b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
    flat = reshape(loc, flat, {rows, cols});
    flat = buildReduce<graph::ReduceSumOp>(loc, flat, {1}, /*keepdims=*/false);
    n = rows;
  }
  return buildReduce<graph::ReduceSumOp>(loc, flat, {0}, /*keepdims=*/false);
}

LogicalResult Importer::importNegativeLogLikelihoodLoss(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), target = getInput(nc, 1), weight = getOptionalInput(nc, 2);
  if (failed(x) || failed(target) || failed(weight))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  auto args = parseLossArgs(nc, *xt, *target, *weight);
  if (failed(args))
    return failure();
  return define(nc, 0, buildNLLLoss(nc.loc, *x, *target, *weight, *args));
}

/// ONNX SoftmaxCrossEntropyLoss (function body, opset 13): log_prob = LogSoftmax(scores,
/// axis = 1), then NegativeLogLikelihoodLoss(log_prob, labels, weights) with the same
/// reduction and ignore_index; the optional second output is log_prob.
LogicalResult Importer::importSoftmaxCrossEntropyLoss(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 2)))
    return failure();
  auto x = getInput(nc, 0), target = getInput(nc, 1), weight = getOptionalInput(nc, 2);
  if (failed(x) || failed(target) || failed(weight))
    return failure();
  auto xt = checkFloat(nc, *x, "scores");
  if (failed(xt))
    return failure();
  auto args = parseLossArgs(nc, *xt, *target, *weight);
  if (failed(args))
    return failure();
  Value logProb = graph::LogSoftmaxOp::create(b, nc.loc, *xt, *x, b.getI64IntegerAttr(1));
  if (failed(define(nc, 0, buildNLLLoss(nc.loc, logProb, *target, *weight, *args))))
    return failure();
  return define(nc, 1, logProb);
}
