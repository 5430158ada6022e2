//===- ONNXDataTypeNames.h - names of ONNX TensorProto data types --*- C++ -*-===//
//
// TensorProto.DataType values by name ("FLOAT8E4M3FN", not 17) for messages, from onnx.proto
// (IR version 14, onnx 1.23): the system libonnx (Debian's 1.12) is older than the models
// aicc reads and has no names for the float8 / int4 / float4 types. Header-only, no
// dependencies: the importer (lib/Target/ONNX) and aicc-run's TensorProto reader
// (lib/Runtime/ONNXData.cpp) share it.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_SUPPORT_ONNXDATATYPENAMES_H
#define AICC_SUPPORT_ONNXDATATYPENAMES_H

#include <cstdint>
#include <iterator>
#include <string>

namespace aicc {

/// The name of TensorProto.DataType `dt` ("FLOAT", "FLOAT8E4M3FN", ...), or null when
/// onnx.proto defines no such value.
inline const char *onnxDataTypeName(int64_t dt) {
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",    "INT16",
      "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",   "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16",  "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",      "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",      "INT2",           "FLOAT6E2M3", "FLOAT6E3M2"};
  if (dt < 0 || dt >= static_cast<int64_t>(std::size(names)))
    return nullptr;
  return names[dt];
}

/// `dt` for messages: its name ("FLOAT8E4M3FN"), or "unknown data type N".
inline std::string onnxDataTypeLabel(int64_t dt) {
  if (const char *name = onnxDataTypeName(dt))
    return name;
  return "unknown data type " + std::to_string(dt);
}

} // namespace aicc

#endif // AICC_SUPPORT_ONNXDATATYPENAMES_H
