//===- ImportNN.cpp - MatMul, Gemm, Gelu, Conv, pools, normalizations -------===//
#include "Importer.h"

#include "aicc/Support/InputFile.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace aicc::onnx_import::detail;

LogicalResult Importer::importGelu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  auto approximate = getString(nc, "approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return nodeError(nc) << "attribute 'approximate' must be \"none\" or \"tanh\", got \""
                         << *approximate << "\"";
  return define(nc, 0, graph::GeluOp::create(b, nc.loc, in->getType(), *in, *approximate));
}

LogicalResult Importer::importMatMul(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto lhs = getInput(nc, 0), rhs = getInput(nc, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  auto at = checkFloat(nc, *lhs, "A"), bt = checkFloat(nc, *rhs, "B");
  if (failed(at) || failed(bt))
    return failure();
  if (at->getElementType() != bt->getElementType())
    return nodeError(nc) << "operands have different element types (" << at->getElementType()
                         << " vs " << bt->getElementType() << ")";
  if (at->getRank() == 0 || bt->getRank() == 0)
    return nodeError(nc) << "operands must have rank >= 1";
  // numpy.matmul: 1-D A is [1, K], 1-D B is [K, 1]; the added dims are dropped.
  SmallVector<int64_t> sa(at->getShape()), sb(bt->getShape());
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2])
    return nodeError(nc) << "contraction dimensions differ: A " << shapeStr(at->getShape())
                         << ", B " << shapeStr(bt->getShape());
  auto batch = graph::broadcastShapes(ArrayRef<int64_t>(sa).drop_back(2),
                                      ArrayRef<int64_t>(sb).drop_back(2));
  if (failed(batch))
    return nodeError(nc) << "batch dimensions of A " << shapeStr(at->getShape()) << " and B "
                         << shapeStr(bt->getShape()) << " do not broadcast";
  SmallVector<int64_t> shape(*batch);
  if (!vecA)
    shape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    shape.push_back(sb.back());
  Value v = graph::MatMulOp::create(b, nc.loc, RankedTensorType::get(shape, at->getElementType()),
                                    *lhs, *rhs);
  return define(nc, 0, v);
}

LogicalResult Importer::importGemm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto a = getInput(nc, 0), bm = getInput(nc, 1), c = getOptionalInput(nc, 2);
  if (failed(a) || failed(bm) || failed(c))
    return failure();
  auto at = checkFloat(nc, *a, "A"), bt = checkFloat(nc, *bm, "B");
  if (failed(at) || failed(bt))
    return failure();
  auto alpha = getFloat(nc, "alpha", 1.0f), beta = getFloat(nc, "beta", 1.0f);
  auto transA = getInt(nc, "transA", 0), transB = getInt(nc, "transB", 0);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  if (at->getRank() != 2 || bt->getRank() != 2)
    return nodeError(nc) << "A and B must be rank-2 tensors, got " << *at << " and " << *bt;
  Type elt = at->getElementType();
  if (bt->getElementType() != elt)
    return nodeError(nc) << "A and B have different element types (" << elt << " vs "
                         << bt->getElementType() << ")";
  int64_t m = *transA ? at->getDimSize(1) : at->getDimSize(0);
  int64_t ka = *transA ? at->getDimSize(0) : at->getDimSize(1);
  int64_t kb = *transB ? bt->getDimSize(1) : bt->getDimSize(0);
  int64_t n = *transB ? bt->getDimSize(0) : bt->getDimSize(1);
  if (ka != kb)
    return nodeError(nc) << "contraction dimensions differ: op(A) is [" << m << ", " << ka
                         << "], op(B) is [" << kb << ", " << n << "]";
  if (*c) {
    auto ct = checkFloat(nc, *c, "C");
    if (failed(ct))
      return failure();
    if (ct->getElementType() != elt)
      return nodeError(nc) << "C has element type " << ct->getElementType() << ", A has " << elt;
    // Unidirectional broadcast of C to [M, N] (also what legacy
    // broadcast = 1 allows before opset 7).
    SmallVector<int64_t> mn = {m, n};
    auto bc = graph::broadcastShapes(mn, ct->getShape());
    if (ct->getRank() > 2 || failed(bc) || *bc != mn)
      return nodeError(nc) << "C of shape " << shapeStr(ct->getShape())
                           << " does not broadcast to [" << m << ", " << n << "]";
  }
  Value v = graph::GemmOp::create(b, nc.loc, RankedTensorType::get({m, n}, elt), *a, *bm, *c,
                                  b.getF32FloatAttr(*alpha), b.getF32FloatAttr(*beta),
                                  b.getBoolAttr(*transA != 0), b.getBoolAttr(*transB != 0));
  return define(nc, 0, v);
}

