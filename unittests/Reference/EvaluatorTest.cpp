//===- EvaluatorTest.cpp - the reference evaluator against hand-computed values ----===//
//
// Each test parses a small graph-dialect function, evaluates it and checks the result
// against values worked out by hand (or from a closed form, cited next to it).
//
//===----------------------------------------------------------------------===//
#include "aicc/Reference/Evaluator.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace aicc::reference;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// A context with the graph and func dialects that records diagnostics.
class EvaluatorTest : public ::testing::Test {
protected:
  EvaluatorTest() {
    ctx.loadDialect<aicc::graph::GraphDialect, func::FuncDialect>();
    ctx.allowUnregisteredDialects();
  }

  /// Parses `src` (one module) and evaluates its first function on `args`.
  FailureOr<std::vector<Tensor>> run(StringRef src, std::vector<Tensor> args,
                                     EvalOptions options = {}) {
    module = parseSourceString<ModuleOp>(src, &ctx);
    if (!module)
      return failure();
    auto fn = *module->getOps<func::FuncOp>().begin();
    Evaluator eval(options);
    if (observer)
      eval.setObserver(observer);
    return eval.run(fn, args);
  }

  /// Like run() for a one-result function; fails the test on error.
  Tensor run1(StringRef src, std::vector<Tensor> args, EvalOptions options = {}) {
    auto r = run(src, std::move(args), options);
    EXPECT_TRUE(succeeded(r)) << diags;
    if (failed(r) || r->size() != 1)
      return Tensor();
    return (*r)[0];
  }

  Type f32() { return Float32Type::get(&ctx); }
  Type f16() { return Float16Type::get(&ctx); }
  Type i(unsigned w) { return IntegerType::get(&ctx, w); }
  Type u(unsigned w) { return IntegerType::get(&ctx, w, IntegerType::Unsigned); }

  Tensor floats(Type t, ArrayRef<int64_t> shape, std::vector<double> v) {
    Tensor x = Tensor::zeros(t, shape);
    x.floats = std::move(v);
    return x;
  }
  Tensor ints(Type t, ArrayRef<int64_t> shape, std::vector<int64_t> v) {
    Tensor x = Tensor::zeros(t, shape);
    x.ints = std::move(v);
    return x;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  OpObserver observer;
  std::string diags;
  ScopedDiagnosticHandler handler{&ctx, [this](Diagnostic &d) {
                                    llvm::raw_string_ostream os(diags);
                                    os << d.getLocation() << ": " << d << "\n";
                                    return success();
                                  }};
};

void expectFloats(const Tensor &t, ArrayRef<int64_t> shape, std::vector<double> expected,
                  double tol = 1e-12) {
  ASSERT_EQ(ArrayRef<int64_t>(t.shape), shape);
  ASSERT_EQ(t.floats.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(t.floats[i])) << "element " << i << " = " << t.floats[i];
    else if (std::isinf(expected[i]))
      EXPECT_EQ(t.floats[i], expected[i]) << "element " << i;
    else
      EXPECT_NEAR(t.floats[i], expected[i], tol * std::max(1.0, std::fabs(expected[i])))
          << "element " << i;
  }
}

void expectInts(const Tensor &t, ArrayRef<int64_t> shape, std::vector<int64_t> expected) {
  ASSERT_EQ(ArrayRef<int64_t>(t.shape), shape);
  EXPECT_EQ(t.ints, expected);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, BroadcastingArithmetic) {
  Tensor r = run1(R"(
    func.func @f(%a: tensor<2x3xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
      %0 = graph.add %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      %1 = graph.mul %0, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      %2 = graph.sub %1, %a : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
      %3 = graph.div %2, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      return %3 : tensor<2x3xf64>
    })",
                  {floats(Float64Type::get(&ctx), {2, 3}, {1, 2, 3, 4, 5, 6}),
                   floats(Float64Type::get(&ctx), {3}, {10, 20, 40})});
  // ((a + b) * b - a) / b: row 0: (11*10-1)/10, (22*20-2)/20, (43*40-3)/40.
  expectFloats(r, {2, 3}, {10.9, 21.9, 42.925, 13.6, 24.75, 45.85});
}

TEST_F(EvaluatorTest, IntegerArithmeticWrapsAndTruncates) {
  auto r = run(R"(
    func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %0 = graph.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %1 = graph.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %2 = graph.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %3 = graph.mod %a, %b {fmod = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
    })",
               {ints(i(32), {4}, {2147483647, -7, 7, -7}), ints(i(32), {4}, {1, 2, -3, -3})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {4}, {-2147483648LL, -5, 4, -10}); // 2^31 - 1 + 1 wraps
  expectInts((*r)[1], {4}, {2147483647, -3, -2, 2});     // toward zero
  expectInts((*r)[2], {4}, {0, 1, -2, -1});              // sign of the divisor
  expectInts((*r)[3], {4}, {0, -1, 1, -1});              // sign of the dividend
}

TEST_F(EvaluatorTest, UnsignedWrapsModulo256) {
  Tensor r = run1(R"(
    func.func @f(%a: tensor<2xui8>, %b: tensor<2xui8>) -> tensor<2xui8> {
      %0 = graph.sub %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
      return %0 : tensor<2xui8>
    })",
                  {ints(u(8), {2}, {3, 250}), ints(u(8), {2}, {5, 10})});
  expectInts(r, {2}, {254, 240});
}

TEST_F(EvaluatorTest, IntegerDivisionByZeroFailsLoudly) {
  auto r = run(R"(
    func.func @f(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
      %0 = graph.div %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64> loc("Div_7")
      return %0 : tensor<2xi64>
    })",
               {ints(i(64), {2}, {1, 2}), ints(i(64), {2}, {1, 0})});
  EXPECT_TRUE(failed(r));
  EXPECT_NE(diags.find("loc(\"Div_7\"): reference evaluator: integer division by zero (2, 0) at "
                       "result element 1"),
            std::string::npos)
      << diags;
}

