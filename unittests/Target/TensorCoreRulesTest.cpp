//===- TensorCoreRulesTest.cpp - the tensor-core paths' tile rules ---------===//
//
// include/aicc/Target/TensorCoreRules.h is the one place that says which matmul tiles
// convert-tile-dot-to-wgmma and convert-tile-dot-to-mma-sync run; the config heuristic
// (chooseMatmulConfig) checks its choice against it. These tests pin the rules at their
// edges, and check that what the heuristic picks over a sweep of shapes is a tile its path
// runs (a heuristic choice the path refuses would silently fall back to the generic
// kernel: correct, but without tensor cores).
//===----------------------------------------------------------------------===//
#include "aicc/Target/TensorCoreRules.h"
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/Chip.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace aicc;

namespace {

MatmulTile tile(int64_t m, int64_t n, int64_t k, int64_t warps, int64_t stages,
                TensorCoreOperand op = TensorCoreOperand::F16) {
  return MatmulTile{m, n, k, warps, stages, op};
}

const ChipInfo &chip(llvm::StringRef name) {
  const ChipInfo *c = lookupChip(name);
  EXPECT_NE(c, nullptr) << name.str();
  return *c;
}

TEST(TensorCoreRules, WgmmaOperandTypes) {
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 64, 8, 4, TensorCoreOperand::F16)), "");
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 64, 8, 4, TensorCoreOperand::BF16)), "");
  // tf32: 32 elements fill one 128-byte swizzle row.
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 32, 8, 4, TensorCoreOperand::TF32)), "");
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 64, 8, 4, TensorCoreOperand::F32)),
            "f32 operands without input_precision = tf32 (exact f32 asked)");
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 64, 8, 4, TensorCoreOperand::Other)),
            "operands are not f16/bf16");
}

TEST(TensorCoreRules, WgmmaBlockShapes) {
  for (int64_t m : {64, 128})
    for (int64_t n : {64, 128, 192, 256})
      EXPECT_EQ(wgmmaTileProblem(tile(m, n, 64, 4, 4)), "") << m << "x" << n;
  EXPECT_EQ(wgmmaTileProblem(tile(32, 128, 64, 4, 4)), "BLOCK_M is not 64 or 128");
  EXPECT_EQ(wgmmaTileProblem(tile(256, 128, 64, 4, 4)), "BLOCK_M is not 64 or 128");
  const std::string bn =
      "BLOCK_N / BLOCK_K are not multiples of 64 / one 128-byte row (BLOCK_N <= 256)";
  EXPECT_EQ(wgmmaTileProblem(tile(128, 32, 64, 4, 4)), bn);
  EXPECT_EQ(wgmmaTileProblem(tile(128, 320, 64, 4, 4)), bn);
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 32, 4, 4)), bn);  // half a row of f16
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 128, 4, 4)), ""); // two rows
  EXPECT_EQ(wgmmaTileProblem(tile(128, 128, 16, 4, 4, TensorCoreOperand::TF32)), bn);
}

TEST(TensorCoreRules, WgmmaPlanBytes) {
  // 4 stages of 128 x 256 x 64 f16: 4 x 48 KiB, 10 mbarriers, 1 KiB of alignment slack.
  EXPECT_EQ(wgmmaPlanBytes(4, 49152, 0), 4 * 49152 + 2 * 4 * 8 + 16 + 1024);
  // Staging starts 1024-aligned after the stages.
  EXPECT_EQ(wgmmaPlanBytes(1, 1000, 4096), 1024 + 4096 + 8 * 2 + 16 + 1024);
  const ChipInfo &h = chip("sm_90a");
  EXPECT_EQ(wgmmaSharedMemoryProblem(tile(128, 256, 64, 8, 4), h), "");
  EXPECT_EQ(wgmmaSharedMemoryProblem(tile(128, 256, 64, 8, 5), h),
            "num_stages x stage bytes exceed 227 KiB of shared memory");
  // Stages below 2 run as 2; a huge count is refused before it multiplies anything.
  EXPECT_EQ(wgmmaSharedMemoryProblem(tile(128, 256, 64, 8, 0), h), "");
  EXPECT_NE(wgmmaSharedMemoryProblem(tile(128, 256, 64, 8, int64_t(1) << 60), h), "");
}

