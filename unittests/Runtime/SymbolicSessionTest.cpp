//===- SymbolicSessionTest.cpp - Running bundles with bounded symbolic dims ===//
//
// Sessions over format-version-6 bundles (docs/symbolic-shapes.md): one bundle run at
// several values of a symbol gives, at each value, the prefix of what the same code
// computes at the bound; the input guards; `symgrid` launches that run fewer programs.
//
// The main model is testdata/mlp8-cpu.v4.aicc, y = softmax(relu(x @ w + b)) over
// x f32[8, 4] compiled by aicc-compile (testdata/README.md): its two kernels (the
// matmul epilogue, one program for all rows, and the softmax, one program per row) are
// row-independent along dim 0, so marking dim 0 of x and y `batch` in [1, 8] is right.
// The tests add the version-6 records to it in memory. The `add` kernel of
// testdata/add_kernel.c (c = a + b over f32[1000] in blocks of 256) stands for a dim
// that is 10 x the symbol.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <type_traits>

#include <dlfcn.h>

using namespace aicc::runtime;

namespace {

std::string envOr(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

HostTensor randomTensor(std::vector<int64_t> shape, uint32_t seed) {
  HostTensor t = HostTensor::zeros(DType::f32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.as<float>()[i] = dist(gen);
  return t;
}

/// The first `rows` rows (dim 0) of `t`.
HostTensor firstRows(const HostTensor &t, int64_t rows) {
  std::vector<int64_t> shape = t.shape;
  shape[0] = rows;
  HostTensor out = HostTensor::zeros(t.dtype, shape);
  std::memcpy(out.data.data(), t.data.data(), out.data.size());
  return out;
}

constexpr int64_t kBatch = 8;

/// testdata/mlp8-cpu.v4.aicc with dim 0 of its input and output `batch` in [1, 8]
/// and, with `symGrid`, the softmax launch's grid x shrinking with it (one program per
/// row). Written and read back, so that the session gets what a file would give.
Bundle makeSymbolicMlp(bool symGrid) {
  Bundle b;
  Status s = readBundleFile(
      envOr("AICC_RUNTIME_TESTDATA", AICC_RUNTIME_TESTDATA) + std::string("/mlp8-cpu.v4.aicc"), b);
  EXPECT_TRUE(s.ok) << s.message;
  // What the records below rely on (checked here, not assumed).
  EXPECT_EQ(b.inputs.size(), 1u);
  EXPECT_EQ(b.outputs.size(), 1u);
  EXPECT_EQ(b.launches.size(), 2u);
  if (b.inputs.size() != 1 || b.outputs.size() != 1 || b.launches.size() != 2)
    return b;
  const int x = b.inputs[0].bufferId, y = b.outputs[0].bufferId;
  EXPECT_EQ(b.buffers[x].shape, (std::vector<int64_t>{kBatch, 4}));
  EXPECT_EQ(b.buffers[y].shape, (std::vector<int64_t>{kBatch, 3}));
  EXPECT_EQ(b.launches[1].kernel, "fused_1_softmax");
  EXPECT_EQ(b.findKernel("fused_1_softmax")->grid, (std::array<int64_t, 3>{kBatch, 1, 1}));
  b.symbols.push_back({"batch", 1, kBatch, 0});
  b.symDims.push_back({x, 0, 0, 1, 0});
  b.symDims.push_back({y, 0, 0, 1, 0});
  if (symGrid)
    b.symGrids.push_back({1, 0, 0, 1, 1, 1, 0});
  Bundle back;
  s = parseBundle(serializeBundle(b), back);
  EXPECT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.formatVersion, 6);
  return back;
}

/// softmax(relu(x @ w + b)) of mlp8.mlir in double, row by row.
void expectMlpRows(const HostTensor &x, const HostTensor &y) {
  const double w[4][3] = {
      {0.5, -1.0, 0.25}, {1.5, 0.75, -0.5}, {-0.25, 1.0, 2.0}, {0.125, -0.375, 1.25}};
  const double bias[3] = {0.1, -0.2, 0.3};
  ASSERT_EQ(y.shape, (std::vector<int64_t>{x.shape[0], 3}));
  for (int64_t r = 0; r < x.shape[0]; ++r) {
    double h[3], sum = 0;
    for (int c = 0; c < 3; ++c) {
      h[c] = bias[c];
      for (int k = 0; k < 4; ++k)
        h[c] += double(x.as<float>()[r * 4 + k]) * w[k][c];
      h[c] = std::exp(std::max(h[c], 0.0));
      sum += h[c];
    }
    for (int c = 0; c < 3; ++c)
      ASSERT_NEAR(y.as<float>()[r * 3 + c], h[c] / sum, 1e-6) << r << "," << c;
  }
}

std::string kernelSharedObject() {
  std::string bytes = readFile(envOr("AICC_TEST_KERNEL_SO", AICC_TEST_KERNEL_SO));
  EXPECT_FALSE(bytes.empty()) << "cannot read the test kernels";
  return bytes;
}

/// c = a + b over f32[1000] = f32[10 x n], n in [1, 100] (add_kernel.c / .ptx: blocks of
/// 256 elements); with `symGrid`, ceil(10 x n / 256) blocks.
Bundle makeSymbolicAdd(const std::string &target, const std::string &code, bool symGrid) {
  Bundle b;
  b.target = target;
  const bool cuda = target != "cpu";
  for (int i = 0; i < 3; ++i)
    b.buffers.push_back(
        {i, DType::f32, i < 2 ? BufferKind::input : BufferKind::output, 4000, {1000}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.inputs.push_back({1, 1, "b"});
  b.outputs.push_back({0, 2, "c"});
  b.kernels.push_back({"add", {4, 1, 1}, {cuda ? 256 : 1, 1, 1}, 0, 3});
  b.kernels[0].params.assign(3, {DType::f32, 4000});
  b.launches.push_back({"add", {0, 1, 2}});
  b.symbols.push_back({"n", 1, 100, 0});
  for (int i = 0; i < 3; ++i)
    b.symDims.push_back({i, 0, 0, 10, 0});
  if (symGrid)
    b.symGrids.push_back({0, 0, 0, 10, 256, 1, 0});
  b.code = code;
  return b;
}

void expectSum(const HostTensor &a, const HostTensor &b, const HostTensor &c) {
  ASSERT_EQ(c.shape, a.shape);
  for (int64_t i = 0; i < a.numElements(); ++i)
    ASSERT_EQ(c.as<float>()[i], a.as<float>()[i] + b.as<float>()[i]) << "element " << i;
}

} // namespace

TEST(SymbolicSessionTest, DescribesItsSymbolicDims) {
  Bundle bundle = makeSymbolicMlp(false);
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(session->getSymbols().size(), 1u);
  EXPECT_EQ(session->getSymbols()[0].name, "batch");
  EXPECT_EQ(formatSymbolRange(session->getSymbols()[0]), "batch in [1, 8]");
  const TensorInfo &x = session->getInputs()[0];
  ASSERT_TRUE(x.symbolic.has_value());
  EXPECT_EQ(x.symbolic->axis, 0);
  EXPECT_EQ(x.symbolic->symbol, 0);
  EXPECT_EQ(x.symbolic->factor, 1);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{8, 4})); // at the bound
  EXPECT_EQ(x.shapeAt({3}), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(formatTensorInfo(x, session->getSymbols()), "f32[batch,4]");
  EXPECT_EQ(formatTensorInfo(session->getOutputs()[0], session->getSymbols()), "f32[batch,3]");
  // Before any run: every symbol at its max.
  EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{8}));

