//===- ImportTest.cpp - ONNX importer tests --------------------------------===//
//
// 1. Imports the models of ONNX's own test data (Debian libonnx-testdata) that
//    aicc supports and checks the function signature against the ModelProto.
// 2. Builds ModelProtos in memory for what a small .onnx file cannot show
//    (constants above the 64 KiB dense limit, external data) and for error
//    paths, and mutates a valid model to check malformed input never crashes.
//
//===----------------------------------------------------------------------===//
#include "aicc/Target/ONNX/ImportONNX.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using aicc::onnx_import::importONNXFile;
using aicc::onnx_import::importONNXModel;

namespace {

constexpr const char *kTestData = "/usr/share/libonnx-testdata/data";

/// A context that records every diagnostic instead of printing it.
struct Ctx {
  MLIRContext ctx;
  std::string diags;
  ScopedDiagnosticHandler handler{&ctx, [this](Diagnostic &d) {
                                    llvm::raw_string_ostream os(diags);
                                    os << d.getLocation() << ": " << d << "\n";
                                    return success();
                                  }};
};

//===----------------------------------------------------------------------===//
// ONNX test data
//===----------------------------------------------------------------------===//

/// Test directories (relative to kTestData) the importer must handle.
std::vector<std::string> supportedTestDirs() {
  std::vector<std::string> dirs = {"pytorch-converted/test_Linear",
                                   "pytorch-converted/test_Linear_no_bias",
                                   "pytorch-converted/test_ReLU",
                                   "pytorch-converted/test_Tanh",
                                   "pytorch-converted/test_Sigmoid",
                                   "pytorch-converted/test_Softmax",
                                   "pytorch-operator/test_operator_mm",
                                   "pytorch-operator/test_operator_addmm",
                                   "pytorch-operator/test_operator_add_broadcast",
                                   "simple/test_single_relu_model",
                                   "node/test_matmul_2d",
                                   "node/test_matmul_3d"};
  std::vector<std::string> globbed;
  std::error_code ec;
  std::string node = std::string(kTestData) + "/node";
  for (llvm::sys::fs::directory_iterator it(node, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if ((name.starts_with("test_gemm_") || name.starts_with("test_softmax_")) &&
        !name.ends_with("_expanded"))
      globbed.push_back(("node/" + name).str());
  }
  std::sort(globbed.begin(), globbed.end());
  dirs.insert(dirs.end(), globbed.begin(), globbed.end());
  return dirs;
}

bool readModel(const std::string &path, onnx::ModelProto &model) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf && model.ParseFromArray((*buf)->getBufferStart(), (*buf)->getBufferSize());
}

/// The declared type of an ONNX value as an MLIR type string, e.g. "tensor<2x3xf32>".
std::string declaredType(const onnx::ValueInfoProto &vi) {
  const auto &tt = vi.type().tensor_type();
  std::string s = "tensor<";
  for (const auto &d : tt.shape().dim())
    s += std::to_string(d.dim_value()) + "x";
  switch (tt.elem_type()) {
  case onnx::TensorProto::FLOAT:
    return s + "f32>";
  case onnx::TensorProto::DOUBLE:
    return s + "f64>";
  case onnx::TensorProto::FLOAT16:
    return s + "f16>";
  default:
    return s + "?>";
  }
}

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string nameAttr(DictionaryAttr attrs) {
  auto name = attrs ? attrs.getAs<StringAttr>("aicc.name") : StringAttr();
  return name ? name.str() : "<none>";
}

TEST(ONNXImportTestData, ImportsSupportedModels) {
  if (!llvm::sys::fs::is_directory(kTestData))
    GTEST_SKIP() << kTestData << " is missing (install libonnx-testdata)";
  std::vector<std::string> dirs = supportedTestDirs();
  ASSERT_GE(dirs.size(), 12u + 11u + 7u) << "test data listing looks incomplete";
  for (const std::string &dir : dirs) {
    SCOPED_TRACE(dir);
    std::string path = std::string(kTestData) + "/" + dir + "/model.onnx";
    onnx::ModelProto model;
    ASSERT_TRUE(readModel(path, model));
    Ctx c;
    OwningOpRef<ModuleOp> module = importONNXFile(path, c.ctx);
    ASSERT_TRUE(module) << c.diags;
    EXPECT_TRUE(succeeded(verify(*module)));
    auto func = module->lookupSymbol<func::FuncOp>("main");
    ASSERT_TRUE(func);

    // Arguments: graph inputs that are not initializers, in order.
    std::set<std::string> inits;
    for (const auto &t : model.graph().initializer())
      inits.insert(t.name());
    std::vector<const onnx::ValueInfoProto *> args;
    for (const auto &in : model.graph().input())
      if (!inits.count(in.name()))
        args.push_back(&in);
    ASSERT_EQ(func.getNumArguments(), args.size());
    for (auto [i, in] : llvm::enumerate(args)) {
      EXPECT_EQ(str(func.getArgumentTypes()[i]), declaredType(*in));
      EXPECT_EQ(nameAttr(func.getArgAttrDict(i)), in->name());
    }
    ASSERT_EQ(func.getNumResults(), (unsigned)model.graph().output_size());
    for (auto [i, out] : llvm::enumerate(model.graph().output())) {
      EXPECT_EQ(str(func.getResultTypes()[i]), declaredType(out));
      EXPECT_EQ(nameAttr(func.getResultAttrDict(i)), out.name());
    }

    // Initializer values survive the import.
    func.walk([&](aicc::graph::ConstantOp cst) {
      auto loc = dyn_cast<NameLoc>(cst.getLoc());
      if (!loc)
        return;
      for (const auto &t : model.graph().initializer()) {
        if (t.name() != loc.getName().str() || t.data_type() != onnx::TensorProto::FLOAT)
          continue;
        auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
        ASSERT_TRUE(dense);
        std::vector<float> want(t.raw_data().size() / 4);
        std::memcpy(want.data(), t.raw_data().data(), want.size() * 4);
        std::vector<float> got(dense.getValues<float>().begin(), dense.getValues<float>().end());
        EXPECT_EQ(got, want) << t.name();
      }
    });
  }
}

TEST(ONNXImportTestData, UnsupportedOpNamesOpNodeAndOpset) {
  // node/test_det_2d: one Det node (unnamed: the importer names it Det_0), opset 11.
  std::string path = std::string(kTestData) + "/node/test_det_2d/model.onnx";
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << path << " is missing";
  Ctx c;
  EXPECT_FALSE(importONNXFile(path, c.ctx));
  EXPECT_NE(c.diags.find("unsupported ONNX op 'Det'"), std::string::npos) << c.diags;
  EXPECT_NE(c.diags.find("opset 11)"), std::string::npos) << c.diags;
}

TEST(ONNXImportTestData, ExpandedSoftmaxImportsReductions) {
  std::string path = std::string(kTestData) + "/node/test_softmax_axis_0_expanded/model.onnx";
  if (!llvm::sys::fs::exists(path))
    GTEST_SKIP() << path << " is missing";
  Ctx c;
  auto m = importONNXFile(path, c.ctx);
  ASSERT_TRUE(m) << c.diags;
  int reduces = 0;
  m->walk([&](Operation *op) { reduces += isa<aicc::graph::ReduceMaxOp, aicc::graph::ReduceSumOp>(op); });
  EXPECT_EQ(reduces, 2);
}

//===----------------------------------------------------------------------===//
// In-memory models
//===----------------------------------------------------------------------===//

onnx::ModelProto makeModel(int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> *list,
              const std::string &name, std::vector<int64_t> dims,
              int elem = onnx::TensorProto::FLOAT) {
  auto *vi = list->Add();
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto *shape = tt->mutable_shape();
  for (int64_t d : dims)
    shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto *addNode(onnx::ModelProto &m, const std::string &op, std::vector<std::string> ins,
                         std::vector<std::string> outs, const std::string &name = "") {
  auto *n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto &s : ins)
    n->add_input(s);
  for (auto &s : outs)
    n->add_output(s);
  return n;
}

onnx::TensorProto *addF32Initializer(onnx::ModelProto &m, const std::string &name,
                                     std::vector<int64_t> dims, const std::vector<float> &v) {
  auto *t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  t->set_raw_data(std::string((const char *)v.data(), v.size() * sizeof(float)));
  return t;
}

void setInt(onnx::NodeProto *n, const std::string &name, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void setInts(onnx::NodeProto *n, const std::string &name, std::vector<int64_t> v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a->add_ints(x);
}

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = 0.5f + 0.25f * (float)(i % 1000) - (float)(i / 1000);
  return v;
}

/// x[1, k] @ W[k, n] with W an initializer; returns the module (or null).
OwningOpRef<ModuleOp> importMatVec(Ctx &c, onnx::ModelProto &m, int64_t k, int64_t n,
                                   const std::string &path = "", const std::string &weight = "W") {
  addValue(m.mutable_graph()->mutable_input(), "x", {1, k});
  addValue(m.mutable_graph()->mutable_output(), "y", {1, n});
  addNode(m, "MatMul", {"x", weight}, {"y"}, "mm");
  return importONNXModel(m.SerializeAsString(), path, c.ctx);
}

aicc::graph::ConstantOp onlyConstant(ModuleOp module) {
  aicc::graph::ConstantOp found;
  module.walk([&](aicc::graph::ConstantOp op) { found = op; });
  return found;
}

TEST(ONNXImport, SmallInitializerIsDense) {
  Ctx c;
  onnx::ModelProto m = makeModel();
  std::vector<float> w = iota(128 * 128); // exactly 64 KiB
  addF32Initializer(m, "W", {128, 128}, w);
  auto module = importMatVec(c, m, 128, 128);
  ASSERT_TRUE(module) << c.diags;
  auto cst = onlyConstant(*module);
  ASSERT_TRUE(cst);
  auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
  ASSERT_TRUE(dense);
  EXPECT_EQ(std::vector<float>(dense.getValues<float>().begin(), dense.getValues<float>().end()),
            w);
}

TEST(ONNXImport, LargeInitializerIsDenseResource) {
  Ctx c;
  onnx::ModelProto m = makeModel();
  std::vector<float> w = iota(129 * 128); // 64 KiB + 512 bytes
  addF32Initializer(m, "model/W:0", {128, 129}, w);
  auto module = importMatVec(c, m, 128, 129, "", "model/W:0");
  ASSERT_TRUE(module) << c.diags;
  auto cst = onlyConstant(*module);
  ASSERT_TRUE(cst);
  auto res = dyn_cast<DenseResourceElementsAttr>(cst.getValue());
  ASSERT_TRUE(res);
  EXPECT_EQ(str(res.getType()), "tensor<128x129xf32>");
  // Key sanitized to an identifier.
  EXPECT_EQ(res.getRawHandle().getKey().find_first_of("/:"), llvm::StringRef::npos)
      << res.getRawHandle().getKey().str();
  ArrayRef<char> data = res.getData();
  ASSERT_EQ(data.size(), w.size() * 4);
  EXPECT_EQ(std::memcmp(data.data(), w.data(), data.size()), 0);
}

/// Writes `bytes` to a fresh temp dir; returns the directory.
std::string makeTempDir() {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("aicc-onnx-test", dir));
  return dir.str().str();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), (std::streamsize)bytes.size());
}

