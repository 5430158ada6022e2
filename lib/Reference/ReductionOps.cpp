//===- ReductionOps.cpp - reference of reductions, softmax, layer norm -----===//
//
// Sums accumulate in double in row-major order of the reduced elements (no pairwise or
// compensated summation: double's 53 bits are the oracle's margin).
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::reference;
using namespace aicc::reference::detail;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// ONNX ReduceSum / ReduceMean / ReduceMax / ReduceMin / ReduceProd over `axes` (empty:
/// every dim), keepdims or not. An empty reduction gives 0 (sum), NaN (mean: 0 / 0), -inf
/// (max), +inf (min), 1 (prod); max and min propagate NaN.
EvalResult reduce(Operation *op, const Tensor &x, ArrayRef<int64_t> axes, ReduceKind kind) {
  if (!x.isFloat())
    return op->emitError("reference evaluator: '")
               << op->getName() << "' is only defined on floats",
           failure();
  Tensor r = Tensor::zeros(resultType(op));
  int64_t rank = x.shape.size();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < 0 || a >= rank)
      return op->emitError("reference evaluator: axis ") << a << " out of range", failure();
    reduced[a] = true;
  }
  // The reduced result in keepdims form: reduced dims have size 1.
  SmallVector<int64_t> keptShape(x.shape);
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      keptShape[d] = 1;
  double init = kind == ReduceKind::Max    ? -kInf
                : kind == ReduceKind::Min  ? kInf
                : kind == ReduceKind::Prod ? 1.0
                                           : 0.0;
  std::vector<double> acc(r.numElements(), init);
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      count *= x.shape[d];
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    unravel(i, x.shape, idx);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        idx[d] = 0;
    double &a = acc[ravel(idx, keptShape)];
    double v = x.floats[i];
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      a += v;
      break;
    case ReduceKind::Prod:
      a *= v;
      break;
    case ReduceKind::Max:
      a = std::isnan(a) || std::isnan(v) ? kNaN : std::max(a, v);
      break;
    case ReduceKind::Min:
      a = std::isnan(a) || std::isnan(v) ? kNaN : std::min(a, v);
      break;
    }
  }
  for (int64_t i = 0, n = r.numElements(); i < n; ++i)
    r.floats[i] = kind == ReduceKind::Mean ? acc[i] / double(count) : acc[i];
  return r;
}

/// Calls f(base, stride) once per 1-D row of `shape` along `axis`: the row's elements
/// are base + j * stride for j in [0, shape[axis]).
template <typename F> void forEachRow(ArrayRef<int64_t> shape, int64_t axis, F f) {
  int64_t inner = 1, outer = 1;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      f(o * shape[axis] * inner + i, inner);
}

// ONNX Softmax (opset 13): y = exp(x - max) / sum(exp(x - max)) along `axis`.
EvalResult evalSoftmax(SoftmaxOp op, const Tensor &x) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis(), n = x.shape[axis];
  forEachRow(x.shape, axis, [&](int64_t base, int64_t stride) {
    double m = -kInf;
    for (int64_t j = 0; j < n; ++j)
      m = std::max(m, x.floats[base + j * stride]);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(x.floats[base + j * stride] - m);
    for (int64_t j = 0; j < n; ++j)
      r.floats[base + j * stride] = std::exp(x.floats[base + j * stride] - m) / sum;
  });
  return r;
}

// ONNX LogSoftmax (opset 13): y = x - max - log(sum(exp(x - max))) along `axis`.
EvalResult evalLogSoftmax(LogSoftmaxOp op, const Tensor &x) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis(), n = x.shape[axis];
  forEachRow(x.shape, axis, [&](int64_t base, int64_t stride) {
    double m = -kInf;
    for (int64_t j = 0; j < n; ++j)
      m = std::max(m, x.floats[base + j * stride]);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j)
      sum += std::exp(x.floats[base + j * stride] - m);
    double lse = std::log(sum);
    for (int64_t j = 0; j < n; ++j)
      r.floats[base + j * stride] = x.floats[base + j * stride] - m - lse;
  });
  return r;
}

// ONNX LayerNormalization (opset 17): over dims [axis, rank), mean and biased variance;
// y = (x - mean) / sqrt(var + epsilon) * scale + bias, scale and bias broadcast to x.
// Ba, Kiros, Hinton, "Layer Normalization" (2016).
// With `rms` (ONNX RMSNormalization-23): y = x / sqrt(mean(x^2) + epsilon) * scale + bias,
// no mean subtracted (Zhang, Sennrich, "Root Mean Square Layer Normalization" (2019)).
EvalResult evalLayerNorm(LayerNormOp op, const Tensor &x, const Tensor *scale, const Tensor *bias) {
  Tensor r = Tensor::zeros(resultType(op));
  int64_t axis = op.getAxis();
  double eps = op.getEpsilon().convertToDouble();
  bool rms = op.getRms();
  if (axis < 0 || axis > (int64_t)x.shape.size())
    return op->emitError("reference evaluator: layer_norm axis ") << axis << " out of range",
           failure();
  int64_t inner = 1;
  for (int64_t d = axis; d < (int64_t)x.shape.size(); ++d)
    inner *= x.shape[d];
  int64_t outer = inner ? x.numElements() / inner : 0;
  SmallVector<int64_t> idx;
  for (int64_t o = 0; o < outer; ++o) {
    const double *row = x.floats.data() + o * inner;
    double mean = 0;
    if (!rms) {
      for (int64_t j = 0; j < inner; ++j)
        mean += row[j];
      mean /= double(inner);
    }
    // Biased variance about `mean`; for rms (mean = 0) this is mean(x^2).
    double var = 0;
    for (int64_t j = 0; j < inner; ++j)
      var += (row[j] - mean) * (row[j] - mean);
    var /= double(inner);
    double invStd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < inner; ++j) {
      int64_t i = o * inner + j;
      unravel(i, x.shape, idx);
      double y = (row[j] - mean) * invStd;
      if (scale)
        y *= scale->floats[broadcastIndex(idx, scale->shape)];
      if (bias)
        y += bias->floats[broadcastIndex(idx, bias->shape)];
      r.floats[i] = y;
    }
  }
  return r;
}

} // namespace

std::optional<EvalResult> aicc::reference::detail::evalReductionOp(Operation *op, Operands in) {
  return llvm::TypeSwitch<Operation *, std::optional<EvalResult>>(op)
      .Case([&](ReduceSumOp o) { return reduce(op, *in[0], o.getAxes(), ReduceKind::Sum); })
      .Case([&](ReduceMeanOp o) { return reduce(op, *in[0], o.getAxes(), ReduceKind::Mean); })
      .Case([&](ReduceMaxOp o) { return reduce(op, *in[0], o.getAxes(), ReduceKind::Max); })
      .Case([&](ReduceMinOp o) { return reduce(op, *in[0], o.getAxes(), ReduceKind::Min); })
      .Case([&](ReduceProdOp o) { return reduce(op, *in[0], o.getAxes(), ReduceKind::Prod); })
      .Case([&](SoftmaxOp o) { return evalSoftmax(o, *in[0]); })
      .Case([&](LogSoftmaxOp o) { return evalLogSoftmax(o, *in[0]); })
      .Case([&](LayerNormOp o) {
        // Operands: input, then scale and bias when present (AttrSizedOperandSegments).
        const Tensor *scale = o.getScale() ? in[1] : nullptr;
        const Tensor *bias = o.getBias() ? in[o.getScale() ? 2 : 1] : nullptr;
        return evalLayerNorm(o, *in[0], scale, bias);
      })
      .Default([](Operation *) { return std::nullopt; });
}
