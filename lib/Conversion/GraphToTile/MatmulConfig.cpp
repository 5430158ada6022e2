//===- MatmulConfig.cpp - the matmul tile config heuristic (chooseMatmulConfig) ===//
//
// Which (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps) a matmul of a given shape runs
// with, by the target's tensor-core path (chip table features) and the hardware's SM count;
// docs/tensor-cores.md gives the rules and their measurements.
//
//===----------------------------------------------------------------------===//
#include "TemplateSupport.h"

#include "aicc/Target/TensorCoreRules.h"

using namespace mlir;
using namespace aicc;

int64_t aicc::mmaSyncNumWarps(int64_t blockM, int64_t blockN) {
  int64_t tiles16 = (blockM / 16) * (blockN / 16);
  int64_t w = std::max<int64_t>(std::min<int64_t>(4, tiles16), blockM * blockN / (64 * 64));
  return std::max<int64_t>(1, std::min<int64_t>(8, w));
}

/// The config of the generic (CUDA-core / CPU) path.
static MatmulConfig genericMatmulConfig(int64_t M, int64_t N, int64_t K);
/// The heuristic proper (chooseMatmulConfig checks its choice).
static MatmulConfig chooseTensorCoreConfig(int64_t M, int64_t N, int64_t K, Type elem,
                                           bool tmaRowsOK, const ChipInfo &target,
                                           const ChipInfo &hw, bool tf32KMajor, int64_t batch,
                                           bool keepPingPong, bool implicitGemm);

MatmulConfig aicc::chooseMatmulConfig(int64_t M, int64_t N, int64_t K, Type elem, bool tmaRowsOK,
                                      const ChipInfo &target, const ChipInfo &hw, bool tf32KMajor,
                                      int64_t batch, bool keepPingPong, bool implicitGemm) {
  MatmulConfig c = chooseTensorCoreConfig(M, N, K, elem, tmaRowsOK, target, hw, tf32KMajor, batch,
                                          keepPingPong, implicitGemm);
  // The config is the lowering's to run: checked against the path's rules
  // (include/aicc/Target/TensorCoreRules.h), which the lowering refuses a kernel by. A tile
  // they refuse gets the generic config (the heuristic's choices all pass).
  MatmulTile t{c.blockM,   c.blockN,    c.blockK,
               c.numWarps, c.numStages, tensorCoreOperandOf(elem, elem.isF32() && tf32KMajor)};
  if (c.wgmma && (!wgmmaTileProblem(t).empty() || !wgmmaSharedMemoryProblem(t, target).empty()))
    return genericMatmulConfig(M, N, K);
  if (c.mmaSync && (!mmaSyncTileProblem(t).empty() ||
                    !mmaSyncSharedMemoryProblem(t, target.sharedMemPerBlockBytes).empty()))
    return genericMatmulConfig(M, N, K);
  return c;
}

SmallVector<int64_t> aicc::templates::configExtents(Operation *anchor, ArrayRef<int64_t> extents,
                                                    int64_t value) {
  SmallVector<int64_t> out(extents);
  auto sd = anchor->getAttrOfType<DenseI64ArrayAttr>(kAnchorSymDimAttrName);
  if (value < 1 || !sd || sd.size() != 5)
    return out;
  int64_t axis = sd[0], factor = sd[2];
  int64_t size = 0;
  if (axis < 0 || axis >= (int64_t)out.size() || factor < 1 ||
      llvm::MulOverflow(factor, value, size) || size > out[axis])
    return out;
  out[axis] = size;
  return out;
}

static MatmulConfig genericMatmulConfig(int64_t M, int64_t N, int64_t K) {
  MatmulConfig c;
  // Generic config (CPU, sm_80/sm_90 CUDA-core path): tiles sized so every tile buffer of the
  // bufferizing GPU path fits the 48 KiB of static shared memory.
  c.blockM = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(M)));
  c.blockN = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(N)));
  c.blockK = std::min<int64_t>(32, std::max<int64_t>(16, llvm::PowerOf2Ceil(K)));
  return c;
}

