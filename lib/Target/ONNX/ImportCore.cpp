//===- ImportCore.cpp - the templated op families (binary, unary, reductions, ...) ---===//
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

FailureOr<Importer::SoftmaxArgs> Importer::parseSoftmaxArgs(const NodeCtx &nc) {
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
  SoftmaxArgs args{*in, *t, *in, *axis};
  if (opset >= 13 || *axis == rank - 1)
    return args;
  auto outer = product(t->getShape().take_front(*axis));
  auto inner = product(t->getShape().drop_front(*axis));
  if (!outer || !inner)
    return nodeError(nc) << "input is too large";
  args.x = reshape(nc.loc, *in, {*outer, *inner});
  args.axis = 1;
  return args;
}

/// Softmax and LogSoftmax (parseSoftmaxArgs: the axis and the pre-13 2-D coercion), shaped
/// back to the input's shape.
template <typename OpTy> LogicalResult Importer::importSoftmaxLike(const NodeCtx &nc) {
  auto a = parseSoftmaxArgs(nc);
  if (failed(a))
    return failure();
  Value y = OpTy::create(b, nc.loc, a->x.getType(), a->x, b.getI64IntegerAttr(a->axis));
  if (a->x == a->input)
    return define(nc, 0, y);
  return define(nc, 0, reshape(nc.loc, y, a->type.getShape()));
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
    auto axesIn = getOptionalConstantInts(nc, 1, inputWhat(nc, 1, "axes"));
    if (failed(axesIn))
      return failure();
    if (*axesIn)
      r.axes = std::move(**axesIn);
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
  auto square = [&](Value v) -> Value { return graph::MulOp::create(b, loc, v.getType(), v, v); };
  // The accumulation types of sums and of sums of squares (see above).
  bool half = elem.isF16() || elem.isBF16();
  Type sumT = half ? b.getF32Type() : elem;
  Type sqT = elem.isF16()                      ? b.getF32Type()
             : (elem.isF32() || elem.isBF16()) ? Type(b.getF64Type())
                                               : elem;
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
    v = back(
        unary(graph::SqrtOp(), buildReduce<graph::ReduceSumOp>(loc, sq, r->axes, r->keepdims)));
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
    Value s =
        buildReduce<graph::ReduceSumOp>(loc, unary(graph::ExpOp(), shifted), r->axes, r->keepdims);
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

std::optional<Value> Importer::foldIntBinary(const NodeCtx &nc, llvm::StringRef op) {
  if (nc.node.input_size() != 2)
    return std::nullopt;
  auto a = values.lookup(nc.node.input(0)), bv = values.lookup(nc.node.input(1));
  if (!a || !bv)
    return std::nullopt;
  auto ca = intConstant(a), cb = intConstant(bv);
  auto ta = cast<RankedTensorType>(a.getType()), tb = cast<RankedTensorType>(bv.getType());
  if (!ca || !cb || ta.getElementType() != tb.getElementType() || ta.getElementType().isInteger(1))
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
  return define(nc, 0,
                OpTy::create(b, nc.loc, RankedTensorType::get(*shape, b.getI1Type()), *x, *y));
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

/// Add, Sub, Mul, Div, Mod: integer shape arithmetic on constants folds at import
/// (static shapes, foldIntBinary); anything else is imported by `Fn`.
template <auto Fn> LogicalResult Importer::foldIntBinaryOr(Importer &im, const NodeCtx &nc) {
  if (auto folded = im.foldIntBinary(nc, nc.opType()))
    return im.define(nc, 0, *folded);
  return (im.*Fn)(nc);
}

LogicalResult Importer::importLogical(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  // T is bool (ONNX spec). Checked here, not only by ImportValidate: past libonnx's
  // opset-17 schemas nothing else checks input types, and f32 operands reached
  // arith.andi (aicc-fuzz-onnx, And-19 / Or-22).
  for (int i = 0; i < nc.node.input_size(); ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    if (!cast<RankedTensorType>(in->getType()).getElementType().isInteger(1))
      return nodeError(nc) << op << " needs bool inputs, input #" << i << " is " << in->getType();
  }
  return op == "And"  ? importBinary<graph::AndOp>(nc)
         : op == "Or" ? importBinary<graph::OrOp>(nc)
                      : importBinary<graph::XorOp>(nc);
}

void Importer::registerCoreOps(OpTable &t) {
  t.add("Add", 1, foldIntBinaryOr<&Importer::importBinary<graph::AddOp>>);
  t.add("Sub", 1, foldIntBinaryOr<&Importer::importBinary<graph::SubOp>>);
  t.add("Mul", 1, foldIntBinaryOr<&Importer::importBinary<graph::MulOp>>);
  t.add("Div", 1, foldIntBinaryOr<&Importer::importBinary<graph::DivOp>>);
  t.add("Mod", 10, foldIntBinaryOr<&Importer::importMod>);
  t.add("Relu", 1, handle<&Importer::importUnary<graph::ReluOp>>);
  t.add("Tanh", 1, handle<&Importer::importUnary<graph::TanhOp>>);
  t.add("Sigmoid", 1, handle<&Importer::importUnary<graph::SigmoidOp>>);
  t.add("Exp", 1, handle<&Importer::importUnary<graph::ExpOp>>);
  t.add("Erf", 9, handle<&Importer::importUnary<graph::ErfOp>>);
  t.add("Ceil", 1, handle<&Importer::importUnary<graph::CeilOp>>);
  t.add("Floor", 1, handle<&Importer::importUnary<graph::FloorOp>>);
  t.add("Round", 11, handle<&Importer::importUnary<graph::RoundOp>>);
  t.add("Sqrt", 1, handle<&Importer::importUnary<graph::SqrtOp>>);
  t.add("Reciprocal", 1, handle<&Importer::importUnary<graph::ReciprocalOp>>);
  t.add("Log", 1, handle<&Importer::importUnary<graph::LogOp>>);
  t.add("Sin", 7, handle<&Importer::importUnary<graph::SinOp>>);
  t.add("Cos", 7, handle<&Importer::importUnary<graph::CosOp>>);
  t.add("Tan", 7, handle<&Importer::importUnary<graph::TanOp>>);
  t.add("Asin", 7, handle<&Importer::importUnary<graph::AsinOp>>);
  t.add("Acos", 7, handle<&Importer::importUnary<graph::AcosOp>>);
  t.add("Atan", 7, handle<&Importer::importUnary<graph::AtanOp>>);
  t.add("Sinh", 9, handle<&Importer::importUnary<graph::SinhOp>>);
  t.add("Cosh", 9, handle<&Importer::importUnary<graph::CoshOp>>);
  t.add("Asinh", 9, handle<&Importer::importUnary<graph::AsinhOp>>);
  t.add("Acosh", 9, handle<&Importer::importUnary<graph::AcoshOp>>);
  t.add("Atanh", 9, handle<&Importer::importUnary<graph::AtanhOp>>);
  t.add("Softplus", 1, handle<&Importer::importUnary<graph::SoftplusOp>>);
  t.add("Softsign", 1, handle<&Importer::importUnary<graph::SoftsignOp>>);
  t.add("HardSwish", 14, handle<&Importer::importUnary<graph::HardSwishOp>>);
  t.add("Neg", 1, handle<&Importer::importNumUnary<graph::NegOp>>);
  t.add("Abs", 1, handle<&Importer::importNumUnary<graph::AbsOp>>);
  t.add("Sign", 9, handle<&Importer::importNumUnary<graph::SignOp>>);
  t.add("Softmax", 1, handle<&Importer::importSoftmaxLike<graph::SoftmaxOp>>);
  t.add("LogSoftmax", 1, handle<&Importer::importSoftmaxLike<graph::LogSoftmaxOp>>);
  t.add("Min", 1, handle<&Importer::importVariadic<graph::MinOp>>);
  t.add("Max", 1, handle<&Importer::importVariadic<graph::MaxOp>>);
  t.add("Sum", 1, handle<&Importer::importVariadic<graph::AddOp>>);
  t.add("And", 1, handle<&Importer::importLogical>);
  t.add("Or", 1, handle<&Importer::importLogical>);
  t.add("Xor", 1, handle<&Importer::importLogical>);
  t.add("Equal", 1, handle<&Importer::importCompare<graph::EqualOp>>);
  t.add("Less", 1, handle<&Importer::importCompare<graph::LessOp>>);
  t.add("LessOrEqual", 12, handle<&Importer::importCompare<graph::LessEqualOp>>);
  t.add("Greater", 1, handle<&Importer::importCompare<graph::GreaterOp>>);
  t.add("GreaterOrEqual", 12, handle<&Importer::importCompare<graph::GreaterEqualOp>>);
  t.add("ReduceSum", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importReduce<graph::ReduceSumOp>(nc, 13);
  });
  t.add("ReduceProd", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importReduce<graph::ReduceProdOp>(nc, 18);
  });
  t.add("ReduceMean", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importReduce<graph::ReduceMeanOp>(nc, 18);
  });
  t.add("ReduceMax", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importReduce<graph::ReduceMaxOp>(nc, 18);
  });
  t.add("ReduceMin", 1, [](Importer &im, const NodeCtx &nc) {
    return im.importReduce<graph::ReduceMinOp>(nc, 18);
  });
  t.add("ReduceL1", 1, handle<&Importer::importReduceComposite>);
  t.add("ReduceL2", 1, handle<&Importer::importReduceComposite>);
  t.add("ReduceSumSquare", 1, handle<&Importer::importReduceComposite>);
  t.add("ReduceLogSum", 1, handle<&Importer::importReduceComposite>);
  t.add("ReduceLogSumExp", 1, handle<&Importer::importReduceComposite>);
}
