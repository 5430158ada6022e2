//===- ConvertTileAttentionToWGMMA.cpp - FlashAttention tile kernels -> Hopper wgmma --===//
//
// FlashAttention-3's forward pass on sm_90a (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao,
// "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision", 2024:
// section 3.1, producer-consumer asynchrony through warp specialization and a circular
// shared-memory buffer; section 3.2 and Algorithm 2, the overlap of one block's softmax with
// the next block's QK^T and the previous block's PV inside a warpgroup). The code is our own.
// The input is the attention template's GPU form (AttentionProgram.h) with BLOCK_M = 128
// and BLOCK_N = 128 (AttentionTemplate.cpp picks them on sm_90a where
// attentionWgmmaProblem, TensorCoreRules.h, accepts the attention).
//
//   CTA = 1 producer warpgroup + 2 consumer warpgroups (384 threads; setmaxnreg 24 / 240).
//     One CTA per 128 query rows (program_id 0) and batch matrix (program_id 1); consumer
//     warpgroup w owns rows 64 w .. 64 w + 63 of the block.
//   Shared memory (dynamic, 1024-byte aligned, every block in TMA boxes of [rows x 64
//     elements] = 128 bytes per row with the 128-byte swizzle): the Q block [128, D], then
//     2 stages of the K block [128 keys, D] and 2 of the V block [128 keys, Dv], then the
//     mbarriers: qFull, kFull[2], vFull[2], kEmpty[2], vEmpty[2], qEmpty (persistent).
//   Producer (thread 0 of warpgroup 0): arrive.expect_tx + TMA loads of the Q boxes on
//     qFull; per key block j (stage s = j % 2): wait kEmpty[s] (both consumers' S_{j-2} is
//     done), TMA of the K boxes on kFull[s]; wait vEmpty[s] (their P_{j-2} V_{j-2} is done),
//     the V boxes on vFull[s]. K and V have their own barriers both ways, so QK^T starts
//     while V is in flight and K_{j+2} loads while P_j V_j still reads V_j. TMA zero-fills
//     rows past Sq / Skv (3-D maps over the block loads' [batch, rows, cols] matrices: a
//     head's columns of a [B, S, H * D] matrix are the box's column origin).
//   Consumers: S = Q K_j^T by wgmma.mma_async m64n128k16 with both operands in shared
//     memory (Q K-major; K K-major: the keys are B's N), P V by wgmma m64nDvk16 with P from
//     registers (V MN-major, imm-trans-b = 1). The S accumulator layout (PTX ISA 9.7.15.5.1.1,
//     "Matrix Fragments for wgmma.mma_async.m64nNk16": register i of a thread is row
//     16 warp + lane / 4 + 8 ((i % 4) / 2), column 8 (i / 4) + 2 (lane % 4) + i % 2) is the
//     register A fragment layout of the k16 slices of P: registers 8 kk .. 8 kk + 7 of S,
//     rounded to 16-bit pairs, are the four A registers of slice kk. So P never leaves
//     registers.
//   Online softmax in the log2 domain as in the mma.sync kernel: x = s * scale * log2(e),
//     -inf at keys >= Skv and above the causal diagonal (on the blocks that have such keys:
//     a branch uniform over the warpgroup), the row max over the thread's 32 values of a row
//     then two quad shuffles, m'' = (m' == -inf ? 0 : m'), alpha = 2^(m - m''),
//     p = 2^(x - m''); the row sum stays per thread until the end.
//   Intra-warpgroup overlap (option intra-warpgroup-overlap; FlashAttention-3 Algorithm 2):
//     block 0's S and softmax run first; then iteration j issues S_j = Q K_j^T and
//     O += P_{j-1} V_{j-1} as two wgmma groups, waits for the first (wait_group 1), runs the
//     softmax of S_j while the second still runs on the tensor cores, waits for it, and
//     rescales O by alpha_j; block n-1's PV follows the loop. Off (the default: with it the
//     kernel ran at 0.94-1.04x the speed without it on the H200, docs/performance.md):
//     S_j, its softmax, then O = O alpha_j + P_j V_j, each product waited for at once.
//   Ping-pong (option warpgroup-pingpong; FlashAttention-3 section 3.1): the consumer
//     warpgroups take turns issuing their products -- warpgroup w waits on named barrier
//     1 + w (bar.sync, 256 threads) before it issues and passes the turn with bar.arrive on
//     the other's after, warpgroup 1 passing warpgroup 0 the first turn; warpgroup 0 takes
//     the turn warpgroup 1 passes last, so every arrival is matched. One warpgroup's softmax
//     then runs under the other's products. Off by default until measured.
//   Stage release: one arrival per consumer warpgroup on kEmpty[s] once its S_j completed,
//     on vEmpty[s] once its P_j V_j did.
//   Causal: the CTA stops after the last key block its last row sees; program_id(0) runs
//     backwards (the longest query blocks first). Both warpgroups run every block of the
//     CTA (warpgroup 0 computes at most one fully masked block: p = 0, alpha = 1).
//   Persistent grid (option persistent): min(tiles, max-ctas or the hardware's SM count)
//     CTAs; CTA c runs tile r * ctas + c in round r (causal: ctas - 1 - c in odd rounds, so
//     the tiles, longest first, spread evenly), tile t being program (t % gx, t / gx % gy,
//     t / (gx gy)) of the schedule's grid (causal: x = gx - 1 - t / (gy gz), the longest
//     first). Producer and consumers walk the same tiles; the key-block counter, so every
//     stage and phase, runs on across tiles, and a qEmpty mbarrier (one arrival per consumer
//     warpgroup once the tile's last product is done) lets the producer load the next Q,
//     then the next tile's K / V, while the consumers run the epilogue (FlashAttention-3's
//     persistent kernel, section 3.1). The ping-pong turns run on across tiles too.
//   Epilogue: O / l per row, rounded to the output type, stored as 2-element vectors per
//     thread, rows >= Sq skipped (the store's matrices may be wider than Dv: the head merge
//     stored in place).
//
// Register discipline around the asynchronous products (PTX ISA 9.7.15.5: "accessing the
// accumulator register or the registers of the A fragment ... before wgmma.wait_group ...
// is undefined", and wgmma.fence must order register writes before a wgmma reads them):
// every value that a wgmma reads (O, P) goes through an empty `asm volatile` that ties it
// ("+f" / "+r", CUTLASS's warpgroup_fence_operand) before wgmma.fence, and every result is
// taken through one after the wait, so LLVM cannot move the arithmetic on them across the
// fence or the wait.
//
// Refused (an error: graph-recompose-attention and the template form this kernel only where
// attentionWgmmaProblem accepts it): blocks other than 128 x 128, head sizes other than 64 /
// 128, a stored K^T, rows that break TMA's 16-byte stride rule, more shared memory than the
// chip's.
//===----------------------------------------------------------------------===//
#include "AccumulatorEpilogue.h"
#include "AttentionProgram.h"
#include "WgmmaKernel.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEATTENTIONTOWGMMA
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {

/// persistent=auto: causal kernels over more key blocks than this keep one CTA per tile.
/// Measured on an H100 (2026-12-05, docs/performance.md): the persistent grid is 1.09-1.24x
/// the one-CTA-per-tile kernel's speed for causal attention over 8 and 16 key blocks, 0.95x
/// over 32 and 0.92x over 64, where the hardware's dynamic order balances the uneven tiles
/// better than the static zigzag; 1.00-1.05x on every non-causal case.
constexpr int64_t kAttentionPersistentMaxCausalBlocks = 16;

constexpr int64_t kBM = kAttentionWgmmaBlockM;
constexpr int64_t kBN = kAttentionWgmmaBlockN;
constexpr int64_t kStages = kAttentionWgmmaStages;
constexpr int64_t kSwizzle = wgmma::kSwizzleBytes;
/// Elements of one 128-byte swizzle row (16-bit operands).
constexpr int64_t kBoxCols = 64;
/// Registers after setmaxnreg (FlashAttention-3's split for two consumer warpgroups).
constexpr int64_t kProducerRegs = 24;
constexpr int64_t kConsumerRegs = 240;
static_assert(128 * (wgmma::kEntryRegs - kProducerRegs) >=
                  256 * (kConsumerRegs - wgmma::kEntryRegs),
              "consumer warpgroups would wait forever in setmaxnreg.inc");

class AttentionWgmmaKernel {
public:
  /// `maxCtas`: the persistent grid's CTAs at most (0: not persistent, one CTA per tile);
  /// `autoPersistent`: causal kernels over more than kAttentionPersistentMaxCausalBlocks key
  /// blocks stay one CTA per tile.
  AttentionWgmmaKernel(func::FuncOp fn, tl::ScheduleAttr sched, int64_t maxSharedBytes,
                       bool overlap, bool pingpong, int64_t maxCtas, bool autoPersistent)
      : fn(fn), sched(sched), maxSharedBytes(maxSharedBytes), overlap(overlap), pingpong(pingpong),
        maxCtas(maxCtas), autoPersistent(autoPersistent), loc(fn.getLoc()) {}

  /// Why the kernel does not fit ("" when it does).
  std::string match();
  LogicalResult run();

private:
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  int64_t maxSharedBytes;
  bool overlap, pingpong;
  int64_t maxCtas;
  bool autoPersistent;
  Location loc;
  AttentionProgram p;
  /// The schedule's programs (tiles: 128 query rows of one batch matrix) and, persistent, the
  /// CTAs of the launch (0: one CTA per tile).
  int64_t numTiles = 0, ctas = 0;
  int64_t numBlocks = 0;
  /// Byte offsets from the aligned shared-memory base.
  int64_t qOff = 0, kOff = 0, vOff = 0, kStage = 0, vStage = 0, barOff = 0, smemBytes = 0;

  // --- generation state
  Value tid, smemBase;
  /// The consumers' scalars (the kernel's top level) and this thread's two tile-local rows,
  /// for the bias.
  const IRMapping *consumerMap = nullptr;
  SmallVector<Value> rowLocal;
  /// Tensor-map parameters of Q, K, V.
  Value qMap, kMap, vMap;

  Value c32(OpBuilder &b, int64_t x) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), x);
  }
  Value c64(OpBuilder &b, int64_t x) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), x);
  }
  Value f32c(OpBuilder &b, double x) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(x));
  }
  Value add(OpBuilder &b, Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(OpBuilder &b, Value x, int64_t y) {
    return y ? add(b, x, x.getType().isInteger(64) ? c64(b, y) : c32(b, y)) : x;
  }
  Value mul(OpBuilder &b, Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, c32(b, y));
  }
  /// Shared address (i64) -> pointer in address space 3 (7: shared::cluster for TMA dsts).
  Value ptr(OpBuilder &b, Value addr, unsigned space = 3) {
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), space),
                                    addr);
  }
  /// The mbarrier at byte `off` + 8 * stage (stage: i32 or null).
  Value barrier(OpBuilder &b, int64_t off, Value stage = Value()) {
    Value a = add(b, smemBase, barOff + off);
    if (stage)
      a = add(b, a,
              arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), stage),
                                    c64(b, 8)));
    return ptr(b, a);
  }
  int64_t qFullOff() const { return 0; }
  int64_t kFullOff() const { return 8; }
  int64_t vFullOff() const { return 8 + 8 * kStages; }
  int64_t kEmptyOff() const { return 8 + 16 * kStages; }
  int64_t vEmptyOff() const { return 8 + 24 * kStages; }
  /// Persistent: both consumer warpgroups are done with the tile's Q block.
  int64_t qEmptyOff() const { return 8 + 32 * kStages; }
  void waitParity(OpBuilder &b, Value bar, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, bar, parity, c32(b, 0x989680));
  }
  /// (stage, phase parity) of key block j (i32).
  std::pair<Value, Value> stageOf(OpBuilder &b, Value j) {
    Value s = arith::RemUIOp::create(b, loc, j, c32(b, kStages));
    Value ph = arith::AndIOp::create(b, loc, arith::DivUIOp::create(b, loc, j, c32(b, kStages)),
                                     c32(b, 1));
    return {s, ph};
  }
  /// Values through an empty asm that ties each ("+f" / "+r"): LLVM keeps the arithmetic on
  /// them on its side of the asm (see the file comment).
  SmallVector<Value> fenceOperands(OpBuilder &b, ArrayRef<Value> vals);
  /// S_j = Q K_j^T of this warpgroup's 64 rows: D / 16 wgmmas on stage `s` (i32), one
  /// committed group; returns the accumulator struct (not yet waited for).
  Value issueS(OpBuilder &b, Value cw, Value s);
  /// O += P V on stage `s`: Dv... wgmmas with P (the 4 A registers of each k16 slice) from
  /// registers, one committed group; returns O's registers (not yet waited for).
  SmallVector<Value> issuePV(OpBuilder &b, ArrayRef<Value> O, ArrayRef<Value> P, Value s);
  /// The online softmax of the S registers of key block `j` (i32): masks (on the blocks
  /// that need them), the new row max / sums, P packed as 16-bit pairs, and alpha.
  struct Softmax {
    SmallVector<Value> m, l, alpha, P;
  };
  /// (A bias it cannot evaluate, diagnosed, sets `biasFailed`.)
  Softmax softmax(OpBuilder &b, ArrayRef<Value> S, Value j, ArrayRef<Value> m, ArrayRef<Value> l,
                  ArrayRef<Value> rows, Value wgRow0);
  bool biasFailed = false;
  /// One tile's setup and work: `map` holds its program ids and top-level scalars, `round`
  /// (i32) counts this CTA's tiles before it, `base` (i32) its key blocks before it (the
  /// pipeline's stages and phases run on across tiles), `nEnd` (i32) is the tile's key blocks
  /// and `m0` its first query row.
  using TileBody = function_ref<LogicalResult(OpBuilder &, IRMapping &, Value round, Value base,
                                              Value nEnd, Value m0)>;
  /// Runs `body` on each tile of this CTA: the block ids' one, or (persistent) tiles
  /// r * ctas + c of rounds r = 0, 1, ... for CTA c (causal: c in odd rounds counts from
  /// the other end, so the tiles, longest first, spread evenly over the CTAs).
  LogicalResult forEachTile(OpBuilder &b, Block &src, const IRMapping &kernelMap, TileBody body);
  void emitProducer(OpBuilder &b, Block &src, IRMapping &map, Value nEnd, Value round, Value base);
  LogicalResult emitConsumer(OpBuilder &b, Block &src, const IRMapping &kernelMap);
};

