//===- TensorCoreRules.cpp - which matmul tiles each tensor-core path runs ===//
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace aicc;

TensorCoreOperand aicc::tensorCoreOperandOf(mlir::Type elem, bool tf32) {
  if (elem.isF16())
    return TensorCoreOperand::F16;
  if (elem.isBF16())
    return TensorCoreOperand::BF16;
  if (elem.isF32())
    return tf32 ? TensorCoreOperand::TF32 : TensorCoreOperand::F32;
  return TensorCoreOperand::Other;
}

int64_t aicc::operandBytes(TensorCoreOperand t) {
  switch (t) {
  case TensorCoreOperand::F16:
  case TensorCoreOperand::BF16:
    return 2;
  case TensorCoreOperand::TF32:
  case TensorCoreOperand::F32:
    return 4;
  case TensorCoreOperand::Other:
    return 0;
  }
  return 0;
}

std::string aicc::wgmmaTileProblem(const MatmulTile &t) {
  bool tf32 = t.operand == TensorCoreOperand::TF32;
  if (t.operand == TensorCoreOperand::F32)
    return "f32 operands without input_precision = tf32 (exact f32 asked)";
  if (t.operand != TensorCoreOperand::F16 && t.operand != TensorCoreOperand::BF16 && !tf32)
    return "operands are not f16/bf16";
  if (t.blockM != 64 && t.blockM != 128)
    return "BLOCK_M is not 64 or 128";
  int64_t rowElems = kWgmmaSwizzleBytes / operandBytes(t.operand);
  if (t.blockN % 64 || t.blockN > 256 || t.blockN < 64 || t.blockK % rowElems || t.blockK < 1)
    return "BLOCK_N / BLOCK_K are not multiples of 64 / one 128-byte row (BLOCK_N <= 256)";
  return "";
}

int64_t aicc::wgmmaPlanBytes(int64_t stages, int64_t stageBytes, int64_t stagingBytes) {
  return int64_t(llvm::alignTo(stages * stageBytes, 1024)) + stagingBytes + 2 * stages * 8 + 2 * 8 +
         1024;
}

WgmmaSharedMemoryPlan aicc::planWgmmaSharedMemory(int64_t stages, int64_t aStageBytes,
                                                  int64_t bStageBytes, int64_t stagingBytes) {
  WgmmaSharedMemoryPlan p;
  int64_t off = 0;
  p.aOffset = off;
  off += stages * aStageBytes;
  p.bOffset = off;
  off += stages * bStageBytes;
  if (stagingBytes > 0) {
    off = int64_t(llvm::alignTo(off, 1024));
    p.stagingOffset = off;
    off += stagingBytes;
  }
  p.barrierOffset = off;
  off += 2 * stages * 8 + 2 * 8;
  p.totalBytes = off + 1024; // slack for aligning the base to 1024 bytes
  return p;
}

std::optional<int64_t> aicc::wgmmaStagesBesideStaging(int64_t stages, int64_t minStages,
                                                      int64_t stageBytes, int64_t stagingBytes,
                                                      int64_t maxSharedBytes) {
  int64_t fit = stages;
  while (fit > minStages && wgmmaPlanBytes(fit, stageBytes, stagingBytes) > maxSharedBytes)
    --fit;
  if (wgmmaPlanBytes(fit, stageBytes, stagingBytes) <= maxSharedBytes)
    return fit;
  return std::nullopt;
}

std::string aicc::wgmmaSharedMemoryProblem(const MatmulTile &t, const ChipInfo &chip) {
  int64_t max = chip.sharedMemPerBlockBytes;
  std::string text =
      "num_stages x stage bytes exceed " + std::to_string(max / 1024) + " KiB of shared memory";
  int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * operandBytes(t.operand);
  // num_stages is checked before it multiplies anything: a huge one would wrap the sizes.
  if (stageBytes <= 0 || t.stages() > max / stageBytes)
    return text;
  if (wgmmaPlanBytes(t.stages(), stageBytes, 0) > max)
    return text;
  return "";
}

