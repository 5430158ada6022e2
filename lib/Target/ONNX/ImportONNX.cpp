//===- ImportONNX.cpp - ONNX ModelProto -> graph dialect ------------------===//
//
// One pass over the ONNX graph in node order (ONNX requires topological
// order): every value name maps to an SSA value. Initializers become
// graph.constant on first use; all constants sit at the top of @main. Every
// field read from the protobuf is checked first: this code runs on untrusted
// files with an MLIR built without assertions.
//
//===----------------------------------------------------------------------===//
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

namespace aicc::onnx_import::detail {
/// Names of TensorProto.DataType values (onnx.proto, IR version 11), for
/// messages: the system libonnx may be older than the model.
llvm::StringRef dataTypeName(int32_t dt) {
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
      "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1"};
  if (dt < 0 || dt >= (int32_t)std::size(names))
    return "<unknown>";
  return names[dt];
}

/// TensorProto.DataType -> MLIR element type; null for unsupported types.
Type convertElementType(int32_t dt, MLIRContext *ctx) {
  Builder b(ctx);
  switch (dt) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

/// Bytes per element in ONNX raw_data / external data (BOOL: one byte).
uint64_t storageBytes(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return elementType.getIntOrFloatBitWidth() / 8;
}

bool isGraphFloat(Type t) { return t.isF16() || t.isBF16() || t.isF32() || t.isF64(); }

std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

/// Product of `dims`, or nullopt on overflow.
std::optional<int64_t> product(llvm::ArrayRef<int64_t> dims) {
  return aicc::checkedElementCount(dims);
}

std::string tensorSizeProblem(llvm::ArrayRef<int64_t> shape, Type elem, uint64_t maxBytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  int64_t cap = (int64_t)std::min<uint64_t>(maxBytes, INT64_MAX);
  CheckedInt volume = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (ShapedType::isDynamic(d)) {
      os << "has a dynamic dim #" << i << " (only static shapes are supported)";
      return s;
    }
    if (d < 0) {
      os << "has a negative dim #" << i << " (" << d << ")";
      return s;
    }
    if (d > cap) {
      os << "has dim #" << i << " of " << d << ", above the tensor size limit of " << cap
         << " bytes (--max-tensor-bytes)";
      return s;
    }
    if (d > 0)
      volume *= d;
  }
  int64_t width = elem && elem.isIntOrFloat() ? std::max<int64_t>(1, storageBytes(elem)) : 1;
  CheckedInt bytes = volume * width;
  if (!bytes.valid() || bytes.value() > cap) {
    std::optional<int64_t> n = checkedElementCount(shape);
    os << "has ";
    if (n && *n == 0)
      os << "0 elements but non-zero dims whose product is";
    else if (n)
      os << *n << " elements of " << width << " bytes,";
    else
      os << "more elements than int64 can count,";
    os << " above the tensor size limit of " << cap << " bytes (--max-tensor-bytes)";
  }
  return s;
}

void SizeGuard::notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) {
  if (badOp)
    return;
  for (Type t : op->getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt)
      continue;
    std::string p = tensorSizeProblem(rt.getShape(), rt.getElementType(), maxBytes);
    if (!p.empty()) {
      badOp = op;
      badType = t;
      problem = std::move(p);
      return;
    }
  }
}

/// A resource blob key: the ONNX name with characters outside [A-Za-z0-9_.]
/// replaced, so the key prints as a bare identifier.
std::string blobKey(llvm::StringRef name) {
  std::string key = name.empty() ? "onnx_tensor" : name.str();
  for (char &c : key)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  if (llvm::isDigit(key[0]) || key[0] == '.')
    key = "onnx_" + key;
  return key;
}

/// AttributeProto.type, inferred from the field that is set for old models
/// that leave `type` unset.
int attrType(const onnx::AttributeProto &a) {
  if (a.type() != onnx::AttributeProto::UNDEFINED)
    return a.type();
  if (a.has_f())
    return onnx::AttributeProto::FLOAT;
  if (a.has_i())
    return onnx::AttributeProto::INT;
  if (a.has_s())
    return onnx::AttributeProto::STRING;
  if (a.has_t())
    return onnx::AttributeProto::TENSOR;
  if (a.has_g())
    return onnx::AttributeProto::GRAPH;
  if (a.floats_size())
    return onnx::AttributeProto::FLOATS;
  if (a.ints_size())
    return onnx::AttributeProto::INTS;
  if (a.strings_size())
    return onnx::AttributeProto::STRINGS;
  if (a.tensors_size())
    return onnx::AttributeProto::TENSORS;
  if (a.graphs_size())
    return onnx::AttributeProto::GRAPHS;
  return onnx::AttributeProto::UNDEFINED;
}

llvm::StringRef attrTypeName(int t) {
  switch (t) {
  case onnx::AttributeProto::FLOAT:
    return "FLOAT";
  case onnx::AttributeProto::INT:
    return "INT";
  case onnx::AttributeProto::STRING:
    return "STRING";
  case onnx::AttributeProto::TENSOR:
    return "TENSOR";
  case onnx::AttributeProto::GRAPH:
    return "GRAPH";
  case onnx::AttributeProto::FLOATS:
    return "FLOATS";
  case onnx::AttributeProto::INTS:
    return "INTS";
  case onnx::AttributeProto::STRINGS:
    return "STRINGS";
  case onnx::AttributeProto::TENSORS:
    return "TENSORS";
  case onnx::AttributeProto::GRAPHS:
    return "GRAPHS";
  default:
    return "UNDEFINED";
  }
}

} // namespace aicc::onnx_import::detail

//===----------------------------------------------------------------------===//
// Types and tensors
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType> Importer::convertValueInfo(const onnx::ValueInfoProto &vi,
                                                       llvm::StringRef what) {
  Location loc = nameLoc(vi.name());
  if (!vi.has_type() || !vi.type().has_tensor_type())
    return emitError(loc) << what << " '" << vi.name() << "' is not a tensor (or has no type)";
  const auto &tt = vi.type().tensor_type();
  Type elt = convertElementType(tt.elem_type(), &ctx);
  if (!elt)
    return emitError(loc) << what << " '" << vi.name() << "' has unsupported element type "
                          << dataTypeName(tt.elem_type()) << " (" << tt.elem_type() << ")";
  if (!tt.has_shape())
    return emitError(loc) << what << " '" << vi.name()
                          << "' has an unknown rank; only static shapes are supported";
  SmallVector<int64_t> shape;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto &d = tt.shape().dim(i);
    if (!d.has_dim_value()) {
      auto diag = emitError(loc) << what << " '" << vi.name() << "' has a dynamic dimension #" << i;
      if (d.has_dim_param())
        diag << " ('" << d.dim_param() << "')";
      return diag << "; only static shapes are supported";
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
                          << dataTypeName(t.data_type()) << " (" << t.data_type() << ")";
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

LogicalResult Importer::checkShape(const NodeCtx &nc, llvm::ArrayRef<int64_t> shape, Type elem,
                                   const llvm::Twine &what) {
  std::string p = tensorSizeProblem(shape, elem, opts.maxTensorBytes);
  if (p.empty())
    return success();
  return nodeError(nc) << what << " " << shapeStr(shape) << " " << p;
}

LogicalResult Importer::checkTable(const NodeCtx &nc, CheckedInt count, int64_t entryBytes,
                                   const llvm::Twine &what) {
  CheckedInt bytes = count * entryBytes;
  if (bytes.valid() && bytes.value() >= 0 && bytes.value() <= kMaxImportTableBytes)
    return success();
  auto diag = nodeError(nc) << what << " would need a constant table of ";
  if (bytes.valid())
    diag << count.value() << " entries (" << bytes.value() << " bytes)";
  else
    diag << "more entries than int64 can count";
  return diag << ", above the importer's limit of " << kMaxImportTableBytes
              << " bytes for one table";
}

LogicalResult Importer::checkGuard(const NodeCtx *nc) {
  if (!guard.badOp)
    return success();
  if (guardReported)
    return failure();
  guardReported = true;
  auto diag = nc ? nodeError(*nc) : emitError(guard.badOp->getLoc());
  diag << "tensor " << guard.badType << " (result of " << guard.badOp->getName()
       << " in its decomposition) " << guard.problem;
  return failure();
}

FailureOr<RankedTensorType> Importer::checkFloat(const NodeCtx &nc, Value v, llvm::StringRef what) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!isGraphFloat(t.getElementType()))
    return nodeError(nc) << what << " must be a floating-point tensor (f16, bf16, f32, f64), got "
                         << t;
  return t;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

LogicalResult Importer::collectInitializers(const onnx::GraphProto &g) {
  for (const auto &init : g.initializer()) {
    if (init.name().empty())
      return emitError(fileLoc) << "graph has an initializer without a name";
    if (!initializers.try_emplace(init.name(), &init).second)
      return emitError(nameLoc(init.name()))
             << "initializer '" << init.name() << "' is defined twice";
    if (failed(validateTensorFields(init, init.name(), nameLoc(init.name()))))
      return failure();
  }
  if (g.sparse_initializer_size())
    return emitError(fileLoc) << "sparse initializers are not supported (first: '"
                              << g.sparse_initializer(0).values().name() << "')";
  return success();
}

FailureOr<ElementsAttr> Importer::loadBinding(const onnx::ValueInfoProto &vi,
                                              const InputBinding &binding) {
  Location loc = FileLineColLoc::get(&ctx, binding.tensorPath, 0, 0);
  auto error = [&]() {
    return emitError(loc) << "cannot bind graph input '" << vi.name() << "' to '"
                          << binding.tensorPath << "': ";
  };
  auto buf = aicc::readInputFile(binding.tensorPath, kMaxModelFileBytes, "bound input tensor");
  if (!buf)
    return error() << llvm::toString(buf.takeError());
  llvm::StringRef bytes = (*buf)->getBuffer();
  onnx::TensorProto t;
  if (bytes.size() > (size_t)INT_MAX || !t.ParseFromArray(bytes.data(), (int)bytes.size()) ||
      !t.has_data_type())
    return error() << "not a serialized ONNX TensorProto";
  if (!vi.has_type() || !vi.type().has_tensor_type())
    return error() << "the graph input is not a tensor (or has no type)";
  const auto &tt = vi.type().tensor_type();
  if (t.data_type() != tt.elem_type())
    return error() << "element type " << dataTypeName(t.data_type())
                   << " differs from the graph input's declared "
                   << dataTypeName(tt.elem_type());
  SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  if (tt.has_shape()) {
    bool ok = tt.shape().dim_size() == (int)dims.size();
    for (int i = 0; ok && i < tt.shape().dim_size(); ++i)
      if (tt.shape().dim(i).has_dim_value())
        ok = tt.shape().dim(i).dim_value() == dims[i];
    if (!ok) {
      std::string declared = "[";
      for (int i = 0; i < tt.shape().dim_size(); ++i) {
        const auto &d = tt.shape().dim(i);
        declared += (i ? ", " : "") + (d.has_dim_value()   ? std::to_string(d.dim_value())
                                       : d.has_dim_param() ? d.dim_param()
                                                           : std::string("?"));
      }
      return error() << "shape " << shapeStr(dims) << " differs from the graph input's declared "
                     << declared << "]";
    }
  }
  return convertTensor(t, vi.name(), loc);
}

FailureOr<Value> Importer::lookup(llvm::StringRef name, Location useLoc, const NodeCtx *nc) {
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto init = initializers.find(name);
  if (init == initializers.end()) {
    if (nc)
      return nodeError(*nc) << "input '" << name
                            << "' is not a graph input, an initializer or the output of an "
                               "earlier node";
    return emitError(useLoc) << "graph output '" << name
                             << "' is not a graph input, an initializer or a node output";
  }
  Location loc = nameLoc(name);
  auto attr = convertTensor(*init->second, name, loc);
  if (failed(attr))
    return failure();
  Value v = createConstant(loc, *attr);
  values[name] = v;
  return v;
}

FailureOr<Value> Importer::getOptionalInput(const NodeCtx &nc, int idx) {
  if (idx >= nc.node.input_size() || nc.node.input(idx).empty())
    return Value();
  return lookup(nc.node.input(idx), nc.loc, &nc);
}

FailureOr<Value> Importer::getInput(const NodeCtx &nc, int idx) {
  if (idx >= nc.node.input_size() || nc.node.input(idx).empty())
    return nodeError(nc) << "required input #" << idx << " is missing";
  return lookup(nc.node.input(idx), nc.loc, &nc);
}

LogicalResult Importer::define(const NodeCtx &nc, int outIdx, Value v) {
  if (outIdx >= nc.node.output_size())
    return success();
  const std::string &name = nc.node.output(outIdx);
  if (name.empty())
    return success();
  auto t = cast<RankedTensorType>(v.getType());
  if (failed(checkShape(nc, t.getShape(), t.getElementType(), "output '" + name + "' of shape")))
    return failure();
  if (failed(checkGuard(&nc)))
    return failure();
  if (auto folded = foldToConstant(v))
    v = *folded;
  if (initializers.count(name) || !values.try_emplace(name, v).second)
    return nodeError(nc) << "output '" << name << "' is already defined";
  return success();
}

LogicalResult Importer::checkArity(const NodeCtx &nc, int minIn, int maxIn, int maxOut) {
  int n = nc.node.input_size();
  if (n < minIn || n > maxIn) {
    auto diag = nodeError(nc) << "expects ";
    if (minIn == maxIn)
      diag << minIn;
    else
      diag << minIn << " to " << maxIn;
    return diag << " inputs, got " << n;
  }
  if (nc.node.output_size() < 1 || nc.node.output_size() > maxOut)
    return nodeError(nc) << "expects 1" << (maxOut > 1 ? " to " + std::to_string(maxOut) : "")
                         << " outputs, got " << nc.node.output_size();
  return success();
}

FailureOr<SmallVector<int64_t>> Importer::getConstantInts(const NodeCtx &nc, Value v,
                                                          llvm::StringRef what, bool allowBool) {
  auto cst = v.getDefiningOp<graph::ConstantOp>();
  if (!cst)
    return notConstantError(nc, v, what);
  auto type = cast<RankedTensorType>(cst.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType || (intType.getWidth() == 1 && !allowBool) || type.getRank() > 1)
    return nodeError(nc) << what << " must be a 1-D integer tensor, got " << type;
  SmallVector<int64_t> out;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue())) {
    for (const APInt &x : dense.getValues<APInt>())
      out.push_back(intType.isUnsigned() || intType.getWidth() == 1 ? (int64_t)x.getZExtValue()
                                                                    : x.getSExtValue());
    return out;
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    ArrayRef<char> raw = res.getData();
    unsigned w = std::max(1u, intType.getWidth() / 8);
    if (raw.size() != type.getNumElements() * w)
      return nodeError(nc) << what << ": constant data is unavailable";
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, raw.data() + i * w, w);
      out.push_back(intType.isUnsigned() || w == 8 ? (int64_t)bits
                                                   : llvm::SignExtend64(bits, w * 8));
    }
    return out;
  }
  return nodeError(nc) << what << ": unsupported constant attribute";
}

FailureOr<int64_t> Importer::toInt(const NodeCtx &nc, double v, llvm::StringRef what) {
  if (!(std::abs(v) <= std::ldexp(1.0, 62)) || v != std::trunc(v))
    return nodeError(nc) << what << " must be an integer of magnitude at most 2^62, got " << v;
  return (int64_t)v;
}