FailureOr<Importer::Window> Importer::windowGeometry(const NodeCtx &nc,
                                                     ArrayRef<int64_t> spatial,
                                                     ArrayRef<int64_t> kernel, bool allowCeil) {
  int64_t k = spatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  auto strides = getInts(nc, "strides"), pads = getInts(nc, "pads"),
       dil = getInts(nc, "dilations");
  auto autoPad = getString(nc, "auto_pad", "NOTSET");
  auto ceil = getInt(nc, "ceil_mode", 0);
  if (failed(strides) || failed(pads) || failed(dil) || failed(autoPad) || failed(ceil))
    return failure();
  w.strides = *strides ? **strides : SmallVector<int64_t>(k, 1);
  w.dilations = *dil ? **dil : SmallVector<int64_t>(k, 1);
  w.pads = *pads ? **pads : SmallVector<int64_t>(2 * k, 0);
  if ((int64_t)w.strides.size() != k || (int64_t)w.dilations.size() != k ||
      (int64_t)w.pads.size() != 2 * k)
    return nodeError(nc) << "strides / dilations / pads do not match " << k << " spatial dims";
  if (*ceil && !allowCeil)
    return nodeError(nc) << "ceil_mode is not defined for this op";
  for (int64_t d = 0; d < k; ++d) {
    int64_t in = spatial[d], s = w.strides[d];
    if (s < 1 || w.dilations[d] < 1)
      return nodeError(nc) << "strides and dilations must be positive";
    if (w.kernel[d] < 1)
      return nodeError(nc) << "kernel size " << w.kernel[d] << " of spatial dim " << d
                           << " is not positive";
    if (w.pads[d] < 0 || w.pads[d + k] < 0)
      return nodeError(nc) << "pads must be >= 0";
    // Every quantity below is checked: kernel, dilations, strides and pads are
    // attributes, so any int64 (the window then does not fit, or a size overflows).
    CheckedInt span = (CheckedInt(w.kernel[d]) - 1) * w.dilations[d] + 1, o;
    if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
      o = (CheckedInt(in) + (s - 1)) / s;
      CheckedInt total = (o - 1) * s + span - in;
      if (!total.valid())
        return nodeError(nc) << "the window of spatial dim " << d << " overflows int64";
      int64_t t = std::max<int64_t>(0, total.value());
      int64_t small = t / 2, big = t - small;
      w.pads[d] = *autoPad == "SAME_UPPER" ? small : big;
      w.pads[d + k] = *autoPad == "SAME_UPPER" ? big : small;
    } else if (*autoPad == "VALID") {
      w.pads[d] = w.pads[d + k] = 0;
      CheckedInt num = CheckedInt(in) - span;
      o = num.valid() && num.value() < 0 ? CheckedInt(0) : num / s + 1;
    } else if (*autoPad == "NOTSET") {
      CheckedInt num = CheckedInt(in) + w.pads[d] + w.pads[d + k] - span;
      if (num.valid() && num.value() < 0) {
        o = 0;
      } else {
        o = (*ceil ? (num + (s - 1)) / s : num / s) + 1;
        // ceil_mode: a last window that would start in the end padding is dropped.
        CheckedInt lastStart = (o - 1) * s, padded = CheckedInt(in) + w.pads[d];
        if (*ceil && lastStart.valid() && padded.valid() && lastStart.value() >= padded.value())
          o -= 1;
      }
    } else {
      return nodeError(nc) << "auto_pad '" << *autoPad << "' is not supported";
    }
    if (!o.valid() || !span.valid())
      return nodeError(nc) << "the window of spatial dim " << d
                           << " (kernel, dilations, strides, pads) overflows int64";
    if (o.value() < 1)
      return nodeError(nc) << "the window does not fit spatial dim " << d;
    w.out.push_back(o.value());
  }
  return w;
}