std::string aicc::mmaSyncBlockProblem(const MatmulTile &t) {
  if (t.operand != TensorCoreOperand::F16 && t.operand != TensorCoreOperand::BF16)
    return "operands are not f16/bf16";
  for (int64_t d : {t.blockM, t.blockN, t.blockK})
    if (d < 16 || d > 256 || !llvm::isPowerOf2_64(d))
      return "BLOCK_M / BLOCK_N / BLOCK_K are not powers of two in [16, 256]";
  return "";
}

std::string aicc::mmaSyncTileProblem(const MatmulTile &t, MmaSyncWarpLayout *layout) {
  if (std::string problem = mmaSyncBlockProblem(t); !problem.empty())
    return problem;
  int64_t warps = t.numWarps;
  if (warps < 1 || warps > 16 || !llvm::isPowerOf2_64(warps))
    return "num_warps is not a power of two <= 16";
  // The most square warp tile, warpM >= warpN on ties.
  MmaSyncWarpLayout best;
  auto skew = [](int64_t x, int64_t y) { return x >= y ? 2 * (x / y) : 2 * (y / x) + 1; };
  for (int64_t wm = 1; wm <= warps; wm *= 2) {
    int64_t wn = warps / wm;
    if (t.blockM % (16 * wm) || t.blockN % (16 * wn))
      continue;
    int64_t m = t.blockM / wm, n = t.blockN / wn;
    if (!best.warpsM || skew(m, n) < skew(best.warpM, best.warpN))
      best = {wm, wn, m, n};
  }
  if (!best.warpsM)
    return "num_warps does not split BLOCK_M x BLOCK_N into 16 x 16 warp tiles";
  if (best.accumulatorRegisters() > kMmaSyncMaxAccumulatorRegisters)
    return "more than 128 accumulators per thread (raise num_warps)";
  if (layout)
    *layout = best;
  return "";
}

std::string aicc::mmaSyncSharedMemoryProblem(const MatmulTile &t, int64_t maxSharedBytes) {
  const char *text = "num_stages x stage bytes exceed the shared memory per block";
  int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * 2;
  // num_stages is checked before it multiplies anything (a huge one would wrap the sizes).
  if (stageBytes <= 0 || t.stages() > maxSharedBytes / stageBytes)
    return text;
  if (t.stages() * stageBytes > maxSharedBytes)
    return text;
  return "";
}

int64_t aicc::attentionMmaSyncSharedBytes(int64_t blockM, int64_t headSize, int64_t valueHeadSize) {
  // Rows of a power of two elements (the swizzle's whole rows).
  int64_t d = (int64_t)llvm::PowerOf2Ceil(headSize), dv = (int64_t)llvm::PowerOf2Ceil(valueHeadSize);
  return (blockM * d + kAttentionMmaSyncStages * kAttentionMmaSyncBlockN * (d + dv)) * 2;
}

std::string aicc::attentionMmaSyncProblem(const AttentionShape &a, const ChipInfo &chip) {
  if (!chip.has(ChipFeature::MmaSync))
    return std::string(chip.name) + " has no mma.sync";
  if (a.operand != TensorCoreOperand::F16 && a.operand != TensorCoreOperand::BF16)
    return "query, key and value must all be f16 or all bf16";
  auto headOk = [](int64_t d) { return d >= 16 && d <= kAttentionMmaSyncMaxHeadSize && d % 16 == 0; };
  if (!headOk(a.headSize) || !headOk(a.valueHeadSize))
    return "head sizes must be multiples of 16 in [16, 256], got D = " +
           std::to_string(a.headSize) + ", Dv = " + std::to_string(a.valueHeadSize);
  if (!a.keyRowMajor && a.keyLength % 8 != 0)
    return "K^T stored [.., D, Skv] needs Skv % 8 == 0 (16-byte rows), got Skv = " +
           std::to_string(a.keyLength);
  if (a.batch > 65535)
    return "more than 65535 batch matrices (" + std::to_string(a.batch) +
           ": the programs along CUDA's grid y)";
  if (!a.plainOutput)
    return "the GPU kernel stores the attention itself (no epilogue ops, output in the "
           "operands' type)";
  if (attentionMmaSyncSharedBytes(kAttentionMmaSyncBlockM, a.headSize, a.valueHeadSize) >
      chip.sharedMemPerBlockBytes)
    return "the Q block and two K / V stages exceed the shared memory per block";
  return "";
}

