//===- XXHash64Test.cpp - XXH64 against published test vectors -----------===//
//
// The vectors are xxHash's own sanity checks (xxhsum, BMK_sanityCheck): a
// buffer of pseudo-random bytes (byte i = top byte of 2654435761 * P1^i, P1 =
// 11400714785074694797) hashed at lengths covering every path of the
// algorithm (short input, 4- and 8-byte lanes, 32-byte stripes), with seed 0
// and seed 2654435761. XXHash64LLVMTest.cpp also compares with
// llvm::xxHash64 where the compiler is built.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/XXHash64.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace aicc::runtime;

namespace {

std::vector<unsigned char> sanityBuffer(size_t n) {
  std::vector<unsigned char> buf(n);
  uint64_t gen = 2654435761ull;
  for (unsigned char &b : buf) {
    b = static_cast<unsigned char>(gen >> 56);
    gen *= 11400714785074694797ull;
  }
  return buf;
}

} // namespace

TEST(XXHash64Test, PublishedVectors) {
  const std::vector<unsigned char> buf = sanityBuffer(222);
  const uint64_t prime = 2654435761ull;
  struct Row {
    size_t length;
    uint64_t seed;
    uint64_t hash;
  };
  const Row rows[] = {
      {0, 0, 0xEF46DB3751D8E999ull},       {0, prime, 0xAC75FDA2929B17EFull},
      {1, 0, 0xE934A84ADB052768ull},       {1, prime, 0x5014607643A9B4C3ull},
      {4, 0, 0x9136A0DCA57457EEull},       {14, 0, 0x8282DCC4994E35C8ull},
      {14, prime, 0xC3BD6BF63DEB6DF0ull},  {222, 0, 0xB641AE8CB691C174ull},
      {222, prime, 0x20CB8AB7AE10C14Aull},
  };
  for (const Row &r : rows)
    EXPECT_EQ(xxHash64(buf.data(), r.length, r.seed), r.hash)
        << "length " << r.length << ", seed " << r.seed;
  EXPECT_EQ(xxHash64(nullptr, 0, 0), 0xEF46DB3751D8E999ull);
  // Strings (the values llvm's own xxhash tests use).
  EXPECT_EQ(xxHash64("foo"), 0x33BF00A859C4BA3Full);
  EXPECT_EQ(xxHash64("bar"), 0x48A37C90AD27A659ull);
  EXPECT_EQ(xxHash64("0123456789abcdefghijklmnopqrstuvwxyz"), 0x69196C1B3AF0BFF9ull);
}

TEST(XXHash64Test, AnyAlignmentAndEveryBitMatters) {
  const std::vector<unsigned char> buf = sanityBuffer(300);
  const uint64_t whole = xxHash64(buf.data() + 1, 257);
  // The same bytes at another address hash the same.
  std::vector<unsigned char> copy(buf.begin() + 1, buf.begin() + 258);
  EXPECT_EQ(xxHash64(copy.data(), copy.size()), whole);
  // Flipping any single bit changes the hash.
  for (size_t i = 0; i < copy.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      copy[i] ^= static_cast<unsigned char>(1u << bit);
      ASSERT_NE(xxHash64(copy.data(), copy.size()), whole) << "byte " << i << " bit " << bit;
      copy[i] ^= static_cast<unsigned char>(1u << bit);
    }
}