TEST_F(EvaluatorTest, FloatUnaryOps) {
  Tensor x = floats(Float64Type::get(&ctx), {5}, {-2, -0.5, 0, 0.5, 2.5});
  auto unary = [&](StringRef op, StringRef attrs = "") {
    std::string src = ("func.func @f(%x: tensor<5xf64>) -> tensor<5xf64> {\n  %0 = graph." + op +
                       " %x " + attrs + " : tensor<5xf64>\n  return %0 : tensor<5xf64>\n}")
                          .str();
    return run1(src, {x});
  };
  expectFloats(unary("relu"), {5}, {0, 0, 0, 0.5, 2.5});
  expectFloats(unary("round"), {5}, {-2, -0.0, 0, 0, 2}); // halves to even
  expectFloats(unary("ceil"), {5}, {-2, -0.0, 0, 1, 3});
  expectFloats(unary("floor"), {5}, {-2, -1, 0, 0, 2});
  expectFloats(unary("sigmoid"), {5},
               {1 / (1 + std::exp(2.0)), 1 / (1 + std::exp(0.5)), 0.5, 1 / (1 + std::exp(-0.5)),
                1 / (1 + std::exp(-2.5))});
  expectFloats(unary("leaky_relu", "{alpha = 0.1 : f64}"), {5}, {-0.2, -0.05, 0, 0.5, 2.5});
  expectFloats(unary("hard_sigmoid", "{alpha = 0.2 : f64, beta = 0.5 : f64}"), {5},
               {0.1, 0.4, 0.5, 0.6, 1.0});
  expectFloats(unary("shrink", "{lambd = 1.0 : f64, bias = 0.5 : f64}"), {5}, {-1.5, 0, 0, 0, 2.0});
  expectFloats(unary("hard_swish"), {5},
               {-2 * (1.0 / 6), -0.5 * (5.0 / 12), 0, 0.5 * (7.0 / 12), 2.5 * (11.0 / 12)});
  expectFloats(unary("softsign"), {5}, {-2.0 / 3, -0.5 / 1.5, 0, 0.5 / 1.5, 2.5 / 3.5});
  expectFloats(unary("softplus"), {5},
               {std::log(1 + std::exp(-2.0)), std::log(1 + std::exp(-0.5)), std::log(2.0),
                std::log(1 + std::exp(0.5)), std::log(1 + std::exp(2.5))});
  expectFloats(unary("elu", "{alpha = 2.0 : f64}"), {5},
               {2 * (std::exp(-2.0) - 1), 2 * (std::exp(-0.5) - 1), 0, 0.5, 2.5});
  expectFloats(unary("sign"), {5}, {-1, -1, 0, 1, 1});
  expectFloats(unary("abs"), {5}, {2, 0.5, 0, 0.5, 2.5});
  // GELU(x) = x * Phi(x); Phi(-2) = 0.022750131948179195, Phi(0.5) = 0.6914624612740131.
  Tensor g = unary("gelu");
  EXPECT_NEAR(g.floats[0], -2 * 0.022750131948179195, 1e-15);
  EXPECT_NEAR(g.floats[3], 0.5 * 0.6914624612740131, 1e-15);
}

TEST_F(EvaluatorTest, SoftplusDoesNotOverflowAndNaNPropagates) {
  Tensor r = run1(R"(
    func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
      %0 = graph.softplus %x : tensor<3xf64>
      return %0 : tensor<3xf64>
    })",
                  {floats(Float64Type::get(&ctx), {3}, {1000, -1000, kNaN})});
  expectFloats(r, {3}, {1000, 0, kNaN});
}

TEST_F(EvaluatorTest, MinMaxPropagateNaN) {
  auto r = run(R"(
    func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = graph.min %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %1 = graph.max %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %0, %1 : tensor<2xf32>, tensor<2xf32>
    })",
               {floats(f32(), {2}, {1, kNaN}), floats(f32(), {2}, {2, 3})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {2}, {1, kNaN});
  expectFloats((*r)[1], {2}, {2, kNaN});
}

TEST_F(EvaluatorTest, CompareLogicWhereAndNot) {
  auto r = run(R"(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
      %lt = graph.less %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %eq = graph.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %ne = graph.not %eq : tensor<4xi1>
      %x = graph.xor %lt, %ne : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
      %w = graph.where %lt, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %lt, %x, %w : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
    })",
               {floats(f32(), {4}, {1, 2, 3, kNaN}), floats(f32(), {4}, {2, 2, 1, 0})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {4}, {1, 0, 0, 0}); // NaN < 0 is false
  expectInts((*r)[1], {4}, {0, 0, 1, 1}); // less xor not-equal: true only where a > b or NaN
  expectFloats((*r)[2], {4}, {1, 2, 1, 0});
}

TEST_F(EvaluatorTest, CastRoundsTruncatesAndConvertsBools) {
  auto r = run(R"(
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<4xi8>) {
      %0 = graph.cast %x : tensor<4xf32> -> tensor<4xi32>
      %1 = graph.cast %x : tensor<4xf32> -> tensor<4xf16>
      %2 = graph.cast %x : tensor<4xf32> -> tensor<4xi1>
      %3 = graph.cast %0 : tensor<4xi32> -> tensor<4xi8>
      return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<4xi8>
    })",
               {floats(f32(), {4}, {-1.75, 0, 1 + std::ldexp(1.0, -11), 300.5})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {4}, {-1, 0, 1, 300});
  // f16 has 10 fraction bits: 1 + 2^-11 is a tie between 1 and 1 + 2^-10 -> even (1).
  expectFloats((*r)[1], {4}, {-1.75, 0, 1, 300.5});
  expectInts((*r)[2], {4}, {1, 0, 1, 1});
  expectInts((*r)[3], {4}, {-1, 0, 1, 44}); // 300 mod 256
}

