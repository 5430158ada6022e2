//===- ImportValidate.cpp - onnx.checker's rules, checked at import -------===//
//
// What `onnx.checker.check_model(model, full_check=True)` rejects, the importer
// rejects too (issue 14), with a located diagnostic:
//
//   - tensors (onnx/checker.cc, check_tensor): exactly one data field (typed
//     field, raw_data or external), none for a 0-element tensor, the typed
//     field the data_type prescribes;
//   - attributes (check_attribute): at most one value field, matching `type`;
//     and per the op's schema (OpSchema::Verify): no attribute the schema does
//     not have, each of the schema's AttributeProto type, required ones given;
//   - node arity and input element types against the schema's formal
//     parameters and type constraints (full_check's type inference);
//   - declared shapes and types (graph outputs, value_info, graph inputs that
//     have an initializer) that contradict the importer's static shapes
//     (full_check's strict shape inference).
//
// The schemas are libonnx's (onnx::OpSchemaRegistry), which may be older than
// the model: for a default-domain opset above the newest the registry knows,
// its schema (the op's latest up to that version) may lack attributes added
// since, and type constraints may have widened. So above the registry's
// opset only the type of attributes the old schema knows is checked, and an
// attribute it does not know is refused unless the importer reads it (the
// importer knows the newer operator versions it imports).
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

#include <onnx/defs/schema.h>

#include <string>

using namespace mlir;
using namespace aicc::onnx_import::detail;

namespace {
/// "tensor(float)" etc., the type strings of schema type constraints, for a
/// TensorProto.DataType; empty for unknown values.
std::string typeString(int32_t dt) {
  static const char *const names[] = {
      "",       "float",   "uint8",     "int8",       "uint16",  "int16",
      "int32",  "int64",   "string",    "bool",       "float16", "double",
      "uint32", "uint64",  "complex64", "complex128", "bfloat16"};
  if (dt <= 0 || dt >= (int32_t)std::size(names))
    return "";
  return std::string("tensor(") + names[dt] + ")";
}

/// The newest default-domain opset libonnx's registry has schemas for.
int registryMaxOpset() {
  static int v = [] {
    const auto &m = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = m.find("");
    return it == m.end() ? 0 : it->second.second;
  }();
  return v;
}
} // namespace

namespace aicc::onnx_import::detail {
int32_t onnxDataType(Type t) {
  if (t.isF32())
    return onnx::TensorProto::FLOAT;
  if (t.isF16())
    return onnx::TensorProto::FLOAT16;
  if (t.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (t.isF64())
    return onnx::TensorProto::DOUBLE;
  if (t.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (auto it = dyn_cast<IntegerType>(t)) {
    bool u = it.isUnsigned();
    switch (it.getWidth()) {
    case 8:
      return u ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8;
    case 16:
      return u ? onnx::TensorProto::UINT16 : onnx::TensorProto::INT16;
    case 32:
      return u ? onnx::TensorProto::UINT32 : onnx::TensorProto::INT32;
    case 64:
      return u ? onnx::TensorProto::UINT64 : onnx::TensorProto::INT64;
    }
  }
  return onnx::TensorProto::UNDEFINED;
}
} // namespace aicc::onnx_import::detail

LogicalResult Importer::validateTensorFields(const onnx::TensorProto &t, llvm::StringRef name,
                                             Location loc) {
  auto err = [&]() { return emitError(loc) << "tensor '" << name << "' "; };
  if (!t.has_data_type() || t.data_type() == onnx::TensorProto::UNDEFINED)
    return err() << "has no data_type";
  int fields = 0;
  const char *field = nullptr;
  auto count = [&](bool has, const char *f) {
    if (has) {
      ++fields;
      field = f;
    }
  };
  count(t.float_data_size(), "float_data");
  count(t.int32_data_size(), "int32_data");
  count(t.string_data_size(), "string_data");
  count(t.int64_data_size(), "int64_data");
  count(!t.raw_data().empty(), "raw_data");
  count(t.double_data_size(), "double_data");
  count(t.uint64_data_size(), "uint64_data");
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    if (fields)
      return err() << "is stored externally and also has " << field
                   << " (one data field only; onnx.checker rejects it)";
    return success();
  }
  std::optional<int64_t> n = product(SmallVector<int64_t>(t.dims().begin(), t.dims().end()));
  if (n && *n == 0) {
    if (fields)
      return err() << "has 0 elements but holds data in " << field;
    return success();
  }
  if (fields > 1)
    return err() << "holds data in more than one field (" << fields
                 << " of float_data, int32_data, string_data, int64_data, raw_data, "
                    "double_data, uint64_data; onnx.checker rejects it)";
  if (fields == 0)
    return err() << "has no data (no raw_data, typed field or external data)";
  if (!t.raw_data().empty())
    return success();
  llvm::StringRef want;
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::COMPLEX64:
    want = "float_data";
    break;
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::COMPLEX128:
    want = "double_data";
    break;
  case onnx::TensorProto::INT64:
    want = "int64_data";
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    want = "uint64_data";
    break;
  case onnx::TensorProto::STRING:
    want = "string_data";
    break;
  default:
    want = "int32_data";
    break;
  }
  if (want != field)
    return err() << "of type " << dataTypeName(t.data_type()) << " stores its values in "
                 << field << " instead of " << want;
  return success();
}

