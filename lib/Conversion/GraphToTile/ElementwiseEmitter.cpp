//===- ElementwiseEmitter.cpp - tile math of one elementwise graph op -------===//
#include "TemplateSupport.h"
#include "StableMath.h"

#include <map>
#include <vector>

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
    return tb.splat(arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v)));
  };
  auto zero = [&]() { return isFloat ? fconst(0.0) : iconst(elem, 0); };
  auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate ip, Value x, Value y) -> Value {
    if (isFloat)
      return arith::CmpFOp::create(b, loc, fp, x, y);
    return arith::CmpIOp::create(b, loc, isUnsigned ? unsignedPredicate(ip) : ip, x, y);
  };
  auto imin = [&](Value x, Value y) -> Value {
    return isUnsigned ? arith::MinUIOp::create(b, loc, x, y).getResult()
                      : arith::MinSIOp::create(b, loc, x, y).getResult();
  };
  auto imax = [&](Value x, Value y) -> Value {
    return isUnsigned ? arith::MaxUIOp::create(b, loc, x, y).getResult()
                      : arith::MaxSIOp::create(b, loc, x, y).getResult();
  };
  auto sel = [&](Value c, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, loc, c, x, y);
  };
  // Integer division traps on x86 for a zero divisor, and masked-off lanes load 0: divide
  // by 1 there (a real zero divisor is undefined behaviour in ONNX anyway).
  auto safeDivisor = [&](Value d) -> Value {
    Value z = iconst(elem, 0);
    return sel(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, z), iconst(elem, 1), d);
  };
  // Signed division traps on x86 for INT_MIN / -1 too (the quotient overflows): a divisor
  // of -1 divides by 1 and the caller negates (wrapping, as the reference evaluator does:
  // INT_MIN / -1 = INT_MIN, x % -1 = 0).
  auto isMinusOne = [&](Value d) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, iconst(elem, -1));
  };
  auto signedDivisor = [&](Value d) -> Value {
    return sel(isMinusOne(d), iconst(elem, 1), safeDivisor(d));
  };
  auto mulf = [&](Value x, Value y) -> Value { return arith::MulFOp::create(b, loc, x, y); };
  auto addf = [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, loc, x, y); };
  // Numerically stable forms of the transcendental functions (StableMath.h).
  aicc::graph_to_tile::StableMath sm{b, loc, fconst};
  auto expm1 = [&](Value x) -> Value { return sm.expm1(x); };
  auto minf = [&](Value x, Value y) -> Value { return arith::MinimumFOp::create(b, loc, x, y); };
  auto maxf = [&](Value x, Value y) -> Value { return arith::MaximumFOp::create(b, loc, x, y); };
  auto requireFloat = [&]() -> LogicalResult {
    if (isFloat)
      return success();
    return op->emitError("kernel templates support ") << op->getName() << " on floats only";
  };
  auto one = [&]() { return fconst(1.0); };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](AddOp) -> Value {
        return isFloat ? arith::AddFOp::create(b, loc, in[0], in[1]).getResult()
                       : arith::AddIOp::create(b, loc, in[0], in[1]).getResult();
      })
      .Case([&](SubOp) -> Value {
        return isFloat ? arith::SubFOp::create(b, loc, in[0], in[1]).getResult()
                       : arith::SubIOp::create(b, loc, in[0], in[1]).getResult();
      })
      .Case([&](MulOp) -> Value {
        return isFloat ? arith::MulFOp::create(b, loc, in[0], in[1]).getResult()
                       : arith::MulIOp::create(b, loc, in[0], in[1]).getResult();
      })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return arith::DivFOp::create(b, loc, in[0], in[1]);
        if (isUnsigned)
          return arith::DivUIOp::create(b, loc, in[0], safeDivisor(in[1]));
        return sel(isMinusOne(in[1]), arith::SubIOp::create(b, loc, iconst(elem, 0), in[0]),
                   arith::DivSIOp::create(b, loc, in[0], signedDivisor(in[1])));
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
          return arith::RemFOp::create(b, loc, in[0], in[1]).getResult();
        Value d = safeDivisor(in[1]);
        // Unsigned operands are never negative: both sign conventions are remui.
        if (isUnsigned)
          return arith::RemUIOp::create(b, loc, in[0], d).getResult();
        Value r = sel(isMinusOne(in[1]), iconst(elem, 0),
                      arith::RemSIOp::create(b, loc, in[0], signedDivisor(in[1])));
        if (m.getFmod())
          return r;
        // Python-style: the result takes the divisor's sign.
        Value z = zero();
        Value fix = arith::AndIOp::create(
            b, loc, cmp({}, arith::CmpIPredicate::ne, r, z),
            arith::XOrIOp::create(b, loc, cmp({}, arith::CmpIPredicate::slt, r, z),
                                  cmp({}, arith::CmpIPredicate::slt, in[1], z)));
        return sel(fix, arith::AddIOp::create(b, loc, r, d), r);
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
        Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, in[1], width);
        Value amount = sel(tooFar, zero(), in[1]);
        Value r = sh.getDirection() == "left"
                      ? arith::ShLIOp::create(b, loc, in[0], amount).getResult()
                      : arith::ShRUIOp::create(b, loc, in[0], amount).getResult();
        return sel(tooFar, zero(), r);
      })
      .Case([&](AndOp) -> Value { return arith::AndIOp::create(b, loc, in[0], in[1]); })
      .Case([&](OrOp) -> Value { return arith::OrIOp::create(b, loc, in[0], in[1]); })
      .Case([&](XorOp) -> Value { return arith::XOrIOp::create(b, loc, in[0], in[1]); })
      .Case([&](NotOp) -> Value {
        return arith::XOrIOp::create(b, loc, in[0], iconst(b.getI1Type(), 1));
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
        return isFloat ? arith::NegFOp::create(b, loc, in[0]).getResult()
                       : arith::SubIOp::create(b, loc, zero(), in[0]).getResult();
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, in[0]);
        if (isUnsigned)
          return in[0];
        return arith::MaxSIOp::create(b, loc, in[0], arith::SubIOp::create(b, loc, zero(), in[0]));
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
          return tb.splat(arith::ConstantOp::create(b, loc, elem, b.getIntegerAttr(elem, i)));
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
            x = arith::TruncFOp::create(b, loc, tb.tileOf(to), x);
          else if (tt.getWidth() > ft.getWidth())
            x = arith::ExtFOp::create(b, loc, tb.tileOf(to), x);
          if (to != target)
            x = arith::ExtFOp::create(b, loc, tileT, x);
          return x;
        }
        if (isa<FloatType>(elem)) { // float -> int / bool
          if (to.isInteger(1))
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero()).getResult();
          unsigned width = to.getIntOrFloatBitWidth();
          if (width == 64)
            return toUnsigned ? arith::FPToUIOp::create(b, loc, tileT, x).getResult()
                              : arith::FPToSIOp::create(b, loc, tileT, x).getResult();
          Value wide = arith::FPToSIOp::create(b, loc, tb.tileOf(b.getI64Type()), x);
          return arith::TruncIOp::create(b, loc, tileT, wide).getResult();
        }
        if (isa<FloatType>(to)) { // int / bool -> float
          Value r = fromUnsigned ? arith::UIToFPOp::create(b, loc, tb.tileOf(to), x).getResult()
                                 : arith::SIToFPOp::create(b, loc, tb.tileOf(to), x).getResult();
          if (to != target)
            r = arith::ExtFOp::create(b, loc, tileT, r);
          return r;
        }
        unsigned from = elem.getIntOrFloatBitWidth(), width = to.getIntOrFloatBitWidth();
        if (to.isInteger(1))
          return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero()).getResult();
        if (width == from)
          return x; // same bits (e.g. i8 <-> ui8 reinterprets modulo 2^8)
        if (width < from)
          return arith::TruncIOp::create(b, loc, tileT, x).getResult();
        if (fromUnsigned)
          return arith::ExtUIOp::create(b, loc, tileT, x).getResult();
        return arith::ExtSIOp::create(b, loc, tileT, x).getResult();
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        if (failed(requireFloat()))
          return failure();
        Value x = in[0];
        Value r =
            llvm::TypeSwitch<Operation *, Value>(o)
                .Case([&](ReluOp) -> Value { return maxf(x, fconst(0.0)); })
                .Case([&](TanhOp) -> Value { return math::TanhOp::create(b, loc, x); })
                .Case([&](ExpOp) -> Value { return math::ExpOp::create(b, loc, x); })
                .Case([&](ErfOp) -> Value { return math::ErfOp::create(b, loc, x); })
                .Case([&](SigmoidOp) -> Value { return sm.sigmoid(x); })
                .Case([&](GeluOp g) -> Value {
                  return g.getApproximate() == "tanh" ? sm.geluTanh(x) : sm.geluErf(x);
                })
                .Case([&](CeilOp) -> Value { return math::CeilOp::create(b, loc, x); })
                .Case([&](FloorOp) -> Value { return math::FloorOp::create(b, loc, x); })
                .Case([&](RoundOp) -> Value { return math::RoundEvenOp::create(b, loc, x); })
                .Case([&](SqrtOp) -> Value { return math::SqrtOp::create(b, loc, x); })
                .Case(
                    [&](ReciprocalOp) -> Value { return arith::DivFOp::create(b, loc, one(), x); })
                .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, x); })
                .Case([&](SinOp) -> Value { return math::SinOp::create(b, loc, x); })
                .Case([&](CosOp) -> Value { return math::CosOp::create(b, loc, x); })
                .Case([&](TanOp) -> Value { return math::TanOp::create(b, loc, x); })
                .Case([&](AsinOp) -> Value { return math::AsinOp::create(b, loc, x); })
                .Case([&](AcosOp) -> Value { return math::AcosOp::create(b, loc, x); })
                .Case([&](AtanOp) -> Value { return math::AtanOp::create(b, loc, x); })
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
                             sel(hi, arith::SubFOp::create(b, loc, x, fconst(bias)), fconst(0.0)));
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

