//===- ContractionOps.cpp - reference of matmul, gemm, conv, pools, attention ===//
//
// Plain nested loops in double; every sum runs over its reduction index in increasing
// order.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::reference;
using namespace aicc::reference::detail;

namespace {

InFlightDiagnostic evalError(Operation *op) { return op->emitError("reference evaluator: "); }

// ONNX MatMul (numpy.matmul): A [..., M, K] x B [..., K, N] -> [..., M, N] with the batch
// dims broadcast; a 1-D A is [1, K] and a 1-D B is [K, 1], the added dim removed after.
EvalResult evalMatMul(MatMulOp op, const Tensor &a, const Tensor &b) {
  if (a.shape.empty() || b.shape.empty())
    return evalError(op) << "matmul of a scalar", failure();
  SmallVector<int64_t> as(a.shape), bs(b.shape);
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K)
    return evalError(op) << "matmul contraction dims differ", failure();
  ArrayRef<int64_t> batchA = ArrayRef<int64_t>(as).drop_back(2);
  ArrayRef<int64_t> batchB = ArrayRef<int64_t>(bs).drop_back(2);
  auto batch = broadcastShapes(batchA, batchB);
  if (failed(batch))
    return evalError(op) << "matmul batch dims do not broadcast", failure();
  Tensor r = Tensor::zeros(resultType(op));
  int64_t numBatch = 1;
  for (int64_t d : *batch)
    numBatch *= d;
  if (numBatch * M * N != r.numElements())
    return evalError(op) << "matmul result type does not match its operands", failure();
  SmallVector<int64_t> idx;
  for (int64_t bi = 0; bi < numBatch; ++bi) {
    unravel(bi, *batch, idx);
    const double *pa = a.floats.data() + broadcastIndex(idx, batchA) * M * K;
    const double *pb = b.floats.data() + broadcastIndex(idx, batchB) * K * N;
    double *pr = r.floats.data() + bi * M * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += pa[m * K + k] * pb[k * N + n];
        pr[m * N + n] = sum;
      }
  }
  return r;
}

// ONNX Gemm: Y = alpha * op(A) op(B) + beta * C, op = transpose when transA / transB,
// C unidirectionally broadcast to [M, N].
EvalResult evalGemm(GemmOp op, const Tensor &a, const Tensor &b, const Tensor *c) {
  if (a.shape.size() != 2 || b.shape.size() != 2)
    return evalError(op) << "gemm needs 2-D A and B", failure();
  bool ta = op.getTransA(), tb = op.getTransB();
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  int64_t N = tb ? b.shape[0] : b.shape[1];
  Tensor r = Tensor::zeros(resultType(op));
  if (r.shape != SmallVector<int64_t>{M, N} || (tb ? b.shape[1] : b.shape[0]) != K)
    return evalError(op) << "gemm shapes do not match", failure();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += a.floats[ta ? k * M + m : m * K + k] * b.floats[tb ? n * K + k : k * N + n];
      double y = alpha * sum;
      if (c)
        y += beta * c->floats[broadcastIndex({m, n}, c->shape)];
      r.floats[m * N + n] = y;
    }
  return r;
}

/// Walks the window of output position `out` (a multi-index over [N, C, O...], or
/// [N, O..., C] with firstSpatial = 1) of a convolution or pool: calls f(inPos, kPos, inside)
/// for every kernel offset kPos, with inPos[d] = out[firstSpatial + d] * strides[d] + kPos[d] *
/// dilations[d] - padsBegin[d] and `inside` whether inPos lies in the input's spatial dims.
template <typename F>
void forEachWindowPosition(ArrayRef<int64_t> out, ArrayRef<int64_t> inShape,
                           ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations, F f,
                           int64_t firstSpatial = 2) {
  int64_t k = kernel.size();
  int64_t windowSize = 1;
  for (int64_t d : kernel)
    windowSize *= d;
  SmallVector<int64_t> kPos, inPos(k);
  for (int64_t w = 0; w < windowSize; ++w) {
    unravel(w, kernel, kPos);
    bool inside = true;
    for (int64_t d = 0; d < k; ++d) {
      inPos[d] = out[firstSpatial + d] * strides[d] + kPos[d] * dilations[d] - pads[d];
      inside &= inPos[d] >= 0 && inPos[d] < inShape[firstSpatial + d];
    }
    f(ArrayRef<int64_t>(inPos), ArrayRef<int64_t>(kPos), inside);
  }
}

