//===- ConvertTileAttentionToMMASync.cpp - FlashAttention tile kernels -> mma.sync ---===//
//
// FlashAttention-2's forward pass (Dao, "FlashAttention-2: Faster Attention with Better
// Parallelism and Work Partitioning", 2023: Algorithm 1, and section 3.3's split of the
// query block across warps so that the softmax statistics never leave a warp) on the
// Ampere tensor-core instructions; the code is our own. The input is the GPU form of the
// attention template (AttentionGPUTemplate.cpp, buildAttentionGPU):
//
//   %q = tile.block_load %Q[%bq, %m0, %cq]                    [64, D]  (%cq: a head's column)
//   scf.for %n0 = 0 to Skv step 64 iter_args(%m, %l, %acc) {  (absent when Skv <= 64)
//     %kt = tile.block_load %K[%bk, %n0, 0] {transpose}       [D, 64]  (or %KT[%bk, 0, %n0])
//     %s  = tile.dot %q, %kt;  s * scale;  -inf outside the keys / above the diagonal
//     online softmax (max, exp, sum), %p16 = truncf(p)
//     %v  = tile.block_load %V[%bv, %n0, 0]                   [64, Dv]
//     %acc = tile.dot %p16, %v, acc * alpha
//   }
//   tile.block_store %Y[%b, %m0, 0], truncf(acc / l)
//
// One program = one CTA of num_warps (1, 2, 4 or 8: decode's few queries take 1 or 2) warps
// over BLOCK_M = 16 num_warps query rows; warp w owns rows 16 w .. 16 w + 15 of the block, as
// one m16 row of mma.m16n8k16 tiles:
//
//   Shared memory (dynamic, 16-bit elements): the Q block [BLOCK_M, D], then 2 stages of the K
//     block (stored as K's global layout has it: [64 keys, D] for a K^T read through a
//     transpose, [D, 64] for a stored K^T) and 2 stages of the V block [64, Dv]. Every
//     stored row of C 16-byte chunks keeps chunk c at c ^ phase(row) (swizzlePhase,
//     MmaSyncKernel.h: the XOR swizzle of ConvertTileDotToMMASync.cpp, so ldmatrix and
//     ldmatrix.trans are free of bank conflicts). Copies are cp.async.cg of 16 bytes, zero
//     filled outside the matrix (src-size 0), so ragged Sq / Skv read zeros.
//   Pipeline: group 0 = Q, group 1 = K/V block 0. Q's fragments are read once (ldmatrix
//     x4: the warp's m16 x k16 A tiles, D / 16 of them, kept in registers). Iteration j:
//     cp.async.wait_group 0 (block j has landed), bar.sync (all of it; and every warp is
//     done with stage (j - 1) % 2), issue block j + 1 into stage (j + 1) % 2 and commit,
//     then compute block j on stage j % 2 -- the copy of j + 1 overlaps the math of j.
//   S = Q K^T: per k16 slice of D, ldmatrix x4 gives the B fragments of two n8 tiles of
//     keys (.trans for a stored K^T); 8 n8 tiles = 32 f32 accumulators per thread. Thread
//     (g = lane / 4, t = lane % 4) holds rows g and g + 8 of its warp's 16, columns
//     8 n + 2 t + {0, 1} of n8 tile n (PTX ISA, "Matrix Fragments for mma.m16n8k16").
//   Online softmax in the log2 domain: x = s * scale * log2(e); keys >= Skv and keys above
//     the causal diagonal (j > i + Skv - Sq) are -inf, applied only on the blocks that
//     have such keys (a uniform branch); the row max over the thread's 16 values, then two
//     shuffles (xor 1, 2) across the quad that shares the row; m'' = (m' == -inf ? 0 : m');
//     alpha = 2^(m - m''), p = 2^(x - m'') by ex2.approx.f32; the row sum l stays the
//     thread's partial sum (its 16 columns) until the end, when two shuffles add the quad's.
//   O += P V with P in registers: the accumulators of n8 tiles 2 k and 2 k + 1 are, packed
//     to 16-bit pairs, the A fragment of k16 slice k of the keys (the m16n8 C layout puts
//     (g, 2t..2t+1) and (g + 8, 2t..2t+1) in c0..c3, the m16k16 A layout wants those in
//     a0..a3 and the next 8 columns in a4..a7); V's B fragments by ldmatrix x4 .trans.
//     O (Dv / 8 n8 tiles, 4 f32 each) is scaled by alpha first.
//   Causal block skipping: a program stops after the last key block its last row sees,
//     min(ceil(Skv / 64), (m0 + 63 + Skv - Sq) / 64 + 1) blocks (exact: a fully masked
//     block adds p = 0 and leaves m, so alpha = 1); program_id(0) runs backwards, so the
//     query blocks with the most key blocks are scheduled first.
//   Epilogue: O / l per row, rounded to the output type, stored as 2-element vectors per
//     thread, rows >= Sq skipped. The store's matrices may be wider than Dv (the head merge
//     [B, H, S, Dv] -> [B, S, H, Dv] stored in place: the head is a column offset).
//   Split keys (flash-decoding; the template's KV_SPLITS, AttentionProgram::lseStore): the
//     program runs the key blocks of its loop's bounds (program_id(2)'s slice; the pipeline
//     starts at the slice's first block), stores O / l in f32 (0 where l = 0) and each row's
//     log-sum-exp (m + lg2(l)) ln 2 by the quad's first lane; a loop of no block (a slice
//     past the causal diagonal) waits for its prologue copy before the kernel exits. The
//     combine kernel after it is a register-path tile kernel.
//
// Refused (an error: graph-recompose-attention forms on GPU targets only the attention
// attentionMmaSyncProblem accepts, so a refusal is a broken contract): other element types,
// blocks other than 64 x 64, head sizes that are not multiples of 16 in [16, 256], a
// transposed Q or V, ops in the key loop the template's GPU form does not have (a bias
// other than index math and loads), rows that are not 16-byte multiples, more shared memory
// than the chip's.
//===----------------------------------------------------------------------===//
#include "AccumulatorEpilogue.h"
#include "AttentionProgram.h"
#include "MmaSyncKernel.h"
#include "OperandAddress.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <limits>

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEATTENTIONTOMMASYNC
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
using namespace aicc::mma_sync;

