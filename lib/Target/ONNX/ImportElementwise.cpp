//===- ImportElementwise.cpp - parametric elementwise ops, Clip, Pow, Mod, Cast, Constant, ... ---===//
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

LogicalResult Importer::notConstantError(const NodeCtx &nc, Value v, llvm::StringRef what) {
  auto diag = nodeError(nc) << what << " must be a compile-time constant (an initializer, a "
                                       "Constant node output, or shape arithmetic that folds)";
  auto func = cast<func::FuncOp>(entryBlock->getParentOp());
  auto argName = [&](BlockArgument arg) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "aicc.name");
    return name ? name.getValue() : llvm::StringRef();
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == entryBlock && !argName(arg).empty())
      diag << "; it is graph input '" << argName(arg)
           << "' (specialize the model on its value with --bind-input " << argName(arg)
           << "=FILE.pb)";
    return diag;
  }
  // Computed at run time: name the graph inputs it depends on (a bounded walk).
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen{v};
  llvm::SetVector<BlockArgument> args;
  while (!work.empty() && seen.size() < 10000) {
    Value x = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == entryBlock && !argName(arg).empty())
        args.insert(arg);
      continue;
    }
    if (Operation *op = x.getDefiningOp())
      for (Value o : op->getOperands())
        if (seen.insert(o).second)
          work.push_back(o);
  }
  if (args.empty())
    return diag;
  SmallVector<BlockArgument> sorted(args.begin(), args.end());
  llvm::sort(sorted,
             [](BlockArgument a, BlockArgument c) { return a.getArgNumber() < c.getArgNumber(); });
  diag << "; it is computed from graph input" << (sorted.size() > 1 ? "s " : " ");
  for (auto [i, arg] : llvm::enumerate(sorted))
    diag << (i ? ", '" : "'") << argName(arg) << "'";
  diag << " (specialize the model on " << (sorted.size() > 1 ? "their values" : "its value")
       << " with";
  for (BlockArgument arg : sorted)
    diag << " --bind-input " << argName(arg) << "=FILE.pb";
  return diag << ")";
}

FailureOr<SmallVector<double>> Importer::getConstantFloats(const NodeCtx &nc, Value v,
                                                           llvm::StringRef what) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return notConstantError(nc, v, what);
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || dense.getNumElements() > 65536)
    return nodeError(nc) << what << " must be a small dense constant, got " << v.getType();
  SmallVector<double> out;
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    for (const APFloat &x : dense.getValues<APFloat>())
      out.push_back(x.convertToDouble());
    return out;
  }
  bool zext = et.isUnsignedInteger() || et.isInteger(1);
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(zext ? (double)x.getZExtValue() : (double)x.getSExtValue());
  return out;
}

FailureOr<double> Importer::getConstantScalar(const NodeCtx &nc, Value v, llvm::StringRef what) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!c)
    return notConstantError(nc, v, what);
  if (!dense || dense.getNumElements() != 1)
    return nodeError(nc) << what << " must be a constant scalar, got " << v.getType();
  Type et = dense.getElementType();
  if (isa<FloatType>(et))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  return (double)(*dense.getValues<APInt>().begin()).getSExtValue();
}

/// LeakyRelu, Elu, Celu, Selu, HardSigmoid: float attributes with ONNX defaults.
LogicalResult Importer::importParamUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  llvm::StringRef op = nc.opType();
  auto f = [&](llvm::StringRef name, float dflt) { return getFloat(nc, name, dflt); };
  Type t = in->getType();
  auto attr = [&](double v) { return b.getF64FloatAttr(v); };
  Value v;
  if (op == "LeakyRelu") {
    auto a = f("alpha", 0.01f);
    if (failed(a))
      return failure();
    v = graph::LeakyReluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Elu") {
    auto a = f("alpha", 1.0f);
    if (failed(a))
      return failure();
    v = graph::EluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Celu") {
    auto a = f("alpha", 1.0f);
    if (failed(a))
      return failure();
    v = graph::CeluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Selu") {
    auto a = f("alpha", 1.67326319217681884765625f), g = f("gamma", 1.05070102214813232421875f);
    if (failed(a) || failed(g))
      return failure();
    v = graph::SeluOp::create(b, nc.loc, t, *in, attr(*a), attr(*g));
  } else { // HardSigmoid
    auto a = f("alpha", 0.2f), be = f("beta", 0.5f);
    if (failed(a) || failed(be))
      return failure();
    v = graph::HardSigmoidOp::create(b, nc.loc, t, *in, attr(*a), attr(*be));
  }
  return define(nc, 0, v);
}