TEST(TensorCoreRules, MmaSyncBlocksAndWarps) {
  EXPECT_EQ(mmaSyncBlockProblem(tile(16, 16, 16, 1, 2)), "");
  EXPECT_EQ(mmaSyncBlockProblem(tile(128, 256, 32, 8, 4, TensorCoreOperand::BF16)), "");
  EXPECT_EQ(mmaSyncBlockProblem(tile(128, 128, 32, 4, 4, TensorCoreOperand::TF32)),
            "operands are not f16/bf16");
  const std::string pow2 = "BLOCK_M / BLOCK_N / BLOCK_K are not powers of two in [16, 256]";
  EXPECT_EQ(mmaSyncBlockProblem(tile(8, 128, 32, 4, 4)), pow2);
  EXPECT_EQ(mmaSyncBlockProblem(tile(96, 128, 32, 4, 4)), pow2);
  EXPECT_EQ(mmaSyncBlockProblem(tile(128, 512, 32, 4, 4)), pow2);

  MmaSyncWarpLayout l;
  // 128 x 128 over 4 warps: 2 x 2 warps of 64 x 64 (128 accumulators each).
  EXPECT_EQ(mmaSyncTileProblem(tile(128, 128, 32, 4, 4), &l), "");
  EXPECT_EQ(l.warpsM, 2);
  EXPECT_EQ(l.warpsN, 2);
  EXPECT_EQ(l.warpM, 64);
  EXPECT_EQ(l.warpN, 64);
  EXPECT_EQ(l.accumulatorRegisters(), 128);
  // Ties go to the taller warp tile: 64 x 32 over 2 warps is 2 x 1 warps of 32 x 32.
  EXPECT_EQ(mmaSyncTileProblem(tile(64, 32, 32, 2, 4), &l), "");
  EXPECT_EQ(l.warpsM, 2);
  EXPECT_EQ(l.warpsN, 1);
  EXPECT_EQ(mmaSyncTileProblem(tile(128, 128, 32, 3, 4)), "num_warps is not a power of two <= 16");
  EXPECT_EQ(mmaSyncTileProblem(tile(128, 128, 32, 32, 4)), "num_warps is not a power of two <= 16");
  EXPECT_EQ(mmaSyncTileProblem(tile(16, 16, 16, 4, 4)),
            "num_warps does not split BLOCK_M x BLOCK_N into 16 x 16 warp tiles");
  EXPECT_EQ(mmaSyncTileProblem(tile(128, 256, 32, 2, 4)),
            "more than 128 accumulators per thread (raise num_warps)");
}

TEST(TensorCoreRules, MmaSyncSharedMemory) {
  // 4 stages of 128 x 256 x 32 f16 = 96 KiB: the A100's 163 KiB and the A10's 99 KiB take it.
  EXPECT_EQ(
      mmaSyncSharedMemoryProblem(tile(128, 256, 32, 8, 4), chip("sm_80").sharedMemPerBlockBytes),
      "");
  EXPECT_EQ(
      mmaSyncSharedMemoryProblem(tile(128, 256, 32, 8, 4), chip("sm_86").sharedMemPerBlockBytes),
      "");
  EXPECT_EQ(
      mmaSyncSharedMemoryProblem(tile(128, 256, 64, 8, 4), chip("sm_86").sharedMemPerBlockBytes),
      "num_stages x stage bytes exceed the shared memory per block");
  EXPECT_NE(mmaSyncSharedMemoryProblem(tile(128, 256, 32, 8, int64_t(1) << 60), 1 << 20), "");
}

TEST(TensorCoreRules, AttentionSimt) {
  AttentionShape a;
  a.operand = TensorCoreOperand::F32;
  a.headSize = a.valueHeadSize = 128;
  a.keyLength = 70;
  EXPECT_EQ(attentionSimtProblem(a, chip("sm_90a")), "");
  EXPECT_EQ(attentionSimtProblem(a, chip("sm_80")), "");
  EXPECT_NE(attentionSimtProblem(a, chip("cpu")), "");
  AttentionShape b = a;
  b.operand = TensorCoreOperand::F16; // the tensor-core kernels' case
  EXPECT_NE(attentionSimtProblem(b, chip("sm_90a")), "");
  for (int64_t d : {0, 129, 256}) {
    AttentionShape c = a;
    c.headSize = d;
    EXPECT_NE(attentionSimtProblem(c, chip("sm_90")), "") << d;
  }
  AttentionShape c = a;
  c.batch = 65536;
  EXPECT_NE(attentionSimtProblem(c, chip("sm_90")), "");
}