TEST_F(EvaluatorTest, RoundingToTheDeclaredTypeIsAnOption) {
  const char *src = R"(
    func.func @f(%a: tensor<1xf32>, %b: tensor<1xf32>) -> tensor<1xf32> {
      %0 = graph.add %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      %1 = graph.sub %0, %a : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      return %1 : tensor<1xf32>
    })";
  double tiny = std::ldexp(1.0, -30);
  std::vector<Tensor> args = {floats(f32(), {1}, {1}), floats(f32(), {1}, {tiny})};
  EXPECT_EQ(run1(src, args).floats, std::vector<double>{0}); // 1 + 2^-30 is 1 in f32
  EvalOptions exact;
  exact.roundToElementType = false;
  EXPECT_EQ(run1(src, args, exact).floats, std::vector<double>{tiny});
}

TEST_F(EvaluatorTest, ClipWithAndWithoutBounds) {
  auto r = run(R"(
    func.func @f(%x: tensor<3xf32>, %i: tensor<3xi64>) -> (tensor<3xf32>, tensor<3xi64>) {
      %0 = graph.clip %x {min = -1.0 : f64} : tensor<3xf32>
      %1 = graph.clip %i {min = 0.0 : f64, max = 5.0 : f64} : tensor<3xi64>
      return %0, %1 : tensor<3xf32>, tensor<3xi64>
    })",
               {floats(f32(), {3}, {-3, 0.5, 100}), ints(i(64), {3}, {-3, 2, 9})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {3}, {-1, 0.5, 100});
  expectInts((*r)[1], {3}, {0, 2, 5});
}

//===----------------------------------------------------------------------===//
// Reductions, softmax, layer norm
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, Reductions) {
  auto r = run(R"(
    func.func @f(%x: tensor<2x3xf64>) -> (tensor<2xf64>, tensor<1x3xf64>, tensor<f64>, tensor<2x1xf64>, tensor<2xf64>) {
      %0 = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf64>) -> tensor<2xf64>
      %1 = graph.reduce_mean %x {axes = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<1x3xf64>
      %2 = graph.reduce_max %x {axes = array<i64>, keepdims = false} : (tensor<2x3xf64>) -> tensor<f64>
      %3 = graph.reduce_min %x {axes = array<i64: 1>} : (tensor<2x3xf64>) -> tensor<2x1xf64>
      %4 = graph.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf64>) -> tensor<2xf64>
      return %0, %1, %2, %3, %4 : tensor<2xf64>, tensor<1x3xf64>, tensor<f64>, tensor<2x1xf64>, tensor<2xf64>
    })",
               {floats(Float64Type::get(&ctx), {2, 3}, {1, -2, 3, 4, 5, -6})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {2}, {2, 3});
  expectFloats((*r)[1], {1, 3}, {2.5, 1.5, -1.5});
  expectFloats((*r)[2], {}, {5});
  expectFloats((*r)[3], {2, 1}, {-2, -6});
  expectFloats((*r)[4], {2}, {-6, -120});
}

TEST_F(EvaluatorTest, SoftmaxAndLogSoftmaxAlongAnAxis) {
  auto r = run(R"(
    func.func @f(%x: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {
      %0 = graph.softmax %x {axis = 0 : i64} : tensor<3x2xf64>
      %1 = graph.log_softmax %x {axis = 0 : i64} : tensor<3x2xf64>
      return %0, %1 : tensor<3x2xf64>, tensor<3x2xf64>
    })",
               {floats(Float64Type::get(&ctx), {3, 2}, {1, 1000, 2, 1000, 3, 1000})});
  ASSERT_TRUE(succeeded(r)) << diags;
  // softmax([1, 2, 3]) = e^(i - 3) / (1 + e^-1 + e^-2); a constant column gives 1/3.
  double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  expectFloats((*r)[0], {3, 2},
               {std::exp(-2.0) / z, 1.0 / 3, std::exp(-1.0) / z, 1.0 / 3, 1 / z, 1.0 / 3});
  expectFloats((*r)[1], {3, 2},
               {-2 - std::log(z), -std::log(3.0), -1 - std::log(z), -std::log(3.0), -std::log(z),
                -std::log(3.0)});
}

TEST_F(EvaluatorTest, LayerNormWithScaleAndBias) {
  Tensor r = run1(R"(
    func.func @f(%x: tensor<2x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
      %0 = graph.layer_norm %x scale %s bias %b {axis = 1 : i64, epsilon = 0.0 : f64} : (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
      return %0 : tensor<2x4xf64>
    })",
                  {floats(Float64Type::get(&ctx), {2, 4}, {1, 2, 3, 4, 2, 2, 2, 6}),
                   floats(Float64Type::get(&ctx), {4}, {1, 1, 2, 2}),
                   floats(Float64Type::get(&ctx), {4}, {0, 10, 0, 10})});
  // Row 0: mean 2.5, var 1.25; row 1: mean 3, var 3.
  double s0 = 1 / std::sqrt(1.25), s1 = 1 / std::sqrt(3.0);
  expectFloats(r, {2, 4},
               {-1.5 * s0, -0.5 * s0 + 10, 0.5 * s0 * 2, 1.5 * s0 * 2 + 10, -1 * s1, -1 * s1 + 10,
                -1 * s1 * 2, 3 * s1 * 2 + 10});
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, MatMulBatchedBroadcastAndVectors) {
  Type f64 = Float64Type::get(&ctx);
  auto r = run(R"(
    func.func @f(%a: tensor<2x1x2x3xf64>, %b: tensor<3x2xf64>, %v: tensor<3xf64>) -> (tensor<2x1x2x2xf64>, tensor<2x1x2xf64>) {
      %0 = graph.matmul %a, %b : (tensor<2x1x2x3xf64>, tensor<3x2xf64>) -> tensor<2x1x2x2xf64>
      %1 = graph.matmul %a, %v : (tensor<2x1x2x3xf64>, tensor<3xf64>) -> tensor<2x1x2xf64>
      return %0, %1 : tensor<2x1x2x2xf64>, tensor<2x1x2xf64>
    })",
               {floats(f64, {2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, -1, 0, 1, 0, 0, 0}),
                floats(f64, {3, 2}, {1, 0, 0, 1, 1, 1}), floats(f64, {3}, {1, 10, 100})});
  ASSERT_TRUE(succeeded(r)) << diags;
  // [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11]; [-1 0 1; 0 0 0] x ... = [0 1; 0 0].
  expectFloats((*r)[0], {2, 1, 2, 2}, {4, 5, 10, 11, 0, 1, 0, 0});
  expectFloats((*r)[1], {2, 1, 2}, {321, 654, 99, 0});
}