onnx::TensorProto *addExternal(onnx::ModelProto &m, const std::string &file,
                               std::vector<int64_t> dims, int64_t offset, int64_t length) {
  auto *t = m.mutable_graph()->add_initializer();
  t->set_name("W");
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const std::string &k, const std::string &v) {
    auto *e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", file);
  if (offset >= 0)
    add("offset", std::to_string(offset));
  if (length >= 0)
    add("length", std::to_string(length));
  return t;
}

TEST(ONNXImport, LargeExternalData) {
  std::string dir = makeTempDir();
  std::vector<float> w = iota(256 * 128); // 128 KiB: memory-mapped, adopted without a copy
  std::string bytes(4096, '\x7f');
  bytes.append((const char *)w.data(), w.size() * 4);
  writeFile(dir + "/weights.bin", bytes);
  onnx::ModelProto m = makeModel();
  addExternal(m, "weights.bin", {256, 128}, 4096, (int64_t)w.size() * 4);
  std::string modelPath = dir + "/model.onnx";
  writeFile(modelPath, "");
  {
    Ctx c;
    onnx::ModelProto copy = m;
    auto module = importMatVec(c, copy, 256, 128, modelPath);
    ASSERT_TRUE(module) << c.diags;
    auto res = dyn_cast<DenseResourceElementsAttr>(onlyConstant(*module).getValue());
    ASSERT_TRUE(res);
    ArrayRef<char> data = res.getData();
    ASSERT_EQ(data.size(), w.size() * 4);
    EXPECT_EQ(std::memcmp(data.data(), w.data(), data.size()), 0);
  }
  {
    // Misaligned offset: copied instead.
    std::string shifted = "\x01" + bytes;
    writeFile(dir + "/weights.bin", shifted);
    Ctx c;
    onnx::ModelProto copy = makeModel();
    addExternal(copy, "weights.bin", {256, 128}, 4097, -1);
    auto module = importMatVec(c, copy, 256, 128, modelPath);
    ASSERT_TRUE(module) << c.diags;
    auto res = dyn_cast<DenseResourceElementsAttr>(onlyConstant(*module).getValue());
    ASSERT_TRUE(res);
    EXPECT_EQ(std::memcmp(res.getData().data(), w.data(), w.size() * 4), 0);
  }
  {
    Ctx c;
    onnx::ModelProto copy = makeModel();
    addExternal(copy, "weights.bin", {256, 128}, 0, 100);
    EXPECT_FALSE(importMatVec(c, copy, 256, 128, modelPath));
    EXPECT_NE(c.diags.find("external data holds 100 bytes, the tensor needs 131072"),
              std::string::npos)
        << c.diags;
  }
  {
    Ctx c;
    onnx::ModelProto copy = makeModel();
    addExternal(copy, "weights.bin", {256, 128}, 1 << 30, -1);
    EXPECT_FALSE(importMatVec(c, copy, 256, 128, modelPath));
    EXPECT_NE(c.diags.find("is past the end"), std::string::npos) << c.diags;
  }
  {
    Ctx c;
    onnx::ModelProto copy = makeModel();
    addExternal(copy, "/etc/passwd", {2, 2}, -1, -1);
    EXPECT_FALSE(importMatVec(c, copy, 2, 2, modelPath));
    EXPECT_NE(c.diags.find("must be relative"), std::string::npos) << c.diags;
  }
  llvm::sys::fs::remove_directories(dir);
}

