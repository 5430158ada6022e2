//===- ImportInteger.cpp - ONNX integer ops -> graph dialect ----------------===//
//
// BitShift (graph.bit_shift), and, as decompositions into existing graph ops,
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and
// ConvInteger. Formulas: ONNX operator specs (onnx/docs/Operators.md).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

void Importer::registerIntegerOps(OpTable &t) {
  t.add("BitShift", 11, handle<&Importer::importBitShift>);
  t.add("QuantizeLinear", 10, handle<&Importer::importQuantizeLinear>);
  t.add("DequantizeLinear", 10, handle<&Importer::importDequantizeLinear>);
  t.add("DynamicQuantizeLinear", 11, handle<&Importer::importDynamicQuantizeLinear>);
  t.add("MatMulInteger", 10, handle<&Importer::importMatMulInteger>);
  t.add("ConvInteger", 10, handle<&Importer::importConvInteger>);
}

/// BitShift-11: Z = X << Y or X >> Y (logical), numpy broadcasting, uint8 ... uint64.
LogicalResult Importer::importBitShift(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  auto direction = getString(nc, "direction", "");
  if (failed(x) || failed(y) || failed(direction))
    return failure();
  if (*direction != "LEFT" && *direction != "RIGHT")
    return nodeError(nc) << "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \""
                         << *direction << "\"";
  auto xt = cast<RankedTensorType>(x->getType()), yt = cast<RankedTensorType>(y->getType());
  if (xt.getElementType() != yt.getElementType())
    return nodeError(nc) << "operands have different element types (" << xt.getElementType()
                         << " vs " << yt.getElementType() << ")";
  if (!xt.getElementType().isUnsignedInteger())
    return nodeError(nc) << "operands must be unsigned integer tensors (uint8 ... uint64), got "
                         << xt;
  auto shape = graph::broadcastShapes(xt.getShape(), yt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(xt.getShape()) << " and "
                         << shapeStr(yt.getShape()) << " do not broadcast";
  return define(
      nc, 0,
      graph::BitShiftOp::create(b, nc.loc, RankedTensorType::get(*shape, xt.getElementType()), *x,
                                *y, b.getStringAttr(*direction == "LEFT" ? "left" : "right")));
}

FailureOr<Value> Importer::quantParam(const NodeCtx &nc, Value p, RankedTensorType xt, int64_t axis,
                                      StringRef what) {
  auto pt = cast<RankedTensorType>(p.getType());
  // Per tensor: a scalar, or a 1-element 1-D tensor (the same as per axis when C = 1).
  if (pt.getRank() == 0)
    return p;
  if (pt.getRank() == 1 && pt.getDimSize(0) == 1)
    return reshape(nc.loc, p, {});
  if (opset < 13)
    return nodeError(nc) << what << " must be a scalar before opset 13, got " << pt;
  // The axis matters (and must be valid) only per axis.
  if (xt.getRank() == 0)
    return nodeError(nc) << what << " must be a scalar for a scalar x, got " << pt;
  auto a = normalizeAxis(nc, axis, xt.getRank(), /*allowRank=*/false);
  if (failed(a))
    return failure();
  axis = *a;
  if (pt.getRank() != 1 || pt.getDimSize(0) != xt.getDimSize(axis))
    return nodeError(nc) << what << " must be a scalar or a 1-D tensor of x.shape[axis] = "
                         << xt.getDimSize(axis) << " values, got " << pt;
  // Per axis: [C] -> [C, 1, ..., 1], which broadcasts along x's dim `axis`.
  SmallVector<int64_t> shape{pt.getDimSize(0)};
  shape.append(xt.getRank() - axis - 1, 1);
  return reshape(nc.loc, p, shape);
}

Value Importer::quantizeTo(Location loc, Value x, Value scale, Value zeroPoint, Type qType) {
  // QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point), round half to even,
  // saturate to qType's range; computed in x's float type.
  auto xt = cast<RankedTensorType>(x.getType());
  Type f = xt.getElementType();
  Value q = bin<graph::DivOp>(loc, x, scale);
  q = graph::RoundOp::create(b, loc, q.getType(), q);
  if (zeroPoint)
    q = bin<graph::AddOp>(loc, q, castTo(loc, zeroPoint, f));
  bool isUnsigned = qType.isUnsignedInteger();
  unsigned w = qType.getIntOrFloatBitWidth();
  double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  q = graph::ClipOp::create(b, loc, q.getType(), q, b.getF64FloatAttr(lo), b.getF64FloatAttr(hi));
  return castTo(loc, q, qType);
}

/// QuantizeLinear-10/13/19: per-tensor or (13+) per-axis scale and zero point.
LogicalResult Importer::importQuantizeLinear(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), zp = getOptionalInput(nc, 2);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  auto saturate = getInt(nc, "saturate", 1);
  auto blockSize = getInt(nc, "block_size", 0);
  if (failed(saturate) || failed(blockSize))
    return failure();
  if (*blockSize != 0)
    return nodeError(nc) << "blocked quantization (block_size = " << *blockSize
                         << ") is not supported";
  if (findAttr(nc, "output_dtype"))
    return nodeError(nc) << "attribute 'output_dtype' is not supported";
  auto xt = cast<RankedTensorType>(x->getType());
  auto st = cast<RankedTensorType>(scale->getType());
  if (!isGraphFloat(st.getElementType()))
    return nodeError(nc) << "y_scale must be a float tensor, got " << st;
  // x: float, or int32 (QuantizeLinear-10); computed in the scale's float type.
  if (!isGraphFloat(xt.getElementType()) && !xt.getElementType().isInteger(32))
    return nodeError(nc) << "x must be a float or int32 tensor, got " << xt;
  Type qType = IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  if (*zp) {
    qType = cast<RankedTensorType>((*zp).getType()).getElementType();
    if (!qType.isInteger(8))
      return nodeError(nc) << "y_zero_point must be a uint8 or int8 tensor, got "
                           << (*zp).getType();
  }
  auto axis = getInt(nc, "axis", 1);
  if (failed(axis))
    return failure();
  auto s = quantParam(nc, *scale, xt, *axis, "y_scale");
  if (failed(s))
    return failure();
  Value z;
  if (*zp) {
    if (cast<RankedTensorType>((*zp).getType()).getShape() != st.getShape())
      return nodeError(nc) << "y_zero_point and y_scale have different shapes";
    auto zr = quantParam(nc, *zp, xt, *axis, "y_zero_point");
    if (failed(zr))
      return failure();
    z = *zr;
  }
  Type f = st.getElementType();
  Value xf = castTo(nc.loc, *x, f);
  return define(nc, 0, quantizeTo(nc.loc, xf, *s, z, qType));
}