TEST(TensorCoreRules, AttentionMmaSync) {
  AttentionShape a;
  a.operand = TensorCoreOperand::F16;
  a.headSize = a.valueHeadSize = 128;
  a.keyLength = 77;
  // Q [64, 128] + 2 x (K [64, 128] + V [64, 128]) f16 = 80 KiB.
  EXPECT_EQ(attentionMmaSyncSharedBytes(64, 128, 128), 81920);
  EXPECT_EQ(attentionMmaSyncSharedBytes(128, 128, 128), 98304);
  EXPECT_EQ(attentionMmaSyncProblem(a, chip("sm_90")), "");
  EXPECT_EQ(attentionMmaSyncProblem(a, chip("sm_80")), "");
  EXPECT_NE(attentionMmaSyncProblem(a, chip("cpu")), "");
  AttentionShape b = a;
  b.operand = TensorCoreOperand::BF16;
  b.headSize = 16;
  b.valueHeadSize = 64;
  EXPECT_EQ(attentionMmaSyncProblem(b, chip("sm_86")), "");
  // Head sizes: multiples of 16 up to 256 (80 and 96 keep rows of 128 in shared memory;
  // 144 rows of 256).
  for (int64_t d : {0, 8, 40, 72, 264, 272, 512}) {
    AttentionShape c = a;
    c.headSize = d;
    EXPECT_NE(attentionMmaSyncProblem(c, chip("sm_90")), "") << d;
    c = a;
    c.valueHeadSize = d;
    EXPECT_NE(attentionMmaSyncProblem(c, chip("sm_90")), "") << d;
  }
  for (int64_t d : {16, 48, 80, 96, 112, 144, 256}) {
    AttentionShape c = a;
    c.headSize = c.valueHeadSize = d;
    EXPECT_EQ(attentionMmaSyncProblem(c, chip("sm_90")), "") << d;
    EXPECT_NE(attentionWgmmaProblem(c, chip("sm_90a")), "") << d;
  }
  EXPECT_EQ(attentionMmaSyncSharedBytes(64, 80, 96), 81920);
  AttentionShape f32 = a;
  f32.operand = TensorCoreOperand::F32;
  EXPECT_NE(attentionMmaSyncProblem(f32, chip("sm_90")), "");
  // Masks: any additive bias on the mma.sync kernel; on the wgmma kernel only one constant
  // along the query rows (a padding mask).
  AttentionShape bias = a;
  bias.bias = true;
  EXPECT_EQ(attentionMmaSyncProblem(bias, chip("sm_90")), "");
  EXPECT_EQ(attentionWgmmaProblem(bias, chip("sm_90a")), "");
  bias.biasAlongRows = true;
  EXPECT_EQ(attentionMmaSyncProblem(bias, chip("sm_90a")), "");
  EXPECT_NE(attentionWgmmaProblem(bias, chip("sm_90a")), "");
  // A stored K^T needs 16-byte rows of keys.
  AttentionShape kt = a;
  kt.keyRowMajor = false;
  EXPECT_NE(attentionMmaSyncProblem(kt, chip("sm_90")), "");
  kt.keyLength = 96;
  EXPECT_EQ(attentionMmaSyncProblem(kt, chip("sm_90")), "");
  AttentionShape wide = a;
  wide.batch = 65536;
  EXPECT_NE(attentionMmaSyncProblem(wide, chip("sm_90")), "");
  wide.batch = 65535;
  EXPECT_EQ(attentionMmaSyncProblem(wide, chip("sm_90")), "");
  AttentionShape epi = a;
  epi.plainOutput = false;
  EXPECT_NE(attentionMmaSyncProblem(epi, chip("sm_90")), "");
}