  Bundle add = makeSymbolicAdd("cpu", kernelSharedObject(), false);
  std::shared_ptr<const Model> model;
  s = Model::load(add, Device::cpu, model);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(formatTensorInfo(model->getInputs()[1], model->getSymbols()), "f32[10*n]");
  EXPECT_EQ(formatSymbolValues(model->getSymbols(), {37}), "n = 37");
  // A model of one shape has none.
  Bundle plain = makeSymbolicAdd("cpu", kernelSharedObject(), false);
  plain.symbols.clear();
  plain.symDims.clear();
  s = Model::load(plain, Device::cpu, model);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_TRUE(model->getSymbols().empty());
  EXPECT_FALSE(model->getInputs()[0].symbolic.has_value());
  EXPECT_EQ(formatTensorInfo(model->getInputs()[0], model->getSymbols()), "f32[1000]");
}

TEST(SymbolicSessionTest, EveryValueGivesThePrefixOfTheRunAtTheBound) {
  // The reference: the same bundle without symbols, run at the bound.
  Bundle fixed;
  Status s = readBundleFile(envOr("AICC_RUNTIME_TESTDATA", AICC_RUNTIME_TESTDATA) +
                                std::string("/mlp8-cpu.v4.aicc"),
                            fixed);
  ASSERT_TRUE(s.ok) << s.message;
  std::unique_ptr<Session> reference;
  ASSERT_TRUE(Session::create(fixed, Device::cpu, reference).ok);
  HostTensor x = randomTensor({kBatch, 4}, 5);
  std::vector<HostTensor> atMax;
  s = reference->run({x}, atMax);
  ASSERT_TRUE(s.ok) << s.message;
  expectMlpRows(x, atMax[0]); // and independently: float64

  for (bool symGrid : {false, true}) {
    std::unique_ptr<Session> session;
    s = Session::create(makeSymbolicMlp(symGrid), Device::cpu, session);
    ASSERT_TRUE(s.ok) << s.message;
    // Up and down: what a larger run left in the buffers' tails does not leak.
    for (int64_t v : {kBatch, int64_t(1), int64_t(3), kBatch, int64_t(5), int64_t(2)}) {
      ASSERT_TRUE(session->poisonBuffers().ok);
      std::vector<HostTensor> outputs;
      s = session->run({firstRows(x, v)}, outputs);
      ASSERT_TRUE(s.ok) << s.message;
      ASSERT_EQ(outputs.size(), 1u);
      ASSERT_EQ(outputs[0].shape, (std::vector<int64_t>{v, 3})) << "batch " << v;
      // The same kernels on the same rows: bit for bit the rows of the run at the bound.
      EXPECT_EQ(outputs[0].data, firstRows(atMax[0], v).data)
          << "batch " << v << (symGrid ? " (symgrid)" : "");
      EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{v}));
    }
    // The observer path (aicc-run --bisect) runs at the bound values too.
    std::vector<HostTensor> outputs;
    size_t launches = 0;
    s = session->run({firstRows(x, 3)}, outputs, [&](size_t) {
      ++launches;
      return Status::success();
    });
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(launches, 2u);
    EXPECT_EQ(outputs[0].data, firstRows(atMax[0], 3).data);
    // benchmark() runs at the last run's values.
    BenchmarkStats st;
    s = session->benchmark(2, st);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{3}));
  }
}