/// DequantizeLinear-10/13/19: y = (x - x_zero_point) * x_scale.
LogicalResult Importer::importDequantizeLinear(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), zp = getOptionalInput(nc, 2);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  auto blockSize = getInt(nc, "block_size", 0);
  if (failed(blockSize))
    return failure();
  if (*blockSize != 0)
    return nodeError(nc) << "blocked quantization (block_size = " << *blockSize
                         << ") is not supported";
  auto xt = cast<RankedTensorType>(x->getType());
  auto st = cast<RankedTensorType>(scale->getType());
  if (!isGraphFloat(st.getElementType()))
    return nodeError(nc) << "x_scale must be a float tensor, got " << st;
  Type xe = xt.getElementType();
  if (!xe.isInteger(8) && !xe.isInteger(32))
    return nodeError(nc) << "x must be a uint8, int8 or int32 tensor, got " << xt;
  if (*zp && cast<RankedTensorType>((*zp).getType()).getElementType() != xe)
    return nodeError(nc) << "x_zero_point must have x's element type " << xe << ", got "
                         << (*zp).getType();
  auto axis = getInt(nc, "axis", 1);
  if (failed(axis))
    return failure();
  auto s = quantParam(nc, *scale, xt, *axis, "x_scale");
  if (failed(s))
    return failure();
  // x - x_zero_point exactly in i32 (uint8 / int8 differences fit; int32 x has no zero
  // point other than 0 in ONNX), then to the scale's float type.
  Type i32 = b.getI32Type();
  Value d = castTo(nc.loc, *x, i32);
  if (*zp) {
    if (cast<RankedTensorType>((*zp).getType()).getShape() != st.getShape())
      return nodeError(nc) << "x_zero_point and x_scale have different shapes";
    auto zr = quantParam(nc, *zp, xt, *axis, "x_zero_point");
    if (failed(zr))
      return failure();
    d = bin<graph::SubOp>(nc.loc, d, castTo(nc.loc, *zr, i32));
  }
  return define(nc, 0, bin<graph::MulOp>(nc.loc, castTo(nc.loc, d, st.getElementType()), *s));
}

