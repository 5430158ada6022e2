//===- KernelTemplates.cpp - graph fusion groups -> tile kernels -----------===//
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"

#include "StableMath.h"

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc;
using namespace aicc::graph;
namespace tl = aicc::tile;

namespace {

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// Strides (in elements) of a value of shape `in` (whose own dims have strides `inStrides`)
/// seen through numpy broadcasting as a value of shape `out`: right-aligned, size-1 and
/// missing dims get stride 0.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> inStrides,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> s(out.size(), 0);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1)
      s[lead + i] = inStrides[i];
  return s;
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Element type kernel memory and tiles hold for graph element type `t`: arith works on
/// signless integers, so ui8 ... ui64 (and siN) become iN. The graph ops keep the signedness;
/// the templates read it there and pick the unsigned arith ops (divui, cmpi ult, extui ...).
Type storageType(Type t) {
  if (auto it = dyn_cast<IntegerType>(t); it && !it.isSignless())
    return IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

/// Element type the kernel computes in: f32 for 16-bit floats, else the storage type.
Type computeType(Type t) {
  if (t.isF16() || t.isBF16())
    return Float32Type::get(t.getContext());
  return storageType(t);
}

/// Element type of a graph value (tensor or scalar).
Type graphElementType(Value v) { return getElementTypeOrSelf(v.getType()); }

/// The unsigned form of a signed integer predicate (slt -> ult, ...); eq / ne unchanged.
arith::CmpIPredicate unsignedPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::slt:
    return arith::CmpIPredicate::ult;
  case arith::CmpIPredicate::sle:
    return arith::CmpIPredicate::ule;
  case arith::CmpIPredicate::sgt:
    return arith::CmpIPredicate::ugt;
  case arith::CmpIPredicate::sge:
    return arith::CmpIPredicate::uge;
  default:
    return p;
  }
}

/// `v` as a `width`-bit integer, saturated to the type's range (Clip bounds, padding).
APInt saturatingInt(double v, unsigned width, bool isUnsigned) {
  if (std::isnan(v))
    return APInt(width, 0);
  APInt lo = isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  APInt hi = isUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  double loD = isUnsigned ? lo.roundToDouble(false) : lo.roundToDouble(true);
  double hiD = isUnsigned ? hi.roundToDouble(false) : hi.roundToDouble(true);
  if (v <= loD)
    return lo;
  if (v >= hiD)
    return hi;
  if (isUnsigned)
    return APInt(width, (uint64_t)v);
  return APInt(width, (uint64_t)(int64_t)v, /*isSigned=*/true);
}

/// Small builder of tile arithmetic used by all templates.
struct TileBuilder {
  OpBuilder &b;
  Location loc;
  SmallVector<int64_t> shape; // the tile shape of the kernel's output iteration

  RankedTensorType tileOf(Type elem) const { return RankedTensorType::get(shape, elem); }
  Value i32(int64_t v) { return b.create<arith::ConstantIntOp>(loc, b.getI32Type(), v); }
  Value splat(Value scalar) {
    return b.create<tl::SplatOp>(loc, tileOf(scalar.getType()), scalar);
  }
  Value splatI32(int64_t v) { return splat(i32(v)); }
  Value splatF(Type elem, double v) {
    Value c = b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, v));
    return splat(c);
  }
  Value range(int64_t n) {
    return b.create<tl::MakeRangeOp>(loc, RankedTensorType::get({n}, b.getI32Type()),
                                     b.getI32IntegerAttr(0), b.getI32IntegerAttr(n));
  }
  /// Place a 1-D tile along dim `d` of the kernel tile shape (expand_dims + broadcast).
  Value along(Value v1d, unsigned d) {
    auto t = cast<RankedTensorType>(v1d.getType());
    Value v = v1d;
    SmallVector<int64_t> cur{t.getDimSize(0)};
    // Insert unit dims before and after, then broadcast.
    for (unsigned i = 0; i < d; ++i) {
      cur.insert(cur.begin() + i, 1);
      v = b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get(cur, t.getElementType()), v,
                                     b.getI32IntegerAttr(i));
    }
    for (unsigned i = d + 1; i < shape.size(); ++i) {
      cur.push_back(1);
      v = b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get(cur, t.getElementType()), v,
                                     b.getI32IntegerAttr(i));
    }
    if (ArrayRef<int64_t>(cur) != ArrayRef<int64_t>(shape))
      v = b.create<tl::BroadcastOp>(loc, tileOf(t.getElementType()), v);
    return v;
  }
  /// Offset tile sum_d idx[d] * strides[d] (+ scalar base), or nullptr-free splat(0).
  Value offsets(ArrayRef<Value> idx, ArrayRef<int64_t> strides, Value scalarBase = {}) {
    Value acc;
    for (auto [v, s] : llvm::zip(idx, strides)) {
      if (s == 0 || !v)
        continue;
      Value term = s == 1 ? v : b.create<arith::MulIOp>(loc, v, splatI32(s)).getResult();
      acc = acc ? b.create<arith::AddIOp>(loc, acc, term).getResult() : term;
    }
    if (scalarBase && isConstantIntValue(scalarBase, 0))
      scalarBase = Value();
    if (scalarBase)
      acc = acc ? b.create<arith::AddIOp>(loc, acc, splat(scalarBase)).getResult()
                : splat(scalarBase);
    return acc ? acc : splatI32(0);
  }
  /// Per-dim index tiles of the row-major linear index tile `lin` over `shape`
  /// (dim 0 is not wrapped: masked-off lanes past the end keep growing indices).
  SmallVector<Value> delinearize(Value lin, ArrayRef<int64_t> shape) {
    SmallVector<Value> idx;
    SmallVector<int64_t> strides(shape.size(), 1);
    for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    for (size_t d = 0; d < shape.size(); ++d) {
      Value q = lin;
      if (strides[d] != 1)
        q = b.create<arith::DivSIOp>(loc, q, splatI32(strides[d]));
      if (d != 0)
        q = b.create<arith::RemSIOp>(loc, q, splatI32(shape[d]));
      idx.push_back(q);
    }
    return idx;
  }
  /// Loads `buffer` at `offs` under `mask` (masked-off lanes read `padding`: for integer
  /// buffers saturated to the type, unsigned when `isUnsigned`), extended to `computeElem`.
  Value load(Value buffer, Value offs, Value mask, Type computeElem, double padding = 0.0,
             bool isUnsigned = false) {
    auto elem = cast<MemRefType>(buffer.getType()).getElementType();
    TypedAttr pad;
    if (isa<FloatType>(elem))
      pad = b.getFloatAttr(elem, padding);
    else
      pad = b.getIntegerAttr(elem,
                             saturatingInt(padding, elem.getIntOrFloatBitWidth(), isUnsigned));
    Value v = b.create<tl::LoadOp>(loc, tileOf(elem), buffer, offs, mask, pad);
    if (computeElem != elem)
      v = b.create<arith::ExtFOp>(loc, tileOf(computeElem), v);
    return v;
  }
  void store(Value buffer, Value offs, Value value, Value mask) {
    auto elem = cast<MemRefType>(buffer.getType()).getElementType();
    if (cast<RankedTensorType>(value.getType()).getElementType() != elem)
      value = b.create<arith::TruncFOp>(loc, tileOf(elem), value);
    b.create<tl::StoreOp>(loc, buffer, offs, value, mask);
  }
};

Value wrapIndex(TileBuilder &tb, Value k, int64_t n);

/// Emits the tile math of one elementwise graph op on operand tiles. Floats of 16 bits are
/// computed in f32 (their tiles arrive extended); other types in their own type, integers as
/// signless iN: the graph operand's type says whether they are unsigned (then divui, remui,
/// minui / maxui, cmpi ult ..., extui and uitofp give ONNX's unsigned semantics).
FailureOr<Value> emitElementwise(TileBuilder &tb, Operation *op, ArrayRef<Value> in) {
  OpBuilder &b = tb.b;
  Location loc = op->getLoc();
  Type elem = cast<RankedTensorType>(in[0].getType()).getElementType();
  bool isFloat = isa<FloatType>(elem);
  // Where's operand 0 is the condition; the values decide the signedness.
  Type graphElem = graphElementType(op->getOperand(isa<WhereOp>(op) ? 1 : 0));
  bool isUnsigned = graphElem.isUnsignedInteger();
  auto fconst = [&](double v) { return tb.splatF(elem, v); };
  auto iconst = [&](Type t, int64_t v) {
    return tb.splat(b.create<arith::ConstantOp>(loc, t, b.getIntegerAttr(t, v)));
  };
  auto zero = [&]() { return isFloat ? fconst(0.0) : iconst(elem, 0); };
  auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate ip, Value x, Value y) -> Value {
    if (isFloat)
      return b.create<arith::CmpFOp>(loc, fp, x, y);
    return b.create<arith::CmpIOp>(loc, isUnsigned ? unsignedPredicate(ip) : ip, x, y);
  };
  auto imin = [&](Value x, Value y) -> Value {
    return isUnsigned ? b.create<arith::MinUIOp>(loc, x, y).getResult()
                      : b.create<arith::MinSIOp>(loc, x, y).getResult();
  };
  auto imax = [&](Value x, Value y) -> Value {
    return isUnsigned ? b.create<arith::MaxUIOp>(loc, x, y).getResult()
                      : b.create<arith::MaxSIOp>(loc, x, y).getResult();
  };
  auto sel = [&](Value c, Value x, Value y) -> Value {
    return b.create<arith::SelectOp>(loc, c, x, y);
  };
  // Integer division traps on x86 for a zero divisor, and masked-off lanes load 0: divide
  // by 1 there (a real zero divisor is undefined behaviour in ONNX anyway).
  auto safeDivisor = [&](Value d) -> Value {
    Value z = iconst(elem, 0);
    return sel(b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, d, z), iconst(elem, 1), d);
  };
  auto mulf = [&](Value x, Value y) -> Value { return b.create<arith::MulFOp>(loc, x, y); };
  auto addf = [&](Value x, Value y) -> Value { return b.create<arith::AddFOp>(loc, x, y); };
  // Numerically stable forms of the transcendental functions (StableMath.h).
  aicc::graph_to_tile::StableMath sm{b, loc, fconst};
  auto expm1 = [&](Value x) -> Value { return sm.expm1(x); };
  auto minf = [&](Value x, Value y) -> Value { return b.create<arith::MinimumFOp>(loc, x, y); };
  auto maxf = [&](Value x, Value y) -> Value { return b.create<arith::MaximumFOp>(loc, x, y); };
  auto requireFloat = [&]() -> LogicalResult {
    if (isFloat)
      return success();
    return op->emitError("kernel templates support ") << op->getName() << " on floats only";
  };
  auto one = [&]() { return fconst(1.0); };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](AddOp) -> Value {
        return isFloat ? b.create<arith::AddFOp>(loc, in[0], in[1]).getResult()
                       : b.create<arith::AddIOp>(loc, in[0], in[1]).getResult();
      })
      .Case([&](SubOp) -> Value {
        return isFloat ? b.create<arith::SubFOp>(loc, in[0], in[1]).getResult()
                       : b.create<arith::SubIOp>(loc, in[0], in[1]).getResult();
      })
      .Case([&](MulOp) -> Value {
        return isFloat ? b.create<arith::MulFOp>(loc, in[0], in[1]).getResult()
                       : b.create<arith::MulIOp>(loc, in[0], in[1]).getResult();
      })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return b.create<arith::DivFOp>(loc, in[0], in[1]);
        if (isUnsigned)
          return b.create<arith::DivUIOp>(loc, in[0], safeDivisor(in[1]));
        return b.create<arith::DivSIOp>(loc, in[0], safeDivisor(in[1]));
      })
      .Case([&](MinOp) -> Value { return isFloat ? minf(in[0], in[1]) : imin(in[0], in[1]); })
      .Case([&](MaxOp) -> Value { return isFloat ? maxf(in[0], in[1]) : imax(in[0], in[1]); })
      .Case([&](PowOp) -> FailureOr<Value> {
        if (failed(requireFloat()))
          return failure();
        return sm.pow(in[0], in[1]);
      })
      .Case([&](ModOp m) -> FailureOr<Value> {
        if (isFloat)
          return b.create<arith::RemFOp>(loc, in[0], in[1]).getResult();
        Value d = safeDivisor(in[1]);
        // Unsigned operands are never negative: both sign conventions are remui.
        if (isUnsigned)
          return b.create<arith::RemUIOp>(loc, in[0], d).getResult();
        Value r = b.create<arith::RemSIOp>(loc, in[0], d);
        if (m.getFmod())
          return r;
        // Python-style: the result takes the divisor's sign.
        Value z = zero();
        Value fix = b.create<arith::AndIOp>(
            loc, cmp({}, arith::CmpIPredicate::ne, r, z),
            b.create<arith::XOrIOp>(loc, cmp({}, arith::CmpIPredicate::slt, r, z),
                                    cmp({}, arith::CmpIPredicate::slt, in[1], z)));
        return sel(fix, b.create<arith::AddIOp>(loc, r, d), r);
      })
      .Case([&](PReluOp) -> FailureOr<Value> {
        if (failed(requireFloat()))
          return failure();
        return sel(cmp(arith::CmpFPredicate::OLT, {}, in[0], zero()), mulf(in[0], in[1]), in[0]);
      })
      .Case([&](BitShiftOp sh) -> Value {
        // ONNX BitShift: shifts by the bit width or more give 0 (arith.shli / shrui would be
        // poison there), so shift by 0 in those lanes and select 0.
        Value width = iconst(elem, elem.getIntOrFloatBitWidth());
        Value tooFar = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, in[1], width);
        Value amount = sel(tooFar, zero(), in[1]);
        Value r = sh.getDirection() == "left"
                      ? b.create<arith::ShLIOp>(loc, in[0], amount).getResult()
                      : b.create<arith::ShRUIOp>(loc, in[0], amount).getResult();
        return sel(tooFar, zero(), r);
      })
      .Case([&](AndOp) -> Value { return b.create<arith::AndIOp>(loc, in[0], in[1]); })
      .Case([&](OrOp) -> Value { return b.create<arith::OrIOp>(loc, in[0], in[1]); })
      .Case([&](XorOp) -> Value { return b.create<arith::XOrIOp>(loc, in[0], in[1]); })
      .Case([&](NotOp) -> Value {
        return b.create<arith::XOrIOp>(loc, in[0], iconst(b.getI1Type(), 1));
      })
      .Case([&](EqualOp) -> Value {
        return cmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq, in[0], in[1]);
      })
      .Case([&](LessOp) -> Value {
        return cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, in[0], in[1]);
      })
      .Case([&](LessEqualOp) -> Value {
        return cmp(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle, in[0], in[1]);
      })
      .Case([&](GreaterOp) -> Value {
        return cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, in[0], in[1]);
      })
      .Case([&](GreaterEqualOp) -> Value {
        return cmp(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge, in[0], in[1]);
      })
      .Case([&](WhereOp) -> Value { return sel(in[0], in[1], in[2]); })
      .Case([&](ExpandOp) -> Value { return in[0]; }) // operands arrive broadcast
      .Case([&](NegOp) -> Value {
        return isFloat ? b.create<arith::NegFOp>(loc, in[0]).getResult()
                       : b.create<arith::SubIOp>(loc, zero(), in[0]).getResult();
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return b.create<math::AbsFOp>(loc, in[0]);
        if (isUnsigned)
          return in[0];
        return b.create<arith::MaxSIOp>(loc, in[0], b.create<arith::SubIOp>(loc, zero(), in[0]));
      })
      .Case([&](SignOp) -> Value {
        Value pos = isFloat ? fconst(1.0) : iconst(elem, 1);
        Value neg = isFloat ? fconst(-1.0) : iconst(elem, -1);
        // Neither > 0 nor < 0: +-0 (integer 0) or NaN, which Sign returns as they are.
        return sel(cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, in[0], zero()), pos,
                   sel(cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, in[0], zero()),
                       neg, isFloat ? in[0] : zero()));
      })
      .Case([&](ClipOp c) -> Value {
        Value x = in[0];
        auto bound = [&](double v) -> Value {
          if (isFloat)
            return fconst(v);
          APInt i = saturatingInt(v, elem.getIntOrFloatBitWidth(), isUnsigned);
          return tb.splat(b.create<arith::ConstantOp>(loc, elem, b.getIntegerAttr(elem, i)));
        };
        if (auto lo = c.getMinAttr())
          x = isFloat ? maxf(x, bound(lo.getValueAsDouble()))
                      : imax(x, bound(lo.getValueAsDouble()));
        if (auto hi = c.getMaxAttr())
          x = isFloat ? minf(x, bound(hi.getValueAsDouble()))
                      : imin(x, bound(hi.getValueAsDouble()));
        return x;
      })
      .Case([&](CastOp c) -> FailureOr<Value> {
        // ONNX Cast: float -> float rounds to nearest even; float -> integer truncates toward
        // zero (out-of-range values are undefined in ONNX: here they wrap through i64, as
        // numpy does on x86); integer -> float rounds; integer -> integer truncates or
        // extends by the source's signedness (two's complement wrap); x -> bool is x != 0;
        // bool -> x is 0 or 1.
        Type toG = c.getType().getElementType();
        bool fromUnsigned = isUnsigned || elem.isInteger(1);
        bool toUnsigned = toG.isUnsignedInteger();
        Type to = storageType(toG);
        Type target = computeType(toG);
        auto tileT = tb.tileOf(target);
        Value x = in[0];
        if (isa<FloatType>(elem) && isa<FloatType>(to)) {
          // Round through the target precision, then compute in the target's compute type.
          auto ft = cast<FloatType>(elem), tt = cast<FloatType>(to);
          if (tt.getWidth() < ft.getWidth())
            x = b.create<arith::TruncFOp>(loc, tb.tileOf(to), x);
          else if (tt.getWidth() > ft.getWidth())
            x = b.create<arith::ExtFOp>(loc, tb.tileOf(to), x);
          if (to != target)
            x = b.create<arith::ExtFOp>(loc, tileT, x);
          return x;
        }
        if (isa<FloatType>(elem)) { // float -> int / bool
          if (to.isInteger(1))
            return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x, zero()).getResult();
          unsigned width = to.getIntOrFloatBitWidth();
          if (width == 64)
            return toUnsigned ? b.create<arith::FPToUIOp>(loc, tileT, x).getResult()
                              : b.create<arith::FPToSIOp>(loc, tileT, x).getResult();
          Value wide = b.create<arith::FPToSIOp>(loc, tb.tileOf(b.getI64Type()), x);
          return b.create<arith::TruncIOp>(loc, tileT, wide).getResult();
        }
        if (isa<FloatType>(to)) { // int / bool -> float
          Value r = fromUnsigned ? b.create<arith::UIToFPOp>(loc, tb.tileOf(to), x).getResult()
                                 : b.create<arith::SIToFPOp>(loc, tb.tileOf(to), x).getResult();
          if (to != target)
            r = b.create<arith::ExtFOp>(loc, tileT, r);
          return r;
        }
        unsigned from = elem.getIntOrFloatBitWidth(), width = to.getIntOrFloatBitWidth();
        if (to.isInteger(1))
          return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero()).getResult();
        if (width == from)
          return x; // same bits (e.g. i8 <-> ui8 reinterprets modulo 2^8)
        if (width < from)
          return b.create<arith::TruncIOp>(loc, tileT, x).getResult();
        if (fromUnsigned)
          return b.create<arith::ExtUIOp>(loc, tileT, x).getResult();
        return b.create<arith::ExtSIOp>(loc, tileT, x).getResult();
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        if (failed(requireFloat()))
          return failure();
        Value x = in[0];
        Value r =
            llvm::TypeSwitch<Operation *, Value>(o)
                .Case([&](ReluOp) -> Value { return maxf(x, fconst(0.0)); })
                .Case([&](TanhOp) -> Value { return b.create<math::TanhOp>(loc, x); })
                .Case([&](ExpOp) -> Value { return b.create<math::ExpOp>(loc, x); })
                .Case([&](ErfOp) -> Value { return b.create<math::ErfOp>(loc, x); })
                .Case([&](SigmoidOp) -> Value { return sm.sigmoid(x); })
                .Case([&](GeluOp g) -> Value {
                  return g.getApproximate() == "tanh" ? sm.geluTanh(x) : sm.geluErf(x);
                })
                .Case([&](CeilOp) -> Value { return b.create<math::CeilOp>(loc, x); })
                .Case([&](FloorOp) -> Value { return b.create<math::FloorOp>(loc, x); })
                .Case([&](RoundOp) -> Value { return b.create<math::RoundEvenOp>(loc, x); })
                .Case([&](SqrtOp) -> Value { return b.create<math::SqrtOp>(loc, x); })
                .Case([&](ReciprocalOp) -> Value { return b.create<arith::DivFOp>(loc, one(), x); })
                .Case([&](LogOp) -> Value { return b.create<math::LogOp>(loc, x); })
                .Case([&](SinOp) -> Value { return b.create<math::SinOp>(loc, x); })
                .Case([&](CosOp) -> Value { return b.create<math::CosOp>(loc, x); })
                .Case([&](TanOp) -> Value { return b.create<math::TanOp>(loc, x); })
                .Case([&](AsinOp) -> Value { return b.create<math::AsinOp>(loc, x); })
                .Case([&](AcosOp) -> Value { return b.create<math::AcosOp>(loc, x); })
                .Case([&](AtanOp) -> Value { return b.create<math::AtanOp>(loc, x); })
                .Case([&](SinhOp) -> Value { return sm.sinh(x); })
                .Case([&](CoshOp) -> Value { return sm.cosh(x); })
                .Case([&](AsinhOp) -> Value { return sm.asinh(x); })
                .Case([&](AcoshOp) -> Value { return sm.acosh(x); })
                .Case([&](AtanhOp) -> Value { return sm.atanh(x); })
                .Case([&](SoftplusOp) -> Value { return sm.softplus(x); })
                .Case([&](SoftsignOp) -> Value { return sm.softsign(x); })
                .Case([&](HardSwishOp) -> Value {
                  Value h = maxf(fconst(0.0), minf(one(), addf(mulf(x, fconst(1.0 / 6.0)),
                                                                fconst(0.5))));
                  return mulf(x, h);
                })
                .Case([&](ShrinkOp sh) -> Value {
                  double l = sh.getLambd().convertToDouble(), bias = sh.getBias().convertToDouble();
                  Value lo = cmp(arith::CmpFPredicate::OLT, {}, x, fconst(-l));
                  Value hi = cmp(arith::CmpFPredicate::OGT, {}, x, fconst(l));
                  return sel(lo, addf(x, fconst(bias)),
                             sel(hi, b.create<arith::SubFOp>(loc, x, fconst(bias)), fconst(0.0)));
                })
                .Case([&](HardSigmoidOp h) -> Value {
                  Value y = addf(mulf(x, fconst(h.getAlpha().convertToDouble())),
                                 fconst(h.getBeta().convertToDouble()));
                  return maxf(fconst(0.0), minf(one(), y));
                })
                .Case([&](LeakyReluOp l) -> Value {
                  return sel(cmp(arith::CmpFPredicate::OLT, {}, x, fconst(0.0)),
                             mulf(x, fconst(l.getAlpha().convertToDouble())), x);
                })
                .Case([&](EluOp e) -> Value {
                  return sel(cmp(arith::CmpFPredicate::OLT, {}, x, fconst(0.0)),
                             mulf(expm1(x), fconst(e.getAlpha().convertToDouble())), x);
                })
                .Case([&](SeluOp e) -> Value {
                  Value neg = mulf(expm1(x), fconst(e.getAlpha().convertToDouble()));
                  Value y = sel(cmp(arith::CmpFPredicate::OGT, {}, x, fconst(0.0)), x, neg);
                  return mulf(y, fconst(e.getGamma().convertToDouble()));
                })
                .Case([&](CeluOp e) -> Value {
                  double alpha = e.getAlpha().convertToDouble();
                  Value neg = mulf(expm1(mulf(x, fconst(1.0 / alpha))), fconst(alpha));
                  return addf(maxf(x, fconst(0.0)), minf(neg, fconst(0.0)));
                })
                .Default([](Operation *) -> Value { return Value(); });
        if (!r) {
          o->emitError("no tile lowering for ") << o->getName() << " inside a fusion group";
          return failure();
        }
        return r;
      });
}