static MatmulConfig chooseTensorCoreConfig(int64_t M, int64_t N, int64_t K, Type elem,
                                           bool tmaRowsOK, const ChipInfo &target,
                                           const ChipInfo &hw, bool tf32KMajor, int64_t batch,
                                           bool keepPingPong, bool implicitGemm) {
  MatmulConfig c = genericMatmulConfig(M, N, K);
  bool tf32 = elem.isF32() && tf32KMajor;
  bool half = elem.isF16() || elem.isBF16();
  bool wgmma = target.has(ChipFeature::Wgmma), mmaSync = target.has(ChipFeature::MmaSync);
  if (!tmaRowsOK || !((wgmma && (half || tf32)) || (!wgmma && mmaSync && half)))
    return c;
  // Programs per wave: one per SM of the hardware the kernel is tuned for.
  const int64_t kSMs = hw.smCount;
  if (!wgmma) {
    // sm_80 / sm_90: cp.async + ldmatrix + mma.sync (convert-tile-dot-to-mma-sync). Config
    // space: BLOCK_M in {16, 32, 64, 128}, BLOCK_N in {32, 64, 128, 256}, BLOCK_K = 32
    // (64-byte rows of f16/bf16: one cp.async chunk per 4 threads), warps by
    // mmaSyncNumWarps (64 x 64 warp tiles for the large blocks), num_stages = 4 (3 k blocks
    // in flight), fewer when K has fewer blocks. Heuristic:
    //   - BLOCK_M = the power of two >= M, from 16 (decode GEMMs) to 128;
    //   - BLOCK_N = 256 when the grid still has >= 2 waves of 132 programs at 128 x 256,
    //     else 128; then, while the grid has fewer than 132 programs (one per SM of an
    //     H100/H200), the larger of BLOCK_N (down to 32) and BLOCK_M (down to 64) is halved
    //     (square tiles read the fewest operand bytes per flop).
    c.mmaSync = true;
    c.blockK = 32;
    c.blockM = std::min<int64_t>(128, std::max<int64_t>(16, llvm::PowerOf2Ceil(M)));
    auto programs = [&](int64_t bm, int64_t bn) {
      return ((M + bm - 1) / bm) * ((N + bn - 1) / bn) * batch;
    };
    c.blockN = c.blockM == 128 && programs(128, 256) >= 2 * kSMs ? 256 : 128;
    while (programs(c.blockM, c.blockN) < kSMs) {
      if (c.blockN > 32 && (c.blockN >= c.blockM || c.blockM <= 64))
        c.blockN /= 2;
      else if (c.blockM > 64)
        c.blockM /= 2;
      else
        break;
    }
    c.numWarps = mmaSyncNumWarps(c.blockM, c.blockN);
    c.numStages = std::min<int64_t>(4, std::max<int64_t>(2, (K + c.blockK - 1) / c.blockK));
    return c;
  }
  // sm_90a, TMA + wgmma (convert-tile-dot-to-wgmma). Config space: BLOCK_M in {64, 128}
  // (m64 wgmma halves), BLOCK_N in {64, 128, 256} (the wgmma N), BLOCK_K = 64 (one 128-byte
  // swizzle row of f16/bf16), num_stages up to what fits in 227 KiB of shared memory. The
  // lowering runs 128 x BLOCK_N <= 128 tiles as ping-pong (each consumer warpgroup owns whole
  // tiles, one's epilogue overlapping the other's K loop) and 128 x 256 as cooperative.
  // Heuristic (measured on the H200, docs/tensor-cores.md):
  //   - BLOCK_M = 64 when M <= 64 (decode-style GEMMs: a taller tile would be padding), or
  //     when that gives more programs (with split-K) and 128-row tiles fill at most half
  //     the SMs and 64-row ones one wave;
  //   - f16 / bf16 matmuls with a plain epilogue (adds, multiplies, Relu, casts; not
  //     keepPingPong): BLOCK_N = 256
  //     (cooperative; 4 stages asked, the TMA-store epilogue keeps 3 beside its 64 KiB of
  //     staging) when 128 x 256 tiles still give >= 2 waves of 132 and fill the last wave
  //     about as well as 128 x 128 tiles do (twenty-first run, same run against ping-pong:
  //     4096^3 fp16 0.1908 / 0.1958 ms, 8192^3 1.500 / 1.539 ms, 8192 x 4096 x 11008 1.007 /
  //     1.135 ms; 1024 x 14336 x 4096 bf16, 3.4 waves against 6.8: 0.1773 / 0.1642 ms, so
  //     ping-pong there);
  //   - else BLOCK_N = 128 (ping-pong, 4 stages: 7% faster than cooperative with a GELU
  //     epilogue, 0.2124 against 0.2264 ms) when that still gives >= 132 tiles, else 64 so
  //     that more SMs stream the operands (small-M shapes are memory-bound);
  //   - num_stages = 4 for 128- and 256-wide tiles (ping-pong measured 8% slower at 5
  //     stages, 40% at 3), as many as fit (at most 8) for 64-wide tiles, which wait on
  //     memory.
  c.wgmma = true;
  c.blockK = tf32 ? 32 : 64; // one 128-byte swizzle row
  c.blockM = M <= 64 ? 64 : 128;
  int64_t tilesM = (M + c.blockM - 1) / c.blockM;
  c.blockN = (tilesM * ((N + 127) / 128) >= kSMs && N > 64) ? 128 : 64;
  // Under-filled grids: 64-row tiles when they give more programs than 128-row ones (each
  // counted with the split-K chooseSplitK gives it), 128-row ones leave more than half the
  // SMs idle, and 64-row ones still fit in one wave. Each program then has half the rows of
  // K loop and epilogue (a 128 x 64 tile runs ping-pong on one consumer warpgroup alone).
  // Measured on the H200 (docs/tensor-cores.md, "Under-filled grids"): bert2's 256 x 64 x
  // 256 GELU linear 0.0116 -> 0.0086 ms, 256 x 768 x 768 0.0082 -> 0.0070, llama's k / v
  // projection 1024 x 256 x 1024 (split 2 either way) 0.0088 -> 0.0080; 256 x 768 x 3072
  // keeps 128 rows split in 5 (120 programs; 64 rows split in 2 were 96 and slower, 0.0113
  // against 0.0105), and a second wave loses (gpt2's 256 x 2304 x 768: 144 tiles of 64 rows
  // 0.0107 against 72 of 128 rows 0.0084 ms). Implicit-GEMM convs (no split-K) too:
  // resnet18_f16 at batch 8 (ncu, the same bundle with every conv on 64 x 64 tiles against
  // the default, 2026-12-03): layer3's 3x3 convs (1568 x 256 x 2304, 52 -> 98 programs)
  // 26.8 -> 20.2 us, layer4's (392 x 512 x 4608, 32 -> 56) 44.3 -> 33.7 us; layer2's (6272 x
  // 128 x 1152, 98 programs of 128 rows: more than half the SMs) lost with 64-row tiles
  // (19.3 -> 22.8 us: a second wave), as did the 7x7 stem (784 -> 1568 programs).
  if (c.blockM == 128 && c.blockN == 64) {
    MatmulConfig c64 = c;
    c64.blockM = 64;
    auto programs = [&](const MatmulConfig &x) {
      return ((M + x.blockM - 1) / x.blockM) * ((N + x.blockN - 1) / x.blockN) * batch *
             (implicitGemm ? 1 : chooseSplitK(M, N, K, batch, x, hw));
    };
    int64_t p128 = programs(c), p64 = programs(c64);
    if (p64 > p128 && 2 * p128 <= kSMs && p64 <= kSMs) {
      c.blockM = 64;
      tilesM = (M + 63) / 64;
    }
  }
  // The share of the last wave of tiles the persistent CTAs keep busy.
  auto waveUse = [&](int64_t tiles) {
    return double(tiles) / double((tiles + kSMs - 1) / kSMs * kSMs);
  };
  int64_t tiles256 = tilesM * ((N + 255) / 256) * batch;
  if (half && !keepPingPong && c.blockN == 128 && tiles256 >= 2 * kSMs &&
      waveUse(tiles256) + 0.02 >= waveUse(tilesM * ((N + 127) / 128) * batch))
    c.blockN = 256;
  c.numWarps = 4 * (c.blockM / 64); // consumer warps; the lowering adds a producer warpgroup
  int64_t stageBytes = (c.blockM + c.blockN) * c.blockK * elem.getIntOrFloatBitWidth() / 8;
  int64_t fit = (target.sharedMemPerBlockBytes - 2048) / stageBytes;
  c.numStages = c.blockN >= 128 ? std::min<int64_t>(4, fit) : std::min<int64_t>(8, fit);
  return c;
}

int64_t aicc::chooseSplitK(int64_t M, int64_t N, int64_t K, int64_t batch, const MatmulConfig &c,
                           const ChipInfo &hw) {
  if (!(c.wgmma || c.mmaSync) || M < 1 || N < 1 || K < 1 || batch < 1)
    return 1;
  int64_t tiles = ((M + c.blockM - 1) / c.blockM) * ((N + c.blockN - 1) / c.blockN) * batch;
  int64_t numK = (K + c.blockK - 1) / c.blockK;
  if (2 * tiles > hw.smCount)
    return 1;
  int64_t s = std::min({hw.smCount / tiles, numK / kSplitKMinBlocks, tile::kMaxSplitK});
  if (s < 2)
    return 1;
  // The fewest slices of ceil(numK / s) blocks: no slice runs past K with nothing to do.
  int64_t perSlice = (numK + s - 1) / s;
  return (numK + perSlice - 1) / perSlice;
}