/// Imports `m` and expects failure with `message` in the diagnostics.
void expectError(const onnx::ModelProto &m, const std::string &message) {
  Ctx c;
  EXPECT_FALSE(importONNXModel(m.SerializeAsString(), "test.onnx", c.ctx));
  EXPECT_NE(c.diags.find(message), std::string::npos)
      << "expected: " << message << "\ngot: " << c.diags;
}

/// A model with input x[2, 3] and one node `op` from x to y.
onnx::ModelProto unaryModel(const std::string &op, int64_t opset = 13) {
  onnx::ModelProto m = makeModel(opset);
  addValue(m.mutable_graph()->mutable_input(), "x", {2, 3});
  addValue(m.mutable_graph()->mutable_output(), "y", {2, 3});
  addNode(m, op, {"x"}, {"y"}, "n0");
  return m;
}

TEST(ONNXImport, ModelLevelErrors) {
  {
    Ctx c;
    EXPECT_FALSE(importONNXModel("", "empty.onnx", c.ctx));
    EXPECT_NE(c.diags.find("not an ONNX model: no ir_version"), std::string::npos) << c.diags;
  }
  {
    Ctx c;
    EXPECT_FALSE(importONNXFile("/nonexistent/dir/model.onnx", c.ctx));
    EXPECT_NE(c.diags.find("cannot read the ONNX model '/nonexistent/dir/model.onnx'"),
              std::string::npos)
        << c.diags;
  }
  onnx::ModelProto m = unaryModel("Relu");
  m.set_ir_version(15);
  expectError(m, "ONNX IR version 15 is not supported (supported: up to 14)");
  // IR 14 (onnx 1.23's default for onnx.helper.make_model) imports; its float6 types are
  // refused by name.
  m = unaryModel("Relu");
  m.set_ir_version(14);
  {
    Ctx c;
    EXPECT_TRUE(importONNXModel(m.SerializeAsString(), "ir14.onnx", c.ctx)) << c.diags;
  }
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(27);
  expectError(m, "unsupported element type FLOAT6E2M3");
  m = unaryModel("Relu");
  m.clear_opset_import();
  expectError(m, "model imports no default-domain");
  m = unaryModel("Relu");
  m.mutable_opset_import(0)->set_domain("ai.onnx");
  m.mutable_opset_import(0)->set_version(0);
  expectError(m, "default-domain opset 0 is not supported");
  m = unaryModel("Relu");
  m.clear_graph();
  expectError(m, "not an ONNX model: no graph");
  m = unaryModel("Relu");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::STRING);
  expectError(m, "graph input 'x' has unsupported element type STRING");
  m = unaryModel("Relu");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(17);
  expectError(m, "unsupported element type FLOAT8E4M3FN");
  // Cast's `to` by name too (FLOAT8E4M3FN, not 17).
  m = unaryModel("Cast");
  {
    onnx::AttributeProto *to = m.mutable_graph()->mutable_node(0)->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(17);
  }
  expectError(m, "cast to ONNX data type FLOAT8E4M3FN is not supported");
  m = unaryModel("Relu");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  expectError(m, "graph input 'x' has an unknown rank");
  m = unaryModel("Relu");
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->clear_dim_value();
  expectError(m, "graph input 'x' has a dynamic dimension #1;");
  m = unaryModel("Relu");
  m.mutable_graph()->mutable_output(0)->set_name("nothing");
  expectError(m, "graph output 'nothing' is not a graph input, an initializer or a node output");
  m = unaryModel("Relu");
  addF32Initializer(m, "w", {1}, {1});
  addF32Initializer(m, "w", {1}, {1});
  expectError(m, "initializer 'w' is defined twice");
  m = unaryModel("Relu");
  addNode(m, "Relu", {"x"}, {"y"}, "n1");
  expectError(m, "Relu node 'n1': output 'y' is already defined");
}