/// Checks the window attributes against an input of shape `in` (verified IR has them
/// right; this keeps unverified IR from reading out of bounds).
LogicalResult checkWindow(Operation *op, ArrayRef<int64_t> in, size_t kernelRank,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> dilations) {
  size_t k = in.size() < 3 ? 0 : in.size() - 2;
  if (k == 0 || kernelRank != k || strides.size() != k || dilations.size() != k ||
      pads.size() != 2 * k || resultType(op).getRank() != (int64_t)in.size())
    return evalError(op) << "window attributes do not match the input rank";
  return success();
}

/// Row-major position of [n, c, spatial...] in a tensor of `shape`.
int64_t nchwIndex(int64_t n, int64_t c, ArrayRef<int64_t> spatial, ArrayRef<int64_t> shape) {
  int64_t linear = n * shape[1] + c;
  for (size_t d = 0; d < spatial.size(); ++d)
    linear = linear * shape[2 + d] + spatial[d];
  return linear;
}

/// Row-major position of [n, spatial..., c] in a tensor of `shape` (channels last).
int64_t nhwcIndex(int64_t n, ArrayRef<int64_t> spatial, int64_t c, ArrayRef<int64_t> shape) {
  int64_t linear = n;
  for (size_t d = 0; d < spatial.size(); ++d)
    linear = linear * shape[1 + d] + spatial[d];
  return linear * shape.back() + c;
}

// ONNX Conv: Y[n, m, o] = B[m] + sum_{c, kk} X[n, g * C/group + c, o * strides + kk *
// dilations - pads_begin] * W[m, c, kk] with g = m / (M / group); positions outside the
// input read 0. Layout "NHWC" (GraphOps.td): X [N, D..., C], W [M, K..., C/group],
// Y [N, O..., M], the same sum (in the same order, so both layouts give the same bits).
EvalResult evalConv(ConvOp op, const Tensor &x, const Tensor &w, const Tensor *bias) {
  if (w.shape.size() != x.shape.size() ||
      failed(checkWindow(op, x.shape, w.shape.size() - 2, op.getStrides(), op.getPads(),
                         op.getDilations())))
    return failure();
  bool last = op.getLayout() == "NHWC";
  if (!last && op.getLayout() != "NCHW")
    return evalError(op) << "conv layout '" << op.getLayout() << "' is not NCHW or NHWC",
           failure();
  int64_t rank = x.shape.size(), cDim = last ? rank - 1 : 1, first = last ? 1 : 2;
  Tensor r = Tensor::zeros(resultType(op));
  int64_t group = op.getGroup();
  int64_t M = w.shape[0], Cg = w.shape[cDim];
  if (group < 1 || M % group)
    return evalError(op) << "conv group does not divide the output channels", failure();
  int64_t Mg = M / group;
  if (x.shape[cDim] != group * Cg || r.shape[cDim] != M)
    return evalError(op) << "conv channels do not match the weight", failure();
  ArrayRef<int64_t> kernel = ArrayRef<int64_t>(w.shape).slice(first, rank - 2);
  auto at = [&](int64_t n, int64_t c, ArrayRef<int64_t> spatial, ArrayRef<int64_t> shape) {
    return last ? nhwcIndex(n, spatial, c, shape) : nchwIndex(n, c, spatial, shape);
  };
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    int64_t batch = idx[0], m = idx[cDim], g = m / Mg;
    double sum = bias ? bias->floats[m] : 0.0;
    for (int64_t c = 0; c < Cg; ++c)
      forEachWindowPosition(
          idx, x.shape, kernel, op.getStrides(), op.getPads(), op.getDilations(),
          [&](ArrayRef<int64_t> inPos, ArrayRef<int64_t> kPos, bool inside) {
            if (!inside)
              return;
            sum += x.floats[at(batch, g * Cg + c, inPos, x.shape)] *
                   w.floats[at(m, c, kPos, w.shape)];
          },
          first);
    r.floats[i] = sum;
  }
  return r;
}

