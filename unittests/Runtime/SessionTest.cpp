//===- SessionTest.cpp - Runtime session tests (CPU, and CUDA if present) -===//
//
// The CPU tests load a real shared object, built from testdata/add_kernel.c at
// test build time; the CUDA tests load a cubin assembled from
// testdata/add_kernel.ptx by ptxas and skip themselves when no driver/GPU is
// present. The environment variables AICC_TEST_KERNEL_SO and AICC_TEST_CUBIN
// override the built-in paths (e.g. when the build tree is moved to another
// machine).
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Session.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <type_traits>

#include <dlfcn.h>

using namespace aicc::runtime;

namespace {

constexpr int kN = 1000;
constexpr int kRows = 4;
constexpr int kCols = 250;

std::string testFile(const char *envVar, const char *builtin) {
  const char *env = std::getenv(envVar);
  return env && *env ? env : builtin;
}

/// Reads a whole file; empty when it cannot be read.
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string kernelSharedObject() {
  std::string path = testFile("AICC_TEST_KERNEL_SO", AICC_TEST_KERNEL_SO);
  std::string bytes = readFile(path);
  EXPECT_FALSE(bytes.empty()) << "cannot read test kernel " << path;
  return bytes;
}

HostTensor randomTensor(std::vector<int64_t> shape, uint32_t seed) {
  HostTensor t = HostTensor::zeros(DType::f32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.as<float>()[i] = dist(gen);
  return t;
}

/// c = a + b over f32[1000]: one input-input-output launch of `add`.
Bundle makeAddBundle(std::string target, std::string code,
                     std::array<int64_t, 3> grid, std::array<int64_t, 3> block,
                     std::string kernel = "add") {
  Bundle b;
  b.target = std::move(target);
  b.buffers.push_back({0, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, kN * 4, {kN}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.inputs.push_back({1, 1, "b"});
  b.outputs.push_back({0, 2, "c"});
  b.kernels.push_back({kernel, grid, block, 0, 3});
  // What the kernels of add_kernel.c / add_kernel.ptx take: three f32[1000].
  b.kernels.back().params.assign(3, {DType::f32, kN * 4});
  b.launches.push_back({kernel, {0, 1, 2}});
  b.code = std::move(code);
  return b;
}

void expectSum(const HostTensor &a, const HostTensor &b, const HostTensor &c) {
  ASSERT_EQ(c.dtype, DType::f32);
  ASSERT_EQ(c.shape, std::vector<int64_t>{kN});
  for (int i = 0; i < kN; ++i) {
    // Independent reference, computed in double; one f32 rounding allowed.
    double expected = double(a.as<float>()[i]) + double(b.as<float>()[i]);
    ASSERT_NEAR(c.as<float>()[i], expected, 1e-6 * std::fabs(expected) + 1e-7)
        << "element " << i;
  }
}

/// RAII setter for an environment variable.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

} // namespace

TEST(DeviceTest, NamesAndDefaults) {
  EXPECT_EQ(parseDevice("cpu"), Device::cpu);
  EXPECT_EQ(parseDevice("cuda"), Device::cuda);
  EXPECT_FALSE(parseDevice("gpu"));
  EXPECT_STREQ(deviceName(Device::cuda), "cuda");
  EXPECT_EQ(defaultDeviceForTarget("sm_90a"), Device::cuda);
  EXPECT_EQ(defaultDeviceForTarget("cpu"), Device::cpu);
}

TEST(CPUSessionTest, RunsAddKernel) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  bundle = Bundle(); // the session must not depend on the bundle any more

  ASSERT_EQ(session->getInputs().size(), 2u);
  EXPECT_EQ(session->getInputs()[1].name, "b");
  EXPECT_EQ(session->getInputs()[1].shape, std::vector<int64_t>{kN});
  ASSERT_EQ(session->getOutputs().size(), 1u);
  EXPECT_EQ(session->getOutputs()[0].name, "c");
  EXPECT_EQ(session->getOutputs()[0].dtype, DType::f32);

  // Two runs with different data: buffers are reused correctly.
  for (uint32_t seed : {1u, 2u}) {
    HostTensor a = randomTensor({kN}, seed), b = randomTensor({kN}, seed + 100);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    ASSERT_EQ(outputs.size(), 1u);
    expectSum(a, b, outputs[0]);
  }

  double ms = -1;
  s = session->benchmark(3, ms);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_GE(ms, 0.0);
  EXPECT_FALSE(session->benchmark(0, ms).ok);

  // Per-run statistics: one time per pass, ordered.
  BenchmarkStats st;
  s = session->benchmark(7, st);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(st.runs, 7);
  EXPECT_LE(st.minMs, st.medianMs);
  EXPECT_LE(st.medianMs, st.p90Ms);
  EXPECT_LE(st.p90Ms, st.maxMs);
  EXPECT_LE(st.minMs, st.meanMs);
  EXPECT_LE(st.meanMs, st.maxMs);
}

TEST(BenchmarkStatsTest, OrderStatistics) {
  BenchmarkStats st = summarizeRuns({3, 1, 2, 4});
  EXPECT_EQ(st.runs, 4);
  EXPECT_DOUBLE_EQ(st.meanMs, 2.5);
  EXPECT_DOUBLE_EQ(st.medianMs, 3); // sorted[floor(0.5 * 4)]
  EXPECT_DOUBLE_EQ(st.p90Ms, 4);    // sorted[floor(0.9 * 4)]
  EXPECT_DOUBLE_EQ(st.minMs, 1);
  EXPECT_DOUBLE_EQ(st.maxMs, 4);
  BenchmarkStats one = summarizeRuns({0.25});
  EXPECT_DOUBLE_EQ(one.medianMs, 0.25);
  EXPECT_DOUBLE_EQ(one.p90Ms, 0.25);
  EXPECT_EQ(summarizeRuns({}).runs, 0);
}

/// t = a + b (temp f32[1000]); x = t viewed as f32[4,250] (alias);
/// y = x * w (w: const f32[250] at weights offset 64), grid (2, 4, 1).
/// Outputs: y, and x read back.
Bundle makeConstAliasBundle(const HostTensor &w) {
  Bundle bundle;
  bundle.target = "cpu";
  bundle.buffers.push_back({0, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  bundle.buffers.push_back({1, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  bundle.buffers.push_back({2, DType::f32, BufferKind::temp, kN * 4, {kN}, 0});
  bundle.buffers.push_back(
      {3, DType::f32, BufferKind::alias, kN * 4, {kRows, kCols}, 2});
  bundle.buffers.push_back(
      {4, DType::f32, BufferKind::constant, kCols * 4, {kCols}, 64});
  bundle.buffers.push_back(
      {5, DType::f32, BufferKind::output, kN * 4, {kRows, kCols}, 0});
  bundle.inputs.push_back({0, 0, "a"});
  bundle.inputs.push_back({1, 1, "b"});
  bundle.outputs.push_back({0, 5, "y"});
  bundle.outputs.push_back({1, 3, "sum as matrix"}); // an alias read back
  bundle.kernels.push_back({"add", {4, 1, 1}, {1, 1, 1}, 0, 3});
  bundle.kernels.back().params.assign(3, {DType::f32, kN * 4});
  bundle.kernels.push_back({"mul_rows", {2, kRows, 1}, {1, 1, 1}, 0, 3});
  bundle.kernels.back().params = {
      {DType::f32, kN * 4}, {DType::f32, kCols * 4}, {DType::f32, kN * 4}};
  bundle.launches.push_back({"add", {0, 1, 2}});
  bundle.launches.push_back({"mul_rows", {3, 4, 5}});
  bundle.code = kernelSharedObject();
  bundle.weights.assign(64, '\xff'); // padding before the constant
  bundle.weights.append(reinterpret_cast<const char *>(w.data.data()),
                        w.data.size());
  return bundle;
}

/// Checks makeConstAliasBundle's outputs for inputs a, b and weights w.
void expectConstAliasOutputs(const HostTensor &a, const HostTensor &b, const HostTensor &w,
                             const std::vector<HostTensor> &outputs, const std::string &what) {
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(outputs[1].shape, (std::vector<int64_t>{kRows, kCols}));
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kCols; ++c) {
      int i = r * kCols + c;
      float sum = a.as<float>()[i] + b.as<float>()[i];
      ASSERT_EQ(outputs[1].as<float>()[i], sum) << what << ": sum element " << i;
      ASSERT_EQ(outputs[0].as<float>()[i], sum * w.as<float>()[c])
          << what << ": element (" << r << ", " << c << ")";
    }
  }
}

TEST(CPUSessionTest, ConstAliasTempAndTwoDimensionalGrid) {
  HostTensor w = randomTensor({kCols}, 7);
  Bundle bundle = makeConstAliasBundle(w);

  for (const char *threads : {"1", "3"}) {
    ScopedEnv env("AICC_NUM_THREADS", threads);
    std::unique_ptr<Session> session;
    Status s = Session::create(bundle, Device::cpu, session);
    ASSERT_TRUE(s.ok) << s.message;
    HostTensor a = randomTensor({kN}, 11), b = randomTensor({kN}, 12);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    expectConstAliasOutputs(a, b, w, outputs, std::string("threads ") + threads);
  }
}

/// Runs `runs` runs on each of `sessions`, each session on its own thread at the same
/// time, with inputs a, b drawn from seeds that differ per thread and run; `wrong(a, b,
/// outputs)` counts the wrong elements of a run. Returns the failed runs plus the wrong
/// elements.
int runSessionsInParallel(std::vector<std::unique_ptr<Session>> &sessions, uint32_t runs,
                          const std::function<int(const HostTensor &, const HostTensor &,
                                                  const std::vector<HostTensor> &)> &wrong) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (size_t t = 0; t < sessions.size(); ++t)
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < runs; ++i) {
        HostTensor a = randomTensor({kN}, 1000 * uint32_t(t) + i), b = randomTensor({kN}, 77 + i);
        std::vector<HostTensor> outputs;
        if (!sessions[t]->run({a, b}, outputs).ok) {
          ++failures;
          continue;
        }
        failures += wrong(a, b, outputs);
      }
    });
  for (std::thread &t : threads)
    t.join();
  return failures.load();
}