namespace {

constexpr int64_t kBN = kAttentionMmaSyncBlockN;

/// One operand block in shared memory: `rows` x `cols` as stored (the global layout, cols
/// contiguous), rows `pitch` elements apart (cols rounded up to a power of two: the swizzle
/// permutes whole rows of 2^k chunks, so a head of 80 or 96 takes rows of 128), at element
/// `offset`; K and V have two stages `stageElems` apart.
struct StagedBlock {
  tl::BlockLoadOp load;
  int64_t rows = 0, cols = 0, pitch = 0, offset = 0, stageElems = 0;
  /// 16-byte chunks of a stored row (the swizzle's row) / of the block's data in it.
  int64_t chunks() const { return pitch / kChunk; }
  int64_t dataChunks() const { return cols / kChunk; }
};

/// cols rounded up to a power of two.
int64_t pitchOf(int64_t cols) { return (int64_t)llvm::PowerOf2Ceil(cols); }

class AttentionKernel {
public:
  AttentionKernel(func::FuncOp fn, tl::ScheduleAttr sched, int64_t maxSharedBytes)
      : fn(fn), sched(sched), maxSharedBytes(maxSharedBytes), loc(fn.getLoc()) {}

  /// Why the kernel does not fit ("" when it does).
  std::string match();
  LogicalResult run();

private:
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  int64_t maxSharedBytes;
  Location loc;
  /// The matched tile program (AttentionProgram.h): the key loop, the loads and stores, the
  /// shapes, scale, causal flag and element type.
  AttentionProgram prog;
  StagedBlock q, k, v;
  int64_t numBlocks = 0, smemBytes = 0;
  /// num_warps (1, 2, 4 or 8), BLOCK_M = 16 x num_warps query rows, 32 x num_warps threads.
  int64_t warps = 4, BM = 64, threads = 128;

  // --- generation
  Value tid, lane, warp, smem;
  Value c32(OpBuilder &b, int64_t x) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), x);
  }
  Value cidx(OpBuilder &b, int64_t x) { return arith::ConstantIndexOp::create(b, loc, x); }
  Value idx(OpBuilder &b, Value i32v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), i32v);
  }
  Value f32c(OpBuilder &b, double x) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(x));
  }
  void issue(OpBuilder &b, const StagedBlock &blk, IRMapping &map, Value stage);
  /// The cp.async of chunk `c` (i32) of `blk` into the stage at element `base` (index); rows
  /// at or past `rows` (the load's run-time row count; null: none) are zero-filled.
  void copyChunk(OpBuilder &b, const StagedBlock &blk, Value src, Value batch, Value row0,
                 Value col0, Value rows, Value base, Value c);
  /// ldmatrix x4 at element offset `off` (index): the four 16-bit pairs as mma operands.
  SmallVector<Value> ldmatrix(OpBuilder &b, Value off, bool trans);
  Value mmaReg(OpBuilder &b, Value pair);
  SmallVector<Value> mma(OpBuilder &b, ArrayRef<Value> a, ArrayRef<Value> bb, ArrayRef<Value> c);
  Value ex2(OpBuilder &b, Value x);
  Value shuffleXor(OpBuilder &b, Value x, int64_t offset);
};

