//===- WgmmaPlan.cpp - which matmul kernels take wgmma, and their configuration ---===//
//
// Part of convert-tile-dot-to-wgmma (WgmmaKernel.h).
//===----------------------------------------------------------------------===//
#include "WgmmaKernel.h"

#include "AccumulatorEpilogue.h"
#include "OperandAddress.h"

#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::wgmma;

bool WgmmaKernel::match(std::string &why) {
  DotKLoop m;
  if (!matchDotKLoop(fn, m, why))
    return false;
  dot = m.dot;
  loop = m.loop ? cast<scf::ForOp>(m.loop) : scf::ForOp();
  kOp = m.kOp;
  accResult = m.accResult;
  rowSquares = m.rowSquares;
  xRowSums = m.rowSums;
  rowOps = m.rowOps;
  tl::BlockLoadOp a = m.a, bl = m.b;
  tl::Im2ColLoadOp ai = m.aIm2col;
  std::optional<int64_t> ub = m.upper, st = m.step;
  auto accT = dot.getType();
  auto aT = cast<RankedTensorType>(dot.getA().getType());
  elem = aT.getElementType();
  tf32 = elem.isF32() && dot.getInputPrecision() == tl::InputPrecision::tf32;
  BM = accT.getDimSize(0);
  BN = accT.getDimSize(1);
  BK = aT.getDimSize(1);
  tile = MatmulTile{
      BM, BN, BK, sched.getNumWarps(), sched.getNumStages(), tensorCoreOperandOf(elem, tf32)};
  // The path's tile rules (include/aicc/Target/TensorCoreRules.h), shared with the config
  // heuristic.
  if (std::string problem = wgmmaTileProblem(tile); !problem.empty())
    return why = problem, false;
  if (!accT.getElementType().isF32())
    return why = "accumulator is not f32", false;
  K = *ub;
  if (*st != BK)
    return why = "K step differs from BLOCK_K", false;
  numK = (K + BK - 1) / BK;
  if (numK < 1)
    return why = "K is 0", false;
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
    if (l.getRows())
      return why = "block_load with a run-time row count (only the attention kernels take one)",
             false;
    o.load = l;
    o.isA = kContiguousIfPlain;
    auto t = l.getType();
    if ((l.getDims()[2] * elemBytes) % 16) {
      // Implicit-GEMM kernels gather such blocks (e.g. a 3x3 weight of 1 input channel: rows
      // of 9 elements); plain matmuls leave them to mma.sync.
      // Rows of whole 8-byte runs along k (a 4-channel first layer's weight, [M, KH * KW
      // * 4]) are gathered 8 bytes at a time.
      if (ai) {
        bool kAlongRows = o.isA ? !l.getTranspose() : l.getTranspose();
        int64_t v = kAlongRows && (l.getDims()[2] * elemBytes) % 8 == 0 ? 8 / elemBytes : 1;
        return setupGather(o, o.isA ? BM : BN, v);
      }
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
  // NHWC with C a multiple of that (consecutive k are consecutive channels), 8-byte copies
  // when C is a multiple of 8 bytes only, else per element.
  if (ai) {
    opA.im2col = ai;
    opA.isA = true;
    // 16-byte copies when C is a multiple of 16 bytes, 8-byte ones when of 8 (a first layer
    // padded to 4 channels, graph-conv-layout), else one element at a time.
    int64_t v16 = 16 / elemBytes, v8 = 8 / elemBytes, C = ai.getInput()[1];
    int64_t v = !ai.isNHWC() ? 1 : C % v16 == 0 ? v16 : C % v8 == 0 ? v8 : 1;
    if (!setupGather(opA, BM, v))
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
  // The norm prologue reads A's rows back from the 128-byte-swizzled K-major stage.
  if (rowSquares && (tf32 || opA.gather || !opA.kMajor || elemBytes != 2))
    return why = "a norm prologue needs a 16-bit A stored K-major (TMA)", false;
  // Epilogue ops: scalars, elementwise, tile construction, loads and stores.
  for (Operation &op : fn.getBody().front()) {
    if (&op == kOp || &op == dot.getOperation() || isa<func::ReturnOp>(op) ||
        op.getNumResults() && (op.getResult(0) == dot.getA() || op.getResult(0) == dot.getB()) ||
        llvm::is_contained(rowOps, &op))
      continue;
    if (!AccumulatorEpilogue::isSupported(&op))
      return why = ("epilogue holds " + op.getName().getStringRef()).str(), false;
  }
  // Shared memory: stages of A then B, each 1024-aligned; then the barriers.
  if (std::string problem = wgmmaSharedMemoryProblem(tile, sharedMemoryChip()); !problem.empty())
    return why = problem, false;
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
      std::optional<int64_t> fit = wgmmaStagesBesideStaging(
          stages, minStages, opA.stageBytes + opB.stageBytes, staging, maxSharedBytes());
      if (fit) {
        stagesRequested = stages;
        stages = *fit;
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
  // The plan (include/aicc/Target/TensorCoreRules.h): A stages, B stages, staging, barriers.
  WgmmaSharedMemoryPlan plan = planWgmmaSharedMemory(stages, opA.stageBytes, opB.stageBytes,
                                                     tmaStore ? consumers * stBytes : 0);
  opA.offset = plan.aOffset;
  opB.offset = plan.bOffset;
  if (tmaStore)
    stOffset = plan.stagingOffset;
  barOffset = plan.barrierOffset;
  smemBytes = plan.totalBytes;
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