TEST(CPUModelTest, SessionsShareTheWeightsAndRunInParallel) {
  HostTensor w = randomTensor({kCols}, 7);
  std::shared_ptr<const Model> model;
  {
    Bundle bundle = makeConstAliasBundle(w);
    Status s = Model::load(bundle, Device::cpu, model);
    ASSERT_TRUE(s.ok) << s.message;
  } // the model keeps what it needs: the bundle is gone
  EXPECT_EQ(model->getDevice(), Device::cpu);
  EXPECT_EQ(model->getTarget(), "cpu");
  EXPECT_EQ(model->getConstantBytes(), uint64_t(kCols * 4));
  ASSERT_EQ(model->getInputs().size(), 2u);
  EXPECT_EQ(model->getInputs()[1].name, "b");
  EXPECT_EQ(model->getLaunches().size(), 2u);

  constexpr int kSessions = 3;
  std::vector<std::unique_ptr<Session>> sessions(kSessions);
  for (auto &session : sessions) {
    Status s = Session::create(model, session);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(&session->getModel(), model.get());
    // Inputs a, b, the temp t and the output y: the constant is the model's.
    EXPECT_EQ(session->getAllocatedBytes(), uint64_t(4 * kN * 4));
  }
  // The sessions keep the model alive.
  std::weak_ptr<const Model> weak = model;
  model.reset();
  EXPECT_FALSE(weak.expired());

  // Each session on its own thread at once, each with its own inputs: no run
  // sees another's buffers.
  int failures = runSessionsInParallel(
      sessions, 30,
      [&](const HostTensor &a, const HostTensor &b, const std::vector<HostTensor> &outputs) {
        int wrong = 0;
        for (int r = 0; r < kRows; ++r)
          for (int c = 0; c < kCols; ++c) {
            int k = r * kCols + c;
            float sum = a.as<float>()[k] + b.as<float>()[k];
            wrong += outputs[0].as<float>()[k] != sum * w.as<float>()[c];
          }
        return wrong;
      });
  EXPECT_EQ(failures, 0);
  sessions.clear();
  EXPECT_TRUE(weak.expired());
}

TEST(CPUModelTest, LoadErrors) {
  std::unique_ptr<Session> session;
  Status s = Session::create(std::shared_ptr<const Model>(), session);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("no model"), std::string::npos) << s.message;
  EXPECT_EQ(session, nullptr);

  HostTensor w = randomTensor({kCols}, 7);
  Bundle bundle = makeConstAliasBundle(w);
  std::shared_ptr<const Model> model;
  s = Model::load(bundle, Device::cuda, model);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("cannot run on device cuda"), std::string::npos) << s.message;
  bundle.buffers[4].offset = 1 << 20; // the constant outside the weights
  s = Model::load(bundle, Device::cpu, model);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("invalid bundle"), std::string::npos) << s.message;
  EXPECT_EQ(model, nullptr);
}