std::string AttentionWgmmaKernel::match() {
  std::string why = matchAttentionProgram(fn, sched, kBM, kBN, p);
  if (!why.empty())
    return why;
  if (p.lseStore)
    return "split keys (flash-decoding partials) are the mma.sync kernel's";
  auto headOk = [](int64_t d) { return d == 64 || d == 128; };
  if (!headOk(p.D) || !headOk(p.Dv))
    return "head sizes must be 64 or 128";
  if (!p.keyRows)
    return "K must be read as stored [keys, D] (a stored K^T takes the mma.sync kernel)";
  numBlocks = llvm::divideCeil(p.Skv, kBN);
  ArrayRef<int64_t> grid = sched.getGrid();
  numTiles = grid[0] * grid[1] * grid[2];
  if (numTiles <= 0 || numTiles > std::numeric_limits<int32_t>::max())
    return "the grid's tile count does not fit in 32 bits";
  ctas = maxCtas > 0 ? std::min(numTiles, maxCtas) : 0;
  if (autoPersistent && p.causal && numBlocks > kAttentionPersistentMaxCausalBlocks)
    ctas = 0;
  qOff = 0;
  kOff = qOff + kBM * p.D * 2;
  kStage = kBN * p.D * 2;
  vOff = kOff + kStages * kStage;
  vStage = kBN * p.Dv * 2;
  barOff = vOff + kStages * vStage;
  smemBytes = attentionWgmmaSharedBytes(p.D, p.Dv);
  if (smemBytes > maxSharedBytes)
    return "the Q block and two K / V stages exceed the shared memory per block";
  return "";
}

