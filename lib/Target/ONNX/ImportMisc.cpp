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

void Importer::registerMiscOps(OpTable &t) {
  t.add("ThresholdedRelu", 10, handle<&Importer::importThresholdedRelu>);
  t.add("IsInf", 10, handle<&Importer::importIsInfNaN>);
  t.add("IsNaN", 9, handle<&Importer::importIsInfNaN>);
  t.add("LRN", 1, handle<&Importer::importLRN>);
  t.add("MeanVarianceNormalization", 9, handle<&Importer::importMVN>);
  t.add("LpPool", 1, handle<&Importer::importLpPool>);
  t.add("GlobalLpPool", 1, handle<&Importer::importGlobalLpPool>);
  t.add("LpNormalization", 1, handle<&Importer::importLpNormalization>);
  t.add("CumProd", 26,
        [](Importer &im, const NodeCtx &nc) { return im.importCumulative(nc, /*product=*/true); });
  t.add("CenterCropPad", 18, handle<&Importer::importCenterCropPad>);
  t.add("Col2Im", 18, handle<&Importer::importCol2Im>);
  t.add("AffineGrid", 20, handle<&Importer::importAffineGrid>);
  t.add("TensorScatter", 24, handle<&Importer::importTensorScatter>);
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

//===----------------------------------------------------------------------===//
// LpPool, GlobalLpPool, LpNormalization, CumProd, CenterCropPad, Col2Im,
// AffineGrid, TensorScatter (newops block): decompositions into existing graph
// ops.
//===----------------------------------------------------------------------===//

/// The `p` of LpPool / GlobalLpPool: an INT attribute since opset 2, a FLOAT one in
/// opset 1 (ONNX operator spec, LpPool-1 / GlobalLpPool-1). Must be positive.
FailureOr<double> Importer::getLpPoolP(const NodeCtx &nc) {
  double p;
  if (opset < 2) {
    auto f = getFloat(nc, "p", 2.0f);
    if (failed(f))
      return failure();
    p = *f;
  } else {
    auto i = getInt(nc, "p", 2);
    if (failed(i))
      return failure();
    p = (double)*i;
  }
  if (!(p > 0.0) || !std::isfinite(p)) {
    auto diag = nodeError(nc) << "p must be positive, got ";
    if (p == std::trunc(p) && std::abs(p) < 1e18)
      return diag << (int64_t)p;
    return diag << p;
  }
  return p;
}

/// |x|^p (x * x for p = 2, |x| for p = 1).
Value Importer::lpPower(Location loc, Value x, double p) {
  auto t = cast<RankedTensorType>(x.getType());
  if (p == 2.0)
    return graph::MulOp::create(b, loc, t, x, x);
  Value a = graph::AbsOp::create(b, loc, t, x);
  if (p == 1.0)
    return a;
  return bin<graph::PowOp>(loc, a, scalarF(loc, t.getElementType(), p));
}

/// s^(1/p) (sqrt for p = 2, s for p = 1).
Value Importer::lpRoot(Location loc, Value s, double p) {
  auto t = cast<RankedTensorType>(s.getType());
  if (p == 1.0)
    return s;
  if (p == 2.0)
    return graph::SqrtOp::create(b, loc, t, s);
  return bin<graph::PowOp>(loc, s, scalarF(loc, t.getElementType(), 1.0 / p));
}

/// LpPool (ONNX operator spec, opsets 1/2/11/18/22): y = (sum over the window of
/// |x|^p)^(1/p), padded positions contributing 0. The window sum is a depthwise
/// graph.conv (group = C) with an all-ones [C, 1, k...] weight: exact, and unlike
/// avg_pool * window size also right for ceil_mode windows running past the padding.
LogicalResult Importer::importLpPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  auto kernel = getInts(nc, "kernel_shape");
  if (failed(x) || failed(kernel))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto p = getLpPoolP(nc);
  if (failed(p))
    return failure();
  if (!*kernel)
    return nodeError(nc) << "attribute 'kernel_shape' is required";
  if (xt->getRank() < 3 || (int64_t)(*kernel)->size() != xt->getRank() - 2)
    return nodeError(nc) << "kernel_shape must have one entry per spatial dim of X "
                         << shapeStr(xt->getShape());
  for (int64_t k : **kernel)
    if (k < 1)
      return nodeError(nc) << "kernel_shape entries must be positive";
  auto geo = windowGeometry(nc, xt->getShape().drop_front(2), **kernel, /*allowCeil=*/true);
  if (failed(geo))
    return failure();
  int64_t c = xt->getDimSize(1);
  Type elem = xt->getElementType();
  SmallVector<int64_t> wShape{c, 1};
  wShape.append(geo->kernel.begin(), geo->kernel.end());
  auto wT = RankedTensorType::get(wShape, elem);
  Value ones = createConstant(nc.loc, DenseElementsAttr::get(wT, b.getFloatAttr(elem, 1.0)));
  SmallVector<int64_t> shape{xt->getDimSize(0), c};
  shape.append(geo->out.begin(), geo->out.end());
  Value sum = graph::ConvOp::create(
      b, nc.loc, RankedTensorType::get(shape, elem), lpPower(nc.loc, *x, *p), ones, Value(),
      b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
      b.getDenseI64ArrayAttr(geo->dilations), b.getI64IntegerAttr(c));
  return define(nc, 0, lpRoot(nc.loc, sum, *p));
}