TEST(CPUSessionTest, ObserverSeesEveryLaunchInOrder) {
  // t = a + b (temp), c = t + b (output): the observer reads both after each
  // launch, as aicc-run --bisect does.
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  bundle.buffers[2].kind = BufferKind::temp;
  bundle.buffers.push_back({3, DType::f32, BufferKind::output, kN * 4, {kN}, 0});
  bundle.outputs[0].bufferId = 3;
  bundle.launches.push_back({"add", {2, 1, 3}});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(session->getBuffers().size(), 4u);
  EXPECT_EQ(session->getBuffers()[2].kind, BufferKind::temp);
  ASSERT_EQ(session->getLaunches().size(), 2u);
  EXPECT_EQ(session->getLaunches()[1].kernel, "add");
  EXPECT_EQ(session->getLaunches()[1].buffers, (std::vector<int>{2, 1, 3}));

  HostTensor a = randomTensor({kN}, 21), b = randomTensor({kN}, 22);
  std::vector<size_t> seen;
  std::vector<HostTensor> temps, outs;
  std::vector<HostTensor> outputs;
  s = session->run({a, b}, outputs, [&](size_t launch) {
    seen.push_back(launch);
    HostTensor t, c;
    if (Status r = session->readBuffer(2, t); !r.ok)
      return r;
    if (Status r = session->readBuffer(3, c); !r.ok)
      return r;
    temps.push_back(std::move(t));
    outs.push_back(std::move(c));
    return Status::success();
  });
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(seen, (std::vector<size_t>{0, 1}));
  for (int i = 0; i < kN; ++i) {
    float t = a.as<float>()[i] + b.as<float>()[i];
    ASSERT_EQ(temps[0].as<float>()[i], t) << i;
    ASSERT_EQ(outs[0].as<float>()[i], 0.0f) << "launch 1 has not run yet: " << i;
    ASSERT_EQ(outs[1].as<float>()[i], t + b.as<float>()[i]) << i;
    ASSERT_EQ(outputs[0].as<float>()[i], outs[1].as<float>()[i]) << i;
  }

  // An observer error stops the run and names the launch.
  int calls = 0;
  s = session->run({a, b}, outputs, [&](size_t) {
    ++calls;
    return Status::error("stop here");
  });
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(s.message, "after launch 0 of 'add': stop here");

  HostTensor t;
  s = session->readBuffer(4, t);
  EXPECT_EQ(s.message, "buffer id 4 out of range (the plan has 4 buffers)");
  EXPECT_FALSE(session->readBuffer(-1, t).ok);
}

TEST(CPUSessionTest, RejectsWrongInputs) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  std::vector<HostTensor> outputs;
  HostTensor good = randomTensor({kN}, 3);

  Status s = session->run({good, randomTensor({kN - 1}, 4)}, outputs);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message, "input 1 ('b'): expected f32[1000], got f32[999]");

  s = session->run({randomTensor({4, 250}, 4), good}, outputs);
  EXPECT_EQ(s.message, "input 0 ('a'): expected f32[1000], got f32[4,250]");

  HostTensor f16 = HostTensor::zeros(DType::f16, {kN});
  s = session->run({good, f16}, outputs);
  EXPECT_EQ(s.message, "input 1 ('b'): expected f32[1000], got f16[1000]");

  s = session->run({good}, outputs);
  EXPECT_EQ(s.message, "expected 2 input(s), got 1");

  HostTensor shortData = good;
  shortData.data.resize(12);
  s = session->run({good, shortData}, outputs);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("data holds 12 bytes"), std::string::npos)
      << s.message;
}

TEST(CPUSessionTest, ReportsLoadErrors) {
  std::unique_ptr<Session> session;
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1},
                                {1, 1, 1}, "missing_kernel");
  Status s = Session::create(bundle, Device::cpu, session);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message, "kernel 'missing_kernel': the code section exports no "
                       "'missing_kernel_entry'");
  EXPECT_EQ(session, nullptr);

  bundle = makeAddBundle("cpu", "not an ELF file", {4, 1, 1}, {1, 1, 1});
  s = Session::create(bundle, Device::cpu, session);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("cannot load the code section as a shared object"),
            std::string::npos)
      << s.message;

  bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  s = Session::create(bundle, Device::cuda, session);
  EXPECT_EQ(s.message, "a bundle for target 'cpu' cannot run on device cuda "
                       "(it needs cpu)");

  bundle.buffers[2].sizeBytes = 3;
  s = Session::create(bundle, Device::cpu, session);
  EXPECT_NE(s.message.find("invalid bundle: buffer 2: SIZE_BYTES is 3"),
            std::string::npos)
      << s.message;

  bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  {
    ScopedEnv env("AICC_NUM_THREADS", "lots");
    s = Session::create(bundle, Device::cpu, session);
    EXPECT_NE(s.message.find("AICC_NUM_THREADS='lots'"), std::string::npos)
        << s.message;
  }
}

TEST(CPUSessionTest, ModelWithoutKernels) {
  // An identity model: the output is the input buffer, copied out.
  Bundle bundle;
  bundle.target = "cpu";
  bundle.buffers.push_back({0, DType::i64, BufferKind::input, 16, {2}, 0});
  bundle.buffers.push_back({1, DType::i64, BufferKind::constant, 8, {}, 0});
  bundle.inputs.push_back({0, 0, "x"});
  bundle.outputs.push_back({0, 0, "x"});
  bundle.outputs.push_back({1, 1, "k"});
  int64_t k = -42;
  bundle.weights.assign(reinterpret_cast<const char *>(&k), 8);
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;
  HostTensor x = HostTensor::zeros(DType::i64, {2});
  x.as<int64_t>()[0] = 5;
  x.as<int64_t>()[1] = -7;
  std::vector<HostTensor> outputs;
  s = session->run({x}, outputs);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(outputs[0].data, x.data);
  EXPECT_EQ(outputs[1].shape, std::vector<int64_t>{});
  EXPECT_EQ(outputs[1].as<int64_t>()[0], -42);
}

