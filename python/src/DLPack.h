//===- DLPack.h - The DLPack tensor ABI the extension consumes ----*- C++ -*-===//
//
// The C structs of the DLPack exchange format (https://dmlc.github.io/dlpack/latest/c_api.html,
// ABI of DLPack 0.x, which torch.utils.dlpack.to_dlpack and every __dlpack__ return in a
// PyCapsule named "dltensor"), written down here from the specification so that the
// extension needs no dlpack package. Only the fields aicc reads are documented.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PYTHON_DLPACK_H
#define AICC_PYTHON_DLPACK_H

#include <cstdint>

namespace aicc::python::dlpack {

/// DLDeviceType values aicc accepts.
enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3, ///< pinned host memory: a host pointer
};

/// DLDataTypeCode values.
enum TypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
};

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  /// Base address; the first element is at data + byte_offset.
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  /// ndim extents, in elements.
  int64_t *shape;
  /// ndim strides in elements, or null for a compact row-major tensor.
  int64_t *strides;
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

} // namespace aicc::python::dlpack

#endif // AICC_PYTHON_DLPACK_H
