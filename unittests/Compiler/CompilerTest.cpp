//===- CompilerTest.cpp - embed the compiler + runtime libraries -----------===//
//
// The C++ API end to end, as an embedding application uses it: build an ONNX model in
// memory, compile it for the CPU target, run the bundle, compare with a float64 reference.
//
//===----------------------------------------------------------------------===//
#include "aicc/Compiler.h"
#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Session.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <random>

namespace {
using namespace aicc;
namespace rt = aicc::runtime;

onnx::TensorProto makeTensor(const std::string &name, std::vector<int64_t> dims,
                             const std::vector<float> &values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t.add_dims(d);
  for (float v : values)
    t.add_float_data(v);
  return t;
}

void addValueInfo(onnx::ValueInfoProto *vi, const std::string &name, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    tt->mutable_shape()->add_dim()->set_dim_value(d);
}

/// Y = softmax(relu(X @ W^T + B), axis=-1), X [M,K], W [N,K], B [N].
std::string makeModel(int64_t M, int64_t K, int64_t N, const std::vector<float> &w,
                      const std::vector<float> &b, const std::string &activation = "Relu") {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(14);
  auto *g = model.mutable_graph();
  g->set_name("in_memory");
  *g->add_initializer() = makeTensor("W", {N, K}, w);
  *g->add_initializer() = makeTensor("B", {N}, b);
  auto *gemm = g->add_node();
  gemm->set_op_type("Gemm");
  gemm->set_name("fc");
  gemm->add_input("X");
  gemm->add_input("W");
  gemm->add_input("B");
  gemm->add_output("H");
  auto *tb = gemm->add_attribute();
  tb->set_name("transB");
  tb->set_type(onnx::AttributeProto::INT);
  tb->set_i(1);
  auto *act = g->add_node();
  act->set_op_type(activation);
  act->set_name("act");
  act->add_input("H");
  act->add_output("A");
  auto *sm = g->add_node();
  sm->set_op_type("Softmax");
  sm->set_name("softmax");
  sm->add_input("A");
  sm->add_output("Y");
  addValueInfo(g->add_input(), "X", {M, K});
  addValueInfo(g->add_output(), "Y", {M, N});
  return model.SerializeAsString();
}

TEST(Compiler, CompileFromMemoryAndRunOnCPU) {
  const int64_t M = 7, K = 19, N = 33; // ragged: not multiples of any block size
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> w(N * K), b(N), x(M * K);
  for (auto *v : {&w, &b, &x})
    for (float &f : *v)
      f = dist(rng);
  std::string onnxBytes = makeModel(M, K, N, w, b);

  auto bytes = compileModel(onnxBytes, "in_memory.onnx", InputKind::ONNX, EmitKind::Bundle);
  ASSERT_TRUE((bool)bytes) << llvm::toString(bytes.takeError());

  rt::Bundle bundle;
  rt::Status st = rt::parseBundle(*bytes, bundle);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(bundle.target, "cpu");
  std::unique_ptr<rt::Session> session;
  st = rt::Session::create(bundle, rt::Device::cpu, session);
  ASSERT_TRUE(st.ok) << st.message;

  rt::HostTensor in = rt::HostTensor::zeros(rt::DType::f32, {M, K});
  std::memcpy(in.data.data(), x.data(), x.size() * sizeof(float));
  std::vector<rt::HostTensor> outs;
  st = session->run({in}, outs);
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_EQ(outs.size(), 1u);
  ASSERT_EQ(outs[0].shape, (std::vector<int64_t>{M, N}));
  const float *y = reinterpret_cast<const float *>(outs[0].data.data());

  // float64 reference.
  for (int64_t i = 0; i < M; ++i) {
    std::vector<double> row(N);
    double mx = -INFINITY;
    for (int64_t j = 0; j < N; ++j) {
      double acc = b[j];
      for (int64_t k = 0; k < K; ++k)
        acc += (double)x[i * K + k] * w[j * K + k];
      row[j] = std::max(acc, 0.0);
      mx = std::max(mx, row[j]);
    }
    double sum = 0;
    for (double &v : row)
      sum += (v = std::exp(v - mx));
    for (int64_t j = 0; j < N; ++j)
      EXPECT_NEAR(y[i * N + j], row[j] / sum, 1e-5 + 1e-4 * row[j] / sum) << i << "," << j;
  }
}

TEST(Compiler, DeterministicOutput) {
  std::vector<float> w(4 * 3, 0.5f), b(4, 0.25f);
  std::string m = makeModel(2, 3, 4, w, b);
  auto a = compileModel(m, "m.onnx", InputKind::ONNX, EmitKind::Bundle);
  auto c = compileModel(m, "m.onnx", InputKind::ONNX, EmitKind::Bundle);
  ASSERT_TRUE((bool)a && (bool)c);
  EXPECT_EQ(*a, *c);
}

TEST(Compiler, UnsupportedOpNamesOpNodeAndOpset) {
  std::vector<float> w(4 * 3, 0.5f), b(4, 0.25f);
  std::string m = makeModel(2, 3, 4, w, b, "HardSwishNotAnOp");
  auto r = compileModel(m, "m.onnx", InputKind::ONNX, EmitKind::Bundle);
  ASSERT_FALSE((bool)r);
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("HardSwishNotAnOp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'act'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("opset 14"), std::string::npos) << msg;
}

TEST(Compiler, GarbageInputFailsCleanly) {
  auto r = compileModel("this is not a protobuf", "junk.onnx", InputKind::ONNX, EmitKind::Bundle);
  ASSERT_FALSE((bool)r);
  llvm::consumeError(r.takeError());
  auto r2 = compileModel("func.func @main( {", "junk.mlir", InputKind::MLIR, EmitKind::Bundle);
  ASSERT_FALSE((bool)r2);
  EXPECT_NE(llvm::toString(r2.takeError()).find("junk.mlir"), std::string::npos);
}

TEST(Compiler, CrashReproducerFromTheAPI) {
  // A softmax over 2^31 elements exceeds the templates' i32 offsets: convert-graph-to-tile
  // fails.
  const char *mlir = R"(
    func.func @main(%x: tensor<2x1073741824xf32>) -> tensor<2x1073741824xf32> {
      %s = graph.softmax %x {axis = 1 : i64} : tensor<2x1073741824xf32>
      return %s : tensor<2x1073741824xf32>
    })";
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("aicc-repro", "mlir", path));
  CompileOptions opts;
  opts.crashReproducer = std::string(path);
  auto r = compileModel(mlir, "long.mlir", InputKind::MLIR, EmitKind::Bundle, opts);
  ASSERT_FALSE((bool)r);
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("pass 'convert-graph-to-tile' failed"), std::string::npos) << msg;
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE((bool)buf);
  EXPECT_NE((*buf)->getBuffer().find("convert-graph-to-tile"), llvm::StringRef::npos);
  EXPECT_NE((*buf)->getBuffer().find("graph.softmax"), llvm::StringRef::npos);
  llvm::sys::fs::remove(path);
}

TEST(Compiler, PTXForHopper) {
  std::vector<float> w(4 * 3, 0.5f), b(4, 0.25f);
  std::string m = makeModel(2, 3, 4, w, b);
  CompileOptions opts;
  opts.target = Target::SM90;
  auto ptx = compileModel(m, "m.onnx", InputKind::ONNX, EmitKind::PTX, opts);
  ASSERT_TRUE((bool)ptx) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx->find(".entry fused_0_epilogue"), std::string::npos);
}
} // namespace
