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
#include "aicc/Support/ONNXDataTypeNames.h"

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
/// Names of TensorProto.DataType values (aicc/Support/ONNXDataTypeNames.h), for messages:
/// the system libonnx may be older than the model.
std::string dataTypeName(int32_t dt) { return onnxDataTypeLabel(dt); }

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
// Checks
//===----------------------------------------------------------------------===//

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
    // Its dim_params take the bound tensor's sizes (the same in every input: noteDimParam).
    for (int i = 0; i < tt.shape().dim_size(); ++i)
      if (tt.shape().dim(i).has_dim_param() && !tt.shape().dim(i).has_dim_value() &&
          failed(noteDimParam(tt.shape().dim(i).dim_param(), dims[i],
                              "--bind-input " + vi.name(), loc)))
        return failure();
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

// The ops: the op table (ImportOpTable.cpp: importNode) and the family files that register
// them (ImportCore.cpp, ImportTensorOps.cpp, ImportNN.cpp, ImportElementwise.cpp, ...).

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
  if (failed(checkShapeOptions(g, bindings)))
    return failure();

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
  if (failed(checkDimParamsUsed(g)))
    return failure();
  for (const InputBinding &bi : opts.bindInputs)
    if (!inputNames.contains(bi.name)) {
      auto diag = emitError(fileLoc)
                  << "cannot bind '" << bi.name << "': the model has no graph input of that name";
      return diag << " (graph inputs: " << graphInputList(g) << ")";
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
        failed(checkUnreadAttributes(nc)) || failed(propagateShapeTaint(nc)))
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
  if (failed(checkShapeTaintUnused(*entry, results)))
    return failure();
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
  // ImportOptions::argumentShapes: the dynamic graph inputs' shapes by position.
  ImportOptions withShapes;
  const ImportOptions *use = &opts;
  if (!opts.argumentShapes.empty()) {
    withShapes = opts;
    llvm::StringSet<> skip;
    for (const auto &init : model.graph().initializer())
      skip.insert(init.name());
    for (const InputBinding &bi : opts.bindInputs)
      skip.insert(bi.name);
    size_t position = 0;
    for (const auto &in : model.graph().input()) {
      if (skip.contains(in.name()))
        continue;
      size_t p = position++;
      if (p >= opts.argumentShapes.size() || !in.type().has_tensor_type() ||
          !in.type().tensor_type().has_shape())
        continue;
      bool dynamic = llvm::any_of(in.type().tensor_type().shape().dim(),
                                  [](const auto &d) { return !d.has_dim_value(); });
      bool given = llvm::any_of(opts.inputShapes,
                                [&](const InputShape &s) { return s.name == in.name(); });
      if (dynamic && !given)
        withShapes.inputShapes.push_back({in.name(), opts.argumentShapes[p]});
    }
    use = &withShapes;
  }
  OwningOpRef<ModuleOp> module(ModuleOp::create(fileLoc));
  if (failed(Importer(ctx, modelPath, *use).importModel(model, *module)))
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