TEST(ONNXImport, NodeErrors) {
  onnx::ModelProto m = unaryModel("Relu");
  m.mutable_graph()->mutable_node(0)->add_input("x");
  expectError(m, "Relu node 'n0': has 2 inputs; Relu-13 takes 1 to 1");

  m = unaryModel("Relu");
  m.mutable_graph()->mutable_node(0)->clear_name();
  m.mutable_graph()->mutable_node(0)->set_input(0, "");
  expectError(m, "Relu node 'Relu_0': required input #0 is missing");

  m = unaryModel("Relu");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT32);
  expectError(m, "Relu node 'n0': input #0 ('x') has type tensor(int32), which Relu-13 does not "
                 "allow for 'X' (T)");

  m = unaryModel("Softmax");
  setInt(m.mutable_graph()->mutable_node(0), "axis", 2);
  expectError(m, "Softmax node 'n0': axis 2 is out of range [-2, 1]");

  m = unaryModel("Transpose");
  setInts(m.mutable_graph()->mutable_node(0), "perm", {0, 0});
  expectError(m, "perm [0, 0] is not a permutation of [0, 2)");

  m = unaryModel("Transpose");
  setInt(m.mutable_graph()->mutable_node(0), "perm", 1);
  expectError(m, "attribute 'perm' must be INTS, got INT");

  m = unaryModel("Gelu", 20);
  {
    auto *a = m.mutable_graph()->mutable_node(0)->add_attribute();
    a->set_name("approximate");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("fast");
  }
  expectError(m, "attribute 'approximate' must be \"none\" or \"tanh\", got \"fast\"");

  m = unaryModel("Relu");
  setInt(m.mutable_graph()->mutable_node(0), "foo", 1);
  setInt(m.mutable_graph()->mutable_node(0), "foo", 2);
  expectError(m, "attribute 'foo' is given twice");

  // Reshape: two -1, count mismatch, 0 past the input rank.
  auto reshape = [](std::vector<int64_t> shape) {
    onnx::ModelProto m = makeModel(14);
    addValue(m.mutable_graph()->mutable_input(), "x", {2, 3});
    addValue(m.mutable_graph()->mutable_output(), "y", {6});
    auto *t = m.mutable_graph()->add_initializer();
    t->set_name("shape");
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims((int64_t)shape.size());
    for (int64_t d : shape)
      t->add_int64_data(d);
    addNode(m, "Reshape", {"x", "shape"}, {"y"}, "r");
    return m;
  };
  expectError(reshape({-1, -1}), "shape [-1, -1] has more than one -1");
  expectError(reshape({4, 2}), "cannot reshape an input of shape [2, 3] (6 elements) to [4, 2]");
  expectError(reshape({1, 1, 0}), "copies dim #2 (0) of an input of rank 2");
  expectError(reshape({-1, 4}), "cannot infer the -1 in shape [-1, 4]");
  expectError(reshape({-2}), "has invalid entry -2");
  {
    onnx::ModelProto ok = reshape({0, -1});
    // The declared output shape must be the result's (onnx.checker's shape inference).
    ok.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->clear_dim();
    for (int64_t d : {2, 3})
      ok.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    Ctx c;
    auto module = importONNXModel(ok.SerializeAsString(), "", c.ctx);
    ASSERT_TRUE(module) << c.diags;
    auto func = module->lookupSymbol<func::FuncOp>("main");
    EXPECT_EQ(str(func.getResultTypes()[0]), "tensor<2x3xf32>");
  }
  // Typed field count mismatch.
  {
    onnx::ModelProto bad = reshape({6});
    bad.mutable_graph()->mutable_initializer(0)->add_int64_data(7);
    expectError(bad, "tensor 'shape' of shape [1] needs 1 values, has 2");
  }

  // Gemm: C not broadcastable, element type mismatch.
  {
    onnx::ModelProto g = makeModel();
    addValue(g.mutable_graph()->mutable_input(), "a", {2, 3});
    addValue(g.mutable_graph()->mutable_input(), "b", {3, 4});
    addValue(g.mutable_graph()->mutable_input(), "c", {3});
    addValue(g.mutable_graph()->mutable_output(), "y", {2, 4});
    addNode(g, "Gemm", {"a", "b", "c"}, {"y"}, "gemm");
    expectError(g, "Gemm node 'gemm': C of shape [3] does not broadcast to [2, 4]");
    g.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::DOUBLE);
    expectError(g, "Gemm node 'gemm': input #1 ('b') has type tensor(double), but type T is "
                   "already tensor(float) for an earlier input");
  }
  // MatMul: contraction mismatch.
  {
    onnx::ModelProto g = makeModel();
    addValue(g.mutable_graph()->mutable_input(), "a", {2, 3});
    addValue(g.mutable_graph()->mutable_input(), "b", {4, 3});
    addValue(g.mutable_graph()->mutable_output(), "y", {2, 3});
    addNode(g, "MatMul", {"a", "b"}, {"y"}, "mm");
    expectError(g, "MatMul node 'mm': contraction dimensions differ: A [2, 3], B [4, 3]");
  }
  // Add: shapes that do not broadcast.
  {
    onnx::ModelProto g = makeModel();
    addValue(g.mutable_graph()->mutable_input(), "a", {2, 3});
    addValue(g.mutable_graph()->mutable_input(), "b", {2});
    addValue(g.mutable_graph()->mutable_output(), "y", {2, 3});
    addNode(g, "Mul", {"a", "b"}, {"y"}, "mul");
    expectError(g, "Mul node 'mul': operand shapes [2, 3] and [2] do not broadcast");
  }
  // Constant: two value attributes; sparse_value.
  {
    onnx::ModelProto g = makeModel();
    addValue(g.mutable_graph()->mutable_output(), "y", {});
    auto *n = addNode(g, "Constant", {}, {"y"}, "k");
    setInt(n, "value_int", 1);
    setInt(n, "value_float", 1);
    expectError(g, "Constant node 'k': attribute 'value_float' must be FLOAT, got INT (ONNX "
                   "operator schema)");
    n->clear_attribute();
    auto *a = n->add_attribute();
    a->set_name("sparse_value");
    a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
    expectError(g, "Constant node 'k': attribute 'sparse_value' is not supported");
  }
  // Dropout in training mode.
  {
    onnx::ModelProto g = makeModel();
    addValue(g.mutable_graph()->mutable_input(), "x", {2});
    addValue(g.mutable_graph()->mutable_output(), "y", {2});
    auto *t = g.mutable_graph()->add_initializer();
    t->set_name("train");
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(1);
    addNode(g, "Dropout", {"x", "", "train"}, {"y"}, "drop");
    expectError(g, "Dropout node 'drop': training_mode = true is not supported");
  }
}

