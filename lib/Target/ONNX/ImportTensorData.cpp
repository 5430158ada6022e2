//===- ImportTensorData.cpp - ValueInfo types, TensorProto data (raw, typed, external) ---===//
#include "Importer.h"

#include "aicc/Support/InputFile.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace aicc::onnx_import::detail;

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

LogicalResult Importer::noteDimParam(llvm::StringRef param, int64_t value,
                                     const std::string &source, Location loc) {
  if (param.empty())
    return success();
  auto [it, fresh] = dimParamValues.try_emplace(param, value, source);
  if (fresh || it->second.first == value)
    return success();
  return emitError(loc) << "dim_param '" << param << "' is " << it->second.first << " by "
                        << it->second.second << " but " << value << " by " << source
                        << " (a dim_param is one size in every graph input)";
}

std::string Importer::graphInputList(const onnx::GraphProto &g) {
  std::string names;
  for (const auto &in : g.input())
    if (!initializers.count(in.name()))
      names += (names.empty() ? "" : ", ") + in.name();
  return names.empty() ? std::string("none") : names;
}

LogicalResult Importer::checkShapeOptions(const onnx::GraphProto &g,
                                          const llvm::StringMap<const InputBinding *> &bindings) {
  {
    llvm::StringSet<> shapes, dims;
    for (const InputShape &is : opts.inputShapes) {
      if (!shapes.insert(is.name).second)
        return emitError(fileLoc) << "--shape " << is.name << " is given twice";
      for (int64_t d : is.dims)
        if (d < 0 || d >= (int64_t(1) << 31))
          return emitError(fileLoc)
                 << "--shape " << is.name << ": dim " << d << " is outside [0, 2^31)";
    }
    for (const DimParam &dp : opts.dimParams) {
      if (!dims.insert(dp.name).second)
        return emitError(fileLoc) << "--dim " << dp.name << " is given twice";
      if (dp.value < 0 || dp.value >= (int64_t(1) << 31))
        return emitError(fileLoc) << "--dim " << dp.name << ": " << dp.value
                                  << " is outside [0, 2^31)";
    }
  }

  // --shape names must be graph inputs the model takes as arguments.
  for (const InputShape &is : opts.inputShapes) {
    if (bindings.count(is.name) || initializers.count(is.name))
      return emitError(fileLoc) << "--shape " << is.name << ": the input is "
                                << (bindings.count(is.name) ? "bound (--bind-input)"
                                                            : "an initializer (a constant)");
    if (llvm::none_of(g.input(), [&](const auto &in) { return in.name() == is.name; }))
      return emitError(fileLoc) << "--shape " << is.name
                                << ": the model has no graph input of that name (graph inputs: "
                                << graphInputList(g) << ")";
  }

  return success();
}

LogicalResult Importer::checkDimParamsUsed(const onnx::GraphProto &g) {
  // --dim names that fixed nothing are typos: reported, not ignored.
  for (const DimParam &dp : opts.dimParams) {
    if (usedDimParams.contains(dp.name))
      continue;
    // The dim_param's inputs are all fixed by --shape or bound: a consistent --dim is
    // redundant, another value a conflict.
    if (auto it = dimParamValues.find(dp.name); it != dimParamValues.end()) {
      if (failed(noteDimParam(dp.name, dp.value, "--dim " + dp.name, fileLoc)))
        return failure();
      continue;
    }
    {
      std::string params;
      llvm::StringSet<> seen;
      for (const auto &in : g.input())
        if (in.has_type() && in.type().has_tensor_type() && in.type().tensor_type().has_shape())
          for (const auto &d : in.type().tensor_type().shape().dim())
            if (d.has_dim_param() && seen.insert(d.dim_param()).second)
              params += (params.empty() ? "" : ", ") + d.dim_param();
      return emitError(fileLoc) << "--dim " << dp.name
                                << ": no dynamic dimension of a graph input (without --shape) "
                                << "has that dim_param (dim_params: "
                                << (params.empty() ? "none" : params) << ")";
    }
  }
  return success();
}