LogicalResult Importer::importConv(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), wt = getInput(nc, 1), bias = getOptionalInput(nc, 2);
  auto group = getInt(nc, "group", 1);
  if (failed(x) || failed(wt) || failed(bias) || failed(group))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto wT = cast<RankedTensorType>(wt->getType());
  if (xt->getRank() < 3 || wT.getRank() != xt->getRank())
    return nodeError(nc) << "X and W must have the same rank >= 3";
  auto kattr = getInts(nc, "kernel_shape");
  if (failed(kattr))
    return failure();
  auto geo = windowGeometry(nc, xt->getShape().drop_front(2), wT.getShape().drop_front(2), false);
  if (failed(geo))
    return failure();
  if (*group < 1 || xt->getDimSize(1) % *group ||
      (CheckedInt(wT.getDimSize(1)) * *group).get() != xt->getDimSize(1))
    return nodeError(nc) << "group " << *group << " does not match C = " << xt->getDimSize(1)
                         << " and W " << shapeStr(wT.getShape());
  SmallVector<int64_t> shape{xt->getDimSize(0), wT.getDimSize(0)};
  shape.append(geo->out.begin(), geo->out.end());
  return define(nc, 0, graph::ConvOp::create(
                           b, nc.loc, RankedTensorType::get(shape, xt->getElementType()), *x, *wt,
                           *bias, b.getDenseI64ArrayAttr(geo->strides),
                           b.getDenseI64ArrayAttr(geo->pads), b.getDenseI64ArrayAttr(geo->dilations),
                           b.getI64IntegerAttr(*group)));
}

LogicalResult Importer::importPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 2)))
    return failure();
  bool wantIndices = nc.node.output_size() > 1 && !nc.node.output(1).empty() &&
                     usedNames.contains(nc.node.output(1));
  auto x = getInput(nc, 0);
  auto kernel = getInts(nc, "kernel_shape");
  if (failed(x) || failed(kernel))
    return failure();
  // MaxPool-12 also takes int8 / uint8: pooled in f32 (exact), then cast back.
  Type intElem = cast<RankedTensorType>(x->getType()).getElementType();
  if (nc.opType() == "MaxPool" && intElem.isInteger(8))
    *x = castTo(nc.loc, *x, b.getF32Type());
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  if (!*kernel)
    return nodeError(nc) << "attribute 'kernel_shape' is required";
  if (xt->getRank() < 3 || (int64_t)(*kernel)->size() != xt->getRank() - 2)
    return nodeError(nc) << "kernel_shape must have one entry per spatial dim";
  int64_t storageOrder = 0;
  if (nc.opType() == "MaxPool") {
    auto order = getInt(nc, "storage_order", 0);
    if (failed(order))
      return failure();
    storageOrder = *order;
  }
  auto geo = windowGeometry(nc, xt->getShape().drop_front(2), **kernel, /*allowCeil=*/true);
  if (failed(geo))
    return failure();
  SmallVector<int64_t> shape{xt->getDimSize(0), xt->getDimSize(1)};
  shape.append(geo->out.begin(), geo->out.end());
  auto t = RankedTensorType::get(shape, xt->getElementType());
  if (nc.opType() == "MaxPool") {
    Value y = graph::MaxPoolOp::create(
        b, nc.loc, t, *x, b.getDenseI64ArrayAttr(geo->kernel),
        b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
        b.getDenseI64ArrayAttr(geo->dilations));
    if (wantIndices) {
      auto indices = maxPoolIndices(nc, *x, y, *geo, storageOrder);
      if (failed(indices) || failed(define(nc, 1, *indices)))
        return failure();
    }
    return define(nc, 0, castTo(nc.loc, y, intElem));
  }
  auto cip = getInt(nc, "count_include_pad", 0);
  if (failed(cip))
    return failure();
  return define(nc, 0, graph::AvgPoolOp::create(
                           b, nc.loc, t, *x, b.getDenseI64ArrayAttr(geo->kernel),
                           b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
                           b.getDenseI64ArrayAttr(geo->dilations), b.getBoolAttr(*cip != 0)));
}