std::string AttentionKernel::match() {
  warps = sched.getNumWarps();
  if (warps != 1 && warps != 2 && warps != 4 && warps != 8)
    return "num_warps must be 1, 2, 4 or 8 (BLOCK_M = 16 x num_warps)";
  BM = 16 * warps;
  threads = 32 * warps;
  std::string why = matchAttentionProgram(fn, sched, BM, kBN, prog);
  if (!why.empty())
    return why;
  numBlocks = llvm::divideCeil(prog.Skv, kBN);
  auto headOk = [](int64_t d) { return d >= 16 && d <= kAttentionMmaSyncMaxHeadSize && d % 16 == 0; };
  if (!headOk(prog.D) || !headOk(prog.Dv))
    return "head sizes must be multiples of 16 in [16, 256]";
  int64_t pD = pitchOf(prog.D), pDv = pitchOf(prog.Dv);
  q = {prog.q, BM, prog.D, pD, 0, 0};
  k = prog.keyRows ? StagedBlock{prog.k, kBN, prog.D, pD, BM * pD, kBN * pD}
                   : StagedBlock{prog.k, prog.D, kBN, kBN, BM * pD, kBN * pD};
  v = {prog.v, kBN, prog.Dv, pDv, BM * pD + 2 * kBN * pD, kBN * pDv};
  smemBytes = attentionMmaSyncSharedBytes(BM, prog.D, prog.Dv);
  if (smemBytes > maxSharedBytes)
    return "the Q block and two K / V stages exceed the shared memory per block";
  return "";
}

/// The cp.async copies of block `blk` (its load's operands through `map`) into stage
/// `stage` (index; Q: 0): chunk c = tid + i * threads of the stored block is row c / C,
/// chunk c % C, at its swizzled place; 0 source bytes outside the matrix (zero fill).
void AttentionKernel::issue(OpBuilder &b, const StagedBlock &blk, IRMapping &map, Value stage) {
  tl::BlockLoadOp l = blk.load;
  Value src = map.lookupOrDefault(l.getPtr());
  Value batch = map.lookupOrDefault(l.getBatch());
  Value row0 = map.lookupOrDefault(l.getRow());
  Value col0 = map.lookupOrDefault(l.getCol());
  Value rows = l.getRows() ? map.lookupOrDefault(l.getRows()) : Value();
  Value base = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, cidx(b, blk.stageElems)), cidx(b, blk.offset));
  int64_t n = blk.rows * blk.chunks();
  for (int64_t i = 0; i * threads < n; ++i) {
    OpBuilder cb = b;
    if ((i + 1) * threads > n) {
      // The last round covers only part of the threads (8 warps, a 16-wide head).
      auto guard = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, c32(b, n - i * threads)),
          /*withElse=*/false);
      cb = guard.getThenBodyBuilder();
    }
    copyChunk(cb, blk, src, batch, row0, col0, rows, base,
              arith::AddIOp::create(cb, loc, tid, c32(cb, i * threads)));
  }
}

void AttentionKernel::copyChunk(OpBuilder &b, const StagedBlock &blk, Value src, Value batch,
                                Value row0, Value col0, Value rows, Value base, Value c) {
  int64_t C = blk.chunks();
  Value r = arith::DivUIOp::create(b, loc, c, c32(b, C));
  Value ch = arith::RemUIOp::create(b, loc, c, c32(b, C));
  Value phys = arith::XOrIOp::create(b, loc, ch, swizzlePhase(b, loc, C, r));
  Value dst = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, r, c32(b, blk.pitch)),
                                    arith::MulIOp::create(b, loc, phys, c32(b, kChunk)));
  auto [gidx, inb] = blockLoadElement(
      b, loc, blk.load, batch, arith::AddIOp::create(b, loc, row0, r),
      arith::AddIOp::create(b, loc, col0, arith::MulIOp::create(b, loc, ch, c32(b, kChunk))), rows);
  // A padded row's chunks past the data (a head of 80 or 96) are zero-filled: every 8
  // threads of a copy phase then write the 8 chunks of one row's half, free of conflicts.
  if (blk.dataChunks() < C)
    inb = arith::AndIOp::create(
        b, loc, inb,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ch, c32(b, blk.dataChunks())));
  gidx = arith::SelectOp::create(b, loc, inb, gidx, c32(b, 0));
  Value srcElems = arith::SelectOp::create(b, loc, inb, cidx(b, kChunk), cidx(b, 0));
  nvgpu::DeviceAsyncCopyOp::create(
      b, loc, smem, ValueRange{arith::AddIOp::create(b, loc, base, idx(b, dst))}, src,
      ValueRange{idx(b, gidx)}, b.getIndexAttr(kChunk), srcElems, b.getUnitAttr());
}