TEST(SymbolicSessionTest, SymGridRunsOnlyThePrefixPrograms) {
  // After a run at batch 3 the output buffer's rows 3.. keep their poison with the
  // softmax's grid shrunk to 3 programs, and are computed (from the input's stale
  // tail, left unpoisoned) without it.
  HostTensor x = randomTensor({3, 4}, 9);
  for (bool symGrid : {false, true}) {
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::create(makeSymbolicMlp(symGrid), Device::cpu, session).ok);
    ASSERT_TRUE(session->poisonBuffers(0xFF, /*symbolicInputs=*/false).ok);
    std::vector<HostTensor> outputs;
    Status s = session->run({x}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    expectMlpRows(x, outputs[0]);
    HostTensor whole;
    ASSERT_TRUE(session->readBuffer(session->getLaunches()[1].buffers[1], whole).ok);
    ASSERT_EQ(whole.shape, (std::vector<int64_t>{kBatch, 3}));
    for (int64_t i = 3 * 3; i < kBatch * 3; ++i)
      ASSERT_EQ(std::isnan(whole.as<float>()[i]), symGrid) << "element " << i;
  }

  // A factor and blocks: ceil(10 x 37 / 256) = 2 programs of 256 elements write c[0, 512).
  Bundle add = makeSymbolicAdd("cpu", kernelSharedObject(), true);
  std::unique_ptr<Session> session;
  Status s = Session::create(add, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  for (int64_t n : {int64_t(37), int64_t(100), int64_t(1), int64_t(26)}) {
    // (The inputs' tails unpoisoned: the programs of the last block compute from them.)
    ASSERT_TRUE(session->poisonBuffers(0xFF, /*symbolicInputs=*/false).ok);
    HostTensor a = randomTensor({10 * n}, 1 + uint32_t(n)), b = randomTensor({10 * n}, 2);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    expectSum(a, b, outputs[0]);
    HostTensor c;
    ASSERT_TRUE(session->readBuffer(2, c).ok);
    const int64_t written = std::min<int64_t>(1000, (10 * n + 255) / 256 * 256);
    for (int64_t i = 0; i < 1000; ++i)
      ASSERT_EQ(std::isnan(c.as<float>()[i]), i >= written) << "n " << n << ", element " << i;
  }
}

TEST(SymbolicSessionTest, SymRangeRunsTheLaunchesOfTheValuesBucket) {
  // Two shape buckets of n writing c: c = a + b at n in [1, 50], c = a + a at [51, 100]
  // (the same kernel over other buffers), in one session up and down across the boundary,
  // with and without symgrid records; the observer path (aicc-run --bisect) too.
  for (bool symGrid : {false, true}) {
    Bundle bundle = makeSymbolicAdd("cpu", kernelSharedObject(), symGrid);
    bundle.launches.push_back({"add", {0, 0, 2}});
    if (symGrid)
      bundle.symGrids.push_back({1, 0, 0, 10, 256, 1, 0});
    bundle.symRanges.push_back({0, 0, 1, 50, 0});
    bundle.symRanges.push_back({1, 0, 51, 100, 0});
    std::unique_ptr<Session> session;
    Status s = Session::create(bundle, Device::cpu, session);
    ASSERT_TRUE(s.ok) << s.message;
    for (int64_t n : {int64_t(50), int64_t(51), int64_t(1), int64_t(100), int64_t(37)}) {
      ASSERT_TRUE(session->poisonBuffers().ok);
      HostTensor a = randomTensor({10 * n}, 3 + uint32_t(n)), b = randomTensor({10 * n}, 4);
      for (bool observed : {false, true}) {
        std::vector<HostTensor> outputs;
        size_t launches = 0;
        s = observed ? session->run({a, b}, outputs,
                                    [&](size_t) {
                                      ++launches;
                                      return Status::success();
                                    })
                     : session->run({a, b}, outputs);
        ASSERT_TRUE(s.ok) << s.message;
        expectSum(a, n <= 50 ? b : a, outputs[0]);
        if (observed)
          EXPECT_EQ(launches, 2u);
      }
    }
  }
}

TEST(SymbolicSessionTest, InputGuards) {
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(makeSymbolicMlp(true), Device::cpu, session).ok);
  std::vector<HostTensor> outputs;
  auto runWith = [&](HostTensor x) { return session->run({x}, outputs).message; };
  EXPECT_EQ(runWith(randomTensor({9, 4}, 1)),
            "input 0 ('input_0'): batch = 9 is outside the compiled range [1, 8] (dim 0)");
  EXPECT_EQ(runWith(randomTensor({0, 4}, 1)),
            "input 0 ('input_0'): batch = 0 is outside the compiled range [1, 8] (dim 0)");
  // The static dims, the rank and the dtype are as recorded.
  EXPECT_EQ(runWith(randomTensor({3, 5}, 1)),
            "input 0 ('input_0'): expected f32[batch,4] (batch in [1, 8]), got f32[3,5]");
  EXPECT_EQ(runWith(randomTensor({3, 4, 1}, 1)),
            "input 0 ('input_0'): expected f32[batch,4] (batch in [1, 8]), got f32[3,4,1]");
  EXPECT_EQ(runWith(HostTensor::zeros(DType::f16, {3, 4})),
            "input 0 ('input_0'): expected f32[batch,4] (batch in [1, 8]), got f16[3,4]");
  HostTensor shortData = randomTensor({3, 4}, 1);
  shortData.data.resize(8);
  EXPECT_EQ(runWith(shortData), "input 0 ('input_0'): data holds 8 bytes but f32[3,4] needs 48");
  // A refused run changes nothing: the outputs and the binding are the last good run's.
  ASSERT_TRUE(session->run({randomTensor({2, 4}, 1)}, outputs).ok);
  EXPECT_FALSE(session->run({randomTensor({9, 4}, 1)}, outputs).ok);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{2}));

  // A factor: the dim must be a multiple of it, and every input gives one value.
  Bundle add = makeSymbolicAdd("cpu", kernelSharedObject(), false);
  ASSERT_TRUE(Session::create(add, Device::cpu, session).ok);
  HostTensor a = randomTensor({370}, 3);
  EXPECT_EQ(session->run({a, randomTensor({375}, 4)}, outputs).message,
            "input 1 ('b'): dim 0 is 375, not a multiple of 10 (dim 0 is 10 x n)");
  EXPECT_EQ(session->run({a, randomTensor({380}, 4)}, outputs).message,
            "input 1 ('b'): n = 38, but input 0 ('a') gives n = 37");
  EXPECT_EQ(session->run({randomTensor({1010}, 3), randomTensor({1010}, 4)}, outputs).message,
            "input 0 ('a'): n = 101 is outside the compiled range [1, 100] (dim 0 is 1010 = 10 "
            "x n)");
}

