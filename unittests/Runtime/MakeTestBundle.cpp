//===- MakeTestBundle.cpp - Writes a tiny bundle + test data for aicc-run -===//
//
// usage: aicc-make-test-bundle cpu|cuda CODE_FILE OUT_DIR
//
// CODE_FILE is the shared object built from testdata/add_kernel.c (cpu) or the
// cubin assembled from testdata/add_kernel.ptx (cuda). Writes:
//   OUT_DIR/add.aicc                  c = a + b over f32[1000]
//   OUT_DIR/test_data_set_{0,1}/      inputs and the expected output
//   OUT_DIR/bad_expected/             output_0 off by 0.01 in one element
//   OUT_DIR/bad_shape/                input_1 is f32[999]
//   OUT_DIR/add_short.aicc            the same kernel over a grid one block
//                                     short: c[768 ..] is never written
//   OUT_DIR/short_grid/               expects a + b, then zeros from 768 on:
//                                     passes on zero-filled memory only
//                                     (aicc-run --poison makes it fail)
//   OUT_DIR/add_sym.aicc              the add bundle with a symbolic dim
//                                     (format version 6): a, b, c are
//                                     f32[10 x n], n in [1, 100]; the launch
//                                     runs ceil(10 x n / 256) blocks (symgrid)
//   OUT_DIR/sym_{1,37,100}/           its test data at n = 1, 37, 100
//   OUT_DIR/sym_disagree/             a at n = 37, b at n = 38
//   OUT_DIR/sym_range/                a and b at n = 101
//   OUT_DIR/sym_multiple/             b f32[375], not a multiple of 10
// The expected outputs are computed here in double and rounded to f32, so they
// are independent of the kernels under test. Used by aicc-run-test.sh.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/ONNXData.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace aicc::runtime;

static constexpr int kN = 1000;

static HostTensor randomTensor(int64_t n, uint32_t seed) {
  HostTensor t = HostTensor::zeros(DType::f32, {n});
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < n; ++i)
    t.as<float>()[i] = dist(gen);
  return t;
}

static bool writeSet(const std::string &dir, const HostTensor &a,
                     const HostTensor &b, const HostTensor &c) {
  std::filesystem::create_directories(dir);
  for (auto [name, tensor] : {std::pair{"input_0.pb", &a},
                              std::pair{"input_1.pb", &b},
                              std::pair{"output_0.pb", &c}}) {
    Status s = writeTensorProtoFile(dir + "/" + name, *tensor);
    if (!s.ok) {
      std::fprintf(stderr, "%s\n", s.message.c_str());
      return false;
    }
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc != 4 || (std::string(argv[1]) != "cpu" &&
                    std::string(argv[1]) != "cuda")) {
    std::fprintf(stderr, "usage: %s cpu|cuda CODE_FILE OUT_DIR\n", argv[0]);
    return 2;
  }
  const bool cuda = std::string(argv[1]) == "cuda";
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream code;
  code << in.rdbuf();
  if (!in || code.str().empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  const std::string outDir = argv[3];
  std::filesystem::create_directories(outDir);

  Bundle b;
  b.target = cuda ? "sm_90" : "cpu";
  b.buffers.push_back({0, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  b.buffers.push_back({1, DType::f32, BufferKind::input, kN * 4, {kN}, 0});
  b.buffers.push_back({2, DType::f32, BufferKind::output, kN * 4, {kN}, 0});
  b.inputs.push_back({0, 0, "a"});
  b.inputs.push_back({1, 1, "b"});
  b.outputs.push_back({0, 2, "c"});
  b.kernels.push_back({"add", {4, 1, 1}, {cuda ? 256 : 1, 1, 1}, 0, 3});
  // What the add kernel's code takes: three f32[1000].
  b.kernels.back().params.assign(3, {DType::f32, kN * 4});
  b.launches.push_back({"add", {0, 1, 2}});
  b.code = code.str();
  if (Status s = validateBundle(b); !s.ok) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  std::ofstream(outDir + "/add.aicc", std::ios::binary) << serializeBundle(b);
  // Blocks of 256 elements (both kernels): three cover [0, 768).
  constexpr int kShortCovered = 768;
  b.kernels[0].grid = {3, 1, 1};
  std::ofstream(outDir + "/add_short.aicc", std::ios::binary) << serializeBundle(b);

  // The symbolic version (docs/symbolic-shapes.md): dim 0 of a, b and c is 10 x n.
  b.kernels[0].grid = {4, 1, 1};
  b.symbols.push_back({"n", 1, 100, 0});
  for (int i = 0; i < 3; ++i)
    b.symDims.push_back({i, 0, 0, 10, 0});
  b.symGrids.push_back({0, 0, 0, 10, 256, 1, 0}); // blocks of 256 elements
  if (Status s = validateBundle(b); !s.ok) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  std::ofstream(outDir + "/add_sym.aicc", std::ios::binary) << serializeBundle(b);
  auto sum = [](const HostTensor &x, const HostTensor &y) {
    HostTensor z = HostTensor::zeros(DType::f32, x.shape);
    for (int64_t i = 0; i < x.numElements(); ++i)
      z.as<float>()[i] = static_cast<float>(double(x.as<float>()[i]) + double(y.as<float>()[i]));
    return z;
  };
  for (int64_t n : {1, 37, 100}) {
    HostTensor x = randomTensor(10 * n, 300 + n), y = randomTensor(10 * n, 400 + n);
    if (!writeSet(outDir + "/sym_" + std::to_string(n), x, y, sum(x, y)))
      return 1;
  }
  HostTensor a37 = randomTensor(370, 1), b38 = randomTensor(380, 2), a101 = randomTensor(1010, 3);
  if (!writeSet(outDir + "/sym_disagree", a37, b38, a37) ||
      !writeSet(outDir + "/sym_range", a101, a101, sum(a101, a101)) ||
      !writeSet(outDir + "/sym_multiple", a37, randomTensor(375, 4), a37))
    return 1;

  for (int set = 0; set < 2; ++set) {
    HostTensor x = randomTensor(kN, 100 + set), y = randomTensor(kN, 200 + set);
    HostTensor sum = HostTensor::zeros(DType::f32, {kN});
    for (int i = 0; i < kN; ++i)
      sum.as<float>()[i] =
          static_cast<float>(double(x.as<float>()[i]) + double(y.as<float>()[i]));
    if (!writeSet(outDir + "/test_data_set_" + std::to_string(set), x, y, sum))
      return 1;
    if (set == 0) {
      HostTensor off = sum;
      off.as<float>()[kN / 2] += 0.01f;
      if (!writeSet(outDir + "/bad_expected", x, y, off))
        return 1;
      if (!writeSet(outDir + "/bad_shape", x, randomTensor(kN - 1, 3), sum))
        return 1;
      HostTensor shortSum = sum;
      for (int i = kShortCovered; i < kN; ++i)
        shortSum.as<float>()[i] = 0.0f;
      if (!writeSet(outDir + "/short_grid", x, y, shortSum))
        return 1;
    }
  }
  return 0;
}
