//===- ElementwiseOps.cpp - reference of the elementwise graph ops -----------===//
//
// One scalar function per op, in double for floats and exact int64 for integers (the
// driver wraps integers to their width afterwards). Formulas follow the ONNX operator
// specs (https://onnx.ai/onnx/operators/) named in each comment, written in the same
// numerically stable forms as the kernels (lib/Conversion/GraphToTile/StableMath.h) where
// double's range does not save the naive one (1 + erf(x) cancels in double too). NaN
// propagates (max / min included, docs/numerics.md) unless a comment says otherwise.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::reference;
using namespace aicc::reference::detail;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// NaN-propagating max / min (ONNX Max / Min, numpy.maximum; std::max / std::min return
// their first operand when the other is NaN).
double maxF(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double minF(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }

// Integer arithmetic that wraps modulo 2^64 instead of overflowing (the driver then
// wraps to the element type's width).
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t wrapNeg(int64_t a) { return int64_t(0 - uint64_t(a)); }

//===----------------------------------------------------------------------===//
// Scalar functions: floats
//===----------------------------------------------------------------------===//
// ONNX Relu: max(0, x).
double relu(double x) { return x < 0 ? 0.0 : x; }
// ONNX Sigmoid: 1 / (1 + e^-x), as r = 1 / (1 + e^-|x|), x < 0 ? e^-|x| r : r.
double sigmoid(double x) {
  double e = std::exp(-std::fabs(x)), r = 1.0 / (1.0 + e);
  return x < 0 ? e * r : r;
}
// ONNX Reciprocal: 1 / x.
double reciprocal(double x) { return 1.0 / x; }
// ONNX Round: nearest integer, halves to even (nearbyint in the default rounding mode).
double roundHalfEven(double x) { return std::nearbyint(x); }
// ONNX Softplus: ln(e^x + 1), written max(x, 0) + ln(1 + e^-|x|) (same value, no overflow).
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }
// ONNX Softsign: x / (1 + |x|); its limit +-1 at +-inf (inf / inf is NaN).
double softsign(double x) { return std::isinf(x) ? std::copysign(1.0, x) : x / (1.0 + std::fabs(x)); }
// ONNX HardSwish: x * max(0, min(1, x / 6 + 1 / 2)).
double hardSwish(double x) { return x * maxF(0.0, minF(1.0, x / 6.0 + 0.5)); }
// ONNX Neg / Abs / Sign on floats (Sign of NaN is NaN, as numpy.sign).
double negF(double x) { return -x; }
double absF(double x) { return std::fabs(x); }
double signF(double x) { return std::isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
// ONNX LeakyRelu: x >= 0 ? x : alpha * x.
double leakyRelu(double x, double alpha) { return x >= 0 ? x : alpha * x; }
// ONNX Elu: x >= 0 ? x : alpha * (e^x - 1).
double elu(double x, double alpha) { return x >= 0 ? x : alpha * std::expm1(x); }
// ONNX Celu: max(0, x) + min(0, alpha * (e^(x / alpha) - 1)).
double celu(double x, double alpha) {
  return maxF(0.0, x) + minF(0.0, alpha * std::expm1(x / alpha));
}
// ONNX Selu: gamma * (x > 0 ? x : alpha * (e^x - 1)).
double selu(double x, double alpha, double gamma) {
  return gamma * (x > 0 ? x : alpha * std::expm1(x));
}
// ONNX HardSigmoid: max(0, min(1, alpha * x + beta)).
double hardSigmoid(double x, double alpha, double beta) {
  return maxF(0.0, minF(1.0, alpha * x + beta));
}
// ONNX Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
double shrink(double x, double lambd, double bias) {
  return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0;
}
// ONNX Gelu (opset 20): none: 0.5 x (1 + erf(x / sqrt 2)); tanh: 0.5 x (1 + tanh(sqrt(2 / pi)
// (x + 0.044715 x^3))). Hendrycks & Gimpel 2016. Written 0.5 x erfc(-x / sqrt 2) and
// x sigmoid(2u) (1 + tanh(u) = 2 sigmoid(2u)): 1 + erf and 1 + tanh cancel for x < -3.
double geluErf(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double geluTanh(double x) {
  return x * sigmoid(2.0 * std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x));
}
// ONNX Mod on floats: fmod = 1 takes the dividend's sign (C fmod); fmod = 0 the divisor's
// (Python %).
double modF(double a, double b, bool fmod) {
  double r = std::fmod(a, b);
  if (!fmod && r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
// ONNX PRelu: x < 0 ? slope * x : x.
double preluF(double x, double slope) { return x < 0 ? slope * x : x; }

//===----------------------------------------------------------------------===//
// Scalar functions: integers (std::nullopt: undefined for this input)
//===----------------------------------------------------------------------===//
// ONNX Div on integers truncates toward zero (numpy's reference casts the quotient).
std::optional<int64_t> divI(int64_t a, int64_t b) {
  if (b == 0)
    return std::nullopt;
  return b == -1 ? wrapNeg(a) : a / b;
}
// ONNX Mod on integers: fmod = 1 takes the dividend's sign, fmod = 0 the divisor's.
std::optional<int64_t> modI(int64_t a, int64_t b, bool fmod) {
  if (b == 0)
    return std::nullopt;
  int64_t r = b == -1 ? 0 : a % b;
  if (!fmod && r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
// ONNX Pow on integers: repeated multiplication (wrapping); negative exponents are
// undefined for integers (numpy raises).
std::optional<int64_t> powI(int64_t a, int64_t b) {
  if (b < 0)
    return std::nullopt;
  int64_t r = 1;
  for (; b > 0; b >>= 1, a = wrapMul(a, a))
    if (b & 1)
      r = wrapMul(r, a);
  return r;
}
int64_t absI(int64_t x) { return x < 0 ? wrapNeg(x) : x; }
int64_t signI(int64_t x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

//===----------------------------------------------------------------------===//
// Drivers over tensors
//===----------------------------------------------------------------------===//
InFlightDiagnostic evalError(Operation *op) { return op->emitError("reference evaluator: "); }

/// y[i] = f(x[i]) on a float tensor.
template <typename F> EvalResult unaryFloat(Operation *op, const Tensor &x, F f) {
  if (!x.isFloat())
    return evalError(op) << "'" << op->getName() << "' needs a float operand", failure();
  Tensor r = Tensor::zeros(resultType(op));
  for (int64_t i = 0, n = r.numElements(); i < n; ++i)
    r.floats[i] = f(x.floats[i]);
  return r;
}

/// y[i] = f(x[i]) for floats, g(x[i]) for integers.
template <typename F, typename G> EvalResult unaryNum(Operation *op, const Tensor &x, F f, G g) {
  Tensor r = Tensor::zeros(resultType(op));
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    if (x.isFloat())
      r.floats[i] = f(x.floats[i]);
    else
      r.ints[i] = g(x.ints[i]);
  }
  return r;
}

/// Broadcasting binary op: r[i] = f(a[ia], b[ib]) on floats, g(...) on integers (g returns
/// std::optional<int64_t>; std::nullopt reports `undefinedWhat` at the op).
template <typename F, typename G>
EvalResult binary(Operation *op, const Tensor &a, const Tensor &b, F f, G g,
                  const char *undefinedWhat = "an undefined integer result") {
  Tensor r = Tensor::zeros(resultType(op));
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    int64_t ia = broadcastIndex(idx, a.shape), ib = broadcastIndex(idx, b.shape);
    if (a.isFloat()) {
      r.floats[i] = f(a.floats[ia], b.floats[ib]);
      continue;
    }
    std::optional<int64_t> v = g(a.ints[ia], b.ints[ib]);
    if (!v)
      return evalError(op) << undefinedWhat << " (" << a.ints[ia] << ", " << b.ints[ib]
                           << ") at result element " << i,
             failure();
    r.ints[i] = *v;
  }
  return r;
}

/// Integer / bool-only binary op (bitwise on the stored values).
template <typename G> EvalResult binaryInt(Operation *op, const Tensor &a, const Tensor &b, G g) {
  if (a.isFloat())
    return evalError(op) << "'" << op->getName() << "' needs bool or integer operands", failure();
  return binary(
      op, a, b, [](double, double) { return 0.0; },
      [&](int64_t x, int64_t y) -> std::optional<int64_t> { return g(x, y); });
}

/// Broadcasting comparison: r[i] = pred(a[ia], b[ib]) as 0 / 1.
template <typename P>
EvalResult comparison(Operation *op, const Tensor &a, const Tensor &b, P pred) {
  Tensor r = Tensor::zeros(resultType(op));
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    int64_t ia = broadcastIndex(idx, a.shape), ib = broadcastIndex(idx, b.shape);
    r.ints[i] = a.isFloat() ? pred(a.floats[ia], b.floats[ib]) : pred(a.ints[ia], b.ints[ib]);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Ops with more than a scalar formula
//===----------------------------------------------------------------------===//
// ONNX Where: cond ? x : y, all three broadcast.
EvalResult evalWhere(WhereOp op, const Tensor &c, const Tensor &x, const Tensor &y) {
  Tensor r = Tensor::zeros(resultType(op));
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    unravel(i, r.shape, idx);
    bool take = c.ints[broadcastIndex(idx, c.shape)] != 0;
    const Tensor &src = take ? x : y;
    int64_t j = broadcastIndex(idx, src.shape);
    if (r.isFloat())
      r.floats[i] = src.floats[j];
    else
      r.ints[i] = src.ints[j];
  }
  return r;
}

// ONNX Clip: min(max(x, min), max); an absent bound does not clip; NaN stays NaN.
EvalResult evalClip(ClipOp op, const Tensor &x) {
  std::optional<double> lo, hi;
  if (auto a = op.getMinAttr())
    lo = a.getValueAsDouble();
  if (auto a = op.getMaxAttr())
    hi = a.getValueAsDouble();
  Tensor r = Tensor::zeros(resultType(op));
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    if (x.isFloat()) {
      double v = x.floats[i];
      if (lo && v < *lo)
        v = *lo;
      if (hi && v > *hi)
        v = *hi;
      r.floats[i] = v;
    } else {
      int64_t v = x.ints[i];
      if (lo && double(v) < *lo)
        v = int64_t(std::ceil(*lo));
      if (hi && double(v) > *hi)
        v = int64_t(std::floor(*hi));
      r.ints[i] = v;
    }
  }
  return r;
}

// ONNX Cast: float -> float rounds to nearest even (always, whatever the evaluator's
// rounding option); float -> integer truncates toward zero (NaN and out-of-range values
// are undefined in ONNX: the reference gives 0 for NaN and saturates to int64, then wraps
// to the target width); integer -> float is exact then rounded; -> bool is x != 0 (NaN
// gives true); bool -> number is 0 or 1.
EvalResult evalCast(CastOp op, const Tensor &x) {
  Tensor r = Tensor::zeros(resultType(op));
  Type to = r.elementType;
  for (int64_t i = 0, n = r.numElements(); i < n; ++i) {
    if (to.isInteger(1)) {
      r.ints[i] = x.isFloat() ? x.floats[i] != 0 : x.ints[i] != 0;
      continue;
    }
    if (r.isFloat()) {
      r.floats[i] = x.isFloat() ? x.floats[i] : double(x.ints[i]);
      continue;
    }
    if (!x.isFloat()) {
      r.ints[i] = x.ints[i];
      continue;
    }
    double v = std::trunc(x.floats[i]);
    if (std::isnan(v))
      r.ints[i] = 0;
    else if (v >= 0x1p63)
      r.ints[i] = std::numeric_limits<int64_t>::max();
    else if (v < -0x1p63)
      r.ints[i] = std::numeric_limits<int64_t>::min();
    else
      r.ints[i] = int64_t(v);
  }
  Evaluator::roundToType(r);
  return r;
}

// ONNX BitShift-11: logical shift of unsigned integers, x << y or x >> y (zero-filling);
// a shift by the bit width or more gives 0 (numpy / the ONNX reference on uintN).
EvalResult evalBitShift(BitShiftOp op, const Tensor &x, const Tensor &y) {
  StringRef dir = op.getDirection();
  if (dir != "left" && dir != "right")
    return evalError(op) << "unknown bit_shift direction '" << dir << "'", failure();
  auto it = dyn_cast<IntegerType>(x.elementType);
  if (!it || !it.isUnsigned() || y.elementType != x.elementType)
    return evalError(op) << "bit_shift needs unsigned integer operands of one type", failure();
  int64_t width = it.getWidth();
  bool left = dir == "left";
  return binary(
      op, x, y, [](double, double) { return 0.0; },
      [&](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b < 0 || b >= width)
          return 0;
        // The driver wraps the result to the type's width (drops the bits shifted out).
        return left ? int64_t(uint64_t(a) << b) : int64_t(uint64_t(a) >> b);
      });
}

} // namespace

std::optional<EvalResult> aicc::reference::detail::evalElementwiseOp(Operation *op, Operands in) {
  auto divUndefined = "integer division by zero";
  return llvm::TypeSwitch<Operation *, std::optional<EvalResult>>(op)
      // Binary arithmetic (ONNX Add, Sub, Mul, Div, Pow, Min, Max, Mod, PRelu).
      .Case([&](AddOp) {
        return binary(
            op, *in[0], *in[1], [](double a, double b) { return a + b; },
            [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapAdd(a, b); });
      })
      .Case([&](SubOp) {
        return binary(
            op, *in[0], *in[1], [](double a, double b) { return a - b; },
            [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapSub(a, b); });
      })
      .Case([&](MulOp) {
        return binary(
            op, *in[0], *in[1], [](double a, double b) { return a * b; },
            [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapMul(a, b); });
      })
      .Case([&](DivOp) {
        return binary(
            op, *in[0], *in[1], [](double a, double b) { return a / b; }, divI, divUndefined);
      })
      .Case([&](PowOp) {
        return binary(
            op, *in[0], *in[1], [](double a, double b) { return std::pow(a, b); }, powI,
            "integer power with a negative exponent");
      })
      .Case([&](MinOp) {
        return binary(op, *in[0], *in[1], minF, [](int64_t a, int64_t b) -> std::optional<int64_t> {
          return std::min(a, b);
        });
      })
      .Case([&](MaxOp) {
        return binary(op, *in[0], *in[1], maxF, [](int64_t a, int64_t b) -> std::optional<int64_t> {
          return std::max(a, b);
        });
      })
      .Case([&](ModOp m) {
        bool fmod = m.getFmod();
        return binary(
            op, *in[0], *in[1], [&](double a, double b) { return modF(a, b, fmod); },
            [&](int64_t a, int64_t b) { return modI(a, b, fmod); }, "integer modulo by zero");
      })
      .Case([&](PReluOp) {
        return binary(op, *in[0], *in[1], preluF,
                      [](int64_t x, int64_t s) -> std::optional<int64_t> {
                        return x < 0 ? wrapMul(s, x) : x;
                      });
      })
      // Logic (ONNX And, Or, Xor; bitwise on integers), Not.
      .Case([&](AndOp) {
        return binaryInt(op, *in[0], *in[1], [](int64_t a, int64_t b) { return a & b; });
      })
      .Case([&](OrOp) {
        return binaryInt(op, *in[0], *in[1], [](int64_t a, int64_t b) { return a | b; });
      })
      .Case([&](XorOp) {
        return binaryInt(op, *in[0], *in[1], [](int64_t a, int64_t b) { return a ^ b; });
      })
      .Case([&](BitShiftOp o) { return evalBitShift(o, *in[0], *in[1]); })
      .Case([&](NotOp) -> EvalResult {
        Tensor r = Tensor::zeros(resultType(op));
        for (int64_t i = 0, n = r.numElements(); i < n; ++i)
          r.ints[i] = in[0]->ints[i] ? 0 : 1;
        return r;
      })
      // Comparisons (ONNX Equal, Less, LessOrEqual, Greater, GreaterOrEqual): NaN compares
      // false.
      .Case([&](EqualOp) {
        return comparison(op, *in[0], *in[1], [](auto a, auto b) { return a == b; });
      })
      .Case([&](LessOp) {
        return comparison(op, *in[0], *in[1], [](auto a, auto b) { return a < b; });
      })
      .Case([&](LessEqualOp) {
        return comparison(op, *in[0], *in[1], [](auto a, auto b) { return a <= b; });
      })
      .Case([&](GreaterOp) {
        return comparison(op, *in[0], *in[1], [](auto a, auto b) { return a > b; });
      })
      .Case([&](GreaterEqualOp) {
        return comparison(op, *in[0], *in[1], [](auto a, auto b) { return a >= b; });
      })
      .Case([&](WhereOp w) { return evalWhere(w, *in[0], *in[1], *in[2]); })
      .Case([&](CastOp c) { return evalCast(c, *in[0]); })
      .Case([&](ClipOp c) { return evalClip(c, *in[0]); })
      // Unary math on floats (ONNX operator of the same name; libm in double).
      .Case([&](ReluOp) { return unaryFloat(op, *in[0], relu); })
      .Case([&](TanhOp) { return unaryFloat(op, *in[0], [](double x) { return std::tanh(x); }); })
      .Case([&](SigmoidOp) { return unaryFloat(op, *in[0], sigmoid); })
      .Case([&](ExpOp) { return unaryFloat(op, *in[0], [](double x) { return std::exp(x); }); })
      .Case([&](ErfOp) { return unaryFloat(op, *in[0], [](double x) { return std::erf(x); }); })
      .Case([&](CeilOp) { return unaryFloat(op, *in[0], [](double x) { return std::ceil(x); }); })
      .Case([&](FloorOp) { return unaryFloat(op, *in[0], [](double x) { return std::floor(x); }); })
      .Case([&](RoundOp) { return unaryFloat(op, *in[0], roundHalfEven); })
      .Case([&](SqrtOp) { return unaryFloat(op, *in[0], [](double x) { return std::sqrt(x); }); })
      .Case([&](ReciprocalOp) { return unaryFloat(op, *in[0], reciprocal); })
      .Case([&](LogOp) { return unaryFloat(op, *in[0], [](double x) { return std::log(x); }); })
      .Case([&](SinOp) { return unaryFloat(op, *in[0], [](double x) { return std::sin(x); }); })
      .Case([&](CosOp) { return unaryFloat(op, *in[0], [](double x) { return std::cos(x); }); })
      .Case([&](TanOp) { return unaryFloat(op, *in[0], [](double x) { return std::tan(x); }); })
      .Case([&](AsinOp) { return unaryFloat(op, *in[0], [](double x) { return std::asin(x); }); })
      .Case([&](AcosOp) { return unaryFloat(op, *in[0], [](double x) { return std::acos(x); }); })
      .Case([&](AtanOp) { return unaryFloat(op, *in[0], [](double x) { return std::atan(x); }); })
      .Case([&](SinhOp) { return unaryFloat(op, *in[0], [](double x) { return std::sinh(x); }); })
      .Case([&](CoshOp) { return unaryFloat(op, *in[0], [](double x) { return std::cosh(x); }); })
      .Case([&](AsinhOp) { return unaryFloat(op, *in[0], [](double x) { return std::asinh(x); }); })
      .Case([&](AcoshOp) { return unaryFloat(op, *in[0], [](double x) { return std::acosh(x); }); })
      .Case([&](AtanhOp) { return unaryFloat(op, *in[0], [](double x) { return std::atanh(x); }); })
      .Case([&](SoftplusOp) { return unaryFloat(op, *in[0], softplus); })
      .Case([&](SoftsignOp) { return unaryFloat(op, *in[0], softsign); })
      .Case([&](HardSwishOp) { return unaryFloat(op, *in[0], hardSwish); })
      .Case([&](GeluOp g) -> EvalResult {
        StringRef approx = g.getApproximate();
        if (approx != "none" && approx != "tanh")
          return evalError(op) << "unknown gelu approximation '" << approx << "'", failure();
        return unaryFloat(op, *in[0], approx == "tanh" ? geluTanh : geluErf);
      })
      // Unary ops with attributes.
      .Case([&](LeakyReluOp o) {
        double alpha = o.getAlpha().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return leakyRelu(x, alpha); });
      })
      .Case([&](EluOp o) {
        double alpha = o.getAlpha().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return elu(x, alpha); });
      })
      .Case([&](CeluOp o) {
        double alpha = o.getAlpha().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return celu(x, alpha); });
      })
      .Case([&](SeluOp o) {
        double alpha = o.getAlpha().convertToDouble(), gamma = o.getGamma().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return selu(x, alpha, gamma); });
      })
      .Case([&](HardSigmoidOp o) {
        double alpha = o.getAlpha().convertToDouble(), beta = o.getBeta().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return hardSigmoid(x, alpha, beta); });
      })
      .Case([&](ShrinkOp o) {
        double lambd = o.getLambd().convertToDouble(), bias = o.getBias().convertToDouble();
        return unaryFloat(op, *in[0], [&](double x) { return shrink(x, lambd, bias); });
      })
      // Unary ops on floats and integers (ONNX Neg, Abs, Sign).
      .Case([&](NegOp) { return unaryNum(op, *in[0], negF, wrapNeg); })
      .Case([&](AbsOp) { return unaryNum(op, *in[0], absF, absI); })
      .Case([&](SignOp) { return unaryNum(op, *in[0], signF, signI); })
      .Default([](Operation *) { return std::nullopt; });
}
