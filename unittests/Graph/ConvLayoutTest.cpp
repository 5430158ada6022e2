//===- ConvLayoutTest.cpp - graph-conv-layout keeps the function's values --===//
//
// Evaluates a function with the float64 reference evaluator before and after
// graph-conv-layout (layout=nhwc, then layout=nchw back) on random inputs and constant
// weights: the rewrite (transposes around NHWC convs, constant weights folded to OHWI,
// transposes sunk below elementwise ops and cancelled) must not change any result.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Reference/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

#include <gtest/gtest.h>

using namespace mlir;
using namespace aicc;

namespace {

/// Deterministic values in [-1, 1) (64-bit LCG, Knuth's MMIX constants).
struct Random {
  uint64_t state = 42;
  double next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / double(1ULL << 53) * 2 - 1;
  }
};

/// A nested `[[...], ...]` literal of random values of `shape`, for `dense<...>`.
std::string denseLiteral(Random &rng, ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  std::function<void(size_t)> emit = [&](size_t d) {
    os << "[";
    for (int64_t i = 0; i < shape[d]; ++i) {
      if (i)
        os << ", ";
      if (d + 1 == shape.size())
        os << llvm::format("%.17g", rng.next());
      else
        emit(d + 1);
    }
    os << "]";
  };
  emit(0);
  return s;
}

class ConvLayoutTest : public ::testing::Test {
protected:
  ConvLayoutTest() { ctx.loadDialect<graph::GraphDialect, func::FuncDialect>(); }

  std::vector<reference::Tensor> eval(ModuleOp m, const std::vector<reference::Tensor> &args) {
    auto fn = *m.getOps<func::FuncOp>().begin();
    reference::Evaluator e;
    auto r = e.run(fn, args);
    EXPECT_TRUE(succeeded(r));
    return succeeded(r) ? *r : std::vector<reference::Tensor>{};
  }

  /// An f32 input of `shape` filled from `rng`.
  reference::Tensor randomInput(Random &rng, ArrayRef<int64_t> shape) {
    reference::Tensor x = reference::Tensor::zeros(Float32Type::get(&ctx), shape);
    for (double &v : x.floats)
      v = rng.next();
    return x;
  }

  /// graph-conv-layout{layout} on `m`, then the verifier: success when both succeed.
  LogicalResult runPassAndVerify(ModuleOp m, StringRef layout) {
    return success(succeeded(runPass(m, layout)) && succeeded(verify(m)));
  }

  LogicalResult runPass(ModuleOp m, StringRef layout) {
    PassManager pm(&ctx);
    graph::GraphConvLayoutOptions o;
    o.layout = layout.str();
    pm.addNestedPass<func::FuncOp>(graph::createGraphConvLayout(o));
    return pm.run(m);
  }

  int count(ModuleOp m, StringRef opName) {
    int n = 0;
    m.walk([&](Operation *op) { n += op->getName().getStringRef() == opName; });
    return n;
  }

  MLIRContext ctx;
};

// Two convs (constant, non-splat weights; bias; stride; padding) with a relu, a bias add
// (constant [1, C, 1, 1]) and a residual add in between: after layout=nhwc one transpose
// remains at the input, one at the output, and the values are those of the NCHW function.
TEST_F(ConvLayoutTest, NHWCAndBackKeepTheValues) {
  Random rng;
  std::string src =
      "func.func @f(%x: tensor<2x3x9x9xf32>) -> tensor<2x5x5x5xf32> {\n"
      "  %w1 = graph.constant dense<" + denseLiteral(rng, {5, 3, 3, 3}) + "> : tensor<5x3x3x3xf32>\n"
      "  %b1 = graph.constant dense<" + denseLiteral(rng, {5}) + "> : tensor<5xf32>\n"
      "  %w2 = graph.constant dense<" + denseLiteral(rng, {5, 5, 3, 2}) + "> : tensor<5x5x3x2xf32>\n"
      "  %c = graph.constant dense<" + denseLiteral(rng, {1, 5, 1, 1}) + "> : tensor<1x5x1x1xf32>\n"
      "  %0 = graph.conv %x, %w1, %b1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x9x9xf32>, tensor<5x3x3x3xf32>, tensor<5xf32>) -> tensor<2x5x5x5xf32>\n"
      "  %1 = graph.relu %0 : tensor<2x5x5x5xf32>\n"
      "  %2 = graph.add %1, %c : (tensor<2x5x5x5xf32>, tensor<1x5x1x1xf32>) -> tensor<2x5x5x5xf32>\n"
      "  %3 = graph.conv %2, %w2 {dilations = array<i64: 1, 2>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x5x5x5xf32>, tensor<5x5x3x2xf32>) -> tensor<2x5x5x5xf32>\n"
      "  %4 = graph.add %3, %0 : (tensor<2x5x5x5xf32>, tensor<2x5x5x5xf32>) -> tensor<2x5x5x5xf32>\n"
      "  return %4 : tensor<2x5x5x5xf32>\n"
      "}\n";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(src, &ctx);
  ASSERT_TRUE(m);
  reference::Tensor x = randomInput(rng, {2, 3, 9, 9});
  std::vector<reference::Tensor> before = eval(*m, {x});
  ASSERT_EQ(before.size(), 1u);

  ASSERT_TRUE(succeeded(runPassAndVerify(*m, "nhwc")));
  int nhwc = 0;
  m->walk([&](graph::ConvOp c) { nhwc += c.getLayout() == "NHWC"; });
  EXPECT_EQ(nhwc, 2);
  // The input's transpose and the result's; weight transposes folded, pairs cancelled.
  EXPECT_EQ(count(*m, "graph.transpose"), 2);
  std::vector<reference::Tensor> after = eval(*m, {x});
  ASSERT_EQ(after.size(), 1u);
  ASSERT_EQ(after[0].floats.size(), before[0].floats.size());
  for (size_t i = 0; i < before[0].floats.size(); ++i)
    EXPECT_NEAR(after[0].floats[i], before[0].floats[i], 1e-5 * (1 + std::abs(before[0].floats[i]))) << "element " << i;

  ASSERT_TRUE(succeeded(runPassAndVerify(*m, "nchw")));
  int nchw = 0;
  m->walk([&](graph::ConvOp c) { nchw += c.getLayout() == "NCHW"; });
  EXPECT_EQ(nchw, 2);
  EXPECT_EQ(count(*m, "graph.transpose"), 0);
  std::vector<reference::Tensor> back = eval(*m, {x});
  ASSERT_EQ(back.size(), 1u);
  for (size_t i = 0; i < before[0].floats.size(); ++i)
    EXPECT_NEAR(back[0].floats[i], before[0].floats[i], 1e-5 * (1 + std::abs(before[0].floats[i]))) << "element " << i;
}

