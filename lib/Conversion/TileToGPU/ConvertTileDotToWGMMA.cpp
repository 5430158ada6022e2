//===- ConvertTileDotToWGMMA.cpp - matmul tile kernels -> Hopper TMA + wgmma ----===//
//
// The tensor-core path for sm_90a. A matmul tile kernel, as the matmul template writes it,
//
//   %acc = scf.for %k = 0 to K step BLOCK_K iter_args(%c = zeros) {
//     %a = tile.block_load %A[...] : ... -> tensor<BMxBKxT>      (T = f16 or bf16)
//     %b = tile.block_load %B[...] : ... -> tensor<BKxBNxT>
//     %d = tile.dot %a, %b, %c : ... -> tensor<BMxBNxf32>
//     scf.yield %d
//   }
//   ... epilogue tile ops on %acc, tile.store ...
//
// becomes a warp-specialized, persistent kernel (the structure of CUTLASS's
// "KernelTmaWarpSpecializedCooperative", NVIDIA CUTLASS 3.x, and of the Hopper GEMM in
// MLIR's test/Examples/NVGPU; the code here is our own):
//
//   CTA = 1 producer warpgroup + BM/64 consumer warpgroups (128 threads each).
//   Shared memory (dynamic, 1024-byte aligned for the 128-byte swizzle):
//     num_stages x [A stage | B stage], then num_stages `full` and `empty` mbarriers.
//   Producer (thread 0 of warpgroup 0, 40 registers): for every output tile of this CTA, for
//     every k block: wait `empty[s]`, arrive.expect_tx(`full[s]`, stage bytes), issue the
//     cp.async.bulk.tensor (TMA) loads of the A and B boxes of that k block into stage s.
//   Consumers (232 registers each): wait `full[s]`, wgmma.fence, BLOCK_K/16 x
//     wgmma.mma_async m64nBNk16 (A and B from shared-memory descriptors, f32 accumulators in
//     registers), commit, wait until one group is in flight, then release the stage the
//     previous group read (`empty`, one arrival per consumer warpgroup).
//   Tiles: CTA c takes tiles c, c + gridDim.x, ... in grouped order (GROUP_M = 8 row tiles per
//     group: Triton's matmul tutorial order, for L2 reuse of B). The pipeline (stage, phase)
//     runs on across tiles, so the producer fetches the next tile while consumers run the
//     epilogue.
//   Epilogue: every tile op after the K loop is evaluated per thread, in registers, on the
//     wgmma accumulator layout (PTX ISA 9.7.15.5.1.1, "Matrix Fragments for
//     wgmma.mma_async.m64nNk16", accumulator D): register i of thread t of consumer
//     warpgroup w holds
//       row = 64 w + 16 (t / 32 mod 4) + (t mod 32) / 4 + 8 ((i mod 4) / 2)
//       col = 8 (i / 4) + 2 (t mod 4) + (i mod 2).
//     1-D tiles (make_range along a dim, bias loads) are evaluated once per distinct row or
//     column the thread holds (2 rows, BN/4 columns) and shared by the elements that use them.
//   TMA-store epilogue (option tma-store, default on): when the kernel's only store is a
//     tile.block_store of the [BM, BN] tile (f16/bf16/f32, output rows 16-byte multiples),
//     each consumer warpgroup w owns a staging buffer in shared memory (after the stages,
//     1024-aligned): its rows (BM in ping-pong, 64 otherwise) x BN elements as the boxes of
//     the output's tensor map, [rows x 128 bytes] each with the 128-byte swizzle. Per tile:
//       registers -> (epilogue math) -> st.shared into the staging buffer
//       -> fence.proxy.async.shared::cta (every thread: its generic-proxy writes become
//          visible to the async proxy that TMA reads through)
//       -> bar.sync (1 + w), 128 (all of the warpgroup's writes are done and fenced)
//       -> thread 0 of w: cp.async.bulk.tensor shared::cta -> global per box, commit_group.
//     Before the next tile writes the buffer: thread 0 of w waits with
//     cp.async.bulk.wait_group.read 0 (its stores have read the buffer), then bar.sync
//     (1 + w), 128 releases the other threads. After the last tile thread 0 waits for the
//     stores to complete (wait_group 0). Bulk groups are per thread, so only thread 0's wait
//     means anything; the barriers order everyone else around it. TMA clips the box at the
//     matrix edges (ragged M / N). Staging that does not fit in 227 KiB costs stages while 4
//     (ping-pong) or 3 (cooperative) stay, or else the register store stays
//     (tile.tma_store_refused says why).
//     A transposed block store (the NCHW implicit-GEMM conv's per-image tile; several of one
//     tile — spanning images — are refused: TMA stores at negative coordinates fault) stages
//     the tile transposed, [BN channels] x [the warpgroup's pixels] in boxes of [BN x 128
//     bytes], one st.shared per element, and the leader issues the boxes at the store's
//     coordinates, skipping boxes wholly outside the output (the address algebra is at the
//     staging setup in emitConsumer).
//
// Shared-memory operand layouts (PTX ISA 9.7.15.5.1.2, "Shared Memory Matrix Layout",
// 128-byte swizzle): each operand is stored in boxes of [rows x 64 elements] (128 bytes per
// row; TMA CU_TENSOR_MAP_SWIZZLE_128B writes that swizzle). A K-major operand (K contiguous in
// memory) has SBO = 1024 (8 rows x 128 bytes) and moves to the next k16 slice by +32 bytes; an
// MN-major operand (M or N contiguous) has LBO = box bytes (the next 64 M/N elements), SBO =
// 1024 (the next 8 k rows) and moves to the next k16 slice by +16 rows x 128 bytes. wgmma's
// imm-trans flag says which (NVVM layout row/col).
//
// What is refused (the kernel keeps its tile form for the generic path, with a
// `tile.wgmma_refused` reason): other operand types, tiles that are not multiples of the
// wgmma/TMA granules, rows whose byte length is not a multiple of 16 (a TMA stride rule),
// epilogue ops this evaluator does not know (reductions, loops over tiles).
//===----------------------------------------------------------------------===//
#include "AccumulatorEpilogue.h"
#include "OperandAddress.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILEDOTTOWGMMA
#define GEN_PASS_DEF_FINALIZETENSORMAPPARAMS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {

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
/// Opt-in dynamic shared memory per block of sm_90a (the chip table, include/aicc/Target/
/// Chip.h: 227 KiB), and the same as text for refusal reasons.
int64_t maxSharedBytes() { return aicc::lookupChip("sm_90a")->sharedMemPerBlockBytes; }
std::string maxSharedText() { return std::to_string(maxSharedBytes() / 1024) + " KiB"; }
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
  WgmmaKernel(func::FuncOp fn, tl::ScheduleAttr sched, int64_t numSMs, bool tmaStoreOption)
      : fn(fn), sched(sched), numSMs(numSMs), tmaStoreOption(tmaStoreOption) {}

  /// Checks the kernel's shape; on failure `why` says what does not fit.
  bool match(std::string &why);
  LogicalResult run();

private:
  // --- matching
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  int64_t numSMs;
  /// The K loop, or null when K fits one BLOCK_K (canonicalization removed the loop: the
  /// block loads and the dot sit at the kernel's top level).
  scf::ForOp loop;
  /// The loop, or the dot when there is none: scalars before it are the tile's prologue.
  Operation *kOp = nullptr;
  /// The accumulator after the K loop.
  Value accResult;
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
  /// (pid_m, pid_n, pid_b) of linear tile `t` (i32) in grouped order.
  SmallVector<Value> tilePids(OpBuilder &b, Location loc, Value t);
  LogicalResult cloneScalars(OpBuilder &b, Block &src, IRMapping &map, Operation *stopAt);
  void emitProducer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args);
  /// Issues this producer thread's share of the copies of gathered operand `o` for the k
  /// block `kmap` describes into the stage at shared address `stageAddr` (i64).
  void emitGather(OpBuilder &b, Location loc, const Operand &o, IRMapping &kmap, Value stageAddr);
  /// (element offset, in bounds) of element (smem row r, k) of gathered operand `o`'s block.
  std::pair<Value, Value> gatherAddress(OpBuilder &b, Location loc, const Operand &o,
                                        IRMapping &kmap, Value r, Value k);
  LogicalResult emitConsumer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args);
  Value descriptor(OpBuilder &b, Location loc, const Operand &op, Value stageOff,
                   int64_t kk, int64_t mnOffset);
};