TEST(SymbolicSessionTest, RunAsyncBindsFromTheByteSizes) {
  Bundle add = makeSymbolicAdd("cpu", kernelSharedObject(), true);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(add, Device::cpu, session).ok);
  HostTensor a = randomTensor({370}, 41), b = randomTensor({370}, 42);
  HostTensor c = HostTensor::zeros(DType::f32, {370});
  auto ref = [](HostTensor &t, size_t bytes) {
    return DeviceBuffer{reinterpret_cast<uint64_t>(t.data.data()), bytes};
  };
  Status s = session->runAsync({ref(a, 1480), ref(b, 1480)}, {ref(c, 1480)});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(a, b, c);
  EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{37}));

  HostTensor big = randomTensor({1010}, 43);
  EXPECT_EQ(session->runAsync({ref(a, 1484), ref(b, 1480)}, {ref(c, 1480)}).message,
            "input 0 ('a'): expected a multiple of 40 bytes (f32[10*n]: 40 bytes per n), got "
            "1484");
  EXPECT_EQ(session->runAsync({ref(big, 4040), ref(big, 4040)}, {ref(c, 1480)}).message,
            "input 0 ('a'): 4040 bytes is n = 101, outside the compiled range [1, 100]");
  EXPECT_EQ(session->runAsync({ref(a, 1480), ref(big, 1520)}, {ref(c, 1480)}).message,
            "input 1 ('b'): n = 38, but input 0 ('a') gives n = 37");
  EXPECT_EQ(session->runAsync({ref(a, 1480), ref(b, 1480)}, {ref(big, 4000)}).message,
            "output 0 ('c'): expected 1480 bytes (f32[370] at n = 37), got 4000");
  EXPECT_EQ(session->runAsync({ref(a, 0), ref(b, 0)}, {ref(c, 0)}).message,
            "input 0 ('a'): 0 bytes is n = 0, outside the compiled range [1, 100]");
}