TEST_F(EvaluatorTest, GemmTransposesScalesAndBroadcastsC) {
  Type f64 = Float64Type::get(&ctx);
  Tensor r = run1(R"(
    func.func @f(%a: tensor<3x2xf64>, %b: tensor<2x3xf64>, %c: tensor<2xf64>) -> tensor<2x2xf64> {
      %0 = graph.gemm %a, %b, %c {transA = true, transB = true, alpha = 2.0 : f32, beta = 0.5 : f32} : (tensor<3x2xf64>, tensor<2x3xf64>, tensor<2xf64>) -> tensor<2x2xf64>
      return %0 : tensor<2x2xf64>
    })",
                  {floats(f64, {3, 2}, {1, 4, 2, 5, 3, 6}), floats(f64, {2, 3}, {1, 0, 1, 0, 1, 0}),
                   floats(f64, {2}, {10, 20})});
  // A^T = [1 2 3; 4 5 6], B^T = [1 0; 0 1; 1 0]: A^T B^T = [4 2; 10 5].
  expectFloats(r, {2, 2}, {2 * 4 + 5, 2 * 2 + 10, 2 * 10 + 5, 2 * 5 + 10});
}

TEST_F(EvaluatorTest, ConvWithPaddingStrideAndGroups) {
  Type f64 = Float64Type::get(&ctx);
  // X: 1x2x3x3 (channel 0: 1..9, channel 1: all 1); W: 2x1x2x2 ones (group 2).
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  Tensor r =
      run1(R"(
    func.func @f(%x: tensor<1x2x3x3xf64>, %w: tensor<2x1x2x2xf64>, %b: tensor<2xf64>) -> tensor<1x2x2x2xf64> {
      %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x3x3xf64>, tensor<2x1x2x2xf64>, tensor<2xf64>) -> tensor<1x2x2x2xf64>
      return %0 : tensor<1x2x2x2xf64>
    })",
           {floats(f64, {1, 2, 3, 3}, x), floats(f64, {2, 1, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1}),
            floats(f64, {2}, {0, 100})});
  // Windows start at (-1,-1), (-1,1), (1,-1), (1,1): channel 0 sums 1, 2+3, 4+7, 5+6+8+9.
  expectFloats(r, {1, 2, 2, 2}, {1, 5, 11, 28, 101, 102, 102, 104});
}

/// `t` (row-major, of `shape`) transposed by `perm`: result dim i = input dim perm[i].
std::vector<double> transposed(const std::vector<double> &t, ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> perm) {
  size_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1), outShape;
  for (size_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  std::vector<double> out(t.size());
  SmallVector<int64_t> idx(rank, 0);
  for (size_t i = 0; i < t.size(); ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d)
      src += idx[d] * strides[perm[d]];
    out[i] = t[src];
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

// graph.conv layout "NHWC" (GraphOps.td) is the NCHW conv with X and W transposed by
// [0, 2, 3, 1] and Y by [0, 3, 1, 2]: random X, W, B; stride, asymmetric pads, dilation,
// a non-square kernel; group 1 and group 2. Same sums in the same order: equal bits.
TEST_F(EvaluatorTest, ConvNHWCEqualsTransposedNCHW) {
  Type f64 = Float64Type::get(&ctx);
  uint64_t state = 12345;
  auto random = [&] { // 64-bit LCG (Knuth, MMIX), top 53 bits to [-1, 1).
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / double(1ULL << 53) * 2 - 1;
  };
  for (int64_t group : {1, 2}) {
    const int64_t N = 2, C = 4, H = 7, W = 6, M = 6, KH = 3, KW = 2, OH = 4, OW = 5;
    std::vector<double> x(N * C * H * W), w(M * (C / group) * KH * KW), b(M);
    for (auto *vec : {&x, &w, &b})
      for (double &v : *vec)
        v = random();
    // OH = (7 + 1 + 0 - 3) / 2 + 1 = 4 (pads H 1/0, stride 2); OW = (6 + 0 + 1 - 3) / 1 + 1
    // = 5 (pads W 0/1, dilation 2: span 3).
    std::string attrs = "{strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 0, 1>, "
                        "dilations = array<i64: 1, 2>, group = " +
                        std::to_string(group) + " : i64";
    std::string cg = std::to_string(C / group);
    std::string nchw = R"(
      func.func @f(%x: tensor<2x4x7x6xf64>, %w: tensor<6x)" + cg + R"(x3x2xf64>, %b: tensor<6xf64>) -> tensor<2x6x4x5xf64> {
        %0 = graph.conv %x, %w, %b )" + attrs + R"(} : (tensor<2x4x7x6xf64>, tensor<6x)" + cg + R"(x3x2xf64>, tensor<6xf64>) -> tensor<2x6x4x5xf64>
        return %0 : tensor<2x6x4x5xf64>
      })";
    std::string nhwc = R"(
      func.func @f(%x: tensor<2x7x6x4xf64>, %w: tensor<6x3x2x)" + cg + R"(xf64>, %b: tensor<6xf64>) -> tensor<2x4x5x6xf64> {
        %0 = graph.conv %x, %w, %b )" + attrs + R"(, layout = "NHWC"} : (tensor<2x7x6x4xf64>, tensor<6x3x2x)" + cg + R"(xf64>, tensor<6xf64>) -> tensor<2x4x5x6xf64>
        return %0 : tensor<2x4x5x6xf64>
      })";
    Tensor ref = run1(nchw, {floats(f64, {N, C, H, W}, x), floats(f64, {M, C / group, KH, KW}, w),
                             floats(f64, {M}, b)});
    ASSERT_EQ(ArrayRef<int64_t>(ref.shape), ArrayRef<int64_t>({N, M, OH, OW}));
    Tensor r = run1(nhwc, {floats(f64, {N, H, W, C}, transposed(x, {N, C, H, W}, {0, 2, 3, 1})),
                           floats(f64, {M, KH, KW, C / group},
                                  transposed(w, {M, C / group, KH, KW}, {0, 2, 3, 1})),
                           floats(f64, {M}, b)});
    expectFloats(r, {N, OH, OW, M}, transposed(ref.floats, {N, M, OH, OW}, {0, 2, 3, 1}), 0.0);
  }
}