LogicalResult Importer::checkConstantIndices(const NodeCtx &nc, int inputIdx, Value v,
                                             llvm::ArrayRef<int64_t> bounds) {
  auto cst = v.getDefiningOp<graph::ConstantOp>();
  if (!cst || bounds.empty())
    return success();
  auto type = cast<RankedTensorType>(cst.getType());
  auto intType = dyn_cast<IntegerType>(type.getElementType());
  if (!intType || intType.getWidth() == 1)
    return success();
  bool zext = intType.isUnsigned();
  auto check = [&](int64_t pos, int64_t x) -> LogicalResult {
    int64_t n = bounds[pos % bounds.size()];
    if (x >= -n && x < n)
      return success();
    return nodeError(nc) << "index " << x << " (element " << pos << " of indices '"
                         << nc.node.input(inputIdx) << "') is out of range [" << -n << ", " << n
                         << ")";
  };
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue())) {
    int64_t pos = 0;
    if (dense.isSplat()) {
      APInt x = dense.getSplatValue<APInt>();
      for (size_t i = 0; i < bounds.size() && i < (size_t)dense.getNumElements(); ++i)
        if (failed(check(i, zext ? (int64_t)x.getZExtValue() : x.getSExtValue())))
          return failure();
      return success();
    }
    for (const APInt &x : dense.getValues<APInt>())
      if (failed(check(pos++, zext ? (int64_t)x.getZExtValue() : x.getSExtValue())))
        return failure();
    return success();
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue())) {
    ArrayRef<char> raw = res.getData();
    unsigned w = intType.getWidth() / 8;
    std::optional<int64_t> n = product(type.getShape());
    if (!n || w == 0 || (uint64_t)raw.size() != (uint64_t)*n * w)
      return success();
    for (int64_t i = 0; i < *n; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, raw.data() + i * w, w);
      int64_t x = zext || w == 8 ? (int64_t)bits : llvm::SignExtend64(bits, w * 8);
      if (failed(check(i, x)))
        return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

FailureOr<int64_t> Importer::getInt(const NodeCtx &nc, llvm::StringRef name, int64_t dflt) {
  const auto *a = findAttr(nc, name);
  if (!a)
    return dflt;
  if (attrType(*a) != onnx::AttributeProto::INT)
    return attrTypeError(nc, *a, onnx::AttributeProto::INT);
  return a->i();
}

FailureOr<float> Importer::getFloat(const NodeCtx &nc, llvm::StringRef name, float dflt) {
  const auto *a = findAttr(nc, name);
  if (!a)
    return dflt;
  if (attrType(*a) != onnx::AttributeProto::FLOAT)
    return attrTypeError(nc, *a, onnx::AttributeProto::FLOAT);
  return a->f();
}

FailureOr<std::string> Importer::getString(const NodeCtx &nc, llvm::StringRef name,
                                           llvm::StringRef dflt) {
  const auto *a = findAttr(nc, name);
  if (!a)
    return dflt.str();
  if (attrType(*a) != onnx::AttributeProto::STRING)
    return attrTypeError(nc, *a, onnx::AttributeProto::STRING);
  return a->s();
}

FailureOr<std::optional<SmallVector<int64_t>>> Importer::getInts(const NodeCtx &nc,
                                                                 llvm::StringRef name) {
  const auto *a = findAttr(nc, name);
  if (!a)
    return std::optional<SmallVector<int64_t>>();
  // An empty INTS attribute written without `type` has no field set.
  int t = attrType(*a);
  if (t != onnx::AttributeProto::INTS && t != onnx::AttributeProto::UNDEFINED)
    return attrTypeError(nc, *a, onnx::AttributeProto::INTS);
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>(a->ints().begin(), a->ints().end()));
}