TEST(CPUSessionTest, PoisonFillsOutputsAndTempsOnly) {
  // a, b inputs; c output; t temp; k const; v an alias (view) of c.
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  bundle.buffers.push_back({3, DType::i32, BufferKind::temp, 16, {4}, 0});
  bundle.buffers.push_back({4, DType::f32, BufferKind::constant, 8, {2}, 0});
  bundle.buffers.push_back({5, DType::f32, BufferKind::alias, kN * 4, {10, 100}, 2});
  bundle.weights.assign(8, '\x11');
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  ASSERT_TRUE(s.ok) << s.message;

  s = session->poisonBuffers();
  ASSERT_TRUE(s.ok) << s.message;
  auto bytesOf = [&](int id) {
    HostTensor t;
    Status r = session->readBuffer(id, t);
    EXPECT_TRUE(r.ok) << r.message;
    return t.data;
  };
  EXPECT_EQ(bytesOf(0), std::vector<uint8_t>(kN * 4, 0x00)) << "inputs are not poisoned";
  EXPECT_EQ(bytesOf(2), std::vector<uint8_t>(kN * 4, 0xFF));
  EXPECT_EQ(bytesOf(3), std::vector<uint8_t>(16, 0xFF));
  EXPECT_EQ(bytesOf(4), std::vector<uint8_t>(8, 0x11)) << "constants keep their value";
  EXPECT_EQ(bytesOf(5), std::vector<uint8_t>(kN * 4, 0xFF)) << "an alias shares its memory";

  // A complete run overwrites the poison.
  HostTensor a = randomTensor({kN}, 41), b = randomTensor({kN}, 42);
  std::vector<HostTensor> outputs;
  s = session->run({a, b}, outputs);
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(a, b, outputs[0]);
  EXPECT_EQ(bytesOf(3), std::vector<uint8_t>(16, 0xFF)) << "the kernel never writes t";

  // Any byte: 0 restores the fresh-session state.
  ASSERT_TRUE(session->poisonBuffers(0).ok);
  EXPECT_EQ(bytesOf(2), std::vector<uint8_t>(kN * 4, 0x00));
}

TEST(CPUSessionTest, PoisonShowsElementsNoKernelWrites) {
  // Three blocks of 256 cover [0, 768): the rest of c is never written.
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {3, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  HostTensor a = randomTensor({kN}, 51), b = randomTensor({kN}, 52);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(session->run({a, b}, outputs).ok);
  EXPECT_EQ(outputs[0].as<float>()[999], 0.0f) << "fresh buffers are zero-filled";
  ASSERT_TRUE(session->poisonBuffers().ok);
  ASSERT_TRUE(session->run({a, b}, outputs).ok);
  for (int i = 0; i < kN; ++i) {
    float got = outputs[0].as<float>()[i];
    if (i < 768)
      ASSERT_EQ(got, a.as<float>()[i] + b.as<float>()[i]) << i;
    else
      ASSERT_TRUE(std::isnan(got)) << "element " << i << " = " << got;
  }
}

TEST(CPUSessionTest, RefusesTensorMaps) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  bundle.kernels[0].tensorMaps.push_back({0, DType::f32, {kN}, {}, {256}, 0});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cpu, session);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message, "invalid bundle: kernel 'add': tensor maps (TMA) need a GPU target "
                       "sm_90 or newer, not 'cpu'");
  EXPECT_EQ(session, nullptr);
}

//===----------------------------------------------------------------------===//
// CUDA
//===----------------------------------------------------------------------===//

namespace {

/// True when `s` says that no CUDA driver or device is usable here.
bool isNoDeviceError(const Status &s) {
  for (const char *needle :
       {"libcuda.so.1", "cuInit failed", "no CUDA device", "without CUDA"})
    if (s.message.find(needle) != std::string::npos)
      return true;
  return false;
}

std::string cubinPath() { return testFile("AICC_TEST_CUBIN", AICC_TEST_CUBIN); }

} // namespace

TEST(CUDASessionTest, FailsCleanlyOnBadCodeOrMissingDriver) {
  Bundle bundle = makeAddBundle("sm_90", "definitely not a cubin", {4, 1, 1},
                                {256, 1, 1});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(session, nullptr);
  std::printf("cuda session error (expected): %s\n", s.message.c_str());
  if (!isNoDeviceError(s))
    EXPECT_NE(s.message.find("cuModuleLoadData failed"), std::string::npos)
        << s.message;
  s = Session::create(bundle, Device::cpu, session);
  EXPECT_EQ(s.message, "a bundle for target 'sm_90' cannot run on device cpu "
                       "(it needs cuda)");
}

