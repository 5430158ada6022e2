//===- NumpyData.h - numpy .npy / .npz files <-> HostTensor ------*- C++ -*-===//
//
// Reads the files numpy writes with numpy.save (.npy) and numpy.savez /
// savez_compressed (.npz), for aicc-run --input; writes .npy. Lives in its own
// library, AICCNumpyData (it needs zlib for compressed .npz), so that
// AICCRuntime keeps no dependency beyond libc.
//
// The input is untrusted: every size is checked before it is used, nothing is
// read past the end of the bytes, and each error says where the problem is
// (byte offset, archive member) and what was expected.
//
// Formats: numpy's NEP 1 ("A simple file format for NumPy arrays",
// numpy/lib/format.py), versions 1.0, 2.0 and 3.0; PKWARE's APPNOTE.TXT 6.3 for
// the zip container (no ZIP64, no encryption; members stored or deflated).
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_NUMPYDATA_H
#define AICC_RUNTIME_NUMPYDATA_H

#include "aicc/Runtime/Session.h"
#include "aicc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aicc::runtime {

/// The largest number of dims an .npy array may have (numpy's own limit is 64).
constexpr size_t kMaxNpyRank = 64;

/// Decodes one .npy file's bytes into `out`. Accepted: format versions 1.0,
/// 2.0 (4-byte header length) and 3.0 (UTF-8 header); C order
/// ('fortran_order': False); little-endian ('<'), byte-order-free ('|') or
/// native ('=', this runtime being little-endian) dtypes f2, f4, f8, i1, i2,
/// i4, i8, u1, u2, u4, u8 and b1 (bool; every byte must be 0 or 1). There is no
/// numpy bfloat16: give a bfloat16 input as a uint16 array of its bit patterns
/// (adoptLegacyBFloat16 relabels it). The data must be exactly
/// product(shape) * itemsize bytes, and at most `maxBytes`.
/// Errors: bad magic or version, a header that is not the dict numpy writes
/// (with the byte offset of the problem), Fortran order, big-endian or
/// unsupported dtypes (complex, object, strings, structured), negative or
/// overflowing dims, data shorter or longer than the shape says.
Status parseNpy(std::string_view bytes, HostTensor &out, uint64_t maxBytes = UINT64_MAX);

/// One array of an .npz archive: `name` is the member's file name without the
/// ".npy" suffix ("x" for x.npy, "arr_0" for numpy.savez's positional arrays).
struct NamedTensor {
  std::string name;
  HostTensor tensor;
};

/// Decodes an .npz archive (a zip of .npy members, each stored or deflated, as
/// numpy.savez and numpy.savez_compressed write) into `out`, in the order of
/// the archive's central directory. Every member must be a valid .npy
/// (parseNpy) named NAME.npy, the names distinct. A member's uncompressed size
/// is checked against `maxBytes` before it is inflated, and its CRC-32 after.
/// Errors name the member and say what is wrong (truncated archive, ZIP64 or
/// encrypted members, unsupported compression, a size or CRC mismatch, ...).
Status parseNpz(std::string_view bytes, std::vector<NamedTensor> &out,
                uint64_t maxBytes = UINT64_MAX);

/// Reads the regular file at `path` (readRegularFile(): at most `maxBytes`
/// bytes) and decodes it with parseNpy(). Errors name the path.
Status readNpyFile(const std::string &path, HostTensor &out, uint64_t maxBytes = UINT64_MAX);

/// Reads the regular file at `path` (at most `maxBytes` bytes) and decodes it
/// with parseNpz(); each member is also capped at `maxBytes`. Errors name the
/// path.
Status readNpzFile(const std::string &path, std::vector<NamedTensor> &out,
                   uint64_t maxBytes = UINT64_MAX);

/// Encodes `tensor` as an .npy file (format 1.0, C order, little-endian; bf16
/// as '<u2' bit patterns) into `out`. Fails when tensor.data.size() does not
/// match its shape and dtype.
Status serializeNpy(const HostTensor &tensor, std::string &out);

} // namespace aicc::runtime

#endif // AICC_RUNTIME_NUMPYDATA_H
