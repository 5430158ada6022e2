//===- StableMath.cpp - numerically stable elementwise forms ----------------===//
//
// The forms, their sources and the inputs that broke the naive formulas are documented
// in StableMath.h and docs/numerics.md.
//
//===----------------------------------------------------------------------===//
#include "StableMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::graph_to_tile;

namespace {
/// Thin arith / math helpers over one builder and location.
struct Ops {
  OpBuilder &b;
  Location loc;
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value expm1(Value x) { return math::ExpM1Op::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value log1p(Value x) { return math::Log1pOp::create(b, loc, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value floor(Value x) { return math::FloorOp::create(b, loc, x); }
  /// r (>= 0 or NaN) with the sign of x: -r for x < 0, x itself for x = +-0 (keeps -0).
  /// Selects rather than math.copysign, which the CPU lowering of tile math refuses.
  Value withSignOf(Value r, Value x, Value zero) {
    Value z = cmp(arith::CmpFPredicate::OEQ, x, zero);
    return sel(cmp(arith::CmpFPredicate::OLT, x, zero), neg(r), sel(z, x, r));
  }
  Value max(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value sel(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
};

const double kLn2 = 0.69314718055994530942;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Above this |x|, x^2 + 1 == x^2 in f32 and asinh / acosh are log(2|x|) to < 2^-24.
const double kLogRegime = 4096.0;
} // namespace

Value StableMath::sigmoid(Value x) {
  Ops o{b, loc};
  Value e = o.exp(o.neg(o.abs(x)));
  Value r = o.div(cst(1.0), o.add(cst(1.0), e));
  return o.sel(o.cmp(arith::CmpFPredicate::OLT, x, cst(0.0)), o.mul(e, r), r);
}

Value StableMath::softplus(Value x) {
  Ops o{b, loc};
  // maximumf propagates NaN.
  return o.add(o.max(x, cst(0.0)), o.log1p(o.exp(o.neg(o.abs(x)))));
}

Value StableMath::softsign(Value x) {
  Ops o{b, loc};
  Value a = o.abs(x);
  Value r = o.div(x, o.add(cst(1.0), a));
  return o.sel(o.cmp(arith::CmpFPredicate::OEQ, a, cst(kInf)),
               o.withSignOf(cst(1.0), x, cst(0.0)), r);
}

Value StableMath::expm1(Value x) { return Ops{b, loc}.expm1(x); }

/// p = e^(a/2) e^(a/2) / 2 = e^a / 2 for a = |x|, finite while e^a / 2 is.
static Value halfExp(Ops &o, llvm::function_ref<Value(double)> cst, Value a) {
  Value e = o.exp(o.mul(a, cst(0.5)));
  return o.mul(o.mul(e, cst(0.5)), e);
}

Value StableMath::sinh(Value x) {
  Ops o{b, loc};
  Value a = o.abs(x);
  Value t = o.expm1(a);
  Value small = o.mul(cst(0.5), o.add(t, o.div(t, o.add(t, cst(1.0)))));
  Value p = halfExp(o, cst, a);
  Value large = o.sub(p, o.div(cst(0.25), p));
  Value r = o.sel(o.cmp(arith::CmpFPredicate::OLT, a, cst(1.0)), small, large);
  return o.withSignOf(r, x, cst(0.0));
}

Value StableMath::cosh(Value x) {
  Ops o{b, loc};
  Value p = halfExp(o, cst, o.abs(x));
  return o.add(p, o.div(cst(0.25), p));
}

Value StableMath::asinh(Value x) {
  Ops o{b, loc};
  Value a = o.abs(x);
  Value a2 = o.mul(a, a);
  Value mid = o.log1p(o.add(a, o.div(a2, o.add(cst(1.0), o.sqrt(o.add(cst(1.0), a2))))));
  Value big = o.add(o.log(a), cst(kLn2));
  Value r = o.sel(o.cmp(arith::CmpFPredicate::OGT, a, cst(kLogRegime)), big, mid);
  return o.withSignOf(r, x, cst(0.0));
}

Value StableMath::acosh(Value x) {
  Ops o{b, loc};
  Value t = o.sub(x, cst(1.0));
  Value mid = o.log1p(o.add(t, o.sqrt(o.mul(t, o.add(t, cst(2.0))))));
  Value big = o.add(o.log(x), cst(kLn2));
  Value r = o.sel(o.cmp(arith::CmpFPredicate::OGT, x, cst(kLogRegime)), big, mid);
  return o.sel(o.cmp(arith::CmpFPredicate::OLT, x, cst(1.0)), cst(kNaN), r);
}

Value StableMath::atanh(Value x) {
  Ops o{b, loc};
  Value a = o.abs(x);
  Value r = o.mul(cst(0.5), o.log1p(o.div(o.mul(cst(2.0), a), o.sub(cst(1.0), a))));
  return o.withSignOf(r, x, cst(0.0));
}

Value StableMath::geluErf(Value x) {
  Ops o{b, loc};
  Value e = math::ErfcOp::create(b, loc, o.mul(x, cst(-M_SQRT1_2)));
  return o.mul(o.mul(x, cst(0.5)), e);
}

Value StableMath::geluTanh(Value x) {
  Ops o{b, loc};
  // 2u = 2 sqrt(2/pi) x (1 + 0.044715 x^2); +-inf for huge |x| (sigmoid gives 0 or 1).
  Value inner = o.add(cst(1.0), o.mul(cst(0.044715), o.mul(x, x)));
  Value z = o.mul(o.mul(x, cst(2.0 * std::sqrt(2.0 / M_PI))), inner);
  return o.mul(x, sigmoid(z));
}

Value StableMath::pow(Value x, Value y) {
  Ops o{b, loc};
  using P = arith::CmpFPredicate;
  Value ax = o.abs(x);
  Value r = math::PowFOp::create(b, loc, ax, y);
  Value ay = o.abs(y);
  // pow(+1, y) = 1, pow(x, +-0) = 1, pow(-1, +-inf) = 1 (C11 F.10.4.4).
  Value one = o.ori(o.ori(o.cmp(P::OEQ, x, cst(1.0)), o.cmp(P::OEQ, y, cst(0.0))),
                    o.andi(o.cmp(P::OEQ, ax, cst(1.0)), o.cmp(P::OEQ, ay, cst(kInf))));
  // y an integer (+-inf counts as an even one), odd when y / 2 is not.
  Value yInt = o.cmp(P::OEQ, o.floor(y), y);
  Value half = o.mul(y, cst(0.5));
  Value yOdd = o.andi(yInt, o.cmp(P::ONE, o.floor(half), half));
  // x negative or -0 (the sign bit: pow(-0, -3) = -inf; 1 / -0 = -inf).
  Value neg = o.ori(o.cmp(P::OLT, x, cst(0.0)),
                    o.andi(o.cmp(P::OEQ, x, cst(0.0)),
                           o.cmp(P::OLT, o.div(cst(1.0), x), cst(0.0))));
  Value finiteNonzero = o.andi(o.cmp(P::OLT, ax, cst(kInf)), o.cmp(P::OGT, ax, cst(0.0)));
  Value nonIntOfNeg = o.andi(o.andi(neg, finiteNonzero), o.cmp(P::ONE, o.floor(y), y));
  Value signedR = o.sel(o.andi(neg, yOdd), o.neg(r), r);
  // y NaN with a negative x: NaN from powf(|x|, NaN) already (unless pow(-1, NaN): NaN).
  Value res = o.sel(nonIntOfNeg, cst(kNaN), signedR);
  Value yNaN = o.cmp(P::UNO, y, y);
  res = o.sel(o.andi(neg, yNaN), cst(kNaN), res);
  return o.sel(one, cst(1.0), res);
}