std::string aicc::attentionSimtProblem(const AttentionShape &a, const ChipInfo &chip) {
  if (!chip.isGPU)
    return std::string(chip.name) + " is not a GPU";
  if (a.operand != TensorCoreOperand::F32)
    return "query, key and value must all be f32";
  auto headOk = [](int64_t d) { return d >= 1 && d <= kAttentionSimtMaxHeadSize; };
  if (!headOk(a.headSize) || !headOk(a.valueHeadSize))
    return "head sizes must be in [1, " + std::to_string(kAttentionSimtMaxHeadSize) +
           "], got D = " + std::to_string(a.headSize) +
           ", Dv = " + std::to_string(a.valueHeadSize);
  if (a.batch > 65535)
    return "more than 65535 batch matrices (" + std::to_string(a.batch) +
           ": the programs along CUDA's grid y)";
  return "";
}

int64_t aicc::chooseAttentionKVSplits(int64_t programs, int64_t keyBlocks, int64_t threads,
                                      int64_t sharedBytes, const ChipInfo &hw) {
  if (programs <= 0 || threads <= 0 || sharedBytes <= 0 || hw.smCount <= 0)
    return 1;
  int64_t perSM = std::min(hw.sharedMemPerSMBytes / sharedBytes,
                           hw.maxThreadsPerSM > 0 ? hw.maxThreadsPerSM / threads : int64_t(1));
  int64_t slots = hw.smCount * std::max<int64_t>(1, perSM);
  int64_t most = std::min(kMaxAttentionKVSplits, keyBlocks / kAttentionMinBlocksPerSplit);
  if (programs >= slots || most < 2)
    return 1;
  auto efficiency = [&](int64_t s) {
    double waves = double(programs * s) / double(slots);
    return waves / std::ceil(waves);
  };
  auto eligible = [&](int64_t s) {
    return s == 1 || llvm::divideCeil(keyBlocks, s) != llvm::divideCeil(keyBlocks, s - 1);
  };
  double best = 0;
  for (int64_t s = 1; s <= most; ++s)
    if (eligible(s))
      best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= most; ++s)
    if (eligible(s) && efficiency(s) >= 0.85 * best)
      return s;
  return 1;
}

int64_t aicc::attentionWgmmaSharedBytes(int64_t headSize, int64_t valueHeadSize) {
  int64_t q = kAttentionWgmmaBlockM * headSize * 2;
  int64_t stage = kAttentionWgmmaBlockN * (headSize + valueHeadSize) * 2;
  // + the mbarriers (Q full, then K full, V full, K empty and V empty per stage, then Q empty)
  // + the alignment slack.
  return q + kAttentionWgmmaStages * stage + 8 * (2 + 4 * kAttentionWgmmaStages) + 1024;
}

std::string aicc::attentionWgmmaProblem(const AttentionShape &a, const ChipInfo &chip) {
  std::string why = attentionMmaSyncProblem(a, chip);
  if (!why.empty())
    return why;
  if (!chip.has(ChipFeature::Wgmma))
    return std::string(chip.name) + " has no wgmma";
  auto headOk = [](int64_t d) { return d == 64 || d == 128; };
  if (!headOk(a.headSize) || !headOk(a.valueHeadSize))
    return "head sizes must be 64 or 128, got D = " + std::to_string(a.headSize) +
           ", Dv = " + std::to_string(a.valueHeadSize);
  if (!a.keyRowMajor)
    return "K^T is stored [.., D, Skv] (the wgmma kernel reads K's rows)";
  if (a.biasAlongRows)
    return "a bias varying along the query rows (its loads spill in the wgmma kernel)";
  if (attentionWgmmaSharedBytes(a.headSize, a.valueHeadSize) > chip.sharedMemPerBlockBytes)
    return "the Q block and two K / V stages exceed the shared memory per block";
  return "";
}