bool WgmmaKernel::match(std::string &why) {
  DotKLoop m;
  if (!matchDotKLoop(fn, m, why))
    return false;
  dot = m.dot;
  loop = m.loop ? cast<scf::ForOp>(m.loop) : scf::ForOp();
  kOp = m.kOp;
  accResult = m.accResult;
  tl::BlockLoadOp a = m.a, bl = m.b;
  tl::Im2ColLoadOp ai = m.aIm2col;
  std::optional<int64_t> ub = m.upper, st = m.step;
  auto accT = dot.getType();
  auto aT = cast<RankedTensorType>(dot.getA().getType());
  elem = aT.getElementType();
  tf32 = elem.isF32() && dot.getInputPrecision() == tl::InputPrecision::tf32;
  if (!(elem.isF16() || elem.isBF16() || tf32))
    return why = elem.isF32() ? "f32 operands without input_precision = tf32 (exact f32 asked)"
                              : "operands are not f16/bf16", false;
  if (!accT.getElementType().isF32())
    return why = "accumulator is not f32", false;
  BM = accT.getDimSize(0);
  BN = accT.getDimSize(1);
  BK = aT.getDimSize(1);
  K = *ub;
  if (*st != BK)
    return why = "K step differs from BLOCK_K", false;
  numK = (K + BK - 1) / BK;
  if (numK < 1)
    return why = "K is 0", false;
  if (BM != 64 && BM != 128)
    return why = "BLOCK_M is not 64 or 128", false;
  // BLOCK_K: whole 128-byte swizzle rows (64 f16/bf16, 32 f32).
  if (BN % 64 || BN > 256 || BK % (tf32 ? 32 : 64))
    return why = "BLOCK_N / BLOCK_K are not multiples of 64 / one 128-byte row (BLOCK_N <= 256)",
           false;
  consumers = BM / 64;
  // Ping-pong when one warpgroup can hold a whole tile's accumulators (BM x BN / 128 threads
  // <= 128 f32 registers): one warpgroup's epilogue then overlaps the other's K loop.
  pingpong = consumers == 2 && BN <= 128;
  stages = std::max<int64_t>(2, sched.getNumStages());
  elemBytes = tf32 ? 4 : 2;
  kInstr = tf32 ? 8 : 16;
  int64_t rowElems = kSwizzleBytes / elemBytes;
  // A gathered operand is stored K-major: `rows` (BM or BN) rows of BLOCK_K elements, as
  // 128-byte-swizzled boxes of [rows x 64 f16] like a K-major TMA operand.
  auto setupGather = [&](Operand &o, int64_t rows, int64_t vec) -> bool {
    o.gather = true;
    anyGather = true;
    o.kMajor = true;
    o.rows = rows;
    o.cols = BK;
    o.rowElems = rowElems;
    o.vec = vec;
    o.stageBytes = rows * BK * elemBytes;
    if (BK % rowElems || rows % 64 || rows > 256)
      return why = "gathered operand block is not whole 128-byte swizzle rows x 64-row groups",
             false;
    return true;
  };
  auto setup = [&](Operand &o, tl::BlockLoadOp l, bool kContiguousIfPlain) -> bool {
    o.load = l;
    o.isA = kContiguousIfPlain;
    auto t = l.getType();
    if ((l.getDims()[2] * elemBytes) % 16) {
      // Implicit-GEMM kernels gather such blocks (e.g. a 3x3 weight of 1 input channel: rows
      // of 9 elements); plain matmuls leave them to mma.sync.
      if (ai)
        return setupGather(o, o.isA ? BM : BN, 1);
      return why = "matrix rows are not a multiple of 16 bytes (TMA stride rule)", false;
    }
    o.rows = l.getTranspose() ? t.getDimSize(1) : t.getDimSize(0);
    o.cols = l.getTranspose() ? t.getDimSize(0) : t.getDimSize(1);
    o.kMajor = l.getTranspose() ? !kContiguousIfPlain : kContiguousIfPlain;
    o.rowElems = rowElems;
    o.stageBytes = o.rows * o.cols * elemBytes;
    if (o.cols % rowElems || o.rows > 256)
      return why = "operand block is not a multiple of the 128-byte swizzle row", false;
    return true;
  };
  // A [BM, BK]: plain storage has K contiguous. B [BK, BN]: plain storage has N contiguous.
  // An im2col A is gathered: one 16-byte copy per 8 f16 (4 f32) channels when the input is
  // NHWC with C a multiple of that (consecutive k are consecutive channels), else per element.
  if (ai) {
    opA.im2col = ai;
    opA.isA = true;
    int64_t v = 16 / elemBytes;
    if (!setupGather(opA, BM, ai.isNHWC() && ai.getInput()[1] % v == 0 ? v : 1))
      return false;
  } else if (!setup(opA, a, true)) {
    return false;
  }
  if (!setup(opB, bl, false))
    return false;
  if (anyGather) {
    // The producer warpgroup computes addresses: 88 registers, the consumers 208. setmaxnreg
    // moves registers inside the CTA's launch allocation only (168 per thread at 384 threads:
    // .maxntid 384 + .minnctapersm 1): what the consumers gain, 256 x (208 - 168), must not
    // exceed what the producer gives back, 128 x (168 - 88), or their setmaxnreg.inc waits
    // forever (measured: 96 / 208 hung on the H200; CUTLASS's 40 / 232 balance exactly).
    // Two stages' copies stay in flight behind the one being issued.
    producerRegs = 88;
    consumerRegs = 208;
  }
  // wgmma transposes only 16-bit operands from shared memory: tf32 needs both K-major (A
  // [M, K] and B stored [N, K], i.e. Gemm transB = 1, the nn.Linear form).
  if (tf32 && (!opA.kMajor || !opB.kMajor))
    return why = "tf32 needs K-major A and B (B stored [N, K])", false;
  // Epilogue ops: scalars, elementwise, tile construction, loads and stores.
  for (Operation &op : fn.getBody().front()) {
    if (&op == kOp || &op == dot.getOperation() || isa<func::ReturnOp>(op) ||
        op.getNumResults() && (op.getResult(0) == dot.getA() || op.getResult(0) == dot.getB()))
      continue;
    if (!AccumulatorEpilogue::isSupported(&op))
      return why = ("epilogue holds " + op.getName().getStringRef()).str(), false;
  }
  // Shared memory: stages of A then B, each 1024-aligned; then the barriers. (num_stages is
  // checked before it multiplies anything: a huge one would wrap the int64 sizes.)
  if (stages > maxSharedBytes() / (opA.stageBytes + opB.stageBytes))
    return why = "num_stages x stage bytes exceed " + maxSharedText() + " of shared memory", false;
  // Bytes of the plan with `s` stages and `staging` bytes of staging buffers: the stages,
  // the staging buffers (1024-aligned), the barriers, 1024 bytes of slack for aligning the
  // base to 1024 bytes.
  auto planBytes = [&](int64_t s, int64_t staging) {
    int64_t stageEnd = s * (opA.stageBytes + opB.stageBytes);
    return llvm::alignTo(stageEnd, 1024) + staging + 2 * s * 8 + 2 * 8 + 1024;
  };
  if ((int64_t)planBytes(stages, 0) > maxSharedBytes())
    return why = "num_stages x stage bytes exceed " + maxSharedText() + " of shared memory", false;
  // The TMA-store epilogue when the kernel qualifies and its staging buffers fit, with as many
  // stages fewer as that takes while 4 (ping-pong) or 3 (cooperative) stay (f32 outputs stage
  // twice the bytes of f16 ones: the tf32 128 x 64 x 32 kernel goes from 8 stages to 6;
  // cooperative 128 x 256 f16 from 4 to 3).
  if (tmaStoreOption) {
    tmaStoreRefused = matchTmaStore();
    tmaStore = tmaStoreRefused.empty();
    if (tmaStore) {
      int64_t staging = consumers * stBytes;
      int64_t minStages =
          pingpong ? kMinStagesBesideStagingPingPong : kMinStagesBesideStagingCooperative;
      int64_t fit = stages;
      while (fit > minStages && (int64_t)planBytes(fit, staging) > maxSharedBytes())
        --fit;
      if ((int64_t)planBytes(fit, staging) <= maxSharedBytes()) {
        stagesRequested = stages;
        stages = fit;
      } else {
        tmaStore = false;
        tmaStoreRefused = "the staging buffers (" + std::to_string(staging) +
                          " bytes) do not fit in " + maxSharedText() + " of shared memory beside " +
                          std::to_string(std::min(stages, minStages)) + " stages of " +
                          std::to_string(opA.stageBytes + opB.stageBytes) + " bytes" +
                          (pingpong && stages >= minStages
                               ? " (ping-pong keeps at least 4 stages: measured 40% slower at 3)"
                               : "");
      }
    }
  }
  // Gathered stages are signalled gatherDefer blocks late; fewer than num_stages - 1 keeps
  // the producer from waiting on a stage it has not signalled yet.
  if (anyGather)
    gatherDefer = std::min<int64_t>(2, stages - 2);
  int64_t off = 0;
  opA.offset = off;
  off += stages * opA.stageBytes;
  opB.offset = off;
  off += stages * opB.stageBytes;
  if (tmaStore) {
    off = llvm::alignTo(off, 1024);
    stOffset = off;
    off += consumers * stBytes;
  }
  barOffset = off;
  off += 2 * stages * 8 + 2 * 8;
  smemBytes = off + 1024; // slack for aligning the base to 1024 bytes
  if (smemBytes > maxSharedBytes())
    return why = "num_stages x stage bytes exceed " + maxSharedText() + " of shared memory", false;
  return true;
}