TEST(CUDASessionTest, RunsAddKernel) {
  if (cubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  std::string cubin = readFile(cubinPath());
  ASSERT_FALSE(cubin.empty()) << "cannot read " << cubinPath();
  Bundle bundle = makeAddBundle("sm_90", cubin, {4, 1, 1}, {256, 1, 1});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  ASSERT_TRUE(s.ok) << s.message;
  for (uint32_t seed : {5u, 6u}) {
    HostTensor a = randomTensor({kN}, seed), b = randomTensor({kN}, seed + 10);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    expectSum(a, b, outputs[0]);
  }
  double ms = -1;
  s = session->benchmark(10, ms);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_GT(ms, 0.0);
  std::printf("cuda add benchmark: %.4f ms/run\n", ms);

  {
    // The observed path launches and synchronizes one kernel at a time.
    HostTensor a = randomTensor({kN}, 31), b = randomTensor({kN}, 32), c;
    std::vector<HostTensor> outputs;
    int calls = 0;
    s = session->run({a, b}, outputs, [&](size_t) {
      ++calls;
      return session->readBuffer(2, c);
    });
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(calls, 1);
    expectSum(a, b, c);
  }

  std::vector<HostTensor> outputs;
  s = session->run({randomTensor({kN}, 1), randomTensor({2, 500}, 2)}, outputs);
  EXPECT_EQ(s.message, "input 1 ('b'): expected f32[1000], got f32[2,500]");
}

TEST(CUDAModelTest, SessionsOfOneModelRunInParallel) {
  if (cubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  std::string cubin = readFile(cubinPath());
  ASSERT_FALSE(cubin.empty()) << "cannot read " << cubinPath();
  Bundle bundle = makeAddBundle("sm_90", cubin, {4, 1, 1}, {256, 1, 1});
  std::shared_ptr<const Model> model;
  Status s = Model::load(bundle, Device::cuda, model);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  ASSERT_TRUE(s.ok) << s.message;
  constexpr int kSessions = 4;
  std::vector<std::unique_ptr<Session>> sessions(kSessions);
  for (int t = 0; t < kSessions; ++t) {
    SessionOptions options;
    options.cudaGraphs = t % 2 == 0; // graphs and plain launches side by side
    s = Session::create(model, sessions[t], options);
    ASSERT_TRUE(s.ok) << s.message;
  }
  model.reset(); // the sessions hold it
  int failures = runSessionsInParallel(
      sessions, 50,
      [](const HostTensor &a, const HostTensor &b, const std::vector<HostTensor> &outputs) {
        int wrong = 0;
        for (int k = 0; k < kN; ++k)
          wrong += outputs[0].as<float>()[k] != a.as<float>()[k] + b.as<float>()[k];
        return wrong;
      });
  EXPECT_EQ(failures, 0);
}

TEST(CUDASessionTest, RejectsBlockLargerThanTheKernelAllows) {
  if (cubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  std::string cubin = readFile(cubinPath());
  // add_small is declared with .maxntid 128.
  Bundle bundle =
      makeAddBundle("sm_90", cubin, {4, 1, 1}, {256, 1, 1}, "add_small");
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("kernel 'add_small': block 256x1x1 has 256 threads "
                           "but the compiled kernel allows at most 128"),
            std::string::npos)
      << s.message;

  bundle = makeAddBundle("sm_90", cubin, {4, 1, 1}, {256, 1, 1}, "nope");
  s = Session::create(bundle, Device::cuda, session);
  EXPECT_EQ(s.message, "kernel 'nope': no .entry of that name in the cubin");
}

TEST(CUDASessionTest, PoisonFillsDeviceBuffers) {
  if (cubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  // Three blocks of 256 threads cover [0, 768): the rest of c is never written.
  Bundle bundle = makeAddBundle("sm_90", readFile(cubinPath()), {3, 1, 1}, {256, 1, 1});
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  ASSERT_TRUE(s.ok) << s.message;
  HostTensor c;
  ASSERT_TRUE(session->poisonBuffers().ok);
  ASSERT_TRUE(session->readBuffer(2, c).ok);
  EXPECT_EQ(c.data, std::vector<uint8_t>(kN * 4, 0xFF));
  HostTensor a = randomTensor({kN}, 61), b = randomTensor({kN}, 62);
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(session->run({a, b}, outputs).ok);
  for (int i = 0; i < kN; ++i) {
    float got = outputs[0].as<float>()[i];
    if (i < 768)
      ASSERT_EQ(got, a.as<float>()[i] + b.as<float>()[i]) << i;
    else
      ASSERT_TRUE(std::isnan(got)) << "element " << i << " = " << got;
  }
}

//===----------------------------------------------------------------------===//
// CUDA: TMA tensor maps (testdata/tma_copy_kernel.ptx)
//===----------------------------------------------------------------------===//

namespace {

std::string tmaCubinPath() { return testFile("AICC_TEST_TMA_CUBIN", AICC_TEST_TMA_CUBIN); }

/// Both kernels of tma_copy_kernel.ptx, each copying the boxes of its tensor
/// map into a dense grid of boxes:
///  - tma_copy_3d: a is f32[3, 6, 44]; its map is the view a[:, 0:5, 0:40]
///    (dims [3, 5, 40], byte strides [1056, 176], box [1, 4, 16], no swizzle);
///    grid (3, 2, 3) boxes into c f32[3, 8, 48].
///  - tma_copy_swizzle128: b is f32[13, 68], map dims [13, 68], stride [272],
///    box [8, 32], 128-byte swizzle; grid (3, 2, 1) boxes into d f32[16, 96].
Bundle makeTMABundle(const std::string &cubin) {
  Bundle bundle;
  bundle.target = "sm_90";
  bundle.buffers.push_back({0, DType::f32, BufferKind::input, 3 * 6 * 44 * 4, {3, 6, 44}, 0});
  bundle.buffers.push_back({1, DType::f32, BufferKind::input, 13 * 68 * 4, {13, 68}, 0});
  bundle.buffers.push_back({2, DType::f32, BufferKind::output, 3 * 8 * 48 * 4, {3, 8, 48}, 0});
  bundle.buffers.push_back({3, DType::f32, BufferKind::output, 16 * 96 * 4, {16, 96}, 0});
  bundle.inputs.push_back({0, 0, "a"});
  bundle.inputs.push_back({1, 1, "b"});
  bundle.outputs.push_back({0, 2, "c"});
  bundle.outputs.push_back({1, 3, "d"});
  KernelDesc k3{"tma_copy_3d", {3, 2, 3}, {64, 1, 1}, 0, 2};
  k3.params = {{DType::f32, 3 * 6 * 44 * 4}, {DType::f32, 3 * 8 * 48 * 4}};
  k3.tensorMaps.push_back({0, DType::f32, {3, 5, 40}, {6 * 176, 176}, {1, 4, 16}, 0});
  KernelDesc k2{"tma_copy_swizzle128", {3, 2, 1}, {256, 1, 1}, 0, 2};
  k2.params = {{DType::f32, 13 * 68 * 4}, {DType::f32, 16 * 96 * 4}};
  k2.tensorMaps.push_back({0, DType::f32, {13, 68}, {272}, {8, 32}, 128});
  bundle.kernels.push_back(std::move(k3));
  bundle.kernels.push_back(std::move(k2));
  bundle.launches.push_back({"tma_copy_3d", {0, 2}});
  bundle.launches.push_back({"tma_copy_swizzle128", {1, 3}});
  bundle.code = cubin;
  return bundle;
}

} // namespace

TEST(CUDASessionTest, TensorMapsLoadTiles) {
  if (tmaCubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  std::string cubin = readFile(tmaCubinPath());
  ASSERT_FALSE(cubin.empty()) << "cannot read " << tmaCubinPath();
  Bundle bundle = makeTMABundle(cubin);
  ASSERT_TRUE(validateBundle(bundle).ok) << validateBundle(bundle).message;
  // Written and read back: the maps survive the manifest (format version 2).
  Bundle parsed;
  Status s = parseBundle(serializeBundle(bundle), parsed);
  ASSERT_TRUE(s.ok) << s.message;
  std::unique_ptr<Session> session;
  s = Session::create(parsed, Device::cuda, session);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  ASSERT_TRUE(s.ok) << s.message;

  for (uint32_t seed : {71u, 72u}) {
    HostTensor a = randomTensor({3, 6, 44}, seed), b = randomTensor({13, 68}, seed + 1);
    // Poisoned outputs: the zeros expected outside the maps must come from
    // TMA's out-of-bounds fill, not from zero-filled memory.
    ASSERT_TRUE(session->poisonBuffers().ok);
    std::vector<HostTensor> outputs;
    s = session->run({a, b}, outputs);
    ASSERT_TRUE(s.ok) << s.message;
    ASSERT_EQ(outputs.size(), 2u);
    for (int z = 0; z < 3; ++z)
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 48; ++c) {
          float expected = r < 5 && c < 40 ? a.as<float>()[(z * 6 + r) * 44 + c] : 0.0f;
          ASSERT_EQ(outputs[0].as<float>()[(z * 8 + r) * 48 + c], expected)
              << "tma_copy_3d: c[" << z << "][" << r << "][" << c << "]";
        }
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 96; ++c) {
        float expected = r < 13 && c < 68 ? b.as<float>()[r * 68 + c] : 0.0f;
        ASSERT_EQ(outputs[1].as<float>()[r * 96 + c], expected)
            << "tma_copy_swizzle128: d[" << r << "][" << c << "]";
      }
  }
}

TEST(CUDASessionTest, RejectsTensorMapParameterMismatch) {
  if (tmaCubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  std::string cubin = readFile(tmaCubinPath());
  // Two maps where the kernel takes one.
  Bundle bundle = makeTMABundle(cubin);
  bundle.kernels[0].tensorMaps.push_back(bundle.kernels[0].tensorMaps[0]);
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session);
  if (!s.ok && isNoDeviceError(s))
    GTEST_SKIP() << s.message;
  if (s.ok)
    GTEST_SKIP() << "the driver has no cuFuncGetParamInfo (CUDA < 12.4): no parameter check";
  EXPECT_EQ(s.message, "kernel 'tma_copy_3d': the cubin's .entry takes 3 parameters; the "
                       "manifest passes 2 buffer pointers then 2 CUtensorMap (.param .align "
                       "64 .b8 NAME[128])");
  // A map where the kernel takes a pointer: 1 buffer, then maps from parameter 1.
  bundle = makeTMABundle(cubin);
  bundle.kernels[1].numParams = 1;
  bundle.kernels[1].params.resize(1);
  bundle.launches[1].buffers = {1};
  s = Session::create(bundle, Device::cuda, session);
  EXPECT_NE(s.message.find("kernel 'tma_copy_swizzle128': parameter 1 is 8 bytes in the cubin, "
                           "expected 128 (a CUtensorMap, tensor map 0 (param 0, f32 dims "
                           "[13,68] strides [272] box [8,32] swizzle 128))"),
            std::string::npos)
      << s.message;
}

TEST(CPUSessionTest, RunAsyncOnCallerMemory) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  HostTensor a = randomTensor({kN}, 41), b = randomTensor({kN}, 42);
  HostTensor c = HostTensor::zeros(DType::f32, {kN});
  auto ref = [](HostTensor &t) {
    return DeviceBuffer{reinterpret_cast<uint64_t>(t.data.data()), t.data.size()};
  };
  Status s = session->runAsync({ref(a), ref(b)}, {ref(c)});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(a, b, c);
  EXPECT_FALSE(session->usesCudaGraphs());
  // Counts, sizes, null addresses and streams are checked.
  EXPECT_EQ(session->runAsync({ref(a)}, {ref(c)}).message, "expected 2 input buffer(s), got 1");
  DeviceBuffer shortB{ref(b).address, 16};
  EXPECT_EQ(session->runAsync({ref(a), shortB}, {ref(c)}).message,
            "input 1 ('b'): expected 4000 bytes (f32[1000]), got 16");
  EXPECT_EQ(session->runAsync({ref(a), ref(b)}, {DeviceBuffer{0, 4000}}).message,
            "output 0 ('c'): null address");
  int fakeStream = 0;
  EXPECT_EQ(session->runAsync({ref(a), ref(b)}, {ref(c)}, &fakeStream).message,
            "a cpu session runs on the calling thread: pass no stream");
}

TEST(CPUSessionTest, CallsFromSeveralThreadsAreSerialized) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < 20; ++i) {
        HostTensor a = randomTensor({kN}, 100 * t + i), b = randomTensor({kN}, 7 + i);
        std::vector<HostTensor> outputs;
        if (!session->run({a, b}, outputs).ok)
          ++failures;
        for (int k = 0; k < kN; ++k)
          if (outputs[0].as<float>()[k] != a.as<float>()[k] + b.as<float>()[k])
            ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

namespace {
/// The few driver calls the device-I/O test makes itself (the test links no
/// libcuda: dlopen, as the runtime does).
struct TestDriver {
  void *lib = nullptr;
  int (*memAlloc)(uint64_t *, size_t) = nullptr;
  int (*memFree)(uint64_t) = nullptr;
  int (*htod)(uint64_t, const void *, size_t) = nullptr;
  int (*dtoh)(void *, uint64_t, size_t) = nullptr;
  int (*streamCreate)(void **, unsigned) = nullptr;
  int (*streamSync)(void *) = nullptr;
  int (*streamDestroy)(void *) = nullptr;
  bool load() {
    lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return false;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      return fn != nullptr;
    };
    return sym(memAlloc, "cuMemAlloc_v2") && sym(memFree, "cuMemFree_v2") &&
           sym(htod, "cuMemcpyHtoD_v2") && sym(dtoh, "cuMemcpyDtoH_v2") &&
           sym(streamCreate, "cuStreamCreate") && sym(streamSync, "cuStreamSynchronize") &&
           sym(streamDestroy, "cuStreamDestroy_v2");
  }
};
} // namespace

