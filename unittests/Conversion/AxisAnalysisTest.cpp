//===- AxisAnalysisTest.cpp - contiguity / divisibility / constancy of offsets ---===//
//
// The GPU lowerings' one axis analysis (lib/Conversion/TileToGPU/AxisAnalysis.h) on the
// offset expressions the kernel templates write: the register path vectorizes a load only
// where it proves V contiguous elements at a multiple of V, and the mma.sync path copies a
// block with cp.async only where the column is a proven multiple of its granule, so an
// analysis that proves too much would read the wrong addresses.
//===----------------------------------------------------------------------===//
#include "AxisAnalysis.h"

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace aicc;

namespace {

struct Analyzed {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  AxisAnalysis axis;

  explicit Analyzed(llvm::StringRef body) {
    ctx.loadDialect<func::FuncDialect, arith::ArithDialect, scf::SCFDialect, tile::TileDialect>();
    std::string src = "func.func @f(%n: i32) {\n" + body.str() + "\n  return\n}\n";
    module = parseSourceString<ModuleOp>(src, &ctx);
  }
  /// The result of the op named by `loc("name")`.
  Value named(llvm::StringRef name) {
    Value found;
    module->walk([&](Operation *op) {
      if (auto l = dyn_cast<NameLoc>(op->getLoc()); l && l.getName() == name)
        found = op->getResult(0);
    });
    return found;
  }
  AxisInfo info(llvm::StringRef name) {
    Value v = named(name);
    EXPECT_TRUE(v) << name.str();
    return v ? axis.get(v) : AxisInfo{};
  }
};

TEST(AxisAnalysis, BlockOffsetsAreContiguousAtTheBlockMultiple) {
  // offs = pid * 128 + make_range(0, 128): runs of 128 consecutive values from a multiple of
  // 128 (the elementwise template's offsets).
  Analyzed a(R"(
    %pid = tile.program_id 0 : i32
    %c128 = arith.constant 128 : i32
    %base = arith.muli %pid, %c128 : i32
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    %s = tile.splat %base : tensor<128xi32>
    %offs = arith.addi %s, %r : tensor<128xi32> loc("offs")
  )");
  ASSERT_TRUE(a.module);
  AxisInfo i = a.info("offs");
  EXPECT_EQ(i.contiguity, 128);
  EXPECT_EQ(i.divisibility, 128);
  EXPECT_EQ(i.constancy, 1);
}

TEST(AxisAnalysis, UnknownScalarsDivideByOneOnly) {
  // A function argument is not provably a multiple of anything; times 8 it is a multiple of
  // 8, shifted left by 4 a multiple of 16, plus 4 a multiple of 4 only.
  Analyzed a(R"(
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %x8 = arith.muli %n, %c8 : i32 loc("x8")
    %x16 = arith.shli %n, %c4 : i32 loc("x16")
    %x8p4 = arith.addi %x8, %c4 : i32 loc("x8p4")
  )");
  ASSERT_TRUE(a.module);
  EXPECT_EQ(a.axis.get(a.module->lookupSymbol<func::FuncOp>("f").getArgument(0)).divisibility,
            1);
  EXPECT_EQ(a.info("x8").divisibility, 8);
  EXPECT_TRUE(a.axis.isMultipleOf(a.named("x8"), 8));
  EXPECT_FALSE(a.axis.isMultipleOf(a.named("x8"), 16));
  EXPECT_EQ(a.info("x16").divisibility, 16);
  EXPECT_EQ(a.info("x8p4").divisibility, 4);
}

TEST(AxisAnalysis, LoopInductionVariableDividesByBoundAndStep) {
  // scf.for %k = 0 to %n step 64: every k is a multiple of 64; k + 32 of 32 only.
  Analyzed a(R"(
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %ub = arith.index_cast %n : i32 to index
    scf.for %k = %c0 to %ub step %c64 {
      %ki = arith.index_cast %k : index to i32 loc("k")
      %c32 = arith.constant 32 : i32
      %k32 = arith.addi %ki, %c32 : i32 loc("k32")
    }
  )");
  ASSERT_TRUE(a.module);
  EXPECT_EQ(a.info("k").divisibility, 64);
  EXPECT_EQ(a.info("k32").divisibility, 32);
}

TEST(AxisAnalysis, RemainderKeepsRunsInsideTheDivisor) {
  // (pid * 256 + range(0, 256)) mod 64: runs of 64 from multiples of 64; the same with a
  // possibly negative dividend (remsi of an unknown) proves nothing.
  Analyzed a(R"(
    %pid = tile.program_id 0 : i32
    %c256 = arith.constant 256 : i32
    %c64 = arith.constant dense<64> : tensor<256xi32>
    %base = arith.muli %pid, %c256 : i32
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
    %s = tile.splat %base : tensor<256xi32>
    %offs = arith.addi %s, %r : tensor<256xi32>
    %m = arith.remsi %offs, %c64 : tensor<256xi32> loc("m")
    %sn = tile.splat %n : tensor<256xi32>
    %neg = arith.addi %sn, %r : tensor<256xi32>
    %mn = arith.remsi %neg, %c64 : tensor<256xi32> loc("mn")
  )");
  ASSERT_TRUE(a.module);
  AxisInfo m = a.info("m");
  EXPECT_EQ(m.contiguity, 64);
  EXPECT_EQ(m.divisibility, 64);
  AxisInfo mn = a.info("mn");
  EXPECT_EQ(mn.contiguity, 1);
  EXPECT_EQ(mn.divisibility, 1);
}

} // namespace
