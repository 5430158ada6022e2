//===- TensorCoreRules.h - which matmul tiles each tensor-core path runs ----*- C++ -*-===//
//
// One verify function per tensor-core path. The matmul tile heuristic (chooseMatmulConfig,
// lib/Conversion/GraphToTile/MatmulConfig.cpp) checks its choice with them, and the
// lowerings (convert-tile-dot-to-wgmma's WgmmaKernel::match, convert-tile-dot-to-mma-sync's
// MmaSyncKernel::match) refuse a kernel with their reason, so the config the templates
// predict and the kernel the lowering builds follow one rule set. The rules here are the
// tile-level ones: operand type, block shape, warps and the shared memory of the pipeline.
// What only the lowering can see (operand strides, the epilogue's ops, the TMA store's
// staging) stays in the lowering.
//
// Pure functions of plain data: unit-tested in unittests/Target/TensorCoreRulesTest.cpp.
//
//===----------------------------------------------------------------------------------===//
#ifndef AICC_TARGET_TENSORCORERULES_H
#define AICC_TARGET_TENSORCORERULES_H

#include "aicc/Target/Chip.h"

#include <cstdint>
#include <optional>
#include <string>

namespace aicc {

/// The operand element type of a matmul as the tensor cores see it.
enum class TensorCoreOperand {
  F16,
  BF16,
  /// f32 operands rounded to tf32 (input_precision = tf32, --allow-tf32).
  TF32,
  /// f32 operands computed exactly (input_precision = ieee): no tensor-core path.
  F32,
  /// Anything else (f64, integers).
  Other,
};

/// The TensorCoreOperand of matmul operands of element type `elem`; `tf32`: f32 operands
/// may be rounded to tf32.
TensorCoreOperand tensorCoreOperandOf(mlir::Type elem, bool tf32);

/// Bytes of one operand element in shared memory (f16/bf16: 2, tf32/f32: 4; Other: 0).
int64_t operandBytes(TensorCoreOperand t);

/// One matmul tile: the [BLOCK_M, BLOCK_N] output block, the K step BLOCK_K, the warps of a
/// program (mma.sync) and the pipeline depth.
struct MatmulTile {
  int64_t blockM = 0, blockN = 0, blockK = 0;
  int64_t numWarps = 0;
  /// Pipeline stages asked for; both paths run at least 2.
  int64_t numStages = 0;
  TensorCoreOperand operand = TensorCoreOperand::Other;
  /// Stages the lowering runs: max(2, numStages).
  int64_t stages() const { return numStages < 2 ? 2 : numStages; }
};

//===--- wgmma (sm_90a: TMA + mbarrier + wgmma.mma_async) -------------------------------===//

/// Bytes of one 128-byte swizzle row: BLOCK_K must cover whole rows (64 f16 / 32 tf32).
inline constexpr int64_t kWgmmaSwizzleBytes = 128;

/// Why convert-tile-dot-to-wgmma does not run `t`'s operand type and block shape, or ""
/// when it may: f16 / bf16 / tf32 operands, BLOCK_M in {64, 128} (one or two m64 consumer
/// warpgroups), BLOCK_N a multiple of 64 up to 256 (the wgmma N), BLOCK_K whole 128-byte
/// swizzle rows. (PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
/// wgmma.mma_async shapes m64nNk16 for f16/bf16, m64nNk8 for tf32.)
std::string wgmmaTileProblem(const MatmulTile &t);

/// Shared memory of a wgmma kernel's plan, bytes: `stages` stages of `stageBytes` (the A
/// and B blocks of one K step) then, 1024-aligned, `stagingBytes` of TMA-store staging,
/// then the stages' full/empty mbarriers (8 bytes each) and two more, plus 1024 bytes of
/// slack for aligning the dynamic shared memory base to 1024 (the 128-byte swizzle's atom).
int64_t wgmmaPlanBytes(int64_t stages, int64_t stageBytes, int64_t stagingBytes);

/// The dynamic shared memory of a wgmma kernel, bytes from the 1024-aligned base: the
/// `stages` A blocks, then the B blocks, then (when `stagingBytes` > 0, 1024-aligned) the
/// TMA-store staging buffers, then the 2 x stages + 2 mbarriers; `totalBytes` adds the 1024
/// bytes of alignment slack (= wgmmaPlanBytes when the stage sizes are 1024 multiples).
struct WgmmaSharedMemoryPlan {
  int64_t aOffset = 0, bOffset = 0, stagingOffset = 0, barrierOffset = 0, totalBytes = 0;
};
WgmmaSharedMemoryPlan planWgmmaSharedMemory(int64_t stages, int64_t aStageBytes,
                                            int64_t bStageBytes, int64_t stagingBytes);

/// The pipeline depth beside a TMA-store staging buffer of `stagingBytes`: the most stages
/// from `stages` down to `minStages` whose plan (wgmmaPlanBytes) fits in `maxSharedBytes`;
/// none when not even that many fit (the register store is kept then).
std::optional<int64_t> wgmmaStagesBesideStaging(int64_t stages, int64_t minStages,
                                                int64_t stageBytes, int64_t stagingBytes,
                                                int64_t maxSharedBytes);

/// Why `t`'s pipeline (t.stages() stages of (BLOCK_M + BLOCK_N) x BLOCK_K operand
/// elements, no staging) does not fit `chip`'s shared memory per block, or "".
std::string wgmmaSharedMemoryProblem(const MatmulTile &t, const ChipInfo &chip);

//===--- mma.sync (sm_80+: cp.async + ldmatrix + mma.sync m16n8k16) ---------------------===//

/// The warps of an mma.sync program over its output block: warpsM x warpsN warps, each
/// owning a warpM x warpN sub-block (multiples of 16).
struct MmaSyncWarpLayout {
  int64_t warpsM = 0, warpsN = 0, warpM = 0, warpN = 0;
  /// f32 accumulator registers per thread: (warpM / 16) x (warpN / 8) m16n8 tiles x 4.
  int64_t accumulatorRegisters() const { return (warpM / 16) * (warpN / 8) * 4; }
};

/// The most accumulator registers per thread the mma.sync lowering takes.
inline constexpr int64_t kMmaSyncMaxAccumulatorRegisters = 128;

/// Why convert-tile-dot-to-mma-sync does not run `t`'s operand type and block shape, or "":
/// f16 / bf16 operands (mma.sync m16n8k16), BLOCK_M / BLOCK_N / BLOCK_K powers of two in
/// [16, 256].
std::string mmaSyncBlockProblem(const MatmulTile &t);

/// mmaSyncBlockProblem(t), then the warps: why the lowering does not run them, or "" (and,
/// when `layout` is given, the warp layout it uses): BLOCK_M / BLOCK_N / BLOCK_K powers of
/// two in [16, 256], num_warps a power of two <= 16 that tiles the block into 16 x 16 warp
/// tiles (the most square one, warpM >= warpN on ties), at most 128 accumulators per thread.
std::string mmaSyncTileProblem(const MatmulTile &t, MmaSyncWarpLayout *layout = nullptr);

/// Why `t`'s cp.async ring (t.stages() stages of (BLOCK_M + BLOCK_N) x BLOCK_K 16-bit
/// elements) does not fit in `maxSharedBytes` (the chip's shared memory per block), or "".
std::string mmaSyncSharedMemoryProblem(const MatmulTile &t, int64_t maxSharedBytes);

//===--- FlashAttention-2 (mma.sync; every chip with mma.sync) --------------------------===//

/// The attention kernel of convert-tile-attention-to-mma-sync: 4 warps of 16 query rows
/// each (BLOCK_M = 64; the lowering also takes 8 warps, BLOCK_M = 128) and key blocks of
/// BLOCK_N = 64 in 2 cp.async stages.
inline constexpr int64_t kAttentionMmaSyncBlockM = 64;
inline constexpr int64_t kAttentionMmaSyncBlockN = 64;
inline constexpr int64_t kAttentionMmaSyncWarps = 4;
inline constexpr int64_t kAttentionMmaSyncStages = 2;
/// Largest head size (D and Dv, multiples of 16) of the mma.sync kernel: 256 as
/// FlashAttention-2's largest (Gemma, some vision transformers); a warp's O accumulator is
/// then 16 x 256 f32, 128 registers a thread.
inline constexpr int64_t kAttentionMmaSyncMaxHeadSize = 256;
/// Largest head size whose Q fragments stay in registers across the key loop (D / 16 x 4
/// registers); a larger head reads them from shared memory at each key block.
inline constexpr int64_t kAttentionMmaSyncQInRegistersMaxHeadSize = 128;
/// Decode: attention of at most this many queries runs the mma.sync kernel with one warp
/// per 16 queries (BLOCK_M = 16 or 32) on every GPU, sm_90a included (the FlashAttention-3
/// kernel's 128-row CTAs would compute 4-128x the rows).
inline constexpr int64_t kAttentionDecodeMaxQueries = 32;

//===--- Split keys (flash-decoding) ----------------------------------------------------===//

/// Most key slices per query block (--attention-kv-splits; the f32 partials temporary is
/// slices x the output's elements, plus one log-sum-exp per row and slice).
inline constexpr int64_t kMaxAttentionKVSplits = 16;

/// The most tile configs (kernel variants, one per shape bucket) one matmul or
/// implicit-GEMM conv over a bounded symbolic dim may get (--shape-buckets): each is a kernel
/// in the bundle's code, compiled and loaded whether a run uses it or not.
inline constexpr int64_t kMaxShapeBuckets = 16;
/// Fewest key blocks (of BLOCK_N) one slice runs when the split is chosen automatically.
inline constexpr int64_t kAttentionMinBlocksPerSplit = 4;

/// The key slices for an attention kernel of `programs` CTAs (query blocks x batch
/// matrices) over `keyBlocks` key blocks, each CTA of `threads` threads and `sharedBytes`
/// dynamic shared memory, on `hw`: 1 (no split) when the CTAs fill the resident slots (SMs x
/// CTAs per SM by shared memory and threads) or fewer than 2 x kAttentionMinBlocksPerSplit
/// key blocks; else FlashAttention-2's num_splits_heuristic (Dao, flash-attention
/// csrc/flash_attn/flash_api.cpp; our code): over S in [1, min(kMaxAttentionKVSplits,
/// keyBlocks / kAttentionMinBlocksPerSplit)], the wave efficiency e(S) = W / ceil(W) of W =
/// programs x S / slots, the fewest S with e(S) >= 0.85 max e, skipping an S whose slices
/// are as long as S - 1's.
int64_t chooseAttentionKVSplits(int64_t programs, int64_t keyBlocks, int64_t threads,
                                int64_t sharedBytes, const ChipInfo &hw);

/// One graph.attention as the mma.sync FlashAttention kernel sees it.
struct AttentionShape {
  /// The element type of query, key and value (all three the same, else Other).
  TensorCoreOperand operand = TensorCoreOperand::Other;
  /// D (query / key) and Dv (value / output) head sizes; Skv keys.
  int64_t headSize = 0, valueHeadSize = 0, keyLength = 0;
  /// An additive bias operand (masks other than causal), and whether it varies along the
  /// query rows (a [.., Sq, Skv] bias; not a padding mask [.., 1, Skv]).
  bool bias = false, biasAlongRows = false;
  /// Whether K is read as stored [..., Skv, D] (key_t is a transpose view of it); false: K^T
  /// itself is stored [..., D, Skv] (its rows must then be 16-byte multiples).
  bool keyRowMajor = true;
  /// Whether the kernel's result is the attention itself (no elementwise op after it in the
  /// group) in the operands' element type.
  bool plainOutput = true;
  /// The product of the result's batch dims: the programs along grid y (at most 65535).
  int64_t batch = 1;
};
/// Shared memory of the kernel, bytes: the Q block [blockM, D] and 2 stages of the K
/// [64, D] and V [64, Dv] blocks, 16-bit elements, rows of D and Dv rounded up to powers of
/// two (the swizzle permutes whole rows of 2^k 16-byte chunks).
int64_t attentionMmaSyncSharedBytes(int64_t blockM, int64_t headSize, int64_t valueHeadSize);
/// Why convert-tile-attention-to-mma-sync does not run `a` on `chip`, or "" when it does:
/// f16 / bf16 operands, D and Dv multiples of 16 in [16, 256] (k16 slices of the products;
/// at most 64 output accumulators per thread), a K^T stored [.., D, Skv] only with
/// Skv % 8 == 0, a plain output, at most 65535 batch matrices (CUDA's grid y limit), and
/// the shared memory within the chip's per block.
std::string attentionMmaSyncProblem(const AttentionShape &a, const ChipInfo &chip);

/// The generic GPU attention kernel, for f32 operands (no tensor-core path without tf32):
/// the cpu template's FlashAttention program (AttentionCPUTemplate.cpp) with blocks of
/// kAttentionSimtBlockM query rows x kAttentionSimtBlockN keys, lowered by convert-tile-to-gpu
/// (its tiles in shared memory, at most 48 KiB of them: heads up to
/// kAttentionSimtMaxHeadSize).
inline constexpr int64_t kAttentionSimtBlockM = 16;
inline constexpr int64_t kAttentionSimtBlockN = 16;
inline constexpr int64_t kAttentionSimtMaxHeadSize = 128;
/// Why the generic GPU attention kernel does not run `a` on `chip`, or "" when it does: a
/// GPU, f32 query, key and value, D and Dv in [1, kAttentionSimtMaxHeadSize], at most 65535
/// batch matrices (CUDA's grid y limit).
std::string attentionSimtProblem(const AttentionShape &a, const ChipInfo &chip);

//===--- FlashAttention-3 (wgmma + TMA, warp-specialized; sm_90a) ----------------------===//

/// The attention kernel of convert-tile-attention-to-wgmma: BLOCK_M = 128 query rows per CTA
/// (two consumer warpgroups of 64 rows) and key blocks of BLOCK_N = 128 in 2 TMA stages; one
/// producer warpgroup.
inline constexpr int64_t kAttentionWgmmaBlockM = 128;
inline constexpr int64_t kAttentionWgmmaBlockN = 128;
inline constexpr int64_t kAttentionWgmmaStages = 2;
/// num_warps of the tile program: the two consumer warpgroups (Triton's count for its
/// warp-specialized Hopper kernels); the lowering adds the producer warpgroup (384 threads).
inline constexpr int64_t kAttentionWgmmaWarps = 8;

/// Shared memory of the kernel, bytes (the 1024-byte alignment slack and the mbarriers
/// included): the Q block [128, D], 2 stages of the K [128, D] and V [128, Dv] blocks, 16-bit
/// elements in 128-byte swizzled TMA boxes.
int64_t attentionWgmmaSharedBytes(int64_t headSize, int64_t valueHeadSize);
/// Why convert-tile-attention-to-wgmma does not run `a` on `chip`, or "" when it does:
/// attentionMmaSyncProblem's rules, then a chip with wgmma, D and Dv in {64, 128} (whole
/// 128-byte swizzle rows; at most 64 f32 output accumulators per thread), K read as
/// stored [.., Skv, D] (a stored K^T keeps the mma.sync kernel) and no bias varying along the
/// query rows (its 64 loads per thread and key block spilled 84-136 bytes at D = 128 in
/// ptxas 13.0; a padding mask's 32 per key column do not). What it refuses runs as the
/// mma.sync kernel.
std::string attentionWgmmaProblem(const AttentionShape &a, const ChipInfo &chip);

} // namespace aicc

#endif // AICC_TARGET_TENSORCORERULES_H