std::string WgmmaKernel::matchTmaStore() {
  // The kernel's one store must be a block store of the accumulator-shaped tile at the top
  // level (the matmul template's, or the NCHW conv's transposed per-image one): its registers
  // are exactly the accumulator's.
  SmallVector<Operation *> stores;
  fn.walk([&](Operation *op) {
    if (isa<tl::StoreOp, tl::BlockStoreOp>(op))
      stores.push_back(op);
  });
  if (stores.empty())
    return "the kernel has no store";
  if (!llvm::all_of(stores, [](Operation *op) { return isa<tl::BlockStoreOp>(op); }))
    return "the kernel stores with tile.store, not tile.block_store";
  if (stores.size() != 1) {
    // Several transposed stores of one tile span images (the NCHW conv form: the later ones
    // at negative pixel columns), and a TMA box store there faults
    // (CUDA_ERROR_ILLEGAL_INSTRUCTION on the H200, twenty-second run, 2026-11-29): the conv
    // template tiles each image separately where this store can take it.
    if (llvm::all_of(stores, [](Operation *op) { return cast<tl::BlockStoreOp>(op).getTranspose(); }))
      return "the tile spans " + std::to_string(stores.size()) +
             " images (one transposed block store each): TMA box stores at negative pixel "
             "coordinates fault";
    return "the kernel has " + std::to_string(stores.size()) + " stores, not one block store";
  }
  outStore = cast<tl::BlockStoreOp>(stores.front());
  outTransposed = outStore.getTranspose();
  if (std::string why = stagedTileRefusal(outStore, fn, BM, BN); !why.empty())
    return why;
  outElem = outStore.getValue().getType().getElementType();
  outBytes = outElem.getIntOrFloatBitWidth() / 8;
  auto bufArg = dyn_cast<BlockArgument>(outStore.getPtr());
  if (!bufArg || bufArg.getOwner() != &fn.getBody().front())
    return "the stored buffer is not a kernel parameter";
  ArrayRef<int64_t> d = outStore.getDims();
  // TMA's global stride rule (cuTensorMapEncodeTiled: strides are multiples of 16 bytes).
  if ((d[2] * outBytes) % 16)
    return outTransposed
               ? "output rows (" + std::to_string(d[2]) + " pixels of " +
                     std::to_string(outBytes) +
                     " bytes per NCHW channel) are not a multiple of 16 bytes (TMA stride rule)"
               : "output rows are not a multiple of 16 bytes (TMA stride rule)";
  stRows = pingpong ? BM : 64;
  stBoxElems = kSwizzleBytes / outBytes;
  if (outTransposed ? (stRows * outBytes) % kSwizzleBytes : (BN * outBytes) % kSwizzleBytes)
    return outTransposed
               ? "a warpgroup's rows are not a whole number of 128-byte swizzle rows of the output"
               : "BLOCK_N is not a whole number of 128-byte swizzle rows of the output";
  stBytes = stRows * BN * outBytes;
  return "";
}

SmallVector<Value> WgmmaKernel::tilePids(OpBuilder &b, Location loc, Value t) {
  auto grid = sched.getGrid();
  int64_t gm = grid[0], gn = grid[1];
  Value mn = arith::RemUIOp::create(b, loc, t, ci32(b, loc, gm * gn));
  Value pidB = arith::DivUIOp::create(b, loc, t, ci32(b, loc, gm * gn));
  auto [pidM, pidN] = groupedTilePids(b, loc, mn, gm, gn, kGroupM);
  return {pidM, pidN, pidB};
}

/// Clones the scalar ops of `src` (stopping at `stopAt`) into `b`: program ids and grid sizes
/// come from `map` (pre-seeded), tile ops are left for the epilogue evaluator.
LogicalResult WgmmaKernel::cloneScalars(OpBuilder &b, Block &src, IRMapping &map,
                                        Operation *stopAt) {
  for (Operation &op : src) {
    if (&op == stopAt)
      break;
    if (isa<func::ReturnOp, scf::YieldOp>(op) || touchesTiles(&op))
      continue;
    if (op.getNumResults() && map.contains(op.getResult(0)))
      continue; // program ids
    if (auto n = dyn_cast<tl::NumProgramsOp>(op)) {
      map.map(n.getResult(), ci32(b, op.getLoc(), sched.getGrid()[n.getAxis()]));
      continue;
    }
    if (op.getNumRegions())
      return op.emitError("convert-tile-dot-to-wgmma: scalar op with regions"), failure();
    b.clone(op, map);
  }
  return success();
}

Value WgmmaKernel::descriptor(OpBuilder &b, Location loc, const Operand &o, Value stageOff,
                              int64_t kk, int64_t mnOffset) {
  // Byte offset of the slice inside the stage.
  int64_t off;
  int64_t lbo, sbo = 1024;
  if (o.kMajor) {
    int64_t k = kk * kInstr;
    off = (k / o.rowElems) * o.boxBytes() + mnOffset * kSwizzleBytes +
          (k % o.rowElems) * elemBytes;
    lbo = 16; // unused for swizzled K-major layouts ("assumed 1" once encoded)
  } else {
    off = (mnOffset / o.rowElems) * o.boxBytes() + kk * kInstr * kSwizzleBytes;
    lbo = o.boxBytes();
  }
  uint64_t hi = (uint64_t((lbo & 0x3FFFF) >> 4) << 16) | (uint64_t((sbo & 0x3FFFF) >> 4) << 32) |
                (uint64_t(1) << 62);
  Value addr = arith::AddIOp::create(
      b, loc, smemBase, arith::AddIOp::create(b, loc, stageOff, ci64(b, loc, o.offset + off)));
  Value enc = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, addr, ci64(b, loc, 0x3FFFF)), ci64(b, loc, 4));
  return arith::OrIOp::create(b, loc, enc, ci64(b, loc, (int64_t)hi));
}

void WgmmaKernel::emitProducer(OpBuilder &b, Location loc, Block &src, ArrayRef<Value> args) {
  auto grid = sched.getGrid();
  int64_t tiles = grid[0] * grid[1] * grid[2];
  Value bid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value gdim = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                          gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  auto tileLoop =
      scf::ForOp::create(b, loc, bid, ci32(b, loc, tiles), gdim, ValueRange{ci32(b, loc, 0)});
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), args))
    map.map(o, n);
  auto pids = tilePids(tb, loc, tileLoop.getInductionVar());
  fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  (void)cloneScalars(tb, src, map, kOp);
  Value c0 = arith::ConstantIndexOp::create(tb, loc, 0);
  Value cK = arith::ConstantIndexOp::create(tb, loc, numK * BK);
  Value cBK = arith::ConstantIndexOp::create(tb, loc, BK);
  auto kLoop =
      scf::ForOp::create(tb, loc, c0, cK, cBK, ValueRange{tileLoop.getRegionIterArgs()[0]});
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value it = kLoop.getRegionIterArgs()[0];
    Value s = arith::RemUIOp::create(kb, loc, it, ci32(kb, loc, stages));
    Value phase = arith::AndIOp::create(
        kb, loc, arith::DivUIOp::create(kb, loc, it, ci32(kb, loc, stages)), ci32(kb, loc, 1));
    // A fresh barrier is in phase 0: waiting for parity 1 ("the phase before") passes at once.
    waitParity(kb, loc, barrierAddr(kb, loc, emptyBar, s),
               arith::XOrIOp::create(kb, loc, phase, ci32(kb, loc, 1)));
    Value full = barrierAddr(kb, loc, fullBar, s);
    IRMapping kmap = map;
    if (loop) {
      kmap.map(loop.getInductionVar(), kLoop.getInductionVar());
      (void)cloneScalars(kb, *loop.getBody(), kmap, nullptr);
    }
    Value s64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), s);
    auto stageAddrOf = [&](OpBuilder &ob, const Operand &o) -> Value {
      return arith::AddIOp::create(
          ob, loc, smemBase,
          arith::AddIOp::create(ob, loc, ci64(ob, loc, o.offset),
                                arith::MulIOp::create(ob, loc, s64, ci64(ob, loc, o.stageBytes))));
    };
    if (anyGather) {
      // Every producer thread copies its share of the gathered blocks into stage s; the
      // stage `gatherDefer` blocks back is complete for this thread once cp.async.wait_group
      // leaves at most gatherDefer groups pending. Its shared-memory writes (generic proxy)
      // are then fenced for the async proxy that wgmma reads through, and the thread arrives
      // on that stage's `full` barrier (initialized for 128 such arrivals, + 1 for the TMA
      // expect_tx arrival when some operand comes by TMA).
      for (Operand *o : {&opA, &opB})
        if (o->gather)
          emitGather(kb, loc, *o, kmap, stageAddrOf(kb, *o));
      NVVM::CpAsyncCommitGroupOp::create(kb, loc);
      Value doneIt = arith::SubIOp::create(kb, loc, it, ci32(kb, loc, gatherDefer));
      auto ready = scf::IfOp::create(
          kb, loc,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::sge, doneIt, ci32(kb, loc, 0)),
          false);
      OpBuilder rb = ready.getThenBodyBuilder();
      NVVM::CpAsyncWaitGroupOp::create(rb, loc, gatherDefer);
      NVVM::FenceProxyOp::create(
          rb, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
      NVVM::MBarrierArriveOp::create(
          rb, loc, Type(),
          barrierAddr(rb, loc, fullBar,
                      arith::RemUIOp::create(rb, loc, doneIt, ci32(rb, loc, stages))),
          Value());
    }
    int64_t tmaBytes = 0;
    for (Operand *o : {&opA, &opB})
      if (!o->gather)
        tmaBytes += o->stageBytes;
    OpBuilder tmaB = kb;
    if (tmaBytes && anyGather) {
      auto t0 = scf::IfOp::create(
          kb, loc, arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid, ci32(kb, loc, 0)),
          false);
      tmaB = t0.getThenBodyBuilder();
    }
    if (tmaBytes)
      NVVM::MBarrierArriveExpectTxOp::create(tmaB, loc, Type(), full, ci32(tmaB, loc, tmaBytes),
                                             NVVM::MemScopeKind::CTA, false, Value());
    for (Operand *o : {&opA, &opB}) {
      if (o->gather)
        continue;
      OpBuilder &kb = tmaB;
      Value desc = args[o->descArg];
      Value batch = kmap.lookupOrDefault(o->load.getBatch());
      Value row = kmap.lookupOrDefault(o->load.getRow());
      Value col = kmap.lookupOrDefault(o->load.getCol());
      Value stageAddr = stageAddrOf(kb, *o);
      for (int64_t j = 0; j < o->numBoxes(); ++j) {
        Value dst = LLVM::IntToPtrOp::create(
            kb, loc, LLVM::LLVMPointerType::get(kb.getContext(), 7),
            arith::AddIOp::create(kb, loc, stageAddr, ci64(kb, loc, j * o->boxBytes()))
                .getResult());
        Value c = arith::AddIOp::create(kb, loc, col, ci32(kb, loc, j * o->rowElems));
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            kb, loc, dst, desc, ValueRange{c, row, batch}, full, ValueRange{}, Value(), Value(),
            NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
      }
    }
    scf::YieldOp::create(kb, loc, ValueRange{arith::AddIOp::create(kb, loc, it, ci32(kb, loc, 1))});
  }
  scf::YieldOp::create(tb, loc, kLoop.getResults());
  if (anyGather && gatherDefer > 0) {
    // The last gatherDefer stages: wait for all copies, fence, arrive.
    Value itEnd = tileLoop.getResult(0);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
    for (int64_t d = gatherDefer; d >= 1; --d) {
      Value j = arith::SubIOp::create(b, loc, itEnd, ci32(b, loc, d));
      auto ifOp = scf::IfOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, ci32(b, loc, 0)),
          false);
      OpBuilder ib = ifOp.getThenBodyBuilder();
      NVVM::MBarrierArriveOp::create(
          ib, loc, Type(),
          barrierAddr(ib, loc, fullBar, arith::RemUIOp::create(ib, loc, j, ci32(ib, loc, stages))),
          Value());
    }
  }
}