TEST(SymbolicSessionTest, SessionsOfOneModelBindOnTheirOwn) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Model::load(makeSymbolicMlp(true), Device::cpu, model).ok);
  std::unique_ptr<Session> first, second;
  ASSERT_TRUE(Session::create(model, first).ok);
  ASSERT_TRUE(Session::create(model, second).ok);
  HostTensor x = randomTensor({kBatch, 4}, 77);
  std::vector<HostTensor> one, two;
  ASSERT_TRUE(first->run({firstRows(x, 2)}, one).ok);
  ASSERT_TRUE(second->run({firstRows(x, 7)}, two).ok);
  EXPECT_EQ(first->getSymbolValues(), (std::vector<int64_t>{2}));
  EXPECT_EQ(second->getSymbolValues(), (std::vector<int64_t>{7}));
  expectMlpRows(firstRows(x, 2), one[0]);
  expectMlpRows(firstRows(x, 7), two[0]);
  EXPECT_EQ(firstRows(two[0], 2).data, one[0].data);
}

//===----------------------------------------------------------------------===//
// CUDA (skipped without a driver and device)
//===----------------------------------------------------------------------===//

namespace {
bool isNoDeviceError(const Status &s) {
  for (const char *needle : {"libcuda.so.1", "cuInit failed", "no CUDA device", "without CUDA"})
    if (s.message.find(needle) != std::string::npos)
      return true;
  return false;
}

/// The driver calls the runAsync test makes itself (dlopen'ed, as the runtime does).
struct TestDriver {
  int (*memAlloc)(uint64_t *, size_t) = nullptr;
  int (*memFree)(uint64_t) = nullptr;
  int (*htod)(uint64_t, const void *, size_t) = nullptr;
  int (*dtoh)(void *, uint64_t, size_t) = nullptr;
  int (*streamSync)(void *) = nullptr;
  bool load() {
    void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      return fn != nullptr;
    };
    return lib && sym(memAlloc, "cuMemAlloc_v2") && sym(memFree, "cuMemFree_v2") &&
           sym(htod, "cuMemcpyHtoD_v2") && sym(dtoh, "cuMemcpyDtoH_v2") &&
           sym(streamSync, "cuStreamSynchronize");
  }
};
} // namespace