/// Maps `axis` in [-rank, rank) (or [-rank, rank] when `allowRank`) to
/// [0, rank) (resp. [0, rank]).
FailureOr<int64_t> Importer::normalizeAxis(const NodeCtx &nc, int64_t axis, int64_t rank,
                                           bool allowRank) {
  int64_t hi = allowRank ? rank : rank - 1;
  if (axis < -rank || axis > hi)
    return nodeError(nc) << "axis " << axis << " is out of range [" << -rank << ", " << hi
                         << "] for an input of rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult Importer::importBinary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto lhs = getInput(nc, 0), rhs = getInput(nc, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  Value l = *lhs, r = *rhs;
  auto lt = cast<RankedTensorType>(l.getType()), rt = cast<RankedTensorType>(r.getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types (" << lt.getElementType()
                         << " vs " << rt.getElementType() << ")";
  if (opset < 7) {
    // Legacy broadcasting (Add-6 etc.): B broadcasts to A, aligned at `axis`
    // (default: trailing dims, which is numpy's rule).
    auto bcast = getInt(nc, "broadcast", 0);
    if (failed(bcast))
      return failure();
    if (!*bcast) {
      if (lt.getShape() != rt.getShape())
        return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                             << shapeStr(rt.getShape()) << " differ and broadcast = 0 (opset "
                             << opset << ")";
    } else if (findAttr(nc, "axis")) {
      auto axis = getInt(nc, "axis", 0);
      if (failed(axis))
        return failure();
      int64_t rankA = lt.getRank(), rankB = rt.getRank();
      auto a = normalizeAxis(nc, *axis, rankA, /*allowRank=*/true);
      if (failed(a))
        return failure();
      if (*a + rankB > rankA)
        return nodeError(nc) << "B of shape " << shapeStr(rt.getShape())
                             << " does not fit in A of shape " << shapeStr(lt.getShape())
                             << " at axis " << *a;
      SmallVector<int64_t> shape(rt.getShape());
      shape.append(rankA - *a - rankB, 1);
      if ((int64_t)shape.size() != rankB) {
        r = reshape(nc.loc, r, shape);
        rt = cast<RankedTensorType>(r.getType());
      }
    }
  }
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  Value v = OpTy::create(b, nc.loc, RankedTensorType::get(*shape, lt.getElementType()), l, r);
  return define(nc, 0, v);
}

template <typename OpTy> LogicalResult Importer::importUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  return define(nc, 0, OpTy::create(b, nc.loc, in->getType(), *in));
}

LogicalResult Importer::importGelu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  auto approximate = getString(nc, "approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return nodeError(nc) << "attribute 'approximate' must be \"none\" or \"tanh\", got \""
                         << *approximate << "\"";
  return define(nc, 0, graph::GeluOp::create(b, nc.loc, in->getType(), *in, *approximate));
}

LogicalResult Importer::importMatMul(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto lhs = getInput(nc, 0), rhs = getInput(nc, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  auto at = checkFloat(nc, *lhs, "A"), bt = checkFloat(nc, *rhs, "B");
  if (failed(at) || failed(bt))
    return failure();
  if (at->getElementType() != bt->getElementType())
    return nodeError(nc) << "operands have different element types (" << at->getElementType()
                         << " vs " << bt->getElementType() << ")";
  if (at->getRank() == 0 || bt->getRank() == 0)
    return nodeError(nc) << "operands must have rank >= 1";
  // numpy.matmul: 1-D A is [1, K], 1-D B is [K, 1]; the added dims are dropped.
  SmallVector<int64_t> sa(at->getShape()), sb(bt->getShape());
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  if (sa.back() != sb[sb.size() - 2])
    return nodeError(nc) << "contraction dimensions differ: A " << shapeStr(at->getShape())
                         << ", B " << shapeStr(bt->getShape());
  auto batch = graph::broadcastShapes(ArrayRef<int64_t>(sa).drop_back(2),
                                      ArrayRef<int64_t>(sb).drop_back(2));
  if (failed(batch))
    return nodeError(nc) << "batch dimensions of A " << shapeStr(at->getShape()) << " and B "
                         << shapeStr(bt->getShape()) << " do not broadcast";
  SmallVector<int64_t> shape(*batch);
  if (!vecA)
    shape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    shape.push_back(sb.back());
  Value v = graph::MatMulOp::create(b, nc.loc, RankedTensorType::get(shape, at->getElementType()),
                                    *lhs, *rhs);
  return define(nc, 0, v);
}

LogicalResult Importer::importGemm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto a = getInput(nc, 0), bm = getInput(nc, 1), c = getOptionalInput(nc, 2);
  if (failed(a) || failed(bm) || failed(c))
    return failure();
  auto at = checkFloat(nc, *a, "A"), bt = checkFloat(nc, *bm, "B");
  if (failed(at) || failed(bt))
    return failure();
  auto alpha = getFloat(nc, "alpha", 1.0f), beta = getFloat(nc, "beta", 1.0f);
  auto transA = getInt(nc, "transA", 0), transB = getInt(nc, "transB", 0);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  if (at->getRank() != 2 || bt->getRank() != 2)
    return nodeError(nc) << "A and B must be rank-2 tensors, got " << *at << " and " << *bt;
  Type elt = at->getElementType();
  if (bt->getElementType() != elt)
    return nodeError(nc) << "A and B have different element types (" << elt << " vs "
                         << bt->getElementType() << ")";
  int64_t m = *transA ? at->getDimSize(1) : at->getDimSize(0);
  int64_t ka = *transA ? at->getDimSize(0) : at->getDimSize(1);
  int64_t kb = *transB ? bt->getDimSize(1) : bt->getDimSize(0);
  int64_t n = *transB ? bt->getDimSize(0) : bt->getDimSize(1);
  if (ka != kb)
    return nodeError(nc) << "contraction dimensions differ: op(A) is [" << m << ", " << ka
                         << "], op(B) is [" << kb << ", " << n << "]";
  if (*c) {
    auto ct = checkFloat(nc, *c, "C");
    if (failed(ct))
      return failure();
    if (ct->getElementType() != elt)
      return nodeError(nc) << "C has element type " << ct->getElementType() << ", A has " << elt;
    // Unidirectional broadcast of C to [M, N] (also what legacy
    // broadcast = 1 allows before opset 7).
    SmallVector<int64_t> mn = {m, n};
    auto bc = graph::broadcastShapes(mn, ct->getShape());
    if (ct->getRank() > 2 || failed(bc) || *bc != mn)
      return nodeError(nc) << "C of shape " << shapeStr(ct->getShape())
                           << " does not broadcast to [" << m << ", " << n << "]";
  }
  Value v = graph::GemmOp::create(b, nc.loc, RankedTensorType::get({m, n}, elt), *a, *bm, *c,
                                  b.getF32FloatAttr(*alpha), b.getF32FloatAttr(*beta),
                                  b.getBoolAttr(*transA != 0), b.getBoolAttr(*transB != 0));
  return define(nc, 0, v);
}

/// Softmax and LogSoftmax. Opset >= 13: along `axis` (default -1). Before: the input is
/// coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (default axis 1) and normalized
/// along dim 1; when axis is the last dim that is the same as normalizing along it.
template <typename OpTy> LogicalResult Importer::importSoftmaxLike(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = checkFloat(nc, *in, "input");
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  if (rank == 0)
    return nodeError(nc) << "input must have rank >= 1";
  auto axisAttr = getInt(nc, "axis", opset >= 13 ? -1 : 1);
  if (failed(axisAttr))
    return failure();
  auto axis = normalizeAxis(nc, *axisAttr, rank, /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (opset >= 13 || *axis == rank - 1)
    return define(nc, 0, OpTy::create(b, nc.loc, *t, *in, b.getI64IntegerAttr(*axis)));
  auto outer = product(t->getShape().take_front(*axis));
  auto inner = product(t->getShape().drop_front(*axis));
  if (!outer || !inner)
    return nodeError(nc) << "input is too large";
  Value flat = reshape(nc.loc, *in, {*outer, *inner});
  Value sm = OpTy::create(b, nc.loc, flat.getType(), flat, b.getI64IntegerAttr(1));
  return define(nc, 0, reshape(nc.loc, sm, t->getShape()));
}

LogicalResult Importer::importReshape(const NodeCtx &nc) {
  SmallVector<int64_t> target;
  bool allowZero = false;
  Value data;
  if (opset >= 5) {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto in = getInput(nc, 0), shapeIn = getInput(nc, 1);
    if (failed(in) || failed(shapeIn))
      return failure();
    auto shape = getConstantInts(nc, *shapeIn, "shape input '" + nc.node.input(1) + "'");
    if (failed(shape))
      return failure();
    auto az = getInt(nc, "allowzero", 0);
    if (failed(az))
      return failure();
    data = *in;
    target = std::move(*shape);
    allowZero = *az != 0;
  } else {
    if (failed(checkArity(nc, 1, 1, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto shape = getInts(nc, "shape");
    if (failed(in) || failed(shape))
      return failure();
    if (!*shape)
      return nodeError(nc) << "attribute 'shape' is required before opset 5";
    data = *in;
    target = std::move(**shape);
  }
  auto t = cast<RankedTensorType>(data.getType());
  // 0 copies the input dim (unless allowzero), -1 is inferred (at most one).
  int inferIdx = -1;
  bool hasZero = false;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == -1) {
      if (inferIdx >= 0)
        return nodeError(nc) << "shape " << shapeStr(target) << " has more than one -1";
      inferIdx = i;
    } else if (d == 0 && !allowZero) {
      if ((int64_t)i >= t.getRank())
        return nodeError(nc) << "shape " << shapeStr(target) << " copies dim #" << i
                             << " (0) of an input of rank " << t.getRank();
      d = t.getDimSize(i);
    } else if (d < 0) {
      return nodeError(nc) << "shape " << shapeStr(target) << " has invalid entry " << d;
    }
    hasZero |= d == 0;
  }
  if (allowZero && hasZero && inferIdx >= 0)
    return nodeError(nc) << "shape " << shapeStr(target) << " has both 0 and -1 with allowzero = 1";
  int64_t total = t.getNumElements();
  if (inferIdx >= 0) {
    SmallVector<int64_t> known(target);
    known[inferIdx] = 1;
    auto p = product(known);
    if (!p || *p == 0 || total % *p != 0)
      return nodeError(nc) << "cannot infer the -1 in shape " << shapeStr(target)
                           << " for an input of shape " << shapeStr(t.getShape());
    target[inferIdx] = total / *p;
  }
  auto p = product(target);
  if (!p || *p != total)
    return nodeError(nc) << "cannot reshape an input of shape " << shapeStr(t.getShape()) << " ("
                         << total << " elements) to " << shapeStr(target);
  return define(nc, 0, reshape(nc.loc, data, target));
}

LogicalResult Importer::importFlatten(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", 1);
  if (failed(in) || failed(axisAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto axis = normalizeAxis(nc, *axisAttr, t.getRank(), /*allowRank=*/true);
  if (failed(axis))
    return failure();
  auto outer = product(t.getShape().take_front(*axis));
  auto inner = product(t.getShape().drop_front(*axis));
  if (!outer || !inner)
    return nodeError(nc) << "input is too large";
  return define(nc, 0, reshape(nc.loc, *in, {*outer, *inner}));
}

LogicalResult Importer::importTranspose(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto permAttr = getInts(nc, "perm");
  if (failed(in) || failed(permAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t rank = t.getRank();
  SmallVector<int64_t> perm;
  if (*permAttr) {
    perm = std::move(**permAttr);
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  SmallVector<bool> seen(rank, false);
  if ((int64_t)perm.size() != rank)
    return nodeError(nc) << "perm " << shapeStr(perm) << " has " << perm.size()
                         << " entries, the input has rank " << rank;
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return nodeError(nc) << "perm " << shapeStr(perm) << " is not a permutation of [0, " << rank
                           << ")";
    seen[p] = true;
    shape.push_back(t.getDimSize(p));
  }
  Value v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                       *in, b.getDenseI64ArrayAttr(perm));
  return define(nc, 0, v);
}

/// Reduce* arguments. `axes` is an attribute before opset `axesInputSince` (13 for
/// ReduceSum, 18 for the others) and an optional constant input from then on. No axes
/// reduces every dim, unless noop_with_empty_axes = 1 (then `noop` is set). With allowBool
/// (ReduceMax / ReduceMin, bool since opset 20), a bool input is cast to f32 (0 / 1, exact) and
/// `fromBool` is set: the caller casts the result back.
FailureOr<Importer::ReduceArgs> Importer::parseReduce(const NodeCtx &nc, int axesInputSince,
                                                      bool allowBool) {
  bool axesAsInput = opset >= axesInputSince;
  if (failed(checkArity(nc, 1, axesAsInput ? 2 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  ReduceArgs r;
  if (allowBool && cast<RankedTensorType>(in->getType()).getElementType().isInteger(1)) {
    *in = castTo(nc.loc, *in, b.getF32Type());
    r.fromBool = true;
  }
  auto t = checkFloat(nc, *in, "data");
  if (failed(t))
    return failure();
  r.input = *in;
  if (axesAsInput) {
    // From this opset the axes are the second input; an `axes` attribute is not part of
    // the operator and would otherwise be ignored silently (reducing every dim).
    if (findAttr(nc, "axes"))
      return nodeError(nc) << "'axes' is an input at this opset, not an attribute (ONNX "
                              "operator spec); the model's axes attribute is refused",
             failure();
    auto axesIn = getOptionalInput(nc, 1);
    if (failed(axesIn))
      return failure();
    if (*axesIn) {
      auto v = getConstantInts(nc, *axesIn, "axes input '" + nc.node.input(1) + "'");
      if (failed(v))
        return failure();
      r.axes = std::move(*v);
    }
  } else {
    auto a = getInts(nc, "axes");
    if (failed(a))
      return failure();
    if (*a)
      r.axes = std::move(**a);
  }
  auto keep = getInt(nc, "keepdims", 1);
  auto noop = getInt(nc, "noop_with_empty_axes", 0);
  if (failed(keep) || failed(noop))
    return failure();
  r.keepdims = *keep != 0;
  r.noop = r.axes.empty() && *noop;
  int64_t rank = t->getRank();
  for (int64_t &a : r.axes) {
    auto n = normalizeAxis(nc, a, rank, /*allowRank=*/false);
    if (failed(n))
      return failure();
    a = *n;
  }
  llvm::sort(r.axes);
  if (std::adjacent_find(r.axes.begin(), r.axes.end()) != r.axes.end())
    return nodeError(nc) << "axes " << shapeStr(r.axes) << " repeat a dim";
  return r;
}

template <typename OpTy>
LogicalResult Importer::importReduce(const NodeCtx &nc, int axesInputSince) {
  // max / min of bools are any / all: exact in f32 over 0 / 1, cast back to bool.
  constexpr bool boolOk =
      std::is_same_v<OpTy, graph::ReduceMaxOp> || std::is_same_v<OpTy, graph::ReduceMinOp>;
  auto r = parseReduce(nc, axesInputSince, boolOk);
  if (failed(r))
    return failure();
  Value v = r->noop ? r->input : buildReduce<OpTy>(nc.loc, r->input, r->axes, r->keepdims);
  if (r->fromBool)
    v = castTo(nc.loc, v, b.getI1Type());
  return define(nc, 0, v);
}

/// ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: decomposed into
/// elementwise ops around reduce_sum / reduce_max (ONNX operator definitions), in forms
/// whose intermediates do not overflow or underflow where the result does not
/// (docs/numerics.md):
/// - sums (L1, LogSum) of 16-bit floats run in f32 (the f16 sum of 8 values of 1e4
///   overflowed where log(sum) = 11.2 did not); sums of squares (L2, SumSquare) in f32
///   for f16 and f64 for f32 / bf16 (x^2 overflows f32 above 1.8e19 and underflows below
///   1e-19; ReduceL2 of 1e30 values is 1e30 sqrt(n)); the result is cast back. f64
///   inputs keep f64;
/// - LogSumExp subtracts the row max m clamped to the finite range, m' = clip(m, lowest,
///   max): exp(x - m') is exp(-inf) = 0 for an all -inf row (-inf - -inf was NaN) and
///   exp(inf) for a row holding +inf, so the result is -inf / +inf as log-sum-exp is;
///   a NaN still propagates.
LogicalResult Importer::importReduceComposite(const NodeCtx &nc) {
  auto r = parseReduce(nc, 18);
  if (failed(r))
    return failure();
  llvm::StringRef op = nc.opType();
  Value x = r->input;
  Location loc = nc.loc;
  auto t = cast<RankedTensorType>(x.getType());
  Type elem = t.getElementType();
  auto unary = [&](auto tag, Value v) -> Value {
    using OpTy = decltype(tag);
    return OpTy::create(b, loc, v.getType(), v);
  };
  auto square = [&](Value v) -> Value {
    return graph::MulOp::create(b, loc, v.getType(), v, v);
  };
  // The accumulation types of sums and of sums of squares (see above).
  bool half = elem.isF16() || elem.isBF16();
  Type sumT = half ? b.getF32Type() : elem;
  Type sqT = elem.isF16() ? b.getF32Type()
             : (elem.isF32() || elem.isBF16()) ? Type(b.getF64Type()) : elem;
  // Back from f64 through f32 (the CPU kernels' runtime has no f64 -> bf16 conversion,
  // __truncdfbf2; the double rounding is within bf16's half ulp but for ties).
  auto back = [&](Value v) -> Value {
    if (elem.isBF16())
      v = castTo(loc, v, b.getF32Type());
    return castTo(loc, v, elem);
  };
  if (r->noop) {
    // Identity reduction: only the elementwise parts apply.
    if (op == "ReduceL1")
      return define(nc, 0, unary(graph::AbsOp(), x));
    if (op == "ReduceL2")
      return define(nc, 0, unary(graph::AbsOp(), x));
    if (op == "ReduceSumSquare")
      return define(nc, 0, back(square(castTo(loc, x, sqT))));
    if (op == "ReduceLogSum")
      return define(nc, 0, unary(graph::LogOp(), x));
    return define(nc, 0, x); // LogSumExp of one element
  }
  Value v;
  if (op == "ReduceL1") {
    Value a = castTo(loc, unary(graph::AbsOp(), x), sumT);
    v = castTo(loc, buildReduce<graph::ReduceSumOp>(loc, a, r->axes, r->keepdims), elem);
  } else if (op == "ReduceL2") {
    Value sq = square(castTo(loc, x, sqT));
    v = back(unary(graph::SqrtOp(), buildReduce<graph::ReduceSumOp>(loc, sq, r->axes, r->keepdims)));
  } else if (op == "ReduceSumSquare") {
    Value sq = square(castTo(loc, x, sqT));
    v = back(buildReduce<graph::ReduceSumOp>(loc, sq, r->axes, r->keepdims));
  } else if (op == "ReduceLogSum") {
    Value s = buildReduce<graph::ReduceSumOp>(loc, castTo(loc, x, sumT), r->axes, r->keepdims);
    v = castTo(loc, unary(graph::LogOp(), s), elem);
  } else { // ReduceLogSumExp, stabilised by the clamped max: m' + log(sum(exp(x - m')))
    Value m = buildReduce<graph::ReduceMaxOp>(loc, x, r->axes, /*keepdims=*/true);
    auto ft = dyn_cast<FloatType>(elem);
    if (!ft)
      return nodeError(nc) << "input must be a float tensor";
    double big = APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
    m = graph::ClipOp::create(b, loc, m.getType(), m, b.getF64FloatAttr(-big),
                              b.getF64FloatAttr(big));
    Value shifted = graph::SubOp::create(b, loc, t, x, m);
    Value s = buildReduce<graph::ReduceSumOp>(loc, unary(graph::ExpOp(), shifted), r->axes,
                                              r->keepdims);
    Value l = unary(graph::LogOp(), s);
    Value mr = m;
    if (!r->keepdims)
      mr = reshape(loc, m, cast<RankedTensorType>(l.getType()).getShape());
    v = graph::AddOp::create(b, loc, l.getType(), l, mr);
  }
  return define(nc, 0, v);
}


std::optional<SmallVector<int64_t>> Importer::intConstant(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
  auto it = dyn_cast<IntegerType>(cast<RankedTensorType>(c.getType()).getElementType());
  if (!dense || !it || dense.getNumElements() > 4096)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(it.isUnsigned() || it.getWidth() == 1 ? (int64_t)x.getZExtValue()
                                                        : x.getSExtValue());
  return out;
}

Value Importer::intConstantOf(Location loc, RankedTensorType type, ArrayRef<int64_t> values) {
  auto it = cast<IntegerType>(type.getElementType());
  SmallVector<APInt> bits;
  // Two's complement wrap to the element width (as the kernels compute): APInt(width, v)
  // asserts on a value that does not fit (an int8 fold of 100 + 100; aicc-fuzz-onnx).
  for (int64_t v : values)
    bits.push_back(APInt(64, (uint64_t)v).trunc(it.getWidth()));
  return createConstant(loc, DenseElementsAttr::get(type, bits));
}

std::optional<Value> Importer::foldIntBinary(const NodeCtx &nc, llvm::StringRef op) {
  if (nc.node.input_size() != 2)
    return std::nullopt;
  auto a = values.lookup(nc.node.input(0)), bv = values.lookup(nc.node.input(1));
  if (!a || !bv)
    return std::nullopt;
  auto ca = intConstant(a), cb = intConstant(bv);
  auto ta = cast<RankedTensorType>(a.getType()), tb = cast<RankedTensorType>(bv.getType());
  if (!ca || !cb || ta.getElementType() != tb.getElementType() ||
      ta.getElementType().isInteger(1))
    return std::nullopt;
  auto shape = graph::broadcastShapes(ta.getShape(), tb.getShape());
  if (failed(shape))
    return std::nullopt;
  auto outT = RankedTensorType::get(*shape, ta.getElementType());
  int64_t n = outT.getNumElements();
  auto at = [&](ArrayRef<int64_t> vals, RankedTensorType t, int64_t lin) {
    // Broadcast read: right-aligned numpy rules.
    int64_t off = 0, stride = 1, rem = lin;
    SmallVector<int64_t> idx(shape->size());
    for (int64_t d = shape->size() - 1; d >= 0; --d) {
      idx[d] = rem % (*shape)[d];
      rem /= (*shape)[d];
    }
    for (int64_t d = t.getRank() - 1; d >= 0; --d) {
      int64_t od = d + shape->size() - t.getRank();
      off += (t.getDimSize(d) == 1 ? 0 : idx[od]) * stride;
      stride *= t.getDimSize(d);
    }
    return vals[off];
  };
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t x = at(*ca, ta, i), y = at(*cb, tb, i);
    if ((op == "Div" || op == "Mod") && y == 0)
      return std::nullopt;
    // Two's complement wrap-around, as the kernels compute (uint64 arithmetic: signed overflow
    // is undefined behaviour; found by aicc-fuzz-onnx). INT64_MIN / -1 is left to the kernel.
    if (op == "Div" && x == std::numeric_limits<int64_t>::min() && y == -1)
      return std::nullopt;
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    int64_t r;
    if (op == "Add")
      r = wrap(uint64_t(x) + uint64_t(y));
    else if (op == "Sub")
      r = wrap(uint64_t(x) - uint64_t(y));
    else if (op == "Mul")
      r = wrap(uint64_t(x) * uint64_t(y));
    else if (op == "Div")
      r = x / y;
    else {
      // Mod with fmod=0: the sign of the divisor (Python's %), without overflow: r and y have
      // opposite signs when r is adjusted.
      r = y == -1 ? 0 : x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
        r += y;
    }
    out.push_back(r);
  }
  return intConstantOf(nc.loc, outT, out);
}

/// Shape and Size of statically shaped tensors are constants.
LogicalResult Importer::importShapeOp(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto i64 = b.getI64Type();
  if (nc.opType() == "Size")
    return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get({}, i64),
                                       {t.getNumElements()}));
  int64_t rank = t.getRank();
  auto start = getInt(nc, "start", 0), end = getInt(nc, "end", rank);
  if (failed(start) || failed(end))
    return failure();
  int64_t s0 = std::clamp<int64_t>(*start < 0 ? *start + rank : *start, 0, rank);
  int64_t e0 = std::clamp<int64_t>(*end < 0 ? *end + rank : *end, 0, rank);
  SmallVector<int64_t> dims;
  for (int64_t i = s0; i < e0; ++i)
    dims.push_back(t.getDimSize(i));
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get({(int64_t)dims.size()}, i64),
                                     dims));
}

/// Squeeze / Unsqueeze: reshapes; axes from the attribute (opset < 13) or a constant input.
LogicalResult Importer::importSqueeze(const NodeCtx &nc, bool unsqueeze) {
  bool axesInput = opset >= 13;
  if (failed(checkArity(nc, 1, axesInput ? 2 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> axes;
  bool haveAxes = false;
  if (axesInput) {
    auto a = getOptionalInput(nc, 1);
    if (failed(a))
      return failure();
    if (*a) {
      auto v = getConstantInts(nc, *a, "axes input '" + nc.node.input(1) + "'");
      if (failed(v))
        return failure();
      axes = *v;
      haveAxes = true;
    }
  } else {
    auto a = getInts(nc, "axes");
    if (failed(a))
      return failure();
    if (*a) {
      axes = **a;
      haveAxes = true;
    }
  }
  auto t = cast<RankedTensorType>(in->getType());
  SmallVector<int64_t> shape;
  if (unsqueeze) {
    if (!haveAxes)
      return nodeError(nc) << "Unsqueeze needs axes";
    int64_t outRank = t.getRank() + axes.size();
    SmallVector<bool> isNew(outRank, false);
    for (int64_t a : axes) {
      auto n = normalizeAxis(nc, a, outRank, /*allowRank=*/false);
      if (failed(n))
        return failure();
      if (isNew[*n])
        return nodeError(nc) << "axes repeat dim " << *n;
      isNew[*n] = true;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < outRank; ++i)
      shape.push_back(isNew[i] ? 1 : t.getDimSize(j++));
  } else {
    SmallVector<bool> drop(t.getRank(), false);
    if (!haveAxes) {
      for (int64_t i = 0; i < t.getRank(); ++i)
        drop[i] = t.getDimSize(i) == 1;
    } else {
      for (int64_t a : axes) {
        auto n = normalizeAxis(nc, a, t.getRank(), /*allowRank=*/false);
        if (failed(n))
          return failure();
        if (t.getDimSize(*n) != 1)
          return nodeError(nc) << "cannot squeeze dim " << *n << " of size " << t.getDimSize(*n);
        drop[*n] = true;
      }
    }
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (!drop[i])
        shape.push_back(t.getDimSize(i));
  }
  return define(nc, 0, reshape(nc.loc, *in, shape));
}

/// Range with constant start / limit / delta folds to a constant.
LogicalResult Importer::importRange(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  SmallVector<double> v;
  Type elem;
  for (int i = 0; i < 3; ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    elem = cast<RankedTensorType>(in->getType()).getElementType();
    auto s = getConstantScalar(nc, *in, "Range input");
    if (failed(s))
      return failure();
    v.push_back(*s);
  }
  if (v[2] == 0)
    return nodeError(nc) << "delta is 0";
  // n = max(ceil((limit - start) / delta), 0) (ONNX Range), exactly for integers.
  constexpr int64_t kMaxRange = int64_t(1) << 24;
  int64_t n = 0;
  SmallVector<int64_t> ints;
  if (!isa<FloatType>(elem)) {
    for (int i = 0; i < 3; ++i) {
      auto c = getConstantInts(nc, *getInput(nc, i), "Range input");
      if (failed(c) || c->size() != 1)
        return nodeError(nc) << "Range inputs must be scalars";
      ints.push_back((*c)[0]);
    }
    CheckedInt diff = CheckedInt(ints[1]) - ints[0];
    CheckedInt q = diff / ints[2];
    if (q.valid() && (diff % ints[2]).value() != 0 && ((diff.value() < 0) == (ints[2] < 0)))
      q += 1;
    if (!q.valid())
      return nodeError(nc) << "the number of elements of range(" << ints[0] << ", " << ints[1]
                           << ", " << ints[2] << ") overflows int64";
    n = std::max<int64_t>(0, q.value());
  } else {
    double q = std::ceil((v[1] - v[0]) / v[2]);
    if (!std::isfinite(q))
      return nodeError(nc) << "the number of elements of range(" << v[0] << ", " << v[1] << ", "
                           << v[2] << ") is not finite";
    n = q <= 0 ? 0 : q > (double)kMaxRange ? kMaxRange + 1 : (int64_t)q;
  }
  if (n > kMaxRange)
    return nodeError(nc) << "range of more than " << kMaxRange
                         << " elements is too large to fold";
  if (failed(checkShape(nc, {n}, elem, "output of shape")))
    return failure();
  auto type = RankedTensorType::get({n}, elem);
  if (isa<FloatType>(elem)) {
    SmallVector<APFloat> vals;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(v[0] + i * v[2]);
      bool lost;
      f.convert(cast<FloatType>(elem).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(f);
    }
    return define(nc, 0, createConstant(nc.loc, DenseElementsAttr::get(type, vals)));
  }
  // start + i * delta stays between start and limit: no overflow.
  SmallVector<int64_t> vals;
  for (int64_t i = 0; i < n; ++i)
    vals.push_back(ints[0] + i * ints[2]);
  return define(nc, 0, intConstantOf(nc.loc, type, vals));
}

LogicalResult Importer::importConstantOfShape(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto shape = getConstantInts(nc, *in, "shape input");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return nodeError(nc) << "negative dim in shape";
  Attribute fill;
  Type elem = b.getF32Type();
  if (auto it = nc.attrs.find("value"); it != nc.attrs.end()) {
    if (attrType(*it->second) != onnx::AttributeProto::TENSOR)
      return attrTypeError(nc, *it->second, onnx::AttributeProto::TENSOR);
    auto t = convertTensor(it->second->t(), "value", nc.loc);
    if (failed(t))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(*t);
    if (!dense || dense.getNumElements() != 1)
      return nodeError(nc) << "attribute 'value' must be a one-element tensor";
    elem = dense.getElementType();
    fill = *dense.value_begin<Attribute>();
  } else {
    fill = b.getF32FloatAttr(0.0f);
  }
  if (failed(checkShape(nc, *shape, elem, "output of shape")))
    return failure();
  auto type = RankedTensorType::get(*shape, elem);
  // Small fills are constants (shape arithmetic folds through them); a bigger
  // one is the fill value expanded by a runtime kernel, so that the bundle does
  // not carry its bytes.
  if (type.getNumElements() <= kMaxFoldElements)
    return define(nc, 0, createConstant(nc.loc, DenseElementsAttr::get(type, fill)));
  Value scalar = createConstant(nc.loc, DenseElementsAttr::get(RankedTensorType::get({}, elem),
                                                               fill));
  return define(nc, 0, graph::ExpandOp::create(b, nc.loc, type, scalar));
}

LogicalResult Importer::importExpand(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto in = getInput(nc, 0), shapeIn = getInput(nc, 1);
  if (failed(in) || failed(shapeIn))
    return failure();
  auto shape = getConstantInts(nc, *shapeIn, "shape input '" + nc.node.input(1) + "'");
  if (failed(shape))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto out = graph::broadcastShapes(t.getShape(), *shape);
  if (failed(out))
    return nodeError(nc) << "cannot expand " << shapeStr(t.getShape()) << " to "
                         << shapeStr(*shape);
  auto outT = RankedTensorType::get(*out, t.getElementType());
  if (outT == t)
    return define(nc, 0, *in);
  return define(nc, 0, graph::ExpandOp::create(b, nc.loc, outT, *in));
}

/// Gather folds when data and indices are small integer constants (shape arithmetic);
/// otherwise it is unsupported for now.
LogicalResult Importer::importGather(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto data = getInput(nc, 0), indices = getInput(nc, 1);
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(data) || failed(indices) || failed(axisAttr))
    return failure();
  auto dv = intConstant(*data), iv = intConstant(*indices);
  auto dt = cast<RankedTensorType>(data->getType()), it = cast<RankedTensorType>(indices->getType());
  auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  if (!dv || !iv) {
    // A gather kernel: indices read at run time (graph.gather, a view op).
    auto iType = dyn_cast<IntegerType>(it.getElementType());
    if (!iType || iType.getWidth() < 8)
      return nodeError(nc) << "indices must be int32 or int64";
    if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
      return failure();
    SmallVector<int64_t> shape(dt.getShape().take_front(*axis));
    shape.append(it.getShape().begin(), it.getShape().end());
    shape.append(dt.getShape().begin() + *axis + 1, dt.getShape().end());
    return define(nc, 0, graph::GatherOp::create(
                             b, nc.loc, RankedTensorType::get(shape, dt.getElementType()), *data,
                             *indices, b.getI64IntegerAttr(*axis)));
  }
  SmallVector<int64_t> outShape(dt.getShape().take_front(*axis));
  outShape.append(it.getShape().begin(), it.getShape().end());
  outShape.append(dt.getShape().begin() + *axis + 1, dt.getShape().end());
  if (failed(checkShape(nc, outShape, dt.getElementType(), "output of shape")) ||
      failed(checkTable(nc, *product(outShape), 8, "the folded gather")))
    return failure();
  int64_t outer = 1, inner = 1, n = dt.getDimSize(*axis);
  for (int64_t d = 0; d < *axis; ++d)
    outer *= dt.getDimSize(d);
  for (int64_t d = *axis + 1; d < dt.getRank(); ++d)
    inner *= dt.getDimSize(d);
  SmallVector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k : *iv) {
      if (k < -n || k >= n)
        return nodeError(nc) << "index " << k << " out of range [" << -n << ", " << n << ")";
      int64_t kk = k < 0 ? k + n : k;
      for (int64_t i = 0; i < inner; ++i)
        out.push_back((*dv)[(o * n + kk) * inner + i]);
    }
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get(outShape, dt.getElementType()),
                                     out));
}

/// Concat folds for integer constants (shape vectors); otherwise unsupported for now.
LogicalResult Importer::importConcat(const NodeCtx &nc) {
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(axisAttr) || nc.node.input_size() < 1)
    return nodeError(nc) << "needs inputs and an axis";
  SmallVector<SmallVector<int64_t>> parts;
  SmallVector<RankedTensorType> types;
  for (int i = 0; i < nc.node.input_size(); ++i) {
    auto in = getInput(nc, i);
    if (failed(in))
      return failure();
    auto c = intConstant(*in);
    types.push_back(cast<RankedTensorType>(in->getType()));
    if (!c) {
      parts.clear();
      break;
    }
    parts.push_back(*c);
  }
  if ((int)parts.size() != nc.node.input_size()) {
    // Not all constant: a concat kernel (graph.concat, read through index arithmetic).
    SmallVector<Value> ins;
    for (int i = 0; i < nc.node.input_size(); ++i) {
      auto v = getInput(nc, i);
      if (failed(v))
        return failure();
      ins.push_back(*v);
    }
    auto t0 = cast<RankedTensorType>(ins[0].getType());
    auto ax = normalizeAxis(nc, *axisAttr, t0.getRank(), /*allowRank=*/false);
    if (failed(ax))
      return failure();
    SmallVector<int64_t> shape(t0.getShape());
    CheckedInt axisSize = 0;
    for (Value v : ins) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() != t0.getRank() || t.getElementType() != t0.getElementType())
        return nodeError(nc) << "inputs differ in rank or element type";
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (d != *ax && t.getDimSize(d) != t0.getDimSize(d))
          return nodeError(nc) << "input shapes differ outside the axis";
      axisSize += t.getDimSize(*ax);
    }
    if (!axisSize.valid())
      return nodeError(nc) << "the inputs' sizes along axis " << *ax << " overflow int64";
    shape[*ax] = axisSize.value();
    return define(nc, 0, graph::ConcatOp::create(b, nc.loc,
                                                 RankedTensorType::get(shape, t0.getElementType()),
                                                 ins, b.getI64IntegerAttr(*ax)));
  }
  auto axis = normalizeAxis(nc, *axisAttr, types[0].getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(types[0].getShape());
  shape[*axis] = 0;
  for (auto t : types) {
    if (t.getRank() != (int64_t)shape.size() || t.getElementType() != types[0].getElementType())
      return nodeError(nc) << "inputs differ in rank or element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != *axis && t.getDimSize(d) != types[0].getDimSize(d))
        return nodeError(nc) << "input shapes differ outside the axis";
    shape[*axis] += t.getDimSize(*axis); // constants of <= 4096 elements: no overflow
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= shape[d];
  SmallVector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [t, vals] : llvm::zip(types, parts)) {
      int64_t chunk = t.getNumElements() / std::max<int64_t>(outer, 1);
      out.append(vals.begin() + o * chunk, vals.begin() + (o + 1) * chunk);
    }
  return define(nc, 0, intConstantOf(nc.loc, RankedTensorType::get(shape,
                                                                   types[0].getElementType()),
                                     out));
}

/// Slice: starts/ends/axes/steps are attributes before opset 10 and constant inputs from
/// then on; clamped as the ONNX spec says (Slice-13).
LogicalResult Importer::importSlice(const NodeCtx &nc) {
  bool inputs = opset >= 10;
  if (failed(checkArity(nc, inputs ? 3 : 1, inputs ? 5 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (inputs) {
    auto get = [&](int i, llvm::StringRef what, SmallVector<int64_t> &out) -> LogicalResult {
      auto v = i < nc.node.input_size() ? getOptionalInput(nc, i) : FailureOr<Value>(Value());
      if (failed(v))
        return failure();
      if (!*v)
        return success();
      auto c = getConstantInts(nc, *v, what);
      if (failed(c))
        return failure();
      out = *c;
      return success();
    };
    if (failed(get(1, "starts", starts)) || failed(get(2, "ends", ends)) ||
        failed(get(3, "axes", axes)) || failed(get(4, "steps", steps)))
      return failure();
  } else {
    auto s0 = getInts(nc, "starts"), e0 = getInts(nc, "ends"), a0 = getInts(nc, "axes");
    if (failed(s0) || failed(e0) || failed(a0))
      return failure();
    if (!*s0 || !*e0)
      return nodeError(nc) << "attributes 'starts' and 'ends' are required";
    starts = **s0;
    ends = **e0;
    if (*a0)
      axes = **a0;
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return nodeError(nc) << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> st(r, 0), sp(r, 1), shape(t.getShape());
  SmallVector<bool> seen(r, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalizeAxis(nc, axes[i], r, /*allowRank=*/false);
    if (failed(a))
      return failure();
    if (seen[*a])
      return nodeError(nc) << "axis " << *a << " repeats";
    seen[*a] = true;
    int64_t n = t.getDimSize(*a), step = steps[i];
    if (step == 0)
      return nodeError(nc) << "step 0";
    int64_t s0 = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e0 = ends[i] < 0 ? ends[i] + n : ends[i];
    if (step > 0) {
      s0 = std::clamp<int64_t>(s0, 0, n);
      e0 = std::clamp<int64_t>(e0, 0, n);
    } else if (n == 0) {
      s0 = e0 = 0; // an empty axis: nothing to take (clamp(.., 0, -1) is undefined)
    } else {
      s0 = std::clamp<int64_t>(s0, 0, n - 1);
      e0 = std::clamp<int64_t>(e0, -1, n - 1);
    }
    // ceil((e0 - s0) / step), without overflow for any step (s0, e0 in [-1, n]).
    int64_t count = 0;
    if (step > 0 && e0 > s0)
      count = 1 + (e0 - s0 - 1) / step;
    else if (step < 0 && s0 > e0)
      count = step == INT64_MIN ? 1 : 1 + (s0 - e0 - 1) / (-step);
    st[*a] = count ? s0 : 0;
    sp[*a] = step;
    shape[*a] = count;
  }
  auto outT = RankedTensorType::get(shape, t.getElementType());
  if (outT == t && llvm::all_of(sp, [](int64_t x) { return x == 1; }))
    return define(nc, 0, *in);
  return define(nc, 0, graph::SliceOp::create(b, nc.loc, outT, *in, b.getDenseI64ArrayAttr(st),
                                              b.getDenseI64ArrayAttr(sp)));
}

/// Pad: pads (and value) are attributes before opset 11, constant inputs from then on.
LogicalResult Importer::importPad(const NodeCtx &nc) {
  bool inputs = opset >= 11;
  if (failed(checkArity(nc, 1, inputs ? 4 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto mode = getString(nc, "mode", "constant");
  if (failed(in) || failed(mode))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  int64_t r = t.getRank();
  SmallVector<int64_t> pads, axes;
  double value = 0;
  if (inputs) {
    auto p = getInput(nc, 1);
    if (failed(p))
      return failure();
    auto pv = getConstantInts(nc, *p, "pads");
    if (failed(pv))
      return failure();
    pads = *pv;
    if (nc.node.input_size() > 2) {
      auto c = getOptionalInput(nc, 2);
      if (failed(c))
        return failure();
      if (*c) {
        auto v = getConstantScalar(nc, *c, "constant_value");
        if (failed(v))
          return failure();
        value = *v;
      }
    }
    if (nc.node.input_size() > 3) {
      auto a = getOptionalInput(nc, 3);
      if (failed(a))
        return failure();
      if (*a) {
        auto av = getConstantInts(nc, *a, "axes");
        if (failed(av))
          return failure();
        axes = *av;
      }
    }
  } else {
    auto p = getInts(nc, opset < 2 ? "paddings" : "pads");
    auto v = getFloat(nc, "value", 0.0f);
    if (failed(p) || failed(v))
      return failure();
    if (!*p)
      return nodeError(nc) << "attribute 'pads' is required";
    pads = **p;
    value = *v;
  }
  if (axes.empty())
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
  if ((int64_t)pads.size() != 2 * (int64_t)axes.size())
    return nodeError(nc) << "pads has " << pads.size() << " entries, expected "
                         << 2 * axes.size();
  SmallVector<int64_t> low(r, 0), high(r, 0), shape(t.getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = normalizeAxis(nc, axes[i], r, /*allowRank=*/false);
    if (failed(a))
      return failure();
    low[*a] = pads[i];
    high[*a] = pads[i + axes.size()];
    if (low[*a] < 0 || high[*a] < 0)
      return nodeError(nc) << "negative pads (cropping) are not supported";
    CheckedInt size = CheckedInt(shape[*a]) + low[*a] + high[*a];
    if (!size.valid())
      return nodeError(nc) << "padded size of dim " << *a << " overflows int64";
    shape[*a] = size.value();
  }
  // wrap (opset 19): the pads repeat the input periodically (numpy.pad mode 'wrap').
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" &&
      !(*mode == "wrap" && opset >= 19))
    return nodeError(nc) << "mode '" << *mode << "' is not supported"
                         << (*mode == "wrap" ? " before opset 19" : "");
  for (int64_t d = 0; d < r; ++d)
    if (*mode != "constant" && t.getDimSize(d) == 0 && (low[d] || high[d]))
      return nodeError(nc) << "mode '" << *mode << "' cannot pad the empty dim " << d;
  return define(nc, 0, graph::PadOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                            *in, b.getDenseI64ArrayAttr(low),
                                            b.getDenseI64ArrayAttr(high), b.getStringAttr(*mode),
                                            b.getF64FloatAttr(value)));
}

LogicalResult Importer::importTile(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto in = getInput(nc, 0), rep = getInput(nc, 1);
  if (failed(in) || failed(rep))
    return failure();
  auto reps = getConstantInts(nc, *rep, "repeats");
  if (failed(reps))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if ((int64_t)reps->size() != t.getRank())
    return nodeError(nc) << "repeats needs one entry per dim";
  SmallVector<int64_t> shape;
  for (auto [d, k] : llvm::enumerate(*reps)) {
    if (k < 0)
      return nodeError(nc) << "negative repeat";
    CheckedInt size = CheckedInt(t.getDimSize(d)) * k;
    if (!size.valid())
      return nodeError(nc) << "dim " << d << " of size " << t.getDimSize(d) << " repeated " << k
                           << " times overflows int64";
    shape.push_back(size.value());
  }
  return define(nc, 0, graph::TileOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                             *in));
}

/// Split: sizes from the attribute (< 13), a constant input (>= 13), num_outputs (>= 18),
/// or equal parts; each output is a slice.
LogicalResult Importer::importSplit(const NodeCtx &nc) {
  auto in = getInput(nc, 0);
  auto axisAttr = getInt(nc, "axis", 0);
  if (failed(in) || failed(axisAttr))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  auto axis = normalizeAxis(nc, *axisAttr, t.getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  int64_t n = t.getDimSize(*axis), outs = nc.node.output_size();
  SmallVector<int64_t> sizes;
  if (opset >= 13 && nc.node.input_size() > 1 && !nc.node.input(1).empty()) {
    auto v = getInput(nc, 1);
    if (failed(v))
      return failure();
    auto c = getConstantInts(nc, *v, "split");
    if (failed(c))
      return failure();
    sizes = *c;
  } else if (opset < 13) {
    auto a = getInts(nc, "split");
    if (failed(a))
      return failure();
    if (*a)
      sizes = **a;
  }
  if (sizes.empty()) {
    auto k = getInt(nc, "num_outputs", outs);
    if (failed(k) || *k <= 0 || *k != outs)
      return nodeError(nc) << "num_outputs must be the number of outputs (" << outs << ")";
    int64_t chunk = (n + *k - 1) / *k;
    for (int64_t i = 0, left = n; i < *k; ++i, left -= chunk)
      sizes.push_back(std::min(chunk, left));
  }
  if ((int64_t)sizes.size() != outs)
    return nodeError(nc) << sizes.size() << " split sizes for " << outs << " outputs";
  int64_t start = 0;
  for (int64_t i = 0; i < outs; ++i) {
    SmallVector<int64_t> st(t.getRank(), 0), sp(t.getRank(), 1), shape(t.getShape());
    st[*axis] = start;
    shape[*axis] = sizes[i];
    if (sizes[i] < 0 || sizes[i] > n - start) // checked before the add: no overflow
      return nodeError(nc) << "split sizes exceed the axis";
    start += sizes[i];
    Value v = graph::SliceOp::create(b, nc.loc, RankedTensorType::get(shape, t.getElementType()),
                                     *in, b.getDenseI64ArrayAttr(st), b.getDenseI64ArrayAttr(sp));
    if (!nc.node.output(i).empty() && failed(define(nc, i, v)))
      return failure();
  }
  if (start != n)
    return nodeError(nc) << "split sizes add up to " << start << ", not " << n;
  return success();
}

/// DepthToSpace (DCR / CRD) and SpaceToDepth as reshape + transpose + reshape.
LogicalResult Importer::importDepthToSpace(const NodeCtx &nc, bool toSpace) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto bs = getInt(nc, "blocksize", 0);
  auto mode = getString(nc, "mode", "DCR");
  if (failed(in) || failed(bs) || failed(mode))
    return failure();
  auto t = cast<RankedTensorType>(in->getType());
  if (t.getRank() != 4 || *bs <= 0)
    return nodeError(nc) << "needs a 4-D input and a positive blocksize";
  int64_t N = t.getDimSize(0), C = t.getDimSize(1), H = t.getDimSize(2), W = t.getDimSize(3),
          k = *bs;
  // blocksize^2 and the moved spatial sizes, checked (a wrapped blocksize^2 of 0 divides).
  CheckedInt kk = CheckedInt(k) * k, hk = CheckedInt(H) * k, wk = CheckedInt(W) * k,
             ckk = CheckedInt(C) * kk;
  if (!kk.valid() || (toSpace ? !hk.valid() || !wk.valid() : !ckk.valid()))
    return nodeError(nc) << "blocksize " << k << " is too large for the input "
                         << shapeStr(t.getShape()) << " (sizes overflow int64)";
  Type e = t.getElementType();
  Value v;
  if (toSpace) {
    if (C % kk.value())
      return nodeError(nc) << "channels not divisible by blocksize^2";
    bool crd = *mode == "CRD";
    Value r = reshape(nc.loc, *in, crd ? SmallVector<int64_t>{N, C / kk.value(), k, k, H, W}
                                       : SmallVector<int64_t>{N, k, k, C / kk.value(), H, W});
    SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                    : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
    SmallVector<int64_t> ts;
    auto rt = cast<RankedTensorType>(r.getType());
    for (int64_t p : perm)
      ts.push_back(rt.getDimSize(p));
    v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(ts, e), r,
                                   b.getDenseI64ArrayAttr(perm));
    v = reshape(nc.loc, v, {N, C / kk.value(), hk.value(), wk.value()});
  } else {
    if (H % k || W % k)
      return nodeError(nc) << "spatial dims not divisible by blocksize";
    Value r = reshape(nc.loc, *in, {N, C, H / k, k, W / k, k});
    SmallVector<int64_t> perm{0, 3, 5, 1, 2, 4};
    SmallVector<int64_t> ts;
    auto rt = cast<RankedTensorType>(r.getType());
    for (int64_t p : perm)
      ts.push_back(rt.getDimSize(p));
    v = graph::TransposeOp::create(b, nc.loc, RankedTensorType::get(ts, e), r,
                                   b.getDenseI64ArrayAttr(perm));
    v = reshape(nc.loc, v, {N, ckk.value(), H / k, W / k});
  }
  return define(nc, 0, v);
}

FailureOr<Importer::Window> Importer::windowGeometry(const NodeCtx &nc,
                                                     ArrayRef<int64_t> spatial,
                                                     ArrayRef<int64_t> kernel, bool allowCeil) {
  int64_t k = spatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  auto strides = getInts(nc, "strides"), pads = getInts(nc, "pads"),
       dil = getInts(nc, "dilations");
  auto autoPad = getString(nc, "auto_pad", "NOTSET");
  auto ceil = getInt(nc, "ceil_mode", 0);
  if (failed(strides) || failed(pads) || failed(dil) || failed(autoPad) || failed(ceil))
    return failure();
  w.strides = *strides ? **strides : SmallVector<int64_t>(k, 1);
  w.dilations = *dil ? **dil : SmallVector<int64_t>(k, 1);
  w.pads = *pads ? **pads : SmallVector<int64_t>(2 * k, 0);
  if ((int64_t)w.strides.size() != k || (int64_t)w.dilations.size() != k ||
      (int64_t)w.pads.size() != 2 * k)
    return nodeError(nc) << "strides / dilations / pads do not match " << k << " spatial dims";
  if (*ceil && !allowCeil)
    return nodeError(nc) << "ceil_mode is not defined for this op";
  for (int64_t d = 0; d < k; ++d) {
    int64_t in = spatial[d], s = w.strides[d];
    if (s < 1 || w.dilations[d] < 1)
      return nodeError(nc) << "strides and dilations must be positive";
    if (w.kernel[d] < 1)
      return nodeError(nc) << "kernel size " << w.kernel[d] << " of spatial dim " << d
                           << " is not positive";
    if (w.pads[d] < 0 || w.pads[d + k] < 0)
      return nodeError(nc) << "pads must be >= 0";
    // Every quantity below is checked: kernel, dilations, strides and pads are
    // attributes, so any int64 (the window then does not fit, or a size overflows).
    CheckedInt span = (CheckedInt(w.kernel[d]) - 1) * w.dilations[d] + 1, o;
    if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
      o = (CheckedInt(in) + (s - 1)) / s;
      CheckedInt total = (o - 1) * s + span - in;
      if (!total.valid())
        return nodeError(nc) << "the window of spatial dim " << d << " overflows int64";
      int64_t t = std::max<int64_t>(0, total.value());
      int64_t small = t / 2, big = t - small;
      w.pads[d] = *autoPad == "SAME_UPPER" ? small : big;
      w.pads[d + k] = *autoPad == "SAME_UPPER" ? big : small;
    } else if (*autoPad == "VALID") {
      w.pads[d] = w.pads[d + k] = 0;
      CheckedInt num = CheckedInt(in) - span;
      o = num.valid() && num.value() < 0 ? CheckedInt(0) : num / s + 1;
    } else if (*autoPad == "NOTSET") {
      CheckedInt num = CheckedInt(in) + w.pads[d] + w.pads[d + k] - span;
      if (num.valid() && num.value() < 0) {
        o = 0;
      } else {
        o = (*ceil ? (num + (s - 1)) / s : num / s) + 1;
        // ceil_mode: a last window that would start in the end padding is dropped.
        CheckedInt lastStart = (o - 1) * s, padded = CheckedInt(in) + w.pads[d];
        if (*ceil && lastStart.valid() && padded.valid() && lastStart.value() >= padded.value())
          o -= 1;
      }
    } else {
      return nodeError(nc) << "auto_pad '" << *autoPad << "' is not supported";
    }
    if (!o.valid() || !span.valid())
      return nodeError(nc) << "the window of spatial dim " << d
                           << " (kernel, dilations, strides, pads) overflows int64";
    if (o.value() < 1)
      return nodeError(nc) << "the window does not fit spatial dim " << d;
    w.out.push_back(o.value());
  }
  return w;
}

LogicalResult Importer::importConv(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), wt = getInput(nc, 1), bias = getOptionalInput(nc, 2);
  auto group = getInt(nc, "group", 1);
  if (failed(x) || failed(wt) || failed(bias) || failed(group))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto wT = cast<RankedTensorType>(wt->getType());
  if (xt->getRank() < 3 || wT.getRank() != xt->getRank())
    return nodeError(nc) << "X and W must have the same rank >= 3";
  auto kattr = getInts(nc, "kernel_shape");
  if (failed(kattr))
    return failure();
  auto geo = windowGeometry(nc, xt->getShape().drop_front(2), wT.getShape().drop_front(2), false);
  if (failed(geo))
    return failure();
  if (*group < 1 || xt->getDimSize(1) % *group ||
      (CheckedInt(wT.getDimSize(1)) * *group).get() != xt->getDimSize(1))
    return nodeError(nc) << "group " << *group << " does not match C = " << xt->getDimSize(1)
                         << " and W " << shapeStr(wT.getShape());
  SmallVector<int64_t> shape{xt->getDimSize(0), wT.getDimSize(0)};
  shape.append(geo->out.begin(), geo->out.end());
  return define(nc, 0, graph::ConvOp::create(
                           b, nc.loc, RankedTensorType::get(shape, xt->getElementType()), *x, *wt,
                           *bias, b.getDenseI64ArrayAttr(geo->strides),
                           b.getDenseI64ArrayAttr(geo->pads), b.getDenseI64ArrayAttr(geo->dilations),
                           b.getI64IntegerAttr(*group)));
}

LogicalResult Importer::importPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 2)))
    return failure();
  bool wantIndices = nc.node.output_size() > 1 && !nc.node.output(1).empty() &&
                     usedNames.contains(nc.node.output(1));
  auto x = getInput(nc, 0);
  auto kernel = getInts(nc, "kernel_shape");
  if (failed(x) || failed(kernel))
    return failure();
  // MaxPool-12 also takes int8 / uint8: pooled in f32 (exact), then cast back.
  Type intElem = cast<RankedTensorType>(x->getType()).getElementType();
  if (nc.opType() == "MaxPool" && intElem.isInteger(8))
    *x = castTo(nc.loc, *x, b.getF32Type());
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  if (!*kernel)
    return nodeError(nc) << "attribute 'kernel_shape' is required";
  if (xt->getRank() < 3 || (int64_t)(*kernel)->size() != xt->getRank() - 2)
    return nodeError(nc) << "kernel_shape must have one entry per spatial dim";
  int64_t storageOrder = 0;
  if (nc.opType() == "MaxPool") {
    auto order = getInt(nc, "storage_order", 0);
    if (failed(order))
      return failure();
    storageOrder = *order;
  }
  auto geo = windowGeometry(nc, xt->getShape().drop_front(2), **kernel, /*allowCeil=*/true);
  if (failed(geo))
    return failure();
  SmallVector<int64_t> shape{xt->getDimSize(0), xt->getDimSize(1)};
  shape.append(geo->out.begin(), geo->out.end());
  auto t = RankedTensorType::get(shape, xt->getElementType());
  if (nc.opType() == "MaxPool") {
    Value y = graph::MaxPoolOp::create(
        b, nc.loc, t, *x, b.getDenseI64ArrayAttr(geo->kernel),
        b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
        b.getDenseI64ArrayAttr(geo->dilations));
    if (wantIndices) {
      auto indices = maxPoolIndices(nc, *x, y, *geo, storageOrder);
      if (failed(indices) || failed(define(nc, 1, *indices)))
        return failure();
    }
    return define(nc, 0, castTo(nc.loc, y, intElem));
  }
  auto cip = getInt(nc, "count_include_pad", 0);
  if (failed(cip))
    return failure();
  return define(nc, 0, graph::AvgPoolOp::create(
                           b, nc.loc, t, *x, b.getDenseI64ArrayAttr(geo->kernel),
                           b.getDenseI64ArrayAttr(geo->strides), b.getDenseI64ArrayAttr(geo->pads),
                           b.getDenseI64ArrayAttr(geo->dilations), b.getBoolAttr(*cip != 0)));
}

