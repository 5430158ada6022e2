//===- CostModelTest.cpp - roofline numbers of small kernels, by hand ------===//
#include "aicc/Dialect/Graph/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace aicc::graph;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() { ctx.loadDialect<GraphDialect, func::FuncDialect>(); }

  /// Parses `src` and returns the first op of its first function.
  Operation *firstOp(StringRef src) {
    module = parseSourceString<ModuleOp>(src, &ctx);
    if (!module)
      return nullptr;
    auto fn = *module->getOps<func::FuncOp>().begin();
    return &fn.getBody().front().front();
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  HardwareDescription hw = *hardwareByName("h200");
};

TEST_F(CostModelTest, H200Description) {
  EXPECT_EQ(hw.smCount, 132);
  EXPECT_DOUBLE_EQ(hw.hbmBytesPerSecond, 4.8e12);
  EXPECT_EQ(hw.l2Bytes, 50 * 1024 * 1024);
  EXPECT_EQ(hw.sharedMemPerBlockBytes, 227 * 1024);
  EXPECT_EQ(hw.registersPerSM, 65536);
  EXPECT_EQ(hw.maxThreadsPerSM, 2048);
  EXPECT_EQ(hw.name, "sm_90");
  EXPECT_TRUE(hardwareByName("sm_90").has_value());
  EXPECT_TRUE(hardwareByName("sm_90a").has_value());
  EXPECT_FALSE(hardwareByName("tpu").has_value());
  // The CPU row has no GPU numbers to model.
  EXPECT_FALSE(hardwareByName("cpu").has_value());
  // sm_80 has its own row (A100), not the H200's numbers.
  auto a100 = hardwareByName("a100");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(a100->name, "sm_80");
  EXPECT_EQ(a100->smCount, 108);
  EXPECT_EQ(a100->sharedMemPerBlockBytes, 163 * 1024);
  Builder b(&ctx);
  EXPECT_DOUBLE_EQ(hw.peakFlops(b.getF16Type(), true), 989.4e12);
  EXPECT_DOUBLE_EQ(hw.peakFlops(b.getF32Type(), true, /*allowTF32=*/true), 494.7e12);
  EXPECT_DOUBLE_EQ(hw.peakFlops(b.getF32Type(), false), 66.9e12);
  EXPECT_DOUBLE_EQ(hw.peakFlops(b.getF64Type(), true), 33.5e12);
}

// [64, 128] x [128, 32] f32: 2*M*N*K = 2*64*32*128 = 524288 FLOPs; bytes
// 4*(64*128 + 128*32) read = 49152, 4*64*32 = 8192 written; roofline
// max(57344 / 4.8e12, 524288 / 66.9e12) = 1.1947e-8 s (memory-bound).
TEST_F(CostModelTest, SmallMatmul) {
  Operation *op = firstOp(R"(
    func.func @f(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
      %m = graph.matmul %a, %b : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
      return %m : tensor<64x32xf32>
    })");
  ASSERT_TRUE(op);
  EXPECT_DOUBLE_EQ(opFlops(op), 524288.0);
  KernelCost c = costOfOp(op, hw);
  EXPECT_DOUBLE_EQ(c.bytesRead, 49152.0);
  EXPECT_DOUBLE_EQ(c.bytesWritten, 8192.0);
  EXPECT_DOUBLE_EQ(c.intensity, 524288.0 / 57344.0);
  EXPECT_DOUBLE_EQ(c.rooflineSeconds, std::max(57344.0 / 4.8e12, 524288.0 / 66.9e12));
  EXPECT_NEAR(c.rooflineSeconds, 1.1947e-8, 1e-12);
}

// A large f16 matmul is compute-bound at the tensor-core peak: 2*4096^3 FLOPs /
// 989.4e12 = 138.9 us > 3 * 4096^2 * 2 bytes / 4.8e12 = 21.0 us.
TEST_F(CostModelTest, LargeHalfMatmulIsComputeBound) {
  Operation *op = firstOp(R"(
    func.func @f(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
      %m = graph.matmul %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
      return %m : tensor<4096x4096xf16>
    })");
  ASSERT_TRUE(op);
  KernelCost c = costOfOp(op, hw);
  double flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  EXPECT_DOUBLE_EQ(c.flops, flops);
  EXPECT_DOUBLE_EQ(c.rooflineSeconds, flops / 989.4e12);
}

// add of [1024, 1024] f32 and a [1024] bias: 1 FLOP per output element; bytes
// 4*(1048576 + 1024) read, 4*1048576 written; memory-bound.
TEST_F(CostModelTest, ElementwiseAdd) {
  Operation *op = firstOp(R"(
    func.func @f(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
      %y = graph.add %x, %b : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
      return %y : tensor<1024x1024xf32>
    })");
  ASSERT_TRUE(op);
  KernelCost c = costOfOp(op, hw);
  EXPECT_DOUBLE_EQ(c.flops, 1048576.0);
  EXPECT_DOUBLE_EQ(c.bytesRead, 4.0 * (1048576.0 + 1024.0));
  EXPECT_DOUBLE_EQ(c.bytesWritten, 4.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(c.rooflineSeconds, c.bytes() / 4.8e12);
  EXPECT_LT(c.intensity, 0.2);
}

// A transcendental costs kTranscendentalFlops per element.
TEST_F(CostModelTest, Transcendental) {
  Operation *op = firstOp(R"(
    func.func @f(%x: tensor<256xf32>) -> tensor<256xf32> {
      %y = graph.exp %x : tensor<256xf32>
      return %y : tensor<256xf32>
    })");
  ASSERT_TRUE(op);
  EXPECT_DOUBLE_EQ(opFlops(op), 256.0 * kTranscendentalFlops);
}

// Fusing relu(x + b) into one kernel: the intermediate sum is neither written nor read
// back. Unfused: add reads 4*(1024 + 1024) and writes 4096 bytes, relu reads 4096 and
// writes 4096; fused: reads 8192, writes 4096 bytes.
TEST_F(CostModelTest, FusedOpsSkipTheIntermediate) {
  Operation *op = firstOp(R"(
    func.func @f(%x: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
      %s = graph.add %x, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      %r = graph.relu %s : tensor<1024xf32>
      return %r : tensor<1024xf32>
    })");
  ASSERT_TRUE(op);
  Operation *relu = op->getNextNode();
  KernelCost fused = costOfOps({op, relu}, hw);
  EXPECT_DOUBLE_EQ(fused.bytesRead, 8192.0);
  EXPECT_DOUBLE_EQ(fused.bytesWritten, 4096.0);
  EXPECT_DOUBLE_EQ(fused.flops, 2048.0);
  double unfused = costOfOp(op, hw).bytes() + costOfOp(relu, hw).bytes();
  EXPECT_DOUBLE_EQ(unfused, 8192.0 + 4096.0 + 4096.0 + 4096.0);
  EXPECT_LT(fused.rooflineSeconds, costOfOp(op, hw).rooflineSeconds +
                                       costOfOp(relu, hw).rooflineSeconds);
}

} // namespace
