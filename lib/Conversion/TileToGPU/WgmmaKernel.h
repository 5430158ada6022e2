//===- WgmmaKernel.h - the sm_90a wgmma + TMA kernel builder (private) -*- C++ -*-===//
//
// Shared by the files of convert-tile-dot-to-wgmma: WgmmaPlan.cpp (match: which kernels
// qualify and their configuration: tiles, stages, warpgroups, ping-pong, the TMA-store
// epilogue), WgmmaProducer.cpp (the producer warpgroup: TMA loads, gathers, the grouped tile
// order), WgmmaConsumer.cpp (the consumer warpgroups: wgmma, the register epilogue, the
// TMA-store epilogue) and ConvertTileDotToWGMMA.cpp (run: the kernel skeleton, shared
// memory, barriers; the passes). The design is in ConvertTileDotToWGMMA.cpp's file comment.
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_WGMMAKERNEL_H
#define AICC_LIB_CONVERSION_TILETOGPU_WGMMAKERNEL_H

#include "AccumulatorEpilogue.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace aicc::wgmma {
using namespace mlir;
namespace tl = aicc::tile;

constexpr int64_t kGroupM = 8;
constexpr int64_t kProducerRegs = 40;
constexpr int64_t kConsumerRegs = 232;
/// Registers per thread at entry of a 384-thread CTA with .minnctapersm 1 (65536 / 384, down
/// to a multiple of 8); setmaxnreg only redistributes these within the CTA.
constexpr int64_t kEntryRegs = 168;
static_assert(128 * (kEntryRegs - kProducerRegs) >= 256 * (kConsumerRegs - kEntryRegs),
              "consumer warpgroups would wait forever in setmaxnreg.inc");
static_assert(128 * (kEntryRegs - 88) >= 256 * (208 - kEntryRegs),
              "gathering producer: consumer warpgroups would wait forever in setmaxnreg.inc");
/// Bytes of one swizzle row (CU_TENSOR_MAP_SWIZZLE_128B).
constexpr int64_t kSwizzleBytes = 128;
/// The fewest pipeline stages the TMA-store epilogue leaves when it takes shared memory for
/// its staging buffers (fewer, and the register store stays). Ping-pong: 4 (each consumer
/// warpgroup holds two stages while its wgmmas run; at 3 stages the 4096^3 fp16 kernel took
/// 0.2749 ms against 0.1935 ms at 4, and the tf32 4096^3 kernel 0.583 ms against 0.378 ms,
/// H200, twentieth / twenty-first runs); cooperative: 3 (128 x 256 at 3 stages 0.1891 ms).
constexpr int64_t kMinStagesBesideStagingPingPong = 4;
constexpr int64_t kMinStagesBesideStagingCooperative = 3;
/// Named barriers (bar.sync id, 128) of the TMA-store epilogue: consumer warpgroup w uses
/// kStoreBarrier + w. Barrier 0 is the CTA-wide __syncthreads after the mbarrier
/// initialization; nothing else in the kernel uses named barriers.
constexpr int64_t kStoreBarrier = 1;


/// The 64-bit wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1.2, "Matrix
/// Descriptor Format") of the matrix at shared address `addr` (i64) in the 128-byte swizzle
/// mode, with leading / stride byte offsets `lbo` / `sbo`: bits 0-13 addr / 16, 16-29 lbo /
/// 16, 32-45 sbo / 16, base offset 0 (boxes are 1024-byte aligned), bits 62-63 = 1 (128B).
inline Value smemDescriptor(OpBuilder &b, Location loc, Value addr, int64_t lbo, int64_t sbo) {
  uint64_t hi = (uint64_t((lbo & 0x3FFFF) >> 4) << 16) | (uint64_t((sbo & 0x3FFFF) >> 4) << 32) |
                (uint64_t(1) << 62);
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v); };
  Value enc = arith::ShRUIOp::create(b, loc, arith::AndIOp::create(b, loc, addr, c64(0x3FFFF)),
                                     c64(4));
  return arith::OrIOp::create(b, loc, enc, c64((int64_t)hi));
}