/// MaxPool's Indices output (MaxPool-8 on): for each output element, the index of the
/// selected input element in the flattened input, (n * C + c) * prod(spatial) + the
/// spatial offset (row-major, or column-major over the two spatial dims when
/// storage_order = 1), padding not counted; the first maximum in the window's row-major
/// order wins (the ONNX reference's strict '>' scan). Built from existing ops: for each
/// kernel offset k, the strided slice of X (padded with -inf) at k equals Y where k holds
/// the maximum; scanning k backwards, where(equal_k, base + offset_k, acc) keeps the first.
/// base (a constant of Y's shape) is the flat index of each window's (virtual) origin, and
/// offset_k is linear in k, so padding positions are never selected unless a whole window's
/// valid elements are -inf.
FailureOr<Value> Importer::maxPoolIndices(const NodeCtx &nc, Value x, Value y, const Window &w,
                                          int64_t storageOrder) {
  auto xt = cast<RankedTensorType>(x.getType()), yt = cast<RankedTensorType>(y.getType());
  int64_t k = xt.getRank() - 2;
  if (storageOrder != 0 && storageOrder != 1)
    return nodeError(nc) << "storage_order must be 0 or 1, got " << storageOrder;
  if (storageOrder == 1 && k > 2)
    return nodeError(nc) << "storage_order = 1 (column major) is supported for 1-D and 2-D "
                            "pooling, got "
                         << k << " spatial dims";
  auto spatial = xt.getShape().drop_front(2);
  // Element strides of the spatial dims in the flattened input.
  SmallVector<int64_t> stride(k, 1);
  for (int64_t d = k - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * spatial[d + 1];
  if (storageOrder == 1 && k == 2)
    stride = {1, spatial[0]};
  int64_t plane = 1;
  for (int64_t d : spatial)
    plane *= d;
  // X padded with -inf, with room for every window (ceil_mode may reach past the pads).
  // One slice + compare + select per window offset, and a constant of Y's size: capped.
  CheckedInt numOffsets = 1;
  for (int64_t kd : w.kernel)
    numOffsets *= kd;
  constexpr int64_t kMaxWindowOffsets = 1 << 16;
  if (!numOffsets.valid() || numOffsets.value() > kMaxWindowOffsets)
    return nodeError(nc) << "the Indices output of a window of more than " << kMaxWindowOffsets
                         << " positions is not supported";
  // Y's element count can overflow int64 here (the pooled output of a hostile shape is not
  // checked before this point; aicc-fuzz-onnx).
  std::optional<int64_t> yElems = product(yt.getShape());
  if (!yElems)
    return nodeError(nc) << "output " << shapeStr(yt.getShape())
                         << " has more elements than int64 can count";
  if (failed(checkTable(nc, *yElems, 8, "the Indices output's base offsets")))
    return failure();
  SmallVector<int64_t> low(xt.getRank(), 0), high(xt.getRank(), 0), padded(xt.getShape());
  for (int64_t d = 0; d < k; ++d) {
    CheckedInt span = (CheckedInt(w.kernel[d]) - 1) * w.dilations[d] + 1;
    CheckedInt need = (CheckedInt(w.out[d]) - 1) * w.strides[d] + span;
    low[d + 2] = w.pads[d];
    CheckedInt hi = need - spatial[d] - w.pads[d];
    if (!hi.valid())
      return nodeError(nc) << "the window of spatial dim " << d << " overflows int64";
    high[d + 2] = std::max(w.pads[d + k], hi.value());
    CheckedInt size = CheckedInt(spatial[d]) + low[d + 2] + high[d + 2];
    if (!size.valid())
      return nodeError(nc) << "the padded size of spatial dim " << d << " overflows int64";
    padded[d + 2] = size.value();
  }
  if (failed(checkShape(nc, padded, xt.getElementType(), "padded input of shape")))
    return failure();
  Value xp = x;
  if (llvm::any_of(low, [](int64_t p) { return p != 0; }) ||
      llvm::any_of(high, [](int64_t p) { return p != 0; }))
    xp = graph::PadOp::create(b, nc.loc, RankedTensorType::get(padded, xt.getElementType()), x,
                              b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                              b.getStringAttr("constant"),
                              b.getF64FloatAttr(-std::numeric_limits<double>::infinity()));
  // base[n, c, o...] = (n * C + c) * plane + sum_d (o_d * stride_d - pad_d) * stride[d].
  auto i64 = b.getI64Type();
  auto it = RankedTensorType::get(yt.getShape(), i64);
  SmallVector<int64_t> base;
  base.reserve(yt.getNumElements());
  SmallVector<int64_t> idx(yt.getRank(), 0);
  for (int64_t lin = 0; lin < yt.getNumElements(); ++lin) {
    int64_t rem = lin;
    for (int64_t d = yt.getRank() - 1; d >= 0; --d) {
      idx[d] = rem % yt.getDimSize(d);
      rem /= yt.getDimSize(d);
    }
    int64_t v = (idx[0] * xt.getDimSize(1) + idx[1]) * plane;
    for (int64_t d = 0; d < k; ++d)
      v += (idx[d + 2] * w.strides[d] - w.pads[d]) * stride[d];
    base.push_back(v);
  }
  Value baseV = intConstantOf(nc.loc, it, base);
  Value acc = createConstant(nc.loc, DenseElementsAttr::get(it, b.getI64IntegerAttr(-1)));
  auto boolT = RankedTensorType::get(yt.getShape(), b.getI1Type());
  for (int64_t off = numOffsets.value() - 1; off >= 0; --off) {
    SmallVector<int64_t> starts(xt.getRank(), 0), steps(xt.getRank(), 1);
    int64_t rem = off, flat = 0;
    for (int64_t d = k - 1; d >= 0; --d) {
      int64_t kk = rem % w.kernel[d];
      rem /= w.kernel[d];
      starts[d + 2] = kk * w.dilations[d];
      steps[d + 2] = w.strides[d];
      flat += kk * w.dilations[d] * stride[d];
    }
    Value window = graph::SliceOp::create(b, nc.loc, yt, xp, b.getDenseI64ArrayAttr(starts),
                                          b.getDenseI64ArrayAttr(steps));
    Value eq = graph::EqualOp::create(b, nc.loc, boolT, window, y);
    Value at = bin<graph::AddOp>(nc.loc, baseV,
                                 intConstantOf(nc.loc, RankedTensorType::get({}, i64), {flat}));
    acc = graph::WhereOp::create(b, nc.loc, it, eq, at, acc);
  }
  return acc;
}

/// GlobalAveragePool / GlobalMaxPool: reductions over the spatial dims, kept as size 1.
LogicalResult Importer::importGlobalPool(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto x = getInput(nc, 0);
  if (failed(x) || failed(checkFloat(nc, *x, "X")))
    return failure();
  int64_t r = cast<RankedTensorType>(x->getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < r; ++d)
    axes.push_back(d);
  if (nc.opType() == "GlobalMaxPool")
    return define(nc, 0, buildReduce<graph::ReduceMaxOp>(nc.loc, *x, axes, true));
  return define(nc, 0, buildReduce<graph::ReduceMeanOp>(nc.loc, *x, axes, true));
}

LogicalResult Importer::importPRelu(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), slope = getInput(nc, 1);
  if (failed(x) || failed(slope) || failed(checkFloat(nc, *x, "X")))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto st = cast<RankedTensorType>(slope->getType());
  Value s = *slope;
  // Before opset 7 a 1-D slope of C values is per channel (dim 1).
  if (opset < 7 && st.getRank() == 1 && xt.getRank() > 2 && st.getDimSize(0) == xt.getDimSize(1)) {
    SmallVector<int64_t> shape(xt.getRank() - 1, 1);
    shape[0] = st.getDimSize(0);
    s = reshape(nc.loc, s, shape);
  }
  auto shape = graph::broadcastShapes(xt.getShape(), cast<RankedTensorType>(s.getType()).getShape());
  if (failed(shape) || ArrayRef<int64_t>(*shape) != xt.getShape())
    return nodeError(nc) << "slope of shape " << shapeStr(st.getShape())
                         << " does not broadcast to X of shape " << shapeStr(xt.getShape());
  return define(nc, 0, graph::PReluOp::create(b, nc.loc, xt, *x, s));
}