TEST_F(EvaluatorTest, PoolsCountPaddingAsAsked) {
  Type f64 = Float64Type::get(&ctx);
  Tensor x = floats(f64, {1, 1, 2, 2}, {1, 2, 3, 4});
  const char *src = R"(
    func.func @f(%x: tensor<1x1x2x2xf64>) -> (tensor<1x1x2x2xf64>, tensor<1x1x2x2xf64>, tensor<1x1x2x2xf64>) {
      %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x2x2xf64> -> tensor<1x1x2x2xf64>
      %1 = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x2x2xf64> -> tensor<1x1x2x2xf64>
      %2 = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : tensor<1x1x2x2xf64> -> tensor<1x1x2x2xf64>
      return %0, %1, %2 : tensor<1x1x2x2xf64>, tensor<1x1x2x2xf64>, tensor<1x1x2x2xf64>
    })";
  auto r = run(src, {x});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {1, 1, 2, 2}, {1, 2, 3, 4});
  expectFloats((*r)[1], {1, 1, 2, 2}, {1, 1.5, 2, 2.5});
  expectFloats((*r)[2], {1, 1, 2, 2}, {0.25, 0.75, 1, 2.5});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, TransposeSliceConcatTileExpandReshape) {
  Tensor x = floats(f32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run(R"(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<2x2x3xf32>, tensor<6xf32>) {
      %0 = graph.transpose %x, [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %1 = graph.slice %x {starts = array<i64: 1, 2>, steps = array<i64: -1, -2>} : tensor<2x3xf32> -> tensor<2x2xf32>
      %2 = graph.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
      %3 = graph.tile %x : tensor<2x3xf32> -> tensor<2x6xf32>
      %4 = graph.expand %x : tensor<2x3xf32> -> tensor<2x2x3xf32>
      %5 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<4x3xf32>, tensor<2x6xf32>, tensor<2x2x3xf32>, tensor<6xf32>
    })",
               {x});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {3, 2}, {1, 4, 2, 5, 3, 6});
  expectFloats((*r)[1], {2, 2}, {6, 4, 3, 1});
  expectFloats((*r)[2], {4, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  expectFloats((*r)[3], {2, 6}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
  expectFloats((*r)[4], {2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  expectFloats((*r)[5], {6}, {1, 2, 3, 4, 5, 6});
}

TEST_F(EvaluatorTest, PadModes) {
  Tensor x = ints(i(64), {3}, {1, 2, 3});
  auto r = run(R"(
    func.func @f(%x: tensor<3xi64>) -> (tensor<7xi64>, tensor<7xi64>, tensor<7xi64>) {
      %0 = graph.pad %x {low = array<i64: 2>, high = array<i64: 2>, value = 9.0 : f64} : tensor<3xi64> -> tensor<7xi64>
      %1 = graph.pad %x {low = array<i64: 2>, high = array<i64: 2>, mode = "reflect"} : tensor<3xi64> -> tensor<7xi64>
      %2 = graph.pad %x {low = array<i64: 2>, high = array<i64: 2>, mode = "edge"} : tensor<3xi64> -> tensor<7xi64>
      return %0, %1, %2 : tensor<7xi64>, tensor<7xi64>, tensor<7xi64>
    })",
               {x});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {7}, {9, 9, 1, 2, 3, 9, 9});
  expectInts((*r)[1], {7}, {3, 2, 1, 2, 3, 2, 1});
  expectInts((*r)[2], {7}, {1, 1, 1, 2, 3, 3, 3});
}

TEST_F(EvaluatorTest, GatherGatherElementsAndTrilu) {
  Tensor x = floats(f32(), {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto r = run(R"(
    func.func @f(%x: tensor<3x3xf32>, %i: tensor<2xi64>, %j: tensor<1x3xi64>) -> (tensor<3x2xf32>, tensor<1x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
      %0 = graph.gather %x, %i {axis = 1 : i64} : (tensor<3x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
      %1 = graph.gather_elements %x, %j {axis = 0 : i64} : (tensor<3x3xf32>, tensor<1x3xi64>) -> tensor<1x3xf32>
      %2 = graph.trilu %x {k = 1 : i64, upper = true} : tensor<3x3xf32>
      %3 = graph.trilu %x {k = -1 : i64, upper = false} : tensor<3x3xf32>
      return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<1x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
    })",
               {x, ints(i(64), {2}, {-1, 0}), ints(i(64), {1, 3}, {2, 0, -2})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {3, 2}, {3, 1, 6, 4, 9, 7});
  expectFloats((*r)[1], {1, 3}, {7, 2, 6});
  expectFloats((*r)[2], {3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0});
  expectFloats((*r)[3], {3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
}

TEST_F(EvaluatorTest, GatherIndexOutOfRangeFailsLoudly) {
  auto r = run(R"(
    func.func @f(%x: tensor<3xf32>, %i: tensor<1xi64>) -> tensor<1xf32> {
      %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<3xf32>, tensor<1xi64>) -> tensor<1xf32> loc("Gather_2")
      return %0 : tensor<1xf32>
    })",
               {floats(f32(), {3}, {1, 2, 3}), ints(i(64), {1}, {3})});
  EXPECT_TRUE(failed(r));
  EXPECT_NE(diags.find("loc(\"Gather_2\"): reference evaluator: index 3 out of range [-3, 3)"),
            std::string::npos)
      << diags;
}

// ONNX operator spec, ScatterElements-18 examples (none, axis 0; add, axis 1) and duplicate
// indices folded in order with mul / max / min; integer adds wrap.
TEST_F(EvaluatorTest, ScatterElementsReductions) {
  auto r = run(R"(
    func.func @f(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>, %d2: tensor<1x5xf32>, %i2: tensor<1x2xi64>, %u2: tensor<1x2xf32>) -> (tensor<3x3xf32>, tensor<1x5xf32>) {
      %0 = graph.scatter_elements %d, %i, %u {axis = 0 : i64} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
      %1 = graph.scatter_elements %d2, %i2, %u2 {axis = 1 : i64, reduction = "add"} : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
      return %0, %1 : tensor<3x3xf32>, tensor<1x5xf32>
    })",
               {floats(f32(), {3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0}),
                ints(i(64), {2, 3}, {1, 0, 2, 0, 2, 1}),
                floats(f32(), {2, 3}, {1, 1.5, 1.25, 2, 2.5, 2.25}),
                floats(f32(), {1, 5}, {1, 2, 3, 4, 5}), ints(i(64), {1, 2}, {1, 1}),
                floats(f32(), {1, 2}, {1.5, 2.25})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {3, 3}, {2, 1.5, 0, 1, 0, 2.25, 0, 2.5, 1.25});
  expectFloats((*r)[1], {1, 5}, {1, 5.75, 3, 4, 5});

  auto q = run(R"(
    func.func @f(%d: tensor<4xi32>, %i: tensor<4xi64>, %u: tensor<4xi32>, %d8: tensor<2xui8>, %i8: tensor<2xi64>, %u8: tensor<2xui8>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xui8>) {
      %0 = graph.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = "mul"} : (tensor<4xi32>, tensor<4xi64>, tensor<4xi32>) -> tensor<4xi32>
      %1 = graph.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = "max"} : (tensor<4xi32>, tensor<4xi64>, tensor<4xi32>) -> tensor<4xi32>
      %2 = graph.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = "min"} : (tensor<4xi32>, tensor<4xi64>, tensor<4xi32>) -> tensor<4xi32>
      %3 = graph.scatter_elements %d8, %i8, %u8 {axis = 0 : i64, reduction = "add"} : (tensor<2xui8>, tensor<2xi64>, tensor<2xui8>) -> tensor<2xui8>
      return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<2xui8>
    })",
               {ints(i(32), {4}, {1, 2, 3, 4}), ints(i(64), {4}, {0, 0, 3, -1}),
                ints(i(32), {4}, {5, 7, 2, 1}), ints(u(8), {2}, {250, 9}),
                ints(i(64), {2}, {0, 0}), ints(u(8), {2}, {3, 4})});
  ASSERT_TRUE(succeeded(q)) << diags;
  expectInts((*q)[0], {4}, {35, 2, 3, 8}); // 1*5*7, 4*2*1 (-1 is index 3)
  expectInts((*q)[1], {4}, {7, 2, 3, 4});
  expectInts((*q)[2], {4}, {1, 2, 3, 1});
  expectInts((*q)[3], {2}, {1, 9}); // 250 + 3 + 4 = 257 wraps to 1
}

// ONNX operator spec, ScatterND-18 example 1 (none, 1-tuples into a vector); a row slice
// added at a 1-tuple; max at 2-tuples with a negative coordinate.
TEST_F(EvaluatorTest, ScatterNDSlicesAndReductions) {
  auto r = run(R"(
    func.func @f(%d: tensor<8xi64>, %i: tensor<4x1xi64>, %u: tensor<4xi64>, %m: tensor<2x2xf32>, %j: tensor<1x1xi64>, %v: tensor<1x2xf32>, %k: tensor<2x2xi64>, %w: tensor<2xf32>) -> (tensor<8xi64>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = graph.scatter_nd %d, %i, %u : (tensor<8xi64>, tensor<4x1xi64>, tensor<4xi64>) -> tensor<8xi64>
      %1 = graph.scatter_nd %m, %j, %v {reduction = "add"} : (tensor<2x2xf32>, tensor<1x1xi64>, tensor<1x2xf32>) -> tensor<2x2xf32>
      %2 = graph.scatter_nd %m, %k, %w {reduction = "max"} : (tensor<2x2xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x2xf32>
      return %0, %1, %2 : tensor<8xi64>, tensor<2x2xf32>, tensor<2x2xf32>
    })",
               {ints(i(64), {8}, {1, 2, 3, 4, 5, 6, 7, 8}), ints(i(64), {4, 1}, {4, 3, 1, 7}),
                ints(i(64), {4}, {9, 10, 11, 12}), floats(f32(), {2, 2}, {1, 2, 3, 4}),
                ints(i(64), {1, 1}, {1}), floats(f32(), {1, 2}, {10, 20}),
                ints(i(64), {2, 2}, {-1, 0, 0, 1}), floats(f32(), {2}, {5, 6})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {8}, {1, 11, 3, 10, 9, 6, 7, 12});
  expectFloats((*r)[1], {2, 2}, {1, 2, 13, 24});
  expectFloats((*r)[2], {2, 2}, {1, 6, 5, 4}); // [1][0] = max(3, 5), [0][1] = max(2, 6)
}

TEST_F(EvaluatorTest, ScatterIndexOutOfRangeFailsLoudly) {
  auto r = run(R"(
    func.func @f(%d: tensor<3xf32>, %i: tensor<1x1xi64>, %u: tensor<1xf32>) -> tensor<3xf32> {
      %0 = graph.scatter_nd %d, %i, %u : (tensor<3xf32>, tensor<1x1xi64>, tensor<1xf32>) -> tensor<3xf32> loc("ScatterND_1")
      return %0 : tensor<3xf32>
    })",
               {floats(f32(), {3}, {1, 2, 3}), ints(i(64), {1, 1}, {-4}), floats(f32(), {1}, {0})});
  EXPECT_TRUE(failed(r));
  EXPECT_NE(diags.find("loc(\"ScatterND_1\"): reference evaluator: index -4 out of range [-3, 3)"),
            std::string::npos)
      << diags;
}

// ONNX BitShift-11: logical shifts of uint8 with a broadcast shift; bits shifted out of the
// width are dropped (255 << 1 = 254), a shift by >= 8 gives 0.
TEST_F(EvaluatorTest, BitShiftLeftRightAndWideShifts) {
  auto r = run(R"(
    func.func @f(%x: tensor<4xui8>, %y: tensor<4xui8>, %s: tensor<1xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>) {
      %0 = graph.bit_shift %x, %y {direction = "left"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
      %1 = graph.bit_shift %x, %y {direction = "right"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
      %2 = graph.bit_shift %x, %s {direction = "right"} : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
      return %0, %1, %2 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>
    })",
               {ints(u(8), {4}, {16, 4, 1, 255}), ints(u(8), {4}, {1, 2, 8, 1}),
                ints(u(8), {1}, {2})});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectInts((*r)[0], {4}, {32, 16, 0, 254});
  expectInts((*r)[1], {4}, {8, 1, 0, 127});
  expectInts((*r)[2], {4}, {4, 1, 0, 63});
}

// ONNX RMSNormalization-23: y = x / sqrt(mean(x^2) + eps) * scale + bias, no mean
// subtracted. Row 0: mean(x^2) = 30 / 4 = 7.5; row 1: (4 + 4 + 4 + 36) / 4 = 12.
TEST_F(EvaluatorTest, LayerNormRmsDoesNotSubtractTheMean) {
  Tensor r = run1(R"(
    func.func @f(%x: tensor<2x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
      %0 = graph.layer_norm %x scale %s bias %b {axis = 1 : i64, epsilon = 0.0 : f64, rms = true} : (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
      return %0 : tensor<2x4xf64>
    })",
                  {floats(Float64Type::get(&ctx), {2, 4}, {1, 2, 3, 4, 2, 2, 2, 6}),
                   floats(Float64Type::get(&ctx), {4}, {1, 1, 2, 2}),
                   floats(Float64Type::get(&ctx), {4}, {0, 10, 0, 10})});
  double s0 = 1 / std::sqrt(7.5), s1 = 1 / std::sqrt(12.0);
  expectFloats(r, {2, 4},
               {1 * s0, 2 * s0 + 10, 3 * s0 * 2, 4 * s0 * 2 + 10, 2 * s1, 2 * s1 + 10, 2 * s1 * 2,
                6 * s1 * 2 + 10});
}

TEST_F(EvaluatorTest, PadWrapReadsModuloTheSize) {
  Tensor r = run1(R"(
    func.func @f(%x: tensor<3xi64>) -> tensor<8xi64> {
      %0 = graph.pad %x {low = array<i64: 2>, high = array<i64: 3>, mode = "wrap"} : tensor<3xi64> -> tensor<8xi64>
      return %0 : tensor<8xi64>
    })",
                  {ints(i(64), {3}, {1, 2, 3})});
  expectInts(r, {8}, {2, 3, 1, 2, 3, 1, 2, 3});
}

//===----------------------------------------------------------------------===//
// Driver: constants, fusion groups, observer, errors
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, ConstantsDenseSplatAndResource) {
  auto r = run(R"(
    func.func @f() -> (tensor<2xf32>, tensor<2x2xi32>, tensor<2xf16>, tensor<3xi1>) {
      %0 = graph.constant dense<[1.5, -2.0]> : tensor<2xf32>
      %1 = graph.constant dense<7> : tensor<2x2xi32>
      %2 = graph.constant dense_resource<half> : tensor<2xf16>
      %3 = graph.constant dense<[true, false, true]> : tensor<3xi1>
      return %0, %1, %2, %3 : tensor<2xf32>, tensor<2x2xi32>, tensor<2xf16>, tensor<3xi1>
    }
    {-#
      dialect_resources: {
        builtin: {
          half: "0x02000000003C00C0"
        }
      }
    #-})",
               {});
  ASSERT_TRUE(succeeded(r)) << diags;
  expectFloats((*r)[0], {2}, {1.5, -2});
  expectInts((*r)[1], {2, 2}, {7, 7, 7, 7});
  expectFloats((*r)[2], {2}, {1.0, -2.0}); // f16 0x3C00 = 1, 0xC000 = -2
  expectInts((*r)[3], {3}, {1, 0, 1});
}

TEST_F(EvaluatorTest, FusionGroupEvaluatesItsBodyAndTheObserverSeesEveryOp) {
  std::vector<std::string> seen;
  observer = [&](Operation *op, ArrayRef<Tensor> results) {
    seen.push_back(op->getName().getStringRef().str() + "=" + std::to_string(results[0].floats[0]));
  };
  Tensor r = run1(R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = graph.fusion_group "elementwise" (%x) : (tensor<2xf32>) -> tensor<2xf32> {
      ^bb0(%a: tensor<2xf32>):
        %1 = graph.neg %a : tensor<2xf32>
        %2 = graph.exp %1 : tensor<2xf32>
        graph.yield %2 : tensor<2xf32>
      }
      %3 = graph.relu %0 : tensor<2xf32>
      return %3 : tensor<2xf32>
    })",
                  {floats(f32(), {2}, {0, 1})});
  expectFloats(r, {2}, {1, double(float(std::exp(-1.0)))});
  EXPECT_EQ(seen, (std::vector<std::string>{"graph.neg=-0.000000", "graph.exp=1.000000",
                                            "graph.fusion_group=1.000000", "graph.relu=1.000000"}));
}