Value AttentionKernel::mmaReg(OpBuilder &b, Value pair) {
  // mma.sync takes f16 pairs as vector<2xf16>, bf16 pairs as i32 (NVVM's operand types).
  if (prog.elem.isBF16())
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
  return pair;
}

SmallVector<Value> AttentionKernel::ldmatrix(OpBuilder &b, Value off, bool trans) {
  auto fragT = VectorType::get({4, 2}, prog.elem);
  Value f = nvgpu::LdMatrixOp::create(b, loc, fragT, smem, ValueRange{off}, trans,
                                      /*numTiles=*/4);
  SmallVector<Value> regs;
  for (int64_t j = 0; j < 4; ++j)
    regs.push_back(mmaReg(b, vector::ExtractOp::create(b, loc, f, ArrayRef<int64_t>{j})));
  return regs;
}

SmallVector<Value> AttentionKernel::mma(OpBuilder &b, ArrayRef<Value> a, ArrayRef<Value> bb,
                                        ArrayRef<Value> c) {
  auto resT =
      LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(4, b.getF32Type()));
  auto ptx = prog.elem.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
  Value d = NVVM::MmaOp::create(
      b, loc, resT, a, bb, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptx, ptx},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t e = 0; e < 4; ++e)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{e}));
  return out;
}

/// 2^x on the special function unit (PTX ex2.approx.f32; ex2(-inf) = +0).
Value AttentionKernel::ex2(OpBuilder &b, Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       b.getStringAttr("llvm.nvvm.ex2.approx.f32"), ValueRange{x})
      .getResult(0);
}