/// Shared state of a template: the group, the kernel's parameters and the tile index
/// of every output dim.
struct KernelContext {
  FusionGroupOp group;
  func::FuncOp kernel;
  SmallVector<Value> inParams, outParams; // kernel params, flat 1-D memrefs
  DenseMap<Value, unsigned> argIndex;     // group body block arg -> input index
};

/// Loads view `v` (a kernel input, or view ops over kernel inputs) at the element whose
/// index along each of v's dims is `idx[d]` (i32 tiles), under `mask`. View ops become
/// index arithmetic: transpose permutes, expand pins broadcast dims to 0, slice scales and
/// shifts, tile wraps, pad shifts and masks (or clamps / reflects / wraps), concat selects.
FailureOr<Value> loadView(TileBuilder &tb, KernelContext &kc, Value v, ArrayRef<Value> idx,
                          Value mask) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  auto vt = cast<RankedTensorType>(v.getType());
  Type elem = computeType(vt.getElementType());
  auto splat = [&](int64_t c) { return tb.splatI32(c); };
  auto addI = [&](Value x, int64_t c) -> Value {
    return c == 0 ? x : b.create<arith::AddIOp>(loc, x, splat(c)).getResult();
  };
  auto andMask = [&](Value m, Value c) -> Value {
    return m ? b.create<arith::AndIOp>(loc, m, c).getResult() : c;
  };
  auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t c) -> Value {
    return b.create<arith::CmpIOp>(loc, p, x, splat(c));
  };
  if (auto it = kc.argIndex.find(v); it != kc.argIndex.end()) {
    auto strides = rowMajorStrides(vt.getShape());
    SmallVector<Value> used;
    SmallVector<int64_t> usedStrides;
    for (int64_t d = 0; d < vt.getRank(); ++d)
      if (vt.getDimSize(d) != 1) {
        used.push_back(idx[d]);
        usedStrides.push_back(strides[d]);
      }
    return tb.load(kc.inParams[it->second], tb.offsets(used, usedStrides), mask, elem);
  }
  Operation *def = v.getDefiningOp();
  if (!def || !isView(def)) {
    if (def)
      def->emitError("value of ") << def->getName()
                                  << " cannot be read here by the kernel template";
    return failure();
  }
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(def)
      .Case([&](TransposeOp t) -> FailureOr<Value> {
        SmallVector<Value> in(idx.size());
        for (auto [i, p] : llvm::enumerate(t.getPerm()))
          in[p] = idx[i];
        return loadView(tb, kc, t.getInput(), in, mask);
      })
      .Case([&](ExpandOp e) -> FailureOr<Value> {
        auto it = e.getInput().getType();
        size_t lead = vt.getRank() - it.getRank();
        SmallVector<Value> in;
        for (int64_t d = 0; d < it.getRank(); ++d)
          in.push_back(it.getDimSize(d) == 1 ? splat(0) : idx[lead + d]);
        return loadView(tb, kc, e.getInput(), in, mask);
      })
      .Case([&](SliceOp s) -> FailureOr<Value> {
        SmallVector<Value> in;
        for (auto [d, x] : llvm::enumerate(idx)) {
          int64_t step = s.getSteps()[d];
          Value y = step == 1 ? x : b.create<arith::MulIOp>(loc, x, splat(step)).getResult();
          in.push_back(addI(y, s.getStarts()[d]));
        }
        return loadView(tb, kc, s.getInput(), in, mask);
      })
      .Case([&](TileOp t) -> FailureOr<Value> {
        auto it = t.getInput().getType();
        SmallVector<Value> in;
        for (auto [d, x] : llvm::enumerate(idx))
          in.push_back(it.getDimSize(d) == vt.getDimSize(d)
                           ? x
                           : b.create<arith::RemSIOp>(loc, x, splat(it.getDimSize(d)))
                                 .getResult());
        return loadView(tb, kc, t.getInput(), in, mask);
      })
      .Case([&](PadOp p) -> FailureOr<Value> {
        auto it = p.getInput().getType();
        SmallVector<Value> in;
        Value inRange;
        for (auto [d, x] : llvm::enumerate(idx)) {
          int64_t n = it.getDimSize(d);
          Value y = addI(x, -p.getLow()[d]);
          if (p.getLow()[d] == 0 && p.getHigh()[d] == 0) {
            in.push_back(y);
            continue;
          }
          if (p.getMode() == "constant") {
            inRange = andMask(inRange, b.create<arith::AndIOp>(
                                           loc, cmp(arith::CmpIPredicate::sge, y, 0),
                                           cmp(arith::CmpIPredicate::slt, y, n)));
          } else if (p.getMode() == "edge") {
            y = b.create<arith::MaxSIOp>(loc, y, splat(0));
            y = b.create<arith::MinSIOp>(loc, y, splat(n - 1));
          } else if (p.getMode() == "wrap") {
            // wrap (numpy's): i mod n, shifted by a multiple of n to be non-negative.
            int64_t lift = (p.getLow()[d] + n - 1) / n * n;
            y = b.create<arith::RemSIOp>(loc, addI(y, lift), splat(n));
          } else { // reflect: -i for i < 0, 2(n - 1) - i for i >= n
            auto absI = [&](Value z) -> Value {
              return b.create<arith::MaxSIOp>(loc, z, b.create<arith::SubIOp>(loc, splat(0), z));
            };
            y = absI(y);
            y = b.create<arith::SubIOp>(loc, splat(n - 1),
                                        absI(b.create<arith::SubIOp>(loc, splat(n - 1), y)));
          }
          in.push_back(y);
        }
        auto val = loadView(tb, kc, p.getInput(), in, inRange ? andMask(mask, inRange) : mask);
        if (failed(val) || !inRange)
          return val;
        Value pad = isa<FloatType>(elem) ? tb.splatF(elem, p.getValue().convertToDouble())
                                         : tb.splat(b.create<arith::ConstantOp>(
                                               loc, elem, b.getIntegerAttr(elem, (int64_t)p.getValue().convertToDouble())));
        return b.create<arith::SelectOp>(loc, inRange, *val, pad).getResult();
      })
      .Case([&](GatherOp g) -> FailureOr<Value> {
        // Load the index at the q dims, wrap negatives, then read the data there.
        auto dt = g.getInput().getType();
        auto it = g.getIndices().getType();
        int64_t axis = g.getAxis(), q = it.getRank(), n = dt.getDimSize(axis);
        SmallVector<Value> qIdx(idx.begin() + axis, idx.begin() + axis + q);
        auto k = loadView(tb, kc, g.getIndices(), qIdx, mask);
        if (failed(k))
          return failure();
        Value k32 = wrapIndex(tb, *k, n);
        SmallVector<Value> in(idx.begin(), idx.begin() + axis);
        in.push_back(k32);
        in.append(idx.begin() + axis + q, idx.end());
        return loadView(tb, kc, g.getInput(), in, mask);
      })
      .Case([&](GatherElementsOp g) -> FailureOr<Value> {
        int64_t axis = g.getAxis(), n = g.getInput().getType().getDimSize(axis);
        auto k = loadView(tb, kc, g.getIndices(), idx, mask);
        if (failed(k))
          return failure();
        Value k32 = wrapIndex(tb, *k, n);
        SmallVector<Value> in(idx);
        in[axis] = k32;
        return loadView(tb, kc, g.getInput(), in, mask);
      })
      .Case([&](ConcatOp c) -> FailureOr<Value> {
        int64_t axis = c.getAxis();
        int64_t start = 0;
        Value acc;
        for (Value in : c.getInputs()) {
          int64_t n = cast<RankedTensorType>(in.getType()).getDimSize(axis);
          Value inside = b.create<arith::AndIOp>(loc, cmp(arith::CmpIPredicate::sge, idx[axis], start),
                                                 cmp(arith::CmpIPredicate::slt, idx[axis], start + n));
          SmallVector<Value> sub(idx);
          sub[axis] = addI(idx[axis], -start);
          auto val = loadView(tb, kc, in, sub, andMask(mask, inside));
          if (failed(val))
            return failure();
          acc = acc ? b.create<arith::SelectOp>(loc, inside, *val, acc).getResult() : *val;
          start += n;
        }
        return acc;
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        o->emitError("no load lowering for view op ") << o->getName();
        return failure();
      });
}

/// Loads body value `v` at the output element given by `idx` (one i32 tile per dim of
/// `outShape`), broadcasting v to `outShape` (numpy rules) first.
FailureOr<Value> loadOperand(TileBuilder &tb, KernelContext &kc, Value v,
                             ArrayRef<int64_t> outShape, ArrayRef<Value> idx, Value mask) {
  auto vt = cast<RankedTensorType>(v.getType());
  size_t lead = outShape.size() - vt.getRank();
  SmallVector<Value> in;
  for (int64_t d = 0; d < vt.getRank(); ++d)
    in.push_back(vt.getDimSize(d) == 1 ? tb.splatI32(0) : idx[lead + d]);
  return loadView(tb, kc, v, in, mask);
}

/// Applies the elementwise ops of the group body that follow `start` (exclusive), whose
/// other operands are loaded at `idx`. `current` is the tile of start's result.
FailureOr<Value> applyEpilogue(TileBuilder &tb, KernelContext &kc, Operation *start,
                               Value current, ArrayRef<int64_t> outShape,
                               ArrayRef<Value> idx, Value mask) {
  DenseMap<Value, Value> tiles;
  tiles[start->getResult(0)] = current;
  Block &body = kc.group.getBody().front();
  for (Operation &op : llvm::make_range(std::next(start->getIterator()), body.end())) {
    if (isa<YieldOp>(op))
      break;
    if (isView(&op))
      continue; // folded into the loads of its users
    if (!isElementwise(&op)) {
      op.emitError("cannot fuse ") << op.getName() << " into this kernel's epilogue";
      return failure();
    }
    SmallVector<Value> ins;
    for (Value o : op.getOperands()) {
      auto found = tiles.find(o);
      if (found != tiles.end()) {
        ins.push_back(found->second);
        continue;
      }
      auto loaded = loadOperand(tb, kc, o, outShape, idx, mask);
      if (failed(loaded))
        return failure();
      ins.push_back(*loaded);
    }
    auto r = emitElementwise(tb, &op, ins);
    if (failed(r))
      return failure();
    tiles[op.getResult(0)] = *r;
  }
  // The chain's result: the first yielded value the chain computes (a row kernel may also
  // yield its row input).
  auto yield = cast<YieldOp>(body.getTerminator());
  for (Value v : yield.getValues())
    if (auto found = tiles.find(v); found != tiles.end())
      return found->second;
  kc.group.emitError("fusion group result is not computed by its epilogue chain");
  return failure();
}

/// Creates the kernel func with flat 1-D memref params for inputs then outputs.
KernelContext makeKernel(OpBuilder &builder, FusionGroupOp group, StringRef name,
                         ArrayRef<int64_t> grid, int64_t numWarps,
                         ArrayRef<NamedAttribute> blocks, int64_t numStages = 1) {
  KernelContext kc;
  kc.group = group;
  MLIRContext *ctx = builder.getContext();
  SmallVector<Type> params;
  auto flat = [](Type t) {
    auto rt = cast<RankedTensorType>(t);
    return MemRefType::get({rt.getNumElements()}, storageType(rt.getElementType()));
  };
  for (Value v : group.getInputs())
    params.push_back(flat(v.getType()));
  for (Type t : group.getResultTypes())
    params.push_back(flat(t));
  auto fn = builder.create<func::FuncOp>(group.getLoc(), name,
                                         FunctionType::get(ctx, params, {}));

  // A zero-element output gives zero programs; launch one, whose masks are all false (the
  // grid must be at least 1 in every dimension: tile.schedule's verifier, and CUDA's).
  SmallVector<int64_t> g(grid);
  for (int64_t &e : g)
    e = std::max<int64_t>(e, 1);
  fn->setAttr(tl::kScheduleAttrName,
              tl::ScheduleAttr::get(ctx, g, numWarps, numStages,
                                    DictionaryAttr::get(ctx, blocks)));
  Block *entry = fn.addEntryBlock();
  unsigned nIn = group.getInputs().size();
  for (unsigned i = 0; i < entry->getNumArguments(); ++i)
    (i < nIn ? kc.inParams : kc.outParams).push_back(entry->getArgument(i));
  for (auto [i, a] : llvm::enumerate(group.getBody().front().getArguments()))
    kc.argIndex[a] = i;
  kc.kernel = fn;
  return kc;
}