TEST_F(EvaluatorTest, UnknownOpFailsNamingItAndItsLocation) {
  auto r = run(R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "test.frobnicate"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("model.onnx":0:0)
      return %0 : tensor<2xf32>
    })",
               {floats(f32(), {2}, {0, 1})});
  EXPECT_TRUE(failed(r));
  EXPECT_NE(diags.find("reference evaluator: no implementation of 'test.frobnicate'"),
            std::string::npos)
      << diags;
  EXPECT_NE(diags.find("model.onnx"), std::string::npos) << diags;
}

TEST_F(EvaluatorTest, ArgumentsMustMatchTheSignature) {
  const char *src = R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    })";
  EXPECT_TRUE(failed(run(src, {floats(f32(), {3}, {0, 1, 2})})));
  EXPECT_NE(diags.find("argument 0 is 'tensor<3xf32>' but the IR says 'tensor<2xf32>'"),
            std::string::npos)
      << diags;
  diags.clear();
  EXPECT_TRUE(failed(run(src, {})));
  EXPECT_NE(diags.find("@f takes 1 argument(s), got 0"), std::string::npos) << diags;
}

//===----------------------------------------------------------------------===//
// Runtime tensors and comparison
//===----------------------------------------------------------------------===//
TEST_F(EvaluatorTest, HostTensorRoundTrip) {
  Type bf16 = BFloat16Type::get(&ctx);
  for (Type t : {f32(), f16(), bf16}) {
    Tensor x = floats(t, {3}, {1.5, -0.25, 65504});
    auto host = toHostTensor(x);
    ASSERT_TRUE(host);
    std::string error;
    auto back = fromHostTensor(*host, x.getType(), error);
    ASSERT_TRUE(back) << error;
    expectFloats(*back, {3}, {1.5, -0.25, t.isBF16() ? 65536.0 : 65504.0});
  }
  Tensor b = ints(i(1), {3}, {1, 0, 1});
  auto host = toHostTensor(b);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->dtype, aicc::runtime::DType::boolean);
  EXPECT_EQ(host->data, (std::vector<uint8_t>{1, 0, 1}));
  Tensor s = ints(i(8), {2}, {-1, 5});
  std::string error;
  auto back = fromHostTensor(*toHostTensor(s), s.getType(), error);
  ASSERT_TRUE(back) << error;
  expectInts(*back, {2}, {-1, 5});
  EXPECT_FALSE(fromHostTensor(*host, s.getType(), error));
  EXPECT_EQ(error, "expected i8[2], got bool[3]");
}