// A weight above the dense threshold (64 KiB) held as dense_resource, as the importer
// holds large initializers: it folds to an OHWI dense_resource constant with the same values.
TEST_F(ConvLayoutTest, LargeResourceWeightFoldsToAResource) {
  Random rng;
  std::string src =
      "func.func @f(%x: tensor<1x32x6x6xf32>) -> tensor<1x64x4x4xf32> {\n"
      "  %w = graph.constant dense<" + denseLiteral(rng, {64, 32, 3, 3}) + "> : tensor<64x32x3x3xf32>\n"
      "  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x32x6x6xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x4x4xf32>\n"
      "  return %0 : tensor<1x64x4x4xf32>\n"
      "}\n";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(src, &ctx);
  ASSERT_TRUE(m);
  // Re-hold the weight as a dense_resource blob.
  m->walk([&](graph::ConstantOp c) {
    auto dense = cast<DenseElementsAttr>(c.getValue());
    ArrayRef<char> raw = dense.getRawData();
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        raw, alignof(uint64_t), /*dataIsMutable=*/false);
    c.setValueAttr(DenseResourceElementsAttr::get(dense.getType(), "w", std::move(blob)));
  });
  reference::Tensor x = randomInput(rng, {1, 32, 6, 6});
  std::vector<reference::Tensor> before = eval(*m, {x});
  ASSERT_EQ(before.size(), 1u);
  ASSERT_TRUE(succeeded(runPassAndVerify(*m, "nhwc")));
  int resources = 0;
  m->walk([&](graph::ConstantOp c) {
    EXPECT_EQ(cast<RankedTensorType>(c.getType()).getShape(), ArrayRef<int64_t>({64, 3, 3, 32}));
    resources += isa<DenseResourceElementsAttr>(c.getValue());
  });
  EXPECT_EQ(resources, 1);
  std::vector<reference::Tensor> after = eval(*m, {x});
  ASSERT_EQ(after.size(), 1u);
  for (size_t i = 0; i < before[0].floats.size(); ++i)
    EXPECT_NEAR(after[0].floats[i], before[0].floats[i], 1e-5 * (1 + std::abs(before[0].floats[i]))) << "element " << i;
}

// Grouped and 1-D convolutions are left alone; an unknown layout option fails the pass.
TEST_F(ConvLayoutTest, GroupedAnd1DStayAndBadOptionFails) {
  const char *src = R"(
    func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %y: tensor<1x4x8xf32>, %v: tensor<2x4x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x2x6xf32>) {
      %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
      %1 = graph.conv %y, %v {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
      return %0, %1 : tensor<1x4x6x6xf32>, tensor<1x2x6xf32>
    })";
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(src, &ctx);
  ASSERT_TRUE(m);
  ASSERT_TRUE(succeeded(runPass(*m, "nhwc")));
  EXPECT_EQ(count(*m, "graph.transpose"), 0);
  std::string diag;
  ScopedDiagnosticHandler h(&ctx, [&](Diagnostic &d) {
    diag = d.str();
    return success();
  });
  EXPECT_TRUE(failed(runPass(*m, "nchwc")));
  EXPECT_NE(diag.find("layout must be nhwc or nchw"), std::string::npos) << diag;
}

} // namespace