NamedAttribute blockAttr(OpBuilder &b, StringRef n, int64_t v) {
  return b.getNamedAttr(n, b.getI64IntegerAttr(v));
}

//===----------------------------------------------------------------------===//
// Elementwise template
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildElementwise(OpBuilder &builder, FusionGroupOp group,
                                         StringRef name) {
  auto outType = cast<RankedTensorType>(group.getResult(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t numel = outType.getNumElements();
  if (numel >= (int64_t(1) << 31))
    return group.emitError("tensor of ") << numel << " elements exceeds 2^31 (i32 offsets)";
  int64_t block = std::min<int64_t>(1024, std::max<int64_t>(128, llvm::PowerOf2Ceil(numel)));
  int64_t programs = (numel + block - 1) / block;
  KernelContext kc = makeKernel(builder, group, name, {programs, 1, 1}, 4,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  TileBuilder tb{b, group.getLoc(), {block}};
  Value pid = b.create<tl::ProgramIdOp>(tb.loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value base = b.create<arith::MulIOp>(tb.loc, pid, tb.i32(block));
  Value offs = b.create<arith::AddIOp>(tb.loc, tb.splat(base), tb.range(block));
  Value mask = b.create<arith::CmpIOp>(tb.loc, arith::CmpIPredicate::slt, offs,
                                       tb.splatI32(numel));
  // Multi-dim output index, only materialized for operands that need it.
  SmallVector<Value> idx = tb.delinearize(offs, outShape);
  Block &body = group.getBody().front();
  DenseMap<Value, Value> tiles;
  auto getTile = [&](Value v) -> FailureOr<Value> {
    auto it = tiles.find(v);
    if (it != tiles.end())
      return it->second;
    auto vt = cast<RankedTensorType>(v.getType());
    FailureOr<Value> t;
    if (vt.getShape() == outShape && kc.argIndex.count(v))
      t = tb.load(kc.inParams[kc.argIndex[v]], offs, mask, computeType(vt.getElementType()));
    else
      t = loadOperand(tb, kc, v, outShape, idx, mask);
    if (succeeded(t))
      tiles[v] = *t;
    return t;
  };
  for (Operation &op : body.without_terminator()) {
    if (isView(&op))
      continue; // read through index arithmetic when used (loadView)
    if (auto tr = dyn_cast<TriluOp>(op)) {
      // Needs the element's row and column: keep x where j - i >= k (upper) / <= k (lower).
      auto x = getTile(tr.getInput());
      if (failed(x))
        return failure();
      size_t r = outShape.size();
      if (r < 2)
        return op.emitError("trilu needs rank >= 2"), failure();
      Value diff = b.create<arith::SubIOp>(tb.loc, idx[r - 1], idx[r - 2]);
      Value keep = b.create<arith::CmpIOp>(
          tb.loc, tr.getUpper() ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, diff,
          tb.splatI32(tr.getK()));
      Type et = cast<RankedTensorType>(x->getType()).getElementType();
      Value zero = isa<FloatType>(et)
                       ? tb.splatF(et, 0.0)
                       : tb.splat(b.create<arith::ConstantOp>(tb.loc, et, b.getIntegerAttr(et, 0)));
      tiles[tr.getResult()] = b.create<arith::SelectOp>(tb.loc, keep, *x, zero);
      continue;
    }
    if (!isElementwise(&op))
      return op.emitError("elementwise kernel template cannot hold ") << op.getName(),
             failure();
    SmallVector<Value> ins;
    for (Value o : op.getOperands()) {
      auto t = getTile(o);
      if (failed(t))
        return failure();
      ins.push_back(*t);
    }
    auto r = emitElementwise(tb, &op, ins);
    if (failed(r))
      return failure();
    tiles[op.getResult(0)] = *r;
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    if (cast<RankedTensorType>(v.getType()).getShape() != outShape)
      return group.emitError("fusion group results must share one shape"), failure();
    auto t = getTile(v);
    if (failed(t))
      return failure();
    tb.store(kc.outParams[i], offs, *t, mask);
  }
  b.create<func::ReturnOp>(tb.loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// Matmul / Gemm + epilogue template
//===----------------------------------------------------------------------===//
/// Applies `--matmul-config` (BMxBNxBK[xSTAGES]; empty: no change) to `cfg`, or fails with
/// a diagnostic at `anchor`.
LogicalResult applyMatmulConfigOverride(Operation *anchor, StringRef override,
                                        MatmulConfig &cfg) {
  if (override.empty())
    return success();
  constexpr int64_t kMaxBlock = 1024, kMaxStages = 16;
  SmallVector<StringRef> parts;
  override.split(parts, 'x');
  SmallVector<int64_t> v;
  for (StringRef p : parts) {
    int64_t x;
    if (p.getAsInteger(10, x) || x < 1)
      break;
    v.push_back(x);
  }
  if (v.size() != parts.size() || (v.size() != 3 && v.size() != 4))
    return anchor->emitError("--matmul-config '")
               << override << "': expected BMxBNxBK or BMxBNxBKxSTAGES (positive integers)",
           failure();
  // Bounds well past every target's space (tensor-core blocks <= 256, 8 stages; a generic
  // GPU kernel's tiles share 48 KiB): larger values only overflowed i32 tile ranges and
  // int64 shared-memory sizes, or had the CPU kernel allocate a [BM, BN] tile of gigabytes.
  if (v[0] > kMaxBlock || v[1] > kMaxBlock || v[2] > kMaxBlock ||
      (v.size() == 4 && v[3] > kMaxStages))
    return anchor->emitError("--matmul-config '")
               << override << "': block sizes must be at most " << kMaxBlock
               << " and num_stages at most " << kMaxStages,
           failure();
  cfg.blockM = v[0];
  cfg.blockN = v[1];
  cfg.blockK = v[2];
  if (v.size() == 4)
    cfg.numStages = v[3];
  if (cfg.wgmma)
    cfg.numWarps = 4 * std::max<int64_t>(1, cfg.blockM / 64);
  if (cfg.mmaSync && cfg.blockM >= 16 && cfg.blockN >= 16)
    cfg.numWarps = mmaSyncNumWarps(cfg.blockM, cfg.blockN);
  return success();
}

FailureOr<func::FuncOp> buildMatmul(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                    const TemplateOptions &options) {
  StringRef target = options.target, override = options.matmulConfig;
  Block &body = group.getBody().front();
  Operation *anchor = &body.front();
  while (isa<TransposeOp>(anchor))
    anchor = anchor->getNextNode();
  Value aV, bV, cV;
  bool transA = false, transB = false;
  double alpha = 1.0, beta = 1.0;
  if (auto mm = dyn_cast<MatMulOp>(anchor)) {
    aV = mm.getLhs();
    bV = mm.getRhs();
  } else if (auto gemm = dyn_cast<GemmOp>(anchor)) {
    aV = gemm.getA();
    bV = gemm.getB();
    cV = gemm.getC();
    transA = gemm.getTransA();
    transB = gemm.getTransB();
    alpha = gemm.getAlpha().convertToDouble();
    beta = gemm.getBeta().convertToDouble();
  } else {
    return anchor->emitError("epilogue group must start with matmul or gemm"), failure();
  }
  if (!isa<BlockArgument>(aV) || !isa<BlockArgument>(bV))
    return anchor->emitError("matmul operands must be kernel inputs"), failure();
  auto aT = cast<RankedTensorType>(aV.getType()), bT = cast<RankedTensorType>(bV.getType());
  SmallVector<int64_t> aS(aT.getShape()), bS(bT.getShape());
  if (aS.size() == 1)
    aS.insert(aS.begin(), 1);
  if (bS.size() == 1)
    bS.push_back(1);
  int64_t M = transA ? aS[aS.size() - 1] : aS[aS.size() - 2];
  int64_t K = transA ? aS[aS.size() - 2] : aS[aS.size() - 1];
  int64_t N = transB ? bS[bS.size() - 2] : bS[bS.size() - 1];
  auto aBatch = ArrayRef<int64_t>(aS).drop_back(2), bBatch = ArrayRef<int64_t>(bS).drop_back(2);
  auto batchShape = broadcastShapes(aBatch, bBatch);
  if (failed(batchShape))
    return anchor->emitError("batch dims do not broadcast"), failure();
  int64_t batch = numElements(*batchShape);
  auto outType = cast<RankedTensorType>(group.getResult(0).getType());
  if (outType.getNumElements() != batch * M * N)
    return group.emitError("epilogue changes the matmul's shape"), failure();
  for (int64_t n : {aT.getNumElements(), bT.getNumElements(), outType.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return group.emitError("operand exceeds 2^31 elements (i32 offsets)"), failure();

  // The stored rows of A and B (their contiguous dim) must be 16-byte multiples for TMA.
  int64_t es = aT.getElementTypeBitWidth() / 8;
  int64_t aRow = transA ? M : K, bRow = transB ? K : N;
  bool tmaRowsOK = (aRow * es) % 16 == 0 && (bRow * es) % 16 == 0;
  bool tf32 = options.allowTF32 && aT.getElementType().isF32();
  // A math epilogue: anything beyond adds, multiplies, Relu / Clip / Max / Min, negation
  // and casts (chooseMatmulConfig keeps ping-pong tiles for it).
  bool mathEpilogue = false;
  for (Operation &op : body)
    if (&op != anchor && !isa<TransposeOp, AddOp, SubOp, MulOp, ReluOp, ClipOp, MaxOp, MinOp,
                              NegOp, CastOp, ReshapeOp, YieldOp>(op))
      mathEpilogue = true;
  MatmulConfig cfg = chooseMatmulConfig(M, N, K, aT.getElementType(), tmaRowsOK, target,
                                        tf32 && !transA && transB, batch, mathEpilogue);
  if (failed(applyMatmulConfigOverride(anchor, override, cfg)))
    return failure();
  int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK;
  int64_t gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
  KernelContext kc = makeKernel(builder, group, name, {gm, gn, batch}, cfg.numWarps,
                                {blockAttr(builder, "BLOCK_M", BM),
                                 blockAttr(builder, "BLOCK_N", BN),
                                 blockAttr(builder, "BLOCK_K", BK)},
                                cfg.numStages);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = anchor->getLoc();
  Type inElem = aT.getElementType();
  Type acc = computeType(inElem);
  if (!isa<FloatType>(acc))
    return anchor->emitError("the matmul template supports float operands only, got ")
               << inElem,
           failure();
  TileBuilder t2{b, loc, {BM, BN}};
  Value pidM = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidN = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(1));
  Value pidB = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(2));
  auto scalarMul = [&](Value v, int64_t c) -> Value {
    return b.create<arith::MulIOp>(loc, v, t2.i32(c));
  };
  // Matrix index of A and of B for output batch pidB: the batch index split per dim of the
  // broadcast batch shape, each part weighted by the operand's own row-major stride over its
  // batch dims (broadcast dims of the operand contribute 0).
  Value aMatrix = t2.i32(0), bMatrix = t2.i32(0);
  {
    auto bs = rowMajorStrides(*batchShape);
    auto aStr = broadcastStrides(aBatch, rowMajorStrides(aBatch), *batchShape);
    auto bStr = broadcastStrides(bBatch, rowMajorStrides(bBatch), *batchShape);
    auto weighted = [&](Value q, int64_t stride) { return stride == 1 ? q : scalarMul(q, stride); };
    for (size_t d = 0; d < batchShape->size(); ++d) {
      Value q = bs[d] == 1 ? pidB : b.create<arith::DivSIOp>(loc, pidB, t2.i32(bs[d])).getResult();
      if (d != 0)
        q = b.create<arith::RemSIOp>(loc, q, t2.i32((*batchShape)[d]));
      if (aStr[d])
        aMatrix = b.create<arith::AddIOp>(loc, aMatrix, weighted(q, aStr[d]));
      if (bStr[d])
        bMatrix = b.create<arith::AddIOp>(loc, bMatrix, weighted(q, bStr[d]));
    }
  }
  Value m0 = scalarMul(pidM, BM), n0 = scalarMul(pidN, BN);
  Value rm = b.create<arith::AddIOp>(
      loc, b.create<tl::SplatOp>(loc, RankedTensorType::get({BM}, b.getI32Type()), m0),
      t2.range(BM));
  Value rn = b.create<arith::AddIOp>(
      loc, b.create<tl::SplatOp>(loc, RankedTensorType::get({BN}, b.getI32Type()), n0),
      t2.range(BN));
  Value rm2 = t2.along(rm, 0), rn2 = t2.along(rn, 1);
  Value mMask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rm2, t2.splatI32(M));
  Value nMask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rn2, t2.splatI32(N));
  Value outMask = b.create<arith::AndIOp>(loc, mMask, nMask);

  // K loop: the A and B tiles are blocks of the operands' row-major matrices (zero outside),
  // A stored [.., M, K] ([.., K, M] under transA: its [BK, BM] block at (k0, m0), transposed),
  // B stored [.., K, N] ([.., N, K] under transB: its [BN, BK] block at (n0, k0), transposed).
  // A 1-D operand is one matrix of 1 x K (A) or K x 1 (B).
  int64_t numA = numElements(aBatch), numB = numElements(bBatch);
  Value zeroAcc = t2.splatF(acc, 0.0);
  Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
  Value cK = b.create<arith::ConstantIndexOp>(loc, K);
  Value cBK = b.create<arith::ConstantIndexOp>(loc, BK);
  auto loop = b.create<scf::ForOp>(loc, c0, cK, cBK, ValueRange{zeroAcc});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), loop.getInductionVar());
    Value aPtr = kc.inParams[kc.argIndex[aV]], bPtr = kc.inParams[kc.argIndex[bV]];
    auto aTileType = RankedTensorType::get({BM, BK}, inElem);
    auto bTileType = RankedTensorType::get({BK, BN}, inElem);
    Value aTile =
        transA ? lb.create<tl::BlockLoadOp>(loc, aTileType, aPtr, aMatrix, k0, m0,
                                            ArrayRef<int64_t>{numA, K, M}, /*transpose=*/true)
               : lb.create<tl::BlockLoadOp>(loc, aTileType, aPtr, aMatrix, m0, k0,
                                            ArrayRef<int64_t>{numA, M, K});
    Value bTile =
        transB ? lb.create<tl::BlockLoadOp>(loc, bTileType, bPtr, bMatrix, n0, k0,
                                            ArrayRef<int64_t>{numB, N, K}, /*transpose=*/true)
               : lb.create<tl::BlockLoadOp>(loc, bTileType, bPtr, bMatrix, k0, n0,
                                            ArrayRef<int64_t>{numB, K, N});
    Value next = lb.create<tl::DotOp>(loc, loop.getRegionIterArg(0).getType(), aTile, bTile,
                                      loop.getRegionIterArg(0),
                                      tl::InputPrecisionAttr::get(
                                          lb.getContext(), tf32 ? tl::InputPrecision::tf32
                                                                : tl::InputPrecision::ieee));
    lb.create<scf::YieldOp>(loc, next);
  }
  Value result = loop.getResult(0);

  // Output index per dim of the real output shape: batch dims from pidB (scalar splat),
  // then M and N (either may be squeezed away for 1-D matmul operands).
  ArrayRef<int64_t> outShape = outType.getShape();
  SmallVector<Value> idx;
  {
    auto bs = rowMajorStrides(*batchShape);
    for (size_t d = 0; d < batchShape->size(); ++d) {
      Value q = bs[d] == 1 ? pidB : b.create<arith::DivSIOp>(loc, pidB, t2.i32(bs[d])).getResult();
      if (d != 0)
        q = b.create<arith::RemSIOp>(loc, q, t2.i32((*batchShape)[d]));
      idx.push_back(t2.splat(q));
    }
    if (aT.getRank() != 1)
      idx.push_back(rm2);
    if (bT.getRank() != 1)
      idx.push_back(rn2);
  }
  if (idx.size() != outShape.size())
    return group.emitError("internal: matmul output rank mismatch"), failure();

  if (alpha != 1.0)
    result = b.create<arith::MulFOp>(loc, result, t2.splatF(acc, alpha));
  if (cV) {
    auto cl = loadOperand(t2, kc, cV, outShape, idx, outMask);
    if (failed(cl))
      return failure();
    Value c = *cl;
    if (beta != 1.0)
      c = b.create<arith::MulFOp>(loc, c, t2.splatF(acc, beta));
    result = b.create<arith::AddFOp>(loc, result, c);
  }
  auto fused = applyEpilogue(t2, kc, anchor, result, outShape, idx, outMask);
  if (failed(fused))
    return failure();
  // The output is `batch` row-major M x N matrices whatever the operands' ranks (a 1-D operand
  // only squeezes M or N, of size 1, out of the shape): the tile is the [BM, BN] block at
  // (m0, n0) of matrix pidB, clipped at the matrix edge (a TMA box store on sm_90a; a masked
  // tile.store elsewhere, tile-expand-block-loads).
  Value outBuf = kc.outParams[0];
  Value outTile = *fused;
  auto outElem = cast<MemRefType>(outBuf.getType()).getElementType();
  if (cast<RankedTensorType>(outTile.getType()).getElementType() != outElem)
    outTile = b.create<arith::TruncFOp>(loc, RankedTensorType::get({BM, BN}, outElem), outTile);
  b.create<tl::BlockStoreOp>(loc, outBuf, batch == 1 ? t2.i32(0) : pidB, m0, n0, outTile,
                             ArrayRef<int64_t>{batch, M, N});
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// Chunked loops shared by the row and reduction templates.
//===----------------------------------------------------------------------===//

/// Rows / reductions up to this many elements are held in one tile (one pass over the data);
/// longer ones loop over the reduced extent in tiles of kChunk elements.
/// Rows up to this many elements are held on chip in one tile (in registers on the GPU:
/// 16 warps x 32 lanes x 32 elements); longer rows loop over chunks of kRowChunk.
constexpr int64_t kMaxSoftmaxRow = 16384;
constexpr int64_t kRowChunk = 4096;
constexpr int64_t kMaxReduction = 4096;
/// Tile size of the chunked loops (issue 5 tunes it for bandwidth).
constexpr int64_t kChunk = 1024;

/// scf.for over [0, n) step `step` carrying `init`; `body` gets a builder in the loop body,
/// the i32 induction variable and the carried values, and returns the next ones.
scf::ForOp chunkLoop(OpBuilder &b, Location loc, int64_t n, int64_t step, ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
  Value cn = b.create<arith::ConstantIndexOp>(loc, n);
  Value cs = b.create<arith::ConstantIndexOp>(loc, step);
  return b.create<scf::ForOp>(loc, c0, cn, cs, init,
                              [&](OpBuilder &lb, Location l, Value iv, ValueRange args) {
                                Value k = lb.create<arith::IndexCastOp>(l, lb.getI32Type(), iv);
                                lb.create<scf::YieldOp>(l, body(lb, k, args));
                              });
}

/// Elementwise combine of two tiles for a reduction kind (the chunked loops' accumulation).
/// max / min propagate NaN (numpy's max / min do).
Value combineTiles(OpBuilder &b, Location loc, tl::ReduceKind kind, Value x, Value y) {
  switch (kind) {
  case tl::ReduceKind::add:
    return b.create<arith::AddFOp>(loc, x, y);
  case tl::ReduceKind::mul:
    return b.create<arith::MulFOp>(loc, x, y);
  case tl::ReduceKind::max:
    return b.create<arith::MaximumFOp>(loc, x, y);
  default:
    return b.create<arith::MinimumFOp>(loc, x, y);
  }
}

//===----------------------------------------------------------------------===//
// Row template (softmax, log_softmax, layer_norm): one program per row. A row of at most
// kMaxSoftmaxRow elements is held in one tile; a longer row is read in chunks of kChunk
// elements by scf.for loops over the row:
//  - softmax / log_softmax: a pass for the row max M, one for S = sum(exp(x - M)), one that
//    writes exp(x - M) / S (or x - M - log S). The online normalizer (Milakov & Gimelshein,
//    "Online normalizer calculation for softmax", 2018), which fuses the first two passes,
//    carries a running max that is read again after its update; the CPU path's one-shot
//    bufferization cannot keep such a loop-carried tile in place (scf.for yields must be
//    equivalent to its iter args), so the row is read three times here (issue 5 may revisit);
//  - layer_norm: a pass for the mean, one for the biased variance sum((x - mean)^2) / n
//    (two passes rather than E[x^2] - E[x]^2, which cancels catastrophically), one that
//    writes; RMS norm skips the mean pass.
// Accumulation is in the compute type (f32 for f16 / bf16).
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildSoftmax(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  // The row op follows its fused elementwise producers (loop fusion, GraphFuse).
  Operation *sm = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(op)) {
      sm = &op;
      break;
    }
    if (!isElementwise(&op) || isa<TriluOp>(op))
      return op.emitError("row kernel cannot evaluate ") << op.getName() << " before its row op",
             failure();
  }
  if (!sm)
    return group.emitError("row group must hold softmax, log_softmax or layer_norm"),
           failure();
  bool isLog = isa<LogSoftmaxOp>(sm);
  auto ln = dyn_cast<LayerNormOp>(sm);
  auto inT = cast<RankedTensorType>(sm->getResult(0).getType());
  ArrayRef<int64_t> shape = inT.getShape();
  int64_t axis = sm->getAttrOfType<IntegerAttr>("axis").getInt();
  int64_t R = shape[axis];
  int64_t inner = 1, outer = 1;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  if (ln) { // the row is every dim from `axis`, contiguous
    R *= inner;
    inner = 1;
  }
  if (inT.getNumElements() >= (int64_t(1) << 31))
    return sm->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  bool chunked = R > kMaxSoftmaxRow;
  int64_t block = chunked ? kRowChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  // 64 bytes of the row per thread (four 16-byte loads in flight), 1 to 16 warps: measured
  // best on the H200 for 8192-element rows (8 warps for f16, 16 for f32; docs/performance.md).
  int64_t rowBytes = block * std::max<int64_t>(1, storageType(inT.getElementType()).getIntOrFloatBitWidth() / 8);
  int64_t warps = std::min<int64_t>(16, std::max<int64_t>(1, rowBytes / (32 * 64)));
  KernelContext kc = makeKernel(builder, group, name, {outer * inner, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = sm->getLoc();
  TileBuilder tb{b, loc, {block}};
  Type elem = computeType(inT.getElementType());
  Value row = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value o = b.create<arith::DivSIOp>(loc, row, tb.i32(inner));
  Value i = b.create<arith::RemSIOp>(loc, row, tb.i32(inner));
  Value base = b.create<arith::AddIOp>(loc, b.create<arith::MulIOp>(loc, o, tb.i32(R * inner)), i);
  Value rowIn = sm->getOperand(0);
  auto argIt = kc.argIndex.find(rowIn);
  if (argIt == kc.argIndex.end() && (!rowIn.getDefiningOp() ||
                                     rowIn.getDefiningOp()->getBlock() != &body))
    return sm->emitError("softmax input must be a kernel input or computed in the kernel"),
           failure();
  double inf = std::numeric_limits<double>::infinity();
  LogicalResult rowStatus = success();
  // The row input at `offs` (linear offsets into the row op's shape): a kernel input
  // loaded, or its elementwise producers in the group evaluated there, their other
  // operands loaded (broadcast) at the element's index. Masked lanes read `pad`.
  auto loadRowInput = [&](TileBuilder &t, Value offs, Value mask, double pad) -> Value {
    if (argIt != kc.argIndex.end())
      return t.load(kc.inParams[argIt->second], offs, mask, elem, pad);
    DenseMap<Value, Value> tiles;
    SmallVector<Value> idx;
    std::function<FailureOr<Value>(Value)> eval = [&](Value v) -> FailureOr<Value> {
      if (auto it = tiles.find(v); it != tiles.end())
        return it->second;
      Operation *def = v.getDefiningOp();
      FailureOr<Value> r = failure();
      auto vt = cast<RankedTensorType>(v.getType());
      if (def && def->getBlock() == &body) {
        SmallVector<Value> ins;
        for (Value o : def->getOperands()) {
          auto in = eval(o);
          if (failed(in))
            return failure();
          ins.push_back(*in);
        }
        r = emitElementwise(t, def, ins);
      } else if (auto a = kc.argIndex.find(v); a != kc.argIndex.end() && vt.getShape() == shape) {
        r = t.load(kc.inParams[a->second], offs, mask, computeType(vt.getElementType()));
      } else {
        if (idx.empty())
          idx = t.delinearize(offs, shape);
        r = loadOperand(t, kc, v, shape, idx, mask);
      }
      if (succeeded(r))
        tiles[v] = *r;
      return r;
    };
    auto x = eval(rowIn);
    if (failed(x)) {
      rowStatus = failure();
      return t.splatF(elem, pad);
    }
    return t.b.create<arith::SelectOp>(loc, mask, *x, t.splatF(elem, pad));
  };
  // The row's elements [start, start + block) (start: an i32 scalar, or none for 0): their
  // offsets and mask, and x loaded there (masked lanes: -inf for softmax, 0 for layer_norm).
  struct Chunk {
    Value offs, mask, x;
  };
  auto loadChunk = [&](TileBuilder &t, Value start) -> Chunk {
    OpBuilder &cb = t.b;
    Value cols = t.range(block);
    if (start)
      cols = cb.create<arith::AddIOp>(loc, t.splat(start), cols);
    Value mask = cb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, cols, t.splatI32(R));
    Value offs = cb.create<arith::AddIOp>(
        loc, t.splat(base),
        inner == 1 ? cols : cb.create<arith::MulIOp>(loc, cols, t.splatI32(inner)).getResult());
    Value x = loadRowInput(t, offs, mask, ln ? 0.0 : -inf);
    return {offs, mask, x};
  };
  auto scalarT = RankedTensorType::get({}, elem);
  auto scalar = [&](double v) -> Value {
    return b.create<tl::SplatOp>(loc, scalarT,
                                 b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, v)));
  };
  // A scalar tile broadcast to the block, and a tile reduced to a scalar tile (of their
  // operand's element type: the compute type, or layer_norm's statistics type).
  auto bcast = [&](TileBuilder &t, Value s) -> Value {
    Type et = cast<RankedTensorType>(s.getType()).getElementType();
    Value e = t.b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get({1}, et), s,
                                           t.b.getI32IntegerAttr(0));
    return t.b.create<tl::BroadcastOp>(loc, t.tileOf(et), e);
  };
  auto reduce = [&](Value v, tl::ReduceKind kind) -> Value {
    Type et = cast<RankedTensorType>(v.getType()).getElementType();
    return b.create<tl::ReduceOp>(loc, RankedTensorType::get({}, et), v, (uint32_t)0, kind);
  };
  // layer_norm's mean and variance accumulate in f64 when the row holds f32 or bf16 (f32's
  // exponent range): the squares of |x| > 1.8e19 overflow f32 and those of |x| < 1e-19
  // underflow, so a row of 1e30 normalized to 0 (inf variance). f16 rows fit f32
  // (65504^2 * 2^31 < 3.4e38). The values are stored back in the compute type.
  Type statT = elem;
  if (ln && (inT.getElementType().isF32() || inT.getElementType().isBF16()))
    statT = b.getF64Type();
  auto scalarOf = [&](Type t, double v) -> Value {
    return b.create<tl::SplatOp>(loc, RankedTensorType::get({}, t),
                                 b.create<arith::ConstantOp>(loc, t, b.getFloatAttr(t, v)));
  };
  auto toStat = [&](OpBuilder &ob, Value v) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getElementType() == statT)
      return v;
    return ob.create<arith::ExtFOp>(loc, RankedTensorType::get(vt.getShape(), statT), v);
  };
  auto fromStat = [&](OpBuilder &ob, Value v) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getElementType() == elem)
      return v;
    return ob.create<arith::TruncFOp>(loc, RankedTensorType::get(vt.getShape(), elem), v);
  };
  // Scale / bias of layer_norm, the fused consumers (their other operands loaded at the
  // output index), the store.
  auto finish = [&](TileBuilder &t, Value y, const Chunk &c) -> LogicalResult {
    OpBuilder &cb = t.b;
    SmallVector<Value> idx = t.delinearize(c.offs, shape);
    if (ln) {
      for (auto [v, isScale] : {std::pair{ln.getScale(), true}, std::pair{ln.getBias(), false}}) {
        if (!v)
          continue;
        auto p = loadOperand(t, kc, v, shape, idx, c.mask);
        if (failed(p))
          return failure();
        y = isScale ? cb.create<arith::MulFOp>(loc, y, *p).getResult()
                    : cb.create<arith::AddFOp>(loc, y, *p).getResult();
      }
    }
    auto fused = applyEpilogue(t, kc, sm, y, shape, idx, c.mask);
    if (failed(fused))
      return failure();
    // Results: the row op's chain, and possibly the row input itself (a fused producer
    // also used outside the kernel, e.g. the residual stream of add + layer_norm).
    for (auto [k, v] : llvm::enumerate(cast<YieldOp>(body.getTerminator()).getValues()))
      t.store(kc.outParams[k], c.offs, v == rowIn ? c.x : *fused, c.mask);
    return success();
  };

  if (!chunked) {
    Chunk c = loadChunk(tb, Value());
    Value x = c.x;
    Value y;
    if (ln) {
      // mean and biased variance of the row (masked lanes load 0 and are zeroed in d); RMS
      // norm: d = x, the mean square of the row in place of the variance. In statT.
      Value d = toStat(b, x);
      if (!ln.getRms()) {
        Value mean = b.create<arith::DivFOp>(loc, reduce(d, tl::ReduceKind::add),
                                             scalarOf(statT, (double)R));
        d = b.create<arith::SubFOp>(loc, d, bcast(tb, mean));
        d = b.create<arith::SelectOp>(loc, c.mask, d, tb.splatF(statT, 0.0));
      }
      Value sq = reduce(b.create<arith::MulFOp>(loc, d, d), tl::ReduceKind::add);
      Value var = b.create<arith::DivFOp>(loc, sq, scalarOf(statT, (double)R));
      Value denom = b.create<math::SqrtOp>(
          loc, b.create<arith::AddFOp>(loc, var,
                                       scalarOf(statT, ln.getEpsilon().convertToDouble())));
      // One division per row, a multiply per element (in statT: 1 / std may exceed the
      // compute type's range where d * (1 / std) does not).
      y = fromStat(b, b.create<arith::MulFOp>(
                          loc, d, bcast(tb, b.create<arith::DivFOp>(loc, scalarOf(statT, 1.0),
                                                                    denom))));
    } else {
      Value mx = reduce(x, tl::ReduceKind::max);
      Value shifted = b.create<arith::SubFOp>(loc, x, bcast(tb, mx));
      Value e = b.create<math::ExpOp>(loc, shifted);
      Value sum = reduce(e, tl::ReduceKind::add);
      y = isLog ? b.create<arith::SubFOp>(loc, shifted, bcast(tb, b.create<math::LogOp>(loc, sum)))
                      .getResult()
                : b.create<arith::MulFOp>(loc, e, bcast(tb, b.create<arith::DivFOp>(loc, scalar(1.0), sum)))
                      .getResult();
    }
    if (failed(finish(tb, y, c)) || failed(rowStatus))
      return failure();
    b.create<func::ReturnOp>(loc);
    return kc.kernel;
  }

  // Chunked row. The final pass (no carried values) computes y from a chunk and stores it.
  LogicalResult status = success();
  auto writePass = [&](function_ref<Value(TileBuilder &, Value)> compute) {
    chunkLoop(b, loc, R, block, {}, [&](OpBuilder &lb, Value k, ValueRange) {
      TileBuilder lt{lb, loc, {block}};
      Chunk c = loadChunk(lt, k);
      if (failed(finish(lt, compute(lt, c.x), c)))
        status = failure();
      return SmallVector<Value>{};
    });
  };
  if (ln) {
    // One statistics pass. Layer norm: per-lane sums of d = x - K and d^2 with K the row's
    // first element (the shifted-data variance, Chan, Golub & LeVeque, "Algorithms for
    // computing the sample variance", 1983: var = E[d^2] - E[d]^2 does not cancel
    // catastrophically once the data are centred near their mean); RMS norm: the sum of x^2.
    Value shift;
    if (!ln.getRms()) {
      TileBuilder one{b, loc, {1}}; // the row's first element, as a 1-element tile
      Value k = one.load(kc.inParams[argIt->second], one.splat(base), Value(), elem, 0.0);
      shift = bcast(tb, b.create<tl::ReduceOp>(loc, scalarT, k, (uint32_t)0, tl::ReduceKind::add));
    }
    // The sums accumulate in statT.
    auto statLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(statT, 0.0), tb.splatF(statT, 0.0)},
        [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          Chunk c = loadChunk(lt, k); // masked lanes load 0
          Value d = c.x;
          if (shift)
            d = lb.create<arith::SelectOp>(loc, c.mask, lb.create<arith::SubFOp>(loc, c.x, shift),
                                           lt.splatF(elem, 0.0));
          d = toStat(lb, d);
          return SmallVector<Value>{lb.create<arith::AddFOp>(loc, acc[0], d),
                                    lb.create<arith::AddFOp>(loc, acc[1], lb.create<arith::MulFOp>(loc, d, d))};
        });
    Value n = scalarOf(statT, (double)R);
    Value meanSq = b.create<arith::DivFOp>(
        loc, reduce(statLoop.getResult(1), tl::ReduceKind::add), n);
    Value var = meanSq, meanT;
    if (shift) {
      Value meanD = b.create<arith::DivFOp>(loc, reduce(statLoop.getResult(0), tl::ReduceKind::add), n);
      var = b.create<arith::MaximumFOp>(
          loc, b.create<arith::SubFOp>(loc, meanSq, b.create<arith::MulFOp>(loc, meanD, meanD)),
          scalarOf(statT, 0.0));
      meanT = b.create<arith::AddFOp>(loc, shift, bcast(tb, fromStat(b, meanD)));
    }
    Value denom = b.create<math::SqrtOp>(
        loc, b.create<arith::AddFOp>(loc, var, scalarOf(statT, ln.getEpsilon().convertToDouble())));
    // 1 / std in the compute type: above its range only for a row whose std is below 3e-39
    // (with epsilon 0), which the chunked path does not cover (docs/numerics.md).
    Value invT = bcast(tb, fromStat(b, b.create<arith::DivFOp>(loc, scalarOf(statT, 1.0), denom)));
    writePass([&](TileBuilder &lt, Value x) -> Value {
      Value d = meanT ? lt.b.create<arith::SubFOp>(loc, x, meanT).getResult() : x;
      return lt.b.create<arith::MulFOp>(loc, d, invT);
    });
  } else {
    // Online normalizer (Milakov & Gimelshein, "Online normalizer calculation for softmax",
    // 2018): one pass carries the running row max m (a scalar: each chunk's max is reduced
    // across the lanes) and per-lane sums s of exp(x - m), rescaled by exp(m_old - m) when m
    // grows; then S = sum(s). Carrying m as a scalar keeps the loop's tiles updated in place
    // (the CPU path's one-shot bufferization needs each yielded tile to be its iter arg's
    // last use). While m is -inf (only masked or -inf elements so far) nothing is added and
    // s is not rescaled, never exp(-inf + inf).
    Value zero = tb.splatF(elem, 0.0);
    Value mInit = b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, -inf));
    auto onlineLoop = chunkLoop(
        b, loc, R, block, {mInit, zero}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          Value x = loadChunk(lt, k).x;
          Value cm = lb.create<tensor::ExtractOp>(
              loc, lb.create<tl::ReduceOp>(loc, scalarT, x, (uint32_t)0, tl::ReduceKind::max),
              ValueRange{});
          Value m = acc[0];
          Value mNew = lb.create<arith::MaximumFOp>(loc, m, cm);
          Value negInfS = lb.create<arith::ConstantOp>(loc, elem, lb.getFloatAttr(elem, -inf));
          Value none = lb.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, mNew, negInfS);
          Value one = lb.create<arith::ConstantOp>(loc, elem, lb.getFloatAttr(elem, 1.0));
          Value alpha = lb.create<arith::SelectOp>(
              loc, none, one, lb.create<math::ExpOp>(loc, lb.create<arith::SubFOp>(loc, m, mNew)));
          Value e = lb.create<math::ExpOp>(loc, lb.create<arith::SubFOp>(loc, x, lt.splat(mNew)));
          e = lb.create<arith::SelectOp>(loc, none, lt.splatF(elem, 0.0), e);
          Value sNew = lb.create<arith::AddFOp>(
              loc, lb.create<arith::MulFOp>(loc, acc[1], lt.splat(alpha)), e);
          return SmallVector<Value>{mNew, sNew};
        });
    Value mxT = tb.splat(onlineLoop.getResult(0));
    Value sum = reduce(onlineLoop.getResult(1), tl::ReduceKind::add);
    Value normT = bcast(tb, isLog ? b.create<math::LogOp>(loc, sum).getResult()
                                  : b.create<arith::DivFOp>(loc, scalar(1.0), sum).getResult());
    writePass([&](TileBuilder &lt, Value x) -> Value {
      Value shifted = lt.b.create<arith::SubFOp>(loc, x, mxT);
      if (isLog)
        return lt.b.create<arith::SubFOp>(loc, shifted, normT);
      return lt.b.create<arith::MulFOp>(loc, lt.b.create<math::ExpOp>(loc, shifted), normT);
    });
  }
  if (failed(status) || failed(rowStatus))
    return failure();
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

