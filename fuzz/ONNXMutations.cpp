//===- ONNXMutations.cpp - ONNX knowledge for the protobuf mutator --------===//
//
// See ONNXMutations.h.
//
//===----------------------------------------------------------------------===//
#include "ONNXMutations.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <iterator>
#include <map>

using namespace aicc::fuzz;

namespace {
/// Default-domain op names with their latest schema libonnx knows.
const std::map<std::string, const onnx::OpSchema *> &schemas() {
  static const auto *all = [] {
    auto *m = new std::map<std::string, const onnx::OpSchema *>();
    for (const onnx::OpSchema &schema : onnx::OpSchemaRegistry::get_all_schemas())
      if (schema.domain().empty())
        (*m)[schema.Name()] = onnx::OpSchemaRegistry::Schema(schema.Name());
    return m;
  }();
  return *all;
}

const char *const kStringAttrValues[] = {
    "constant", "reflect", "edge", "wrap", "linear", "nearest", "cubic", "NOTSET", "SAME_UPPER",
    "SAME_LOWER", "VALID", "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
    "tf_crop_and_resize", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "Relu",
    "Tanh", "Sigmoid", "sum", "mean", "max", "none", "DCR", "CRD", "tanh", "bidirectional",
    "forward", "reverse", "i,j->ij", "ij,jk->ik", "...ii->...i", "", "xyz"};

int randomDataType(Rng &rng) {
  // TensorProto.DataType values 1..16 (FLOAT .. BFLOAT16), sometimes an unknown one.
  if (rng() % 8 == 0)
    return static_cast<int>(mutateInt(0, rng));
  return 1 + static_cast<int>(rng() % 16);
}

void randomTensor(onnx::TensorProto &t, Rng &rng) {
  t.Clear();
  t.set_data_type(randomDataType(rng));
  int rank = static_cast<int>(rng() % 3);
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = rng() % 5;
    t.add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i)
    t.add_int64_data(static_cast<int64_t>(rng() % 8) - 2);
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    t.clear_int64_data();
    for (int64_t i = 0; i < n; ++i)
      t.add_float_data(static_cast<float>(mutateFloat(1.0, rng)));
  }
}

/// Sets attribute `attr` to a random value of `type`.
void setAttributeValue(onnx::AttributeProto &attr, onnx::AttributeProto::AttributeType type,
                       Rng &rng) {
  std::string name = attr.name();
  attr.Clear();
  attr.set_name(name);
  attr.set_type(type);
  auto smallInt = [&] {
    return rng() % 3 ? static_cast<int64_t>(rng() % 7) - 2 : interestingInt(rng);
  };
  int count = static_cast<int>(rng() % 6);
  switch (type) {
  case onnx::AttributeProto::FLOAT:
    attr.set_f(static_cast<float>(mutateFloat(1.0, rng)));
    break;
  case onnx::AttributeProto::INT:
    attr.set_i(smallInt());
    break;
  case onnx::AttributeProto::STRING:
    attr.set_s(kStringAttrValues[rng() % (sizeof(kStringAttrValues) / sizeof(char *))]);
    break;
  case onnx::AttributeProto::TENSOR:
    randomTensor(*attr.mutable_t(), rng);
    break;
  case onnx::AttributeProto::FLOATS:
    for (int i = 0; i < count; ++i)
      attr.add_floats(static_cast<float>(mutateFloat(1.0, rng)));
    break;
  case onnx::AttributeProto::INTS:
    for (int i = 0; i < count; ++i)
      attr.add_ints(smallInt());
    break;
  case onnx::AttributeProto::STRINGS:
    for (int i = 0; i < count; ++i)
      attr.add_strings(kStringAttrValues[rng() % (sizeof(kStringAttrValues) / sizeof(char *))]);
    break;
  default: // GRAPH(S), SPARSE_TENSOR(S), TYPE_PROTO(S): an empty value of that type
    break;
  }
}

/// NodeProto: another op type, or an attribute of the op's schema set to a value of its
/// declared type (one time in eight of a random type: mistyped attributes must be refused).
bool mutateNode(google::protobuf::Message &msg, Rng &rng) {
  auto &node = static_cast<onnx::NodeProto &>(msg);
  const auto &all = schemas();
  if (rng() % 4 == 0) {
    auto it = all.begin();
    std::advance(it, rng() % all.size());
    node.set_op_type(it->first);
    return true;
  }
  auto found = all.find(node.op_type());
  if (found == all.end() || found->second->attributes().empty())
    return false;
  const auto &attrs = found->second->attributes();
  auto it = attrs.begin();
  std::advance(it, rng() % attrs.size());
  onnx::AttributeProto *attr = nullptr;
  for (onnx::AttributeProto &a : *node.mutable_attribute())
    if (a.name() == it->first)
      attr = &a;
  if (!attr) {
    attr = node.add_attribute();
    attr->set_name(it->first);
  }
  auto type = static_cast<onnx::AttributeProto::AttributeType>(it->second.type);
  if (rng() % 8 == 0)
    type = static_cast<onnx::AttributeProto::AttributeType>(1 + rng() % 10);
  setAttributeValue(*attr, type, rng);
  return true;
}

/// TensorProto: another data type, or raw_data resized to what dims x data_type need (so the
/// tensor gets past the size checks and into the ops).
bool mutateTensor(google::protobuf::Message &msg, Rng &rng) {
  auto &t = static_cast<onnx::TensorProto &>(msg);
  if (rng() % 2 == 0) {
    t.set_data_type(randomDataType(rng));
    return true;
  }
  static const int kElementBytes[] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2};
  int dt = t.data_type();
  if (dt <= 0 || dt > 16 || kElementBytes[dt] == 0)
    return false;
  uint64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (1 << 20))
      return false;
    n *= static_cast<uint64_t>(d);
    if (n > (1 << 16))
      return false;
  }
  std::string raw(n * kElementBytes[dt], '\0');
  for (char &c : raw)
    c = static_cast<char>(rng());
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.clear_string_data();
  t.set_raw_data(std::move(raw));
  return true;
}

/// TypeProto.Tensor: another element type.
bool mutateTensorType(google::protobuf::Message &msg, Rng &rng) {
  static_cast<onnx::TypeProto_Tensor &>(msg).set_elem_type(randomDataType(rng));
  return true;
}

} // namespace

void aicc::fuzz::addONNXMutations(ProtoMutator &m) {
  std::vector<std::string> ops;
  for (const auto &entry : schemas())
    ops.push_back(entry.first);
  m.addStrings("onnx.NodeProto.op_type", ops);
  m.addStrings("onnx.OperatorSetIdProto.domain", {"", "ai.onnx", "ai.onnx.ml", "com.x"});
  m.addStrings("onnx.TensorProto.name", {""});
  m.addStrings("onnx.StringStringEntryProto.key", {"location", "offset", "length",
                                                           "checksum"});
  m.addStrings("onnx.StringStringEntryProto.value",
                       {"weights.bin", "0", "16", "4096", "../x", "/etc/passwd", "../../../../../../dev/zero", "-1",
                        "18446744073709551615"});
  m.addHook("onnx.NodeProto", mutateNode);
  m.addHook("onnx.TensorProto", mutateTensor);
  m.addHook("onnx.TypeProto.Tensor", mutateTensorType);
}