SmallVector<Value> AttentionWgmmaKernel::fenceOperands(OpBuilder &b, ArrayRef<Value> vals) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> types;
  std::string outs, ins;
  for (size_t i = 0; i < vals.size(); ++i) {
    types.push_back(vals[i].getType());
    bool f = vals[i].getType().isF32();
    outs += std::string(i ? "," : "") + (f ? "=f" : "=r");
    ins += "," + std::to_string(i);
  }
  auto st = LLVM::LLVMStructType::getLiteral(ctx, types);
  Value r = LLVM::InlineAsmOp::create(b, loc, st, vals, "", outs + ins,
                                      /*has_side_effects=*/true, /*is_align_stack=*/false,
                                      LLVM::tailcallkind::TailCallKind::None,
                                      LLVM::AsmDialectAttr(), ArrayAttr())
                .getResult(0);
  SmallVector<Value> out;
  for (size_t i = 0; i < vals.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{(int64_t)i}));
  return out;
}

Value AttentionWgmmaKernel::issueS(OpBuilder &b, Value cw, Value s) {
  MLIRContext *ctx = b.getContext();
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kBN / 2, b.getF32Type()));
  auto wt = p.elem.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  // Q: this warpgroup's 64 rows of each [128 x 64] box; K: stage s, boxes [128 keys x 64].
  Value qBase =
      add(b, add(b, smemBase, qOff),
          arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), cw),
                                c64(b, 64 * kSwizzle)));
  Value kBase = add(b, add(b, smemBase, kOff),
                    arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), s),
                                          c64(b, kStage)));
  Value acc = LLVM::UndefOp::create(b, loc, accTy);
  for (int64_t kk = 0; kk < p.D / 16; ++kk) {
    // K-major slices: box (16 kk) / 64, byte (16 kk % 64) * 2 of the swizzle row.
    int64_t box = (16 * kk) / kBoxCols, inRow = (16 * kk % kBoxCols) * 2;
    Value da = wgmma::smemDescriptor(b, loc, add(b, qBase, box * kBM * kSwizzle + inRow), 16, 1024);
    Value db = wgmma::smemDescriptor(b, loc, add(b, kBase, box * kBN * kSwizzle + inRow), 16, 1024);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accTy, acc, da, db, NVVM::MMAShapeAttr::get(ctx, 64, kBN, 16),
        NVVM::WGMMATypesAttr::get(ctx, wt), NVVM::WGMMATypesAttr::get(ctx, wt),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, kk == 0 ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

SmallVector<Value> AttentionWgmmaKernel::issuePV(OpBuilder &b, ArrayRef<Value> O, ArrayRef<Value> P,
                                                 Value s) {
  MLIRContext *ctx = b.getContext();
  int64_t R = p.Dv / 2;
  Value vBase = add(b, add(b, smemBase, vOff),
                    arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), s),
                                          c64(b, vStage)));
  // wgmma with A in registers (the NVVM op takes descriptors only): d, {a0..a3}, b-desc,
  // scale-d (a predicate, always true: O starts at 0), imm-scale-a, imm-scale-b, imm-trans-b
  // (PTX ISA 9.7.15.5.2). V is MN-major
  // (Dv contiguous): imm-trans-b = 1, LBO = one box ([128 keys x 64] = 16 KiB, the next 64
  // columns), SBO = 1024 (the next 8 keys), slice kk at +16 kk rows.
  std::string t = p.elem.isF16() ? "f16" : "bf16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(p.Dv) + "k16.f32." + t + "." + t + " {";
  for (int64_t i = 0; i < R; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {$" + std::to_string(R) + ", $" + std::to_string(R + 1) + ", $" +
          std::to_string(R + 2) + ", $" + std::to_string(R + 3) + "}, $" + std::to_string(R + 4) +
          ", p, 1, 1, 1;\n}";
  std::string cons;
  for (int64_t i = 0; i < R; ++i)
    cons += (i ? ",=f" : "=f");
  cons += ",r,r,r,r,l";
  for (int64_t i = 0; i < R; ++i)
    cons += "," + std::to_string(i);
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(R, b.getF32Type()));
  SmallVector<Value> acc(O.begin(), O.end());
  for (int64_t kk = 0; kk < kBN / 16; ++kk) {
    Value db =
        wgmma::smemDescriptor(b, loc, add(b, vBase, 16 * kk * kSwizzle), kBN * kSwizzle, 1024);
    SmallVector<Value> operands(P.begin() + 4 * kk, P.begin() + 4 * kk + 4);
    operands.push_back(db);
    operands.append(acc);
    Value r = LLVM::InlineAsmOp::create(b, loc, accTy, operands, text, cons,
                                        /*has_side_effects=*/true, /*is_align_stack=*/false,
                                        LLVM::tailcallkind::TailCallKind::None,
                                        LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0);
    for (int64_t i = 0; i < R; ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{i});
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

AttentionWgmmaKernel::Softmax AttentionWgmmaKernel::softmax(OpBuilder &b, ArrayRef<Value> S,
                                                            Value j, ArrayRef<Value> m,
                                                            ArrayRef<Value> l, ArrayRef<Value> rows,
                                                            Value wgRow0) {
  int64_t R = kBN / 2;
  double ninf = -std::numeric_limits<double>::infinity();
  Value lane = arith::RemUIOp::create(b, loc, tid, c32(b, 32));
  Value col2t = mul(b, arith::RemUIOp::create(b, loc, lane, c32(b, 4)), 2);
  // x = s * scale * log2(e) (+ bias * log2(e)).
  SmallVector<Value> x;
  Value cc = f32c(b, p.scale * kLog2E);
  for (int64_t i = 0; i < R; ++i)
    x.push_back(arith::MulFOp::create(b, loc, S[i], cc));
  if (p.bias) {
    auto bias = emitAttentionBias(
        b, loc, p, *consumerMap,
        arith::IndexCastUIOp::create(b, loc, b.getIndexType(), mul(b, j, kBN)), rowLocal, lane, R,
        sched, "convert-tile-attention-to-wgmma");
    biasFailed |= failed(bias);
    for (int64_t i = 0; i < R && succeeded(bias); ++i)
      x[i] = arith::AddFOp::create(b, loc, x[i], (*bias)[i]);
  }
  // The masks, on the blocks with keys past Skv or (causal) above the first row's diagonal.
  Value n0 = mul(b, j, kBN);
  Value needMask =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, add(b, n0, kBN), c32(b, p.Skv));
  if (p.causal) {
    // The block's last key against the warpgroup's first row.
    Value first = wgRow0;
    Value diag = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, add(b, n0, kBN - 1),
                                       add(b, first, p.Skv - p.Sq));
    needMask = arith::OrIOp::create(b, loc, needMask, diag);
  }
  {
    SmallVector<Type> types(R, b.getF32Type());
    auto ifOp = scf::IfOp::create(b, loc, types, needMask, /*withElseRegion=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value minf = f32c(tb, ninf);
    SmallVector<Value> masked;
    for (int64_t i = 0; i < R; ++i) {
      Value col = add(tb, add(tb, n0, col2t), 8 * (i / 4) + i % 2);
      Value keep = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::slt, col, c32(tb, p.Skv));
      if (p.causal) {
        Value limit = add(tb, rows[(i % 4) / 2], p.Skv - p.Sq);
        keep = arith::AndIOp::create(
            tb, loc, keep, arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sle, col, limit));
      }
      masked.push_back(arith::SelectOp::create(tb, loc, keep, x[i], minf));
    }
    scf::YieldOp::create(tb, loc, masked);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, x);
    x.assign(ifOp.getResults().begin(), ifOp.getResults().end());
  }
  Softmax r;
  Value minf = f32c(b, ninf);
  SmallVector<Value> mSafe(2);
  auto shfl = [&](Value v, int64_t off) {
    return gpu::ShuffleOp::create(b, loc, v, c32(b, off), c32(b, 32), gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  for (int64_t h = 0; h < 2; ++h) {
    Value mx = m[h];
    for (int64_t i = 0; i < R; ++i)
      if ((i % 4) / 2 == h)
        mx = arith::MaximumFOp::create(b, loc, mx, x[i]);
    mx = arith::MaximumFOp::create(b, loc, mx, shfl(mx, 1));
    mx = arith::MaximumFOp::create(b, loc, mx, shfl(mx, 2));
    r.m.push_back(mx);
    Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mx, minf);
    mSafe[h] = arith::SelectOp::create(b, loc, none, f32c(b, 0.0), mx);
    r.alpha.push_back(LLVM::CallIntrinsicOp::create(
                          b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                          ValueRange{arith::SubFOp::create(b, loc, m[h], mSafe[h])})
                          .getResult(0));
    r.l.push_back(arith::MulFOp::create(b, loc, l[h], r.alpha[h]));
  }
  SmallVector<Value> pv(R);
  for (int64_t i = 0; i < R; ++i) {
    int64_t h = (i % 4) / 2;
    pv[i] = LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                          b.getStringAttr("llvm.nvvm.ex2.approx.f32"),
                                          ValueRange{arith::SubFOp::create(b, loc, x[i], mSafe[h])})
                .getResult(0);
    r.l[h] = arith::AddFOp::create(b, loc, r.l[h], pv[i]);
  }
  // P's A registers: slice kk is S registers 8 kk .. 8 kk + 7 as four 16-bit pairs.
  for (int64_t i = 0; i < R; i += 2) {
    Value pair = vector::FromElementsOp::create(b, loc, VectorType::get({2}, b.getF32Type()),
                                                ValueRange{pv[i], pv[i + 1]});
    Value h2 = arith::TruncFOp::create(b, loc, VectorType::get({2}, p.elem), pair);
    r.P.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), h2));
  }
  return r;
}

void AttentionWgmmaKernel::emitProducer(OpBuilder &b, Block &src, IRMapping &map, Value nEnd,
                                        Value round, Value base) {
  // Boxes of [rows x 64] (box j of a block at byte j * rows * 128), coordinates (col + 64 j,
  // row, batch) of the block load's 3-D map.
  auto loadBoxes = [&](OpBuilder &ob, tl::BlockLoadOp l, IRMapping &m, Value desc, Value dstBase,
                       int64_t rows, int64_t cols, Value bar) {
    Value batch = m.lookupOrDefault(l.getBatch());
    Value row = m.lookupOrDefault(l.getRow());
    Value col = m.lookupOrDefault(l.getCol());
    for (int64_t j = 0; j < cols / kBoxCols; ++j)
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          ob, loc, ptr(ob, add(ob, dstBase, j * rows * kSwizzle), 7), desc,
          ValueRange{add(ob, col, j * kBoxCols), row, batch}, bar, ValueRange{}, Value(), Value(),
          NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
  };
  // Persistent: the Q block of the tile before is free once both consumers released it (a
  // fresh barrier is in phase 0: waiting for parity 1, "the phase before", passes at once).
  if (ctas)
    waitParity(
        b, barrier(b, qEmptyOff()),
        arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc, round, c32(b, 1)), c32(b, 1)));
  Value qBar = barrier(b, qFullOff());
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), qBar, c32(b, kBM * p.D * 2),
                                         NVVM::MemScopeKind::CTA, false, Value());
  loadBoxes(b, p.q, map, qMap, add(b, smemBase, qOff), kBM, p.D, qBar);
  auto jLoop = scf::ForOp::create(b, loc, c32(b, 0), nEnd, c32(b, 1));
  OpBuilder lb = OpBuilder::atBlockBegin(jLoop.getBody());
  Value j = jLoop.getInductionVar();
  auto [s, ph] = stageOf(lb, add(lb, base, j));
  // A fresh barrier is in phase 0: waiting for parity 1 ("the phase before") passes at once.
  Value before = arith::XOrIOp::create(lb, loc, ph, c32(lb, 1));
  IRMapping kmap = map;
  if (p.loop) {
    kmap.map(p.loop.getInductionVar(),
             arith::IndexCastUIOp::create(lb, loc, lb.getIndexType(), mul(lb, j, kBN)).getResult());
    (void)cloneScalarOps(lb, *p.loop.getBody(), kmap, nullptr, sched,
                         "convert-tile-attention-to-wgmma");
  }
  // K_j then V_j, each once its stage is free, on its own `full` barrier.
  Value s64 = arith::ExtUIOp::create(lb, loc, lb.getI64Type(), s);
  auto loadStage = [&](int64_t emptyOff, int64_t fullOff, tl::BlockLoadOp l, Value desc,
                       int64_t off, int64_t stageBytes, int64_t cols) {
    waitParity(lb, barrier(lb, emptyOff, s), before);
    Value bar = barrier(lb, fullOff, s);
    NVVM::MBarrierArriveExpectTxOp::create(lb, loc, Type(), bar, c32(lb, stageBytes),
                                           NVVM::MemScopeKind::CTA, false, Value());
    Value base =
        add(lb, add(lb, smemBase, off), arith::MulIOp::create(lb, loc, s64, c64(lb, stageBytes)));
    loadBoxes(lb, l, kmap, desc, base, kBN, cols, bar);
  };
  loadStage(kEmptyOff(), kFullOff(), p.k, kMap, kOff, kStage, p.D);
  loadStage(vEmptyOff(), vFullOff(), p.v, vMap, vOff, vStage, p.Dv);
}

LogicalResult AttentionWgmmaKernel::emitConsumer(OpBuilder &b, Block &src,
                                                 const IRMapping &kernelMap) {
  int64_t R = p.Dv / 2;
  double ninf = -std::numeric_limits<double>::infinity();
  Value t128 = arith::RemUIOp::create(b, loc, tid, c32(b, 128));
  Value cw =
      arith::SubIOp::create(b, loc, arith::DivUIOp::create(b, loc, tid, c32(b, 128)), c32(b, 1));
  Value lane = arith::RemUIOp::create(b, loc, t128, c32(b, 32));
  Value warp = arith::DivUIOp::create(b, loc, t128, c32(b, 32));
  Value g = arith::DivUIOp::create(b, loc, lane, c32(b, 4));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t128, c32(b, 0));
  Value local0 = add(b, add(b, mul(b, cw, 64), mul(b, warp, 16)), g);
  rowLocal = {local0, add(b, local0, 8)};
  // Per tile: the warpgroup's first row, this thread's two rows (absolute query index) and
  // the key blocks of the CTA's tiles before (key block j of the tile is block base + j of
  // the pipeline).
  Value wgRow0, blockBase;
  SmallVector<Value> rows;
  // The K (V) stage of block j is released once this warpgroup's S_j (P_j V_j) completed.
  auto release = [&](OpBuilder &ob, int64_t emptyOff, Value j) {
    auto rel = scf::IfOp::create(ob, loc, leader, false);
    OpBuilder rb = rel.getThenBodyBuilder();
    Value s = arith::RemUIOp::create(rb, loc, add(rb, blockBase, j), c32(rb, kStages));
    NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrier(rb, emptyOff, s), Value());
  };
  // Ping-pong (FlashAttention-3 section 3.1): the two consumer warpgroups take turns issuing
  // their products, so one's softmax runs while the other's products occupy the tensor
  // cores. Warpgroup w waits on named barrier 1 + w (256 threads: its own bar.sync and the
  // other's bar.arrive) before it issues, and arrives on the other's after.
  auto turnSync = [&](OpBuilder &ob) {
    if (pingpong)
      NVVM::BarrierOp::create(ob, loc, TypeRange{}, add(ob, cw, 1), c32(ob, 256),
                              NVVM::BarrierReductionAttr(), Value());
  };
  auto turnPass = [&](OpBuilder &ob) {
    if (pingpong)
      NVVM::BarrierArriveOp::create(ob, loc, arith::SubIOp::create(ob, loc, c32(ob, 2), cw),
                                    c32(ob, 256));
  };
  if (pingpong) {
    // Warpgroup 0 goes first.
    Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cw, c32(b, 1));
    auto first = scf::IfOp::create(b, loc, second, false);
    OpBuilder fb = first.getThenBodyBuilder();
    NVVM::BarrierArriveOp::create(fb, loc, c32(fb, 1), c32(fb, 256));
  }
  auto sRegs = [&](OpBuilder &ob, Value acc) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < kBN / 2; ++i)
      r.push_back(LLVM::ExtractValueOp::create(ob, loc, acc, ArrayRef<int64_t>{i}));
    return fenceOperands(ob, r);
  };
  auto scaleO = [&](OpBuilder &ob, ArrayRef<Value> O, ArrayRef<Value> alpha) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < R; ++i)
      r.push_back(arith::MulFOp::create(ob, loc, O[i], alpha[(i % 4) / 2]));
    return r;
  };
  // Operands of a wgmma group through the operand fence, then wgmma.fence.
  auto fenceBeforeWgmma = [&](OpBuilder &ob, SmallVector<Value> &O, SmallVector<Value> &P) {
    SmallVector<Value> all(O);
    all.append(P);
    all = fenceOperands(ob, all);
    O.assign(all.begin(), all.begin() + O.size());
    P.assign(all.begin() + O.size(), all.end());
    NVVM::WgmmaFenceAlignedOp::create(ob, loc);
  };
  auto waitK = [&](OpBuilder &ob, Value j) {
    auto [s, ph] = stageOf(ob, add(ob, blockBase, j));
    waitParity(ob, barrier(ob, kFullOff(), s), ph);
    return s;
  };
  auto waitV = [&](OpBuilder &ob, Value j) {
    auto [s, ph] = stageOf(ob, add(ob, blockBase, j));
    waitParity(ob, barrier(ob, vFullOff(), s), ph);
    return s;
  };
  // S_j alone (its turn, waited for at once, K_j released) and its softmax.
  auto sAndSoftmax = [&](OpBuilder &ob, Value j, ArrayRef<Value> mm, ArrayRef<Value> ll) {
    Value sj = waitK(ob, j);
    turnSync(ob);
    NVVM::WgmmaFenceAlignedOp::create(ob, loc);
    Value acc = issueS(ob, cw, sj);
    turnPass(ob);
    NVVM::WgmmaWaitGroupSyncOp::create(ob, loc, 0);
    release(ob, kEmptyOff(), j);
    return softmax(ob, sRegs(ob, acc), j, mm, ll, rows, wgRow0);
  };
  // Loop state: m (2), l (2), O (R), and with the overlap P (kBN / 4 16-bit pairs) of the
  // block before.
  auto pack = [&](ArrayRef<Value> mm, ArrayRef<Value> ll, ArrayRef<Value> OO, ArrayRef<Value> PP) {
    SmallVector<Value> v(mm);
    v.append(ll.begin(), ll.end());
    v.append(OO.begin(), OO.end());
    v.append(PP.begin(), PP.end());
    return v;
  };
  auto tile = [&](OpBuilder &b, IRMapping &map, Value round, Value base, Value nEnd,
                  Value m0) -> LogicalResult {
    blockBase = base;
    consumerMap = &map;
    wgRow0 = add(b, m0, mul(b, cw, 64));
    Value row0 = add(b, add(b, wgRow0, mul(b, warp, 16)), g);
    rows = {row0, add(b, row0, 8)};
    waitParity(b, barrier(b, qFullOff()), arith::AndIOp::create(b, loc, round, c32(b, 1)));
    SmallVector<Value> O(R, f32c(b, 0.0));
    SmallVector<Value> m = {f32c(b, ninf), f32c(b, ninf)}, l = {f32c(b, 0.0), f32c(b, 0.0)};
    if (overlap) {
      // Block 0: S_0 and its softmax (O is 0: alpha is not needed).
      Value zero = c32(b, 0);
      Softmax sm = sAndSoftmax(b, zero, m, l);
      auto loop = scf::ForOp::create(b, loc, c32(b, 1), nEnd, c32(b, 1), pack(sm.m, sm.l, O, sm.P));
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value j = loop.getInductionVar();
        ValueRange it = loop.getRegionIterArgs();
        SmallVector<Value> mm(it.begin(), it.begin() + 2), ll(it.begin() + 2, it.begin() + 4);
        SmallVector<Value> OO(it.begin() + 4, it.begin() + 4 + R), PP(it.begin() + 4 + R, it.end());
        Value prev = arith::SubIOp::create(lb, loc, j, c32(lb, 1));
        Value sj = waitK(lb, j);
        Value sp = waitV(lb, prev);
        turnSync(lb);
        fenceBeforeWgmma(lb, OO, PP);
        Value accS = issueS(lb, cw, sj);
        SmallVector<Value> Onew = issuePV(lb, OO, PP, sp);
        turnPass(lb);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 1);
        release(lb, kEmptyOff(), j);
        Softmax smj = softmax(lb, sRegs(lb, accS), j, mm, ll, rows, wgRow0);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 0);
        Onew = fenceOperands(lb, Onew);
        release(lb, vEmptyOff(), prev);
        Onew = scaleO(lb, Onew, smj.alpha);
        scf::YieldOp::create(lb, loc, pack(smj.m, smj.l, Onew, smj.P));
      }
      ValueRange res = loop.getResults();
      m.assign(res.begin(), res.begin() + 2);
      l.assign(res.begin() + 2, res.begin() + 4);
      O.assign(res.begin() + 4, res.begin() + 4 + R);
      SmallVector<Value> P(res.begin() + 4 + R, res.end());
      // The last block's PV.
      Value last = arith::SubIOp::create(b, loc, nEnd, c32(b, 1));
      Value sl = waitV(b, last);
      turnSync(b);
      fenceBeforeWgmma(b, O, P);
      O = issuePV(b, O, P, sl);
      turnPass(b);
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
      O = fenceOperands(b, O);
      release(b, vEmptyOff(), last);
    } else {
      auto loop = scf::ForOp::create(b, loc, c32(b, 0), nEnd, c32(b, 1), pack(m, l, O, {}));
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value j = loop.getInductionVar();
        ValueRange it = loop.getRegionIterArgs();
        SmallVector<Value> mm(it.begin(), it.begin() + 2), ll(it.begin() + 2, it.begin() + 4);
        SmallVector<Value> OO(it.begin() + 4, it.end());
        Softmax smj = sAndSoftmax(lb, j, mm, ll);
        SmallVector<Value> Os = scaleO(lb, OO, smj.alpha);
        SmallVector<Value> P = smj.P;
        Value sv = waitV(lb, j);
        turnSync(lb);
        fenceBeforeWgmma(lb, Os, P);
        SmallVector<Value> Onew = issuePV(lb, Os, P, sv);
        turnPass(lb);
        NVVM::WgmmaWaitGroupSyncOp::create(lb, loc, 0);
        Onew = fenceOperands(lb, Onew);
        release(lb, vEmptyOff(), j);
        scf::YieldOp::create(lb, loc, pack(smj.m, smj.l, Onew, {}));
      }
      ValueRange res = loop.getResults();
      m.assign(res.begin(), res.begin() + 2);
      l.assign(res.begin() + 2, res.begin() + 4);
      O.assign(res.begin() + 4, res.end());
    }
    // Persistent: every product of the tile is done; the producer may load the next Q.
    if (ctas) {
      auto rel = scf::IfOp::create(b, loc, leader, false);
      OpBuilder rb = rel.getThenBodyBuilder();
      NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrier(rb, qEmptyOff()), Value());
    }
    if (biasFailed)
      return failure();
    // Epilogue: O / l (the quad's partial sums added), rounded, stored by register pairs. The
    // store's scalar operands after the key loop first.
    if (failed(cloneScalarOps(b, src, map, nullptr, sched, "convert-tile-attention-to-wgmma")))
      return failure();
    emitAttentionStore(
        b, loc, p.store, map,
        [&](Value r) { return add(b, add(b, add(b, r, mul(b, cw, 64)), mul(b, warp, 16)), g); },
        lane, O, l, p.zeroUndefinedRows);
    return success();
  };
  if (failed(forEachTile(b, src, kernelMap, tile)))
    return failure();

  if (pingpong) {
    // Warpgroup 0 takes the last turn warpgroup 1 passed it (every bar.arrive is matched).
    Value firstWg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cw, c32(b, 0));
    auto fin = scf::IfOp::create(b, loc, firstWg, false);
    OpBuilder fb = fin.getThenBodyBuilder();
    NVVM::BarrierOp::create(fb, loc, TypeRange{}, c32(fb, 1), c32(fb, 256),
                            NVVM::BarrierReductionAttr(), Value());
  }
  return success();
}

LogicalResult AttentionWgmmaKernel::forEachTile(OpBuilder &b, Block &src,
                                                const IRMapping &kernelMap, TileBody body) {
  ArrayRef<int64_t> grid = sched.getGrid();
  auto i32 = [&](OpBuilder &ob, Value x) {
    return arith::IndexCastUIOp::create(ob, loc, ob.getI32Type(), x);
  };
  // The tile at program ids `pids`: its scalars up to the key loop, first row and key blocks
  // (causal: up to its last row's diagonal).
  auto runTile = [&](OpBuilder &ob, ArrayRef<Value> pids, Value round,
                     Value base) -> FailureOr<Value> {
    IRMapping map = kernelMap;
    fn.walk([&](tl::ProgramIdOp op) { map.map(op.getResult(), pids[op.getAxis()]); });
    if (failed(cloneScalarOps(ob, src, map, p.loop ? p.loop.getOperation() : nullptr, sched,
                              "convert-tile-attention-to-wgmma")))
      return failure();
    Value m0 = map.lookupOrDefault(p.q.getRow());
    Value nEnd = c32(ob, numBlocks);
    if (p.causal) {
      Value lastKey = add(ob, m0, kBM - 1 + p.Skv - p.Sq);
      Value last = arith::DivUIOp::create(ob, loc, lastKey, c32(ob, kBN));
      nEnd = arith::MinUIOp::create(ob, loc, nEnd, add(ob, last, 1));
    }
    if (failed(body(ob, map, round, base, nEnd, m0)))
      return failure();
    return nEnd;
  };
  if (!ctas) {
    SmallVector<Value> pids = {i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
                               i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
                               i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::z))};
    // Causal: the last query blocks (the most key blocks) start first.
    if (p.causal)
      pids[0] = arith::SubIOp::create(b, loc, c32(b, grid[0] - 1), pids[0]);
    return failure(failed(runTile(b, pids, c32(b, 0), c32(b, 0))));
  }
  // Persistent: round r runs tile r * ctas + c on CTA c (causal, odd r: ctas - 1 - c).
  Value cta = i32(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  int64_t rounds = llvm::divideCeil(numTiles, ctas);
  auto loop =
      scf::ForOp::create(b, loc, c32(b, 0), c32(b, rounds), c32(b, 1), ValueRange{c32(b, 0)});
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  Value r = loop.getInductionVar();
  Value base = loop.getRegionIterArgs()[0];
  Value c = cta;
  if (p.causal) {
    Value odd = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne,
                                      arith::AndIOp::create(lb, loc, r, c32(lb, 1)), c32(lb, 0));
    c = arith::SelectOp::create(lb, loc, odd,
                                arith::SubIOp::create(lb, loc, c32(lb, ctas - 1), cta), cta);
  }
  Value t = add(lb, mul(lb, r, ctas), c);
  Value inRange = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, t, c32(lb, numTiles));
  auto ifOp = scf::IfOp::create(lb, loc, TypeRange{lb.getI32Type()}, inRange, /*withElse=*/true);
  OpBuilder tb = ifOp.getThenBodyBuilder();
  // Tile t -> (x, y, z): x fastest (the query blocks of one batch matrix together share its K
  // and V in L2); causal: x slowest, from the last query block down.
  SmallVector<Value> pids(3);
  int64_t yz = grid[1] * grid[2];
  Value rest;
  if (p.causal) {
    pids[0] = arith::SubIOp::create(tb, loc, c32(tb, grid[0] - 1),
                                    arith::DivUIOp::create(tb, loc, t, c32(tb, yz)));
    rest = arith::RemUIOp::create(tb, loc, t, c32(tb, yz));
  } else {
    pids[0] = arith::RemUIOp::create(tb, loc, t, c32(tb, grid[0]));
    rest = arith::DivUIOp::create(tb, loc, t, c32(tb, grid[0]));
  }
  pids[1] = arith::RemUIOp::create(tb, loc, rest, c32(tb, grid[1]));
  pids[2] = arith::DivUIOp::create(tb, loc, rest, c32(tb, grid[1]));
  FailureOr<Value> nEnd = runTile(tb, pids, r, base);
  if (failed(nEnd))
    return failure();
  scf::YieldOp::create(tb, loc, ValueRange{add(tb, base, *nEnd)});
  OpBuilder eb = ifOp.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, ValueRange{base});
  scf::YieldOp::create(lb, loc, ifOp.getResults());
  return success();
}

LogicalResult AttentionWgmmaKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Block &src = fn.getBody().front();
  OpBuilder b0(ctx);
  // The TMA maps of Q, K, V: 3-D over each block load's [batch, rows, cols] matrices, boxes of
  // [1, 128 rows, 64 columns] with the 128-byte swizzle.
  SmallVector<Attribute> maps;
  for (tl::BlockLoadOp l : {p.q, p.k, p.v}) {
    auto bufArg = dyn_cast<BlockArgument>(l.getPtr());
    if (!bufArg || bufArg.getOwner() != &src)
      return fn.emitError("convert-tile-attention-to-wgmma: a block load does not read a "
                          "kernel parameter"),
             failure();
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(bufArg.getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(l.getDims()));
    m.append("box", b0.getDenseI64ArrayAttr({1, l == p.q ? kBM : kBN, kBoxCols}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzle));
    m.append("element", TypeAttr::get(p.elem));
    maps.push_back(m.getDictionary(ctx));
  }
  Block *dst = wgmma::appendTensorMapBlock(fn, 3);
  unsigned nArgs = src.getNumArguments();
  qMap = dst->getArgument(nArgs);
  kMap = dst->getArgument(nArgs + 1);
  vMap = dst->getArgument(nArgs + 2);

  OpBuilder b = OpBuilder::atBlockBegin(dst);
  auto i32 = [&](Value x) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x); };
  tid = i32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                                gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn));
  smemBase = arith::AndIOp::create(b, loc, add(b, raw, 1023), c64(b, ~int64_t(1023)));
  {
    Value t0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c32(b, 0));
    auto init = scf::IfOp::create(b, loc, t0, false);
    OpBuilder ib = init.getThenBodyBuilder();
    NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, qFullOff()), c32(ib, 1), Value());
    for (int64_t s = 0; s < kStages; ++s) {
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, kFullOff() + 8 * s), c32(ib, 1), Value());
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, vFullOff() + 8 * s), c32(ib, 1), Value());
      // One arrival per consumer warpgroup.
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, kEmptyOff() + 8 * s), c32(ib, 2), Value());
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, vEmptyOff() + 8 * s), c32(ib, 2), Value());
    }
    if (ctas)
      NVVM::MBarrierInitOp::create(ib, loc, barrier(ib, qEmptyOff()), c32(ib, 2), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
  }
  gpu::BarrierOp::create(b, loc);

  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), dst->getArguments()))
    map.map(o, n);
  Value wg = arith::DivUIOp::create(b, loc, tid, c32(b, 128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, c32(b, 0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder pb = roles.getThenBodyBuilder();
    NVVM::SetMaxRegisterOp::create(pb, loc, kProducerRegs, NVVM::SetMaxRegisterAction::decrease);
    auto one = scf::IfOp::create(
        pb, loc, arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid, c32(pb, 0)), false);
    OpBuilder ob = one.getThenBodyBuilder();
    if (failed(forEachTile(
            ob, src, map,
            [&](OpBuilder &tb, IRMapping &tmap, Value round, Value base, Value nEnd, Value) {
              emitProducer(tb, src, tmap, nEnd, round, base);
              return success();
            })))
      return failure();
  }
  {
    OpBuilder cb = roles.getElseBodyBuilder();
    NVVM::SetMaxRegisterOp::create(cb, loc, kConsumerRegs, NVVM::SetMaxRegisterAction::increase);
    if (failed(emitConsumer(cb, src, map)))
      return failure();
  }
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({384, 1, 1}));
  if (ctas)
    fn->setAttr(tile::kLaunchGridAttrName, b.getDenseI32ArrayAttr({(int32_t)ctas, 1, 1}));
  fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kTensorMapsAttrName, b.getArrayAttr(maps));
  fn->setAttr(tile::kWgmmaAttrName, tl::WgmmaConfigAttr::get(ctx, kBM, kBN, p.D, kStages, 0, 2,
                                                             tl::WgmmaSchedule::cooperative,
                                                             tl::EpilogueStore::registers));
  return success();
}