/// Clip: bounds are attributes before opset 11 and optional constant inputs from then on.
LogicalResult Importer::importClip(const NodeCtx &nc) {
  bool inputs = opset >= 11;
  if (failed(checkArity(nc, 1, inputs ? 3 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  FloatAttr lo, hi;
  // Clip-11 on: min / max are inputs. Constant ones become the clip's attributes; ones
  // known only at run time become max(x, min) / min(x, max) (numpy.clip's order: min
  // first, so min > max gives max).
  Value loRuntime, hiRuntime;
  auto xt = cast<RankedTensorType>(in->getType());
  if (inputs) {
    for (int i = 1; i <= 2; ++i) {
      auto bound = getOptionalInput(nc, i);
      if (failed(bound))
        return failure();
      if (!*bound)
        continue;
      llvm::StringRef what = i == 1 ? "input 'min'" : "input 'max'";
      auto bt = cast<RankedTensorType>(bound->getType());
      if (!bound->getDefiningOp<graph::ConstantOp>()) {
        if (bt.getElementType() != xt.getElementType())
          return nodeError(nc) << what << " has element type " << bt.getElementType()
                               << ", the input " << xt.getElementType();
        auto shape = graph::broadcastShapes(xt.getShape(), bt.getShape());
        if (failed(shape) || ArrayRef<int64_t>(*shape) != xt.getShape())
          return nodeError(nc) << what << " of shape " << shapeStr(bt.getShape())
                               << " does not broadcast to the input's " << shapeStr(xt.getShape());
        (i == 1 ? loRuntime : hiRuntime) = *bound;
        continue;
      }
      auto v = getConstantScalar(nc, *bound, what);
      if (failed(v))
        return failure();
      (i == 1 ? lo : hi) = b.getF64FloatAttr(*v);
    }
    if (loRuntime || hiRuntime) {
      Value y = *in;
      if (loRuntime)
        y = bin<graph::MaxOp>(nc.loc, y, loRuntime);
      else if (lo)
        y = graph::ClipOp::create(b, nc.loc, y.getType(), y, lo, FloatAttr());
      if (hiRuntime)
        y = bin<graph::MinOp>(nc.loc, y, hiRuntime);
      else if (hi)
        y = graph::ClipOp::create(b, nc.loc, y.getType(), y, FloatAttr(), hi);
      return define(nc, 0, y);
    }
  } else {
    if (findAttr(nc, "min")) {
      auto v = getFloat(nc, "min", 0);
      if (failed(v))
        return failure();
      lo = b.getF64FloatAttr(*v);
    }
    if (findAttr(nc, "max")) {
      auto v = getFloat(nc, "max", 0);
      if (failed(v))
        return failure();
      hi = b.getF64FloatAttr(*v);
    }
  }
  return define(nc, 0, graph::ClipOp::create(b, nc.loc, in->getType(), *in, lo, hi));
}

/// Pow: the exponent may have another type (opset >= 12); it is cast to the base's.
/// An int32 / int64 base (Pow-12 on) is computed in f64 and cast back as the ONNX
/// reference does (numpy.power(x, y).astype(x.dtype): truncation toward zero). The f64
/// pow kernel is exp(y * log|x|), a few ulp off, so a result within 1e-9 (relative) of an
/// integer is rounded to it first: integer powers are exact while they stay below ~2^40.
LogicalResult Importer::importPow(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  if (failed(x) || failed(y))
    return failure();
  Type xElem = cast<RankedTensorType>(x->getType()).getElementType();
  if (xElem.isSignlessInteger(32) || xElem.isSignlessInteger(64)) {
    Type yElem = cast<RankedTensorType>(y->getType()).getElementType();
    if (!isGraphFloat(yElem) && !yElem.isSignlessInteger(32) && !yElem.isSignlessInteger(64))
      return nodeError(nc) << "exponent must be a float, int32 or int64 tensor, got "
                           << y->getType();
    Type f64 = b.getF64Type();
    Value xf = castTo(nc.loc, *x, f64), yf = castTo(nc.loc, *y, f64);
    auto lt = cast<RankedTensorType>(xf.getType()), rt = cast<RankedTensorType>(yf.getType());
    if (failed(graph::broadcastShapes(lt.getShape(), rt.getShape())))
      return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                           << shapeStr(rt.getShape()) << " do not broadcast";
    Value r = bin<graph::PowOp>(nc.loc, xf, yf);
    Value rounded = graph::RoundOp::create(b, nc.loc, r.getType(), r);
    Value absR = graph::AbsOp::create(b, nc.loc, r.getType(), r);
    Value dist =
        graph::AbsOp::create(b, nc.loc, r.getType(), bin<graph::SubOp>(nc.loc, r, rounded));
    Value tol =
        bin<graph::MulOp>(nc.loc, bin<graph::MaxOp>(nc.loc, absR, scalarF(nc.loc, f64, 1.0)),
                          scalarF(nc.loc, f64, 1e-9));
    auto boolT =
        RankedTensorType::get(cast<RankedTensorType>(r.getType()).getShape(), b.getI1Type());
    Value near = graph::LessEqualOp::create(b, nc.loc, boolT, dist, tol);
    Value z = graph::WhereOp::create(b, nc.loc, r.getType(), near, rounded, r);
    return define(nc, 0, castTo(nc.loc, z, xElem));
  }
  if (failed(checkFloat(nc, *x, "base")))
    return failure();
  Value e = castTo(nc.loc, *y, cast<RankedTensorType>(x->getType()).getElementType());
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(e.getType());
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  return define(nc, 0, graph::PowOp::create(b, nc.loc,
                                            RankedTensorType::get(*shape, lt.getElementType()),
                                            *x, e));
}

LogicalResult Importer::importMod(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  auto fmod = getInt(nc, "fmod", 0);
  if (failed(x) || failed(y) || failed(fmod))
    return failure();
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(y->getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types";
  if (isa<FloatType>(lt.getElementType()) && !*fmod)
    return nodeError(nc) << "fmod = 0 is only defined for integers (ONNX Mod)";
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes do not broadcast";
  return define(nc, 0, graph::ModOp::create(b, nc.loc,
                                            RankedTensorType::get(*shape, lt.getElementType()),
                                            *x, *y, b.getBoolAttr(*fmod != 0)));
}

LogicalResult Importer::importMean(const NodeCtx &nc) {
  if (failed(importVariadic<graph::AddOp>(nc)))
    return failure();
  Value sum = values.lookup(nc.node.output(0));
  if (!sum) // no output name (ONNX allows it): nothing to divide (aicc-fuzz-onnx: null deref)
    return success();
  auto t = cast<RankedTensorType>(sum.getType());
  if (!isa<FloatType>(t.getElementType()))
    return nodeError(nc) << "Mean needs float inputs";
  auto scalarT = RankedTensorType::get({}, t.getElementType());
  Value n = createConstant(nc.loc, DenseElementsAttr::get(
                                       scalarT, b.getFloatAttr(t.getElementType(),
                                                               (double)nc.node.input_size())));
  values[nc.node.output(0)] = graph::DivOp::create(b, nc.loc, t, sum, n);
  return success();
}

LogicalResult Importer::importWhere(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto c = getInput(nc, 0), x = getInput(nc, 1), y = getInput(nc, 2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  auto ct = cast<RankedTensorType>(c->getType()), xt = cast<RankedTensorType>(x->getType()),
       yt = cast<RankedTensorType>(y->getType());
  if (!ct.getElementType().isInteger(1))
    return nodeError(nc) << "condition must be a bool tensor";
  if (xt.getElementType() != yt.getElementType())
    return nodeError(nc) << "X and Y have different element types";
  auto xy = graph::broadcastShapes(xt.getShape(), yt.getShape());
  auto all = succeeded(xy) ? graph::broadcastShapes(ct.getShape(), *xy) : xy;
  if (failed(all))
    return nodeError(nc) << "condition, X and Y shapes do not broadcast";
  return define(nc, 0, graph::WhereOp::create(b, nc.loc,
                                              RankedTensorType::get(*all, xt.getElementType()),
                                              *c, *x, *y));
}

/// Cast-19 / CastLike-19 `saturate` (INT) and Cast-25 / CastLike-25 `round_mode` (STRING)
/// apply to float8 (and float4) results only, which aicc does not have: checked for
/// their type, no effect.
LogicalResult Importer::castFloat8Attrs(const NodeCtx &nc) {
  if (opset >= 19 && failed(getInt(nc, "saturate", 1)))
    return failure();
  if (opset >= 25 && failed(getString(nc, "round_mode", "up")))
    return failure();
  return success();
}

LogicalResult Importer::importCast(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto to = getInt(nc, "to", 0);
  if (failed(in) || failed(to) || failed(castFloat8Attrs(nc)))
    return failure();
  Type elem = convertElementType((int32_t)*to, &ctx);
  if (!elem)
    return nodeError(nc) << "cast to ONNX data type " << dataTypeName((int32_t)*to)
                         << " is not supported";
  return define(nc, 0, castTo(nc.loc, *in, elem));
}

LogicalResult Importer::importNot(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  if (!cast<RankedTensorType>(in->getType()).getElementType().isInteger(1))
    return nodeError(nc) << "Not needs a bool tensor";
  return define(nc, 0, graph::NotOp::create(b, nc.loc, in->getType(), *in));
}

LogicalResult Importer::importIdentity(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  return define(nc, 0, *in);
}

LogicalResult Importer::importDropout(const NodeCtx &nc) {
  // Inference semantics: output = input, mask = true.
  if (failed(checkArity(nc, 1, 3, 2)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  if (opset >= 12) {
    auto mode = getOptionalInput(nc, 2);
    if (failed(mode))
      return failure();
    if (*mode) {
      auto bits = getConstantInts(nc, *mode, "training_mode", /*allowBool=*/true);
      if (failed(bits))
        return failure();
      if (llvm::any_of(*bits, [](int64_t x) { return x != 0; }))
        return nodeError(nc) << "training_mode = true is not supported (inference only)";
    }
  } else if (opset < 7) {
    auto isTest = getInt(nc, "is_test", 0);
    if (failed(isTest))
      return failure();
  }
  if (nc.node.output_size() > 1 && !nc.node.output(1).empty() &&
      usedNames.contains(nc.node.output(1))) {
    // Dropout-10 on: in inference the mask is all true (the ONNX reference implementation
    // returns np.ones(X.shape, dtype=bool)). Before, the mask has the input's type and no
    // documented inference value.
    if (opset < 10)
      return nodeError(nc) << "mask output '" << nc.node.output(1) << "' is used (opset " << opset
                           << " < 10: its inference value is not specified)";
    auto maskType =
        RankedTensorType::get(cast<RankedTensorType>(in->getType()).getShape(), b.getI1Type());
    if (failed(define(nc, 1, createConstant(nc.loc, DenseElementsAttr::get(maskType, true)))))
      return failure();
  }
  return define(nc, 0, *in);
}

LogicalResult Importer::importConstant(const NodeCtx &nc) {
  if (failed(checkArity(nc, 0, 0, 1)))
    return failure();
  if (nc.attrs.size() != 1)
    return nodeError(nc) << "expects exactly one attribute, got " << nc.attrs.size();
  const onnx::AttributeProto &a = *nc.attrs.begin()->second;
  llvm::StringRef kind = a.name();
  int t = attrType(a);
  std::string valueName = nc.node.output(0).empty() ? nc.name : nc.node.output(0);
  ElementsAttr value;
  if (kind == "value") {
    if (t != onnx::AttributeProto::TENSOR)
      return attrTypeError(nc, a, onnx::AttributeProto::TENSOR);
    auto attr = convertTensor(a.t(), valueName, nc.loc);
    if (failed(attr))
      return failure();
    value = *attr;
  } else if (kind == "value_float") {
    if (t != onnx::AttributeProto::FLOAT)
      return attrTypeError(nc, a, onnx::AttributeProto::FLOAT);
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), a.f());
  } else if (kind == "value_floats") {
    if (t != onnx::AttributeProto::FLOATS && t != onnx::AttributeProto::UNDEFINED)
      return attrTypeError(nc, a, onnx::AttributeProto::FLOATS);
    SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(RankedTensorType::get({(int64_t)v.size()}, b.getF32Type()),
                                   ArrayRef<float>(v));
  } else if (kind == "value_int") {
    if (t != onnx::AttributeProto::INT)
      return attrTypeError(nc, a, onnx::AttributeProto::INT);
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), (int64_t)a.i());
  } else if (kind == "value_ints") {
    if (t != onnx::AttributeProto::INTS && t != onnx::AttributeProto::UNDEFINED)
      return attrTypeError(nc, a, onnx::AttributeProto::INTS);
    SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(RankedTensorType::get({(int64_t)v.size()}, b.getI64Type()),
                                   ArrayRef<int64_t>(v));
  } else {
    return nodeError(nc) << "attribute '" << kind << "' is not supported";
  }
  return define(nc, 0, createConstant(nc.loc, value));
}

LogicalResult Importer::importCastLike(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto in = getInput(nc, 0), like = getInput(nc, 1);
  if (failed(in) || failed(like) || failed(castFloat8Attrs(nc)))
    return failure();
  return define(nc, 0,
                castTo(nc.loc, *in, cast<RankedTensorType>(like->getType()).getElementType()));
}

LogicalResult Importer::importShrink(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto l = getFloat(nc, "lambd", 0.5f), bias = getFloat(nc, "bias", 0.0f);
  if (failed(in) || failed(l) || failed(bias) || failed(checkFloat(nc, *in, "input")))
    return failure();
  return define(nc, 0,
                graph::ShrinkOp::create(b, nc.loc, in->getType(), *in, b.getF64FloatAttr(*l),
                                        b.getF64FloatAttr(*bias)));
}

void Importer::registerElementwiseOps(OpTable &t) {
  t.add("LeakyRelu", 1, handle<&Importer::importParamUnary>);
  t.add("Elu", 1, handle<&Importer::importParamUnary>);
  t.add("Celu", 12, handle<&Importer::importParamUnary>);
  t.add("Selu", 1, handle<&Importer::importParamUnary>);
  t.add("HardSigmoid", 1, handle<&Importer::importParamUnary>);
  t.add("Clip", 1, handle<&Importer::importClip>);
  t.add("Pow", 1, handle<&Importer::importPow>);
  t.add("Mean", 1, handle<&Importer::importMean>);
  t.add("Where", 9, handle<&Importer::importWhere>);
  t.add("Cast", 1, handle<&Importer::importCast>);
  t.add("CastLike", 15, handle<&Importer::importCastLike>);
  t.add("Not", 1, handle<&Importer::importNot>);
  t.add("Identity", 1, handle<&Importer::importIdentity>);
  t.add("Dropout", 1, handle<&Importer::importDropout>);
  t.add("Constant", 1, handle<&Importer::importConstant>);
  t.add("Shrink", 9, handle<&Importer::importShrink>);
}