FailureOr<RankedTensorType> Importer::convertValueInfo(const onnx::ValueInfoProto &vi,
                                                       llvm::StringRef what) {
  Location loc = nameLoc(vi.name());
  if (!vi.has_type() || !vi.type().has_tensor_type())
    return emitError(loc) << what << " '" << vi.name() << "' is not a tensor (or has no type)";
  const auto &tt = vi.type().tensor_type();
  Type elt = convertElementType(tt.elem_type(), &ctx);
  if (!elt)
    return emitError(loc) << what << " '" << vi.name() << "' has unsupported element type "
                          << dataTypeName(tt.elem_type());
  if (!tt.has_shape())
    return emitError(loc) << what << " '" << vi.name()
                          << "' has an unknown rank; only static shapes are supported (--shape "
                          << "fixes the dims of an input of known rank only)";
  SmallVector<int64_t> shape;
  // The input's shape given at compile time (ImportOptions::inputShapes).
  const InputShape *given = nullptr;
  for (const InputShape &is : opts.inputShapes)
    if (is.name == vi.name())
      given = &is;
  if (given && (int64_t)given->dims.size() != tt.shape().dim_size())
    return emitError(loc) << "--shape " << vi.name() << ": " << given->dims.size()
                          << " dims given, the input has rank " << tt.shape().dim_size();
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (given) {
      if (d.has_dim_value() && d.dim_value() != given->dims[i])
        return emitError(loc) << "--shape " << vi.name() << ": dim #" << i << " is declared "
                              << d.dim_value() << ", got " << given->dims[i];
      if (!d.has_dim_value() && d.has_dim_param() &&
          failed(noteDimParam(d.dim_param(), given->dims[i], "--shape " + vi.name(), loc)))
        return failure();
      shape.push_back(given->dims[i]);
      continue;
    }
    if (!d.has_dim_value() && d.has_dim_param()) {
      const DimParam *p = nullptr;
      for (const DimParam &dp : opts.dimParams)
        if (dp.name == d.dim_param())
          p = &dp;
      if (p) {
        usedDimParams.insert(p->name);
        if (failed(noteDimParam(p->name, p->value, "--dim " + p->name, loc)))
          return failure();
        shape.push_back(p->value);
        continue;
      }
    }
    if (!d.has_dim_value()) {
      auto diag = emitError(loc) << what << " '" << vi.name() << "' has a dynamic dimension #" << i;
      if (d.has_dim_param())
        diag << " ('" << d.dim_param() << "')";
      if (d.has_dim_param() && !d.dim_param().empty())
        return diag << ": fix it at compile time with --dim " << d.dim_param() << "=N or --shape "
                    << vi.name() << "=D0,D1,... (every dim of the input), or compile one bundle "
                    << "for a range of it with --dim " << d.dim_param() << "=MIN..MAX";
      return diag << "; only named dims (an ONNX dim_param) can be symbolic: fix it at compile "
                  << "time with --shape " << vi.name() << "=D0,D1,... (every dim of the input)";
    }
    if (d.dim_value() < 0)
      return emitError(loc) << what << " '" << vi.name() << "' has a negative dimension #" << i
                            << " (" << d.dim_value() << ")";
    shape.push_back(d.dim_value());
  }
  std::string problem = tensorSizeProblem(shape, elt, opts.maxTensorBytes);
  if (!problem.empty())
    return emitError(loc) << what << " '" << vi.name() << "' of shape " << shapeStr(shape) << " "
                          << problem;
  return RankedTensorType::get(shape, elt);
}

