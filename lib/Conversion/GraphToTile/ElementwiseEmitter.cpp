//===- ElementwiseEmitter.cpp - tile math of one elementwise graph op -------===//
#include "TemplateSupport.h"
#include "StableMath.h"

namespace aicc::templates {

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

} // namespace aicc::templates