LogicalResult Importer::validateNode(const NodeCtx &nc) {
  // check_attribute: one value field, matching `type` when set.
  for (const auto &[attrName, ap] : nc.attrs) {
    const onnx::AttributeProto &a = *ap;
    int used = a.has_f() + a.has_i() + a.has_s() + a.has_t() + a.has_g() + a.has_sparse_tensor() +
               (a.floats_size() > 0) + (a.ints_size() > 0) + (a.strings_size() > 0) +
               (a.tensors_size() > 0) + (a.graphs_size() > 0) + (a.sparse_tensors_size() > 0);
    if (used > 1)
      return nodeError(nc) << "attribute '" << a.name() << "' holds more than one value field";
    if (used == 1 && a.type() != onnx::AttributeProto::UNDEFINED) {
      onnx::AttributeProto probe(a);
      probe.clear_type();
      if (attrType(probe) != a.type())
        return nodeError(nc) << "attribute '" << a.name() << "' is declared "
                             << attrTypeName(a.type()) << " but holds a "
                             << attrTypeName(attrType(probe)) << " value";
    }
    if (a.has_t() && failed(validateTensorFields(a.t(), a.name(), nc.loc)))
      return failure();
  }
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(nc.node.op_type(), (int)opset, onnx::ONNX_DOMAIN);
  if (!schema)
    return success(); // newer than libonnx, or not an ONNX op: the importer decides
  bool current = opset <= registryMaxOpset();
  const auto &schemaAttrs = schema->attributes();
  for (const auto &[attrName, ap] : nc.attrs) {
    auto it = schemaAttrs.find(attrName.str());
    if (it == schemaAttrs.end()) {
      if (current)
        return nodeError(nc) << "attribute '" << attrName << "' is not an attribute of "
                             << nc.opType() << "-" << schema->SinceVersion()
                             << " (ONNX operator schema)";
      continue; // checked after import (checkUnreadAttributes)
    }
    int t = attrType(*ap);
    if (t != onnx::AttributeProto::UNDEFINED && t != it->second.type)
      return nodeError(nc) << "attribute '" << attrName << "' must be "
                           << attrTypeName(it->second.type) << ", got " << attrTypeName(t)
                           << " (ONNX operator schema)";
  }
  if (!current)
    return success();
  for (const auto &[attrName, attr] : schemaAttrs)
    if (attr.required && !nc.attrs.count(attrName))
      return nodeError(nc) << "required attribute '" << attrName << "' is missing";
  int nIn = nc.node.input_size(), nOut = nc.node.output_size();
  if (nIn < schema->min_input() || nIn > schema->max_input())
    return nodeError(nc) << "has " << nIn << " inputs; " << nc.opType() << "-"
                         << schema->SinceVersion() << " takes " << schema->min_input() << " to "
                         << schema->max_input();
  if (nOut < schema->min_output() || nOut > schema->max_output())
    return nodeError(nc) << "has " << nOut << " outputs; " << nc.opType() << "-"
                         << schema->SinceVersion() << " has " << schema->min_output() << " to "
                         << schema->max_output();
  // Input element types against the type constraints, and one type per type variable.
  const auto &formals = schema->inputs();
  llvm::StringMap<int32_t> bound;
  for (int i = 0; i < nIn && !formals.empty(); ++i) {
    const std::string &name = nc.node.input(i);
    if (name.empty())
      continue;
    int32_t dt = onnx::TensorProto::UNDEFINED;
    if (Value v = values.lookup(name))
      dt = onnxDataType(cast<RankedTensorType>(v.getType()).getElementType());
    else if (auto init = initializers.find(name); init != initializers.end())
      dt = init->second->data_type();
    if (dt == onnx::TensorProto::UNDEFINED)
      continue; // reported by the op's importer
    const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
    if ((size_t)i >= formals.size() && formal.GetOption() != onnx::OpSchema::Variadic)
      continue;
    std::string ts = typeString(dt);
    bool allowed = false, allowsFloat = false;
    for (onnx::DataType allowedType : formal.GetTypes()) {
      allowed |= allowedType && *allowedType == ts;
      allowsFloat |= allowedType && (*allowedType == "tensor(float)" ||
                                     *allowedType == "tensor(float16)");
    }
    // bfloat16 was added to most float ops' constraints between opsets 13 and 22; models
    // (aicc's own bench/gemm_models.py among them) use it at older opsets: tolerated where
    // the op takes float / float16.
    allowed |= allowsFloat && dt == onnx::TensorProto::BFLOAT16;
    if (!allowed)
      return nodeError(nc) << "input #" << i << " ('" << name << "') has type " << ts
                           << ", which " << nc.opType() << "-" << schema->SinceVersion()
                           << " does not allow for '" << formal.GetName() << "' ("
                           << formal.GetTypeStr() << ")";
    bool homogeneous =
        formal.GetOption() != onnx::OpSchema::Variadic || formal.GetIsHomogeneous();
    if (!homogeneous)
      continue;
    auto [it, inserted] = bound.try_emplace(formal.GetTypeStr(), dt);
    if (!inserted && it->second != dt)
      return nodeError(nc) << "input #" << i << " ('" << name << "') has type " << ts
                           << ", but type " << formal.GetTypeStr() << " is already "
                           << typeString(it->second) << " for an earlier input";
  }
  return success();
}