// Every config the heuristic picks for a tensor-core target is one its path runs.
TEST(TensorCoreRules, HeuristicChoicesPassTheirPath) {
  mlir::MLIRContext ctx;
  mlir::Builder b(&ctx);
  const ChipInfo &h200 = chip("h200");
  int checked = 0;
  for (const ChipInfo &target : allChips()) {
    bool wgmma = target.has(ChipFeature::Wgmma), mma = target.has(ChipFeature::MmaSync);
    if (!wgmma && !mma)
      continue;
    for (mlir::Type elem :
         {mlir::Type(b.getF16Type()), mlir::Type(b.getBF16Type()), mlir::Type(b.getF32Type())})
      for (int64_t M : {1, 8, 64, 100, 512, 4096, 16384})
        for (int64_t N : {64, 128, 1000, 4096, 11008})
          for (int64_t K : {16, 64, 768, 4096})
            for (int64_t batch : {1, 16}) {
              bool tf32 = elem.isF32();
              MatmulConfig c = chooseMatmulConfig(M, N, K, elem, true, target, h200, tf32, batch);
              bool expectTensorCores = wgmma ? true : !elem.isF32();
              ASSERT_EQ(c.wgmma || c.mmaSync, expectTensorCores)
                  << target.name.str() << " " << M << "x" << N << "x" << K;
              MatmulTile t{c.blockM,   c.blockN,    c.blockK,
                           c.numWarps, c.numStages, tensorCoreOperandOf(elem, tf32)};
              if (c.wgmma) {
                EXPECT_EQ(wgmmaTileProblem(t), "");
                EXPECT_EQ(wgmmaSharedMemoryProblem(t, target), "");
              }
              if (c.mmaSync) {
                EXPECT_EQ(mmaSyncTileProblem(t), "");
                EXPECT_EQ(mmaSyncSharedMemoryProblem(t, target.sharedMemPerBlockBytes), "");
              }
              ++checked;
            }
  }
  EXPECT_GT(checked, 1000);
}

} // namespace

namespace {
TEST(TensorCoreRules, WgmmaSharedMemoryPlan) {
  // 128 x 256 x 64 f16, 4 stages: A 16 KiB and B 32 KiB per stage, no staging.
  WgmmaSharedMemoryPlan p = planWgmmaSharedMemory(4, 16384, 32768, 0);
  EXPECT_EQ(p.aOffset, 0);
  EXPECT_EQ(p.bOffset, 4 * 16384);
  EXPECT_EQ(p.barrierOffset, 4 * 16384 + 4 * 32768);
  EXPECT_EQ(p.totalBytes, p.barrierOffset + 2 * 4 * 8 + 16 + 1024);
  EXPECT_EQ(p.totalBytes, wgmmaPlanBytes(4, 16384 + 32768, 0));
  // With staging: it starts 1024-aligned after the stages, the barriers after it.
  WgmmaSharedMemoryPlan q = planWgmmaSharedMemory(3, 1000, 1000, 65536);
  EXPECT_EQ(q.stagingOffset, 6144);
  EXPECT_EQ(q.barrierOffset, 6144 + 65536);
}

TEST(TensorCoreRules, WgmmaStagesBesideStaging) {
  const int64_t h200 = 232448; // 227 KiB
  // Cooperative 128 x 256 f16 (48 KiB a stage) with 2 x 32 KiB of staging: 4 stages drop to 3.
  EXPECT_EQ(wgmmaStagesBesideStaging(4, 3, 49152, 65536, h200), std::optional<int64_t>(3));
  // Nothing to drop when it fits.
  EXPECT_EQ(wgmmaStagesBesideStaging(4, 3, 32768, 32768, h200), std::optional<int64_t>(4));
  // Not even the minimum fits: no TMA store.
  EXPECT_EQ(wgmmaStagesBesideStaging(4, 4, 49152, 65536, h200), std::nullopt);
}
// chooseSplitK: the measured shapes (docs/tensor-cores.md, "Split-K") and its invariants
// over a sweep: a split grid stays within one wave, every slice has at least
// kSplitKMinBlocks k blocks and is non-empty, and only tensor-core configs split.
TEST(ChooseSplitKTest, MeasuredShapesAndInvariants) {
  mlir::MLIRContext ctx;
  mlir::Builder b(&ctx);
  const ChipInfo &h200 = chip("h200"), &sm90a = chip("sm_90a");
  auto splitOf = [&](int64_t M, int64_t N, int64_t K) {
    MatmulConfig c = chooseMatmulConfig(M, N, K, b.getF16Type(), true, sm90a, h200);
    return chooseSplitK(M, N, K, 1, c, h200);
  };
  EXPECT_EQ(splitOf(256, 768, 3072), 5); // 24 tiles, 48 k blocks: 5 slices of 10
  EXPECT_EQ(splitOf(64, 4096, 4096), 2); // 64 tiles
  EXPECT_EQ(splitOf(256, 768, 768), 1);  // 12 k blocks: no two slices of 8
  EXPECT_EQ(splitOf(256, 3072, 768), 1); // 96 tiles: more than half a wave
  EXPECT_EQ(splitOf(4096, 4096, 4096), 1);
  MatmulConfig generic; // the CPU / CUDA-core config never splits
  EXPECT_EQ(chooseSplitK(16, 16, 8192, 1, generic, h200), 1);
  int checked = 0;
  for (int64_t M : {1, 16, 64, 256, 1000})
    for (int64_t N : {64, 256, 768, 4096})
      for (int64_t K : {64, 512, 3072, 16384})
        for (int64_t batch : {1, 3}) {
          MatmulConfig c =
              chooseMatmulConfig(M, N, K, b.getF16Type(), true, sm90a, h200, false, batch);
          int64_t s = chooseSplitK(M, N, K, batch, c, h200);
          int64_t tiles = ((M + c.blockM - 1) / c.blockM) * ((N + c.blockN - 1) / c.blockN) * batch;
          int64_t numK = (K + c.blockK - 1) / c.blockK;
          ASSERT_GE(s, 1);
          ASSERT_LE(s, aicc::tile::kMaxSplitK);
          if (s > 1) {
            EXPECT_LE(tiles * s, h200.smCount) << M << "x" << N << "x" << K << " b" << batch;
            int64_t per = (numK + s - 1) / s;
            EXPECT_GE(per, kSplitKMinBlocks);
            EXPECT_LT((s - 1) * per, numK); // the last slice has work
          }
          ++checked;
        }
  EXPECT_EQ(checked, 160);
}

} // namespace