/// MaxPool's Indices output (MaxPool-8 on): for each output element, the index of the
/// selected input element in the flattened input, (n * C + c) * prod(spatial) + the
/// spatial offset (row-major, or column-major over the two spatial dims when
/// storage_order = 1), padding not counted; the first maximum in the window's row-major
/// order wins (the ONNX reference's strict '>' scan). Built from existing ops: for each
/// kernel offset k, the strided slice of X (padded with -inf) at k equals Y where k holds
/// the maximum; scanning k backwards, where(equal_k, base + offset_k, acc) keeps the first.
/// base (a constant of Y's shape) is the flat index of each window's (virtual) origin, and
/// offset_k is linear in k, so padding positions are never selected unless a whole window's
/// valid elements are -inf.
FailureOr<Value> Importer::maxPoolIndices(const NodeCtx &nc, Value x, Value y, const Window &w,
                                          int64_t storageOrder) {
  auto xt = cast<RankedTensorType>(x.getType()), yt = cast<RankedTensorType>(y.getType());
  int64_t k = xt.getRank() - 2;
  if (storageOrder != 0 && storageOrder != 1)
    return nodeError(nc) << "storage_order must be 0 or 1, got " << storageOrder;
  if (storageOrder == 1 && k > 2)
    return nodeError(nc) << "storage_order = 1 (column major) is supported for 1-D and 2-D "
                            "pooling, got "
                         << k << " spatial dims";
  auto spatial = xt.getShape().drop_front(2);
  // Element strides of the spatial dims in the flattened input.
  SmallVector<int64_t> stride(k, 1);
  for (int64_t d = k - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * spatial[d + 1];
  if (storageOrder == 1 && k == 2)
    stride = {1, spatial[0]};
  int64_t plane = 1;
  for (int64_t d : spatial)
    plane *= d;
  // X padded with -inf, with room for every window (ceil_mode may reach past the pads).
  // One slice + compare + select per window offset, and a constant of Y's size: capped.
  CheckedInt numOffsets = 1;
  for (int64_t kd : w.kernel)
    numOffsets *= kd;
  constexpr int64_t kMaxWindowOffsets = 1 << 16;
  if (!numOffsets.valid() || numOffsets.value() > kMaxWindowOffsets)
    return nodeError(nc) << "the Indices output of a window of more than " << kMaxWindowOffsets
                         << " positions is not supported";
  // Y's element count can overflow int64 here (the pooled output of a hostile shape is not
  // checked before this point; aicc-fuzz-onnx).
  std::optional<int64_t> yElems = product(yt.getShape());
  if (!yElems)
    return nodeError(nc) << "output " << shapeStr(yt.getShape())
                         << " has more elements than int64 can count";
  if (failed(checkTable(nc, *yElems, 8, "the Indices output's base offsets")))
    return failure();
  SmallVector<int64_t> low(xt.getRank(), 0), high(xt.getRank(), 0), padded(xt.getShape());
  for (int64_t d = 0; d < k; ++d) {
    CheckedInt span = (CheckedInt(w.kernel[d]) - 1) * w.dilations[d] + 1;
    CheckedInt need = (CheckedInt(w.out[d]) - 1) * w.strides[d] + span;
    low[d + 2] = w.pads[d];
    CheckedInt hi = need - spatial[d] - w.pads[d];
    if (!hi.valid())
      return nodeError(nc) << "the window of spatial dim " << d << " overflows int64";
    high[d + 2] = std::max(w.pads[d + k], hi.value());
    CheckedInt size = CheckedInt(spatial[d]) + low[d + 2] + high[d + 2];
    if (!size.valid())
      return nodeError(nc) << "the padded size of spatial dim " << d << " overflows int64";
    padded[d + 2] = size.value();
  }
  if (failed(checkShape(nc, padded, xt.getElementType(), "padded input of shape")))
    return failure();
  Value xp = x;
  if (llvm::any_of(low, [](int64_t p) { return p != 0; }) ||
      llvm::any_of(high, [](int64_t p) { return p != 0; }))
    xp = graph::PadOp::create(b, nc.loc, RankedTensorType::get(padded, xt.getElementType()), x,
                              b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                              b.getStringAttr("constant"),
                              b.getF64FloatAttr(-std::numeric_limits<double>::infinity()));
  // base[n, c, o...] = (n * C + c) * plane + sum_d (o_d * stride_d - pad_d) * stride[d].
  auto i64 = b.getI64Type();
  auto it = RankedTensorType::get(yt.getShape(), i64);
  SmallVector<int64_t> base;
  base.reserve(yt.getNumElements());
  SmallVector<int64_t> idx(yt.getRank(), 0);
  for (int64_t lin = 0; lin < yt.getNumElements(); ++lin) {
    int64_t rem = lin;
    for (int64_t d = yt.getRank() - 1; d >= 0; --d) {
      idx[d] = rem % yt.getDimSize(d);
      rem /= yt.getDimSize(d);
    }
    int64_t v = (idx[0] * xt.getDimSize(1) + idx[1]) * plane;
    for (int64_t d = 0; d < k; ++d)
      v += (idx[d + 2] * w.strides[d] - w.pads[d]) * stride[d];
    base.push_back(v);
  }
  Value baseV = intConstantOf(nc.loc, it, base);
  Value acc = createConstant(nc.loc, DenseElementsAttr::get(it, b.getI64IntegerAttr(-1)));
  auto boolT = RankedTensorType::get(yt.getShape(), b.getI1Type());
  for (int64_t off = numOffsets.value() - 1; off >= 0; --off) {
    SmallVector<int64_t> starts(xt.getRank(), 0), steps(xt.getRank(), 1);
    int64_t rem = off, flat = 0;
    for (int64_t d = k - 1; d >= 0; --d) {
      int64_t kk = rem % w.kernel[d];
      rem /= w.kernel[d];
      starts[d + 2] = kk * w.dilations[d];
      steps[d + 2] = w.strides[d];
      flat += kk * w.dilations[d] * stride[d];
    }
    Value window = graph::SliceOp::create(b, nc.loc, yt, xp, b.getDenseI64ArrayAttr(starts),
                                          b.getDenseI64ArrayAttr(steps));
    Value eq = graph::EqualOp::create(b, nc.loc, boolT, window, y);
    Value at = bin<graph::AddOp>(nc.loc, baseV,
                                 intConstantOf(nc.loc, RankedTensorType::get({}, i64), {flat}));
    acc = graph::WhereOp::create(b, nc.loc, it, eq, at, acc);
  }
  return acc;
}

/// GlobalAveragePool / GlobalMaxPool: reductions over the spatial dims, kept as size 1.
LogicalResult Importer::importGlobalPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x) || failed(checkFloat(nc, *x, "X")))
    return failure();
  int64_t r = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < r; ++d)
    axes.push_back(d);
  if (nc.opType() == "GlobalMaxPool")
    return define(nc, 0, buildReduce<graph::ReduceMaxOp>(nc.loc, *x, axes, true));
  return define(nc, 0, buildReduce<graph::ReduceMeanOp>(nc.loc, *x, axes, true));
}