TEST(CUDASessionTest, GraphsOnAndOffAndDeviceResidentIO) {
  if (cubinPath().empty())
    GTEST_SKIP() << "ptxas was not found at configure time: no test cubin";
  Bundle bundle = makeAddBundle("sm_90", readFile(cubinPath()), {4, 1, 1}, {256, 1, 1});
  for (bool graphs : {true, false}) {
    SessionOptions options;
    options.cudaGraphs = graphs;
    std::unique_ptr<Session> session;
    Status s = Session::create(bundle, Device::cuda, session, options);
    if (!s.ok && isNoDeviceError(s))
      GTEST_SKIP() << s.message;
    ASSERT_TRUE(s.ok) << s.message;
    const char *env = std::getenv("AICC_CUDA_GRAPHS");
    EXPECT_EQ(session->usesCudaGraphs(), graphs && !(env && std::string(env) == "0"));
    for (uint32_t seed : {51u, 52u}) {
      HostTensor a = randomTensor({kN}, seed), b = randomTensor({kN}, seed + 1);
      std::vector<HostTensor> outputs;
      s = session->run({a, b}, outputs);
      ASSERT_TRUE(s.ok) << s.message;
      expectSum(a, b, outputs[0]);
    }
    // Caller-owned device buffers on a caller stream; the session runs after the
    // runtime made its context current, so the test's allocations land there.
    TestDriver cu;
    ASSERT_TRUE(cu.load());
    uint64_t da = 0, db = 0, dc = 0;
    ASSERT_EQ(cu.memAlloc(&da, kN * 4), 0);
    ASSERT_EQ(cu.memAlloc(&db, kN * 4), 0);
    ASSERT_EQ(cu.memAlloc(&dc, kN * 4), 0);
    void *stream = nullptr;
    ASSERT_EQ(cu.streamCreate(&stream, 0), 0);
    for (uint32_t seed : {61u, 62u, 63u}) {
      HostTensor a = randomTensor({kN}, seed), b = randomTensor({kN}, seed + 1);
      HostTensor c = HostTensor::zeros(DType::f32, {kN});
      ASSERT_EQ(cu.htod(da, a.data.data(), kN * 4), 0);
      ASSERT_EQ(cu.htod(db, b.data.data(), kN * 4), 0);
      s = session->runAsync({{da, kN * 4}, {db, kN * 4}}, {{dc, kN * 4}}, stream);
      ASSERT_TRUE(s.ok) << s.message;
      ASSERT_EQ(cu.streamSync(stream), 0);
      ASSERT_EQ(cu.dtoh(c.data.data(), dc, kN * 4), 0);
      expectSum(a, b, c);
    }
    // A synchronous run after an asynchronous one on the legacy stream.
    s = session->runAsync({{da, kN * 4}, {db, kN * 4}}, {{dc, kN * 4}}, nullptr);
    ASSERT_TRUE(s.ok) << s.message;
    HostTensor a = randomTensor({kN}, 71), b = randomTensor({kN}, 72);
    std::vector<HostTensor> outputs;
    ASSERT_TRUE(session->run({a, b}, outputs).ok);
    expectSum(a, b, outputs[0]);
    cu.streamDestroy(stream);
    cu.memFree(da);
    cu.memFree(db);
    cu.memFree(dc);
  }
  SessionOptions bad;
  bad.deviceIndex = 4096;
  std::unique_ptr<Session> session;
  Status s = Session::create(bundle, Device::cuda, session, bad);
  EXPECT_NE(s.message.find("CUDA device 4096 does not exist"), std::string::npos) << s.message;
}