/// Reshapes a per-channel vector [C] to broadcast along dim 1 of a rank-`rank` tensor.
static SmallVector<int64_t> channelShape(int64_t c, int64_t rank) {
  SmallVector<int64_t> s(std::max<int64_t>(rank - 1, 1), 1);
  s[0] = c;
  return s;
}

/// Inference BatchNormalization: (x - mean) / sqrt(var + eps) * scale + B, per channel.
LogicalResult Importer::importBatchNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 5, 5, 5)))
    return failure();
  for (int i = 1; i < nc.node.output_size(); ++i)
    if (!nc.node.output(i).empty() && usedNames.contains(nc.node.output(i)))
      return nodeError(nc) << "training outputs (running mean/var) are not supported";
  auto training = getInt(nc, "training_mode", 0);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(training) || failed(eps))
    return failure();
  if (*training)
    return nodeError(nc) << "training_mode = 1 is not supported (inference only)";
  SmallVector<Value> in;
  for (int i = 0; i < 5; ++i) {
    auto v = getInput(nc, i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  auto xt = checkFloat(nc, in[0], "X");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 2)
    return nodeError(nc) << "X must have rank >= 2";
  int64_t c = xt->getDimSize(1), rank = xt->getRank();
  SmallVector<Value> p;
  for (int i = 1; i < 5; ++i) {
    auto t = cast<RankedTensorType>(in[i].getType());
    if (t.getRank() != 1 || t.getDimSize(0) != c)
      return nodeError(nc) << "input " << i << " must have shape [" << c << "]";
    Value v = reshape(nc.loc, castTo(nc.loc, in[i], xt->getElementType()), channelShape(c, rank));
    p.push_back(v);
  }
  Location loc = nc.loc;
  Value denom = graph::SqrtOp::create(
      b, loc, p[3].getType(), bin<graph::AddOp>(loc, p[3], scalarF(loc, xt->getElementType(), *eps)));
  Value y = bin<graph::DivOp>(loc, bin<graph::SubOp>(loc, in[0], p[2]), denom);
  y = bin<graph::AddOp>(loc, bin<graph::MulOp>(loc, y, p[0]), p[1]);
  return define(nc, 0, y);
}

