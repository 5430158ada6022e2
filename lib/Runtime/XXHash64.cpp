//===- XXHash64.cpp - XXH64 (xxHash specification v0.1.1) -----------------===//
//
// A direct transcription of the specification's "XXH64 Algorithm Description":
// four accumulators over 32-byte stripes, merged, then the remaining 8-, 4- and
// 1-byte lanes, then the avalanche. Section numbers below are the spec's.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/XXHash64.h"

#include <cstring>

using namespace aicc::runtime;

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/// Little-endian loads (the spec reads lanes little-endian on every host):
/// one unaligned load on little-endian hosts, assembled bytes elsewhere.
inline uint64_t read64(const unsigned char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
#else
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
#endif
}
inline uint64_t read32(const unsigned char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
#else
  uint64_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
#endif
}

/// Step 2: one lane into one accumulator.
inline uint64_t round(uint64_t acc, uint64_t lane) {
  acc += lane * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}

/// Step 3: folding an accumulator into the converged value.
inline uint64_t mergeAccumulator(uint64_t acc, uint64_t accN) {
  acc ^= round(0, accN);
  return acc * kPrime1 + kPrime4;
}

} // namespace

uint64_t aicc::runtime::xxHash64(const void *data, size_t size, uint64_t seed) {
  const auto *p = static_cast<const unsigned char *>(data);
  const unsigned char *const end = p + size;
  uint64_t acc;
  if (size >= 32) {
    // Step 1: initialise the four accumulators; step 2: process stripes.
    uint64_t v1 = seed + kPrime1 + kPrime2, v2 = seed + kPrime2, v3 = seed, v4 = seed - kPrime1;
    const unsigned char *const limit = end - 32;
    do {
      v1 = round(v1, read64(p));
      v2 = round(v2, read64(p + 8));
      v3 = round(v3, read64(p + 16));
      v4 = round(v4, read64(p + 24));
      p += 32;
    } while (p <= limit);
    // Step 3: accumulator convergence.
    acc = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    acc = mergeAccumulator(acc, v1);
    acc = mergeAccumulator(acc, v2);
    acc = mergeAccumulator(acc, v3);
    acc = mergeAccumulator(acc, v4);
  } else {
    // Special case: fewer than 32 bytes.
    acc = seed + kPrime5;
  }
  // Step 4: add the input length.
  acc += static_cast<uint64_t>(size);
  // Step 5: consume the remaining input.
  while (end - p >= 8) {
    acc ^= round(0, read64(p));
    acc = rotl(acc, 27) * kPrime1 + kPrime4;
    p += 8;
  }
  if (end - p >= 4) {
    acc ^= read32(p) * kPrime1;
    acc = rotl(acc, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  while (p < end) {
    acc ^= static_cast<uint64_t>(*p) * kPrime5;
    acc = rotl(acc, 11) * kPrime1;
    ++p;
  }
  // Step 6: final mix (avalanche).
  acc ^= acc >> 33;
  acc *= kPrime2;
  acc ^= acc >> 29;
  acc *= kPrime3;
  acc ^= acc >> 32;
  return acc;
}