/// The new entry block of a kernel that takes TMA descriptors: `fn`'s arguments (its buffer
/// parameters, as the old entry block has them) then `numMaps` pointers to CUtensorMaps,
/// appended to `fn`'s body; `fn`'s type and argument attributes follow (the maps marked
/// tile.tensor_map: the GPU pipeline passes them byval, grid_constant). The
/// caller builds the kernel in it and erases the old block.
inline Block *appendTensorMapBlock(func::FuncOp fn, unsigned numMaps) {
  MLIRContext *ctx = fn.getContext();
  Block &src = fn.getBody().front();
  unsigned nArgs = src.getNumArguments();
  Block *dst = new Block();
  for (BlockArgument a : src.getArguments())
    dst->addArgument(a.getType(), a.getLoc());
  for (unsigned i = 0; i < numMaps; ++i)
    dst->addArgument(LLVM::LLVMPointerType::get(ctx), fn.getLoc());
  fn.setType(FunctionType::get(ctx, SmallVector<Type>(dst->getArgumentTypes()), {}));
  fn.getBody().push_back(dst);
  NamedAttrList tmaArgAttrs;
  tmaArgAttrs.append(tile::kTensorMapAttrName, UnitAttr::get(ctx));
  SmallVector<DictionaryAttr> argAttrs(nArgs, DictionaryAttr::get(ctx));
  argAttrs.append(numMaps, tmaArgAttrs.getDictionary(ctx));
  fn.setAllArgAttrs(argAttrs);
  return dst;
}

/// One dot operand: fed by TMA, or gathered by the producer warpgroup's threads (an im2col
/// block of an implicit-GEMM convolution, or a block whose rows break the TMA stride rule in
/// such a kernel).
struct Operand {
  tl::BlockLoadOp load;
  tl::Im2ColLoadOp im2col;
  /// Filled by the producer threads (cp.async / ld + st.shared) in the layout TMA would write
  /// (K-major, 128-byte swizzle), completing on the `full` mbarrier by plain arrivals.
  bool gather = false;
  /// Elements per gathered copy: 16 bytes' worth where consecutive k are contiguous in memory
  /// (NHWC with C a multiple of them: one cp.async), else 1 (a load and a shared store).
  int64_t vec = 1;
  /// Whether this is the dot's A (else B).
  bool isA = false;
  /// The stored block: rows x cols of the row-major matrix (cols contiguous).
  int64_t rows = 0, cols = 0;
  /// Whether the contiguous dim is K.
  bool kMajor = false;
  /// Elements per 128-byte swizzle row; cols is a multiple of it.
  int64_t rowElems = 0;
  /// Bytes of one stage of this operand, byte offset of stage 0 in shared memory.
  int64_t stageBytes = 0, offset = 0;
  unsigned descArg = 0;
  int64_t numBoxes() const { return cols / rowElems; }
  int64_t boxBytes() const { return rows * kSwizzleBytes; }
};

class WgmmaKernel {
public:
  /// `target`: the chip the kernel is for (its shared memory per block bounds the plan);
  /// `numSMs`: the persistent grid's CTAs (the tuning hardware's SM count).
  WgmmaKernel(func::FuncOp fn, tl::ScheduleAttr sched, const ChipInfo &target, int64_t numSMs,
              bool tmaStoreOption)
      : fn(fn), sched(sched), target(target), numSMs(numSMs), tmaStoreOption(tmaStoreOption) {}

