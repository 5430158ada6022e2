//===- ImportDispatch.cpp - importNode (the op dispatch) and the templated op families ---===//
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

template <typename OpTy> LogicalResult Importer::importBinary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto lhs = getInput(nc, 0), rhs = getInput(nc, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  Value l = *lhs, r = *rhs;
  auto lt = cast<RankedTensorType>(l.getType()), rt = cast<RankedTensorType>(r.getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types (" << lt.getElementType()
                         << " vs " << rt.getElementType() << ")";
  if (opset < 7) {
    // Legacy broadcasting (Add-6 etc.): B broadcasts to A, aligned at `axis`
    // (default: trailing dims, which is numpy's rule).
    auto bcast = getInt(nc, "broadcast", 0);
    if (failed(bcast))
      return failure();
    if (!*bcast) {
      if (lt.getShape() != rt.getShape())
        return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                             << shapeStr(rt.getShape()) << " differ and broadcast = 0 (opset "
                             << opset << ")";
    } else if (findAttr(nc, "axis")) {
      auto axis = getInt(nc, "axis", 0);
      if (failed(axis))
        return failure();
      int64_t rankA = lt.getRank(), rankB = rt.getRank();
      auto a = normalizeAxis(nc, *axis, rankA, /*allowRank=*/true);
      if (failed(a))
        return failure();
      if (*a + rankB > rankA)
        return nodeError(nc) << "B of shape " << shapeStr(rt.getShape())
                             << " does not fit in A of shape " << shapeStr(lt.getShape())
                             << " at axis " << *a;
      SmallVector<int64_t> shape(rt.getShape());
      shape.append(rankA - *a - rankB, 1);
      if ((int64_t)shape.size() != rankB) {
        r = reshape(nc.loc, r, shape);
        rt = cast<RankedTensorType>(r.getType());
      }
    }
  }
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  Value v = OpTy::create(b, nc.loc, RankedTensorType::get(*shape, lt.getElementType()), l, r);
  return define(nc, 0, v);
}

template <typename OpTy> LogicalResult Importer::importUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  return define(nc, 0, OpTy::create(b, nc.loc, in->getType(), *in));
}

/// Softmax and LogSoftmax. Opset >= 13: along `axis` (default -1). Before: the input is
/// coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (default axis 1) and normalized
/// along dim 1; when axis is the last dim that is the same as normalizing along it.
template <typename OpTy> LogicalResult Importer::importSoftmaxLike(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  if (rank == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axisAttr = getInt(nc, "axis", opset >= 13 ? -1 : 1);
  if (failed(axisAttr))
    return failure();
  auto axis = normalizeAxis(nc, *axisAttr, rank, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (opset >= 13 || *axis == rank - 1)
    return define(nc, 0, OpTy::create(b, nc.loc, *t, *in, b.getI64IntegerAttr(*axis)));
  auto outer = product(t->getShape().take_front(*axis));
  auto inner = product(t->getShape().drop_front(*axis));
  if (!outer || !inner)
    return nodeError(nc) << "input is too large";
  Value flat = reshape(nc.loc, *in, {*outer, *inner});
  Value sm = OpTy::create(b, nc.loc, flat.getType(), flat, b.getI64IntegerAttr(1));
  return define(nc, 0, reshape(nc.loc, sm, t->getShape()));
}

/// Reduce* arguments. `axes` is an attribute before opset `axesInputSince` (13 for
/// ReduceSum, 18 for the others) and an optional constant input from then on. No axes
/// reduces every dim, unless noop_with_empty_axes = 1 (then `noop` is set). With allowBool
/// (ReduceMax / ReduceMin, bool since opset 20), a bool input is cast to f32 (0 / 1, exact) and
/// `fromBool` is set: the caller casts the result back.
FailureOr<Importer::ReduceArgs> Importer::parseReduce(const NodeCtx &nc, int axesInputSince,
                                                      bool allowBool) {
  bool axesAsInput = opset >= axesInputSince;
  if (failed(checkArity(nc, 1, axesAsInput ? 2 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  ReduceArgs r;
  if (allowBool && cast<RankedTensorType>(in->getType()).getElementType().isInteger(1)) {
    *in = castTo(nc.loc, *in, b.getF32Type());
    r.fromBool = true;
  }
  auto t = checkFloat(nc, *in, "data");
  if (failed(t))
    return failure();
  r.input = *in;
  if (axesAsInput) {
    // From this opset the axes are the second input; an `axes` attribute is not part of
    // the operator and would otherwise be ignored silently (reducing every dim).
    if (findAttr(nc, "axes"))
      return nodeError(nc) << "'axes' is an input at this opset, not an attribute (ONNX "
                              "operator spec); the model's axes attribute is refused",
             failure();
    auto axesIn = getOptionalInput(nc, 1);
    if (failed(axesIn))
      return failure();
    if (*axesIn) {
      auto v = getConstantInts(nc, *axesIn, "axes input '" + nc.node.input(1) + "'");
      if (failed(v))
        return failure();
      r.axes = std::move(*v);
    }
  } else {
    auto a = getInts(nc, "axes");
    if (failed(a))
      return failure();
    if (*a)
      r.axes = std::move(**a);
  }
  auto keep = getInt(nc, "keepdims", 1);
  auto noop = getInt(nc, "noop_with_empty_axes", 0);
  if (failed(keep) || failed(noop))
    return failure();
  r.keepdims = *keep != 0;
  r.noop = r.axes.empty() && *noop;
  int64_t rank = t->getRank();
  for (int64_t &a : r.axes) {
    auto n = normalizeAxis(nc, a, rank, /*allowRank=*/false);
    if (failed(n))
      return failure();
    a = *n;
  }
  llvm::sort(r.axes);
  if (std::adjacent_find(r.axes.begin(), r.axes.end()) != r.axes.end())
    return nodeError(nc) << "axes " << shapeStr(r.axes) << " repeat a dim";
  return r;
}

template <typename OpTy>
LogicalResult Importer::importReduce(const NodeCtx &nc, int axesInputSince) {
  // max / min of bools are any / all: exact in f32 over 0 / 1, cast back to bool.
  constexpr bool boolOk =
      std::is_same_v<OpTy, graph::ReduceMaxOp> || std::is_same_v<OpTy, graph::ReduceMinOp>;
  auto r = parseReduce(nc, axesInputSince, boolOk);
  if (failed(r))
    return failure();
  Value v = r->noop ? r->input : buildReduce<OpTy>(nc.loc, r->input, r->axes, r->keepdims);
  if (r->fromBool)
    v = castTo(nc.loc, v, b.getI1Type());
  return define(nc, 0, v);
}

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: decomposed into
/// elementwise ops around reduce_sum / reduce_max (ONNX operator definitions), in forms
/// whose intermediates do not overflow or underflow where the result does not
/// (docs/numerics.md):
/// - sums (L1, LogSum) of 16-bit floats run in f32 (the f16 sum of 8 values of 1e4
///   overflowed where log(sum) = 11.2 did not); sums of squares (L2, SumSquare) in f32
///   for f16 and f64 for f32 / bf16 (x^2 overflows f32 above 1.8e19 and underflows below
///   1e-19; ReduceL2 of 1e30 values is 1e30 sqrt(n)); the result is cast back. f64
///   inputs keep f64;
/// - LogSumExp subtracts the row max m clamped to the finite range, m' = clip(m, lowest,
///   max): exp(x - m') is exp(-inf) = 0 for an all -inf row (-inf - -inf was NaN) and
///   exp(inf) for a row holding +inf, so the result is -inf / +inf as log-sum-exp is;
///   a NaN still propagates.
LogicalResult Importer::importReduceComposite(const NodeCtx &nc) {
  auto r = parseReduce(nc, 18);
  if (failed(r))
    return failure();
  llvm::StringRef op = nc.opType();
  Value x = r->input;
  Location loc = nc.loc;
  auto t = cast<RankedTensorType>(x.getType());
  Type elem = t.getElementType();
  auto unary = [&](auto tag, Value v) -> Value {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, v.getType(), v);
  };
  auto square = [&](Value v) -> Value {
    return graph::MulOp::create(b, loc, v.getType(), v, v);
  };
  // The accumulation types of sums and of sums of squares (see above).
  bool half = elem.isF16() || elem.isBF16();
  Type sumT = half ? b.getF32Type() : elem;
  Type sqT = elem.isF16() ? b.getF32Type()
             : (elem.isF32() || elem.isBF16()) ? Type(b.getF64Type()) : elem;
  // Back from f64 through f32 (the CPU kernels' runtime has no f64 -> bf16 conversion,
  // __truncdfbf2; the double rounding is within bf16's half ulp but for ties).
  auto back = [&](Value v) -> Value {
    if (elem.isBF16())
      v = castTo(loc, v, b.getF32Type());
    return castTo(loc, v, elem);
  };
  if (r->noop) {
    // Identity reduction: only the elementwise parts apply.
    if (op == "ReduceL1")
      return define(nc, 0, unary(graph::AbsOp(), x));
    if (op == "ReduceL2")
      return define(nc, 0, unary(graph::AbsOp(), x));
    if (op == "ReduceSumSquare")
      return define(nc, 0, back(square(castTo(loc, x, sqT))));
    if (op == "ReduceLogSum")
      return define(nc, 0, unary(graph::LogOp(), x));
    return define(nc, 0, x); // LogSumExp of one element
  }
  Value v;
  if (op == "ReduceL1") {
    Value a = castTo(loc, unary(graph::AbsOp(), x), sumT);
    v = castTo(loc, buildReduce<graph::ReduceSumOp>(loc, a, r->axes, r->keepdims), elem);
  } else if (op == "ReduceL2") {
    Value sq = square(castTo(loc, x, sqT));
    v = back(unary(graph::SqrtOp(), buildReduce<graph::ReduceSumOp>(loc, sq, r->axes, r->keepdims)));
  } else if (op == "ReduceSumSquare") {
    Value sq = square(castTo(loc, x, sqT));
    v = back(buildReduce<graph::ReduceSumOp>(loc, sq, r->axes, r->keepdims));
  } else if (op == "ReduceLogSum") {
    Value s = buildReduce<graph::ReduceSumOp>(loc, castTo(loc, x, sumT), r->axes, r->keepdims);
    v = castTo(loc, unary(graph::LogOp(), s), elem);
  } else { // ReduceLogSumExp, stabilised by the clamped max: m' + log(sum(exp(x - m')))
    Value m = buildReduce<graph::ReduceMaxOp>(loc, x, r->axes, /*keepdims=*/true);
    auto ft = dyn_cast<FloatType>(elem);
    if (!ft)
      return nodeError(nc) << "input must be a float tensor";
    double big = APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
    m = graph::ClipOp::create(b, loc, m.getType(), m, b.getF64FloatAttr(-big),
                              b.getF64FloatAttr(big));
    Value shifted = graph::SubOp::create(b, loc, t, x, m);
    Value s = buildReduce<graph::ReduceSumOp>(loc, unary(graph::ExpOp(), shifted), r->axes,
                                              r->keepdims);
    Value l = unary(graph::LogOp(), s);
    Value mr = m;
    if (!r->keepdims)
      mr = reshape(loc, m, cast<RankedTensorType>(l.getType()).getShape());
    v = graph::AddOp::create(b, loc, l.getType(), l, mr);
  }
  return define(nc, 0, v);
}

std::optional<SmallVector<int64_t>> Importer::intConstant(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
  auto it = dyn_cast<IntegerType>(cast<RankedTensorType>(c.getType()).getElementType());
  if (!dense || !it || dense.getNumElements() > 4096)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(it.isUnsigned() || it.getWidth() == 1 ? (int64_t)x.getZExtValue()
                                                        : x.getSExtValue());
  return out;
}

Value Importer::intConstantOf(Location loc, RankedTensorType type, ArrayRef<int64_t> values) {
  auto it = cast<IntegerType>(type.getElementType());
  SmallVector<APInt> bits;
  // Two's complement wrap to the element width (as the kernels compute): APInt(width, v)
  // asserts on a value that does not fit (an int8 fold of 100 + 100; aicc-fuzz-onnx).
  for (int64_t v : values)
    bits.push_back(APInt(64, (uint64_t)v).trunc(it.getWidth()));
  return createConstant(loc, DenseElementsAttr::get(type, bits));
}

std::optional<Value> Importer::foldIntBinary(const NodeCtx &nc, llvm::StringRef op) {
  if (nc.node.input_size() != 2)
    return std::nullopt;
  auto a = values.lookup(nc.node.input(0)), bv = values.lookup(nc.node.input(1));
  if (!a || !bv)
    return std::nullopt;
  auto ca = intConstant(a), cb = intConstant(bv);
  auto ta = cast<RankedTensorType>(a.getType()), tb = cast<RankedTensorType>(bv.getType());
  if (!ca || !cb || ta.getElementType() != tb.getElementType() ||
      ta.getElementType().isInteger(1))
    return std::nullopt;
  auto shape = graph::broadcastShapes(ta.getShape(), tb.getShape());
  if (failed(shape))
    return std::nullopt;
  auto outT = RankedTensorType::get(*shape, ta.getElementType());
  int64_t n = outT.getNumElements();
  auto at = [&](ArrayRef<int64_t> vals, RankedTensorType t, int64_t lin) {
    // Broadcast read: right-aligned numpy rules.
    int64_t off = 0, stride = 1, rem = lin;
    SmallVector<int64_t> idx(shape->size());
    for (int64_t d = shape->size() - 1; d >= 0; --d) {
      idx[d] = rem % (*shape)[d];
      rem /= (*shape)[d];
    }
    for (int64_t d = t.getRank() - 1; d >= 0; --d) {
      int64_t od = d + shape->size() - t.getRank();
      off += (t.getDimSize(d) == 1 ? 0 : idx[od]) * stride;
      stride *= t.getDimSize(d);
    }
    return vals[off];
  };
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t x = at(*ca, ta, i), y = at(*cb, tb, i);
    if ((op == "Div" || op == "Mod") && y == 0)
      return std::nullopt;
    // Two's complement wrap-around, as the kernels compute (uint64 arithmetic: signed overflow
    // is undefined behaviour; found by aicc-fuzz-onnx). INT64_MIN / -1 is left to the kernel.
    if (op == "Div" && x == std::numeric_limits<int64_t>::min() && y == -1)
      return std::nullopt;
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    int64_t r;
    if (op == "Add")
      r = wrap(uint64_t(x) + uint64_t(y));
    else if (op == "Sub")
      r = wrap(uint64_t(x) - uint64_t(y));
    else if (op == "Mul")
      r = wrap(uint64_t(x) * uint64_t(y));
    else if (op == "Div")
      r = x / y;
    else {
      // Mod with fmod=0: the sign of the divisor (Python's %), without overflow: r and y have
      // opposite signs when r is adjusted.
      r = y == -1 ? 0 : x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    }
    out.push_back(r);
  }
  return intConstantOf(nc.loc, outT, out);
}

/// Neg, Abs, Sign: floats and integers.
template <typename OpTy> LogicalResult Importer::importNumUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  return define(nc, 0, OpTy::create(b, nc.loc, in->getType(), *in));
}

template <typename OpTy> LogicalResult Importer::importCompare(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  if (failed(x) || failed(y))
    return failure();
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(y->getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types";
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  return define(nc, 0, OpTy::create(b, nc.loc,
                                    RankedTensorType::get(*shape, b.getI1Type()), *x, *y));
}

/// Min / Max / Sum with any number of inputs: a chain of broadcasting binary ops.
template <typename OpTy> LogicalResult Importer::importVariadic(const NodeCtx &nc) {
  if (nc.node.input_size() < 1)
    return nodeError(nc) << "needs at least one input";
  // Opsets past libonnx's schemas are not arity-checked by ImportValidate.cpp (Mean with no
  // output read output(0) of an empty list; aicc-fuzz-onnx audit).
  if (nc.node.output_size() != 1)
    return nodeError(nc) << "expects 1 output, got " << nc.node.output_size();
  auto acc = getInput(nc, 0);
  if (failed(acc))
    return failure();
  Value v = *acc;
  for (int i = 1; i < nc.node.input_size(); ++i) {
    auto next = getInput(nc, i);
    if (failed(next))
      return failure();
    auto lt = cast<RankedTensorType>(v.getType()), rt = cast<RankedTensorType>(next->getType());
    if (lt.getElementType() != rt.getElementType())
      return nodeError(nc) << "inputs have different element types";
    auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
    if (failed(shape))
      return nodeError(nc) << "input shapes do not broadcast";
    v = OpTy::create(b, nc.loc, RankedTensorType::get(*shape, lt.getElementType()), v, *next);
  }
  return define(nc, 0, v);
}

LogicalResult Importer::importNode(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  // Integer shape arithmetic on constants folds at import (static shapes).
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod")
    if (auto folded = foldIntBinary(nc, op))
      return define(nc, 0, *folded);
  if (op == "Add")
    return importBinary<graph::AddOp>(nc);
  if (op == "Sub")
    return importBinary<graph::SubOp>(nc);
  if (op == "Mul")
    return importBinary<graph::MulOp>(nc);
  if (op == "Div")
    return importBinary<graph::DivOp>(nc);
  if (op == "Relu")
    return importUnary<graph::ReluOp>(nc);
  if (op == "Tanh")
    return importUnary<graph::TanhOp>(nc);
  if (op == "Sigmoid")
    return importUnary<graph::SigmoidOp>(nc);
  if (op == "Exp")
    return importUnary<graph::ExpOp>(nc);
  if (op == "Erf")
    return importUnary<graph::ErfOp>(nc);
  if (op == "Gelu")
    return importGelu(nc);
  if (op == "MatMul")
    return importMatMul(nc);
  if (op == "Gemm")
    return importGemm(nc);
  if (op == "Softmax")
    return importSoftmaxLike<graph::SoftmaxOp>(nc);
  if (op == "Reshape")
    return importReshape(nc);
  if (op == "Flatten")
    return importFlatten(nc);
  if (op == "Transpose")
    return importTranspose(nc);
  if (op == "Shape" || op == "Size")
    return importShapeOp(nc);
  if (op == "Squeeze")
    return importSqueeze(nc, /*unsqueeze=*/false);
  if (op == "Unsqueeze")
    return importSqueeze(nc, /*unsqueeze=*/true);
  if (op == "Range")
    return importRange(nc);
  if (op == "ConstantOfShape")
    return importConstantOfShape(nc);
  if (op == "Expand")
    return importExpand(nc);
  if (op == "Gather")
    return importGather(nc);
  if (op == "Concat")
    return importConcat(nc);
  if (op == "GatherElements") {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto data = getInput(nc, 0), indices = getInput(nc, 1);
    auto axisAttr = getInt(nc, "axis", 0);
    if (failed(data) || failed(indices) || failed(axisAttr))
      return failure();
    auto dt = cast<RankedTensorType>(data->getType());
    auto it = cast<RankedTensorType>(indices->getType());
    auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
    if (failed(axis))
      return failure();
    if (it.getRank() != dt.getRank() || !isa<IntegerType>(it.getElementType()))
      return nodeError(nc) << "indices must be an integer tensor of the data's rank";
    if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
      return failure();
    return define(nc, 0, graph::GatherElementsOp::create(
                             b, nc.loc, RankedTensorType::get(it.getShape(), dt.getElementType()),
                             *data, *indices, b.getI64IntegerAttr(*axis)));
  }
  if (op == "Conv")
    return importConv(nc);
  if (op == "MaxPool" || op == "AveragePool")
    return importPool(nc);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return importGlobalPool(nc);
  if (op == "Slice")
    return importSlice(nc);
  if (op == "Pad")
    return importPad(nc);
  if (op == "Tile")
    return importTile(nc);
  if (op == "Split")
    return importSplit(nc);
  if (op == "DepthToSpace")
    return importDepthToSpace(nc, /*toSpace=*/true);
  if (op == "SpaceToDepth")
    return importDepthToSpace(nc, /*toSpace=*/false);
  if (op == "CastLike") {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto in = getInput(nc, 0), like = getInput(nc, 1);
    if (failed(in) || failed(like) || failed(castFloat8Attrs(nc)))
      return failure();
    return define(nc, 0, castTo(nc.loc, *in,
                                cast<RankedTensorType>(like->getType()).getElementType()));
  }
  if (op == "Neg")
    return importNumUnary<graph::NegOp>(nc);
  if (op == "Abs")
    return importNumUnary<graph::AbsOp>(nc);
  if (op == "Sign")
    return importNumUnary<graph::SignOp>(nc);
#define AICC_FLOAT_UNARY(NAME, OP)                                             \
  if (op == NAME)                                                              \
    return importUnary<graph::OP>(nc);
  AICC_FLOAT_UNARY("Ceil", CeilOp)
  AICC_FLOAT_UNARY("Floor", FloorOp)
  AICC_FLOAT_UNARY("Round", RoundOp)
  AICC_FLOAT_UNARY("Sqrt", SqrtOp)
  AICC_FLOAT_UNARY("Reciprocal", ReciprocalOp)
  AICC_FLOAT_UNARY("Log", LogOp)
  AICC_FLOAT_UNARY("Sin", SinOp)
  AICC_FLOAT_UNARY("Cos", CosOp)
  AICC_FLOAT_UNARY("Tan", TanOp)
  AICC_FLOAT_UNARY("Asin", AsinOp)
  AICC_FLOAT_UNARY("Acos", AcosOp)
  AICC_FLOAT_UNARY("Atan", AtanOp)
  AICC_FLOAT_UNARY("Sinh", SinhOp)
  AICC_FLOAT_UNARY("Cosh", CoshOp)
  AICC_FLOAT_UNARY("Asinh", AsinhOp)
  AICC_FLOAT_UNARY("Acosh", AcoshOp)
  AICC_FLOAT_UNARY("Atanh", AtanhOp)
  AICC_FLOAT_UNARY("Softplus", SoftplusOp)
  AICC_FLOAT_UNARY("Softsign", SoftsignOp)
  AICC_FLOAT_UNARY("HardSwish", HardSwishOp)
#undef AICC_FLOAT_UNARY
  if (op == "LeakyRelu" || op == "Elu" || op == "Celu" || op == "Selu" || op == "HardSigmoid")
    return importParamUnary(nc);
  if (op == "Clip")
    return importClip(nc);
  if (op == "Shrink") {
    if (failed(checkArity(nc, 1, 1, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto l = getFloat(nc, "lambd", 0.5f), bias = getFloat(nc, "bias", 0.0f);
    if (failed(in) || failed(l) || failed(bias) || failed(checkFloat(nc, *in, "input")))
      return failure();
    return define(nc, 0, graph::ShrinkOp::create(b, nc.loc, in->getType(), *in,
                                                 b.getF64FloatAttr(*l), b.getF64FloatAttr(*bias)));
  }
  if (op == "Trilu") {
    if (failed(checkArity(nc, 1, 2, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto upper = getInt(nc, "upper", 1);
    if (failed(in) || failed(upper))
      return failure();
    int64_t k = 0;
    if (nc.node.input_size() > 1 && !nc.node.input(1).empty()) {
      auto kv = getInput(nc, 1);
      if (failed(kv))
        return failure();
      auto c = getConstantScalar(nc, *kv, "k");
      if (failed(c))
        return failure();
      auto ki = toInt(nc, *c, "k");
      if (failed(ki))
        return failure();
      k = *ki;
    }
    if (cast<RankedTensorType>(in->getType()).getRank() < 2)
      return nodeError(nc) << "input must have rank >= 2";
    return define(nc, 0, graph::TriluOp::create(b, nc.loc, in->getType(), *in,
                                                b.getI64IntegerAttr(k), b.getBoolAttr(*upper != 0)));
  }
  if (op == "Pow")
    return importPow(nc);
  if (op == "Mod")
    return importMod(nc);
  if (op == "PRelu")
    return importPRelu(nc);
  if (op == "BatchNormalization")
    return importBatchNorm(nc);
  if (op == "InstanceNormalization")
    return importInstanceNorm(nc);
  if (op == "LayerNormalization")
    return importLayerNorm(nc);
  if (op == "GroupNormalization")
    return importGroupNorm(nc);
  if (op == "Min")
    return importVariadic<graph::MinOp>(nc);
  if (op == "Max")
    return importVariadic<graph::MaxOp>(nc);
  if (op == "Sum")
    return importVariadic<graph::AddOp>(nc);
  if (op == "Mean")
    return importMean(nc);
  if (op == "And" || op == "Or" || op == "Xor") {
    // T is bool (ONNX spec). Checked here, not only by ImportValidate: past libonnx's
    // opset-17 schemas nothing else checks input types, and f32 operands reached
    // arith.andi (aicc-fuzz-onnx, And-19 / Or-22).
    for (int i = 0; i < nc.node.input_size(); ++i) {
      auto in = getInput(nc, i);
      if (failed(in))
        return failure();
      if (!cast<RankedTensorType>(in->getType()).getElementType().isInteger(1))
        return nodeError(nc) << op << " needs bool inputs, input #" << i << " is "
                             << in->getType();
    }
    return op == "And"  ? importBinary<graph::AndOp>(nc)
           : op == "Or" ? importBinary<graph::OrOp>(nc)
                        : importBinary<graph::XorOp>(nc);
  }
  if (op == "Not")
    return importNot(nc);
  if (op == "Equal")
    return importCompare<graph::EqualOp>(nc);
  if (op == "Less")
    return importCompare<graph::LessOp>(nc);
  if (op == "LessOrEqual")
    return importCompare<graph::LessEqualOp>(nc);
  if (op == "Greater")
    return importCompare<graph::GreaterOp>(nc);
  if (op == "GreaterOrEqual")
    return importCompare<graph::GreaterEqualOp>(nc);
  if (op == "Where")
    return importWhere(nc);
  if (op == "Cast")
    return importCast(nc);
  if (op == "ReduceSum")
    return importReduce<graph::ReduceSumOp>(nc, 13);
  if (op == "ReduceProd")
    return importReduce<graph::ReduceProdOp>(nc, 18);
  if (op == "ReduceL1" || op == "ReduceL2" || op == "ReduceSumSquare" || op == "ReduceLogSum" ||
      op == "ReduceLogSumExp")
    return importReduceComposite(nc);
  if (op == "LogSoftmax")
    return importSoftmaxLike<graph::LogSoftmaxOp>(nc);
  if (op == "ReduceMean")
    return importReduce<graph::ReduceMeanOp>(nc, 18);
  if (op == "ReduceMax")
    return importReduce<graph::ReduceMaxOp>(nc, 18);
  if (op == "ReduceMin")
    return importReduce<graph::ReduceMinOp>(nc, 18);
  if (op == "Identity")
    return importIdentity(nc);
  if (op == "Dropout")
    return importDropout(nc);
  if (op == "Constant")
    return importConstant(nc);
  // Op families with a source file each (Import<Family>.cpp).
  for (auto family : {&Importer::importLossOps, &Importer::importIndexOps,
                      &Importer::importTransformerOps,
                      &Importer::importSpatialOps, &Importer::importRecurrentOps,
                      &Importer::importSignalOps,
                      &Importer::importIntegerOps, &Importer::importMiscOps})
    if (std::optional<LogicalResult> r = (this->*family)(nc))
      return *r;
  return emitError(nc.loc) << "unsupported ONNX op '" << op << "' (node '" << nc.name << "', opset "
                           << opset << ")";
}
