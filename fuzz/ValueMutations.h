//===- ValueMutations.h - Mutations of single values for the fuzzers -*- C++ -*-===//
//
// The value-level edits the custom mutators share: integers and floats moved to boundary
// values (the "interesting values" tables of AFL and libFuzzer), bit flips, small deltas,
// and libFuzzer's own byte mutator (LLVMFuzzerMutate) on strings.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_FUZZ_VALUEMUTATIONS_H
#define AICC_FUZZ_VALUEMUTATIONS_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

/// libFuzzer's byte mutator (provided by -fsanitize=fuzzer).
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace aicc::fuzz {

/// The random source of one mutation, seeded by libFuzzer's `seed` argument (so a mutation
/// is reproducible).
using Rng = std::mt19937_64;

/// mutateBytes: LLVMFuzzerMutate applied to a copy of `s`; the result has at most
/// max(maxSize, s.size()) bytes.
/// interestingInt: a value from a table of boundary integers (0, ±1, powers of two and their
/// neighbours, INT32 / INT64 limits).
/// mutateInt: `v` changed by a small delta, a flipped bit, an interesting or a small value.
/// mutateFloat: `v` replaced by a special value (±0, ±inf, NaN, subnormal, ±FLT_MAX, ±1e30,
/// exp's overflow edge), scaled, or with one bit of its float32 pattern flipped.
inline std::string mutateBytes(const std::string &s, size_t maxSize) {
  size_t cap = std::max<size_t>({maxSize, s.size(), 1});
  std::string buf = s;
  buf.resize(cap);
  size_t n = LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(buf.data()), s.size(), cap);
  buf.resize(n);
  return buf;
}

inline int64_t interestingInt(Rng &rng) {
  static const int64_t kValues[] = {
      0, 1, -1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 255, 256, 1023, 1024,
      4096, 32767, 32768, 65535, 65536, (1LL << 31) - 1, 1LL << 31, (1LL << 32) - 1, 1LL << 32,
      1LL << 40, 1LL << 48, 1LL << 62, std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min(), -2, -128, -32768, -(1LL << 31), -(1LL << 32)};
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

inline int64_t mutateInt(int64_t v, Rng &rng) {
  switch (rng() % 5) {
  case 0:
    return static_cast<int64_t>(static_cast<uint64_t>(v) + (rng() % 9) - 4);
  case 1:
    return static_cast<int64_t>(static_cast<uint64_t>(v) ^ (1ULL << (rng() % 64)));
  case 2:
  case 3:
    return interestingInt(rng);
  default:
    return static_cast<int64_t>(rng() % 17);
  }
}

inline double mutateFloat(double v, Rng &rng) {
  static const double kValues[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   0.5,
                                   2.0,
                                   1e-7,
                                   1e30,
                                   -1e30,
                                   1e-30,
                                   88.8,
                                   -88.8,
                                   std::numeric_limits<float>::max(),
                                   -std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::denorm_min(),
                                   std::numeric_limits<float>::min(),
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN()};
  switch (rng() % 4) {
  case 0:
  case 1:
    return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
  case 2:
    return v * (static_cast<double>(rng() % 2001) / 1000.0 - 1.0) + 1.0;
  default: {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits ^= 1u << (rng() % 32);
    std::memcpy(&f, &bits, 4);
    return f;
  }
  }
}

} // namespace aicc::fuzz

#endif // AICC_FUZZ_VALUEMUTATIONS_H