std::pair<Value, Value> WgmmaKernel::gatherAddress(OpBuilder &b, Location loc, const Operand &o,
                                                   IRMapping &kmap, Value r, Value k) {
  auto add = [&](Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
  if (tl::Im2ColLoadOp l = o.im2col) {
    // tile.im2col_load's formula (TileOps.td), per element (OperandAddress.h).
    Im2ColRow row = im2colRow(b, loc, l, add(kmap.lookupOrDefault(l.getRow()), r));
    return im2colElement(b, loc, l, row, add(kmap.lookupOrDefault(l.getCol()), k));
  }
  // A block_load: smem row r / column k is block element (r, k) when k runs along the
  // stored rows (K contiguous: A plain, B transposed), else (k, r).
  tl::BlockLoadOp l = o.load;
  bool kAlongCols = o.isA ? !l.getTranspose() : l.getTranspose();
  Value row = add(kmap.lookupOrDefault(l.getRow()), kAlongCols ? r : k);
  Value col = add(kmap.lookupOrDefault(l.getCol()), kAlongCols ? k : r);
  return blockLoadElement(b, loc, l, kmap.lookupOrDefault(l.getBatch()), row, col);
}

void WgmmaKernel::emitGather(OpBuilder &b, Location loc, const Operand &o, IRMapping &kmap,
                             Value stageAddr) {
  MLIRContext *ctx = b.getContext();
  // Units of `vec` elements: unit u = tid + 128 i is row u / unitsPerRow, k (u % unitsPerRow)
  // * vec; unitsPerRow divides 128, so a thread keeps its k and steps rows by 128 /
  // unitsPerRow (consecutive threads read consecutive k: coalesced along NHWC channels).
  int64_t unitsPerRow = o.cols / o.vec;
  int64_t perThread = o.rows * unitsPerRow / 128;
  int64_t rowStep = 128 / unitsPerRow;
  Value rBase = arith::DivUIOp::create(b, loc, tid, ci32(b, loc, unitsPerRow));
  Value k = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, tid, ci32(b, loc, unitsPerRow)), ci32(b, loc, o.vec));
  // Shared byte offset of (r, k) in the swizzled box layout (see the file comment): box
  // k / rowElems, row r (128 bytes each), 16-byte chunk ((k % rowElems) * bytes / 16) XOR
  // (r mod 8), byte within the chunk.
  Value kInRow = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, k, ci32(b, loc, o.rowElems)), ci32(b, loc, elemBytes));
  Value boxOff =
      arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, k, ci32(b, loc, o.rowElems)),
                            ci32(b, loc, o.boxBytes()));
  Value chunk = arith::DivUIOp::create(b, loc, kInRow, ci32(b, loc, 16));
  Value within = arith::RemUIOp::create(b, loc, kInRow, ci32(b, loc, 16));
  tl::Im2ColLoadOp im2col = o.im2col;
  tl::BlockLoadOp load = o.load;
  Value memref = kmap.lookupOrDefault(im2col ? im2col.getPtr() : load.getPtr());
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  auto gPtrTy = LLVM::LLVMPointerType::get(ctx, 1);
  Value gBase = LLVM::AddrSpaceCastOp::create(
      b, loc, gPtrTy, LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx), raw));
  Type et = elem;
  // One unit (row r): its source address, its swizzled destination, the copy.
  auto unit = [&](OpBuilder &b, Value r) {
    auto [off, ok] = gatherAddress(b, loc, o, kmap, r, k);
    Value safeOff = arith::SelectOp::create(b, loc, ok, off, ci32(b, loc, 0));
    Value src = LLVM::GEPOp::create(b, loc, gPtrTy, et, gBase, ArrayRef<LLVM::GEPArg>{safeOff});
    Value sw =
        arith::XOrIOp::create(b, loc, chunk, arith::RemUIOp::create(b, loc, r, ci32(b, loc, 8)));
    Value inStage = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, boxOff,
                              arith::MulIOp::create(b, loc, r, ci32(b, loc, kSwizzleBytes))),
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, sw, ci32(b, loc, 16)), within));
    Value dst =
        sharedPtr(b, loc,
                  arith::AddIOp::create(b, loc, stageAddr,
                                        arith::ExtUIOp::create(b, loc, b.getI64Type(), inStage)));
    if (o.vec > 1) {
      // 16 bytes, or 0 source bytes (zero fill) where out of bounds (PTX ISA "cp.async").
      Value bytes = arith::SelectOp::create(b, loc, ok, ci32(b, loc, 16), ci32(b, loc, 0));
      NVVM::CpAsyncOp::create(
          b, loc, dst, src, b.getI32IntegerAttr(16),
          NVVM::LoadCacheModifierKindAttr::get(ctx, NVVM::LoadCacheModifierKind::CG), bytes);
    } else {
      Value v = LLVM::LoadOp::create(b, loc, et, src);
      Value zero = arith::ConstantOp::create(b, loc, et, b.getFloatAttr(et, 0.0));
      LLVM::StoreOp::create(b, loc, arith::SelectOp::create(b, loc, ok, v, zero), dst);
    }
  };
  // Few units (the 16-byte copies): straight-line code, their row terms kept in registers
  // across k blocks. Many (per-element gathers): a loop, so that the row terms of 32-64 rows
  // are not all hoisted out of the K loop (they spilled).
  if (perThread <= 8) {
    for (int64_t i = 0; i < perThread; ++i)
      unit(b, arith::AddIOp::create(b, loc, rBase, ci32(b, loc, i * rowStep)));
    return;
  }
  auto uLoop = scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                                  arith::ConstantIndexOp::create(b, loc, perThread),
                                  arith::ConstantIndexOp::create(b, loc, 1));
  OpBuilder ub = OpBuilder::atBlockBegin(uLoop.getBody());
  Value i32v = arith::IndexCastOp::create(ub, loc, ub.getI32Type(), uLoop.getInductionVar());
  unit(ub, arith::AddIOp::create(ub, loc, rBase,
                                 arith::MulIOp::create(ub, loc, i32v, ci32(ub, loc, rowStep))));
}