/// The op table's since-versions are the ops' first versions in ONNX's schemas: checked
/// against libonnx's registry for every op it knows (the system libonnx may be older than
/// onnx 1.22, whose schemas the table was written from; ops newer than it are skipped).
TEST(ONNXImportOpTable, SinceVersionsAreTheSchemasFirstVersions) {
  auto ops = aicc::onnx_import::supportedOps();
  ASSERT_GT(ops.size(), 150u);
  int checked = 0;
  for (const auto &[op, since] : ops) {
    ASSERT_EQ(op.find('.'), std::string::npos) << op << ": only default-domain ops so far";
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(op, 1000, onnx::ONNX_DOMAIN);
    if (!schema)
      continue;
    int first = schema->SinceVersion();
    while (first > 1) {
      const onnx::OpSchema *older = onnx::OpSchemaRegistry::Schema(op, first - 1, onnx::ONNX_DOMAIN);
      if (!older)
        break;
      first = older->SinceVersion();
    }
    EXPECT_EQ(since, first) << op;
    ++checked;
  }
  EXPECT_GT(checked, 140) << "libonnx knows too few of the table's ops for this test to mean much";
  // Sorted and without repeats.
  for (size_t i = 1; i < ops.size(); ++i)
    EXPECT_LT(ops[i - 1].first, ops[i].first);
}

