//===- FuzzTensorProto.cpp - libFuzzer target: the TensorProto (.pb) reader ---===//
//
// aicc-fuzz-tensorproto: each input is a serialized onnx.TensorProto (an input_K.pb /
// output_K.pb of ONNX test data) given to aicc::runtime::parseTensorProto
// (include/aicc/Runtime/ONNXData.h), the reader aicc-run uses for --input and
// --test-data-set.
//
// Oracles beyond "no crash": an accepted tensor holds exactly product(dims) x element size
// bytes, and it survives a round trip through serializeTensorProto with the same type, shape,
// bytes and name. The custom mutator edits the parsed message (ProtoMutator.h with the ONNX
// hooks of ONNXMutations.h: data types, raw_data sized to the dims).
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "ONNXMutations.h"

#include "aicc/Runtime/ONNXData.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>

using namespace aicc::fuzz;
using namespace aicc::runtime;

namespace {
/// Inputs above this size are rejected at once (libFuzzer's -max_len should be lower).
constexpr size_t kMaxInputBytes = 1 << 20;

ProtoMutator &mutator() {
  static ProtoMutator *m = [] {
    auto *p = new ProtoMutator();
    addONNXMutations(*p);
    return p;
  }();
  return *m;
}

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "aicc-fuzz-tensorproto: %s: %s\n", what, detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  HostTensor t;
  std::string name;
  if (!parseTensorProto(bytes, t, &name).ok)
    return 0;
  std::optional<int64_t> numel = shapeNumElements(t.shape);
  if (!numel || t.data.size() != static_cast<uint64_t>(*numel) * dtypeSize(t.dtype))
    fail("accepted tensor with inconsistent size",
         formatTensorType(t.dtype, t.shape) + " holding " + std::to_string(t.data.size()) +
             " bytes");
  std::string again;
  if (Status s = serializeTensorProto(t, name, again); !s.ok)
    fail("accepted tensor does not serialize", s.message);
  HostTensor back;
  std::string backName;
  if (Status s = parseTensorProto(again, back, &backName); !s.ok)
    fail("serialized tensor does not parse", s.message);
  if (back.dtype != t.dtype || back.shape != t.shape || back.data != t.data ||
      backName != name)
    fail("round trip changed the tensor", formatTensorType(t.dtype, t.shape) + " -> " +
                                              formatTensorType(back.dtype, back.shape));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  static onnx::TensorProto prototype;
  return mutateSerialized(prototype, mutator(), data, size, maxSize, seed);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                            const uint8_t *data2, size_t size2, uint8_t *out,
                                            size_t maxOutSize, unsigned int seed) {
  static onnx::TensorProto prototype;
  return crossOverSerialized(prototype, mutator(), data1, size1, data2, size2, out,
                             maxOutSize, seed);
}