TEST(SymbolicCUDASessionTest, GraphsPerBindingAndRunAsync) {
  const std::string cubinPath = envOr("AICC_TEST_CUBIN", AICC_TEST_CUBIN);
  if (cubinPath.empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  const std::string cubin = readFile(cubinPath);
  for (bool graphs : {true, false}) {
    SessionOptions options;
    options.cudaGraphs = graphs;
    std::unique_ptr<Session> session;
    Status s =
        Session::create(makeSymbolicAdd("sm_90", cubin, true), Device::cuda, session, options);
    if (!s.ok && isNoDeviceError(s))
      GTEST_SKIP() << s.message;
    ASSERT_TRUE(s.ok) << s.message;
    // More bindings than kMaxCudaGraphsPerSession, then the first ones again (captured
    // anew after their eviction): each run's prefix is a + b, and past the programs its
    // grid runs the output keeps its poison.
    std::vector<int64_t> values;
    for (int64_t n = 1; n <= 100; n += 9)
      values.push_back(n);
    values.insert(values.end(), {1, 10, 100, 55});
    ASSERT_GT(values.size(), kMaxCudaGraphsPerSession + 2);
    for (int64_t n : values) {
      ASSERT_TRUE(session->poisonBuffers().ok);
      HostTensor a = randomTensor({10 * n}, 7 + uint32_t(n)), b = randomTensor({10 * n}, 3);
      std::vector<HostTensor> outputs;
      s = session->run({a, b}, outputs);
      ASSERT_TRUE(s.ok) << s.message;
      expectSum(a, b, outputs[0]);
      HostTensor c;
      ASSERT_TRUE(session->readBuffer(2, c).ok);
      const int64_t written = std::min<int64_t>(1000, (10 * n + 255) / 256 * 256);
      for (int64_t i = 0; i < 1000; ++i)
        ASSERT_EQ(std::isnan(c.as<float>()[i]), i >= written)
            << "n " << n << ", element " << i << (graphs ? " (graphs)" : "");
    }
    BenchmarkStats st;
    ASSERT_TRUE(session->benchmark(3, st).ok);

    // runAsync on device buffers (the session made its context current): n from the
    // input sizes, the output at that size.
    TestDriver cu;
    ASSERT_TRUE(cu.load());
    uint64_t da = 0, db = 0, dc = 0;
    ASSERT_EQ(cu.memAlloc(&da, 4000), 0);
    ASSERT_EQ(cu.memAlloc(&db, 4000), 0);
    ASSERT_EQ(cu.memAlloc(&dc, 4000), 0);
    for (int64_t n : {int64_t(37), int64_t(100), int64_t(5)}) {
      const size_t bytes = static_cast<size_t>(n) * 40;
      HostTensor a = randomTensor({10 * n}, 11), b = randomTensor({10 * n}, 12);
      HostTensor c = HostTensor::zeros(DType::f32, {10 * n});
      ASSERT_EQ(cu.htod(da, a.data.data(), bytes), 0);
      ASSERT_EQ(cu.htod(db, b.data.data(), bytes), 0);
      s = session->runAsync({{da, bytes}, {db, bytes}}, {{dc, bytes}}, nullptr);
      ASSERT_TRUE(s.ok) << s.message;
      EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{n}));
      ASSERT_EQ(cu.streamSync(nullptr), 0);
      ASSERT_EQ(cu.dtoh(c.data.data(), dc, bytes), 0);
      expectSum(a, b, c);
    }
    EXPECT_EQ(session->runAsync({{da, 400}, {db, 400}}, {{dc, 4000}}, nullptr).message,
              "output 0 ('c'): expected 400 bytes (f32[100] at n = 10), got 4000");
    // A synchronous run after an asynchronous one (n = 2).
    HostTensor a = randomTensor({20}, 1), b = randomTensor({20}, 2);
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(session->run({a, b}, outputs).ok);
    expectSum(a, b, outputs[0]);
    cu.memFree(da);
    cu.memFree(db);
    cu.memFree(dc);
  }
}