/// The dims of a reduce's input split into kept and reduced ones (`axes` empty: all
/// reduced), each with its row-major stride in the input.
struct ReducedDims {
  SmallVector<int64_t> keptShape, keptStr, redShape, redStr;
};

ReducedDims splitReducedDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(shape.size(), axes.empty());
  for (int64_t a : axes)
    reduced[a] = true;
  auto strides = rowMajorStrides(shape);
  ReducedDims rd;
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced[d] ? rd.redShape : rd.keptShape).push_back(shape[d]);
    (reduced[d] ? rd.redStr : rd.keptStr).push_back(strides[d]);
  }
  return rd;
}

/// i32 offset in the input of output element `pid`'s kept coordinates (row-major over the
/// kept dims), for one-program-per-output reduction kernels.
Value keptBaseOffset(TileBuilder &tb, Value pid, const ReducedDims &rd) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  Value base = tb.i32(0);
  auto ks = rowMajorStrides(rd.keptShape);
  for (size_t d = 0; d < rd.keptShape.size(); ++d) {
    Value q = ks[d] == 1 ? pid : b.create<arith::DivSIOp>(loc, pid, tb.i32(ks[d])).getResult();
    if (d != 0)
      q = b.create<arith::RemSIOp>(loc, q, tb.i32(rd.keptShape[d]));
    base = b.create<arith::AddIOp>(loc, base, b.create<arith::MulIOp>(loc, q, tb.i32(rd.keptStr[d])));
  }
  return base;
}