// 16- and 32-bit integers (signed and unsigned) have runtime dtypes; a legacy uint16 tensor
// holding bf16 bit patterns (test data from before ONNX's bfloat16 type) reads as bf16.
TEST_F(EvaluatorTest, HostTensorNarrowIntegersAndLegacyBF16) {
  for (Type t : {i(16), u(16), u(32)}) {
    Tensor x = ints(t, {2}, {t.isUnsignedInteger() ? 65535 : -2, 7});
    auto host = toHostTensor(x);
    ASSERT_TRUE(host) << "no runtime dtype";
    std::string error;
    auto back = fromHostTensor(*host, x.getType(), error);
    ASSERT_TRUE(back) << error;
    expectInts(*back, {2}, x.ints);
  }
  auto legacy = aicc::runtime::HostTensor::zeros(aicc::runtime::DType::u16, {2});
  legacy.data = {0x80, 0x3f, 0x00, 0xc0}; // bf16 0x3f80 = 1.0, 0xc000 = -2.0
  std::string error;
  auto back = fromHostTensor(legacy, RankedTensorType::get({2}, BFloat16Type::get(&ctx)), error);
  ASSERT_TRUE(back) << error;
  expectFloats(*back, {2}, {1.0, -2.0});
}

TEST_F(EvaluatorTest, CompareUsesAllcloseAndCountsMismatches) {
  Tensor ref = floats(Float64Type::get(&ctx), {4}, {1, 100, kNaN, kInf});
  Tensor got = floats(f32(), {4}, {1.00001, 100.5, kNaN, kInf});
  Comparison c = compare(got, ref, defaultTolerance(f32()));
  EXPECT_EQ(c.numMismatches, 1);
  EXPECT_EQ(c.firstMismatch, 1);
  EXPECT_NEAR(c.maxAbsErr, 0.5, 1e-12);
  EXPECT_NEAR(c.maxRelErr, 0.005, 1e-12);
  got.floats[2] = 0;
  c = compare(got, ref, {1, 1});
  EXPECT_EQ(c.numMismatches, 1);
  EXPECT_EQ(c.maxAbsErr, kInf);
  got.shape = {2, 2};
  EXPECT_FALSE(compare(got, ref, {1, 1}).problem.empty());
}

} // namespace