TEST(SymbolicSessionTest, SessionBuffersAreTakenInPlaceWhereTheRunPlacesThemAtTheirStart) {
  auto addr = [](const DeviceBuffer &b) { return reinterpret_cast<void *>(b.address); };
  auto hex = [](uint64_t a) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%#llx", static_cast<unsigned long long>(a));
    return std::string(buf);
  };
  // A prefix (one row): a run at n = 37 takes the first 1480 bytes of the session's
  // buffers in place.
  {
    std::unique_ptr<Session> session;
    ASSERT_TRUE(
        Session::create(makeSymbolicAdd("cpu", kernelSharedObject(), true), Device::cpu, session)
            .ok);
    DeviceBuffer ia, ib, oc;
    ASSERT_TRUE(session->getInputBuffer(0, ia).ok);
    ASSERT_TRUE(session->getInputBuffer(1, ib).ok);
    ASSERT_TRUE(session->getOutputBuffer(0, oc).ok);
    EXPECT_EQ(ia.bytes, 4000u) << "at the bound";
    EXPECT_EQ(oc.bytes, 4000u);
    HostTensor a = randomTensor({370}, 61), b = randomTensor({370}, 62);
    std::memcpy(addr(ia), a.data.data(), 1480);
    std::memcpy(addr(ib), b.data.data(), 1480);
    ASSERT_TRUE(session->poisonBuffers(0xFF, false).ok);
    Status s = session->runAsync({{ia.address, 1480}, {ib.address, 1480}}, {{oc.address, 1480}});
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(session->getSymbolValues(), (std::vector<int64_t>{37}));
    EXPECT_EQ(session->getLastRunCopyBytes(), 0u);
    HostTensor c = HostTensor::zeros(DType::f32, {370});
    std::memcpy(c.data.data(), addr(oc), 1480);
    expectSum(a, b, c);
  }
  // Rows at a pitch: f32[4, 10*n], n in [1, 25]. At the bound the rows are contiguous
  // (taken in place); at n = 3 the run would spread the caller's 4 rows of 120 bytes 1000
  // bytes apart over the same memory, which is refused.
  Bundle rows = makeSymbolicAdd("cpu", kernelSharedObject(), false);
  rows.symbols[0].max = 25;
  for (BufferDesc &d : rows.buffers)
    d.shape = {4, 250};
  for (SymDimDesc &d : rows.symDims)
    d.axis = 1;
  std::unique_ptr<Session> session;
  Status s = Session::create(rows, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  DeviceBuffer ia, ib, oc;
  ASSERT_TRUE(session->getInputBuffer(0, ia).ok);
  ASSERT_TRUE(session->getInputBuffer(1, ib).ok);
  ASSERT_TRUE(session->getOutputBuffer(0, oc).ok);
  HostTensor a = randomTensor({4, 250}, 63), b = randomTensor({4, 250}, 64);
  std::memcpy(addr(ia), a.data.data(), 4000);
  std::memcpy(addr(ib), b.data.data(), 4000);
  s = session->runAsync({ia, ib}, {oc});
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(session->getLastRunCopyBytes(), 0u);
  HostTensor c = HostTensor::zeros(DType::f32, {4, 250});
  std::memcpy(c.data.data(), addr(oc), 4000);
  expectSum(a, b, c);

  HostTensor b3 = randomTensor({4, 30}, 65), c3 = HostTensor::zeros(DType::f32, {4, 30});
  const DeviceBuffer callerB{reinterpret_cast<uint64_t>(b3.data.data()), 480};
  const DeviceBuffer callerC{reinterpret_cast<uint64_t>(c3.data.data()), 480};
  EXPECT_EQ(session->runAsync({{ia.address, 480}, callerB}, {callerC}).message,
            "input 0 ('a'): its 480 bytes at " + hex(ia.address) +
                " overlap the session's buffer for input 0 ('a') (4000 bytes at " +
                hex(ia.address) +
                ") but cannot be taken in place: at n = 3 the run places 4 rows of 120 bytes "
                "1000 bytes apart in that buffer, so only n = 25 is taken in place: pass memory "
                "outside it");
  EXPECT_EQ(session->runAsync({callerB, callerB}, {{oc.address, 480}}).message,
            "output 0 ('c'): its 480 bytes at " + hex(oc.address) +
                " overlap the session's buffer for output 0 ('c') (4000 bytes at " +
                hex(oc.address) +
                ") but cannot be taken in place: at n = 3 the run places 4 rows of 120 bytes "
                "1000 bytes apart in that buffer, so only n = 25 is taken in place: pass memory "
                "outside it");
  // The same run from caller memory copies as before.
  s = session->runAsync({callerB, callerB}, {callerC});
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(session->getLastRunCopyBytes(), 3u * 480);
  HostTensor twice = HostTensor::zeros(DType::f32, {4, 30});
  for (int i = 0; i < 120; ++i)
    twice.as<float>()[i] = b3.as<float>()[i] + b3.as<float>()[i];
  EXPECT_EQ(c3.data, twice.data);
}