/// DynamicQuantizeLinear-11 (uint8), per the spec:
///   x_min = min(0, min(x)), x_max = max(0, max(x))
///   y_scale = (x_max - x_min) / (qmax - qmin)                 qmin = 0, qmax = 255
///   y_zero_point = saturate(round(qmin - x_min / y_scale))
///   y = saturate(round(x / y_scale) + y_zero_point)
LogicalResult Importer::importDynamicQuantizeLinear(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 3)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  if (!xt.getElementType().isF32())
    return nodeError(nc) << "x must be a float32 tensor, got " << xt;
  Location loc = nc.loc;
  Type f = xt.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xt.getRank(); ++d)
    all.push_back(d);
  Value zero = scalarF(loc, f, 0.0);
  Value lo = bin<graph::MinOp>(loc, buildReduce<graph::ReduceMinOp>(loc, *x, all, false), zero);
  Value hi = bin<graph::MaxOp>(loc, buildReduce<graph::ReduceMaxOp>(loc, *x, all, false), zero);
  Value scale = bin<graph::DivOp>(loc, bin<graph::SubOp>(loc, hi, lo), scalarF(loc, f, 255.0));
  Type u8 = IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  // round(0 - x_min / y_scale), saturated: quantizeTo(-x_min, y_scale) computes exactly that.
  Value negLo = bin<graph::SubOp>(loc, zero, lo);
  Value zp = quantizeTo(loc, negLo, scale, Value(), u8);
  Value y = quantizeTo(loc, *x, scale, zp, u8);
  if (failed(define(nc, 0, y)) || failed(define(nc, 1, scale)))
    return failure();
  return define(nc, 2, zp);
}

/// Integer operand minus its zero point, as f64 (exact: 8-bit values and differences).
FailureOr<Value> Importer::minusZeroPoint(const NodeCtx &nc, Value v, Value zp,
                                          ArrayRef<int64_t> zpShape, StringRef what) {
  Type f64 = b.getF64Type();
  Value d = castTo(nc.loc, v, f64);
  if (!zp)
    return d;
  auto zt = cast<RankedTensorType>(zp.getType());
  if (zt.getElementType() != cast<RankedTensorType>(v.getType()).getElementType())
    return nodeError(nc) << what << " must have its operand's element type, got " << zt;
  Value z = zp;
  if (zt.getNumElements() == 1 && zt.getRank() <= 1)
    z = zt.getRank() == 0 ? zp : reshape(nc.loc, zp, {});
  else if (zpShape.empty() || zt.getRank() != 1 || zt.getDimSize(0) != zpShape.front())
    return nodeError(nc) << what << " must be a scalar"
                         << (zpShape.empty() ? ""
                                             : " or a 1-D tensor of " +
                                                   std::to_string(zpShape.front()) + " values")
                         << ", got " << zt;
  else
    z = reshape(nc.loc, zp, zpShape);
  return bin<graph::SubOp>(nc.loc, d, castTo(nc.loc, z, f64));
}