namespace {
/// Reads `expectedBytes` of external data for tensor `name` (onnx.proto,
/// "external_data": keys location / offset / length, location relative to the
/// model's directory). The buffer is memory-mapped when large.
FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
readExternalData(const onnx::TensorProto &t, llvm::StringRef name, llvm::StringRef modelDir,
                 uint64_t expectedBytes, Location loc) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      uint64_t v;
      if (llvm::StringRef(kv.value()).getAsInteger(10, v))
        return emitError(loc) << "tensor '" << name << "': external data " << kv.key() << " '"
                              << kv.value() << "' is not a non-negative integer";
      if (kv.key() == "offset")
        offset = v;
      else
        length = v;
    }
  }
  if (location.empty())
    return emitError(loc) << "tensor '" << name << "' has external data without a 'location'";
  // Confined to the model's directory (docs/onnx-import.md, "External data"): a
  // relative path without '..' components, naming a regular file whose real path
  // (symlinks resolved) lies inside the directory's real path.
  auto refuse = [&](llvm::StringRef why) {
    return emitError(loc) << "tensor '" << name << "': external data location '" << location
                          << "' " << why;
  };
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows) ||
      llvm::StringRef(location).starts_with("~"))
    return refuse("must be relative to the model's directory");
  if (llvm::StringRef(location).contains('\0'))
    return refuse("holds a NUL character");
  for (llvm::StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                               llvm::sys::path::end(location)))
    if (part == "..")
      return refuse("must not contain '..' (external data stays in the model's directory)");
  llvm::SmallString<256> path(modelDir.empty() ? "." : modelDir);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realDir, realFile;
  if (std::error_code ec = llvm::sys::fs::real_path(modelDir.empty() ? "." : modelDir, realDir))
    return emitError(loc) << "tensor '" << name << "': cannot resolve the model's directory: "
                          << ec.message();
  if (std::error_code ec = llvm::sys::fs::real_path(path, realFile))
    return emitError(loc) << "tensor '" << name << "': cannot open external data file '" << path
                          << "': " << ec.message();
  llvm::StringRef rf = realFile, rd = realDir;
  if (!rf.starts_with(rd) || rf.size() <= rd.size() ||
      !llvm::sys::path::is_separator(rf[rd.size()]) && !rd.ends_with("/"))
    return refuse("resolves to '" + realFile.str().str() +
                  "', outside the model's directory (a symbolic link out of it?)");
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(realFile, status))
    return emitError(loc) << "tensor '" << name << "': cannot open external data file '" << path
                          << "': " << ec.message();
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return refuse("is not a regular file");
  uint64_t fileSize = status.getSize();
  if (offset > fileSize)
    return emitError(loc) << "tensor '" << name << "': external data offset " << offset
                          << " is past the end of '" << path << "' (" << fileSize << " bytes)";
  uint64_t len = length ? *length : fileSize - offset;
  if (len != expectedBytes)
    return emitError(loc) << "tensor '" << name << "': external data holds " << len
                          << " bytes, the tensor needs " << expectedBytes;
  if (len > fileSize - offset)
    return emitError(loc) << "tensor '" << name << "': external data [" << offset << ", "
                          << offset + len << ") is past the end of '" << path << "' (" << fileSize
                          << " bytes)";
  if (len == 0)
    return llvm::MemoryBuffer::getMemBuffer("", path, /*RequiresNullTerminator=*/false);
  auto buf = llvm::MemoryBuffer::getFileSlice(realFile, len, offset);
  if (!buf)
    return emitError(loc) << "tensor '" << name << "': cannot read external data file '" << path
                          << "': " << buf.getError().message();
  return std::move(*buf);
}

/// Copies `count` values of a typed TensorProto field into `out`, narrowing
/// each to `width` bytes (little-endian).
template <typename Field>
void packTyped(const Field &field, uint64_t width, std::vector<char> &out) {
  out.resize(field.size() * width);
  char *p = out.data();
  for (auto v : field) {
    uint64_t bits;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, float>) {
      uint32_t u;
      std::memcpy(&u, &v, 4);
      bits = u;
    } else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
      std::memcpy(&bits, &v, 8);
    } else {
      bits = (uint64_t)v;
    }
    for (uint64_t i = 0; i < width; ++i)
      *p++ = (char)((bits >> (8 * i)) & 0xff);
  }
}
} // namespace