TEST(SymbolicSessionTest, PlansRunTheValuesPlanAndPackedPlansTakeCompactTensors) {
  // c = a + b over f32[2, 5 x n] (rows at the bound's pitch of 500 elements, n in [1, 100])
  // in the plan for [2, 100]; at n = 1 the packed plan (aicc-compile --specialize) runs
  // c = a + a on one program of 256 elements: right only if the session copies the run's
  // [2, 5] compactly to the start of the buffers and reads c back from there (the bound's
  // layout would put row 1 at element 500, which no program writes: poisoned NaN).
  Bundle bundle = makeSymbolicAdd("cpu", kernelSharedObject(), /*symGrid=*/false);
  for (BufferDesc &b : bundle.buffers)
    b.shape = {2, 500};
  for (SymDimDesc &d : bundle.symDims) {
    d.axis = 1;
    d.factor = 5;
  }
  bundle.launches.push_back({"add", {0, 0, 2}});
  bundle.symGrids.push_back({1, 0, 0, 10, 256, 1, 0});
  bundle.plans.push_back({0, 0, 2, 100, /*packed=*/false, 0});
  bundle.plans.push_back({1, 0, 1, 1, /*packed=*/true, 0});
  Bundle back;
  Status s = parseBundle(serializeBundle(bundle), back);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(back.formatVersion, 10);
  std::unique_ptr<Session> session;
  s = Session::create(back, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  const TensorInfo &a0 = session->getInputs()[0];
  EXPECT_EQ(a0.layoutAt({1}).rows, 1u);
  EXPECT_EQ(a0.layoutAt({2}).rows, 2u);
  EXPECT_EQ(a0.layoutAt({2}).pitch, 2000u);
  for (int64_t n : {int64_t(1), int64_t(2), int64_t(100), int64_t(1), int64_t(37)}) {
    ASSERT_TRUE(session->poisonBuffers().ok);
    HostTensor a = randomTensor({2, 5 * n}, 3 + uint32_t(n)), b = randomTensor({2, 5 * n}, 4);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    expectSum(a, n == 1 ? a : b, outputs[0]);
  }
}
