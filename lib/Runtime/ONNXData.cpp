//===- ONNXData.cpp - ONNX TensorProto files <-> HostTensor ---------------===//
//
// Field semantics follow onnx/onnx.proto (message TensorProto): which typed
// repeated field holds which data type, and raw_data as little-endian bytes.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/ONNXData.h"
#include "aicc/Support/ONNXDataTypeNames.h"

#include "aicc/Runtime/ReadFile.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

using namespace aicc::runtime;
using TensorProto = onnx::TensorProto;

static std::optional<DType> fromONNXType(int32_t t) {
  switch (t) {
  case TensorProto::FLOAT:
    return DType::f32;
  case TensorProto::FLOAT16:
    return DType::f16;
  case TensorProto::BFLOAT16:
    return DType::bf16;
  case TensorProto::DOUBLE:
    return DType::f64;
  case TensorProto::INT64:
    return DType::i64;
  case TensorProto::INT32:
    return DType::i32;
  case TensorProto::INT16:
    return DType::i16;
  case TensorProto::INT8:
    return DType::i8;
  case TensorProto::UINT64:
    return DType::u64;
  case TensorProto::UINT32:
    return DType::u32;
  case TensorProto::UINT16:
    return DType::u16;
  case TensorProto::UINT8:
    return DType::u8;
  case TensorProto::BOOL:
    return DType::boolean;
  default:
    return std::nullopt;
  }
}

static TensorProto::DataType toONNXType(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return TensorProto::FLOAT;
  case DType::f16:
    return TensorProto::FLOAT16;
  case DType::bf16:
    return TensorProto::BFLOAT16;
  case DType::f64:
    return TensorProto::DOUBLE;
  case DType::i64:
    return TensorProto::INT64;
  case DType::i32:
    return TensorProto::INT32;
  case DType::i16:
    return TensorProto::INT16;
  case DType::i8:
    return TensorProto::INT8;
  case DType::u64:
    return TensorProto::UINT64;
  case DType::u32:
    return TensorProto::UINT32;
  case DType::u16:
    return TensorProto::UINT16;
  case DType::u8:
    return TensorProto::UINT8;
  case DType::boolean:
    return TensorProto::BOOL;
  }
  return TensorProto::UNDEFINED;
}

static std::string onnxTypeName(int32_t t) { return aicc::onnxDataTypeLabel(t); }

/// Copies a typed repeated field into `out` (numel elements of `dtype`),
/// narrowing each value to the storage type `Store`.
template <typename Store, typename Field>
static Status copyTyped(const Field &field, const char *fieldName,
                        int64_t numel, HostTensor &out) {
  if (static_cast<int64_t>(field.size()) != numel)
    return Status::error(std::string(fieldName) + " holds " +
                         std::to_string(field.size()) + " values but dims " +
                         formatTensorType(out.dtype, out.shape) + " need " +
                         std::to_string(numel));
  auto *dst = reinterpret_cast<Store *>(out.data.data());
  for (int64_t i = 0; i < numel; ++i)
    dst[i] = static_cast<Store>(field.Get(static_cast<int>(i)));
  return Status::success();
}

Status aicc::runtime::parseTensorProto(std::string_view bytes, HostTensor &out,
                                       std::string *name) {
  if (bytes.size() > kMaxTensorProtoBytes)
    return Status::error("TensorProto of " + std::to_string(bytes.size()) +
                         " bytes: protobuf reads at most " + std::to_string(kMaxTensorProtoBytes));
  TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status::error("not a valid serialized onnx.TensorProto");
  if (name)
    *name = proto.name();

  std::optional<DType> dtype = fromONNXType(proto.data_type());
  if (!dtype)
    return Status::error("unsupported TensorProto data type " +
                         onnxTypeName(proto.data_type()));
  if (proto.data_location() == TensorProto::EXTERNAL)
    return Status::error("tensors with external data are not supported");
  if (proto.has_segment())
    return Status::error("segmented tensors are not supported");

  out = HostTensor();
  out.dtype = *dtype;
  out.shape.assign(proto.dims().begin(), proto.dims().end());
  std::optional<int64_t> numel = shapeNumElements(out.shape);
  uint64_t numBytes = 0;
  if (!numel ||
      __builtin_mul_overflow(static_cast<uint64_t>(*numel),
                             static_cast<uint64_t>(dtypeSize(*dtype)),
                             &numBytes) ||
      numBytes > bytes.size() * 8 + 64)
    // A real tensor cannot need more bytes than the protobuf holds (packed
    // fields use at least 1 byte per value); this also rejects absurd dims.
    return Status::error("invalid dims " +
                         formatTensorType(out.dtype, out.shape));
  out.data.assign(numBytes, 0);

  if (!proto.raw_data().empty()) {
    if (proto.raw_data().size() != numBytes)
      return Status::error("raw_data holds " +
                           std::to_string(proto.raw_data().size()) +
                           " bytes but " +
                           formatTensorType(out.dtype, out.shape) + " needs " +
                           std::to_string(numBytes));
    std::memcpy(out.data.data(), proto.raw_data().data(), numBytes);
    return Status::success();
  }
  switch (*dtype) {
  case DType::f32:
    return copyTyped<float>(proto.float_data(), "float_data", *numel, out);
  case DType::f64:
    return copyTyped<double>(proto.double_data(), "double_data", *numel, out);
  case DType::i64:
    return copyTyped<int64_t>(proto.int64_data(), "int64_data", *numel, out);
  case DType::i32:
    return copyTyped<int32_t>(proto.int32_data(), "int32_data", *numel, out);
  case DType::i16:
    return copyTyped<int16_t>(proto.int32_data(), "int32_data", *numel, out);
  case DType::i8:
    return copyTyped<int8_t>(proto.int32_data(), "int32_data", *numel, out);
  case DType::u64:
    return copyTyped<uint64_t>(proto.uint64_data(), "uint64_data", *numel, out);
  case DType::u32:
    return copyTyped<uint32_t>(proto.uint64_data(), "uint64_data", *numel, out);
  case DType::u16:
    return copyTyped<uint16_t>(proto.int32_data(), "int32_data", *numel, out);
  case DType::u8:
  case DType::boolean:
    return copyTyped<uint8_t>(proto.int32_data(), "int32_data", *numel, out);
  case DType::f16:
  case DType::bf16:
    // The 16-bit patterns sit in the low bits of each int32 value.
    return copyTyped<uint16_t>(proto.int32_data(), "int32_data", *numel, out);
  }
  return Status::error("unreachable data type");
}