//===----------------------------------------------------------------------===//
// Reduction template, two kernels by layout (all tiles 1-D):
// - column (buildColumnReduction): the innermost non-unit dims are kept ones (at least
//   kColumnMinInner elements): one program per BLOCK consecutive outputs, an scf.for over
//   the reduced index loading BLOCK consecutive (coalesced) elements per step, accumulated
//   per lane; no cross-lane reduction.
// - otherwise one program per output element. Up to kMaxReduction reduced elements are held
//   in one tile; more are read in chunks of kChunk elements by an scf.for that accumulates a
//   per-lane running partial (sum / product / max / min; the padding of masked lanes is the
//   identity), reduced across the lanes after the loop.
// Mean divides at the end; 16-bit floats accumulate in f32. A fusion group lowers to one
// kernel, so a reduction with few outputs and a long reduced extent (a whole-tensor sum)
// is split into partials + a final reduction at the graph level (graph-split-reduction).
//===----------------------------------------------------------------------===//

/// The reduce kind and the identity (masked lanes' padding) of graph reduction `red`.
std::pair<tl::ReduceKind, double> reduceKindOf(Operation *red) {
  double inf = std::numeric_limits<double>::infinity();
  if (isa<ReduceMaxOp>(red))
    return {tl::ReduceKind::max, -inf};
  if (isa<ReduceMinOp>(red))
    return {tl::ReduceKind::min, inf};
  if (isa<ReduceProdOp>(red))
    return {tl::ReduceKind::mul, 1.0};
  return {tl::ReduceKind::add, 0.0};
}

/// The column kernel is used when at least this many kept elements are innermost (one warp
/// of lanes); fewer take the per-output kernel (strided loads of a few columns beat a loop
/// of mostly idle lanes). It covers up to kColumnBlock of them per program and step. Both
/// are mirrored in graph-split-reduction's program count (GraphSplitReduction.cpp).
constexpr int64_t kColumnMinInner = 32;
constexpr int64_t kColumnBlock = 256;
/// Reduced positions loaded per iteration of the column loop (independent loads in flight).
constexpr int64_t kColumnUnroll = 4;

/// A reduction group's body (GraphFuse formReductions): sibling reduce ops with one input
/// shape, axes and keepdims; the elementwise prologue that computes their inputs per input
/// element; the elementwise epilogue over the output shape that follows them.
struct ReductionBody {
  SmallVector<Operation *> reds, prologue, epilogue; // body order
  RankedTensorType inT;
  SmallVector<int64_t> outShape;
  ArrayRef<int64_t> axes;
};

FailureOr<ReductionBody> analyzeReductionBody(FusionGroupOp group) {
  ReductionBody rb;
  Block &body = group.getBody().front();
  for (Operation &op : body)
    if (isReduction(&op))
      rb.reds.push_back(&op);
  if (rb.reds.empty())
    return group.emitError("reduction group holds no reduce op"), failure();
  Operation *r0 = rb.reds.front();
  rb.inT = cast<RankedTensorType>(r0->getOperand(0).getType());
  rb.outShape = llvm::to_vector(cast<RankedTensorType>(r0->getResult(0).getType()).getShape());
  rb.axes = r0->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  for (Operation *r : rb.reds) {
    auto t = cast<RankedTensorType>(r->getOperand(0).getType());
    if (t.getShape() != rb.inT.getShape() || r->getAttr("axes") != r0->getAttr("axes") ||
        r->getAttr("keepdims") != r0->getAttr("keepdims"))
      return r->emitError("sibling reductions in one kernel need one input shape, axes and "
                          "keepdims"),
             failure();
    if (!isa<FloatType>(computeType(t.getElementType())))
      return r->emitError("the reduction template supports float inputs only, got ")
                 << t.getElementType(),
             failure();
  }
  // Prologue: the body ops the reduce inputs depend on.
  llvm::SmallPtrSet<Operation *, 8> pro;
  SmallVector<Value> work;
  for (Operation *r : rb.reds)
    work.push_back(r->getOperand(0));
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || !pro.insert(d).second)
      continue;
    if (!isElementwise(d) || d->getNumResults() != 1 ||
        cast<RankedTensorType>(d->getResult(0).getType()).getShape() != rb.inT.getShape())
      return d->emitError("cannot evaluate ") << d->getName()
                                              << " per element in the reduction prologue",
             failure();
    llvm::append_range(work, d->getOperands());
  }
  for (Operation &op : body) {
    if (isa<YieldOp>(op) || isReduction(&op))
      continue;
    if (pro.count(&op)) {
      rb.prologue.push_back(&op);
      continue;
    }
    if (!isElementwise(&op) || op.getNumResults() != 1 ||
        cast<RankedTensorType>(op.getResult(0).getType()).getShape() !=
            ArrayRef<int64_t>(rb.outShape) ||
        llvm::any_of(op.getOperands(), [&](Value v) {
          return v.getDefiningOp() && pro.count(v.getDefiningOp());
        }))
      return op.emitError("cannot fuse ") << op.getName()
                                          << " into this reduction kernel's epilogue",
             failure();
    rb.epilogue.push_back(&op);
  }
  for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
    if (!v.getDefiningOp() || pro.count(v.getDefiningOp()))
      return group.emitError("a reduction kernel's results are its reductions and their "
                             "epilogue"),
             failure();
  if (rb.inT.getNumElements() >= (int64_t(1) << 31))
    return r0->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  return rb;
}

/// The reduce ops' inputs at the input elements of row-major offsets `offs` (under `mask`):
/// kernel inputs of the input's shape are loaded at `offs`, broadcast ones (a bias) at the
/// element's indices, then the prologue is evaluated. With `padMasked`, masked lanes hold
/// each reduction's identity (the per-output kernel reduces across lanes).
FailureOr<SmallVector<Value>> evalReduceInputs(TileBuilder &t, KernelContext &kc,
                                               const ReductionBody &rb, Value offs, Value mask,
                                               bool padMasked) {
  DenseMap<Value, Value> tiles;
  DenseMap<Value, double> loadedPad;
  SmallVector<Value> idx;
  bool haveIdx = false;
  auto leaf = [&](Value v, double pad) -> FailureOr<Value> {
    if (auto f = tiles.find(v); f != tiles.end())
      return f->second;
    auto vt = cast<RankedTensorType>(v.getType());
    FailureOr<Value> r;
    auto it = kc.argIndex.find(v);
    if (it != kc.argIndex.end() && vt.getShape() == rb.inT.getShape()) {
      r = t.load(kc.inParams[it->second], offs, mask, computeType(vt.getElementType()), pad);
      loadedPad[v] = pad;
    } else {
      if (!haveIdx)
        idx = t.delinearize(offs, rb.inT.getShape());
      haveIdx = true;
      r = loadOperand(t, kc, v, rb.inT.getShape(), idx, mask);
    }
    if (succeeded(r))
      tiles[v] = *r;
    return r;
  };
  // Direct inputs first, padded with their reduction's identity.
  for (Operation *r : rb.reds)
    if (isa<BlockArgument>(r->getOperand(0)) &&
        failed(leaf(r->getOperand(0), reduceKindOf(r).second)))
      return failure();
  for (Operation *op : rb.prologue) {
    SmallVector<Value> ins;
    for (Value o : op->getOperands()) {
      auto f = tiles.find(o);
      FailureOr<Value> in = f != tiles.end() ? FailureOr<Value>(f->second) : leaf(o, 0.0);
      if (failed(in))
        return failure();
      ins.push_back(*in);
    }
    auto r = emitElementwise(t, op, ins);
    if (failed(r))
      return failure();
    tiles[op->getResult(0)] = *r;
  }
  SmallVector<Value> xs;
  for (Operation *r : rb.reds) {
    Value in = r->getOperand(0);
    Value x = tiles.lookup(in);
    double pad = reduceKindOf(r).second;
    auto lp = loadedPad.find(in);
    if (padMasked && mask && (lp == loadedPad.end() || lp->second != pad)) {
      Type elem = cast<RankedTensorType>(x.getType()).getElementType();
      x = t.b.create<arith::SelectOp>(t.loc, mask, x, t.splatF(elem, pad));
    }
    xs.push_back(x);
  }
  return xs;
}

