//===- ONNXData.h - ONNX TensorProto files <-> HostTensor -------*- C++ -*-===//
//
// Reads and writes the serialized onnx.TensorProto files (`*.pb`) that ONNX's
// test data sets use (test_data_set_N/input_K.pb, output_K.pb). Lives in its
// own library, AICCONNXData, so that AICCRuntime does not depend on protobuf.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_ONNXDATA_H
#define AICC_RUNTIME_ONNXDATA_H

#include "aicc/Runtime/Session.h"
#include "aicc/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace aicc::runtime {

/// Decodes a serialized onnx.TensorProto into `out`; `name`, when not null,
/// receives the tensor's name. Supported element types: FLOAT, FLOAT16,
/// BFLOAT16, DOUBLE, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8,
/// BOOL. The data may be in raw_data (little-endian) or in the typed field
/// onnx.proto assigns to the type: float_data, double_data, int64_data,
/// uint64_data (UINT32, UINT64), or int32_data (INT32, INT16, INT8, UINT16,
/// UINT8, BOOL values; FLOAT16/BFLOAT16 as 16-bit patterns in the low bits).
/// Errors: malformed protobuf, unsupported data type, external or segmented
/// data, negative dimensions, or an element count that does not match the
/// dims.
Status parseTensorProto(std::string_view bytes, HostTensor &out,
                        std::string *name = nullptr);

/// The largest serialized TensorProto protobuf parses: 2^31 - 1 bytes.
constexpr uint64_t kMaxTensorProtoBytes = 0x7fffffff;

/// Reads the regular file at `path` (readRegularFile(): directories, FIFOs
/// and devices are refused; at most min(maxBytes, kMaxTensorProtoBytes)
/// bytes) and decodes it with parseTensorProto(). Errors name the path.
/// Memory: the file's bytes plus the tensor, which parseTensorProto() caps at
/// 8 times the file size (a value takes at least one byte of the encoding).
Status readTensorProtoFile(const std::string &path, HostTensor &out, std::string *name = nullptr,
                           uint64_t maxBytes = kMaxTensorProtoBytes);

/// True when `bytes` parse as an onnx.ModelProto with an IR version, an opset import and
/// a graph with nodes or outputs: an ONNX model (aicc-run tells one given where a bundle
/// belongs). TensorProto files and bundles are not.
bool isONNXModel(std::string_view bytes);

/// ONNX test data written by onnx < 1.13 stores each BFLOAT16 tensor as a
/// UINT16 TensorProto holding the bfloat16 bit patterns (numpy has no
/// bfloat16; e.g. node/test_cast_FLOAT_to_BFLOAT16). When `expected` is
/// DType::bf16 and `t` is DType::u16, relabels `t` as bf16 (the bytes are
/// already the bit patterns) and returns true; otherwise leaves `t` alone and
/// returns false.
bool adoptLegacyBFloat16(HostTensor &t, DType expected);

/// Encodes `tensor` as an onnx.TensorProto (dims, data_type, raw_data, and
/// `name` when not empty) into `out`. Fails when tensor.data.size() does not
/// match its shape and dtype.
Status serializeTensorProto(const HostTensor &tensor, const std::string &name,
                            std::string &out);

/// Writes `tensor` as an onnx.TensorProto file at `path`, atomically: the
/// bytes go to a temporary file in the same directory, which is then renamed
/// over `path`. A symbolic link is written through (the link stays; the file
/// it names is replaced and keeps its permission bits); a dangling link, a
/// directory, device, FIFO or socket is refused and left as it is. Errors name
/// the path (what it is, unwritable directory, full disk, ...).
Status writeTensorProtoFile(const std::string &path, const HostTensor &tensor,
                            const std::string &name = "");

/// Writes `bytes` to `path` with the same policy as writeTensorProtoFile (a
/// temporary file beside it renamed over it on success; links written
/// through; non-regular files refused); aicc-run --json uses it too.
Status writeFileAtomically(const std::string &path, std::string_view bytes);

} // namespace aicc::runtime

#endif // AICC_RUNTIME_ONNXDATA_H