/// Row-major index of X[n, c, spatial...] in a pool's layout (NCHW, or NHWC: [n, spatial...,
/// c]).
template <typename PoolOp>
static int64_t poolIndex(PoolOp op, int64_t n, int64_t c, ArrayRef<int64_t> spatial,
                         ArrayRef<int64_t> shape) {
  return op.isChannelsLast() ? nhwcIndex(n, spatial, c, shape) : nchwIndex(n, c, spatial, shape);
}

/// The pool's layout is one the evaluator reads (the verifier admits only these two).
template <typename PoolOp> static LogicalResult checkPoolLayout(PoolOp op) {
  if (op.getLayout() == "NCHW" || op.getLayout() == "NHWC")
    return success();
  return evalError(op) << "pool layout '" << op.getLayout() << "' is not NCHW or NHWC", failure();
}

// ONNX MaxPool: the maximum over the window positions inside the input (padding never
// wins; a window with no position inside gives -inf); NaN propagates. NCHW or NHWC.
EvalResult evalMaxPool(MaxPoolOp op, const Tensor &x) {
  if (failed(checkPoolLayout(op)) ||
      failed(checkWindow(op, x.shape, op.getKernelShape().size(), op.getStrides(), op.getPads(),
                         op.getDilations())))
    return failure();
  Tensor r = Tensor::zeros(resultType(op));
  int64_t cDim = op.getChannelDim(), first = op.getFirstSpatialDim();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    double m = -std::numeric_limits<double>::infinity();
    forEachWindowPosition(
        idx, x.shape, op.getKernelShape(), op.getStrides(), op.getPads(), op.getDilations(),
        [&](ArrayRef<int64_t> inPos, ArrayRef<int64_t>, bool inside) {
          if (!inside)
            return;
          double v = x.floats[poolIndex(op, idx[0], idx[cDim], inPos, x.shape)];
          m = std::isnan(m) || std::isnan(v) ? std::nan("") : std::max(m, v);
        },
        first);
    r.floats[i] = m;
  }
  return r;
}

// ONNX AveragePool: the sum over the window positions inside the input divided by their
// count, or, with count_include_pad, by the count of positions inside the padded input
// [-pads_begin, size + pads_end) (padding reads 0); as onnx.reference's pool. NCHW or NHWC.
EvalResult evalAvgPool(AvgPoolOp op, const Tensor &x) {
  if (failed(checkPoolLayout(op)) ||
      failed(checkWindow(op, x.shape, op.getKernelShape().size(), op.getStrides(), op.getPads(),
                         op.getDilations())))
    return failure();
  Tensor r = Tensor::zeros(resultType(op));
  int64_t k = op.getKernelShape().size();
  int64_t cDim = op.getChannelDim(), first = op.getFirstSpatialDim();
  ArrayRef<int64_t> pads = op.getPads();
  bool includePad = op.getCountIncludePad();
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    double sum = 0;
    int64_t count = 0;
    forEachWindowPosition(
        idx, x.shape, op.getKernelShape(), op.getStrides(), pads, op.getDilations(),
        [&](ArrayRef<int64_t> inPos, ArrayRef<int64_t>, bool inside) {
          if (inside)
            sum += x.floats[poolIndex(op, idx[0], idx[cDim], inPos, x.shape)];
          bool inPadded = true;
          for (int64_t d = 0; d < k; ++d)
            inPadded &= inPos[d] >= -pads[d] && inPos[d] < x.shape[first + d] + pads[d + k];
          count += includePad ? inPadded : inside;
        },
        first);
    r.floats[i] = sum / double(count);
  }
  return r;
}

