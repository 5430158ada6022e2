//===- XXHash64.h - The XXH64 hash, for bundle checksums --------*- C++ -*-===//
//
// XXH64 as specified in "xxHash fast digest algorithm", version 0.1.1
// (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md, section
// "XXH64 Algorithm Description"). The bundle format (docs/bundle-format.md,
// version 3) checksums every section with it: it is not cryptographic, it
// detects corruption (a flipped bit, a truncated or mixed-up file) at several
// GB/s, which matters for weights sections of gigabytes. It gives the same
// values as llvm::xxHash64 (which the compiler could use; the runtime must not
// depend on LLVM), checked by unittests/Runtime/XXHash64LLVMTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_XXHASH64_H
#define AICC_RUNTIME_XXHASH64_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace aicc::runtime {

/// XXH64 of the `size` bytes at `data` (read as little-endian 64/32-bit lanes
/// whatever the host byte order) with `seed`. `data` may be null when `size`
/// is 0. Pure function of its arguments; any alignment.
uint64_t xxHash64(const void *data, size_t size, uint64_t seed = 0);

/// XXH64 of `bytes` with seed 0 (what bundle checksums use).
inline uint64_t xxHash64(std::string_view bytes) { return xxHash64(bytes.data(), bytes.size(), 0); }

} // namespace aicc::runtime

#endif // AICC_RUNTIME_XXHASH64_H
