//===- Compare.cpp - aicc-run's element access and output comparison ------===//
//
// See Compare.h.
//
//===----------------------------------------------------------------------===//
#include "Compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace aicc::runtime;

namespace aicc::run {


/// IEEE binary16 bits -> double (exact).
double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}

/// bfloat16 bits -> double (exact): the upper half of an IEEE binary32.
double bf16ToDouble(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// Element `i` of `t` as a double (exact for every dtype except i64 values
/// beyond 2^53).
double elementAsDouble(const HostTensor &t, int64_t i) {
  const uint8_t *p = t.data.data() + i * dtypeSize(t.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case DType::f32:
    return load(float());
  case DType::f64:
    return load(double());
  case DType::f16:
    return halfToDouble(load(uint16_t()));
  case DType::bf16:
    return bf16ToDouble(load(uint16_t()));
  case DType::i64:
    return static_cast<double>(load(int64_t()));
  case DType::i32:
    return load(int32_t());
  case DType::i16:
    return load(int16_t());
  case DType::i8:
    return load(int8_t());
  case DType::u64:
    return static_cast<double>(load(uint64_t()));
  case DType::u32:
    return load(uint32_t());
  case DType::u16:
    return load(uint16_t());
  case DType::u8:
  case DType::boolean:
    return load(uint8_t());
  }
  return 0;
}

/// True for the 64-bit integer dtypes, whose values a double does not hold
/// exactly beyond 2^53: compare() checks their bits for equality first.
bool is64BitInteger(DType d) { return d == DType::i64 || d == DType::u64; }

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Compares with numpy.allclose's rule |got - exp| <= atol + rtol * |exp|,
/// in double; NaN == NaN and equal infinities count as equal.
Comparison compare(const HostTensor &got, const HostTensor &exp, double rtol,
                   double atol) {
  Comparison c;
  if (got.dtype != exp.dtype || got.shape != exp.shape) {
    c.problem = "expected " + formatTensorType(exp.dtype, exp.shape) +
                ", got " + formatTensorType(got.dtype, got.shape);
    return c;
  }
  const double inf = std::numeric_limits<double>::infinity();
  const int64_t n = got.numElements();
  for (int64_t i = 0; i < n; ++i) {
    if (is64BitInteger(got.dtype) &&
        std::memcmp(got.data.data() + i * 8, exp.data.data() + i * 8, 8) == 0)
      continue;
    double g = elementAsDouble(got, i), e = elementAsDouble(exp, i);
    if (is64BitInteger(got.dtype) && g == e) {
      // Distinct 64-bit integers that round to the same double.
      c.maxAbsErr = std::max(c.maxAbsErr, 1.0);
      ++c.numMismatches;
      continue;
    }
    if (std::isnan(g) || std::isnan(e)) {
      if (std::isnan(g) && std::isnan(e))
        continue;
      c.maxAbsErr = c.maxRelErr = inf;
      ++c.numMismatches;
      continue;
    }
    if (g == e)
      continue; // also covers equal infinities
    double abs = std::fabs(g - e);
    double rel = e != 0 ? abs / std::fabs(e) : inf;
    c.maxAbsErr = std::max(c.maxAbsErr, abs);
    c.maxRelErr = std::max(c.maxRelErr, rel);
    // bfloat16 keeps 8 significant bits: a result one unit in the last place
    // away (2^(exponent - 7)) from the expected value also passes, since ONNX
    // leaves the float -> bfloat16 rounding open (onnx < 1.13 test data
    // truncates, newer data rounds to nearest even).
    double tol = atol + rtol * std::fabs(e);
    if (got.dtype == DType::bf16 && std::isfinite(e) && e != 0)
      tol = std::max(tol, std::ldexp(1.0, std::ilogb(e) - 7));
    if (!(abs <= tol))
      ++c.numMismatches;
  }
  return c;
}

} // namespace aicc::run