// chooseMatmulConfig's under-filled-grid rule (docs/tensor-cores.md, "Under-filled grids"):
// the measured shapes get 64-row tiles when that gives more programs, split-K counted, and
// the grid stays within one wave; convs (implicitGemm) by the same rule without split-K.
TEST(ChooseMatmulConfigTest, UnderFilledGridsTake64RowTiles) {
  mlir::MLIRContext ctx;
  mlir::Builder b(&ctx);
  const ChipInfo &h200 = chip("h200"), &sm90a = chip("sm_90a");
  auto rows = [&](int64_t M, int64_t N, int64_t K, bool conv = false) {
    return chooseMatmulConfig(M, N, K, b.getF16Type(), true, sm90a, h200, false, 1,
                              /*keepPingPong=*/conv, /*implicitGemm=*/conv)
        .blockM;
  };
  EXPECT_EQ(rows(256, 64, 256), 64);    // bert2's FFN-up: 2 -> 4 programs
  EXPECT_EQ(rows(256, 768, 768), 64);   // 24 -> 48
  EXPECT_EQ(rows(1024, 256, 1024), 64); // 32 x split 2 -> 64 x split 2
  EXPECT_EQ(rows(256, 768, 3072), 128); // 24 x split 5 = 120 beat 48 x split 2 = 96
  EXPECT_EQ(rows(256, 2304, 768), 128); // 144 tiles of 64 rows: a second wave
  EXPECT_EQ(rows(4096, 4096, 4096), 128);
  EXPECT_EQ(rows(3200, 72, 144, /*conv=*/true), 64);    // 50 -> 100 programs
  EXPECT_EQ(rows(392, 512, 4608, /*conv=*/true), 64);   // resnet18 layer4: 32 -> 56
  EXPECT_EQ(rows(1568, 256, 2304, /*conv=*/true), 64);  // layer3: 52 -> 98
  EXPECT_EQ(rows(6272, 128, 1152, /*conv=*/true), 128); // layer2: 98 of 128 rows
  EXPECT_EQ(rows(256, 768, 3072, /*conv=*/true), 64);   // no split-K for convs: 24 -> 48
  const ChipInfo &sm90 = chip("sm_90"); // mma.sync has its own rule (BLOCK_M down to 16)
  EXPECT_TRUE(chooseMatmulConfig(256, 64, 256, b.getF16Type(), true, sm90, h200).mmaSync);
}