  /// Checks the kernel's shape; on failure `why` says what does not fit.
  bool match(std::string &why);
  LogicalResult run();

private:
  // --- matching
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  const ChipInfo &target;
  int64_t numSMs;
  /// The tile as the shared rules see it (include/aicc/Target/TensorCoreRules.h).
  MatmulTile tile;
  /// Opt-in dynamic shared memory per block of the target, and the same as text for
  /// refusal reasons.
  int64_t maxSharedBytes() const { return target.sharedMemPerBlockBytes; }
  std::string maxSharedText() const { return std::to_string(maxSharedBytes() / 1024) + " KiB"; }
  const ChipInfo &sharedMemoryChip() const { return target; }
  /// The K loop, or null when K fits one BLOCK_K (canonicalization removed the loop: the
  /// block loads and the dot sit at the kernel's top level).
  scf::ForOp loop;
  /// The loop, or the dot when there is none: scalars before it are the tile's prologue.
  Operation *kOp = nullptr;
  /// The accumulator after the K loop.
  Value accResult;
  /// Rule norm-prologue's row sums of squares of A (DotKLoop::rowSquares) and the ops that
  /// compute them in the tile kernel: each consumer thread reads its accumulator rows of
  /// the A stage from shared memory (WgmmaConsumer.cpp, emitConsumer).
  Value rowSquares;
  /// A LayerNorm prologue's row sums of x (DotKLoop::rowSums), read with the squares.
  Value xRowSums;
  /// The row sums' type: f32, f64 for a LayerNorm (MatmulTemplate.cpp).
  Type rowSumType(OpBuilder &b) const {
    return xRowSums ? Type(b.getF64Type()) : Type(b.getF32Type());
  }
  SmallVector<Operation *> rowOps;
  tl::DotOp dot;
  Operand opA, opB;
  int64_t BM = 0, BN = 0, BK = 0, K = 0, numK = 0, stages = 2, elemBytes = 2;
  /// K of one wgmma: 16 for f16/bf16 (m64nNk16), 8 for tf32 (m64nNk8).
  int64_t kInstr = 16;
  /// f32 operands on tf32 tensor cores (tile.dot input_precision = tf32).
  bool tf32 = false;
  int64_t consumers = 0;
  /// Whether some operand is gathered: the producer then runs on all 128 threads of its
  /// warpgroup (thread 0 alone issues the TMA copies).
  bool anyGather = false;
  /// Gathered stages are signalled `gatherDefer` k blocks after their copies were issued
  /// (cp.async.wait_group gatherDefer), so that that many stages' copies are in flight.
  int64_t gatherDefer = 0;
  int64_t producerRegs = kProducerRegs, consumerRegs = kConsumerRegs;
  /// Ping-pong (each consumer warpgroup owns whole tiles, alternating) rather than
  /// cooperative (the consumers split each tile's rows).
  bool pingpong = false;
  Type elem;

  // --- TMA-store epilogue (see the file comment)
  bool tmaStoreOption;
  /// Whether the epilogue stores through the staging buffers and TMA; when the option is on
  /// but the kernel does not qualify, tmaStoreRefused says why.
  bool tmaStore = false;
  std::string tmaStoreRefused;
  /// num_stages as the schedule asked for it (the TMA-store epilogue may lower num_stages to
  /// make room for its staging buffers).
  int64_t stagesRequested = 0;
  /// The kernel's one block store (of the accumulator-shaped tile).
  tl::BlockStoreOp outStore;
  /// Whether the stores are transposed: the staging buffer then holds the tile transposed.
  bool outTransposed = false;
  Type outElem;
  int64_t outBytes = 0;
  /// One consumer warpgroup's staging buffer: stRows x BLOCK_N elements of outElem, as
  /// BLOCK_N * outBytes / 128 TMA boxes of [stRows x 128 bytes] (128-byte swizzle), box j at
  /// byte j * stRows * 128. stRows = BLOCK_M (ping-pong: a warpgroup stores whole tiles) or
  /// 64 (cooperative and BLOCK_M = 64: a warpgroup stores its 64 rows). Transposed: the
  /// warpgroup's stRows tile rows are the columns, as stRows * outBytes / 128 boxes of
  /// [BLOCK_N x 128 bytes], box j (tile rows j * stBoxElems ..) at byte j * BLOCK_N * 128.
  int64_t stRows = 0, stBoxElems = 0, stBytes = 0, stOffset = 0;
  unsigned outDescArg = 0;

