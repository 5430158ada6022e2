//===- StableMath.h - numerically stable elementwise forms -------*- C++ -*-===//
//
// Private to lib/Conversion/GraphToTile. The elementwise template writes the functions
// below with these forms instead of the textbook formulas, which overflow, underflow or
// cancel at the edges of the float range (docs/numerics.md lists each form, the input
// that broke the naive one, and the test/Numerics/edge-sweep.test cell that checks it).
//
// Every builder works on float tiles (ranked tensors, the kernel templates' values) or
// float scalars: `cst(v)` makes a constant `v` of x's type (a tile builder splats it).
// The result has x's type. Only arith and math ops are emitted, all of which both the
// CPU (libm) and the NVPTX (polynomial approximations) lowerings take: exp, expm1,
// log, log1p, sqrt, erfc, powf, floor, absf, maximumf (signs are set with selects:
// the CPU lowering of tile math has no math.copysign).
//
// Special values (docs/numerics.md): NaN in, NaN out; +-inf give the function's limit
// where the function is bounded (sigmoid, softsign, tanh-like), IEEE arithmetic of the
// stable form elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_GRAPHTOTILE_STABLEMATH_H
#define AICC_LIB_CONVERSION_GRAPHTOTILE_STABLEMATH_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace aicc::graph_to_tile {

struct StableMath {
  mlir::OpBuilder &b;
  mlir::Location loc;
  /// A constant of the operand's (tile or scalar) float type.
  llvm::function_ref<mlir::Value(double)> cst;

  /// 1 / (1 + e^-x) as r = 1 / (1 + e^-|x|), x < 0 ? e^-|x| r : r: e^-|x| <= 1 never
  /// overflows, and sigmoid(-89) = 2.2e-39 keeps its subnormal value instead of 1 / inf.
  mlir::Value sigmoid(mlir::Value x);
  /// log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow for x > 88.7, and
  /// log1p keeps softplus(-100) = 3.7e-44 (log(1 + tiny) is 0).
  mlir::Value softplus(mlir::Value x);
  /// x / (1 + |x|), +-1 at +-inf (inf / inf is NaN).
  mlir::Value softsign(mlir::Value x);
  /// e^x - 1 (math.expm1: exp(x) - 1 is 0 for |x| < 2^-25).
  mlir::Value expm1(mlir::Value x);
  /// sinh: |x| < 1: (t + t / (t + 1)) / 2, t = expm1(|x|) (no cancellation for tiny x);
  /// else p - 1 / (4p), p = e^(|x|/2) e^(|x|/2) / 2 (finite up to sinh's own overflow at
  /// 89.4, where e^x overflowed at 88.7); sign of x (fdlibm e_sinh.c uses the same split).
  mlir::Value sinh(mlir::Value x);
  /// cosh = p + 1 / (4p), p as for sinh: exact for every |x|, finite up to cosh's overflow.
  mlir::Value cosh(mlir::Value x);
  /// asinh = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), or log|x| + ln 2 for
  /// |x| > 2^12 (x^2 would overflow at 1.8e19); fdlibm s_asinh.c.
  mlir::Value asinh(mlir::Value x);
  /// acosh = log1p(t + sqrt(t (t + 2))), t = x - 1 (no cancellation near 1), or
  /// log(x) + ln 2 for x > 2^12; NaN for x < 1; fdlibm e_acosh.c.
  mlir::Value acosh(mlir::Value x);
  /// atanh = sign(x) log1p(2|x| / (1 - |x|)) / 2 (log((1 + x) / (1 - x)) / 2 is 0 for
  /// tiny x); +-inf at +-1, NaN beyond; fdlibm e_atanh.c.
  mlir::Value atanh(mlir::Value x);
  /// Gelu (exact): x erfc(-x / sqrt 2) / 2. The same value as x (1 + erf(x / sqrt 2)) / 2,
  /// whose 1 + erf cancels for x < -3 (Gelu(-10) = -7.6e-23, not 0).
  mlir::Value geluErf(mlir::Value x);
  /// Gelu (tanh): x sigmoid(2u), u = sqrt(2 / pi) (x + 0.044715 x^3), using
  /// 1 + tanh(u) = 2 sigmoid(2u); the stable sigmoid keeps Gelu_tanh(-10) = -1.2e-37
  /// where 1 + tanh(u) cancelled to 0.
  mlir::Value geluTanh(mlir::Value x);
  /// C99 / IEEE 754 pow (C11 Annex F.10.4.4) around a powf of a non-negative base: pow(x,
  /// +-0) = 1 and pow(+1, y) = 1 even for NaN, pow(-1, +-inf) = 1, the sign of odd integer
  /// powers of negative x and of -0 (pow(-0, -3) = -inf), NaN for negative finite x and a
  /// finite non-integer y. The backend's powf then only sees |x| (the GPU expands it to
  /// exp(y log|x|), which had none of these cases).
  mlir::Value pow(mlir::Value x, mlir::Value y);
};

} // namespace aicc::graph_to_tile

#endif // AICC_LIB_CONVERSION_GRAPHTOTILE_STABLEMATH_H