struct ConvertTileAttentionToWGMMAPass
    : public aicc::impl::ConvertTileAttentionToWGMMABase<ConvertTileAttentionToWGMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    const ChipInfo *chip =
        resolveChip(getOperation(), ChipRole::Target, "", "sm_90a", getArgument());
    // The persistent grid: one CTA per SM of the tuning hardware (or max-ctas).
    const ChipInfo *hw =
        resolveChip(getOperation(), ChipRole::Hardware, hardware, "h200", getArgument());
    if (!chip || !hw)
      return signalPassFailure();
    if (maxCtas < 0) {
      getOperation().emitError("convert-tile-attention-to-wgmma: max-ctas must be >= 0, got ")
          << maxCtas;
      return signalPassFailure();
    }
    if (persistent != "true" && persistent != "false" && persistent != "auto") {
      getOperation().emitError("convert-tile-attention-to-wgmma: persistent must be true, false "
                               "or auto, got '")
          << persistent << "'";
      return signalPassFailure();
    }
    int64_t ctaCap = persistent == "false" ? 0 : maxCtas > 0 ? maxCtas : hw->smCount;
    // The template's wgmma form: BLOCK_N = 128 (the mma.sync form has 64).
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched) -> FailureOr<std::string> {
      AttentionWgmmaKernel k(fn, sched, chip->sharedMemPerBlockBytes, intraWarpgroupOverlap,
                             warpgroupPingpong, ctaCap, persistent == "auto");
      std::string why = k.match();
      if (why.empty() && failed(k.run()))
        return failure();
      return why;
    };
    if (failed(lowerAttentionKernels(getOperation(), kBN, *chip, ChipFeature::Wgmma, "wgmma",
                                     getArgument(), lower)))
      signalPassFailure();
  }
};
} // namespace