  // --- generation state
  Value tid, smemBase; // i32 thread id, i64 1024-aligned shared address
  Value fullBar, emptyBar; // i64 shared addresses of barrier 0
  /// Ping-pong: orderBar + 8 w is signalled when the other consumer warpgroup has issued its
  /// K loop, so that consumer warpgroup w may start its own (two mbarriers).
  Value orderBar;
  int64_t barOffset = 0, smemBytes = 0;

  /// Why the kernel cannot use the TMA-store epilogue ("" when it can); sets outStore & co.
  std::string matchTmaStore();

  static Value ci32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  static Value ci64(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  static Value sharedPtr(OpBuilder &b, Location loc, Value addr) {
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), addr);
  }
  Value barrierAddr(OpBuilder &b, Location loc, Value base, Value stage) {
    Value s = arith::ExtUIOp::create(b, loc, b.getI64Type(), stage);
    return sharedPtr(
        b, loc,
        arith::AddIOp::create(b, loc, base, arith::MulIOp::create(b, loc, s, ci64(b, loc, 8))));
  }
  void waitParity(OpBuilder &b, Location loc, Value bar, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, bar, parity, ci32(b, loc, 0x989680));
  }
  /// (pid_m, pid_n, pid_b) of linear tile `t` (i32) in grouped order (over the run's row
  /// tiles when runGridM is set).
  SmallVector<Value> tilePids(OpBuilder &b, Location loc, Value t);
  /// Bounded symbolic dims (the tile kernel's tile.symgrid over grid x or z, and its
  /// tile.symvalues parameter): the run's row tiles (grid x) or matrices (grid z) and its
  /// tile count, i32 values of the kernel's entry block read from the session's symbol values
  /// (setRunTiles); null: the schedule's grid. Every role's tile loop ends at runTiles.
  Value runGridM, runTiles;
  void setRunTiles(OpBuilder &b, Location loc, ArrayRef<Value> args);
  Value tileCount(OpBuilder &b, Location loc, int64_t tiles) {
    return runTiles ? runTiles : ci32(b, loc, tiles);
  }
  /// The kernel's scalar ops up to `stopAt` into `b` (cloneScalarOps, AccumulatorEpilogue.h).
  LogicalResult cloneScalars(OpBuilder &b, Block &src, IRMapping &map, Operation *stopAt) {
    return cloneScalarOps(b, src, map, stopAt, sched, "convert-tile-dot-to-wgmma");
  }
  void emitProducer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args);
  /// Issues this producer thread's share of the copies of gathered operand `o` for the k
  /// block `kmap` describes into the stage at shared address `stageAddr` (i64).
  void emitGather(OpBuilder &b, Location loc, const Operand &o, IRMapping &kmap, Value stageAddr);
  /// (element offset, in bounds) of element (smem row r, k) of gathered operand `o`'s block.
  std::pair<Value, Value> gatherAddress(OpBuilder &b, Location loc, const Operand &o,
                                        IRMapping &kmap, Value r, Value k);
  LogicalResult emitConsumer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args);
  /// The TMA-store epilogue's staging buffer (i64 shared address), named barrier (i32), and
  /// the per-thread address parts P (i64) and X (i32) of emitConsumer's derivation.
  struct StagingAddress {
    Value staging, storeBar, stP, stX;
  };
  StagingAddress stagingAddress(OpBuilder &b, Location loc, Value cw, Value rowInHalf,
                                Value colBase);
  /// After a tile's epilogue wrote the staging buffer: fence, barrier, the leader's TMA box
  /// stores and their bulk group.
  void emitTmaBoxStores(OpBuilder &tb, Location loc, IRMapping &map, ArrayRef<Value> args,
                        Value leader, Value cw, Value staging, Value storeBar);
  Value descriptor(OpBuilder &b, Location loc, const Operand &op, Value stageOff,
                   int64_t kk, int64_t mnOffset);
};

} // namespace aicc::wgmma

#endif