LogicalResult Importer::importPRelu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), slope = getInput(nc, 1);
  if (failed(x) || failed(slope) || failed(checkFloat(nc, *x, "X")))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto st = cast<RankedTensorType>(slope->getType());
  Value s = *slope;
  // Before opset 7 a 1-D slope of C values is per channel (dim 1).
  if (opset < 7 && st.getRank() == 1 && xt.getRank() > 2 && st.getDimSize(0) == xt.getDimSize(1)) {
    SmallVector<int64_t> shape(xt.getRank() - 1, 1);
    shape[0] = st.getDimSize(0);
    s = reshape(nc.loc, s, shape);
  }
  auto shape = graph::broadcastShapes(xt.getShape(), cast<RankedTensorType>(s.getType()).getShape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != xt.getShape())
    return nodeError(nc) << "slope of shape " << shapeStr(st.getShape())
                         << " does not broadcast to X of shape " << shapeStr(xt.getShape());
  return define(nc, 0, graph::PReluOp::create(b, nc.loc, xt, *x, s));
}

/// Reshapes a per-channel vector [C] to broadcast along dim 1 of a rank-`rank` tensor.
static SmallVector<int64_t> channelShape(int64_t c, int64_t rank) {
  SmallVector<int64_t> s(std::max<int64_t>(rank - 1, 1), 1);
  s[0] = c;
  return s;
}