/// InstanceNormalization: normalize over the spatial dims of each (n, c), then scale + B.
LogicalResult Importer::importInstanceNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getInput(nc, 2);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(x) || failed(scale) || failed(bias) || failed(eps))
    return failure();
  auto xt = checkFloat(nc, *x, "input");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 3)
    return nodeError(nc) << "input must have rank >= 3";
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < xt->getRank(); ++d)
    axes.push_back(d);
  Value y = normalize(nc.loc, *x, axes, *eps);
  auto cs = channelShape(xt->getDimSize(1), xt->getRank());
  y = bin<graph::MulOp>(nc.loc, y, reshape(nc.loc, *scale, cs));
  return define(nc, 0, bin<graph::AddOp>(nc.loc, y, reshape(nc.loc, *bias, cs)));
}

/// LayerNormalization (opset 17): normalize over dims [axis, rank), then Scale and B
/// (broadcast over those dims). Optional outputs: Mean and InvStdDev (reduced dims kept).
LogicalResult Importer::importLayerNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 3, 3)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getOptionalInput(nc, 2);
  auto axisAttr = getInt(nc, "axis", -1);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  auto stash = getInt(nc, "stash_type", 1);
  if (failed(x) || failed(scale) || failed(bias) || failed(axisAttr) || failed(eps) ||
      failed(stash))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  auto axis = normalizeAxis(nc, *axisAttr, xt->getRank(), /*allowRank=*/false);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t d = *axis; d < xt->getRank(); ++d)
    axes.push_back(d);
  // Scale and B broadcast to X (ONNX: to the normalized shape X[axis:]); the output is X's shape.
  for (auto [what, v] : {std::pair<llvm::StringRef, Value>{"Scale", *scale}, {"B", *bias}}) {
    if (!v)
      continue;
    auto vt = cast<RankedTensorType>(v.getType());
    auto shape = graph::broadcastShapes(xt->getShape(), vt.getShape());
    if (vt.getElementType() != xt->getElementType() || failed(shape) ||
        ArrayRef<int64_t>(*shape) != xt->getShape())
      return nodeError(nc) << what << " " << vt << " does not broadcast to X " << *xt;
  }
  Location loc = nc.loc;
  bool extraOutputs = false;
  for (int i = 1; i < nc.node.output_size(); ++i)
    extraOutputs |= !nc.node.output(i).empty() && usedNames.contains(nc.node.output(i));
  if (!extraOutputs)
    return define(nc, 0, graph::LayerNormOp::create(b, loc, *xt, *x, *scale,
                                                    *bias, b.getI64IntegerAttr(*axis),
                                                    b.getF64FloatAttr(*eps)));
  // Mean / InvStdDev are wanted: the decomposed form computes them.
  Value mean = buildReduce<graph::ReduceMeanOp>(loc, *x, axes, true);
  Value d = bin<graph::SubOp>(loc, *x, mean);
  Value var = buildReduce<graph::ReduceMeanOp>(loc, bin<graph::MulOp>(loc, d, d), axes, true);
  Value stddev = graph::SqrtOp::create(
      b, loc, var.getType(), bin<graph::AddOp>(loc, var, scalarF(loc, xt->getElementType(), *eps)));
  Value y = bin<graph::DivOp>(loc, d, stddev);
  y = bin<graph::MulOp>(loc, y, *scale);
  if (*bias)
    y = bin<graph::AddOp>(loc, y, *bias);
  if (failed(define(nc, 0, y)))
    return failure();
  if (nc.node.output_size() > 1 && !nc.node.output(1).empty() && failed(define(nc, 1, mean)))
    return failure();
  if (nc.node.output_size() > 2 && !nc.node.output(2).empty())
    return define(nc, 2, graph::ReciprocalOp::create(b, loc, stddev.getType(), stddev));
  return success();
}

/// GroupNormalization (opset 18/21): [N, C, ...] as [N, G, C/G * spatial], normalized per
/// group, then per-channel scale and bias (opset 21; per-group in opset 18).
LogicalResult Importer::importGroupNorm(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto x = getInput(nc, 0), scale = getInput(nc, 1), bias = getInput(nc, 2);
  auto groups = getInt(nc, "num_groups", 0);
  auto eps = getFloat(nc, "epsilon", 1e-5f);
  if (failed(x) || failed(scale) || failed(bias) || failed(groups) || failed(eps))
    return failure();
  auto xt = checkFloat(nc, *x, "X");
  if (failed(xt))
    return failure();
  if (xt->getRank() < 2)
    return nodeError(nc) << "X must have rank >= 2 ([N, C, ...])";
  int64_t n = xt->getDimSize(0), c = xt->getDimSize(1), g = *groups;
  if (g <= 0 || c % g != 0)
    return nodeError(nc) << "num_groups " << g << " does not divide " << c << " channels";
  // Elements per (n, group): C / G * prod(spatial) (not numElements / (N * G): N may be 0).
  int64_t perGroup = *product(xt->getShape().drop_front(2)) * (c / g);
  Value flat = reshape(nc.loc, *x, {n, g, perGroup});
  Value y = reshape(nc.loc, normalize(nc.loc, flat, {2}, *eps), xt->getShape());
  int64_t sc = cast<RankedTensorType>(scale->getType()).getNumElements();
  Value s = *scale, bb = *bias;
  if (sc == g && g != c) { // opset 18: one scale / bias per group
    SmallVector<int64_t> gshape{n, g, perGroup};
    Value yg = reshape(nc.loc, y, gshape);
    yg = bin<graph::MulOp>(nc.loc, yg, reshape(nc.loc, s, {g, 1}));
    yg = bin<graph::AddOp>(nc.loc, yg, reshape(nc.loc, bb, {g, 1}));
    return define(nc, 0, reshape(nc.loc, yg, xt->getShape()));
  }
  auto cs = channelShape(c, xt->getRank());
  y = bin<graph::MulOp>(nc.loc, y, reshape(nc.loc, s, cs));
  return define(nc, 0, bin<graph::AddOp>(nc.loc, y, reshape(nc.loc, bb, cs)));
}

LogicalResult Importer::notConstantError(const NodeCtx &nc, Value v, llvm::StringRef what) {
  auto diag = nodeError(nc) << what << " must be a compile-time constant (an initializer, a "
                                       "Constant node output, or shape arithmetic that folds)";
  auto func = cast<func::FuncOp>(entryBlock->getParentOp());
  auto argName = [&](BlockArgument arg) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "aicc.name");
    return name ? name.getValue() : llvm::StringRef();
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == entryBlock && !argName(arg).empty())
      diag << "; it is graph input '" << argName(arg)
           << "' (specialize the model on its value with --bind-input " << argName(arg)
           << "=FILE.pb)";
    return diag;
  }
  // Computed at run time: name the graph inputs it depends on (a bounded walk).
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen{v};
  llvm::SetVector<BlockArgument> args;
  while (!work.empty() && seen.size() < 10000) {
    Value x = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == entryBlock && !argName(arg).empty())
        args.insert(arg);
      continue;
    }
    if (Operation *op = x.getDefiningOp())
      for (Value o : op->getOperands())
        if (seen.insert(o).second)
          work.push_back(o);
  }
  if (args.empty())
    return diag;
  SmallVector<BlockArgument> sorted(args.begin(), args.end());
  llvm::sort(sorted,
             [](BlockArgument a, BlockArgument c) { return a.getArgNumber() < c.getArgNumber(); });
  diag << "; it is computed from graph input" << (sorted.size() > 1 ? "s " : " ");
  for (auto [i, arg] : llvm::enumerate(sorted))
    diag << (i ? ", '" : "'") << argName(arg) << "'";
  diag << " (specialize the model on " << (sorted.size() > 1 ? "their values" : "its value")
       << " with";
  for (BlockArgument arg : sorted)
    diag << " --bind-input " << argName(arg) << "=FILE.pb";
  return diag << ")";
}

FailureOr<SmallVector<double>> Importer::getConstantFloats(const NodeCtx &nc, Value v,
                                                           llvm::StringRef what) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return notConstantError(nc, v, what);
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  if (!dense || dense.getNumElements() > 65536)
    return nodeError(nc) << what << " must be a small dense constant, got " << v.getType();
  SmallVector<double> out;
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    for (const APFloat &x : dense.getValues<APFloat>())
      out.push_back(x.convertToDouble());
    return out;
  }
  bool zext = et.isUnsignedInteger() || et.isInteger(1);
  for (const APInt &x : dense.getValues<APInt>())
    out.push_back(zext ? (double)x.getZExtValue() : (double)x.getSExtValue());
  return out;
}

FailureOr<double> Importer::getConstantScalar(const NodeCtx &nc, Value v, llvm::StringRef what) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!c)
    return notConstantError(nc, v, what);
  if (!dense || dense.getNumElements() != 1)
    return nodeError(nc) << what << " must be a constant scalar, got " << v.getType();
  Type et = dense.getElementType();
  if (isa<FloatType>(et))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  return (double)(*dense.getValues<APInt>().begin()).getSExtValue();
}

/// Neg, Abs, Sign: floats and integers.
template <typename OpTy> LogicalResult Importer::importNumUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  return define(nc, 0, OpTy::create(b, nc.loc, in->getType(), *in));
}

/// LeakyRelu, Elu, Celu, Selu, HardSigmoid: float attributes with ONNX defaults.
LogicalResult Importer::importParamUnary(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in) || failed(checkFloat(nc, *in, "input")))
    return failure();
  llvm::StringRef op = nc.opType();
  auto f = [&](llvm::StringRef name, float dflt) { return getFloat(nc, name, dflt); };
  Type t = in->getType();
  auto attr = [&](double v) { return b.getF64FloatAttr(v); };
  Value v;
  if (op == "LeakyRelu") {
    auto a = f("alpha", 0.01f);
    if (failed(a))
      return failure();
    v = graph::LeakyReluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Elu") {
    auto a = f("alpha", 1.0f);
    if (failed(a))
      return failure();
    v = graph::EluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Celu") {
    auto a = f("alpha", 1.0f);
    if (failed(a))
      return failure();
    v = graph::CeluOp::create(b, nc.loc, t, *in, attr(*a));
  } else if (op == "Selu") {
    auto a = f("alpha", 1.67326319217681884765625f), g = f("gamma", 1.05070102214813232421875f);
    if (failed(a) || failed(g))
      return failure();
    v = graph::SeluOp::create(b, nc.loc, t, *in, attr(*a), attr(*g));
  } else { // HardSigmoid
    auto a = f("alpha", 0.2f), be = f("beta", 0.5f);
    if (failed(a) || failed(be))
      return failure();
    v = graph::HardSigmoidOp::create(b, nc.loc, t, *in, attr(*a), attr(*be));
  }
  return define(nc, 0, v);
}