FailureOr<Value>
emitElementwiseAt(TileBuilder &tb, Operation *op, ArrayRef<Value> at,
                  llvm::function_ref<FailureOr<Value>(Value, ArrayRef<Value>)> operandAt) {
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> ins;
  for (Value o : op->getOperands()) {
    auto ot = cast<RankedTensorType>(o.getType());
    auto t = operandAt(o, ot.getShape() == rt.getShape() ? at : broadcastIndex(tb, ot, at));
    if (failed(t))
      return failure();
    ins.push_back(*t);
  }
  return emitElementwise(tb, op, ins);
}

FailureOr<Value> evalBodyValueAt(TileBuilder &tb, KernelContext &kc, Value v, ArrayRef<Value> at,
                                 Value mask) {
  Block &body = kc.group.getBody().front();
  // Keyed by (value, index tiles): a value read at several elements (a concat's operands,
  // broadcast operands) is evaluated once per element it is read at.
  std::map<std::pair<void *, std::vector<void *>>, Value> memo;
  std::function<FailureOr<Value>(Value, ArrayRef<Value>, Value)> eval;
  eval = [&](Value x, ArrayRef<Value> idx, Value m) -> FailureOr<Value> {
    std::pair<void *, std::vector<void *>> key{x.getAsOpaquePointer(), {}};
    for (Value i : idx)
      key.second.push_back(i.getAsOpaquePointer());
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    Operation *op = x.getDefiningOp();
    FailureOr<Value> r = failure();
    if (!op || op->getBlock() != &body || isView(op) || isa<ReshapeOp>(op)) {
      r = loadView(tb, kc, x, idx, m);
    } else if (isElementwise(op) && !isa<TriluOp>(op)) {
      r = emitElementwiseAt(tb, op, idx,
                            [&](Value o, ArrayRef<Value> oi) { return eval(o, oi, m); });
    } else {
      return op->emitError("kernel template cannot evaluate ") << op->getName() << " per element",
             failure();
    }
    if (succeeded(r))
      memo[key] = *r;
    return r;
  };
  kc.evalComputed = eval;
  FailureOr<Value> result = eval(v, at, mask);
  // The callback captures this call's builder and memo: not valid past it.
  kc.evalComputed = nullptr;
  return result;
}

} // namespace aicc::templates