/// A node below its op's first opset is refused by the table, naming both.
TEST(ONNXImportOpTable, NodeBelowTheOpsFirstOpsetIsRefused) {
  expectError(unaryModel("Mish", 17), "Mish is defined from opset 18; the model imports opset 17");
  expectError(unaryModel("HardSwish", 13),
              "HardSwish is defined from opset 14; the model imports opset 13");
  expectError(unaryModel("NoSuchOp"), "unsupported ONNX op 'NoSuchOp' (node 'n0', opset 13)");
}

TEST(ONNXImport, ErrorLocationNamesTheNode) {
  onnx::ModelProto m = unaryModel("Det");
  Ctx c;
  Location loc = UnknownLoc::get(&c.ctx);
  ScopedDiagnosticHandler h(&c.ctx, [&](Diagnostic &d) {
    loc = d.getLocation();
    return success();
  });
  EXPECT_FALSE(importONNXModel(m.SerializeAsString(), "dir/model.onnx", c.ctx));
  auto name = dyn_cast<NameLoc>(loc);
  ASSERT_TRUE(name);
  EXPECT_EQ(name.getName().str(), "n0");
  auto file = dyn_cast<FileLineColLoc>(name.getChildLoc());
  ASSERT_TRUE(file);
  EXPECT_EQ(file.getFilename().str(), "dir/model.onnx");
}

TEST(ONNXImport, OpLocationsNameTheNodes) {
  onnx::ModelProto m = makeModel();
  addValue(m.mutable_graph()->mutable_input(), "x", {2, 4});
  addValue(m.mutable_graph()->mutable_output(), "y", {2, 3});
  addF32Initializer(m, "W", {4, 3}, iota(12));
  addNode(m, "MatMul", {"x", "W"}, {"h"}, "fc");
  addNode(m, "Relu", {"h"}, {"y"}); // unnamed: "<op_type>_<node index>"
  Ctx c;
  auto module = importONNXModel(m.SerializeAsString(), "models/m.onnx", c.ctx);
  ASSERT_TRUE(module) << c.diags;
  std::vector<std::string> names;
  module->walk([&](Operation *op) {
    if (auto loc = dyn_cast<NameLoc>(op->getLoc())) {
      names.push_back(loc.getName().str());
      auto file = dyn_cast<FileLineColLoc>(loc.getChildLoc());
      ASSERT_TRUE(file);
      EXPECT_EQ(file.getFilename().str(), "models/m.onnx");
    }
  });
  EXPECT_EQ(names, (std::vector<std::string>{"W", "fc", "Relu_1"}));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  EXPECT_NE(text.find("loc(\"fc\"(#loc"), std::string::npos) << text;
  EXPECT_NE(text.find("loc(\"Relu_1\"(#loc"), std::string::npos) << text;
  EXPECT_NE(text.find("loc(\"models/m.onnx\":0:0)"), std::string::npos) << text;
  // Function arguments are located at their ONNX name.
  auto func = module->lookupSymbol<func::FuncOp>("main");
  auto argLoc = dyn_cast<NameLoc>(func.getArgument(0).getLoc());
  ASSERT_TRUE(argLoc);
  EXPECT_EQ(argLoc.getName().str(), "x");
}