Value AttentionKernel::shuffleXor(OpBuilder &b, Value x, int64_t offset) {
  return gpu::ShuffleOp::create(b, loc, x, c32(b, offset), c32(b, 32), gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

LogicalResult AttentionKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Block &src = fn.getBody().front();
  Block *dst = new Block();
  for (BlockArgument a : src.getArguments())
    dst->addArgument(a.getType(), a.getLoc());
  fn.getBody().push_back(dst);
  OpBuilder b = OpBuilder::atBlockBegin(dst);
  auto i32 = [&](Value x) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x); };
  auto add = [&](OpBuilder &ob, Value x, Value y) -> Value {
    return arith::AddIOp::create(ob, loc, x, y);
  };
  auto mul = [&](OpBuilder &ob, Value x, int64_t c) -> Value {
    return arith::MulIOp::create(ob, loc, x, c32(ob, c));
  };
  tid = i32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  lane = arith::RemUIOp::create(b, loc, tid, c32(b, 32));
  warp = arith::DivUIOp::create(b, loc, tid, c32(b, 32));
  Value g = arith::DivUIOp::create(b, loc, lane, c32(b, 4));
  Value t4 = arith::RemUIOp::create(b, loc, lane, c32(b, 4));

  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value dyn = gpu::DynamicSharedMemoryOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(), wg));
  smem =
      memref::ViewOp::create(b, loc, MemRefType::get({smemBytes / 2}, prog.elem, AffineMap(), wg),
                             dyn, cidx(b, 0), ValueRange{});

  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), dst->getArguments()))
    map.map(o, n);
  Value pids[3] = {i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
                   i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
                   i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z))};
  // Causal: the last query blocks (the most key blocks) start first, so the short programs
  // fill the tail of the grid (FlashAttention-2's order).
  if (prog.causal)
    pids[0] = arith::SubIOp::create(b, loc, c32(b, sched.getGrid()[0] - 1), pids[0]);
  fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  if (failed(cloneScalarOps(b, src, map, prog.loop ? prog.loop.getOperation() : nullptr, sched,
                            "convert-tile-attention-to-mma-sync")))
    return failure();
  // The block row of the program's first query (Q's block-load row).
  Value m0 = map.lookupOrDefault(q.load.getRow());
  // The keys: the run's count, or Skv.
  Value keyLimit = prog.runSkv ? map.lookupOrDefault(prog.runSkv) : c32(b, prog.Skv);

  // ldmatrix addresses (ConvertTileDotToMMASync.cpp's file comment): q8 = lane / 8 picks the
  // 8x8 matrix, r = lane % 8 its row; every row a thread addresses is r mod 8, so its
  // swizzle phase is phase(r). A (Q): matrix q8 = (row half q8 % 2, k half q8 / 2); B (K^T,
  // V): (k half q8 % 2, n half q8 / 2).
  Value q8 = arith::DivUIOp::create(b, loc, lane, c32(b, 8));
  Value r = arith::RemUIOp::create(b, loc, lane, c32(b, 8));
  Value qLo = arith::AndIOp::create(b, loc, q8, c32(b, 1));
  Value qHi = arith::ShRUIOp::create(b, loc, q8, c32(b, 1));
  auto chunkAtIn = [&](OpBuilder &ob, Value chunk, const StagedBlock &blk) -> Value {
    return mul(ob, arith::XOrIOp::create(ob, loc, chunk, swizzlePhase(ob, loc, blk.chunks(), r)),
               kChunk);
  };
  // Chunk 2 i + half (half: an i32 in {0, 1}) of a stored row, at its swizzled place: the
  // phase (< 8) flips only a chunk's low 3 bits, so for i >= 4 it is chunk 2 (i % 4) + half's
  // place plus 8 (i / 4) chunks -- a constant the ldmatrix address takes as its immediate,
  // leaving 4 live offsets instead of D / 16 (head 256: 16).
  auto pairChunkAt = [&](OpBuilder &ob, Value half, int64_t i, const StagedBlock &blk) -> Value {
    Value at = chunkAtIn(ob, add(ob, half, c32(ob, 2 * (i % 4))), blk);
    if (i < 4)
      return at;
    return add(ob, at, c32(ob, i / 4 * 8 * kChunk));
  };
  // B operand tables: off = t1[pair of n8 tiles] + t2[k16 slice] within a stage.
  auto bTables = [&](const StagedBlock &blk, bool kContiguous, int64_t pairs, int64_t slices,
                     SmallVector<Value> &t1, SmallVector<Value> &t2) {
    if (kContiguous) {
      // Stored row = 16 p + 8 (n half) + r, chunk = 2 kk + (k half).
      Value row = add(b, mul(b, qHi, 8), r);
      for (int64_t p = 0; p < pairs; ++p)
        t1.push_back(idx(b, mul(b, add(b, row, c32(b, 16 * p)), blk.pitch)));
      for (int64_t kk = 0; kk < slices; ++kk)
        t2.push_back(idx(b, pairChunkAt(b, qLo, kk, blk)));
    } else {
      // Stored row = 16 kk + 8 (k half) + r, chunk = 2 p + (n half).
      for (int64_t p = 0; p < pairs; ++p)
        t1.push_back(idx(b, pairChunkAt(b, qHi, p, blk)));
      Value row = add(b, mul(b, qLo, 8), r);
      for (int64_t kk = 0; kk < slices; ++kk)
        t2.push_back(idx(b, mul(b, add(b, row, c32(b, 16 * kk)), blk.pitch)));
    }
  };
  SmallVector<Value> kT1, kT2, vT1, vT2;
  bTables(k, prog.keyRows, kBN / 16, prog.D / 16, kT1, kT2);
  bTables(v, /*kContiguous=*/false, prog.Dv / 16, kBN / 16, vT1, vT2);

  // Prologue: group 0 = Q, group 1 = key block 0.
  auto issueBlock = [&](OpBuilder &ib, Value j, Value stage) -> LogicalResult {
    IRMapping kmap = map;
    if (prog.loop) {
      kmap.map(prog.loop.getInductionVar(),
               arith::MulIOp::create(ib, loc, j, cidx(ib, kBN)).getResult());
      if (failed(cloneScalarOps(ib, *prog.loop.getBody(), kmap, nullptr, sched,
                                "convert-tile-attention-to-mma-sync")))
        return failure();
    }
    issue(ib, k, kmap, stage);
    issue(ib, v, kmap, stage);
    return success();
  };
  // The key blocks [nBegin, nEnd) the program computes: the loop's bounds (all of them, or
  // a split's slice), causal ones up to its last row's diagonal.
  Value nBegin = cidx(b, 0), nEnd = cidx(b, numBlocks);
  if (prog.loop) {
    nBegin = arith::DivUIOp::create(b, loc, map.lookupOrDefault(prog.loop.getLowerBound()),
                                    cidx(b, kBN));
    nEnd = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, map.lookupOrDefault(prog.loop.getUpperBound()),
                              cidx(b, kBN - 1)),
        cidx(b, kBN));
  }
  issue(b, q, map, cidx(b, 0));
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  if (failed(issueBlock(b, nBegin, arith::RemUIOp::create(b, loc, nBegin, cidx(b, 2)))))
    return failure();
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 1);
  gpu::BarrierOp::create(b, loc);
  // Q's A fragments, one x4 per k16 slice: stored row = 16 warp + 8 (row half) + r, chunk
  // = 2 kk + (k half). Held in registers across the key loop up to D = 128 (32 registers);
  // a larger head reads them from shared memory at each key block (Q stays there): 64 more
  // registers next to D = 256's 128 accumulators spilled (ptxas 13.0, 264 bytes).
  Value qRowOff = mul(b, add(b, add(b, mul(b, warp, 16), mul(b, qLo, 8)), r), q.pitch);
  auto loadQ = [&](OpBuilder &ob, int64_t kk) {
    return ldmatrix(ob, idx(ob, add(ob, qRowOff, pairChunkAt(ob, qHi, kk, q))),
                    /*trans=*/false);
  };
  bool qInRegisters = prog.D <= kAttentionMmaSyncQInRegistersMaxHeadSize;
  SmallVector<SmallVector<Value>> qFrag;
  if (qInRegisters)
    for (int64_t kk = 0; kk < prog.D / 16; ++kk)
      qFrag.push_back(loadQ(b, kk));

  if (prog.causal) {
    Value last = arith::DivUIOp::create(b, loc, add(b, m0, c32(b, BM - 1 + prog.Skv - prog.Sq)),
                                        c32(b, kBN));
    nEnd = arith::MinUIOp::create(b, loc, nEnd, idx(b, add(b, last, c32(b, 1))));
  }
  double ninf = -std::numeric_limits<double>::infinity();
  int64_t oRegs = prog.Dv / 8 * 4;
  SmallVector<Value> init = {f32c(b, ninf), f32c(b, ninf), f32c(b, 0.0), f32c(b, 0.0)};
  init.append(oRegs, f32c(b, 0.0));
  // This thread's two rows (absolute query index) and its first column in an n8 tile.
  Value row0 = add(b, add(b, m0, mul(b, warp, 16)), g);
  Value row1 = add(b, row0, c32(b, 8));
  Value col2t = mul(b, t4, 2);
  double c = prog.scale * kLog2E;

  auto kLoop = scf::ForOp::create(b, loc, nBegin, nEnd, cidx(b, 1), init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value j = kLoop.getInductionVar();
    ValueRange carried = kLoop.getRegionIterArgs();
    NVVM::CpAsyncWaitGroupOp::create(lb, loc, 0);
    gpu::BarrierOp::create(lb, loc);
    Value next = arith::AddIOp::create(lb, loc, j, cidx(lb, 1));
    auto more = scf::IfOp::create(
        lb, loc, arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, next, nEnd),
        /*withElse=*/false);
    {
      OpBuilder ib = more.getThenBodyBuilder();
      if (failed(issueBlock(ib, next, arith::RemUIOp::create(ib, loc, next, cidx(ib, 2)))))
        return failure();
    }
    NVVM::CpAsyncCommitGroupOp::create(lb, loc);
    // Fewer query rows than the block with 4 or more warps (a decode step of head 256: 8
    // warps share a 64-key block's copies, one query row): a warp whose 16 rows are all past
    // them only copies; its products, softmax and P V are skipped (a warp-uniform branch, no
    // barrier inside), its carried values kept. Not at 1 or 2 warps: the branch's extra live
    // values took the D = 128 decode kernel's spills from 20 to 28 bytes (ptxas 13.0).
    scf::IfOp computes;
    if (prog.Sq < BM && warps >= 4) {
      SmallVector<Type> types(carried.getTypes());
      Value active = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                           add(lb, m0, mul(lb, warp, 16)), c32(lb, prog.Sq));
      computes = scf::IfOp::create(lb, loc, types, active, /*withElseRegion=*/true);
      OpBuilder eb = computes.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, carried);
      lb.setInsertionPointToStart(&computes.getThenRegion().front());
    }
    Value stage = arith::RemUIOp::create(lb, loc, j, cidx(lb, 2));
    Value kBase = arith::AddIOp::create(
        lb, loc, arith::MulIOp::create(lb, loc, stage, cidx(lb, k.stageElems)), cidx(lb, k.offset));
    Value vBase = arith::AddIOp::create(
        lb, loc, arith::MulIOp::create(lb, loc, stage, cidx(lb, v.stageElems)), cidx(lb, v.offset));
    constexpr int64_t nTiles = kBN / 8;
    // The bias of the block's scores (global loads issued before the products, so their
    // latency hides under them), in the log2 domain.
    SmallVector<Value> bias;
    if (prog.bias) {
      Value rowLocal = add(lb, mul(lb, warp, 16), g);
      auto regs = emitAttentionBias(
          lb, loc, prog, map, arith::MulIOp::create(lb, loc, j, cidx(lb, kBN)),
          {rowLocal, add(lb, rowLocal, c32(lb, 8))}, lane, 4 * nTiles, sched,
          "convert-tile-attention-to-mma-sync");
      if (failed(regs))
        return failure();
      bias = std::move(*regs);
    }
    // S = Q K^T: 8 n8 tiles of keys, 4 f32 each.
    SmallVector<SmallVector<Value>> S(nTiles, SmallVector<Value>(4, f32c(lb, 0.0)));
    for (int64_t kk = 0; kk < prog.D / 16; ++kk) {
      SmallVector<Value> a = qInRegisters ? qFrag[kk] : loadQ(lb, kk);
      for (int64_t p = 0; p < kBN / 16; ++p) {
        Value off =
            arith::AddIOp::create(lb, loc, arith::AddIOp::create(lb, loc, kBase, kT1[p]), kT2[kk]);
        SmallVector<Value> f = ldmatrix(lb, off, /*trans=*/!prog.keyRows);
        S[2 * p] = mma(lb, a, {f[0], f[1]}, S[2 * p]);
        S[2 * p + 1] = mma(lb, a, {f[2], f[3]}, S[2 * p + 1]);
      }
    }
    // x = s * scale * log2(e) (+ bias * log2(e)).
    SmallVector<Value> x;
    Value cc = f32c(lb, c);
    for (int64_t n = 0; n < nTiles; ++n)
      for (int64_t e = 0; e < 4; ++e) {
        x.push_back(arith::MulFOp::create(lb, loc, S[n][e], cc));
        if (!bias.empty())
          x.back() = arith::AddFOp::create(lb, loc, x.back(), bias[n * 4 + e]);
      }
    // The masks, on the blocks that have masked keys (a uniform branch).
    Value n0 = arith::IndexCastUIOp::create(lb, loc, lb.getI32Type(),
                                            arith::MulIOp::create(lb, loc, j, cidx(lb, kBN)));
    Value needMask = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sgt,
                                           add(lb, n0, c32(lb, kBN)), keyLimit);
    if (prog.causal) {
      // The block's last key beyond the first row's diagonal.
      Value diag =
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sgt, add(lb, n0, c32(lb, kBN - 1)),
                                add(lb, m0, c32(lb, prog.Skv - prog.Sq)));
      needMask = arith::OrIOp::create(lb, loc, needMask, diag);
    }
    {
      SmallVector<Type> types(x.size(), lb.getF32Type());
      auto ifOp = scf::IfOp::create(lb, loc, types, needMask, /*withElseRegion=*/true);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value minf = f32c(tb, ninf);
      SmallVector<Value> masked;
      for (int64_t n = 0; n < nTiles; ++n)
        for (int64_t e = 0; e < 4; ++e) {
          Value col = add(tb, add(tb, n0, col2t), c32(tb, 8 * n + e % 2));
          Value keep = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::slt, col, keyLimit);
          if (prog.causal) {
            Value limit = add(tb, e < 2 ? row0 : row1, c32(tb, prog.Skv - prog.Sq));
            keep = arith::AndIOp::create(
                tb, loc, keep,
                arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sle, col, limit));
          }
          masked.push_back(arith::SelectOp::create(tb, loc, keep, x[n * 4 + e], minf));
        }
      scf::YieldOp::create(tb, loc, masked);
      OpBuilder eb = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, x);
      x.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    // Row max across the quad, m'', alpha.
    SmallVector<Value> mNew(2), mSafe(2), alpha(2);
    Value minf = f32c(lb, ninf);
    for (int64_t h = 0; h < 2; ++h) {
      Value mx = carried[h];
      for (int64_t n = 0; n < nTiles; ++n)
        for (int64_t e = 2 * h; e < 2 * h + 2; ++e)
          mx = arith::MaximumFOp::create(lb, loc, mx, x[n * 4 + e]);
      mx = arith::MaximumFOp::create(lb, loc, mx, shuffleXor(lb, mx, 1));
      mx = arith::MaximumFOp::create(lb, loc, mx, shuffleXor(lb, mx, 2));
      mNew[h] = mx;
      Value none = arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::OEQ, mx, minf);
      mSafe[h] = arith::SelectOp::create(lb, loc, none, f32c(lb, 0.0), mx);
      alpha[h] = ex2(lb, arith::SubFOp::create(lb, loc, carried[h], mSafe[h]));
    }
    // p = 2^(x - m''), the thread's partial row sums.
    SmallVector<Value> p(x.size());
    SmallVector<Value> l = {arith::MulFOp::create(lb, loc, carried[2], alpha[0]),
                            arith::MulFOp::create(lb, loc, carried[3], alpha[1])};
    for (int64_t n = 0; n < nTiles; ++n)
      for (int64_t e = 0; e < 4; ++e) {
        p[n * 4 + e] = ex2(lb, arith::SubFOp::create(lb, loc, x[n * 4 + e], mSafe[e / 2]));
        l[e / 2] = arith::AddFOp::create(lb, loc, l[e / 2], p[n * 4 + e]);
      }
    // O = O * alpha + P V.
    SmallVector<Value> O;
    for (int64_t i = 0; i < oRegs; ++i)
      O.push_back(arith::MulFOp::create(lb, loc, carried[4 + i], alpha[(i % 4) / 2]));
    auto pack = [&](Value lo, Value hi) -> Value {
      Value pair = vector::FromElementsOp::create(lb, loc, VectorType::get({2}, lb.getF32Type()),
                                                  ValueRange{lo, hi});
      return mmaReg(lb, arith::TruncFOp::create(lb, loc, VectorType::get({2}, prog.elem), pair));
    };
    for (int64_t kk = 0; kk < kBN / 16; ++kk) {
      auto P = [&](int64_t n, int64_t e) { return p[n * 4 + e]; };
      SmallVector<Value> a = {pack(P(2 * kk, 0), P(2 * kk, 1)), pack(P(2 * kk, 2), P(2 * kk, 3)),
                              pack(P(2 * kk + 1, 0), P(2 * kk + 1, 1)),
                              pack(P(2 * kk + 1, 2), P(2 * kk + 1, 3))};
      for (int64_t i = 0; i < prog.Dv / 16; ++i) {
        Value off =
            arith::AddIOp::create(lb, loc, arith::AddIOp::create(lb, loc, vBase, vT1[i]), vT2[kk]);
        SmallVector<Value> f = ldmatrix(lb, off, /*trans=*/true);
        for (int64_t half = 0; half < 2; ++half) {
          int64_t t = 2 * i + half;
          SmallVector<Value> acc(O.begin() + 4 * t, O.begin() + 4 * t + 4);
          SmallVector<Value> d = mma(lb, a, {f[2 * half], f[2 * half + 1]}, acc);
          std::copy(d.begin(), d.end(), O.begin() + 4 * t);
        }
      }
    }
    SmallVector<Value> yield = {mNew[0], mNew[1], l[0], l[1]};
    yield.append(O);
    scf::YieldOp::create(lb, loc, yield);
    if (computes) {
      OpBuilder end = OpBuilder::atBlockEnd(kLoop.getBody());
      scf::YieldOp::create(end, loc, computes.getResults());
    }
  }
  // No copy is in flight past the loop: its last group is empty -- unless the loop ran no
  // iteration (a split's slice past its rows' causal diagonal or past the run's keys), so
  // wait for block nBegin.
  if (prog.lseStore)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // Epilogue: O / l (the quad's partial sums added), rounded, stored by register pairs.
  if (failed(cloneScalarOps(b, src, map, nullptr, sched, "convert-tile-attention-to-mma-sync")))
    return failure();
  SmallVector<Value> O(kLoop.getResults().begin() + 4, kLoop.getResults().end());
  emitAttentionStore(b, loc, prog.store, map,
                     [&](Value r) { return add(b, add(b, r, mul(b, warp, 16)), g); }, lane, O,
                     {kLoop.getResult(2), kLoop.getResult(3)}, prog.zeroUndefinedRows,
                     prog.lseStore, {kLoop.getResult(0), kLoop.getResult(1)});
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kMmaSyncAttrName,
              tl::MmaSyncConfigAttr::get(ctx, BM, kBN, prog.D, kAttentionMmaSyncStages, warps, 1,
                                         tl::EpilogueStore::registers));
  return success();
}

struct ConvertTileAttentionToMMASyncPass
    : public aicc::impl::ConvertTileAttentionToMMASyncBase<ConvertTileAttentionToMMASyncPass> {
  using Base::Base;
  void runOnOperation() override {
    const ChipInfo *chip =
        resolveChip(getOperation(), ChipRole::Target, "", "sm_80", getArgument());
    if (!chip)
      return signalPassFailure();
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched) -> FailureOr<std::string> {
      AttentionKernel k(fn, sched, chip->sharedMemPerBlockBytes);
      std::string why = k.match();
      if (why.empty() && failed(k.run()))
        return failure();
      return why;
    };
    if (failed(lowerAttentionKernels(getOperation(), /*blockN=*/0, *chip, ChipFeature::MmaSync,
                                     "mma.sync", getArgument(), lower)))
      signalPassFailure();
  }
};
} // namespace