/// Applies the epilogue to the reductions' results `redTiles` at the outputs of row-major
/// offsets `outOffs` and stores every group result there (under `mask`).
LogicalResult storeReductionResults(TileBuilder &t, KernelContext &kc, const ReductionBody &rb,
                                    ArrayRef<Value> redTiles, Value outOffs, Value mask) {
  DenseMap<Value, Value> tiles;
  for (auto [r, v] : llvm::zip(rb.reds, redTiles))
    tiles[r->getResult(0)] = v;
  SmallVector<Value> idx;
  bool haveIdx = false;
  for (Operation *op : rb.epilogue) {
    SmallVector<Value> ins;
    for (Value o : op->getOperands()) {
      if (auto f = tiles.find(o); f != tiles.end()) {
        ins.push_back(f->second);
        continue;
      }
      if (!haveIdx)
        idx = t.delinearize(outOffs, rb.outShape);
      haveIdx = true;
      auto loaded = loadOperand(t, kc, o, rb.outShape, idx, mask);
      if (failed(loaded))
        return failure();
      ins.push_back(*loaded);
    }
    auto r = emitElementwise(t, op, ins);
    if (failed(r))
      return failure();
    tiles[op->getResult(0)] = *r;
  }
  auto yield = cast<YieldOp>(kc.group.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    t.store(kc.outParams[i], outOffs, tiles.lookup(v), mask);
  return success();
}

/// Mean divides the sum by the reduced count `n`.
Value finishReduction(OpBuilder &b, Location loc, Operation *red, Value acc, int64_t n) {
  if (!isa<ReduceMeanOp>(red))
    return acc;
  auto t = cast<RankedTensorType>(acc.getType());
  Value c = b.create<arith::ConstantOp>(loc, t.getElementType(),
                                        b.getFloatAttr(t.getElementType(), (double)n));
  return b.create<arith::DivFOp>(loc, acc, b.create<tl::SplatOp>(loc, t, c));
}

/// Column reductions: the innermost non-unit dims of the input are kept ones (a block of
/// `inner` consecutive elements, contiguous in memory, each one output). One program per
/// BLOCK consecutive outputs of that block (and per index of the other kept dims); an
/// scf.for over the reduced index loads BLOCK consecutive input elements per step
/// (coalesced), evaluates the prologue and accumulates every sibling reduction per lane,
/// so no cross-lane reduction is needed; mean divides by the count at the end, then the
/// epilogue runs and each result is stored. Returns a null func when the layout is not a
/// column one (the caller then builds the per-output kernel).
FailureOr<func::FuncOp> buildColumnReduction(OpBuilder &builder, FusionGroupOp group,
                                             const ReductionBody &rb, StringRef name) {
  ArrayRef<int64_t> shape = rb.inT.getShape();
  ArrayRef<int64_t> axes = rb.axes;
  SmallVector<bool> reduced(shape.size(), axes.empty());
  for (int64_t a : axes)
    reduced[a] = true;
  // Non-unit dims, adjacent dims of the same kind merged (row-major: the outer one's stride
  // is the inner one's times its size).
  struct Dim {
    int64_t size, stride;
    bool reduced;
  };
  SmallVector<Dim> dims;
  auto strides = rowMajorStrides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (!dims.empty() && dims.back().reduced == reduced[d]) {
      dims.back().size *= shape[d];
      dims.back().stride = strides[d];
    } else {
      dims.push_back({shape[d], strides[d], (bool)reduced[d]});
    }
  }
  if (dims.size() < 2 || dims.back().reduced || dims.back().size < kColumnMinInner)
    return func::FuncOp();
  int64_t inner = dims.back().size;
  SmallVector<int64_t> outerShape, outerStr, redShape, redStr;
  for (const Dim &d : ArrayRef<Dim>(dims).drop_back()) {
    (d.reduced ? redShape : outerShape).push_back(d.size);
    (d.reduced ? redStr : outerStr).push_back(d.stride);
  }
  int64_t R = numElements(redShape), outer = numElements(outerShape);
  int64_t block = std::min<int64_t>(kColumnBlock, llvm::PowerOf2Ceil(inner));
  int64_t nb = (inner + block - 1) / block;
  int64_t warps = std::max<int64_t>(1, block / 64);
  Operation *red0 = rb.reds.front();
  KernelContext kc = makeKernel(builder, group, name, {outer * nb, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = red0->getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value ob = nb == 1 ? pid : b.create<arith::DivSIOp>(loc, pid, tb.i32(nb)).getResult();
  Value ib = nb == 1 ? tb.i32(0) : b.create<arith::RemSIOp>(loc, pid, tb.i32(nb)).getResult();
  // Scalar offset sum_d ((v / s_d) % n_d) * str_d of the row-major index v over `dimsShape`.
  auto scalarOffset = [&](OpBuilder &sb, Value v, ArrayRef<int64_t> dimsShape,
                          ArrayRef<int64_t> dimsStr) -> Value {
    auto c = [&](int64_t x) { return sb.create<arith::ConstantIntOp>(loc, sb.getI32Type(), x); };
    auto s = rowMajorStrides(dimsShape);
    Value acc;
    for (size_t d = 0; d < dimsShape.size(); ++d) {
      Value q = s[d] == 1 ? v : sb.create<arith::DivSIOp>(loc, v, c(s[d])).getResult();
      if (d != 0)
        q = sb.create<arith::RemSIOp>(loc, q, c(dimsShape[d]));
      Value term = sb.create<arith::MulIOp>(loc, q, c(dimsStr[d]));
      acc = acc ? sb.create<arith::AddIOp>(loc, acc, term).getResult() : term;
    }
    return acc ? acc : c(0);
  };
  // Lanes: the outputs ib * BLOCK + [0, BLOCK) of the inner block.
  Value lane = b.create<arith::AddIOp>(
      loc, tb.splat(b.create<arith::MulIOp>(loc, ib, tb.i32(block))), tb.range(block));
  Value mask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, lane, tb.splatI32(inner));
  Value base = scalarOffset(b, ob, outerShape, outerStr);
  Value inOffs = isConstantIntValue(base, 0)
                     ? lane
                     : b.create<arith::AddIOp>(loc, tb.splat(base), lane).getResult();
  size_t n = rb.reds.size();
  // Loops over reduced positions [lo, hi), `unroll` loads per iteration.
  auto loadAt = [&](OpBuilder &lb, Value r) -> FailureOr<SmallVector<Value>> {
    TileBuilder lt{lb, loc, {block}};
    Value offs = lb.create<arith::AddIOp>(loc, inOffs,
                                          lt.splat(scalarOffset(lb, r, redShape, redStr)));
    return evalReduceInputs(lt, kc, rb, offs, mask, /*padMasked=*/false);
  };
  bool failedBody = false;
  auto loop = [&](int64_t lo, int64_t hi, int64_t unroll, SmallVector<Value> init) {
    if (hi <= lo || failedBody)
      return init;
    Value cl = b.create<arith::ConstantIndexOp>(loc, lo);
    Value ch = b.create<arith::ConstantIndexOp>(loc, hi);
    Value cs = b.create<arith::ConstantIndexOp>(loc, unroll);
    auto f = b.create<scf::ForOp>(
        loc, cl, ch, cs, ValueRange(init), [&](OpBuilder &lb, Location l, Value iv, ValueRange acc) {
          Value r = lb.create<arith::IndexCastOp>(l, lb.getI32Type(), iv);
          SmallVector<SmallVector<Value>> xs(n); // per reduction, per unrolled step
          for (int64_t u = 0; u < unroll; ++u) {
            Value ru = u == 0 ? r
                              : lb.create<arith::AddIOp>(
                                      l, r, lb.create<arith::ConstantIntOp>(l, lb.getI32Type(), u))
                                    .getResult();
            auto step = loadAt(lb, ru);
            if (failed(step)) {
              failedBody = true;
              lb.create<scf::YieldOp>(l, acc);
              return;
            }
            for (size_t i = 0; i < n; ++i)
              xs[i].push_back((*step)[i]);
          }
          SmallVector<Value> next;
          for (size_t i = 0; i < n; ++i) {
            // Pairwise combine of the loads, then into the running partial.
            tl::ReduceKind kind = reduceKindOf(rb.reds[i]).first;
            SmallVector<Value> &x = xs[i];
            while (x.size() > 1) {
              SmallVector<Value> half;
              for (size_t j = 0; j + 1 < x.size(); j += 2)
                half.push_back(combineTiles(lb, l, kind, x[j], x[j + 1]));
              if (x.size() % 2)
                half.push_back(x.back());
              x = half;
            }
            next.push_back(combineTiles(lb, l, kind, acc[i], x[0]));
          }
          lb.create<scf::YieldOp>(l, next);
        });
    return SmallVector<Value>(f.getResults());
  };
  SmallVector<Value> init;
  for (Operation *r : rb.reds)
    init.push_back(tb.splatF(computeType(getElementTypeOrSelf(r->getOperand(0).getType())),
                             reduceKindOf(r).second));
  int64_t main = R / kColumnUnroll * kColumnUnroll;
  SmallVector<Value> acc = loop(0, main, kColumnUnroll, init);
  acc = loop(main, R, 1, acc);
  if (failedBody)
    return failure();
  for (size_t i = 0; i < n; ++i)
    acc[i] = finishReduction(b, loc, rb.reds[i], acc[i], R);
  // Output index: the outer kept index * inner + the lane's (row-major over the kept dims).
  Value outOffs = b.create<arith::AddIOp>(
      loc, tb.splat(b.create<arith::MulIOp>(loc, ob, tb.i32(inner))), lane);
  if (failed(storeReductionResults(tb, kc, rb, acc, outOffs, mask)))
    return failure();
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

FailureOr<func::FuncOp> buildReduction(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  FailureOr<ReductionBody> analyzed = analyzeReductionBody(group);
  if (failed(analyzed))
    return failure();
  const ReductionBody &rb = *analyzed;
  Operation *red0 = rb.reds.front();
  ArrayRef<int64_t> shape = rb.inT.getShape();
  ReducedDims rd = splitReducedDims(shape, rb.axes);
  const SmallVector<int64_t> &keptShape = rd.keptShape, &redShape = rd.redShape, &redStr = rd.redStr;
  int64_t R = numElements(redShape), O = numElements(keptShape);
  if (FailureOr<func::FuncOp> column = buildColumnReduction(builder, group, rb, name);
      failed(column) || *column)
    return column;
  bool chunked = R > kMaxReduction;
  int64_t block = chunked ? kChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  int64_t warps = std::min<int64_t>(8, std::max<int64_t>(1, block / 256));
  KernelContext kc = makeKernel(builder, group, name, {O, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = red0->getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  // Scalar base offset of this output element's kept coordinates.
  Value base = keptBaseOffset(tb, pid, rd);
  // The reduced elements [start, start + block) in row-major order over the reduced dims
  // (start: an i32 scalar, or none for 0), masked lanes padded with the identity.
  bool padMasked = R % block != 0;
  auto loadChunk = [&](TileBuilder &t, Value start) -> FailureOr<SmallVector<Value>> {
    Value r = t.range(block);
    if (start)
      r = t.b.create<arith::AddIOp>(loc, t.splat(start), r);
    Value mask = t.b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, t.splatI32(R));
    SmallVector<Value> ridx = t.delinearize(r, redShape);
    Value offs = t.offsets(ridx, redStr, base);
    return evalReduceInputs(t, kc, rb, offs, mask, padMasked);
  };
  size_t n = rb.reds.size();
  SmallVector<Value> xs;
  if (!chunked) {
    auto loaded = loadChunk(tb, Value());
    if (failed(loaded))
      return failure();
    xs = *loaded;
  } else {
    SmallVector<Value> init;
    for (Operation *r : rb.reds)
      init.push_back(tb.splatF(computeType(getElementTypeOrSelf(r->getOperand(0).getType())),
                               reduceKindOf(r).second));
    bool failedBody = false;
    auto loop = chunkLoop(b, loc, R, block, init, [&](OpBuilder &lb, Value k, ValueRange acc) {
      TileBuilder lt{lb, loc, {block}};
      auto loaded = loadChunk(lt, k);
      if (failed(loaded)) {
        failedBody = true;
        return SmallVector<Value>(acc);
      }
      SmallVector<Value> next;
      for (size_t i = 0; i < n; ++i)
        next.push_back(
            combineTiles(lb, loc, reduceKindOf(rb.reds[i]).first, acc[i], (*loaded)[i]));
      return next;
    });
    if (failedBody)
      return failure();
    xs = SmallVector<Value>(loop.getResults());
  }
  SmallVector<Value> outs;
  for (size_t i = 0; i < n; ++i) {
    Type elem = cast<RankedTensorType>(xs[i].getType()).getElementType();
    Value v = b.create<tl::ReduceOp>(loc, RankedTensorType::get({}, elem), xs[i], (uint32_t)0,
                                     reduceKindOf(rb.reds[i]).first);
    v = finishReduction(b, loc, rb.reds[i], v, R);
    outs.push_back(b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get({1}, elem), v,
                                              b.getI32IntegerAttr(0)));
  }
  TileBuilder t1{b, loc, {1}};
  if (failed(storeReductionResults(t1, kc, rb, outs, t1.splat(pid), Value())))
    return failure();
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// LogSumExp row template: y = m + log(sum(exp(x - m))), m = max(x) over `axes` (ONNX
// ReduceLogSumExp, decomposed by the importer into reduce_max, sub, exp, reduce_sum, log,
// add, m clamped to the finite range by a clip; GraphFuse groups that chain as one row
// kernel). One program per output element; the reduced elements are held in one tile, or
// read in chunks of kChunk by two loops (the max, then the sum of exp(x - max)), as in the
// softmax row template. Masked lanes read -inf and contribute exp(-inf) = 0; the clamped m
// makes an all -inf row -inf (log 0) and a row holding +inf +inf (docs/numerics.md).
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildLogSumExp(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  auto mx = dyn_cast<ReduceMaxOp>(body.front());
  if (!mx || !isa<BlockArgument>(mx.getInput()) || group.getNumResults() != 1)
    return group.emitError("logsumexp group must start with reduce_max of a kernel input and "
                           "have one result"),
           failure();
  auto inT = cast<RankedTensorType>(mx.getInput().getType());
  ArrayRef<int64_t> shape = inT.getShape();
  ReducedDims rd = splitReducedDims(shape, mx.getAxes());
  const SmallVector<int64_t> &keptShape = rd.keptShape, &redShape = rd.redShape, &redStr = rd.redStr;
  int64_t R = numElements(redShape), O = numElements(keptShape);
  if (inT.getNumElements() >= (int64_t(1) << 31))
    return mx->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  Type elem = computeType(inT.getElementType());
  if (!isa<FloatType>(elem))
    return mx->emitError("logsumexp needs a float input"), failure();
  bool chunked = R > kMaxSoftmaxRow;
  int64_t block = chunked ? kChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  int64_t warps = std::min<int64_t>(8, std::max<int64_t>(1, block / 256));
  KernelContext kc = makeKernel(builder, group, name, {O, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = mx.getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value base = keptBaseOffset(tb, pid, rd);
  double inf = std::numeric_limits<double>::infinity();
  // x at the reduced elements [start, start + block), -inf in masked lanes; and the mask.
  auto loadChunk = [&](TileBuilder &t, Value start) -> std::pair<Value, Value> {
    Value r = t.range(block);
    if (start)
      r = t.b.create<arith::AddIOp>(loc, t.splat(start), r);
    Value mask = t.b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, t.splatI32(R));
    SmallVector<Value> ridx = t.delinearize(r, redShape);
    Value offs = t.offsets(ridx, redStr, base);
    return {t.load(kc.inParams[0], offs, mask, elem, -inf), mask};
  };
  auto scalarT = RankedTensorType::get({}, elem);
  auto bcast = [&](TileBuilder &t, Value sc) -> Value {
    Value e = t.b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get({1}, elem), sc,
                                           t.b.getI32IntegerAttr(0));
    return t.b.create<tl::BroadcastOp>(loc, t.tileOf(elem), e);
  };
  // exp(x - max) with masked lanes forced to 0 (x - max is NaN there when max = -inf).
  auto expShifted = [&](TileBuilder &t, std::pair<Value, Value> c, Value mT) -> Value {
    Value e = t.b.create<math::ExpOp>(loc, t.b.create<arith::SubFOp>(loc, c.first, mT));
    return t.b.create<arith::SelectOp>(loc, c.second, e, t.splatF(elem, 0.0));
  };
  // The importer's clip of the max (finite bounds), when the group has it.
  ClipOp clip;
  for (Operation &op : body)
    if (auto c = dyn_cast<ClipOp>(op))
      clip = c;
  auto clampMax = [&](Value mv) -> Value {
    if (!clip)
      return mv;
    auto bound = [&](FloatAttr a) {
      return b.create<tl::SplatOp>(
          loc, scalarT,
          b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, a.getValueAsDouble())));
    };
    if (auto lo = clip.getMinAttr())
      mv = b.create<arith::MaximumFOp>(loc, mv, bound(lo));
    if (auto hi = clip.getMaxAttr())
      mv = b.create<arith::MinimumFOp>(loc, mv, bound(hi));
    return mv;
  };
  Value m, sum;
  if (!chunked) {
    auto c = loadChunk(tb, Value());
    m = clampMax(
        b.create<tl::ReduceOp>(loc, scalarT, c.first, (uint32_t)0, tl::ReduceKind::max));
    sum = b.create<tl::ReduceOp>(loc, scalarT, expShifted(tb, c, bcast(tb, m)), (uint32_t)0,
                                 tl::ReduceKind::add);
  } else {
    auto maxLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(elem, -inf)}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          return SmallVector<Value>{
              lb.create<arith::MaximumFOp>(loc, acc[0], loadChunk(lt, k).first)};
        });
    m = clampMax(b.create<tl::ReduceOp>(loc, scalarT, maxLoop.getResult(0), (uint32_t)0,
                                        tl::ReduceKind::max));
    Value mT = bcast(tb, m);
    auto sumLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(elem, 0.0)}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          return SmallVector<Value>{
              lb.create<arith::AddFOp>(loc, acc[0], expShifted(lt, loadChunk(lt, k), mT))};
        });
    sum = b.create<tl::ReduceOp>(loc, scalarT, sumLoop.getResult(0), (uint32_t)0,
                                 tl::ReduceKind::add);
  }
  // m + log(sum); an empty or all -inf row gives -inf (log 0), not NaN (-inf - -inf).
  Value lg = b.create<math::LogOp>(loc, sum);
  Value mFinite = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::ONE, m,
      b.create<tl::SplatOp>(loc, scalarT,
                            b.create<arith::ConstantOp>(loc, elem, b.getFloatAttr(elem, -inf))));
  Value y = b.create<arith::SelectOp>(loc, mFinite, b.create<arith::AddFOp>(loc, m, lg).getResult(),
                                      lg);
  TileBuilder t1{b, loc, {1}};
  Value y1 = b.create<tl::ExpandDimsOp>(loc, RankedTensorType::get({1}, elem), y,
                                        b.getI32IntegerAttr(0));
  t1.store(kc.outParams[0], t1.splat(pid), y1, Value());
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// Window template (conv, max / average pool): 1-D programs over the output elements, a
// loop over the window (and, for conv, the input channels of the group) accumulating in
// registers; out-of-range input positions are masked (padding).
//===----------------------------------------------------------------------===//
std::string whyNotImplicitGemm(ConvOp conv);
FailureOr<func::FuncOp> buildWindow(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  Operation *anchor = &body.front();
  auto conv = dyn_cast<ConvOp>(anchor);
  auto maxPool = dyn_cast<MaxPoolOp>(anchor);
  if (conv && conv.isChannelsLast())
    return conv.emitError("NHWC conv: only the implicit-GEMM template takes channels-last "
                          "convs, and it cannot take this one: ")
               << whyNotImplicitGemm(conv),
           failure();
  auto avgPool = dyn_cast<AvgPoolOp>(anchor);
  if (!conv && !maxPool && !avgPool)
    return anchor->emitError("window group must start with conv or a pool"), failure();
  Value xV = anchor->getOperand(0);
  auto xT = cast<RankedTensorType>(xV.getType());
  auto outT = cast<RankedTensorType>(anchor->getResult(0).getType());
  if (!isa<BlockArgument>(xV) || (conv && !isa<BlockArgument>(conv.getWeight())))
    return anchor->emitError("window operands must be kernel inputs"), failure();
  int64_t k = xT.getRank() - 2, C = xT.getDimSize(1), M = outT.getDimSize(1);
  SmallVector<int64_t> kernel, strides, pads, dil;
  if (conv) {
    auto wt = conv.getWeight().getType();
    kernel.assign(wt.getShape().begin() + 2, wt.getShape().end());
    strides.assign(conv.getStrides().begin(), conv.getStrides().end());
    pads.assign(conv.getPads().begin(), conv.getPads().end());
    dil.assign(conv.getDilations().begin(), conv.getDilations().end());
  } else {
    auto get = [&](StringRef n) {
      auto a = anchor->getAttrOfType<DenseI64ArrayAttr>(n).asArrayRef();
      return SmallVector<int64_t>(a.begin(), a.end());
    };
    kernel = get("kernel_shape");
    strides = get("strides");
    pads = get("pads");
    dil = get("dilations");
  }
  int64_t kw = numElements(kernel);
  int64_t G = conv ? conv.getGroup() : 1, Cg = C / G, Mg = M / G;
  int64_t K = conv ? Cg * kw : kw;
  int64_t numel = outT.getNumElements();
  for (int64_t n : {xT.getNumElements(), numel})
    if (n >= (int64_t(1) << 31))
      return anchor->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  int64_t block = std::min<int64_t>(256, std::max<int64_t>(32, llvm::PowerOf2Ceil(numel)));
  KernelContext kc = makeKernel(builder, group, name, {(numel + block - 1) / block, 1, 1}, 4,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = anchor->getLoc();
  TileBuilder tb{b, loc, {block}};
  Type elem = computeType(xT.getElementType());
  if (!isa<FloatType>(elem))
    return anchor->emitError("the window template supports float inputs only, got ")
               << xT.getElementType(),
           failure();
  Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value offs = b.create<arith::AddIOp>(
      loc, tb.splat(b.create<arith::MulIOp>(loc, pid, tb.i32(block))), tb.range(block));
  Value mask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, offs, tb.splatI32(numel));
  ArrayRef<int64_t> outShape = outT.getShape();
  SmallVector<Value> idx = tb.delinearize(offs, outShape);
  double inf = std::numeric_limits<double>::infinity();
  bool countInRange = avgPool && !avgPool.getCountIncludePad();
  SmallVector<Value> init{tb.splatF(elem, maxPool ? -inf : 0.0)};
  if (avgPool)
    init.push_back(tb.splatF(elem, 0.0)); // window positions counted
  Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
  Value cK = b.create<arith::ConstantIndexOp>(loc, K);
  Value c1 = b.create<arith::ConstantIndexOp>(loc, 1);
  auto loop = b.create<scf::ForOp>(loc, c0, cK, c1, init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    TileBuilder lt{lb, loc, {block}};
    auto si = [&](int64_t v) { return lt.i32(v); };
    Value kk = lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), loop.getInductionVar());
    Value cIn = conv ? lb.create<arith::DivSIOp>(loc, kk, si(kw)).getResult() : Value();
    Value r = conv ? lb.create<arith::RemSIOp>(loc, kk, si(kw)).getResult() : kk;
    // Window position per spatial dim (scalars) and input position (tiles).
    Value inb = mask, inPad = mask;
    SmallVector<Value> in;
    int64_t inner = kw;
    for (int64_t d = 0; d < k; ++d) {
      inner /= kernel[d];
      Value kd = lb.create<arith::RemSIOp>(loc, lb.create<arith::DivSIOp>(loc, r, si(inner)),
                                           si(kernel[d]));
      Value shift = lb.create<arith::SubIOp>(loc, lb.create<arith::MulIOp>(loc, kd, si(dil[d])),
                                             si(pads[d]));
      Value pos = lb.create<arith::AddIOp>(
          loc, lb.create<arith::MulIOp>(loc, idx[2 + d], lt.splatI32(strides[d])), lt.splat(shift));
      int64_t I = xT.getDimSize(2 + d);
      auto within = [&](int64_t lo, int64_t hi) -> Value {
        return lb.create<arith::AndIOp>(
            loc, lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, pos, lt.splatI32(lo)),
            lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, pos, lt.splatI32(hi)));
      };
      inb = lb.create<arith::AndIOp>(loc, inb, within(0, I));
      if (avgPool)
        inPad = lb.create<arith::AndIOp>(loc, inPad, within(-pads[d], I + pads[d + k]));
      in.push_back(pos);
    }
    // Input channel: conv reads channel g*Cg + c of its group; pools read channel m.
    Value chan = idx[1];
    if (conv) {
      Value g = lb.create<arith::DivSIOp>(loc, idx[1], lt.splatI32(Mg));
      chan = lb.create<arith::AddIOp>(loc, lb.create<arith::MulIOp>(loc, g, lt.splatI32(Cg)),
                                      lt.splat(cIn));
    }
    Value xo = lb.create<arith::AddIOp>(loc, lb.create<arith::MulIOp>(loc, idx[0], lt.splatI32(C)),
                                        chan);
    for (int64_t d = 0; d < k; ++d)
      xo = lb.create<arith::AddIOp>(
          loc, lb.create<arith::MulIOp>(loc, xo, lt.splatI32(xT.getDimSize(2 + d))), in[d]);
    Value x = lt.load(kc.inParams[kc.argIndex[xV]], xo, inb, elem, maxPool ? -inf : 0.0);
    SmallVector<Value> next;
    if (conv) {
      // W[m, c, kd...]: ((m * Cg + c) * kw + r).
      Value wo = lb.create<arith::AddIOp>(
          loc,
          lb.create<arith::MulIOp>(
              loc, lb.create<arith::AddIOp>(loc, lb.create<arith::MulIOp>(loc, idx[1], lt.splatI32(Cg)),
                                            lt.splat(cIn)),
              lt.splatI32(kw)),
          lt.splat(r));
      Value w = lt.load(kc.inParams[kc.argIndex[conv.getWeight()]], wo, mask, elem);
      next.push_back(lb.create<arith::AddFOp>(loc, loop.getRegionIterArg(0),
                                              lb.create<arith::MulFOp>(loc, x, w)));
    } else if (maxPool) {
      next.push_back(lb.create<arith::MaximumFOp>(loc, loop.getRegionIterArg(0), x));
    } else {
      next.push_back(lb.create<arith::AddFOp>(loc, loop.getRegionIterArg(0), x));
      Value counted = countInRange ? inb : inPad;
      next.push_back(lb.create<arith::AddFOp>(
          loc, loop.getRegionIterArg(1),
          lb.create<arith::UIToFPOp>(loc, lt.tileOf(elem), counted)));
    }
    lb.create<scf::YieldOp>(loc, next);
  }
  Value acc = loop.getResult(0);
  if (avgPool)
    acc = b.create<arith::DivFOp>(loc, acc, loop.getResult(1));
  if (conv && conv.getBias()) {
    auto bias = loadOperand(tb, kc, conv.getBias(), {M}, {idx[1]}, mask);
    if (failed(bias))
      return failure();
    acc = b.create<arith::AddFOp>(loc, acc, *bias);
  }
  auto fused = applyEpilogue(tb, kc, anchor, acc, outShape, idx, mask);
  if (failed(fused))
    return failure();
  tb.store(kc.outParams[0], offs, *fused, mask);
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// Implicit-GEMM convolution template (2-D, group 1): the convolution as the GEMM
// Y[P, M] = A[P, K] x W^T, P = N * OH * OW output pixels, K = C * KH * KW, A the input's
// im2col matrix read block by block (tile.im2col_load: never materialized), W the weight as
// its row-major [M, K] matrix (ONNX [M, C, KH, KW], NHWC [M, KH, KW, C]: K contiguous in
// both). The K loop has the matmul template's shape (tile.dot on a [BLOCK_M, BLOCK_K] A block
// and a [BLOCK_K, BLOCK_N] weight block), so the tensor-core lowerings take it; the
// epilogue (bias, fused elementwise ops) runs on the [BLOCK_M pixels, BLOCK_N channels]
// accumulator tile and stores it: NHWC as the [P, M] matrix's block (tile.block_store); NCHW
// on sm_90a, where per-image tiles pay (see the rule below), as the transposed block of its
// image's [M, OH * OW] matrix; other NCHW tiles straddle images and store by offsets.
//===----------------------------------------------------------------------===//

