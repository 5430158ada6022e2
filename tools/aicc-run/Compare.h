//===- Compare.h - aicc-run's element access and output comparison -*- C++ -*-===//
//
// Private to tools/aicc-run: reading host tensor elements as doubles and comparing outputs
// with expected ones by numpy.allclose's rule. MLIR-free (aicc-run builds without LLVM).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TOOLS_AICC_RUN_COMPARE_H
#define AICC_TOOLS_AICC_RUN_COMPARE_H

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aicc::run {

/// IEEE binary16 bits -> double (exact).
double halfToDouble(uint16_t h);

/// bfloat16 bits -> double (exact): the upper half of an IEEE binary32.
double bf16ToDouble(uint16_t b);

/// Element `i` of `t` as a double (exact for every dtype except i64 values beyond 2^53).
/// `i` must be below t.numElements().
double elementAsDouble(const runtime::HostTensor &t, int64_t i);

/// True for the 64-bit integer dtypes, whose values a double does not hold exactly beyond
/// 2^53: compare() checks their bits for equality first.
bool is64BitInteger(runtime::DType d);

/// "[2,3]".
std::string formatShape(const std::vector<int64_t> &shape);

/// The outcome of compare(): the largest errors over all elements and how many elements
/// failed the tolerance.
struct Comparison {
  double maxAbsErr = 0;
  double maxRelErr = 0;
  int64_t numMismatches = 0;
  std::string problem; // a type/shape mismatch; empty when comparable
  bool pass() const { return problem.empty() && numMismatches == 0; }
};

/// Compares with numpy.allclose's rule |got - exp| <= atol + rtol * |exp|, in double;
/// NaN == NaN and equal infinities count as equal; bfloat16 results one unit in the last
/// place from the expected value pass too (ONNX leaves float -> bfloat16 rounding open).
Comparison compare(const runtime::HostTensor &got, const runtime::HostTensor &exp, double rtol,
                   double atol);

} // namespace aicc::run

#endif // AICC_TOOLS_AICC_RUN_COMPARE_H