TEST(CPUSessionTest, OutputsMayBeTheInputsVector) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  HostTensor a = randomTensor({kN}, 3), b = randomTensor({kN}, 4);
  std::vector<HostTensor> io = {a, b};
  Status s = session->run(io, io); // the outputs replace the inputs
  ASSERT_TRUE(s.ok) << s.message;
  ASSERT_EQ(io.size(), 1u);
  expectSum(a, b, io[0]);
  // On error the outputs are left as they were.
  std::vector<HostTensor> outputs = {a};
  s = session->run({a}, outputs);
  EXPECT_FALSE(s.ok);
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].data, a.data);
}

namespace {

/// "0x7f..." as Session's messages print addresses.
std::string hexAddress(uint64_t a) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%#llx", static_cast<unsigned long long>(a));
  return buf;
}

/// `t`'s bytes at `b.address` (host memory: a cpu session's buffer).
void writeAt(const DeviceBuffer &b, const HostTensor &t) {
  ASSERT_EQ(b.bytes, t.data.size());
  std::memcpy(reinterpret_cast<void *>(b.address), t.data.data(), t.data.size());
}

HostTensor readAt(const DeviceBuffer &b, std::vector<int64_t> shape) {
  HostTensor t = HostTensor::zeros(DType::f32, std::move(shape));
  EXPECT_EQ(b.bytes, t.data.size());
  std::memcpy(t.data.data(), reinterpret_cast<const void *>(b.address), t.data.size());
  return t;
}

} // namespace