/// Inference BatchNormalization: (x - mean) / sqrt(var + eps) * scale + B, per channel.
LogicalResult Importer::importBatchNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 5, 5, 5)))
    return failure();
  for (int i = 1; i < nc.node.output_size(); ++i)
    if (!nc.node.output(i).empty() && usedNames.contains(nc.node.output(i)))
      return nodeError(nc) << "training outputs (running mean/var) are not supported";
  auto training = getInt(nc, "training_mode", 0);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(training) || failed(eps))
    return failure();
  if (*training)
    return nodeError(nc) << "training_mode = 1 is not supported (inference only)";
  SmallVector<Value> in;
  for (int i = 0; i < 5; ++i) {
    auto v = getInput(nc, i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  auto xt = checkFloat(nc, in[0], "X");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 2)
    return nodeError(nc) << "X must have rank >= 2";
  int64_t c = xt->getDimSize(1), rank = xt->getRank();
  SmallVector<Value> p;
  for (int i = 1; i < 5; ++i) {
    auto t = cast<RankedTensorType>(in[i].getType());
    if (t.getRank() != 1 || t.getDimSize(0) != c)
      return nodeError(nc) << "input " << i << " must have shape [" << c << "]";
    Value v = reshape(nc.loc, castTo(nc.loc, in[i], xt->getElementType()), channelShape(c, rank));
    p.push_back(v);
  }
  Location loc = nc.loc;
  Value denom = graph::SqrtOp::create(
      b, loc, p[3].getType(), bin<graph::AddOp>(loc, p[3], scalarF(loc, xt->getElementType(), *eps)));
  Value y = bin<graph::DivOp>(loc, bin<graph::SubOp>(loc, in[0], p[2]), denom);
  y = bin<graph::AddOp>(loc, bin<graph::MulOp>(loc, y, p[0]), p[1]);
  return define(nc, 0, y);
}

/// InstanceNormalization: normalize over the spatial dims of each (n, c), then scale + B.
LogicalResult Importer::importInstanceNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getInput(nc, 2);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(x) || failed(scale) || failed(bias) || failed(eps))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 3)
    return nodeError(nc) << "input must have rank >= 3";
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < xt->getRank(); ++d)
    axes.push_back(d);
  Value y = normalize(nc.loc, *x, axes, *eps);
  auto cs = channelShape(xt->getDimSize(1), xt->getRank());
  y = bin<graph::MulOp>(nc.loc, y, reshape(nc.loc, *scale, cs));
  return define(nc, 0, bin<graph::AddOp>(nc.loc, y, reshape(nc.loc, *bias, cs)));
}

/// LayerNormalization (opset 17): normalize over dims [axis, rank), then Scale and B
/// (broadcast over those dims). Optional outputs: Mean and InvStdDev (reduced dims kept).
LogicalResult Importer::importLayerNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 3)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getOptionalInput(nc, 2);
  auto axisAttr = getInt(nc, "axis", -1);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  auto stash = getInt(nc, "stash_type", 1);
  if (failed(x) || failed(scale) || failed(bias) || failed(axisAttr) || failed(eps) ||
      failed(stash))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto axis = normalizeAxis(nc, *axisAttr, xt->getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t d = *axis; d < xt->getRank(); ++d)
    axes.push_back(d);
  // Scale and B broadcast to X (ONNX: to the normalized shape X[axis:]); the output is X's shape.
  for (auto [what, v] : {std::pair<llvm::StringRef, Value>{"Scale", *scale}, {"B", *bias}}) {
    if (!v)
      continue;
    auto vt = cast<RankedTensorType>(v.getType());
    auto shape = graph::broadcastShapes(xt->getShape(), vt.getShape());
    if (vt.getElementType() != xt->getElementType() || failed(shape) ||
        ArrayRef<int64_t>(*shape) != xt->getShape())
      return nodeError(nc) << what << " " << vt << " does not broadcast to X " << *xt;
  }
  Location loc = nc.loc;
  bool extraOutputs = false;
  for (int i = 1; i < nc.node.output_size(); ++i)
    extraOutputs |= !nc.node.output(i).empty() && usedNames.contains(nc.node.output(i));
  if (!extraOutputs)
    return define(nc, 0, graph::LayerNormOp::create(b, loc, *xt, *x, *scale,
                                                    *bias, b.getI64IntegerAttr(*axis),
                                                    b.getF64FloatAttr(*eps)));
  // Mean / InvStdDev are wanted: the decomposed form computes them.
  Value mean = buildReduce<graph::ReduceMeanOp>(loc, *x, axes, true);
  Value d = bin<graph::SubOp>(loc, *x, mean);
  Value var = buildReduce<graph::ReduceMeanOp>(loc, bin<graph::MulOp>(loc, d, d), axes, true);
  Value stddev = graph::SqrtOp::create(
      b, loc, var.getType(), bin<graph::AddOp>(loc, var, scalarF(loc, xt->getElementType(), *eps)));
  Value y = bin<graph::DivOp>(loc, d, stddev);
  y = bin<graph::MulOp>(loc, y, *scale);
  if (*bias)
    y = bin<graph::AddOp>(loc, y, *bias);
  if (failed(define(nc, 0, y)))
    return failure();
  if (nc.node.output_size() > 1 && !nc.node.output(1).empty() && failed(define(nc, 1, mean)))
    return failure();
  if (nc.node.output_size() > 2 && !nc.node.output(2).empty())
    return define(nc, 2, graph::ReciprocalOp::create(b, loc, stddev.getType(), stddev));
  return success();
}