/// Clip: bounds are attributes before opset 11 and optional constant inputs from then on.
LogicalResult Importer::importClip(const NodeCtx &nc) {
  bool inputs = opset >= 11;
  if (failed(checkArity(nc, 1, inputs ? 3 : 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  FloatAttr lo, hi;
  // Clip-11 on: min / max are inputs. Constant ones become the clip's attributes; ones
  // known only at run time become max(x, min) / min(x, max) (numpy.clip's order: min
  // first, so min > max gives max).
  Value loRuntime, hiRuntime;
  auto xt = cast<RankedTensorType>(in->getType());
  if (inputs) {
    for (int i = 1; i <= 2; ++i) {
      auto bound = getOptionalInput(nc, i);
      if (failed(bound))
        return failure();
      if (!*bound)
        continue;
      llvm::StringRef what = i == 1 ? "input 'min'" : "input 'max'";
      auto bt = cast<RankedTensorType>(bound->getType());
      if (!bound->getDefiningOp<graph::ConstantOp>()) {
        if (bt.getElementType() != xt.getElementType())
          return nodeError(nc) << what << " has element type " << bt.getElementType()
                               << ", the input " << xt.getElementType();
        auto shape = graph::broadcastShapes(xt.getShape(), bt.getShape());
        if (failed(shape) || ArrayRef<int64_t>(*shape) != xt.getShape())
          return nodeError(nc) << what << " of shape " << shapeStr(bt.getShape())
                               << " does not broadcast to the input's " << shapeStr(xt.getShape());
        (i == 1 ? loRuntime : hiRuntime) = *bound;
        continue;
      }
      auto v = getConstantScalar(nc, *bound, what);
      if (failed(v))
        return failure();
      (i == 1 ? lo : hi) = b.getF64FloatAttr(*v);
    }
    if (loRuntime || hiRuntime) {
      Value y = *in;
      if (loRuntime)
        y = bin<graph::MaxOp>(nc.loc, y, loRuntime);
      else if (lo)
        y = graph::ClipOp::create(b, nc.loc, y.getType(), y, lo, FloatAttr());
      if (hiRuntime)
        y = bin<graph::MinOp>(nc.loc, y, hiRuntime);
      else if (hi)
        y = graph::ClipOp::create(b, nc.loc, y.getType(), y, FloatAttr(), hi);
      return define(nc, 0, y);
    }
  } else {
    if (findAttr(nc, "min")) {
      auto v = getFloat(nc, "min", 0);
      if (failed(v))
        return failure();
      lo = b.getF64FloatAttr(*v);
    }
    if (findAttr(nc, "max")) {
      auto v = getFloat(nc, "max", 0);
      if (failed(v))
        return failure();
      hi = b.getF64FloatAttr(*v);
    }
  }
  return define(nc, 0, graph::ClipOp::create(b, nc.loc, in->getType(), *in, lo, hi));
}

/// Pow: the exponent may have another type (opset >= 12); it is cast to the base's.
/// An int32 / int64 base (Pow-12 on) is computed in f64 and cast back as the ONNX
/// reference does (numpy.power(x, y).astype(x.dtype): truncation toward zero). The f64
/// pow kernel is exp(y * log|x|), a few ulp off, so a result within 1e-9 (relative) of an
/// integer is rounded to it first: integer powers are exact while they stay below ~2^40.
LogicalResult Importer::importPow(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  if (failed(x) || failed(y))
    return failure();
  Type xElem = cast<RankedTensorType>(x->getType()).getElementType();
  if (xElem.isSignlessInteger(32) || xElem.isSignlessInteger(64)) {
    Type yElem = cast<RankedTensorType>(y->getType()).getElementType();
    if (!isGraphFloat(yElem) && !yElem.isSignlessInteger(32) && !yElem.isSignlessInteger(64))
      return nodeError(nc) << "exponent must be a float, int32 or int64 tensor, got "
                           << y->getType();
    Type f64 = b.getF64Type();
    Value xf = castTo(nc.loc, *x, f64), yf = castTo(nc.loc, *y, f64);
    auto lt = cast<RankedTensorType>(xf.getType()), rt = cast<RankedTensorType>(yf.getType());
    if (failed(graph::broadcastShapes(lt.getShape(), rt.getShape())))
      return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                           << shapeStr(rt.getShape()) << " do not broadcast";
    Value r = bin<graph::PowOp>(nc.loc, xf, yf);
    Value rounded = graph::RoundOp::create(b, nc.loc, r.getType(), r);
    Value absR = graph::AbsOp::create(b, nc.loc, r.getType(), r);
    Value dist =
        graph::AbsOp::create(b, nc.loc, r.getType(), bin<graph::SubOp>(nc.loc, r, rounded));
    Value tol =
        bin<graph::MulOp>(nc.loc, bin<graph::MaxOp>(nc.loc, absR, scalarF(nc.loc, f64, 1.0)),
                          scalarF(nc.loc, f64, 1e-9));
    auto boolT =
        RankedTensorType::get(cast<RankedTensorType>(r.getType()).getShape(), b.getI1Type());
    Value near = graph::LessEqualOp::create(b, nc.loc, boolT, dist, tol);
    Value z = graph::WhereOp::create(b, nc.loc, r.getType(), near, rounded, r);
    return define(nc, 0, castTo(nc.loc, z, xElem));
  }
  if (failed(checkFloat(nc, *x, "base")))
    return failure();
  Value e = castTo(nc.loc, *y, cast<RankedTensorType>(x->getType()).getElementType());
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(e.getType());
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  return define(nc, 0, graph::PowOp::create(b, nc.loc,
                                            RankedTensorType::get(*shape, lt.getElementType()),
                                            *x, e));
}

LogicalResult Importer::importMod(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  auto fmod = getInt(nc, "fmod", 0);
  if (failed(x) || failed(y) || failed(fmod))
    return failure();
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(y->getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types";
  if (isa<FloatType>(lt.getElementType()) && !*fmod)
    return nodeError(nc) << "fmod = 0 is only defined for integers (ONNX Mod)";
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes do not broadcast";
  return define(nc, 0, graph::ModOp::create(b, nc.loc,
                                            RankedTensorType::get(*shape, lt.getElementType()),
                                            *x, *y, b.getBoolAttr(*fmod != 0)));
}

template <typename OpTy> LogicalResult Importer::importCompare(const NodeCtx &nc) {
  if (failed(checkArity(nc, 2, 2, 1)))
    return failure();
  auto x = getInput(nc, 0), y = getInput(nc, 1);
  if (failed(x) || failed(y))
    return failure();
  auto lt = cast<RankedTensorType>(x->getType()), rt = cast<RankedTensorType>(y->getType());
  if (lt.getElementType() != rt.getElementType())
    return nodeError(nc) << "operands have different element types";
  auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return nodeError(nc) << "operand shapes " << shapeStr(lt.getShape()) << " and "
                         << shapeStr(rt.getShape()) << " do not broadcast";
  return define(nc, 0, OpTy::create(b, nc.loc,
                                    RankedTensorType::get(*shape, b.getI1Type()), *x, *y));
}

/// Min / Max / Sum with any number of inputs: a chain of broadcasting binary ops.
template <typename OpTy> LogicalResult Importer::importVariadic(const NodeCtx &nc) {
  if (nc.node.input_size() < 1)
    return nodeError(nc) << "needs at least one input";
  // Opsets past libonnx's schemas are not arity-checked by ImportValidate.cpp (Mean with no
  // output read output(0) of an empty list; aicc-fuzz-onnx audit).
  if (nc.node.output_size() != 1)
    return nodeError(nc) << "expects 1 output, got " << nc.node.output_size();
  auto acc = getInput(nc, 0);
  if (failed(acc))
    return failure();
  Value v = *acc;
  for (int i = 1; i < nc.node.input_size(); ++i) {
    auto next = getInput(nc, i);
    if (failed(next))
      return failure();
    auto lt = cast<RankedTensorType>(v.getType()), rt = cast<RankedTensorType>(next->getType());
    if (lt.getElementType() != rt.getElementType())
      return nodeError(nc) << "inputs have different element types";
    auto shape = graph::broadcastShapes(lt.getShape(), rt.getShape());
    if (failed(shape))
      return nodeError(nc) << "input shapes do not broadcast";
    v = OpTy::create(b, nc.loc, RankedTensorType::get(*shape, lt.getElementType()), v, *next);
  }
  return define(nc, 0, v);
}

LogicalResult Importer::importMean(const NodeCtx &nc) {
  if (failed(importVariadic<graph::AddOp>(nc)))
    return failure();
  Value sum = values.lookup(nc.node.output(0));
  if (!sum) // no output name (ONNX allows it): nothing to divide (aicc-fuzz-onnx: null deref)
    return success();
  auto t = cast<RankedTensorType>(sum.getType());
  if (!isa<FloatType>(t.getElementType()))
    return nodeError(nc) << "Mean needs float inputs";
  auto scalarT = RankedTensorType::get({}, t.getElementType());
  Value n = createConstant(nc.loc, DenseElementsAttr::get(
                                       scalarT, b.getFloatAttr(t.getElementType(),
                                                               (double)nc.node.input_size())));
  values[nc.node.output(0)] = graph::DivOp::create(b, nc.loc, t, sum, n);
  return success();
}

LogicalResult Importer::importWhere(const NodeCtx &nc) {
  if (failed(checkArity(nc, 3, 3, 1)))
    return failure();
  auto c = getInput(nc, 0), x = getInput(nc, 1), y = getInput(nc, 2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  auto ct = cast<RankedTensorType>(c->getType()), xt = cast<RankedTensorType>(x->getType()),
       yt = cast<RankedTensorType>(y->getType());
  if (!ct.getElementType().isInteger(1))
    return nodeError(nc) << "condition must be a bool tensor";
  if (xt.getElementType() != yt.getElementType())
    return nodeError(nc) << "X and Y have different element types";
  auto xy = graph::broadcastShapes(xt.getShape(), yt.getShape());
  auto all = succeeded(xy) ? graph::broadcastShapes(ct.getShape(), *xy) : xy;
  if (failed(all))
    return nodeError(nc) << "condition, X and Y shapes do not broadcast";
  return define(nc, 0, graph::WhereOp::create(b, nc.loc,
                                              RankedTensorType::get(*all, xt.getElementType()),
                                              *c, *x, *y));
}

/// Cast-19 / CastLike-19 `saturate` (INT) and Cast-25 / CastLike-25 `round_mode` (STRING)
/// apply to float8 (and float4) results only, which aicc does not have: checked for
/// their type, no effect.
LogicalResult Importer::castFloat8Attrs(const NodeCtx &nc) {
  if (opset >= 19 && failed(getInt(nc, "saturate", 1)))
    return failure();
  if (opset >= 25 && failed(getString(nc, "round_mode", "up")))
    return failure();
  return success();
}

LogicalResult Importer::importCast(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  auto to = getInt(nc, "to", 0);
  if (failed(in) || failed(to) || failed(castFloat8Attrs(nc)))
    return failure();
  Type elem = convertElementType((int32_t)*to, &ctx);
  if (!elem)
    return nodeError(nc) << "cast to ONNX data type " << *to << " is not supported";
  return define(nc, 0, castTo(nc.loc, *in, elem));
}

LogicalResult Importer::importNot(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  if (!cast<RankedTensorType>(in->getType()).getElementType().isInteger(1))
    return nodeError(nc) << "Not needs a bool tensor";
  return define(nc, 0, graph::NotOp::create(b, nc.loc, in->getType(), *in));
}

LogicalResult Importer::importIdentity(const NodeCtx &nc) {
  if (failed(checkArity(nc, 1, 1, 1)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  return define(nc, 0, *in);
}

LogicalResult Importer::importDropout(const NodeCtx &nc) {
  // Inference semantics: output = input, mask = true.
  if (failed(checkArity(nc, 1, 3, 2)))
    return failure();
  auto in = getInput(nc, 0);
  if (failed(in))
    return failure();
  if (opset >= 12) {
    auto mode = getOptionalInput(nc, 2);
    if (failed(mode))
      return failure();
    if (*mode) {
      auto bits = getConstantInts(nc, *mode, "training_mode", /*allowBool=*/true);
      if (failed(bits))
        return failure();
      if (llvm::any_of(*bits, [](int64_t x) { return x != 0; }))
        return nodeError(nc) << "training_mode = true is not supported (inference only)";
    }
  } else if (opset < 7) {
    auto isTest = getInt(nc, "is_test", 0);
    if (failed(isTest))
      return failure();
  }
  if (nc.node.output_size() > 1 && !nc.node.output(1).empty() &&
      usedNames.contains(nc.node.output(1))) {
    // Dropout-10 on: in inference the mask is all true (the ONNX reference implementation
    // returns np.ones(X.shape, dtype=bool)). Before, the mask has the input's type and no
    // documented inference value.
    if (opset < 10)
      return nodeError(nc) << "mask output '" << nc.node.output(1) << "' is used (opset " << opset
                           << " < 10: its inference value is not specified)";
    auto maskType =
        RankedTensorType::get(cast<RankedTensorType>(in->getType()).getShape(), b.getI1Type());
    if (failed(define(nc, 1, createConstant(nc.loc, DenseElementsAttr::get(maskType, true)))))
      return failure();
  }
  return define(nc, 0, *in);
}

LogicalResult Importer::importConstant(const NodeCtx &nc) {
  if (failed(checkArity(nc, 0, 0, 1)))
    return failure();
  if (nc.attrs.size() != 1)
    return nodeError(nc) << "expects exactly one attribute, got " << nc.attrs.size();
  const onnx::AttributeProto &a = *nc.attrs.begin()->second;
  llvm::StringRef kind = a.name();
  int t = attrType(a);
  std::string valueName = nc.node.output(0).empty() ? nc.name : nc.node.output(0);
  ElementsAttr value;
  if (kind == "value") {
    if (t != onnx::AttributeProto::TENSOR)
      return attrTypeError(nc, a, onnx::AttributeProto::TENSOR);
    auto attr = convertTensor(a.t(), valueName, nc.loc);
    if (failed(attr))
      return failure();
    value = *attr;
  } else if (kind == "value_float") {
    if (t != onnx::AttributeProto::FLOAT)
      return attrTypeError(nc, a, onnx::AttributeProto::FLOAT);
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), a.f());
  } else if (kind == "value_floats") {
    if (t != onnx::AttributeProto::FLOATS && t != onnx::AttributeProto::UNDEFINED)
      return attrTypeError(nc, a, onnx::AttributeProto::FLOATS);
    SmallVector<float> v(a.floats().begin(), a.floats().end());
    value = DenseElementsAttr::get(RankedTensorType::get({(int64_t)v.size()}, b.getF32Type()),
                                   ArrayRef<float>(v));
  } else if (kind == "value_int") {
    if (t != onnx::AttributeProto::INT)
      return attrTypeError(nc, a, onnx::AttributeProto::INT);
    value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), (int64_t)a.i());
  } else if (kind == "value_ints") {
    if (t != onnx::AttributeProto::INTS && t != onnx::AttributeProto::UNDEFINED)
      return attrTypeError(nc, a, onnx::AttributeProto::INTS);
    SmallVector<int64_t> v(a.ints().begin(), a.ints().end());
    value = DenseElementsAttr::get(RankedTensorType::get({(int64_t)v.size()}, b.getI64Type()),
                                   ArrayRef<int64_t>(v));
  } else {
    return nodeError(nc) << "attribute '" << kind << "' is not supported";
  }
  return define(nc, 0, createConstant(nc.loc, value));
}

LogicalResult Importer::importNode(const NodeCtx &nc) {
  llvm::StringRef op = nc.opType();
  // Integer shape arithmetic on constants folds at import (static shapes).
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod")
    if (auto folded = foldIntBinary(nc, op))
      return define(nc, 0, *folded);
  if (op == "Add")
    return importBinary<graph::AddOp>(nc);
  if (op == "Sub")
    return importBinary<graph::SubOp>(nc);
  if (op == "Mul")
    return importBinary<graph::MulOp>(nc);
  if (op == "Div")
    return importBinary<graph::DivOp>(nc);
  if (op == "Relu")
    return importUnary<graph::ReluOp>(nc);
  if (op == "Tanh")
    return importUnary<graph::TanhOp>(nc);
  if (op == "Sigmoid")
    return importUnary<graph::SigmoidOp>(nc);
  if (op == "Exp")
    return importUnary<graph::ExpOp>(nc);
  if (op == "Erf")
    return importUnary<graph::ErfOp>(nc);
  if (op == "Gelu")
    return importGelu(nc);
  if (op == "MatMul")
    return importMatMul(nc);
  if (op == "Gemm")
    return importGemm(nc);
  if (op == "Softmax")
    return importSoftmaxLike<graph::SoftmaxOp>(nc);
  if (op == "Reshape")
    return importReshape(nc);
  if (op == "Flatten")
    return importFlatten(nc);
  if (op == "Transpose")
    return importTranspose(nc);
  if (op == "Shape" || op == "Size")
    return importShapeOp(nc);
  if (op == "Squeeze")
    return importSqueeze(nc, /*unsqueeze=*/false);
  if (op == "Unsqueeze")
    return importSqueeze(nc, /*unsqueeze=*/true);
  if (op == "Range")
    return importRange(nc);
  if (op == "ConstantOfShape")
    return importConstantOfShape(nc);
  if (op == "Expand")
    return importExpand(nc);
  if (op == "Gather")
    return importGather(nc);
  if (op == "Concat")
    return importConcat(nc);
  if (op == "GatherElements") {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto data = getInput(nc, 0), indices = getInput(nc, 1);
    auto axisAttr = getInt(nc, "axis", 0);
    if (failed(data) || failed(indices) || failed(axisAttr))
      return failure();
    auto dt = cast<RankedTensorType>(data->getType());
    auto it = cast<RankedTensorType>(indices->getType());
    auto axis = normalizeAxis(nc, *axisAttr, dt.getRank(), /*allowRank=*/false);
    if (failed(axis))
      return failure();
    if (it.getRank() != dt.getRank() || !isa<IntegerType>(it.getElementType()))
      return nodeError(nc) << "indices must be an integer tensor of the data's rank";
    if (failed(checkConstantIndices(nc, 1, *indices, {dt.getDimSize(*axis)})))
      return failure();
    return define(nc, 0, graph::GatherElementsOp::create(
                             b, nc.loc, RankedTensorType::get(it.getShape(), dt.getElementType()),
                             *data, *indices, b.getI64IntegerAttr(*axis)));
  }
  if (op == "Conv")
    return importConv(nc);
  if (op == "MaxPool" || op == "AveragePool")
    return importPool(nc);
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return importGlobalPool(nc);
  if (op == "Slice")
    return importSlice(nc);
  if (op == "Pad")
    return importPad(nc);
  if (op == "Tile")
    return importTile(nc);
  if (op == "Split")
    return importSplit(nc);
  if (op == "DepthToSpace")
    return importDepthToSpace(nc, /*toSpace=*/true);
  if (op == "SpaceToDepth")
    return importDepthToSpace(nc, /*toSpace=*/false);
  if (op == "CastLike") {
    if (failed(checkArity(nc, 2, 2, 1)))
      return failure();
    auto in = getInput(nc, 0), like = getInput(nc, 1);
    if (failed(in) || failed(like) || failed(castFloat8Attrs(nc)))
      return failure();
    return define(nc, 0, castTo(nc.loc, *in,
                                cast<RankedTensorType>(like->getType()).getElementType()));
  }
  if (op == "Neg")
    return importNumUnary<graph::NegOp>(nc);
  if (op == "Abs")
    return importNumUnary<graph::AbsOp>(nc);
  if (op == "Sign")
    return importNumUnary<graph::SignOp>(nc);
#define AICC_FLOAT_UNARY(NAME, OP)                                             \
  if (op == NAME)                                                              \
    return importUnary<graph::OP>(nc);
  AICC_FLOAT_UNARY("Ceil", CeilOp)
  AICC_FLOAT_UNARY("Floor", FloorOp)
  AICC_FLOAT_UNARY("Round", RoundOp)
  AICC_FLOAT_UNARY("Sqrt", SqrtOp)
  AICC_FLOAT_UNARY("Reciprocal", ReciprocalOp)
  AICC_FLOAT_UNARY("Log", LogOp)
  AICC_FLOAT_UNARY("Sin", SinOp)
  AICC_FLOAT_UNARY("Cos", CosOp)
  AICC_FLOAT_UNARY("Tan", TanOp)
  AICC_FLOAT_UNARY("Asin", AsinOp)
  AICC_FLOAT_UNARY("Acos", AcosOp)
  AICC_FLOAT_UNARY("Atan", AtanOp)
  AICC_FLOAT_UNARY("Sinh", SinhOp)
  AICC_FLOAT_UNARY("Cosh", CoshOp)
  AICC_FLOAT_UNARY("Asinh", AsinhOp)
  AICC_FLOAT_UNARY("Acosh", AcoshOp)
  AICC_FLOAT_UNARY("Atanh", AtanhOp)
  AICC_FLOAT_UNARY("Softplus", SoftplusOp)
  AICC_FLOAT_UNARY("Softsign", SoftsignOp)
  AICC_FLOAT_UNARY("HardSwish", HardSwishOp)
#undef AICC_FLOAT_UNARY
  if (op == "LeakyRelu" || op == "Elu" || op == "Celu" || op == "Selu" || op == "HardSigmoid")
    return importParamUnary(nc);
  if (op == "Clip")
    return importClip(nc);
  if (op == "Shrink") {
    if (failed(checkArity(nc, 1, 1, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto l = getFloat(nc, "lambd", 0.5f), bias = getFloat(nc, "bias", 0.0f);
    if (failed(in) || failed(l) || failed(bias) || failed(checkFloat(nc, *in, "input")))
      return failure();
    return define(nc, 0, graph::ShrinkOp::create(b, nc.loc, in->getType(), *in,
                                                 b.getF64FloatAttr(*l), b.getF64FloatAttr(*bias)));
  }
  if (op == "Trilu") {
    if (failed(checkArity(nc, 1, 2, 1)))
      return failure();
    auto in = getInput(nc, 0);
    auto upper = getInt(nc, "upper", 1);
    if (failed(in) || failed(upper))
      return failure();
    int64_t k = 0;
    if (nc.node.input_size() > 1 && !nc.node.input(1).empty()) {
      auto kv = getInput(nc, 1);
      if (failed(kv))
        return failure();
      auto c = getConstantScalar(nc, *kv, "k");
      if (failed(c))
        return failure();
      auto ki = toInt(nc, *c, "k");
      if (failed(ki))
        return failure();
      k = *ki;
    }
    if (cast<RankedTensorType>(in->getType()).getRank() < 2)
      return nodeError(nc) << "input must have rank >= 2";
    return define(nc, 0, graph::TriluOp::create(b, nc.loc, in->getType(), *in,
                                                b.getI64IntegerAttr(k), b.getBoolAttr(*upper != 0)));
  }
  if (op == "Pow")
    return importPow(nc);
  if (op == "Mod")
    return importMod(nc);
  if (op == "PRelu")
    return importPRelu(nc);
  if (op == "BatchNormalization")
    return importBatchNorm(nc);
  if (op == "InstanceNormalization")
    return importInstanceNorm(nc);
  if (op == "LayerNormalization")
    return importLayerNorm(nc);
  if (op == "GroupNormalization")
    return importGroupNorm(nc);
  if (op == "Min")
    return importVariadic<graph::MinOp>(nc);
  if (op == "Max")
    return importVariadic<graph::MaxOp>(nc);
  if (op == "Sum")
    return importVariadic<graph::AddOp>(nc);
  if (op == "Mean")
    return importMean(nc);
  if (op == "And" || op == "Or" || op == "Xor") {
    // T is bool (ONNX spec). Checked here, not only by ImportValidate: past libonnx's
    // opset-17 schemas nothing else checks input types, and f32 operands reached
    // arith.andi (aicc-fuzz-onnx, And-19 / Or-22).
    for (int i = 0; i < nc.node.input_size(); ++i) {
      auto in = getInput(nc, i);
      if (failed(in))
        return failure();
      if (!cast<RankedTensorType>(in->getType()).getElementType().isInteger(1))
        return nodeError(nc) << op << " needs bool inputs, input #" << i << " is "
                             << in->getType();
    }
    return op == "And"  ? importBinary<graph::AndOp>(nc)
           : op == "Or" ? importBinary<graph::OrOp>(nc)
                        : importBinary<graph::XorOp>(nc);
  }
  if (op == "Not")
    return importNot(nc);
  if (op == "Equal")
    return importCompare<graph::EqualOp>(nc);
  if (op == "Less")
    return importCompare<graph::LessOp>(nc);
  if (op == "LessOrEqual")
    return importCompare<graph::LessEqualOp>(nc);
  if (op == "Greater")
    return importCompare<graph::GreaterOp>(nc);
  if (op == "GreaterOrEqual")
    return importCompare<graph::GreaterEqualOp>(nc);
  if (op == "Where")
    return importWhere(nc);
  if (op == "Cast")
    return importCast(nc);
  if (op == "ReduceSum")
    return importReduce<graph::ReduceSumOp>(nc, 13);
  if (op == "ReduceProd")
    return importReduce<graph::ReduceProdOp>(nc, 18);
  if (op == "ReduceL1" || op == "ReduceL2" || op == "ReduceSumSquare" || op == "ReduceLogSum" ||
      op == "ReduceLogSumExp")
    return importReduceComposite(nc);
  if (op == "LogSoftmax")
    return importSoftmaxLike<graph::LogSoftmaxOp>(nc);
  if (op == "ReduceMean")
    return importReduce<graph::ReduceMeanOp>(nc, 18);
  if (op == "ReduceMax")
    return importReduce<graph::ReduceMaxOp>(nc, 18);
  if (op == "ReduceMin")
    return importReduce<graph::ReduceMinOp>(nc, 18);
  if (op == "Identity")
    return importIdentity(nc);
  if (op == "Dropout")
    return importDropout(nc);
  if (op == "Constant")
    return importConstant(nc);
  // Op families with a source file each (Import<Family>.cpp).
  for (auto family : {&Importer::importLossOps, &Importer::importIndexOps,
                      &Importer::importTransformerOps,
                      &Importer::importSpatialOps, &Importer::importRecurrentOps,
                      &Importer::importSignalOps,
                      &Importer::importIntegerOps, &Importer::importMiscOps})
    if (std::optional<LogicalResult> r = (this->*family)(nc))
      return *r;
  return emitError(nc.loc) << "unsupported ONNX op '" << op << "' (node '" << nc.name << "', opset "
                           << opset << ")";
}

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

LogicalResult Importer::importModel(const onnx::ModelProto &model, ModuleOp module) {
  if (!model.has_ir_version() || model.ir_version() <= 0)
    return emitError(fileLoc) << "not an ONNX model: no ir_version";
  if (model.ir_version() > kMaxIRVersion)
    return emitError(fileLoc) << "ONNX IR version " << model.ir_version()
                              << " is not supported (supported: up to " << kMaxIRVersion << ")";
  if (!model.has_graph())
    return emitError(fileLoc) << "not an ONNX model: no graph";
  llvm::StringMap<int64_t> domainOpsets;
  bool haveDefault = false;
  for (const auto &entry : model.opset_import()) {
    llvm::StringRef domain = entry.domain();
    if (domain.empty() || domain == "ai.onnx") {
      opset = haveDefault ? std::max(opset, entry.version()) : entry.version();
      haveDefault = true;
    } else {
      int64_t &v = domainOpsets[domain];
      v = std::max(v, entry.version());
    }
  }
  if (!haveDefault)
    return emitError(fileLoc) << "model imports no default-domain (\"\" / \"ai.onnx\") opset";
  if (opset < kMinOpset || opset > kMaxOpset)
    return emitError(fileLoc) << "default-domain opset " << opset
                              << " is not supported (supported: " << kMinOpset << "-" << kMaxOpset
                              << ")";

  const onnx::GraphProto &g = model.graph();
  if (failed(collectInitializers(g)))
    return failure();
  for (const auto &node : g.node())
    for (const auto &in : node.input())
      usedNames.insert(in);
  for (const auto &out : g.output())
    usedNames.insert(out.name());

  b.setInsertionPointToEnd(module.getBody());

  // Inputs bound to a value at compile time (ImportOptions::bindInputs).
  llvm::StringMap<const InputBinding *> bindings;
  for (const InputBinding &bi : opts.bindInputs)
    if (!bindings.try_emplace(bi.name, &bi).second)
      return emitError(fileLoc) << "graph input '" << bi.name << "' is bound twice";

  // Function arguments: graph inputs that are neither initializers nor bound.
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> argInfos;
  SmallVector<std::pair<std::string, ElementsAttr>> boundValues;
  SmallVector<Attribute> boundRecords;
  llvm::StringSet<> inputNames;
  int64_t position = 0; // among the graph inputs that are not initializers
  for (const auto &in : g.input()) {
    if (in.name().empty())
      return emitError(fileLoc) << "graph has an input without a name";
    if (!inputNames.insert(in.name()).second)
      return emitError(nameLoc(in.name())) << "graph input '" << in.name() << "' is listed twice";
    auto binding = bindings.find(in.name());
    if (auto init = initializers.find(in.name()); init != initializers.end()) {
      if (binding != bindings.end())
        return emitError(fileLoc) << "cannot bind graph input '" << in.name()
                                  << "': it has an initializer (it is a constant already)";
      // The initializer is the input's value: its type and shape must be the declared ones
      // (else the input would silently change type or disappear).
      const onnx::TensorProto &t = *init->second;
      if (in.has_type() && in.type().has_tensor_type()) {
        const auto &tt = in.type().tensor_type();
        bool ok = tt.elem_type() == onnx::TensorProto::UNDEFINED ||
                  tt.elem_type() == t.data_type();
        if (ok && tt.has_shape()) {
          ok = tt.shape().dim_size() == t.dims_size();
          for (int i = 0; ok && i < t.dims_size(); ++i)
            if (tt.shape().dim(i).has_dim_value())
              ok = tt.shape().dim(i).dim_value() == t.dims(i);
        }
        if (!ok)
          return emitError(nameLoc(in.name()))
                 << "graph input '" << in.name() << "' is declared with another type or shape "
                 << "than its initializer (" << dataTypeName(t.data_type()) << " "
                 << shapeStr(SmallVector<int64_t>(t.dims().begin(), t.dims().end()))
                 << ")";
      }
      continue;
    }
    int64_t pos = position++;
    if (binding != bindings.end()) {
      auto value = loadBinding(in, *binding->second);
      if (failed(value))
        return failure();
      boundValues.push_back({in.name(), *value});
      boundRecords.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("name", b.getStringAttr(in.name())),
           b.getNamedAttr("position", b.getI64IntegerAttr(pos)), b.getNamedAttr("value", *value)}));
      continue;
    }
    auto t = convertValueInfo(in, "graph input");
    if (failed(t))
      return failure();
    argTypes.push_back(*t);
    argInfos.push_back(&in);
  }
  for (const InputBinding &bi : opts.bindInputs)
    if (!inputNames.contains(bi.name)) {
      auto diag = emitError(fileLoc)
                  << "cannot bind '" << bi.name << "': the model has no graph input of that name";
      std::string names;
      for (const auto &in : g.input())
        if (!initializers.count(in.name()))
          names += (names.empty() ? "" : ", ") + in.name();
      return diag << " (graph inputs: " << (names.empty() ? "none" : names) << ")";
    }
  if (!boundRecords.empty())
    module->setAttr("aicc.bound_inputs", b.getArrayAttr(boundRecords));

  auto func = func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  entryBlock = entry;
  for (auto [i, info] : llvm::enumerate(argInfos)) {
    BlockArgument arg = entry->getArgument(i);
    arg.setLoc(nameLoc(info->name()));
    values[info->name()] = arg;
    func.setArgAttr(i, "aicc.name", b.getStringAttr(info->name()));
  }
  b.setInsertionPointToEnd(entry);
  for (auto &[name, value] : boundValues)
    values[name] = createConstant(nameLoc(name), value);

  for (auto [i, node] : llvm::enumerate(g.node())) {
    std::string name = node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name();
    NodeCtx nc{node, name, nameLoc(name), {}};
    llvm::StringRef domain = node.domain();
    if (!domain.empty() && domain != "ai.onnx") {
      auto it = domainOpsets.find(domain);
      auto diag = emitError(nc.loc) << "unsupported ONNX op '" << node.op_type() << "' in domain '"
                                    << domain << "' (node '" << name << "'";
      if (it != domainOpsets.end())
        diag << ", opset " << it->second;
      return diag << ")";
    }
    for (const auto &a : node.attribute()) {
      if (!a.ref_attr_name().empty())
        return nodeError(nc) << "attribute '" << a.name()
                             << "' refers to a function attribute (unsupported)";
      if (!nc.attrs.try_emplace(a.name(), &a).second)
        return nodeError(nc) << "attribute '" << a.name() << "' is given twice";
    }
    if (failed(validateNode(nc)) || failed(importNode(nc)) || failed(checkGuard(&nc)) ||
        failed(checkUnreadAttributes(nc)))
      return failure();
  }
  for (const auto &vi : g.value_info())
    if (Value v = values.lookup(vi.name()))
      if (failed(checkDeclaredType(vi, v, "value_info")))
        return failure();

  SmallVector<Value> results;
  for (const auto &out : g.output()) {
    auto v = lookup(out.name(), nameLoc(out.name()), nullptr);
    if (failed(v) || failed(checkDeclaredType(out, *v, "graph output")))
      return failure();
    results.push_back(*v);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(g.output()))
    func.setResultAttr(i, "aicc.name", b.getStringAttr(out.name()));
  // Constant nodes only read by Reshape's shape operand (or by nothing).
  for (Operation &op : llvm::make_early_inc_range(*entry))
    if (isa<graph::ConstantOp>(op) && op.use_empty())
      op.erase();

  return verify(module);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> aicc::onnx_import::importONNXModel(llvm::StringRef bytes,
                                                         llvm::StringRef modelPath,
                                                         MLIRContext &ctx,
                                                         const ImportOptions &opts) {
  ctx.loadDialect<graph::GraphDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(&ctx, modelPath.empty() ? "<memory>" : modelPath, 0, 0);
  if (bytes.size() > (size_t)INT_MAX) {
    emitError(fileLoc) << "model is " << bytes.size()
                       << " bytes; protobuf limits a ModelProto to 2 GiB "
                          "(store the weights as external data)";
    return nullptr;
  }
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), (int)bytes.size());
  google::protobuf::io::CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    emitError(fileLoc) << "cannot parse the file as an ONNX ModelProto "
                          "(truncated or not an ONNX model)";
    return nullptr;
  }
  OwningOpRef<ModuleOp> module(ModuleOp::create(fileLoc));
  if (failed(Importer(ctx, modelPath, opts).importModel(model, *module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> aicc::onnx_import::importONNXFile(llvm::StringRef path, MLIRContext &ctx,
                                                        const ImportOptions &opts) {
  auto buf = aicc::readInputFile(path, kMaxModelFileBytes, "ONNX model");
  if (!buf) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0)) << llvm::toString(buf.takeError());
    return nullptr;
  }
  return importONNXModel((*buf)->getBuffer(), path, ctx, opts);
}
