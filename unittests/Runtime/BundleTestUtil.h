//===- BundleTestUtil.h - Byte-level bundle helpers for the tests -*- C++ -*-===//
//
// Builds bundle files byte by byte, the way docs/bundle-format.md lays them
// out, independently of serializeBundle(): framing, and version 3's closing
// checksum record (so tests can make consistent edits that still pass the
// integrity check and reach the checks behind it).
//
//===----------------------------------------------------------------------===//

#ifndef AICC_UNITTESTS_RUNTIME_BUNDLETESTUTIL_H
#define AICC_UNITTESTS_RUNTIME_BUNDLETESTUTIL_H

#include "aicc/Runtime/XXHash64.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace aicc::runtime::test {

/// `v` as 8 little-endian bytes.
inline std::string u64le(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i)
    s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

/// Frames a manifest, code and weights: magic, then each section after its
/// u64 size.
inline std::string frame(const std::string &manifest, const std::string &code = "ELF",
                         const std::string &weights = std::string(128, '\x01')) {
  return "AICCBND1" + u64le(manifest.size()) + manifest + u64le(code.size()) + code +
         u64le(weights.size()) + weights;
}

/// 16 lower-case hex digits.
inline std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// `records` (a version-3 manifest without its last record, ending in a
/// newline) with the checksum record appended: XXH64 of the code, of the
/// weights, then of every manifest byte before the manifest's own field.
inline std::string withChecksum(const std::string &records, const std::string &code,
                                const std::string &weights) {
  std::string m =
      records + "checksum xxh64 " + hex64(xxHash64(code)) + " " + hex64(xxHash64(weights)) + " ";
  return m + hex64(xxHash64(m)) + "\n";
}

/// A framed version-3 bundle of `records`, `code` and `weights`, checksummed.
inline std::string sealed(const std::string &records, const std::string &code = "ELF",
                          const std::string &weights = std::string(128, '\x01')) {
  return frame(withChecksum(records, code, weights), code, weights);
}

} // namespace aicc::runtime::test

#endif // AICC_UNITTESTS_RUNTIME_BUNDLETESTUTIL_H