/// GlobalLpPool (ONNX operator spec, opsets 1/2/22): LpPool over all spatial dims,
/// kept with size 1: (reduce_sum |x|^p)^(1/p).
LogicalResult Importer::importGlobalLpPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto p = getLpPoolP(nc);
  if (failed(p))
    return failure();
  if (xt->getRank() < 3)
    return nodeError(nc) << "X must have rank >= 3 ([N, C, D1, ...]), got " << *xt;
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < xt->getRank(); ++d)
    axes.push_back(d);
  Value sum = buildReduce<graph::ReduceSumOp>(nc.loc, lpPower(nc.loc, *x, *p), axes, true);
  return define(nc, 0, lpRoot(nc.loc, sum, *p));
}

/// LpNormalization (ONNX operator spec, opsets 1/22): x / ||x||_p along `axis`, p = 1
/// or 2; 0 where the norm is 0 (opset 22 states it; the reference implementation does
/// so for every opset).
LogicalResult Importer::importLpNormalization(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", -1), p = getInt(nc, "p", 2);
  if (failed(x) || failed(axisAttr) || failed(p))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  if (*p != 1 && *p != 2)
    return nodeError(nc) << "p must be 1 or 2, got " << *p;
  if (xt->getRank() == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axis = normalizeAxis(nc, *axisAttr, xt->getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  Location loc = nc.loc;
  Type elem = xt->getElementType();
  Value norm =
      lpRoot(loc, buildReduce<graph::ReduceSumOp>(loc, lpPower(loc, *x, (double)*p), {*axis}, true),
             (double)*p);
  Value zero = scalarF(loc, elem, 0.0);
  auto normT = cast<RankedTensorType>(norm.getType());
  Value isZero = graph::EqualOp::create(
      b, loc, RankedTensorType::get(normT.getShape(), b.getI1Type()), norm, zero);
  return define(
      nc, 0, graph::WhereOp::create(b, loc, *xt, isZero, zero, bin<graph::DivOp>(loc, *x, norm)));
}

/// `v` shifted by `s` (> 0) positions along `axis` with `fill` shifted in: toward higher
/// indices (result[i] = v[i - s]) or, when `backward`, toward lower ones
/// (result[i] = v[i + s]). A slice then a constant pad.
Value Importer::shiftWithFill(Location loc, Value v, int64_t axis, int64_t s, bool backward,
                              double fill) {
  auto t = cast<RankedTensorType>(v.getType());
  Type elem = t.getElementType();
  int64_t n = t.getDimSize(axis);
  if (s >= n) {
    Attribute f = isa<FloatType>(elem) ? Attribute(b.getFloatAttr(elem, fill))
                                       : Attribute(b.getIntegerAttr(elem, (int64_t)fill));
    return createConstant(loc, DenseElementsAttr::get(t, f));
  }
  SmallVector<int64_t> starts(t.getRank(), 0), steps(t.getRank(), 1), shape(t.getShape());
  starts[axis] = backward ? s : 0;
  shape[axis] = n - s;
  Value cut = graph::SliceOp::create(b, loc, RankedTensorType::get(shape, elem), v,
                                     b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
  SmallVector<int64_t> low(t.getRank(), 0), high(t.getRank(), 0);
  (backward ? high : low)[axis] = s;
  return graph::PadOp::create(b, loc, t, cut, b.getDenseI64ArrayAttr(low),
                              b.getDenseI64ArrayAttr(high), b.getStringAttr("constant"),
                              b.getF64FloatAttr(fill));
}

/// CenterCropPad (ONNX operator spec, opset 18): per listed axis, a centered crop
/// (start rounded down: floor((dim - size) / 2)) or a centered zero pad (the odd pixel
/// on the high side) to the constant `shape`. A slice then a pad.
LogicalResult Importer::importCenterCropPad(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), shapeIn = getInput(nc, 1);
  auto axesAttr = getInts(nc, "axes");
  if (failed(x) || failed(shapeIn) || failed(axesAttr))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t r = t.getRank();
  auto sizes = getConstantInts(nc, *shapeIn, inputWhat(nc, 1, "shape"));
  if (failed(sizes))
    return failure();
  SmallVector<int64_t> axes;
  if (*axesAttr) {
    for (int64_t a : **axesAttr) {
      auto ax = normalizeAxis(nc, a, r, /*allowRank=*/false);
      if (failed(ax))
        return failure();
      if (llvm::is_contained(axes, *ax))
        return nodeError(nc) << "axis " << a << " is listed twice";
      axes.push_back(*ax);
    }
  } else {
    for (int64_t d = 0; d < r; ++d)
      axes.push_back(d);
  }
  if (sizes->size() != axes.size())
    return nodeError(nc) << "shape has " << sizes->size() << " entries for " << axes.size()
                         << " axes";
  SmallVector<int64_t> starts(r, 0), steps(r, 1), cropShape(t.getShape()), low(r, 0), high(r, 0),
      outShape(t.getShape());
  bool crop = false, pad = false;
  for (auto [a, size] : llvm::zip(axes, *sizes)) {
    int64_t dim = t.getDimSize(a);
    if (size < 1)
      return nodeError(nc) << "shape entries must be positive, got " << size;
    outShape[a] = size;
    if (size < dim) {
      starts[a] = (dim - size) / 2;
      cropShape[a] = size;
      crop = true;
    } else if (size > dim) {
      low[a] = (size - dim) / 2;
      high[a] = size - dim - low[a];
      pad = true;
    }
  }
  Value v = *x;
  Type elem = t.getElementType();
  if (crop)
    v = graph::SliceOp::create(b, nc.loc, RankedTensorType::get(cropShape, elem), v,
                               b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
  if (pad)
    v = graph::PadOp::create(b, nc.loc, RankedTensorType::get(outShape, elem), v,
                             b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                             b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  return define(nc, 0, v);
}

/// Col2Im (ONNX operator spec, opset 18; PyTorch's fold): input [N, C * prod(block),
/// L] holds, per kernel offset k and block position l, the value added to image position
/// l * strides - pads_begin + k * dilations (when inside the image). Built as a gather:
/// columns flattened to [N * C, K * L] plus one zero column; a constant table [K, P]
/// names, per kernel offset and image position, the column that lands there (or the
/// zero column); the gathered [N * C, K, P] is summed over K.
LogicalResult Importer::importCol2Im(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), imageIn = getInput(nc, 1), blockIn = getInput(nc, 2);
  auto dilAttr = getInts(nc, "dilations"), padsAttr = getInts(nc, "pads"),
       stridesAttr = getInts(nc, "strides");
  if (failed(x) || failed(imageIn) || failed(blockIn) || failed(dilAttr) || failed(padsAttr) ||
      failed(stridesAttr))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  if (xt->getRank() != 3)
    return nodeError(nc) << "input must be [N, C * prod(block_shape), L], got " << *xt;
  auto image = getConstantInts(nc, *imageIn, inputWhat(nc, 1, "image_shape"));
  if (failed(image))
    return failure();
  auto block = getConstantInts(nc, *blockIn, inputWhat(nc, 2, "block_shape"));
  if (failed(block))
    return failure();
  int64_t k = image->size();
  if (k < 1 || (int64_t)block->size() != k)
    return nodeError(nc) << "image_shape and block_shape must have the same length >= 1, got "
                         << image->size() << " and " << block->size();
  SmallVector<int64_t> dil = *dilAttr ? **dilAttr : SmallVector<int64_t>(k, 1);
  SmallVector<int64_t> pads = *padsAttr ? **padsAttr : SmallVector<int64_t>(2 * k, 0);
  SmallVector<int64_t> strides = *stridesAttr ? **stridesAttr : SmallVector<int64_t>(k, 1);
  if ((int64_t)dil.size() != k || (int64_t)strides.size() != k || (int64_t)pads.size() != 2 * k)
    return nodeError(nc) << "dilations / strides / pads do not match " << k << " image dims";
  SmallVector<int64_t> cols(k);
  for (int64_t d = 0; d < k; ++d) {
    if ((*image)[d] < 1 || (*block)[d] < 1 || dil[d] < 1 || strides[d] < 1 || pads[d] < 0 ||
        pads[d + k] < 0)
      return nodeError(nc) << "image_shape, block_shape, dilations and strides must be "
                              "positive and pads non-negative";
    CheckedInt span = CheckedInt(dil[d]) * ((*block)[d] - 1) + 1;
    CheckedInt room = CheckedInt((*image)[d]) + pads[d] + pads[d + k] - span;
    if (!room.valid())
      return nodeError(nc) << "the block geometry of image dim " << d << " overflows int64";
    if (room.value() < 0)
      return nodeError(nc) << "the block does not fit image dim " << d;
    cols[d] = room.value() / strides[d] + 1;
  }
  auto K = product(*block), L = product(cols), P = product(*image);
  if (!K || !L || !P)
    return nodeError(nc) << "block / image sizes overflow";
  int64_t n = xt->getDimSize(0), ck = xt->getDimSize(1);
  if (ck % *K)
    return nodeError(nc) << "input dim 1 (" << ck
                         << ") is not a multiple of prod(block_shape) = " << *K;
  if (xt->getDimSize(2) != *L)
    return nodeError(nc) << "input dim 2 (" << xt->getDimSize(2)
                         << ") must be the number of blocks " << *L;
  // The index table: K * P entries, each below K * L + 1.
  constexpr int64_t kMaxTable = int64_t(1) << 24;
  if (*K > kMaxTable || *P > kMaxTable || *K * *P > kMaxTable || *K * *L >= (int64_t(1) << 31))
    return nodeError(nc) << "the index table (" << *K << " x " << *P
                         << " entries) exceeds the supported " << kMaxTable;
  int64_t c = ck / *K;
  SmallVector<int32_t> table;
  table.reserve(*K * *P);
  SmallVector<int64_t> off(k), pos(k);
  for (int64_t kk = 0; kk < *K; ++kk) {
    int64_t rem = kk;
    for (int64_t d = k - 1; d >= 0; --d) {
      off[d] = rem % (*block)[d];
      rem /= (*block)[d];
    }
    for (int64_t pp = 0; pp < *P; ++pp) {
      int64_t prem = pp;
      for (int64_t d = k - 1; d >= 0; --d) {
        pos[d] = prem % (*image)[d];
        prem /= (*image)[d];
      }
      // Block position l with l * stride - pad_begin + off * dil == pos, per dim.
      int64_t l = 0;
      bool hit = true;
      for (int64_t d = 0; d < k && hit; ++d) {
        int64_t q = pos[d] + pads[d] - off[d] * dil[d];
        hit = q >= 0 && q % strides[d] == 0 && q / strides[d] < cols[d];
        l = l * cols[d] + (hit ? q / strides[d] : 0);
      }
      table.push_back(hit ? (int32_t)(kk * *L + l) : (int32_t)(*K * *L));
    }
  }
  Location loc = nc.loc;
  Type elem = xt->getElementType();
  Value flat = reshape(loc, *x, {n * c, *K * *L});
  Value padded =
      graph::PadOp::create(b, loc, RankedTensorType::get({n * c, *K * *L + 1}, elem), flat,
                           b.getDenseI64ArrayAttr({0, 0}), b.getDenseI64ArrayAttr({0, 1}),
                           b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  auto tableT = RankedTensorType::get({*K, *P}, b.getI32Type());
  Value idx = createConstant(loc, DenseElementsAttr::get(tableT, ArrayRef<int32_t>(table)));
  Value g = graph::GatherOp::create(b, loc, RankedTensorType::get({n * c, *K, *P}, elem), padded,
                                    idx, b.getI64IntegerAttr(1));
  Value sum = buildReduce<graph::ReduceSumOp>(loc, g, {1}, false);
  SmallVector<int64_t> outShape{n, c};
  outShape.append(image->begin(), image->end());
  return define(nc, 0, reshape(loc, sum, outShape));
}

/// AffineGrid (ONNX operator spec, opset 20; torch.nn.functional.affine_grid): grid[n,
/// spatial..., :] = theta[n] @ (x, y[, z], 1) over the base grid of `size` ([N, C, H, W]
/// or [N, C, D, H, W], constant), x running along the last spatial dim. Coordinates in
/// [-1, 1]: -1 + 2i / (s - 1) with align_corners, else -1 + (2i + 1) / s. The product is
/// written out as broadcasting elementwise ops, theta[:, :, 0] * x + theta[:, :, 1] * y
/// (+ theta[:, :, 2] * z) + theta[:, :, last], with one constant coordinate vector per
/// spatial dim: no [D * H * W, 4] base-grid constant, one fused elementwise kernel.
LogicalResult Importer::importAffineGrid(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto theta = getInput(nc, 0), sizeIn = getInput(nc, 1);
  auto align = getInt(nc, "align_corners", 0);
  if (failed(theta) || failed(sizeIn) || failed(align))
    return failure();
  auto tt = checkFloat(nc, *theta, "theta");
  if (failed(tt))
    return failure();
  auto size = getConstantInts(nc, *sizeIn, inputWhat(nc, 1, "size"));
  if (failed(size))
    return failure();
  if (size->size() != 4 && size->size() != 5)
    return nodeError(nc) << "size must be [N, C, H, W] or [N, C, D, H, W], got " << size->size()
                         << " entries";
  int64_t dims = size->size() - 2, n = (*size)[0];
  if (tt->getRank() != 3 || tt->getDimSize(0) != n || tt->getDimSize(1) != dims ||
      tt->getDimSize(2) != dims + 1)
    return nodeError(nc) << "theta must be [" << n << ", " << dims << ", " << dims + 1
                         << "] for size " << shapeStr(*size) << ", got " << *tt;
  SmallVector<int64_t> spatial(size->begin() + 2, size->end());
  if (n < 1)
    return nodeError(nc) << "size's N must be positive, got " << shapeStr(*size);
  for (int64_t s : spatial)
    if (s < 1)
      return nodeError(nc) << "spatial sizes must be positive, got " << shapeStr(*size);
  if (!product(spatial) || *product(spatial) >= (int64_t(1) << 31) / (n * dims))
    return nodeError(nc) << "the grid of " << shapeStr(spatial) << " is too large";
  Location loc = nc.loc;
  Type elem = tt->getElementType();
  int64_t rank = dims + 2; // [N, spatial..., dims]
  // theta[:, :, j] as [N, 1, ..., 1, dims].
  auto column = [&](int64_t j) -> Value {
    SmallVector<int64_t> starts{0, 0, j}, steps{1, 1, 1};
    Value c = graph::SliceOp::create(b, loc, RankedTensorType::get({n, dims, 1}, elem), *theta,
                                     b.getDenseI64ArrayAttr(starts), b.getDenseI64ArrayAttr(steps));
    SmallVector<int64_t> shape(rank, 1);
    shape[0] = n;
    shape[rank - 1] = dims;
    return reshape(loc, c, shape);
  };
  // The coordinates of spatial dim `d` (numpy arange: start + i * step, as the reference)
  // as [1, ..., s, ..., 1].
  auto coords = [&](int64_t d) -> Value {
    int64_t s = spatial[d];
    SmallVector<int64_t> shape(rank, 1);
    shape[1 + d] = s;
    if (s > kMaxIotaConstant) {
      // Long axes at run time (start + i * step in f32 or f64, then elem): compile-time
      // memory stays O(sqrt(s)) (see iotaAlong).
      Type ft = indexFloatType(s);
      double start = *align ? -1.0 : -1.0 + 1.0 / s, step = *align ? 2.0 / (s - 1) : 2.0 / s;
      Value v = bin<graph::AddOp>(
          loc, bin<graph::MulOp>(loc, iotaAlong(loc, rank, 1 + d, s, ft), scalarF(loc, ft, step)),
          scalarF(loc, ft, start));
      return castTo(loc, v, elem);
    }
    SmallVector<Attribute> vals;
    for (int64_t i = 0; i < s; ++i) {
      double v;
      if (*align)
        v = s == 1 ? -1.0 : -1.0 + i * (2.0 / (s - 1));
      else
        v = (-1.0 + 1.0 / s) + i * (2.0 / s);
      vals.push_back(b.getFloatAttr(elem, v));
    }
    return createConstant(loc, DenseElementsAttr::get(RankedTensorType::get(shape, elem), vals));
  };
  // Homogeneous coordinate j is spatial dim dims - 1 - j (x is the last dim).
  Value grid = bin<graph::MulOp>(loc, column(0), coords(dims - 1));
  for (int64_t j = 1; j < dims; ++j)
    grid = bin<graph::AddOp>(loc, grid, bin<graph::MulOp>(loc, column(j), coords(dims - 1 - j)));
  grid = bin<graph::AddOp>(loc, grid, column(dims));
  return define(nc, 0, grid);
}

/// TensorScatter (ONNX operator spec, opset 24): present = past_cache with, per batch b,
/// update written along `axis` from write_indices[b] (mod the axis size in circular
/// mode). Inverted per cache position s: j = s - write_indices[b] (mod max_len when
/// circular); s takes update[..., j, ...] where 0 <= j < seq_len, else keeps the past.
/// write_indices is a run-time value: the indices are computed in i64 and gathered
/// (gather_elements) from update, then selected with where.
LogicalResult Importer::importTensorScatter(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto past = getInput(nc, 0), update = getInput(nc, 1), wi = getOptionalInput(nc, 2);
  auto mode = getString(nc, "mode", "linear");
  auto axisAttr = getInt(nc, "axis", -2);
  if (failed(past) || failed(update) || failed(wi) || failed(mode) || failed(axisAttr))
    return failure();
  if (*mode != "linear" && *mode != "circular")
    return nodeError(nc) << "mode must be 'linear' or 'circular', got '" << *mode << "'";
  auto pt = cast<RankedTensorType>(past->getType()), ut = cast<RankedTensorType>(update->getType());
  int64_t r = pt.getRank();
  if (pt.getElementType() != ut.getElementType())
    return nodeError(nc) << "past_cache and update have different element types";
  if (r < 2 || ut.getRank() != r)
    return nodeError(nc) << "past_cache and update must have the same rank >= 2, got " << pt
                         << " and " << ut;
  auto axis = normalizeAxis(nc, *axisAttr, r, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return nodeError(nc) << "axis must not be the batch dim 0";
  for (int64_t d = 0; d < r; ++d)
    if (d != *axis && pt.getDimSize(d) != ut.getDimSize(d))
      return nodeError(nc) << "update " << ut << " differs from past_cache " << pt
                           << " outside the sequence axis " << *axis;
  int64_t maxLen = pt.getDimSize(*axis), seqLen = ut.getDimSize(*axis), batch = pt.getDimSize(0);
  if (seqLen > maxLen)
    return nodeError(nc) << "update's sequence length " << seqLen << " exceeds the cache's "
                         << maxLen;
  Location loc = nc.loc;
  Type i64 = b.getI64Type();
  // j = s - write_indices[b], as [B, 1.., S, 1..].
  SmallVector<int64_t> bShape(r, 1), jShape(r, 1);
  bShape[0] = batch;
  jShape[0] = batch;
  jShape[*axis] = maxLen;
  Value j = iotaAlong(loc, r, *axis, maxLen, i64);
  if (*wi) {
    auto wt = cast<RankedTensorType>(wi->getType());
    if (wt.getRank() != 1 || wt.getDimSize(0) != batch || !wt.getElementType().isInteger(64))
      return nodeError(nc) << "write_indices must be an int64 tensor [" << batch << "], got " << wt;
    j = graph::SubOp::create(b, loc, RankedTensorType::get(jShape, i64), j,
                             reshape(loc, *wi, bShape));
  }
  auto jT = cast<RankedTensorType>(j.getType());
  if (*mode == "circular")
    j = graph::ModOp::create(b, loc, jT, j,
                             intConstantOf(loc, RankedTensorType::get({}, i64), {maxLen}),
                             b.getBoolAttr(false));
  auto boolT = RankedTensorType::get(jT.getShape(), b.getI1Type());
  Value zero = intConstantOf(loc, RankedTensorType::get({}, i64), {0});
  Value valid = graph::AndOp::create(
      b, loc, boolT, graph::GreaterEqualOp::create(b, loc, boolT, j, zero),
      graph::LessOp::create(b, loc, boolT, j,
                            intConstantOf(loc, RankedTensorType::get({}, i64), {seqLen})));
  Value clamped = graph::WhereOp::create(b, loc, jT, valid, j, zero);
  Value idx = graph::ExpandOp::create(b, loc, RankedTensorType::get(pt.getShape(), i64), clamped);
  Value taken =
      graph::GatherElementsOp::create(b, loc, pt, *update, idx, b.getI64IntegerAttr(*axis));
  return define(nc, 0, graph::WhereOp::create(b, loc, pt, valid, taken, *past));
}