/// A valid model exercising most importers (opset 11: coerced softmax).
onnx::ModelProto fuzzSeedModel() {
  onnx::ModelProto m = makeModel(11);
  addValue(m.mutable_graph()->mutable_input(), "x", {2, 3, 4});
  addValue(m.mutable_graph()->mutable_output(), "y", {12, 2});
  addF32Initializer(m, "w", {12, 12}, iota(144));
  addF32Initializer(m, "b", {12}, iota(12));
  auto *t = m.mutable_graph()->add_initializer();
  t->set_name("shape");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->add_int64_data(0);
  t->add_int64_data(-1);
  addNode(m, "Reshape", {"x", "shape"}, {"r"}, "reshape");
  setInt(addNode(m, "Softmax", {"r"}, {"s"}, "softmax"), "axis", 1);
  setInt(addNode(m, "Gemm", {"s", "w", "b"}, {"g"}, "gemm"), "transB", 1);
  setInts(addNode(m, "Transpose", {"g"}, {"t"}, "transpose"), "perm", {1, 0});
  addNode(m, "Flatten", {"t"}, {"f"}, "flatten");
  addNode(m, "MatMul", {"w", "f"}, {"mm"}, "matmul");
  addNode(m, "Add", {"mm", "mm"}, {"a"}, "add");
  addNode(m, "Relu", {"a"}, {"y"}, "relu");
  return m;
}

/// Iterations of the mutation tests; AICC_ONNX_FUZZ_ITERATIONS raises it.
int fuzzIterations(int dflt) {
  const char *env = std::getenv("AICC_ONNX_FUZZ_ITERATIONS");
  return env ? std::max(1, std::atoi(env)) : dflt;
}

/// Imports `bytes`; it must give a module that verifies or a diagnostic.
void importMustNotCrash(const std::string &bytes, int iter, int &imported, int &rejected) {
  Ctx c;
  OwningOpRef<ModuleOp> module = importONNXModel(bytes, "", c.ctx);
  if (module) {
    EXPECT_TRUE(succeeded(verify(*module))) << "iteration " << iter;
    ++imported;
  } else {
    EXPECT_FALSE(c.diags.empty()) << "failure without a diagnostic, iteration " << iter;
    ++rejected;
  }
}

