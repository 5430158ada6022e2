//===- CheckedSize.h - overflow-checked element counts and sizes -*- C++ -*-===//
//
// The one size discipline of the compiler's front end (issue 14): every element
// count, byte size and index derived from a model (dims, attributes, constant
// operands) is computed with these helpers, which are thin wrappers over
// llvm/Support/CheckedArithmetic.h, and is compared with a documented cap
// before anything is allocated or a type is built from it.
//
//   - CheckedInt: an int64_t that remembers an overflow (or a division by zero)
//     of any operation it took part in, so that a formula such as
//     `(in + padBegin + padEnd - span) / stride + 1` is written as such and
//     checked once at the end with valid().
//   - checkedElementCount / checkedByteSize: the element count and the byte
//     size of a static shape, or nullopt when a dim is negative (or dynamic)
//     or the product does not fit int64_t.
//
// Caps (the defaults; the importer's ImportOptions and aicc-compile's
// --max-tensor-bytes override the first):
//   kDefaultMaxTensorBytes  16 GiB: one tensor (input, output, constant or
//                           intermediate) of the model. Real models stay far
//                           below (the biggest weight of a 405B-parameter LLM,
//                           its embedding, is ~4 GiB in bf16).
//   kMaxModelFileBytes      2 GiB - 1: a .onnx file (protobuf's limit on one
//                           message; bigger weights are external data) and a
//                           --bind-input TensorProto file.
//
// Header only; no MLIR dependency (usable by any aicc library except
// lib/Runtime, which must build without LLVM).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_CHECKEDSIZE_H
#define AICC_SUPPORT_CHECKEDSIZE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace aicc {

/// Default cap on the bytes of one tensor of a model (see the file comment).
constexpr uint64_t kDefaultMaxTensorBytes = uint64_t(16) << 30;
/// Cap on the bytes of a serialized ModelProto / TensorProto file.
constexpr uint64_t kMaxModelFileBytes = (uint64_t(1) << 31) - 1;

/// An int64_t whose arithmetic records overflow instead of wrapping (signed
/// overflow is undefined behaviour in C++). Once invalid, it stays invalid;
/// value() of an invalid CheckedInt is 0. Division or remainder by zero and
/// INT64_MIN / -1 are invalid too. Division truncates toward zero (C++).
class CheckedInt {
public:
  constexpr CheckedInt(int64_t v = 0) : v(v) {}
  static CheckedInt invalid() {
    CheckedInt c;
    c.ok = false;
    return c;
  }

  bool valid() const { return ok; }
  /// The value; 0 when invalid.
  int64_t value() const { return ok ? v : 0; }
  /// The value, or nullopt when invalid.
  std::optional<int64_t> get() const {
    return ok ? std::optional<int64_t>(v) : std::nullopt;
  }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) {
    return a.combine(b, llvm::checkedAdd<int64_t>(a.v, b.v));
  }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) {
    return a.combine(b, llvm::checkedSub<int64_t>(a.v, b.v));
  }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) {
    return a.combine(b, llvm::checkedMul<int64_t>(a.v, b.v));
  }
  friend CheckedInt operator/(CheckedInt a, CheckedInt b) {
    if (b.v == 0 || (a.v == std::numeric_limits<int64_t>::min() && b.v == -1))
      return invalid();
    return a.combine(b, std::optional<int64_t>(a.v / b.v));
  }
  friend CheckedInt operator%(CheckedInt a, CheckedInt b) {
    if (b.v == 0 || (a.v == std::numeric_limits<int64_t>::min() && b.v == -1))
      return invalid();
    return a.combine(b, std::optional<int64_t>(a.v % b.v));
  }
  CheckedInt &operator+=(CheckedInt o) { return *this = *this + o; }
  CheckedInt &operator-=(CheckedInt o) { return *this = *this - o; }
  CheckedInt &operator*=(CheckedInt o) { return *this = *this * o; }

private:
  CheckedInt combine(CheckedInt o, std::optional<int64_t> r) const {
    if (!ok || !o.ok || !r)
      return invalid();
    return CheckedInt(*r);
  }

  int64_t v;
  bool ok = true;
};

/// Number of elements of a tensor of `shape` (row-major, any rank; rank 0 has
/// one element), or nullopt when a dim is negative (MLIR's dynamic dim is
/// negative) or the product does not fit int64_t.
inline std::optional<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> shape) {
  CheckedInt n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    n *= d;
  }
  return n.get();
}

/// Bytes of a tensor of `shape` with `elementBytes` bytes per element (bool: 1),
/// or nullopt as checkedElementCount, or when the byte count does not fit int64_t.
inline std::optional<int64_t> checkedByteSize(llvm::ArrayRef<int64_t> shape,
                                              int64_t elementBytes) {
  std::optional<int64_t> n = checkedElementCount(shape);
  if (!n || elementBytes < 0)
    return std::nullopt;
  return (CheckedInt(*n) * elementBytes).get();
}

} // namespace aicc

#endif // AICC_SUPPORT_CHECKEDSIZE_H
