//===- AttentionWgmmaKernel.h - the sm_90a FlashAttention kernel builder (private) -*- C++ -*-===//
//
// Shared by the files of convert-tile-attention-to-wgmma: AttentionWgmmaProducer.cpp (the
// producer warpgroup: the TMA loads of Q, K, V and their mbarriers), AttentionWgmmaConsumer.cpp
// (the consumer warpgroups: S = Q K^T and O += P V by wgmma, the online softmax, the
// intra-warpgroup overlap and the ping-pong, the epilogue) and ConvertTileAttentionToWGMMA.cpp
// (match: which kernels qualify and the shared-memory layout; run: the kernel skeleton,
// barriers, roles and the tile schedule; the pass). The design is in
// ConvertTileAttentionToWGMMA.cpp's file comment.
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMAKERNEL_H
#define AICC_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMAKERNEL_H

#include "AttentionProgram.h"
#include "WgmmaKernel.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

#include <string>
#include <utility>

namespace aicc::attention_wgmma {
using namespace mlir;
namespace tl = aicc::tile;

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
  /// them on its side of the asm (see ConvertTileAttentionToWGMMA.cpp's file comment).
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

} // namespace aicc::attention_wgmma

#endif