LogicalResult Importer::checkUnreadAttributes(const NodeCtx &nc) {
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(nc.node.op_type(), (int)opset, onnx::ONNX_DOMAIN);
  if (schema && opset <= registryMaxOpset())
    return success(); // validateNode checked every attribute against the schema
  for (const auto &[attrName, ap] : nc.attrs) {
    if (nc.readAttrs.contains(attrName))
      continue;
    if (schema && schema->attributes().count(attrName.str()))
      continue;
    return nodeError(nc) << "attribute '" << attrName << "' is not an attribute of "
                         << nc.opType() << " at opset " << opset
                         << " (neither the ONNX schema libonnx has nor the importer knows it)";
  }
  return success();
}

LogicalResult Importer::checkDeclaredType(const onnx::ValueInfoProto &vi, Value v,
                                          llvm::StringRef what) {
  if (!vi.has_type() || !vi.type().has_tensor_type())
    return success();
  const auto &tt = vi.type().tensor_type();
  auto t = cast<RankedTensorType>(v.getType());
  Location loc = nameLoc(vi.name());
  int32_t have = onnxDataType(t.getElementType());
  if (tt.elem_type() != onnx::TensorProto::UNDEFINED && tt.elem_type() != have)
    return emitError(loc) << what << " '" << vi.name() << "' is declared "
                          << dataTypeName(tt.elem_type()) << " but is "
                          << dataTypeName(have) << " (onnx.checker's type inference rejects it)";
  if (!tt.has_shape())
    return success();
  const auto &shape = tt.shape();
  bool ok = shape.dim_size() == t.getRank();
  for (int i = 0; ok && i < shape.dim_size(); ++i)
    if (shape.dim(i).has_dim_value())
      ok = shape.dim(i).dim_value() == t.getDimSize(i);
  if (ok)
    return success();
  std::string declared = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto &d = shape.dim(i);
    declared += (i ? ", " : "") + (d.has_dim_value()   ? std::to_string(d.dim_value())
                                   : d.has_dim_param() ? d.dim_param()
                                                       : std::string("?"));
  }
  return emitError(loc) << what << " '" << vi.name() << "' is declared with shape " << declared
                        << "] but has shape " << shapeStr(t.getShape())
                        << " (onnx.checker's shape inference rejects it)";
}
