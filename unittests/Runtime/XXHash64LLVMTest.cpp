//===- XXHash64LLVMTest.cpp - The runtime's XXH64 equals llvm::xxHash64 ---===//
//
// The runtime carries its own XXH64 (it must build without LLVM); the
// compiler side could hash with llvm::xxHash64 (llvm/Support/xxhash.h, XXH64
// with seed 0). Both must give the same checksums: compared on every length
// from 0 to 1100 bytes (all tail combinations, several stripes) and on 1 MiB.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/XXHash64.h"

#include "llvm/Support/xxhash.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

TEST(XXHash64LLVMTest, EqualsLLVMOnEveryLength) {
  std::mt19937_64 gen(42);
  std::vector<uint8_t> buf(1100);
  for (uint8_t &b : buf)
    b = static_cast<uint8_t>(gen());
  for (size_t n = 0; n <= buf.size(); ++n)
    ASSERT_EQ(aicc::runtime::xxHash64(buf.data(), n),
              llvm::xxHash64(llvm::ArrayRef<uint8_t>(buf.data(), n)))
        << "length " << n;
  std::vector<uint8_t> big(1 << 20);
  for (uint8_t &b : big)
    b = static_cast<uint8_t>(gen());
  EXPECT_EQ(aicc::runtime::xxHash64(big.data(), big.size()), llvm::xxHash64(big));
}