/// MatMulInteger-10: Y (int32) = (A - a_zero_point) @ (B - b_zero_point), numpy matmul
/// shapes. Computed in f64 through the float matmul template, then converted to int32: every
/// product of two differences of 8-bit values is below 2^16 and every sum of fewer than 2^37
/// of them is an integer below 2^53, so f64 is exact.
LogicalResult Importer::importMatMulInteger(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 4, 1)))
    return failure();
  auto a = getInput(nc, 0), bv = getInput(nc, 1);
  auto aZp = getOptionalInput(nc, 2), bZp = getOptionalInput(nc, 3);
  if (failed(a) || failed(bv) || failed(aZp) || failed(bZp))
    return failure();
  auto at = cast<RankedTensorType>(a->getType()), bt = cast<RankedTensorType>(bv->getType());
  if (!at.getElementType().isInteger(8) || !bt.getElementType().isInteger(8))
    return nodeError(nc) << "A and B must be uint8 or int8 tensors, got " << at << " and " << bt;
  if (at.getRank() < 1 || bt.getRank() < 1)
    return nodeError(nc) << "operands must have rank >= 1";
  // a_zero_point: scalar or one per row of A ([M] -> [M, 1]); b_zero_point: scalar or one
  // per column of B ([N], broadcasting along B's last dim).
  SmallVector<int64_t> aZpShape, bZpShape;
  if (at.getRank() >= 2)
    aZpShape = {at.getDimSize(at.getRank() - 2), 1};
  if (bt.getRank() >= 2)
    bZpShape = {bt.getDimSize(bt.getRank() - 1)};
  auto af = minusZeroPoint(nc, *a, *aZp, aZpShape, "a_zero_point");
  auto bf = minusZeroPoint(nc, *bv, *bZp, bZpShape, "b_zero_point");
  if (failed(af) || failed(bf))
    return failure();
  SmallVector<int64_t> sa(at.getShape()), sb(bt.getShape());
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2])
    return nodeError(nc) << "contraction dimensions differ: A " << shapeStr(at.getShape()) << ", B "
                         << shapeStr(bt.getShape());
  auto batch = graph::broadcastShapes(ArrayRef<int64_t>(sa).drop_back(2),
                                      ArrayRef<int64_t>(sb).drop_back(2));
  if (failed(batch))
    return nodeError(nc) << "batch dimensions of A " << shapeStr(at.getShape()) << " and B "
                         << shapeStr(bt.getShape()) << " do not broadcast";
  SmallVector<int64_t> shape(*batch);
  if (!vecA)
    shape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    shape.push_back(sb.back());
  Value y =
      graph::MatMulOp::create(b, nc.loc, RankedTensorType::get(shape, b.getF64Type()), *af, *bf);
  return define(nc, 0, castTo(nc.loc, y, b.getI32Type()));
}

/// ConvInteger-10: Y (int32) = conv(x - x_zero_point, w - w_zero_point), Conv's attributes;
/// padding is 0 after the zero point is subtracted (as the ONNX reference and onnxruntime
/// pad with x_zero_point). Computed in f64 through the float conv template, then converted
/// to int32: exact for the same reason as MatMulInteger's.
LogicalResult Importer::importConvInteger(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 4, 1)))
    return failure();
  auto x = getInput(nc, 0), w = getInput(nc, 1);
  auto xZp = getOptionalInput(nc, 2), wZp = getOptionalInput(nc, 3);
  auto group = getInt(nc, "group", 1);
  if (failed(x) || failed(w) || failed(xZp) || failed(wZp) || failed(group))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType()), wt = cast<RankedTensorType>(w->getType());
  if (!xt.getElementType().isInteger(8) || !wt.getElementType().isInteger(8))
    return nodeError(nc) << "x and w must be uint8 or int8 tensors, got " << xt << " and " << wt;
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank())
    return nodeError(nc) << "x and w must have the same rank >= 3";
  auto kattr = getInts(nc, "kernel_shape");
  if (failed(kattr))
    return failure();
  if (*kattr && ArrayRef<int64_t>(**kattr) != wt.getShape().drop_front(2))
    return nodeError(nc) << "kernel_shape does not match w " << shapeStr(wt.getShape());
  auto geo = windowGeometry(nc, xt.getShape().drop_front(2), wt.getShape().drop_front(2), false);
  if (failed(geo))
    return failure();
  if (*group < 1 || xt.getDimSize(1) % *group ||
      (CheckedInt(wt.getDimSize(1)) * *group).get() != xt.getDimSize(1))
    return nodeError(nc) << "group " << *group << " does not match C = " << xt.getDimSize(1)
                         << " and w " << shapeStr(wt.getShape());
  // w_zero_point: scalar or one per output channel ([M] -> [M, 1, ..., 1]).
  SmallVector<int64_t> wZpShape{wt.getDimSize(0)};
  wZpShape.append(wt.getRank() - 1, 1);
  auto xf = minusZeroPoint(nc, *x, *xZp, {}, "x_zero_point");
  auto wf = minusZeroPoint(nc, *w, *wZp, wZpShape, "w_zero_point");
  if (failed(xf) || failed(wf))
    return failure();
  SmallVector<int64_t> shape{xt.getDimSize(0), wt.getDimSize(0)};
  shape.append(geo->out.begin(), geo->out.end());
  Value y = graph::ConvOp::create(
      b, nc.loc, RankedTensorType::get(shape, b.getF64Type()), *xf, *wf, Value(),
      b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
      b.getDenseI64ArrayAttr(geo->dilations), b.getI64IntegerAttr(*group));
  return define(nc, 0, castTo(nc.loc, y, b.getI32Type()));
}