FailureOr<ElementsAttr> Importer::convertTensor(const onnx::TensorProto &t, llvm::StringRef name,
                                                Location loc) {
  if (!llvm::sys::IsLittleEndianHost)
    return emitError(loc) << "the ONNX importer supports little-endian hosts only";
  Type elt = convertElementType(t.data_type(), &ctx);
  if (!elt)
    return emitError(loc) << "tensor '" << name << "' has unsupported element type "
                          << dataTypeName(t.data_type());
  if (t.has_segment())
    return emitError(loc) << "tensor '" << name << "' is segmented (unsupported)";
  if (failed(validateTensorFields(t, name, loc)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return emitError(loc) << "tensor '" << name << "' has a negative dimension " << d;
    shape.push_back(d);
  }
  std::string problem = tensorSizeProblem(shape, elt, opts.maxTensorBytes);
  if (!problem.empty())
    return emitError(loc) << "tensor '" << name << "' of shape " << shapeStr(shape) << " "
                          << problem;
  std::optional<int64_t> numElements = product(shape);
  uint64_t width = storageBytes(elt);
  uint64_t numBytes = *checkedByteSize(shape, width);
  auto type = RankedTensorType::get(shape, elt);

  // Locate the bytes: external file, raw_data, or a typed field.
  std::unique_ptr<llvm::MemoryBuffer> external;
  std::vector<char> packed;
  ArrayRef<char> data;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    auto buf = readExternalData(t, name, modelDir, numBytes, loc);
    if (failed(buf))
      return failure();
    external = std::move(*buf);
    data = ArrayRef<char>(external->getBufferStart(), external->getBufferSize());
  } else if (t.has_raw_data()) {
    data = ArrayRef<char>(t.raw_data().data(), t.raw_data().size());
  } else {
    int64_t count = 0;
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      count = t.float_data_size();
      packTyped(t.float_data(), width, packed);
      break;
    case onnx::TensorProto::DOUBLE:
      count = t.double_data_size();
      packTyped(t.double_data(), width, packed);
      break;
    case onnx::TensorProto::INT64:
      count = t.int64_data_size();
      packTyped(t.int64_data(), width, packed);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      count = t.uint64_data_size();
      packTyped(t.uint64_data(), width, packed);
      break;
    default: // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16
      count = t.int32_data_size();
      packTyped(t.int32_data(), width, packed);
      break;
    }
    if (count != *numElements)
      return emitError(loc) << "tensor '" << name << "' of shape " << shapeStr(shape) << " needs "
                            << *numElements << " values, has " << count;
    data = packed;
  }
  if (data.size() != numBytes)
    return emitError(loc) << "tensor '" << name << "' of shape " << shapeStr(shape) << " and type "
                          << dataTypeName(t.data_type()) << " needs " << numBytes
                          << " bytes of data, has " << data.size();

  if (elt.isInteger(1)) {
    SmallVector<bool> bits(data.size());
    for (auto [i, c] : llvm::enumerate(data))
      bits[i] = c != 0;
    return cast<ElementsAttr>(DenseElementsAttr::get(type, bits));
  }
  if (numBytes <= kMaxDenseBytes) {
    if (numBytes == 0)
      return cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef<Attribute>{}));
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, data, splat))
      return emitError(loc) << "tensor '" << name << "': invalid data buffer";
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, data));
  }
  // Large: an owning blob in the builtin dialect's resource manager. A
  // memory-mapped external file is adopted without a copy when aligned.
  AsmResourceBlob blob;
  if (external && llvm::isAddrAligned(llvm::Align(alignof(uint64_t)), data.data())) {
    std::shared_ptr<llvm::MemoryBuffer> owner = std::move(external);
    blob = AsmResourceBlob(
        data, alignof(uint64_t), [owner](void *, size_t, size_t) mutable { owner.reset(); },
        /*dataIsMutable=*/false);
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(data, alignof(uint64_t),
                                                         /*dataIsMutable=*/false);
  }
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(type, blobKey(name), std::move(blob)));
}