// graph.attention: softmax(scale * (Q @ K^T) + bias, last axis) @ V, with the causal mask
// (key j visible from query i when j <= i + Skv - Sq) and numpy-broadcast batch dims. The
// softmax is ONNX's (max-shifted; a row of -inf scores is NaN), all in double; with
// zero_undefined_rows a row whose softmax sum is NaN (every score -inf, a NaN or +inf one)
// is 0.
EvalResult evalAttention(AttentionOp op, const Tensor &q, const Tensor &kt, const Tensor &v,
                         const Tensor *bias, const Tensor *keyBound) {
  if (q.shape.size() < 2 || kt.shape.size() < 2 || v.shape.size() < 2)
    return evalError(op) << "attention operands must have rank >= 2", failure();
  int64_t Sq = q.shape.end()[-2], D = q.shape.back(), Skv = kt.shape.back(), Dv = v.shape.back();
  if (kt.shape.end()[-2] != D || v.shape.end()[-2] != Skv)
    return evalError(op) << "attention operand shapes do not match", failure();
  Tensor r = Tensor::zeros(resultType(op));
  ArrayRef<int64_t> rs = r.shape;
  SmallVector<int64_t> batch(rs.drop_back(2));
  ArrayRef<int64_t> bq = ArrayRef<int64_t>(q.shape).drop_back(2),
                    bk = ArrayRef<int64_t>(kt.shape).drop_back(2),
                    bv = ArrayRef<int64_t>(v.shape).drop_back(2);
  int64_t numBatch = 1;
  for (int64_t d : batch)
    numBatch *= d;
  if (numBatch * Sq * Dv != r.numElements())
    return evalError(op) << "attention result type does not match its operands", failure();
  double scale = op.getScale().convertToDouble();
  bool causal = op.getCausal();
  SmallVector<int64_t> scoreShape(batch);
  scoreShape.append({Sq, Skv});
  SmallVector<int64_t> idx, full;
  std::vector<double> s(Skv);
  for (int64_t bi = 0; bi < numBatch; ++bi) {
    unravel(bi, batch, idx);
    const double *pq = q.floats.data() + broadcastIndex(idx, bq) * Sq * D;
    const double *pk = kt.floats.data() + broadcastIndex(idx, bk) * D * Skv;
    const double *pv = v.floats.data() + broadcastIndex(idx, bv) * Skv * Dv;
    double *pr = r.floats.data() + bi * Sq * Dv;
    for (int64_t i = 0; i < Sq; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < Skv; ++j) {
        double dot = 0;
        for (int64_t k = 0; k < D; ++k)
          dot += pq[i * D + k] * pk[k * Skv + j];
        double x = scale * dot;
        if (bias) {
          full.assign(idx.begin(), idx.end());
          full.append({i, j});
          x += bias->floats[broadcastIndex(full, bias->shape)];
        }
        if (causal && j > i + (Skv - Sq))
          x = -std::numeric_limits<double>::infinity();
        // key_bound_mask: c added past the row's bound ([1, .., Sq or 1, 1]).
        if (keyBound && double(j) > keyBound->getDouble(keyBound->numElements() == 1 ? 0 : i))
          x += op.getKeyBoundMask()->convertToDouble();
        s[j] = x;
        mx = std::isnan(x) || std::isnan(mx) ? std::numeric_limits<double>::quiet_NaN()
                                             : std::max(mx, x);
      }
      double sum = 0;
      for (int64_t j = 0; j < Skv; ++j) {
        s[j] = std::exp(s[j] - mx);
        sum += s[j];
      }
      if (op.getZeroUndefinedRows() && std::isnan(sum))
        continue; // the row stays 0
      for (int64_t n = 0; n < Dv; ++n) {
        double acc = 0;
        for (int64_t j = 0; j < Skv; ++j)
          acc += s[j] / sum * pv[j * Dv + n];
        pr[i * Dv + n] = acc;
      }
    }
  }
  return r;
}

} // namespace

std::optional<EvalResult> aicc::reference::detail::evalContractionOp(Operation *op, Operands in) {
  return llvm::TypeSwitch<Operation *, std::optional<EvalResult>>(op)
      .Case([&](MatMulOp o) { return evalMatMul(o, *in[0], *in[1]); })
      .Case([&](GemmOp o) { return evalGemm(o, *in[0], *in[1], o.getC() ? in[2] : nullptr); })
      .Case([&](ConvOp o) { return evalConv(o, *in[0], *in[1], o.getBias() ? in[2] : nullptr); })
      .Case([&](MaxPoolOp o) { return evalMaxPool(o, *in[0]); })
      .Case([&](AvgPoolOp o) { return evalAvgPool(o, *in[0]); })
      .Case([&](AttentionOp o) {
        const Tensor *bias = o.getBias() ? in[3] : nullptr;
        const Tensor *keyBound =
            o.getKeyBoundMask() ? in[o.getBias() ? 4 : 3] : nullptr; // (else a promise)
        return evalAttention(o, *in[0], *in[1], *in[2], bias, keyBound);
      })
      .Default([](Operation *) { return std::nullopt; });
}
