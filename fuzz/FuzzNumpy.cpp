//===- FuzzNumpy.cpp - libFuzzer target: the .npy / .npz reader ------------===//
//
// aicc-fuzz-numpy: each input is an .npy file (when it starts with numpy's magic) or an .npz
// archive, given to aicc::runtime::parseNpy / parseNpz (include/aicc/Runtime/NumpyData.h),
// the readers of aicc-run --input.
//
// Oracles beyond "no crash": an accepted tensor holds exactly product(shape) x element size
// bytes (bools 0 or 1), and an accepted .npy survives a round trip through serializeNpy with
// the same type, shape and bytes. Seeds: the numpy files of unittests/Runtime/testdata
// (fuzz/make-seeds.sh); libFuzzer's byte mutations with fuzz/numpy.dict.
//
//===----------------------------------------------------------------------===//
#include "aicc/Runtime/NumpyData.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace aicc::runtime;

namespace {
/// Inputs above this size are rejected at once (libFuzzer's -max_len should be lower).
constexpr size_t kMaxInputBytes = 1 << 20;
/// The cap on an array's bytes: a small archive must not inflate to gigabytes.
constexpr uint64_t kMaxArrayBytes = 64 << 20;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "aicc-fuzz-numpy: %s: %s\n", what, detail.c_str());
  std::abort();
}

void checkTensor(const HostTensor &t) {
  uint64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0)
      fail("accepted a negative dim", formatTensorType(t.dtype, t.shape));
    n *= static_cast<uint64_t>(d);
  }
  if (t.data.size() != n * dtypeSize(t.dtype))
    fail("accepted tensor with inconsistent size", formatTensorType(t.dtype, t.shape) +
                                                       " holding " + std::to_string(t.data.size()) +
                                                       " bytes");
  if (t.dtype == DType::boolean)
    for (uint8_t b : t.data)
      if (b > 1)
        fail("accepted a bool that is not 0 or 1", std::to_string(b));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
    HostTensor t;
    if (!parseNpy(bytes, t, kMaxArrayBytes).ok)
      return 0;
    checkTensor(t);
    std::string again;
    if (Status s = serializeNpy(t, again); !s.ok)
      fail("accepted tensor does not serialize", s.message);
    HostTensor back;
    if (Status s = parseNpy(again, back, kMaxArrayBytes); !s.ok)
      fail("serialized tensor does not parse", s.message);
    if (back.dtype != t.dtype || back.shape != t.shape || back.data != t.data)
      fail("round trip changed the tensor",
           formatTensorType(t.dtype, t.shape) + " -> " + formatTensorType(back.dtype, back.shape));
    return 0;
  }
  std::vector<NamedTensor> members;
  if (!parseNpz(bytes, members, kMaxArrayBytes).ok)
    return 0;
  for (const NamedTensor &m : members)
    checkTensor(m.tensor);
  return 0;
}