/// Why `conv` cannot run as an implicit GEMM (empty: it can).
std::string whyNotImplicitGemm(ConvOp conv) {
  auto xT = cast<RankedTensorType>(conv.getInput().getType());
  if (xT.getRank() != 4)
    return "not a 2-D convolution";
  if (conv.getGroup() != 1)
    return "group != 1";
  Type e = xT.getElementType();
  if (!e.isF16() && !e.isBF16() && !e.isF32())
    return "element type is not f16, bf16 or f32";
  if (!isa<BlockArgument>(conv.getInput()) || !isa<BlockArgument>(conv.getWeight()))
    return "operands are not kernel inputs";
  for (Type t : {conv.getInput().getType(), conv.getWeight().getType(), conv.getType()})
    if (cast<RankedTensorType>(t).getNumElements() == 0)
      return "an operand or the result is empty (a dimension of size 0)";
  return "";
}

/// Whether the conv group takes the implicit-GEMM template: NHWC convs (the direct window
/// template reads NCHW only), `--conv-algorithm=implicit-gemm`, or auto where a tensor-core
/// lowering takes the GEMM form: sm_90a (wgmma gathers the im2col blocks) with f16 / bf16
/// operands, or f32 under --allow-tf32; sm_80 / sm_90 (mma.sync gathers them too) with f16 /
/// bf16 operands. Elsewhere (the CPU, f32 on sm_80 / sm_90) auto keeps the direct window loop.
bool useImplicitGemm(ConvOp conv, const TemplateOptions &o) {
  if (!whyNotImplicitGemm(conv).empty())
    return false;
  if (conv.isChannelsLast())
    return true;
  if (o.convAlgorithm != "auto")
    return o.convAlgorithm == "implicit-gemm";
  Type e = conv.getInput().getType().getElementType();
  bool half = e.isF16() || e.isBF16();
  if (o.target == "sm_80" || o.target == "sm_90")
    return half;
  return o.target == "sm_90a" && (half || (e.isF32() && o.allowTF32));
}

FailureOr<func::FuncOp> buildConvGemm(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                      const TemplateOptions &options) {
  auto conv = cast<ConvOp>(&group.getBody().front().front());
  if (std::string why = whyNotImplicitGemm(conv); !why.empty())
    return conv.emitError("implicit-GEMM conv template: ") << why, failure();
  Value xV = conv.getInput(), wV = conv.getWeight();
  auto xT = cast<RankedTensorType>(xV.getType()), wT = cast<RankedTensorType>(wV.getType());
  auto yT = cast<RankedTensorType>(conv.getType());
  const bool nhwc = conv.isChannelsLast(); // X [N, H, W, C], W [OC, KH, KW, C], Y [N, OH, OW, OC]
  int64_t N = xT.getDimSize(0), C = xT.getDimSize(nhwc ? 3 : 1);
  int64_t H = xT.getDimSize(nhwc ? 1 : 2), W = xT.getDimSize(nhwc ? 2 : 3);
  int64_t OC = wT.getDimSize(0), KH = wT.getDimSize(nhwc ? 1 : 2), KW = wT.getDimSize(nhwc ? 2 : 3);
  int64_t OH = yT.getDimSize(nhwc ? 1 : 2), OW = yT.getDimSize(nhwc ? 2 : 3);
  for (int64_t n : {xT.getNumElements(), wT.getNumElements(), yT.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return conv.emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  auto outType = cast<RankedTensorType>(group.getResult(0).getType());
  if (outType.getShape() != yT.getShape())
    return group.emitError("epilogue changes the conv's shape"), failure();
  int64_t P = N * OH * OW, K = C * KH * KW, OHW = OH * OW;
  Type inElem = xT.getElementType();
  Type acc = computeType(inElem);
  bool tf32 = options.allowTF32 && inElem.isF32();
  // The tensor-core lowerings gather the A blocks themselves (and the weight blocks when
  // their rows break the TMA stride / cp.async granule): the rows' 16-byte rule that
  // tmaRowsOK stands for does not bind them, so sm_90a (wgmma) and sm_80 / sm_90 (mma.sync)
  // get their tensor-core configs; other targets the generic one.
  bool tensorCoreTarget = options.target == "sm_90a" || options.target == "sm_80" ||
                          options.target == "sm_90";
  MatmulConfig cfg =
      chooseMatmulConfig(P, OC, K, inElem, tensorCoreTarget, options.target, tf32, 1,
                         /*keepPingPong=*/true);
  if (failed(applyMatmulConfigOverride(conv, options.matmulConfig, cfg)))
    return failure();
  int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK;
  // NCHW on sm_90a: where the output's channel rows allow TMA box stores (OH * OW * bytes a
  // 16-byte multiple), padding each image's pixels to whole tiles costs at most 1/16 more
  // work and BLOCK_N >= 128, every tile stays within one image. Measured on the H200
  // (ResNet-50 layers at batch 32, same run against straddling tiles stored from registers):
  // 56 x 56, 64 -> 256 channels 1x1 (BLOCK_N 128): 0.0986 against 0.1086 ms; but with
  // BLOCK_N = 64 per-image tiles lost (3x3 64 -> 64: 0.2139 against 0.1869 ms; 1x1 256 -> 64:
  // 0.2078 against 0.1785; twenty-fourth run), and 28 x 28 with 14% padding lost too
  // (0.1420 against 0.1299 ms, twenty-third run). Such a tile stays within one image: its transposed block is one TMA box store
  // (a tile spanning images needs stores at negative pixel columns, which fault on TMA).
  auto outElemT = cast<RankedTensorType>(group.getResult(0).getType()).getElementType();
  int64_t outBytes = outElemT.getIntOrFloatBitWidth() / 8;
  int64_t tilesPerImage = (OHW + BM - 1) / BM;
  bool perImage = !nhwc && OHW > 1 && N > 1 && cfg.wgmma && options.target == "sm_90a" &&
                  options.tmaStore && BN >= 128 && (OHW * outBytes) % 16 == 0 &&
                  16 * tilesPerImage * BM <= 17 * OHW;
  int64_t gridM = perImage ? N * tilesPerImage : (P + BM - 1) / BM;
  KernelContext kc =
      makeKernel(builder, group, name, {gridM, (OC + BN - 1) / BN, 1}, cfg.numWarps,
                 {blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_N", BN),
                  blockAttr(builder, "BLOCK_K", BK)},
                 cfg.numStages);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = conv.getLoc();
  TileBuilder t2{b, loc, {BM, BN}};
  Value pidM = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidN = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(1));
  // Per-image tiles: program pidM covers pixels pix0 .. pix0 + BM - 1 of image img; its rows
  // past the image (the next image's pixels, or past P: masked) are computed and not stored.
  Value imgT, pixT;
  Value m0 = b.create<arith::MulIOp>(loc, pidM, t2.i32(BM));
  if (perImage) {
    imgT = b.create<arith::DivSIOp>(loc, pidM, t2.i32(tilesPerImage));
    pixT = b.create<arith::MulIOp>(
        loc, b.create<arith::RemSIOp>(loc, pidM, t2.i32(tilesPerImage)), t2.i32(BM));
    m0 = b.create<arith::AddIOp>(loc, b.create<arith::MulIOp>(loc, imgT, t2.i32(OHW)), pixT);
  }
  Value n0 = b.create<arith::MulIOp>(loc, pidN, t2.i32(BN));
  auto range1 = [&](Value start, int64_t n) -> Value {
    return b.create<arith::AddIOp>(
        loc, b.create<tl::SplatOp>(loc, RankedTensorType::get({n}, b.getI32Type()), start),
        t2.range(n));
  };
  auto op1 = [&](auto tag, Value v, int64_t c) -> Value {
    using Op = decltype(tag);
    return b.create<Op>(loc, v,
                        b.create<tl::SplatOp>(loc, cast<RankedTensorType>(v.getType()), t2.i32(c)));
  };
  Value rm = range1(m0, BM), rn = range1(n0, BN);
  Value rm2 = t2.along(rm, 0), rn2 = t2.along(rn, 1);
  Value outMask = b.create<arith::AndIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rm2, t2.splatI32(P)),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, rn2, t2.splatI32(OC)));

  Value zeroAcc = t2.splatF(acc, 0.0);
  auto loop = b.create<scf::ForOp>(loc, b.create<arith::ConstantIndexOp>(loc, 0),
                                   b.create<arith::ConstantIndexOp>(loc, K),
                                   b.create<arith::ConstantIndexOp>(loc, BK), ValueRange{zeroAcc});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), loop.getInductionVar());
    auto arr = [&](ArrayRef<int64_t> v) { return lb.getDenseI64ArrayAttr(v); };
    auto pads = conv.getPads();
    Value aTile = lb.create<tl::Im2ColLoadOp>(
        loc, RankedTensorType::get({BM, BK}, inElem), kc.inParams[kc.argIndex[xV]], m0, k0,
        arr({N, C, H, W}), lb.getStringAttr(nhwc ? "NHWC" : "NCHW"), arr({KH, KW}),
        arr(conv.getStrides()), arr({pads[0], pads[1]}), arr(conv.getDilations()),
        arr({OH, OW}));
    // The weight as the row-major [OC, K] matrix: its [BN, BK] block at (n0, k0), transposed.
    Value bTile = lb.create<tl::BlockLoadOp>(loc, RankedTensorType::get({BK, BN}, inElem),
                                             kc.inParams[kc.argIndex[wV]],
                                             lb.create<arith::ConstantIntOp>(loc, lb.getI32Type(), 0),
                                             n0, k0,
                                             ArrayRef<int64_t>{1, OC, K}, /*transpose=*/true);
    Value next = lb.create<tl::DotOp>(
        loc, loop.getRegionIterArg(0).getType(), aTile, bTile, loop.getRegionIterArg(0),
        tl::InputPrecisionAttr::get(lb.getContext(), tf32 ? tl::InputPrecision::tf32
                                                          : tl::InputPrecision::ieee));
    lb.create<scf::YieldOp>(loc, next);
  }
  Value result = loop.getResult(0);

  // Output indices per dim (pixel parts split on the 1-D row range, once per row).
  Value nIdx = op1(arith::DivSIOp(), rm, OHW), pix = op1(arith::RemSIOp(), rm, OHW);
  Value oh = op1(arith::DivSIOp(), pix, OW), ow = op1(arith::RemSIOp(), pix, OW);
  SmallVector<Value> idx = nhwc ? SmallVector<Value>{t2.along(nIdx, 0), t2.along(oh, 0),
                                                     t2.along(ow, 0), rn2}
                                : SmallVector<Value>{t2.along(nIdx, 0), rn2, t2.along(oh, 0),
                                                     t2.along(ow, 0)};
  ArrayRef<int64_t> outShape = outType.getShape();
  if (conv.getBias()) {
    auto bias = loadOperand(t2, kc, conv.getBias(), {OC}, {rn2}, outMask);
    if (failed(bias))
      return failure();
    result = b.create<arith::AddFOp>(loc, result, *bias);
  }
  auto fused = applyEpilogue(t2, kc, conv, result, outShape, idx, outMask);
  if (failed(fused))
    return failure();
  Value outBuf = kc.outParams[0];
  auto outElem = cast<MemRefType>(outBuf.getType()).getElementType();
  auto outTile = [&]() -> Value {
    Value v = *fused;
    if (cast<RankedTensorType>(v.getType()).getElementType() != outElem)
      v = b.create<arith::TruncFOp>(loc, RankedTensorType::get({BM, BN}, outElem), v);
    return v;
  };
  if (perImage) {
    // Per-image tiles: the transposed block at (n0, pix0) of image img, clipped at OHW.
    b.create<tl::BlockStoreOp>(loc, outBuf, imgT, n0, pixT, outTile(),
                               ArrayRef<int64_t>{N, OC, OHW}, /*transpose=*/true);
  } else if (nhwc || OHW == 1) {
    // NHWC (and NCHW with one output pixel: n * OC + oc): the output is the GEMM's row-major
    // [P, OC] matrix; the tile is its [BM, BN] block at (m0, n0), clipped at the edges (a TMA
    // store on sm_90a).
    b.create<tl::BlockStoreOp>(loc, outBuf, t2.i32(0), m0, n0, outTile(),
                               ArrayRef<int64_t>{1, P, OC});
  } else {
    // NCHW with tiles that may straddle images: one store at the offsets
    // n * OC * OHW + oc * OHW + pix. (As one transposed block store per image the tile
    // touches, the register epilogues held every element's S masks and addresses at once and
    // spilled on sm_90a, e.g. 256 bytes for ResNet-50's 28 x 28 3x3 layer, and no store
    // through shared memory could take them: TMA faults at the negative pixel columns.)
    Value outOff = t2.offsets({t2.along(op1(arith::MulIOp(), nIdx, OC * OHW), 0), rn2,
                               t2.along(pix, 0)},
                              {1, OHW, 1});
    t2.store(outBuf, outOff, *fused, outMask);
  }
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

//===----------------------------------------------------------------------===//
// Scatter template (scatter_elements, scatter_nd). Each program owns a block of the
// coordinates that updates cannot cross: data's coordinates outside `axis` for
// scatter_elements (an update only moves along `axis`), the positions within one slice
// for scatter_nd (an index tuple picks a whole slice). The program copies data to the
// output over the elements it owns, then applies the updates that land there one after
// another in their row-major order (a loop over the axis of `updates` / the index
// tuples, BLOCK lanes each): duplicates combine in order, and no two programs, and no two
// lanes of one store, write the same element. Work is O(numel(data) + numel(updates)).
//===----------------------------------------------------------------------===//

/// result = cur op upd for a scatter `reduction` ("add", "mul", "max", "min").
Value combineScatter(OpBuilder &b, Location loc, StringRef reduction, Value cur, Value upd) {
  bool isFloat = isa<FloatType>(cast<RankedTensorType>(cur.getType()).getElementType());
  if (reduction == "add")
    return isFloat ? b.create<arith::AddFOp>(loc, cur, upd).getResult()
                   : b.create<arith::AddIOp>(loc, cur, upd).getResult();
  if (reduction == "mul")
    return isFloat ? b.create<arith::MulFOp>(loc, cur, upd).getResult()
                   : b.create<arith::MulIOp>(loc, cur, upd).getResult();
  if (reduction == "max") // numpy.maximum: NaN propagates
    return isFloat ? b.create<arith::MaximumFOp>(loc, cur, upd).getResult()
                   : b.create<arith::MaxSIOp>(loc, cur, upd).getResult();
  return isFloat ? b.create<arith::MinimumFOp>(loc, cur, upd).getResult()
                 : b.create<arith::MinSIOp>(loc, cur, upd).getResult();
}

/// i32 index tile from integer index tile `k` into a dim of size `n` (1 <= n < 2^31): negative
/// values count from the end; out-of-range ones (undefined in ONNX; onnxruntime raises) are
/// clamped to [0, n - 1] so accesses stay in bounds, the rule docs/onnx-import.md documents for
/// every indexing op ("Indices out of range"). Wrapping and clamping happen in the index's
/// own width, so a 64-bit index past 2^31 clamps instead of wrapping when truncated to i32.
Value wrapIndex(TileBuilder &tb, Value k, int64_t n) {
  OpBuilder &b = tb.b;
  Location loc = tb.loc;
  auto kt = cast<RankedTensorType>(k.getType());
  unsigned w = kt.getElementType().getIntOrFloatBitWidth();
  if (w < 32) {
    k = b.create<arith::ExtSIOp>(loc, tb.tileOf(b.getI32Type()), k);
    kt = cast<RankedTensorType>(k.getType());
  }
  auto splatW = [&](int64_t v) {
    return tb.splat(b.create<arith::ConstantIntOp>(loc, kt.getElementType(), v));
  };
  Value neg = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, k, splatW(0));
  k = b.create<arith::SelectOp>(loc, neg, b.create<arith::AddIOp>(loc, k, splatW(n)), k);
  k = b.create<arith::MaxSIOp>(loc, k, splatW(0));
  k = b.create<arith::MinSIOp>(loc, k, splatW(n - 1));
  if (kt.getElementType().getIntOrFloatBitWidth() > 32)
    k = b.create<arith::TruncIOp>(loc, tb.tileOf(b.getI32Type()), k);
  return k;
}