LogicalResult WgmmaKernel::emitConsumer(OpBuilder &b, Location loc, Block &src,
                                        ArrayRef<Value> args) {
  MLIRContext *ctx = b.getContext();
  auto grid = sched.getGrid();
  int64_t tiles = grid[0] * grid[1] * grid[2];
  int64_t R = BN / 2;
  // Cooperative: the consumer warpgroups split each tile's rows (64 each). Ping-pong: each
  // consumer warpgroup owns whole tiles (both 64-row halves, two accumulators), the two
  // taking turns along the CTA's tile sequence.
  int64_t halves = pingpong ? BM / 64 : 1;
  auto accTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(R, b.getF32Type()));
  Value t128 = arith::RemUIOp::create(b, loc, tid, ci32(b, loc, 128));
  Value cw = arith::SubIOp::create(b, loc, arith::DivUIOp::create(b, loc, tid, ci32(b, loc, 128)),
                                   ci32(b, loc, 1));
  Value lane = arith::RemUIOp::create(b, loc, t128, ci32(b, loc, 32));
  Value warp = arith::DivUIOp::create(b, loc, t128, ci32(b, loc, 32));
  // Accumulator coordinates (see the file comment): row of half h = 64 h' + 16 warp + lane / 4
  // (+ 8), h' = h (ping-pong) or the consumer index (cooperative).
  Value rowInHalf =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warp, ci32(b, loc, 16)),
                            arith::DivUIOp::create(b, loc, lane, ci32(b, loc, 4)));
  Value colBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, ci32(b, loc, 4)), ci32(b, loc, 2));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t128, ci32(b, loc, 0));

  Value bid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                         gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value gdim = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                          gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  // Tiles of this warpgroup: the CTA's sequence bid, bid + G, ... (cooperative), or every
  // other one of it starting at the consumer index (ping-pong). The pipeline position of a
  // tile's first k block is its ordinal in the CTA's sequence times numK (the producer loads
  // every tile of the sequence in order).
  Value first =
      pingpong
          ? arith::AddIOp::create(b, loc, bid, arith::MulIOp::create(b, loc, cw, gdim)).getResult()
          : bid;
  Value step = pingpong ? arith::MulIOp::create(b, loc, gdim, ci32(b, loc, 2)).getResult() : gdim;

  // TMA-store epilogue: this warpgroup's staging buffer and named barrier, and the per-thread
  // parts of the staging addresses. Element (r, c) of the staging buffer (r < stRows,
  // c < BLOCK_N) lies in box c / stBoxElems, row r, byte b = (c % stBoxElems) * outBytes of
  // the row; the 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B, as the loads; boxes are
  // 1024-aligned) puts 16-byte chunk b / 16 of row r at chunk (b / 16) ^ (r % 8):
  //   addr = staging + box * stRows * 128 + r * 128 + ((b / 16) ^ (r % 8)) * 16 + b % 16.
  // A thread's register pair (i, i + 1), i even, is row r = rowInHalf + 64 h + 8 c and
  // columns c0 = colBase + 8 q, c0 + 1 (file comment). Hence, per thread:
  //   - r % 8 = rowInHalf % 8 (64 h + 8 c is a multiple of 8);
  //   - the byte c0 * outBytes = colBase * outBytes + 8 q * outBytes, the first term < 32,
  //     the second a multiple of 16: chunk (in the row of boxes) Q + L with Q = q * outBytes
  //     / 2 (constant) and L = colBase * outBytes / 16 (0 for f16 / bf16; 0 or 1 for f32,
  //     and then Q is even), byte in chunk W = colBase * outBytes % 16; the pair (4 or 8
  //     bytes) stays in its chunk;
  //   - box Q / 8, chunk in box (Q % 8) | L, swizzled ((Q % 8) | L) ^ (r % 8) =
  //     (Q % 8) ^ (L ^ (r % 8)) (Q % 8 has bit 0 clear whenever L is 1).
  // So addr = P + (64 h + 8 c) * 128 + (Q / 8) * stRows * 128 + ((Q % 8) * 16 ^ X) with the
  // per-thread P = staging + rowInHalf * 128 + W and X = (L ^ (rowInHalf % 8)) * 16: two
  // registers, and per pair one xor with a constant and an add (a full per-column table
  // here made ptxas spill at BLOCK_N = 128 / 256).
  //
  // Transposed stores (the NCHW conv): tile element (r, c) is staging element (c, r), i.e.
  // staging row c (an output channel, < BLOCK_N) of 128 bytes in box r / stBoxElems (boxes of
  // BLOCK_N rows), byte b = (r % stBoxElems) * outBytes:
  //   addr = staging + box * BN * 128 + c * 128 + ((b / 16) ^ (c % 8)) * 16 + b % 16.
  // Register i (h = i / R, j = i % R, c = (j % 4) / 2, q = j / 4, e = j % 2) of a thread is
  // tile row r = 64 h + 8 c + rowInHalf (within the warpgroup's rows), column colBase + 8 q + e.
  // With A = rowInHalf * outBytes (rowInHalf = 16 warp + lane / 4 < 64):
  //   - the byte of r in the warpgroup's row of boxes is 64 h outBytes + 8 c outBytes + A; the
  //     first term is whole boxes (h outBytes / 2 of them), and 8 c outBytes + A % 128 < 128
  //     (f16: A % 128 <= 110, + 16; f32: A % 128 <= 92, + 32): r lies in box h outBytes / 2 +
  //     A / 128, chunk A % 128 / 16 + c outBytes / 2, byte A % 16 of the chunk; the two chunk
  //     terms have no bit in common (f16: 2 warp and c; f32: 4 (warp % 2) + lane / 16 and 2 c),
  //     so the sum is their xor;
  //   - the staging row c % 8 = colBase + e = colBase ^ e (colBase = 2 (lane % 4) is even).
  // So addr = P + (h outBytes / 2) BN 128 + (8 q + e) 128 + (X ^ ((c outBytes / 2) ^ e) 16)
  // with the per-thread P = staging + (A / 128) BN 128 + colBase 128 + A % 16 and
  // X = ((A % 128 / 16) ^ colBase) 16: the same two registers and per-element xor + add.
  // One 2-byte (f16 / bf16) or 4-byte (f32) st.shared per element: a warp's 32 lanes write
  // 4 staging rows (lane % 4) at 8 consecutive pixels (lane / 4) each; the 4 rows' chunks
  // differ ((..) ^ colBase, colBase = 0, 2, 4, 6), so the 32 lanes hit 32 different banks
  // (f32) or 16 banks, two lanes per 4-byte word (f16): conflict-free.
  Value staging, storeBar, stP, stX;
  if (tmaStore) {
    Value cw64 = arith::ExtUIOp::create(b, loc, b.getI64Type(), cw);
    staging = arith::AddIOp::create(
        b, loc, smemBase,
        arith::AddIOp::create(b, loc, ci64(b, loc, stOffset),
                              arith::MulIOp::create(b, loc, cw64, ci64(b, loc, stBytes))));
    storeBar = arith::AddIOp::create(b, loc, cw, ci32(b, loc, kStoreBarrier));
    if (outTransposed) {
      Value A = arith::MulIOp::create(b, loc, rowInHalf, ci32(b, loc, outBytes));
      Value boxA = arith::DivUIOp::create(b, loc, A, ci32(b, loc, kSwizzleBytes));
      Value chunkA = arith::DivUIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, A, ci32(b, loc, kSwizzleBytes)), ci32(b, loc, 16));
      Value withinA = arith::RemUIOp::create(b, loc, A, ci32(b, loc, 16));
      stX = arith::MulIOp::create(b, loc, arith::XOrIOp::create(b, loc, chunkA, colBase),
                                  ci32(b, loc, 16));
      Value bytes = arith::AddIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, boxA, ci32(b, loc, BN * kSwizzleBytes)),
              arith::MulIOp::create(b, loc, colBase, ci32(b, loc, kSwizzleBytes))),
          withinA);
      stP = arith::AddIOp::create(b, loc, staging,
                                  arith::ExtUIOp::create(b, loc, b.getI64Type(), bytes));
    } else {
      Value colBytes = arith::MulIOp::create(b, loc, colBase, ci32(b, loc, outBytes));
      Value L = arith::DivUIOp::create(b, loc, colBytes, ci32(b, loc, 16));
      Value W = arith::RemUIOp::create(b, loc, colBytes, ci32(b, loc, 16));
      Value rsw = arith::AndIOp::create(b, loc, rowInHalf, ci32(b, loc, 7));
      stX = arith::MulIOp::create(b, loc, arith::XOrIOp::create(b, loc, L, rsw), ci32(b, loc, 16));
      Value rowBytes = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, rowInHalf, ci32(b, loc, kSwizzleBytes)), W);
      stP = arith::AddIOp::create(b, loc, staging,
                                  arith::ExtUIOp::create(b, loc, b.getI64Type(), rowBytes));
    }
  }
  // One bar.sync over this warpgroup's 128 threads (named barrier storeBar).
  auto warpgroupBarrier = [&](OpBuilder &ob) {
    NVVM::BarrierOp::create(ob, loc, TypeRange{}, storeBar, ci32(ob, loc, 128),
                            NVVM::BarrierReductionAttr(), Value());
  };

  auto tileLoop = scf::ForOp::create(b, loc, first, ci32(b, loc, tiles), step);
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  Value t = tileLoop.getInductionVar();
  Value it0 = arith::MulIOp::create(
      tb, loc, arith::DivUIOp::create(tb, loc, arith::SubIOp::create(tb, loc, t, bid), gdim),
      ci32(tb, loc, numK));
  IRMapping map;
  for (auto [o, n] : llvm::zip(src.getArguments(), args))
    map.map(o, n);
  auto pids = tilePids(tb, loc, t);
  fn.walk([&](tl::ProgramIdOp p) { map.map(p.getResult(), pids[p.getAxis()]); });
  if (failed(cloneScalars(tb, src, map, kOp)))
    return failure();

  // One k block: wait for its stage, wgmma.fence, BLOCK_K / 16 wgmmas per accumulator,
  // commit, wait until one group is in flight. The first k block of a tile starts with
  // scale-d = 0 (D = A B): the accumulators are never written by other instructions (zeroing
  // them inside the fence window is what makes ptxas serialize wgmma, warning C7514/C7515;
  // CUTLASS does the same).
  auto layoutA = opA.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  auto layoutB = opB.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  auto wt = tf32          ? NVVM::WGMMATypes::tf32
            : elem.isF16() ? NVVM::WGMMATypes::f16
                           : NVVM::WGMMATypes::bf16;
  int64_t halfBytes = opA.kMajor ? 64 * kSwizzleBytes : (64 / opA.rowElems) * opA.boxBytes();
  auto kStep = [&](OpBuilder &kb, ValueRange accIn, Value it, bool firstK) {
    Value s = arith::RemUIOp::create(kb, loc, it, ci32(kb, loc, stages));
    Value phase = arith::AndIOp::create(
        kb, loc, arith::DivUIOp::create(kb, loc, it, ci32(kb, loc, stages)), ci32(kb, loc, 1));
    waitParity(kb, loc, barrierAddr(kb, loc, fullBar, s), phase);
    Value s64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), s);
    Value offA = arith::MulIOp::create(kb, loc, s64, ci64(kb, loc, opA.stageBytes));
    Value offB = arith::MulIOp::create(kb, loc, s64, ci64(kb, loc, opB.stageBytes));
    SmallVector<Value> offAh;
    if (pingpong) {
      for (int64_t h = 0; h < halves; ++h)
        offAh.push_back(arith::AddIOp::create(kb, loc, offA, ci64(kb, loc, h * halfBytes)));
    } else {
      // The consumer warpgroup's 64 rows of A.
      Value cw64 = arith::ExtUIOp::create(kb, loc, kb.getI64Type(), cw);
      offAh.push_back(arith::AddIOp::create(
          kb, loc, offA, arith::MulIOp::create(kb, loc, cw64, ci64(kb, loc, halfBytes))));
    }
    NVVM::WgmmaFenceAlignedOp::create(kb, loc);
    SmallVector<Value> accV(accIn.begin(), accIn.end());
    for (int64_t kk = 0; kk < BK / kInstr; ++kk) {
      Value db = descriptor(kb, loc, opB, offB, kk, 0);
      for (int64_t h = 0; h < halves; ++h) {
        Value da = descriptor(kb, loc, opA, offAh[h], kk, 0);
        auto scaleD = firstK && kk == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one;
        accV[h] = NVVM::WgmmaMmaAsyncOp::create(
            kb, loc, accTy, accV[h], da, db, NVVM::MMAShapeAttr::get(ctx, 64, BN, kInstr),
            NVVM::WGMMATypesAttr::get(ctx, wt), NVVM::WGMMATypesAttr::get(ctx, wt),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, scaleD),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, layoutA), NVVM::MMALayoutAttr::get(ctx, layoutB),
            NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(kb, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(kb, loc, 1);
    return accV;
  };
  auto release = [&](OpBuilder &ob, Value itOfStage) {
    auto rel = scf::IfOp::create(ob, loc, leader, false);
    OpBuilder rb = rel.getThenBodyBuilder();
    Value st = arith::RemUIOp::create(rb, loc, itOfStage, ci32(rb, loc, stages));
    NVVM::MBarrierArriveOp::create(rb, loc, Type(), barrierAddr(rb, loc, emptyBar, st), Value());
  };
  // Ping-pong order: warpgroup w starts the K loop of its n-th tile (ordinal 2n + w) once the
  // other warpgroup has issued the K loop of ordinal 2n + w - 1 (phase n + w - 1 of
  // orderBar[w]). Without it a warpgroup would wait on stages whose barrier is two or more
  // phases behind, and parity waits cannot tell those phases apart (CUTLASS orders its
  // ping-pong math warpgroups the same way).
  if (pingpong) {
    Value n = arith::DivUIOp::create(tb, loc, arith::SubIOp::create(tb, loc, t, first), step);
    Value phaseIdx =
        arith::SubIOp::create(tb, loc, arith::AddIOp::create(tb, loc, n, cw), ci32(tb, loc, 1));
    Value mustWait =
        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::sge, phaseIdx, ci32(tb, loc, 0));
    auto w = scf::IfOp::create(tb, loc, mustWait, false);
    OpBuilder wb = w.getThenBodyBuilder();
    waitParity(wb, loc, barrierAddr(wb, loc, orderBar, cw),
               arith::AndIOp::create(wb, loc, phaseIdx, ci32(wb, loc, 1)));
  }
  // k block 0 (peeled), then 1 .. numK-1, each releasing the stage of the block before it.
  SmallVector<Value> undefs(halves, LLVM::UndefOp::create(tb, loc, accTy));
  SmallVector<Value> acc0 = kStep(tb, undefs, it0, /*firstK=*/true);
  Value c1 = arith::ConstantIndexOp::create(tb, loc, 1);
  Value cN = arith::ConstantIndexOp::create(tb, loc, numK);
  SmallVector<Value> inits(acc0);
  inits.push_back(arith::AddIOp::create(tb, loc, it0, ci32(tb, loc, 1)));
  auto kLoop = scf::ForOp::create(tb, loc, c1, cN, c1, inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value it = kLoop.getRegionIterArgs()[halves];
    SmallVector<Value> accV =
        kStep(kb, kLoop.getRegionIterArgs().take_front(halves), it, /*firstK=*/false);
    release(kb, arith::AddIOp::create(kb, loc, it, ci32(kb, loc, stages - 1)));
    accV.push_back(arith::AddIOp::create(kb, loc, it, ci32(kb, loc, 1)));
    scf::YieldOp::create(kb, loc, accV);
  }
  Value itOut = kLoop.getResult(halves);
  if (pingpong) {
    // Hand the tensor cores to the other warpgroup; this one goes on to its epilogue.
    auto sig = scf::IfOp::create(tb, loc, leader, false);
    OpBuilder sb = sig.getThenBodyBuilder();
    Value other = arith::SubIOp::create(sb, loc, ci32(sb, loc, 1), cw);
    NVVM::MBarrierArriveOp::create(sb, loc, Type(), barrierAddr(sb, loc, orderBar, other), Value());
  }
  NVVM::WgmmaWaitGroupSyncOp::create(tb, loc, 0);
  release(tb, arith::AddIOp::create(tb, loc, itOut, ci32(tb, loc, stages - 1)));
  // The epilogue reads each accumulator through one f32 add of +0.0 (exact except that -0
  // becomes +0). ptxas (CUDA 13.0) serializes every wgmma of a kernel whose epilogue feeds the
  // raw accumulator registers to f32->f16 conversions (info C7514, "non wgmma instructions
  // reading accumulator registers ... between start and end of the pipeline stage"), even
  // after wgmma.wait_group 0; an arithmetic first use does not trigger it (measured on the
  // plain matmul kernels of bench/gemm_models.py).
  SmallVector<Value> accRegs;
  Value plusZero = arith::ConstantOp::create(tb, loc, tb.getF32FloatAttr(0.0));
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t i = 0; i < R; ++i)
      accRegs.push_back(arith::AddFOp::create(
          tb, loc, LLVM::ExtractValueOp::create(tb, loc, kLoop.getResult(h), ArrayRef<int64_t>{i}),
          plusZero));
  // The wgmma accumulator layout (see the file comment): per half, 2 row classes and BN / 4
  // column classes.
  AccumulatorLayout layout;
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t i = 0; i < R; ++i) {
      layout.rowClass.push_back(2 * h + (i % 4) / 2);
      layout.colClass.push_back((i / 4) * 2 + i % 2);
    }
  auto plus = [&](Value v, int64_t c) -> Value {
    return c ? arith::AddIOp::create(tb, loc, v, ci32(tb, loc, c)).getResult() : v;
  };
  Value rowBase = pingpong
                      ? rowInHalf
                      : arith::AddIOp::create(tb, loc, rowInHalf,
                                              arith::MulIOp::create(tb, loc, cw, ci32(tb, loc, 64)))
                            .getResult();
  for (int64_t h = 0; h < halves; ++h)
    for (int64_t c = 0; c < 2; ++c)
      layout.rowCoords.push_back(plus(rowBase, 64 * h + 8 * c));
  for (int64_t c = 0; c < BN / 4; ++c)
    layout.colCoords.push_back(plus(colBase, 8 * (c / 2) + c % 2));
  AccumulatorEpilogue ep(tb, loc, map, std::move(layout), accRegs, accResult);
  if (tmaStore) {
    // The TMA-store sequence of one tile (per consumer warpgroup, on its own staging buffer,
    // named barrier and bulk async-groups; the leader is its thread 0):
    //   1. leader: cp.async.bulk.wait_group.read 0 -- the TMA stores of this warpgroup's
    //      previous tile have finished reading the staging buffer (nothing to wait for at
    //      the first tile); bar.sync(storeBar, 128) -- no thread writes it before that;
    //   2. every thread: the epilogue in registers, its final values (output type) written
    //      to the staging buffer with st.shared (register pairs, 4 or 8 bytes);
    //   3. every thread: fence.proxy.async.shared::cta -- its generic-proxy shared-memory
    //      writes become visible to the async proxy (TMA reads through it);
    //   4. bar.sync(storeBar, 128) -- all 128 threads have written and fenced;
    //   5. leader: one cp.async.bulk.tensor shared::cta -> global (bulk_group) per box, at
    //      (col + j * boxElems, row (+ 64 w cooperative), batch); TMA clips what falls
    //      outside the matrix; then cp.async.bulk.commit_group.
    // The wait of step 1 runs after the next tile's K loop, which gives the stores that long
    // to drain. After the last tile the leader waits for their completion
    // (cp.async.bulk.wait_group 0) before the CTA exits.
    auto w = scf::IfOp::create(tb, loc, leader, false);
    OpBuilder wb = w.getThenBodyBuilder();
    NVVM::CpAsyncBulkWaitGroupOp::create(wb, loc, 0, wb.getUnitAttr());
    warpgroupBarrier(tb);
    // The address parts P and X are the same for every tile; LLVM's LICM would hoist each
    // staging address (or its xor part, one per chunk column) out of the tile loop, where
    // they stay live across the K loop and made ptxas spill the consumers at BLOCK_N = 128
    // / 256 (measured with ptxas -v, CUDA 13.0). A zero that LLVM cannot see through (inline
    // PTX with side effects, one mov per tile) keeps them in the epilogue, next to their use.
    Value opaqueZero =
        LLVM::InlineAsmOp::create(tb, loc, tb.getI32Type(), ValueRange{}, "mov.u32 $0, 0;", "=r",
                                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                                  LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                                  ArrayAttr())
            .getResult(0);
    Value tileX = arith::OrIOp::create(tb, loc, stX, opaqueZero);
    Value tileP = arith::AddIOp::create(
        tb, loc, stP, arith::ExtUIOp::create(tb, loc, tb.getI64Type(), opaqueZero));
    auto pairT = VectorType::get({2}, outElem);
    ep.setBlockStoreSink([&, pairT, tileX, tileP](OpBuilder &sb, int64_t i, Value v0, Value v1) {
      int64_t h = i / R, j = i % R, c = (j % 4) / 2, q = j / 4;
      if (outTransposed) {
        // Registers i and i + 1 are staging rows 8 q and 8 q + 1 (+ colBase) of the same
        // pixel: one element store each (see the address derivation above).
        for (int64_t e = 0; e < 2; ++e) {
          int64_t rest = (h * outBytes / 2) * BN * kSwizzleBytes + (8 * q + e) * kSwizzleBytes;
          int64_t sw = ((c * outBytes / 2) ^ e) * 16;
          Value off = arith::AddIOp::create(
              sb, loc, arith::XOrIOp::create(sb, loc, tileX, ci32(sb, loc, sw)),
              ci32(sb, loc, rest));
          Value addr = arith::AddIOp::create(sb, loc, tileP,
                                             arith::ExtUIOp::create(sb, loc, sb.getI64Type(), off));
          LLVM::StoreOp::create(sb, loc, e ? v1 : v0, sharedPtr(sb, loc, addr), outBytes);
        }
        return;
      }
      int64_t Q = q * outBytes / 2;
      int64_t rest = (64 * h + 8 * c) * kSwizzleBytes + (Q / 8) * stRows * kSwizzleBytes;
      Value sw = arith::XOrIOp::create(sb, loc, tileX, ci32(sb, loc, (Q % 8) * 16));
      Value off = arith::AddIOp::create(sb, loc, sw, ci32(sb, loc, rest));
      Value addr = arith::AddIOp::create(sb, loc, tileP,
                                         arith::ExtUIOp::create(sb, loc, sb.getI64Type(), off));
      Value v = vector::FromElementsOp::create(sb, loc, pairT, ValueRange{v0, v1});
      LLVM::StoreOp::create(sb, loc, v, sharedPtr(sb, loc, addr), 2 * outBytes);
    }, [&](OpBuilder &sb) {
      // An ordering point after each group of 8 registers: bar.warp.sync orders memory
      // accesses (PTX ISA, bar.warp.sync), so ptxas keeps the next group's loads (bias,
      // residual) and the math that hangs on them below this group's st.shared. Without it
      // ptxas hoists them all (st.shared cannot alias a global load, where the register
      // path's st.global can): with GELU's erf on 128 accumulators per thread (ping-pong)
      // that spilled 656 bytes; with it, none (ptxas -v, CUDA 13.0). The warp is converged
      // here, so the sync costs one WARPSYNC.
      NVVM::SyncWarpOp::create(sb, loc, ci32(sb, loc, -1));
    });
  }
  if (failed(ep.emitAfter(src, kOp)))
    return failure();
  if (tmaStore) {
    NVVM::FenceProxyOp::create(tb, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    warpgroupBarrier(tb);
    auto st = scf::IfOp::create(tb, loc, leader, false);
    OpBuilder sb = st.getThenBodyBuilder();
    // One TMA box store per box. Transposed, the box's columns are this warpgroup's tile rows
    // (the pixels) and its rows the tile's columns (the channels): coordinates (col (+ 64 w
    // cooperative) + j * boxElems, row, batch). A box wholly outside the output (pixels all
    // past OH * OW, or a batch >= N) is not issued; one that crosses the far edge is, and
    // the store writes only the elements inside (PTX ISA 5.5.3.3, "Out of Boundary Access"),
    // as the ragged M / N edges of the matmul epilogue rely on. Negative starting coordinates
    // are not used: a store there faulted on the H200 (see matchTmaStore).
    ArrayRef<int64_t> od = outStore.getDims();
    int64_t boxes = (outTransposed ? stRows : BN) / stBoxElems;
    Value batch = map.lookupOrDefault(outStore.getBatch());
    Value row = map.lookupOrDefault(outStore.getRow());
    Value col = map.lookupOrDefault(outStore.getCol());
    if (!pingpong && consumers > 1) {
      Value wOff = arith::MulIOp::create(sb, loc, cw, ci32(sb, loc, 64));
      if (outTransposed)
        col = arith::AddIOp::create(sb, loc, col, wOff);
      else
        row = arith::AddIOp::create(sb, loc, row, wOff);
    }
    int64_t boxStride = (outTransposed ? BN : stRows) * kSwizzleBytes;
    for (int64_t j = 0; j < boxes; ++j) {
      Value box =
          sharedPtr(sb, loc, arith::AddIOp::create(sb, loc, staging, ci64(sb, loc, j * boxStride)));
      Value c = arith::AddIOp::create(sb, loc, col, ci32(sb, loc, j * stBoxElems));
      OpBuilder ib = sb;
      if (outTransposed) {
        auto cmp = [&](arith::CmpIPredicate p, Value x, int64_t v) -> Value {
          return arith::CmpIOp::create(sb, loc, p, x, ci32(sb, loc, v));
        };
        Value inside = arith::AndIOp::create(
            sb, loc,
            arith::AndIOp::create(sb, loc, cmp(arith::CmpIPredicate::sgt, c, -stBoxElems),
                                  cmp(arith::CmpIPredicate::slt, c, od[2])),
            cmp(arith::CmpIPredicate::ult, batch, od[0]));
        ib = scf::IfOp::create(sb, loc, inside, false).getThenBodyBuilder();
      }
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(ib, loc, args[outDescArg], box,
                                                         ValueRange{c, row, batch}, Value(),
                                                         NVVM::TMAStoreMode::TILE, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(sb, loc);
  }
  if (tmaStore) {
    // After the tile loop: the last tile's stores complete before the CTA exits.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointAfter(tileLoop);
    auto fin = scf::IfOp::create(b, loc, leader, false);
    OpBuilder fb = fin.getThenBodyBuilder();
    NVVM::CpAsyncBulkWaitGroupOp::create(fb, loc, 0, UnitAttr());
  }
  return success();
}

LogicalResult WgmmaKernel::run() {
  MLIRContext *ctx = fn.getContext();
  Location loc = fn.getLoc();
  Block &src = fn.getBody().front();
  OpBuilder b0(ctx);
  // What the runtime needs to build the TMA descriptors (read before the body is rewritten).
  SmallVector<Attribute> maps;
  for (Operand *o : {&opA, &opB}) {
    if (o->gather)
      continue;
    auto bufArg = cast<BlockArgument>(o->load.getPtr());
    ArrayRef<int64_t> d = o->load.getDims();
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(bufArg.getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(d));
    m.append("box", b0.getDenseI64ArrayAttr({1, o->rows, o->rowElems}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzleBytes));
    m.append("element", TypeAttr::get(elem));
    maps.push_back(m.getDictionary(ctx));
  }
  // The output's map (TMA-store epilogue): the box is one warpgroup's staging box.
  if (tmaStore) {
    NamedAttrList m;
    m.append("param", b0.getI64IntegerAttr(cast<BlockArgument>(outStore.getPtr()).getArgNumber()));
    m.append("dims", b0.getDenseI64ArrayAttr(outStore.getDims()));
    // Transposed (NCHW conv: dims [N, OC, OH * OW]): boxes of BLOCK_N channels x 128 bytes of
    // pixels.
    m.append("box", b0.getDenseI64ArrayAttr({1, outTransposed ? BN : stRows, stBoxElems}));
    m.append("swizzle", b0.getI64IntegerAttr(kSwizzleBytes));
    m.append("element", TypeAttr::get(outElem));
    maps.push_back(m.getDictionary(ctx));
  }
  // New signature: the buffers, then one CUtensorMap per TMA operand (byval, grid_constant).
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  unsigned nArgs = src.getNumArguments();
  Block *dst = new Block();
  SmallVector<Value> args;
  for (BlockArgument a : src.getArguments())
    args.push_back(dst->addArgument(a.getType(), a.getLoc()));
  // In the order of `maps`: the TMA operands, then the output.
  for (Operand *o : {&opA, &opB})
    if (!o->gather) {
      o->descArg = args.size();
      args.push_back(dst->addArgument(ptrTy, loc));
    }
  if (tmaStore) {
    outDescArg = args.size();
    args.push_back(dst->addArgument(ptrTy, loc));
  }
  SmallVector<Type> inputs(dst->getArgumentTypes());
  fn.setType(FunctionType::get(ctx, inputs, {}));
  fn.getBody().push_back(dst);
  // convert-tile-to-gpu turns the marker into {llvm.byval = !llvm.array<128 x i8>,
  // nvvm.grid_constant, llvm.align = 64} once the function is a gpu.func kernel.
  NamedAttrList tmaArgAttrs;
  tmaArgAttrs.append(tile::kTensorMapAttrName, UnitAttr::get(ctx));
  SmallVector<DictionaryAttr> argAttrs(nArgs, DictionaryAttr::get(ctx));
  for (size_t i = nArgs; i < args.size(); ++i)
    argAttrs.push_back(tmaArgAttrs.getDictionary(ctx));
  fn.setAllArgAttrs(argAttrs);

  OpBuilder b = OpBuilder::atBlockBegin(dst);
  tid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                   gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  auto smemTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                                gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value dyn = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value raw = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn));
  smemBase = arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, raw, ci64(b, loc, 1023)),
                                   ci64(b, loc, ~int64_t(1023)));
  fullBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset));
  emptyBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset + 8 * stages));
  orderBar = arith::AddIOp::create(b, loc, smemBase, ci64(b, loc, barOffset + 16 * stages));
  // Thread 0 initializes the barriers; everyone waits for it.
  {
    Value t0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, ci32(b, loc, 0));
    auto init = scf::IfOp::create(b, loc, t0, false);
    OpBuilder ib = init.getThenBodyBuilder();
    for (int64_t s = 0; s < stages; ++s) {
      // One arrival: the producer's arrive.expect_tx (TMA operands); + 128 when the producer
      // threads gather an operand (one arrival each).
      bool anyTMA = !opA.gather || !opB.gather;
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, fullBar, ci32(ib, loc, s)),
                                   ci32(ib, loc, (anyTMA ? 1 : 0) + (anyGather ? 128 : 0)),
                                   Value());
      // One arrival per consumer warpgroup that reads the stage.
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, emptyBar, ci32(ib, loc, s)),
                                   ci32(ib, loc, pingpong ? 1 : consumers), Value());
    }
    for (int64_t w = 0; w < 2; ++w)
      NVVM::MBarrierInitOp::create(ib, loc, barrierAddr(ib, loc, orderBar, ci32(ib, loc, w)),
                                   ci32(ib, loc, 1), Value());
    NVVM::FenceMbarrierInitOp::create(ib, loc);
  }
  gpu::BarrierOp::create(b, loc);
  Value wg = arith::DivUIOp::create(b, loc, tid, ci32(b, loc, 128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, ci32(b, loc, 0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  {
    OpBuilder pb = roles.getThenBodyBuilder();
    // Register budgets move from the producer to the consumers (setmaxnreg needs the
    // 384-thread cap of two consumer warpgroups; with one, every thread already has 255).
    if (consumers > 1)
      NVVM::SetMaxRegisterOp::create(pb, loc, producerRegs, NVVM::SetMaxRegisterAction::decrease);
    if (anyGather) {
      emitProducer(pb, loc, src, args);
    } else {
      Value t0 = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid, ci32(pb, loc, 0));
      auto one = scf::IfOp::create(pb, loc, t0, false);
      OpBuilder ob = one.getThenBodyBuilder();
      emitProducer(ob, loc, src, args);
    }
  }
  {
    OpBuilder cb = roles.getElseBodyBuilder();
    if (consumers > 1)
      NVVM::SetMaxRegisterOp::create(cb, loc, consumerRegs, NVVM::SetMaxRegisterAction::increase);
    if (failed(emitConsumer(cb, loc, src, args)))
      return failure();
  }
  func::ReturnOp::create(b, loc);
  for (Operation &op : llvm::reverse(src.getOperations()))
    op.dropAllUses();
  src.dropAllDefinedValueUses();
  src.erase();

  // What the launch and the runtime need.
  int64_t threads = 128 * (1 + consumers);
  fn->setAttr(
      tile::kLaunchGridAttrName,
      b.getDenseI32ArrayAttr({(int32_t)std::min<int64_t>(numSMs, sched.getNumPrograms()), 1, 1}));
  fn->setAttr(tile::kLaunchBlockAttrName, b.getDenseI32ArrayAttr({(int32_t)threads, 1, 1}));
  // setmaxnreg needs the register count at kernel entry, which ptxas derives from .maxntid
  // together with .minnctapersm (65536 / 384 threads: 168); with .maxntid alone it ignores
  // every setmaxnreg (ptxas info C7508, "'setmaxnreg' ignored; unable to determine register
  // count at entry") and the consumers never get their 232 registers. CUTLASS's
  // __launch_bounds__(384, 1) emits the same pair.
  if (consumers > 1)
    fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  fn->setAttr(tile::kDynamicSharedBytesAttrName, b.getI64IntegerAttr(smemBytes));
  fn->setAttr(tile::kTensorMapsAttrName, b.getArrayAttr(maps));
  SmallVector<NamedAttribute> extra;
  // num_stages lowered to make room for the staging buffers: the requested count.
  if (tmaStore && stagesRequested != stages)
    extra.push_back(b.getNamedAttr("num_stages_requested", b.getI64IntegerAttr(stagesRequested)));
  fn->setAttr(
      tile::kWgmmaAttrName,
      b.getDictionaryAttr(
          {b.getNamedAttr("BLOCK_M", b.getI64IntegerAttr(BM)),
           b.getNamedAttr("BLOCK_N", b.getI64IntegerAttr(BN)),
           b.getNamedAttr("BLOCK_K", b.getI64IntegerAttr(BK)),
           b.getNamedAttr("num_stages", b.getI64IntegerAttr(stages)),
           b.getNamedAttr("consumer_warpgroups", b.getI64IntegerAttr(consumers)),
           b.getNamedAttr("schedule", b.getStringAttr(pingpong ? "pingpong" : "cooperative")),
           b.getNamedAttr("epilogue_store", b.getStringAttr(tmaStore ? "tma" : "registers"))}));
  if (!extra.empty()) {
    NamedAttrList all(fn->getAttrOfType<DictionaryAttr>(tile::kWgmmaAttrName));
    all.append(extra);
    fn->setAttr(tile::kWgmmaAttrName, all.getDictionary(ctx));
  }
  if (!tmaStoreRefused.empty())
    fn->setAttr(tile::kTmaStoreRefusedAttrName, b.getStringAttr(tmaStoreRefused));
  return success();
}

struct ConvertTileDotToWGMMAPass
    : public aicc::impl::ConvertTileDotToWGMMABase<ConvertTileDotToWGMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    // The persistent grid has one CTA per SM of the hardware.
    const aicc::ChipInfo *chip = aicc::lookupChip(hardware);
    if (!chip || !chip->isGPU) {
      getOperation().emitError("convert-tile-dot-to-wgmma: ")
          << aicc::unknownHardwareMessage(hardware);
      return signalPassFailure();
    }
    auto lower = [&](func::FuncOp fn, tl::ScheduleAttr sched, std::string &why) {
      WgmmaKernel k(fn, sched, chip->smCount, tmaStore);
      return k.match(why) ? k.run() : success();
    };
    if (failed(lowerDotKernels(getOperation(), tile::kWgmmaRefusedAttrName, lower)))
      signalPassFailure();
  }
};

