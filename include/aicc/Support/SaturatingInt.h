//===- SaturatingInt.h - a double as a saturated fixed-width integer -*- C++ -*-===//
//
// One rule for every place a float attribute becomes an integer constant (Clip bounds and
// Pad values in kernel templates, PadOp::fold's padded constant): truncate toward zero,
// saturate to the type's range, NaN -> 0, so a folded constant and a kernel agree.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_SATURATINGINT_H
#define AICC_SUPPORT_SATURATINGINT_H

#include "llvm/ADT/APInt.h"

#include <cmath>
#include <cstdint>

namespace aicc {

/// `v` as a `width`-bit integer (signed unless `isUnsigned`), truncated toward zero and
/// saturated to the type's range; NaN gives 0.
inline llvm::APInt saturatingInt(double v, unsigned width, bool isUnsigned) {
  using llvm::APInt;
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

} // namespace aicc

#endif // AICC_SUPPORT_SATURATINGINT_H