/// Truncations and byte flips of a valid model.
TEST(ONNXImport, MalformedBytesNeverCrash) {
  std::string bytes = fuzzSeedModel().SerializeAsString();
  {
    Ctx c;
    ASSERT_TRUE(importONNXModel(bytes, "", c.ctx)) << c.diags;
  }
  std::mt19937 rng(1234);
  int imported = 0, rejected = 0;
  int iterations = std::max<int>(fuzzIterations(3000), bytes.size());
  for (int iter = 0; iter < iterations; ++iter) {
    std::string mutated = bytes;
    if (iter < (int)bytes.size()) {
      mutated.resize(iter); // every truncation
    } else {
      int flips = 1 + (int)(rng() % 4);
      for (int i = 0; i < flips; ++i)
        mutated[rng() % mutated.size()] = (char)(rng() & 0xff);
    }
    importMustNotCrash(mutated, iter, imported, rejected);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(imported, 0);
}

/// Field-level mutations of a valid model: wrong dims, op types, attribute
/// types, input counts, data sizes, opsets.
TEST(ONNXImport, MalformedModelsNeverCrash) {
  const onnx::ModelProto seed = fuzzSeedModel();
  {
    Ctx c;
    ASSERT_TRUE(importONNXModel(seed.SerializeAsString(), "", c.ctx)) << c.diags;
  }
  static const char *const ops[] = {"Add",     "Sub",      "Mul",     "Div",     "Relu",
                                    "Tanh",    "Sigmoid",  "Exp",     "Erf",     "Gelu",
                                    "MatMul",  "Gemm",     "Softmax", "Reshape", "Transpose",
                                    "Flatten", "Identity", "Dropout", "Constant"};
  static const char *const names[] = {"x", "w", "b", "shape", "r", "s", "g", "t", "", "zz"};
  static const int64_t dims[] = {-1, 0, 1, 2, 3, 12, 144, (int64_t)1 << 40, INT64_MAX};
  std::mt19937 rng(42);
  auto pick = [&](int n) { return (int)(rng() % (unsigned)n); };
  int imported = 0, rejected = 0;
  int iterations = fuzzIterations(3000);
  for (int iter = 0; iter < iterations; ++iter) {
    onnx::ModelProto m = seed;
    onnx::GraphProto *g = m.mutable_graph();
    int mutations = 1 + pick(3);
    for (int k = 0; k < mutations; ++k) {
      onnx::NodeProto *n = g->mutable_node(pick(g->node_size()));
      switch (pick(12)) {
      case 0:
        n->set_op_type(ops[pick(std::size(ops))]);
        break;
      case 1:
        if (n->input_size())
          n->set_input(pick(n->input_size()), names[pick(std::size(names))]);
        break;
      case 2:
        n->add_input(names[pick(std::size(names))]);
        break;
      case 3:
        if (n->input_size())
          n->mutable_input()->RemoveLast();
        break;
      case 4: {
        auto *a = n->add_attribute();
        static const char *const attrs[] = {"axis",      "perm",     "transA",     "alpha",
                                            "shape",     "value",    "value_ints", "approximate",
                                            "allowzero", "broadcast"};
        a->set_name(attrs[pick(std::size(attrs))]);
        switch (pick(5)) {
        case 0:
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(dims[pick(std::size(dims))]);
          break;
        case 1:
          a->set_type(onnx::AttributeProto::INTS);
          a->add_ints(dims[pick(std::size(dims))]);
          a->add_ints(pick(4) - 1);
          break;
        case 2:
          a->set_type(onnx::AttributeProto::FLOAT);
          a->set_f(0.5f);
          break;
        case 3:
          a->set_type(onnx::AttributeProto::STRING);
          a->set_s("tanh");
          break;
        default: {
          a->set_type(onnx::AttributeProto::TENSOR);
          *a->mutable_t() = g->initializer(pick(g->initializer_size()));
          break;
        }
        }
        if (n->attribute_size() > 1 && pick(2))
          n->mutable_attribute()->SwapElements(0, n->attribute_size() - 1);
        break;
      }
      case 5: {
        auto *vi = pick(2) ? g->mutable_input(0) : g->mutable_output(0);
        auto *shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (pick(4) == 0)
          shape->add_dim()->set_dim_value(dims[pick(std::size(dims))]);
        else if (shape->dim_size())
          shape->mutable_dim(pick(shape->dim_size()))->set_dim_value(dims[pick(std::size(dims))]);
        break;
      }
      case 6: {
        auto *t = g->mutable_initializer(pick(g->initializer_size()));
        if (t->dims_size())
          t->set_dims(pick(t->dims_size()), dims[pick(std::size(dims))]);
        break;
      }
      case 7: {
        auto *t = g->mutable_initializer(pick(g->initializer_size()));
        t->set_data_type(pick(24));
        break;
      }
      case 8: {
        auto *t = g->mutable_initializer(pick(g->initializer_size()));
        if (t->has_raw_data())
          t->mutable_raw_data()->resize(t->raw_data().size() / (1 + pick(3)));
        else
          t->add_int64_data(7);
        break;
      }
      case 9:
        m.mutable_opset_import(0)->set_version(pick(24));
        break;
      case 10:
        if (n->output_size())
          n->set_output(0, names[pick(std::size(names))]);
        break;
      default:
        g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(pick(24));
        break;
      }
    }
    importMustNotCrash(m.SerializeAsString(), iter, imported, rejected);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(imported, 0);
}

//===----------------------------------------------------------------------===//
// The size discipline (include/aicc/Support/CheckedSize.h)
//===----------------------------------------------------------------------===//

TEST(CheckedSize, OverflowIsRemembered) {
  using aicc::CheckedInt;
  EXPECT_EQ((CheckedInt(3) * 4 + 1).get(), std::optional<int64_t>(13));
  EXPECT_FALSE((CheckedInt(INT64_MAX) + 1).valid());
  EXPECT_FALSE((CheckedInt(int64_t(1) << 32) * (int64_t(1) << 32)).valid());
  // Invalid stays invalid, even when a later step would bring it back in range.
  EXPECT_FALSE((CheckedInt(INT64_MAX) * 2 / 4).valid());
  EXPECT_FALSE((CheckedInt(5) / 0).valid());
  EXPECT_FALSE((CheckedInt(INT64_MIN) / -1).valid());
  EXPECT_FALSE((CheckedInt(5) % 0).valid());
  EXPECT_EQ(aicc::checkedElementCount({}), std::optional<int64_t>(1));
  EXPECT_EQ(aicc::checkedElementCount({2, 0, INT64_MAX}), std::optional<int64_t>(0));
  // 2^96 elements: the product wrapped to 0 before (issue 14).
  int64_t big = int64_t(1) << 32;
  EXPECT_EQ(aicc::checkedElementCount({big, big, big}), std::nullopt);
  EXPECT_EQ(aicc::checkedElementCount({2, -1}), std::nullopt);
  EXPECT_EQ(aicc::checkedByteSize({int64_t(1) << 62}, 4), std::nullopt);
  EXPECT_EQ(aicc::checkedByteSize({3, 5}, 8), std::optional<int64_t>(120));
}

/// ImportOptions::maxTensorBytes through the API: a graph input one byte above the cap is
/// refused with a diagnostic naming it; at the cap it imports.
TEST(ONNXImport, MaxTensorBytesIsTheCap) {
  onnx::ModelProto m = unaryModel("Relu");
  aicc::onnx_import::ImportOptions opts;
  opts.maxTensorBytes = 2 * 3 * 4;
  {
    Ctx c;
    EXPECT_TRUE(importONNXModel(m.SerializeAsString(), "", c.ctx, opts)) << c.diags;
  }
  opts.maxTensorBytes = 2 * 3 * 4 - 1;
  Ctx c;
  EXPECT_FALSE(importONNXModel(m.SerializeAsString(), "", c.ctx, opts));
  EXPECT_NE(c.diags.find("graph input 'x' of shape [2, 3] has 6 elements of 4 bytes, above the "
                         "tensor size limit of 23 bytes"),
            std::string::npos)
      << c.diags;
}

} // namespace