struct FinalizeTensorMapParamsPass
    : public aicc::impl::FinalizeTensorMapParamsBase<FinalizeTensorMapParamsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // gpu.dynamic_shared_memory becomes an internal [0 x i8] global that the NVPTX backend
    // "demotes" to a 1-byte static .shared variable; the CUDA form of dynamic shared memory is
    // `.extern .shared .align A .b8 name[]`. Make it external, 1024-byte aligned (the 128-byte
    // swizzle's repeat).
    for (auto g : getOperation().getOps<LLVM::GlobalOp>())
      if (g.getAddrSpace() == 3 && g.getSymName().starts_with("__dynamic_shmem__")) {
        g.setLinkage(LLVM::Linkage::External);
        g.setAlignment(1024);
      }
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto maps = fn->getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName);
      if (!maps)
        continue;
      unsigned n = fn.getNumArguments();
      if (maps.size() > n) {
        fn.emitError("finalize-tensor-map-params: more tensor maps than parameters");
        return signalPassFailure();
      }
      for (unsigned i = n - maps.size(); i < n; ++i) {
        if (!isa<LLVM::LLVMPointerType>(fn.getArgumentTypes()[i])) {
          fn.emitError("finalize-tensor-map-params: tensor map parameter ") << i << " is not a pointer";
          return signalPassFailure();
        }
        fn.setArgAttr(i, "llvm.byval",
                      TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128)));
        fn.setArgAttr(i, "nvvm.grid_constant", UnitAttr::get(ctx));
        fn.setArgAttr(i, "llvm.align", IntegerAttr::get(IntegerType::get(ctx, 64), 64));
      }
    }
  }
};
} // namespace