bool aicc::runtime::isONNXModel(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > kMaxTensorProtoBytes)
    return false;
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return false;
  return model.has_ir_version() && model.opset_import_size() > 0 && model.has_graph() &&
         (model.graph().node_size() > 0 || model.graph().output_size() > 0);
}

bool aicc::runtime::adoptLegacyBFloat16(HostTensor &t, DType expected) {
  if (expected != DType::bf16 || t.dtype != DType::u16)
    return false;
  t.dtype = DType::bf16; // same size: the bytes are the bit patterns
  return true;
}

Status aicc::runtime::readTensorProtoFile(const std::string &path, HostTensor &out,
                                          std::string *name, uint64_t maxBytes) {
  std::string bytes;
  if (Status s = readRegularFile(path, std::min<uint64_t>(maxBytes, kMaxTensorProtoBytes), bytes);
      !s.ok)
    return s;
  return parseTensorProto(bytes, out, name).withContext(path);
}

Status aicc::runtime::serializeTensorProto(const HostTensor &tensor,
                                           const std::string &name,
                                           std::string &out) {
  std::optional<int64_t> numel = shapeNumElements(tensor.shape);
  if (!numel ||
      tensor.data.size() != static_cast<uint64_t>(*numel) * dtypeSize(tensor.dtype))
    return Status::error("tensor data holds " +
                         std::to_string(tensor.data.size()) +
                         " bytes, which does not match " +
                         formatTensorType(tensor.dtype, tensor.shape));
  TensorProto proto;
  for (int64_t d : tensor.shape)
    proto.add_dims(d);
  proto.set_data_type(toONNXType(tensor.dtype));
  if (!name.empty())
    proto.set_name(name);
  proto.set_raw_data(tensor.data.data(), tensor.data.size());
  if (!proto.SerializeToString(&out))
    return Status::error("cannot serialize the TensorProto (over 2 GiB?)");
  return Status::success();
}

Status aicc::runtime::writeTensorProtoFile(const std::string &userPath,
                                           const HostTensor &tensor,
                                           const std::string &name) {
  std::string bytes;
  if (Status s = serializeTensorProto(tensor, name, bytes); !s.ok)
    return s.withContext(userPath);
  return writeFileAtomically(userPath, bytes);
}

Status aicc::runtime::writeFileAtomically(const std::string &userPath, std::string_view bytes) {
  // The policy of aicc-compile's -o (aicc/Support/OutputFile.h): a symbolic link is written
  // through (the link stays, the file it names is replaced and keeps its permission bits), a
  // dangling link and anything but a regular file are refused and left as they are.
  std::string path = userPath;
  mode_t mode = 0644;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      char *resolved = ::realpath(path.c_str(), nullptr);
      if (!resolved)
        return Status::error("cannot write '" + userPath +
                             "': it is a dangling symbolic link (the file it points to does "
                             "not exist); not writing through it");
      path = resolved;
      std::free(resolved);
      if (::stat(path.c_str(), &st) != 0)
        return Status::error("cannot write '" + userPath + "': " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
      return Status::error("cannot write '" + userPath + "': it is " +
                           nonRegularFileKind(st.st_mode) + "; aicc writes regular files");
    mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    return Status::error("cannot write '" + userPath + "': " + std::strerror(errno));
  }
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return Status::error("cannot create a temporary file next to '" + path +
                         "': " + std::strerror(errno));
  // mkstemp creates the file 0600; give it the replaced file's permission bits (a new file
  // gets the usual 0644).
  ::fchmod(fd, mode);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::error("cannot write '" + tmp + "': " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::error("cannot write '" + tmp + "': " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::error("cannot rename '" + tmp + "' to '" + path +
                         "': " + std::strerror(err));
  }
  return Status::success();
}