/// GroupNormalization (opset 18/21): [N, C, ...] as [N, G, C/G * spatial], normalized per
/// group, then per-channel scale and bias (opset 21; per-group in opset 18).
LogicalResult Importer::importGroupNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getInput(nc, 2);
  auto groups = getInt(nc, "num_groups", 0);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(x) || failed(scale) || failed(bias) || failed(groups) || failed(eps))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 2)
    return nodeError(nc) << "X must have rank >= 2 ([N, C, ...])";
  int64_t n = xt->getDimSize(0), c = xt->getDimSize(1), g = *groups;
  if (g <= 0 || c % g != 0)
    return nodeError(nc) << "num_groups " << g << " does not divide " << c << " channels";
  // Elements per (n, group): C / G * prod(spatial) (not numElements / (N * G): N may be 0).
  int64_t perGroup = *product(xt->getShape().drop_front(2)) * (c / g);
  Value flat = reshape(nc.loc, *x, {n, g, perGroup});
  Value y = reshape(nc.loc, normalize(nc.loc, flat, {2}, *eps), xt->getShape());
  int64_t sc = cast<RankedTensorType>(scale->getType()).getNumElements();
  Value s = *scale, bb = *bias;
  if (sc == g && g != c) { // opset 18: one scale / bias per group
    SmallVector<int64_t> gshape{n, g, perGroup};
    Value yg = reshape(nc.loc, y, gshape);
    yg = bin<graph::MulOp>(nc.loc, yg, reshape(nc.loc, s, {g, 1}));
    yg = bin<graph::AddOp>(nc.loc, yg, reshape(nc.loc, bb, {g, 1}));
    return define(nc, 0, reshape(nc.loc, yg, xt->getShape()));
  }
  auto cs = channelShape(c, xt->getRank());
  y = bin<graph::MulOp>(nc.loc, y, reshape(nc.loc, s, cs));
  return define(nc, 0, bin<graph::AddOp>(nc.loc, y, reshape(nc.loc, bb, cs)));
}

void Importer::registerNNOps(OpTable &t) {
  t.add("Gelu", 20, handle<&Importer::importGelu>);
  t.add("MatMul", 1, handle<&Importer::importMatMul>);
  t.add("Gemm", 1, handle<&Importer::importGemm>);
  t.add("Conv", 1, handle<&Importer::importConv>);
  t.add("MaxPool", 1, handle<&Importer::importPool>);
  t.add("AveragePool", 1, handle<&Importer::importPool>);
  t.add("GlobalAveragePool", 1, handle<&Importer::importGlobalPool>);
  t.add("GlobalMaxPool", 1, handle<&Importer::importGlobalPool>);
  t.add("PRelu", 1, handle<&Importer::importPRelu>);
  t.add("BatchNormalization", 1, handle<&Importer::importBatchNorm>);
  t.add("InstanceNormalization", 1, handle<&Importer::importInstanceNorm>);
  t.add("LayerNormalization", 17, handle<&Importer::importLayerNorm>);
  t.add("GroupNormalization", 18, handle<&Importer::importGroupNorm>);
}