TEST(CPUSessionTest, SessionBuffersAreTakenInPlace) {
  Bundle bundle = makeAddBundle("cpu", kernelSharedObject(), {4, 1, 1}, {1, 1, 1});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(bundle, Device::cpu, session).ok);
  DeviceBuffer ia, ib, oc, none;
  ASSERT_TRUE(session->getInputBuffer(0, ia).ok);
  ASSERT_TRUE(session->getInputBuffer(1, ib).ok);
  ASSERT_TRUE(session->getOutputBuffer(0, oc).ok);
  EXPECT_EQ(ia.bytes, 4000u);
  EXPECT_EQ(ib.bytes, 4000u);
  EXPECT_EQ(oc.bytes, 4000u);
  EXPECT_NE(ia.address, 0u);
  EXPECT_NE(ia.address, ib.address);
  EXPECT_NE(ia.address, oc.address);
  EXPECT_EQ(session->getInputBuffer(2, none).message,
            "input 2 out of range (the model has 2 inputs)");
  EXPECT_EQ(session->getOutputBuffer(1, none).message,
            "output 1 out of range (the model has 1 outputs)");

  // The inputs written into the session's memory, the result read from it.
  HostTensor a = randomTensor({kN}, 51), b = randomTensor({kN}, 52);
  writeAt(ia, a);
  writeAt(ib, b);
  ASSERT_TRUE(session->poisonBuffers().ok); // a run that wrote nothing would show NaNs
  EXPECT_EQ(session->getLastRunCopyBytes(), 0u) << "no run yet";
  Status s = session->runAsync({ia, ib}, {oc});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(a, b, readAt(oc, {kN}));
  EXPECT_EQ(session->getLastRunCopyBytes(), 0u) << "every buffer taken in place";
  DeviceBuffer again;
  ASSERT_TRUE(session->getInputBuffer(0, again).ok);
  EXPECT_EQ(again.address, ia.address) << "the session's memory does not move";

  // Mixed: a from the caller, b in place, c to the caller.
  auto ref = [](HostTensor &t) {
    return DeviceBuffer{reinterpret_cast<uint64_t>(t.data.data()), t.data.size()};
  };
  HostTensor a2 = randomTensor({kN}, 53), c2 = HostTensor::zeros(DType::f32, {kN});
  s = session->runAsync({ref(a2), ib}, {ref(c2)});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(a2, b, c2);
  EXPECT_EQ(session->getLastRunCopyBytes(), 8000u) << "a in, c out";
  // An output may go into the session's buffer of an input (copied after the launches),
  // which the next run takes in place: a KV cache.
  s = session->runAsync({ref(a2), ib}, {ia});
  ASSERT_TRUE(s.ok) << s.message;
  HostTensor sum = readAt(ia, {kN});
  expectSum(a2, b, sum);
  EXPECT_EQ(session->getLastRunCopyBytes(), 8000u) << "a in, c out (into a's buffer)";
  HostTensor c3 = HostTensor::zeros(DType::f32, {kN});
  s = session->runAsync({ia, ib}, {ref(c3)});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(sum, b, c3);
  EXPECT_EQ(session->getLastRunCopyBytes(), 4000u) << "c out";
  // One input's session buffer read as another input, when that one is taken in place.
  s = session->runAsync({ia, ia}, {oc});
  ASSERT_TRUE(s.ok) << s.message;
  expectSum(sum, sum, readAt(oc, {kN}));
  EXPECT_EQ(session->getLastRunCopyBytes(), 4000u) << "b in, from a's buffer";

  // Sizes are checked at the session's address too.
  EXPECT_EQ(session->runAsync({{ia.address, 16}, ib}, {oc}).message,
            "input 0 ('a'): expected 4000 bytes (f32[1000]), got 16");
  // Overlaps that are not the session's buffer exactly are refused.
  const DeviceBuffer shifted{ia.address + 4, 4000};
  EXPECT_EQ(session->runAsync({shifted, ib}, {oc}).message,
            "input 0 ('a'): its 4000 bytes at " + hexAddress(ia.address + 4) +
                " overlap the session's buffer for input 0 ('a') (4000 bytes at " +
                hexAddress(ia.address) +
                ") but cannot be taken in place: pass the session's address exactly, or memory "
                "outside it");
  EXPECT_EQ(session->runAsync({ref(a2), ia}, {oc}).message,
            "input 1 ('b'): its 4000 bytes at " + hexAddress(ia.address) +
                " overlap the session's buffer for input 0 ('a') (4000 bytes at " +
                hexAddress(ia.address) +
                "), which this run copies input 0 into first: pass memory outside it");
  EXPECT_EQ(session->runAsync({ia, ib}, {{oc.address - 8, 4000}}).message,
            "output 0 ('c'): its 4000 bytes at " + hexAddress(oc.address - 8) +
                " overlap the session's buffer for output 0 ('c') (4000 bytes at " +
                hexAddress(oc.address) +
                ") but cannot be taken in place: pass the session's address exactly, or memory "
                "outside it");
  // Refused runs leave the session's memory (and the count) alone.
  expectSum(sum, sum, readAt(oc, {kN}));
  EXPECT_EQ(session->getLastRunCopyBytes(), 4000u);
  // run() copies everything.
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(session->run({a, b}, outputs).ok);
  expectSum(a, b, outputs[0]);
  EXPECT_EQ(session->getLastRunCopyBytes(), 12000u);
}

TEST(CPUSessionTest, OutputOfAnInputsBufferIsThatInputsMemory) {
  // An identity model: output x is input x's buffer (kind input); k a constant.
  constexpr int64_t kElems = 8192;
  auto makeBundle = [] {
    Bundle bundle;
    bundle.target = "cpu";
    bundle.buffers.push_back({0, DType::i64, BufferKind::input, kElems * 8, {kElems}, 0});
    bundle.buffers.push_back({1, DType::i64, BufferKind::constant, 8, {}, 0});
    bundle.inputs.push_back({0, 0, "x"});
    bundle.outputs.push_back({0, 0, "x"});
    bundle.outputs.push_back({1, 1, "k"});
    int64_t k = -42;
    bundle.weights.assign(reinterpret_cast<const char *>(&k), 8);
    return bundle;
  };
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::create(makeBundle(), Device::cpu, session).ok);
  DeviceBuffer in, out, k;
  ASSERT_TRUE(session->getInputBuffer(0, in).ok);
  ASSERT_TRUE(session->getOutputBuffer(0, out).ok);
  EXPECT_EQ(out.address, in.address);
  EXPECT_EQ(out.bytes, in.bytes);
  EXPECT_EQ(in.bytes, static_cast<size_t>(kElems * 8));
  EXPECT_EQ(session->getOutputBuffer(1, k).message,
            "output 1 ('k') is a constant of the model, shared by all its sessions: the session "
            "has no buffer of its own for it");

  // Taken in place as the input and as the output: no copy at all.
  for (int64_t i = 0; i < kElems; ++i)
    reinterpret_cast<int64_t *>(in.address)[i] = 3 * i - 7;
  int64_t kValue = 0;
  Status s = session->runAsync({in}, {out, {reinterpret_cast<uint64_t>(&kValue), 8}});
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(session->getLastRunCopyBytes(), 8u) << "only k";
  EXPECT_EQ(kValue, -42);
  for (int64_t i = 0; i < kElems; ++i)
    ASSERT_EQ(reinterpret_cast<const int64_t *>(out.address)[i], 3 * i - 7) << i;
  // Input from the caller, output x in place: the input's copy is the result.
  std::vector<int64_t> x(kElems);
  for (int64_t i = 0; i < kElems; ++i)
    x[i] = 5 - 11 * i;
  s = session->runAsync({{reinterpret_cast<uint64_t>(x.data()), kElems * 8}},
                        {out, {reinterpret_cast<uint64_t>(&kValue), 8}});
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(session->getLastRunCopyBytes(), static_cast<uint64_t>(kElems * 8 + 8));
  EXPECT_EQ(std::memcmp(reinterpret_cast<const void *>(out.address), x.data(), kElems * 8), 0);
  // Output x may not go anywhere else in the buffer it shares with input x.
  EXPECT_NE(session
                ->runAsync(
                    {in}, {{out.address + 8, kElems * 8}, {reinterpret_cast<uint64_t>(&kValue), 8}})
                .message.find("output 0 ('x'): its 65536 bytes at "),
            std::string::npos);
}