/// An scf.for over [0, n) step `step` with no results; returns the body builder (before
/// the terminator) and the i32 induction variable.
std::pair<OpBuilder, Value> emptyLoop(OpBuilder &b, Location loc, int64_t n, int64_t step) {
  Value c0 = b.create<arith::ConstantIndexOp>(loc, 0);
  Value cn = b.create<arith::ConstantIndexOp>(loc, n);
  Value cs = b.create<arith::ConstantIndexOp>(loc, step);
  auto loop = b.create<scf::ForOp>(loc, c0, cn, cs);
  Block *body = loop.getBody();
  if (body->empty() || !body->back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder e = OpBuilder::atBlockEnd(body);
    e.create<scf::YieldOp>(loc);
  }
  OpBuilder lb(body->getTerminator());
  Value iv = lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), loop.getInductionVar());
  return {lb, iv};
}

/// Copies rows [0, rows) x the owned columns `cols` (a [BC] tile, `colMask`) of a
/// [rows, rowStride]-strided buffer from `src` to `dst`, BR rows at a time.
void copyOwned(OpBuilder &b, Location loc, Value src, Value dst, Type elem, int64_t rows,
               int64_t rowStride, int64_t BR, Value colBase, Value colMask, int64_t BC) {
  auto [lb, r0] = emptyLoop(b, loc, rows, BR);
  TileBuilder t1{lb, loc, {BR}}, t2{lb, loc, {BR, BC}};
  Value r = lb.create<arith::AddIOp>(loc, t1.splat(r0), t1.range(BR));
  Value rMask = lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, t1.splatI32(rows));
  Value off = lb.create<arith::AddIOp>(
      loc, lb.create<arith::MulIOp>(loc, t2.along(r, 0), t2.splatI32(rowStride)),
      t2.along(colBase, 1));
  Value mask = lb.create<arith::AndIOp>(loc, t2.along(rMask, 0), t2.along(colMask, 1));
  Value v = t2.load(src, off, mask, elem);
  t2.store(dst, off, v, mask);
}

FailureOr<func::FuncOp> buildScatter(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Operation *op = &group.getBody().front().front();
  auto se = dyn_cast<ScatterElementsOp>(op);
  auto snd = dyn_cast<ScatterNDOp>(op);
  if (!se && !snd)
    return op->emitError("scatter group must hold scatter_elements or scatter_nd"), failure();
  Value dataV = op->getOperand(0), idxV = op->getOperand(1), updV = op->getOperand(2);
  for (Value v : {dataV, idxV, updV})
    if (!isa<BlockArgument>(v))
      return op->emitError("scatter operands must be kernel inputs"), failure();
  auto dT = cast<RankedTensorType>(dataV.getType());
  auto iT = cast<RankedTensorType>(idxV.getType());
  auto uT = cast<RankedTensorType>(updV.getType());
  for (int64_t n : {dT.getNumElements(), iT.getNumElements(), uT.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return op->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  Type raw = dT.getElementType();
  if (raw.isUnsignedInteger() || raw.isSignedInteger())
    return op->emitError("kernel templates do not support ") << raw << " tensors yet", failure();
  StringRef reduction = se ? se.getReduction() : snd.getReduction();
  Type elem = computeType(raw);
  ArrayRef<int64_t> D = dT.getShape();
  auto dStr = rowMajorStrides(D);
  Location loc = op->getLoc();
  auto param = [&](KernelContext &kc, Value v) { return kc.inParams[kc.argIndex[v]]; };

  if (se) {
    int64_t axis = se.getAxis(), N = D[axis];
    ArrayRef<int64_t> S = iT.getShape();
    auto sStr = rowMajorStrides(S);
    // Owned coordinates: data's dims other than `axis`, row-major.
    SmallVector<int64_t> other, otherDStr, otherSStr, otherS;
    for (int64_t d = 0; d < dT.getRank(); ++d)
      if (d != axis) {
        other.push_back(D[d]);
        otherDStr.push_back(dStr[d]);
        otherSStr.push_back(sStr[d]);
        otherS.push_back(S[d]);
      }
    int64_t C = numElements(other), U = S[axis];
    int64_t BC = std::min<int64_t>(1024, (int64_t)llvm::PowerOf2Ceil(C));
    int64_t BR = std::max<int64_t>(1, std::min<int64_t>(llvm::PowerOf2Ceil(N), 1024 / BC));
    KernelContext kc =
        makeKernel(builder, group, name, {(C + BC - 1) / BC, 1, 1}, 4,
                   {blockAttr(builder, "BLOCK", BC), blockAttr(builder, "BLOCK_ROWS", BR)});
    OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
    TileBuilder tb{b, loc, {BC}};
    Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
    Value c = b.create<arith::AddIOp>(loc, tb.splat(b.create<arith::MulIOp>(loc, pid, tb.i32(BC))),
                                      tb.range(BC));
    Value cMask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, c, tb.splatI32(C));
    SmallVector<Value> coords = tb.delinearize(c, other);
    Value dBase = tb.offsets(coords, otherDStr);
    // Rows are positions along `axis`, columns the owned coordinates.
    copyOwned(b, loc, param(kc, dataV), kc.outParams[0], raw, N, dStr[axis], BR, dBase, cMask, BC);
    Value inUpd = cMask;
    for (auto [x, s, dd] : llvm::zip(coords, otherS, other))
      if (s < dd)
        inUpd = b.create<arith::AndIOp>(
            loc, inUpd, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, tb.splatI32(s)));
    Value uBase = tb.offsets(coords, otherSStr);
    auto [lb, j] = emptyLoop(b, loc, U, 1);
    TileBuilder lt{lb, loc, {BC}};
    Value uOff = lb.create<arith::AddIOp>(
        loc, uBase, lt.splat(lb.create<arith::MulIOp>(loc, j, lt.i32(sStr[axis]))));
    Value k = lt.load(param(kc, idxV), uOff, inUpd, iT.getElementType());
    Value tgt = lb.create<arith::AddIOp>(
        loc, dBase, lb.create<arith::MulIOp>(loc, wrapIndex(lt, k, N), lt.splatI32(dStr[axis])));
    Value v = lt.load(param(kc, updV), uOff, inUpd, elem);
    if (reduction != "none")
      v = combineScatter(lb, loc, reduction, lt.load(kc.outParams[0], tgt, inUpd, elem), v);
    lt.store(kc.outParams[0], tgt, v, inUpd);
    b.create<func::ReturnOp>(loc);
    return kc.kernel;
  }

  // scatter_nd: tuples of k indices pick a slice of S elements among P.
  int64_t k = iT.getShape().back();
  int64_t Q = iT.getNumElements() / std::max<int64_t>(k, 1);
  int64_t P = numElements(D.take_front(k)), S = numElements(D.drop_front(k));
  auto pStr = rowMajorStrides(D.take_front(k));
  int64_t BS = std::min<int64_t>(1024, (int64_t)llvm::PowerOf2Ceil(S));
  int64_t BR = std::max<int64_t>(1, std::min<int64_t>(llvm::PowerOf2Ceil(P), 1024 / BS));
  KernelContext kc =
      makeKernel(builder, group, name, {(S + BS - 1) / BS, 1, 1}, 4,
                 {blockAttr(builder, "BLOCK", BS), blockAttr(builder, "BLOCK_ROWS", BR)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  TileBuilder tb{b, loc, {BS}};
  Value pid = b.create<tl::ProgramIdOp>(loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value s = b.create<arith::AddIOp>(loc, tb.splat(b.create<arith::MulIOp>(loc, pid, tb.i32(BS))),
                                    tb.range(BS));
  Value sMask = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, s, tb.splatI32(S));
  copyOwned(b, loc, param(kc, dataV), kc.outParams[0], raw, P, S, BR, s, sMask, BS);
  auto [lb, u] = emptyLoop(b, loc, Q, 1);
  TileBuilder lt{lb, loc, {BS}};
  Value prefix = lt.splatI32(0);
  for (int64_t m = 0; m < k; ++m) {
    // Every lane reads the same index element u * k + m.
    Value at =
        lb.create<arith::AddIOp>(loc, lb.create<arith::MulIOp>(loc, u, lt.i32(k)), lt.i32(m));
    Value km = lt.load(param(kc, idxV), lt.splat(at), sMask, iT.getElementType());
    prefix = lb.create<arith::AddIOp>(
        loc, prefix, lb.create<arith::MulIOp>(loc, wrapIndex(lt, km, D[m]), lt.splatI32(pStr[m])));
  }
  Value tgt =
      lb.create<arith::AddIOp>(loc, lb.create<arith::MulIOp>(loc, prefix, lt.splatI32(S)), s);
  Value uOff =
      lb.create<arith::AddIOp>(loc, lt.splat(lb.create<arith::MulIOp>(loc, u, lt.i32(S))), s);
  Value v = lt.load(param(kc, updV), uOff, sMask, elem);
  if (reduction != "none")
    v = combineScatter(lb, loc, reduction, lt.load(kc.outParams[0], tgt, sMask, elem), v);
  lt.store(kc.outParams[0], tgt, v, sMask);
  b.create<func::ReturnOp>(loc);
  return kc.kernel;
}

} // namespace

int64_t aicc::mmaSyncNumWarps(int64_t blockM, int64_t blockN) {
  int64_t tiles16 = (blockM / 16) * (blockN / 16);
  int64_t w = std::max<int64_t>(std::min<int64_t>(4, tiles16), blockM * blockN / (64 * 64));
  return std::max<int64_t>(1, std::min<int64_t>(8, w));
}

MatmulConfig aicc::chooseMatmulConfig(int64_t M, int64_t N, int64_t K, Type elem,
                                      bool tmaRowsOK, StringRef target, bool tf32KMajor,
                                      int64_t batch, bool keepPingPong) {
  MatmulConfig c;
  // Generic config (CPU, sm_80/sm_90 CUDA-core path): tiles sized so every tile buffer of the
  // bufferizing GPU path fits the 48 KiB of static shared memory.
  c.blockM = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(M)));
  c.blockN = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(N)));
  c.blockK = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(K)));
  bool tf32 = elem.isF32() && tf32KMajor;
  bool half = elem.isF16() || elem.isBF16();
  if (!tmaRowsOK || !((target == "sm_90a" && (half || tf32)) ||
                      ((target == "sm_80" || target == "sm_90") && half)))
    return c;
  if (target != "sm_90a") {
    // sm_80 / sm_90: cp.async + ldmatrix + mma.sync (convert-tile-dot-to-mma-sync). Config
    // space: BLOCK_M in {16, 32, 64, 128}, BLOCK_N in {32, 64, 128, 256}, BLOCK_K = 32
    // (64-byte rows of f16/bf16: one cp.async chunk per 4 threads), warps by
    // mmaSyncNumWarps (64 x 64 warp tiles for the large blocks), num_stages = 4 (3 k blocks
    // in flight), fewer when K has fewer blocks. Heuristic:
    //   - BLOCK_M = the power of two >= M, from 16 (decode GEMMs) to 128;
    //   - BLOCK_N = 256 when the grid still has >= 2 waves of 132 programs at 128 x 256,
    //     else 128; then, while the grid has fewer than 132 programs (one per SM of an
    //     H100/H200), the larger of BLOCK_N (down to 32) and BLOCK_M (down to 64) is halved
    //     (square tiles read the fewest operand bytes per flop).
    constexpr int64_t kSMs = 132;
    c.mmaSync = true;
    c.blockK = 32;
    c.blockM = std::min<int64_t>(128, std::max<int64_t>(16, llvm::PowerOf2Ceil(M)));
    auto programs = [&](int64_t bm, int64_t bn) {
      return ((M + bm - 1) / bm) * ((N + bn - 1) / bn) * batch;
    };
    c.blockN = c.blockM == 128 && programs(128, 256) >= 2 * kSMs ? 256 : 128;
    while (programs(c.blockM, c.blockN) < kSMs) {
      if (c.blockN > 32 && (c.blockN >= c.blockM || c.blockM <= 64))
        c.blockN /= 2;
      else if (c.blockM > 64)
        c.blockM /= 2;
      else
        break;
    }
    c.numWarps = mmaSyncNumWarps(c.blockM, c.blockN);
    c.numStages = std::min<int64_t>(4, std::max<int64_t>(2, (K + c.blockK - 1) / c.blockK));
    return c;
  }
  // sm_90a, TMA + wgmma (convert-tile-dot-to-wgmma). Config space: BLOCK_M in {64, 128}
  // (m64 wgmma halves), BLOCK_N in {64, 128, 256} (the wgmma N), BLOCK_K = 64 (one 128-byte
  // swizzle row of f16/bf16), num_stages up to what fits in 227 KiB of shared memory. The
  // lowering runs 128 x BLOCK_N <= 128 tiles as ping-pong (each consumer warpgroup owns whole
  // tiles, one's epilogue overlapping the other's K loop) and 128 x 256 as cooperative.
  // Heuristic (measured on the H200, docs/tensor-cores.md):
  //   - BLOCK_M = 64 when M <= 64 (decode-style GEMMs: a taller tile would be padding);
  //   - f16 / bf16 matmuls with a plain epilogue (adds, multiplies, Relu, casts; not
  //     keepPingPong): BLOCK_N = 256
  //     (cooperative; 4 stages asked, the TMA-store epilogue keeps 3 beside its 64 KiB of
  //     staging) when 128 x 256 tiles still give >= 2 waves of 132 and fill the last wave
  //     about as well as 128 x 128 tiles do (twenty-first run, same run against ping-pong:
  //     4096^3 fp16 0.1908 / 0.1958 ms, 8192^3 1.500 / 1.539 ms, 8192 x 4096 x 11008 1.007 /
  //     1.135 ms; 1024 x 14336 x 4096 bf16, 3.4 waves against 6.8: 0.1773 / 0.1642 ms, so
  //     ping-pong there);
  //   - else BLOCK_N = 128 (ping-pong, 4 stages: 7% faster than cooperative with a GELU
  //     epilogue, 0.2124 against 0.2264 ms) when that still gives >= 132 tiles, else 64 so
  //     that more SMs stream the operands (small-M shapes are memory-bound);
  //   - num_stages = 4 for 128- and 256-wide tiles (ping-pong measured 8% slower at 5
  //     stages, 40% at 3), as many as fit (at most 8) for 64-wide tiles, which wait on
  //     memory.
  constexpr int64_t kSMs = 132;
  c.wgmma = true;
  c.blockK = tf32 ? 32 : 64; // one 128-byte swizzle row
  c.blockM = M <= 64 ? 64 : 128;
  int64_t tilesM = (M + c.blockM - 1) / c.blockM;
  c.blockN = (tilesM * ((N + 127) / 128) >= kSMs && N > 64) ? 128 : 64;
  // The share of the last wave of tiles the persistent CTAs keep busy.
  auto waveUse = [&](int64_t tiles) {
    return double(tiles) / double((tiles + kSMs - 1) / kSMs * kSMs);
  };
  int64_t tiles256 = tilesM * ((N + 255) / 256) * batch;
  if (half && !keepPingPong && c.blockN == 128 && tiles256 >= 2 * kSMs &&
      waveUse(tiles256) + 0.02 >= waveUse(tilesM * ((N + 127) / 128) * batch))
    c.blockN = 256;
  c.numWarps = 4 * (c.blockM / 64); // consumer warps; the lowering adds a producer warpgroup
  int64_t stageBytes = (c.blockM + c.blockN) * c.blockK * elem.getIntOrFloatBitWidth() / 8;
  int64_t fit = (227 * 1024 - 2048) / stageBytes;
  c.numStages = c.blockN >= 128 ? std::min<int64_t>(4, fit) : std::min<int64_t>(8, fit);
  return c;
}

FailureOr<func::FuncOp> aicc::buildKernelForGroup(OpBuilder &builder, FusionGroupOp group,
                                                  StringRef name, const TemplateOptions &options) {
  for (Type t : group.getResultTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return group.emitError("kernel templates need static shapes"), failure();
  StringRef kind = group.getKind();
  // A matmul or convolution over an empty operand with a non-empty result (a dot product of
  // two [0] vectors, K = 0) would be its epilogue applied to zeros; the block loads and tensor
  // maps of these templates need every dim >= 1. Refused, not miscompiled (aicc-fuzz-onnx).
  Operation *anchor = &group.getBody().front().front();
  if (isa<MatMulOp, GemmOp, ConvOp>(anchor))
    for (Value v : anchor->getOperands())
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0)
        return anchor->emitError()
                   << anchor->getName() << " with an empty operand " << v.getType()
                   << " and a non-empty result is not supported (an empty contraction)",
               failure();
  if (isa<ScatterElementsOp, ScatterNDOp>(group.getBody().front().front()))
    return buildScatter(builder, group, name);
  if (auto conv = dyn_cast<ConvOp>(group.getBody().front().front());
      conv && (kind == "window" || kind == "epilogue") && useImplicitGemm(conv, options))
    return buildConvGemm(builder, group, name, options);
  if (kind == "window" || (kind == "epilogue" && isa<ConvOp>(group.getBody().front().front())))
    return buildWindow(builder, group, name);
  if (kind == "epilogue")
    return buildMatmul(builder, group, name, options);
  if (kind == "softmax" && isa<ReduceMaxOp>(group.getBody().front().front()))
    return buildLogSumExp(builder, group, name);
  if (kind == "softmax")
    return buildSoftmax(builder, group, name);
  if (kind == "reduction")
    return buildReduction(builder, group, name);
  if (group.getNumResults() != 1 && kind != "elementwise")
    return group.emitError("multi-result groups are only supported for elementwise kernels"),
           failure();
  return buildElementwise(builder, group, name);
}
