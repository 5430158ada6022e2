//===- MmaSyncPlan.cpp - which matmul kernels take mma.sync, and their configuration ---===//
//
// Part of convert-tile-dot-to-mma-sync (MmaSyncKernel.h).
//===----------------------------------------------------------------------===//
#include "MmaSyncKernel.h"

#include "AccumulatorEpilogue.h"
#include "AxisAnalysis.h"
#include "aicc/Target/Chip.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::mma_sync;

bool MmaSyncKernel::setupOperand(Operand &o, tl::BlockLoadOp l, bool kContiguousIfPlain,
                                 std::string &why) {
  if (l.getRows())
    return why = "block_load with a run-time row count (only the attention kernels take one)",
           false;
  o.load = l;
  auto t = l.getType();
  o.rows = l.getTranspose() ? t.getDimSize(1) : t.getDimSize(0);
  o.cols = l.getTranspose() ? t.getDimSize(0) : t.getDimSize(1);
  o.kMajor = l.getTranspose() ? !kContiguousIfPlain : kContiguousIfPlain;
  o.stageElems = o.rows * o.cols;
  auto ptr = dyn_cast<BlockArgument>(l.getPtr());
  if (!ptr || ptr.getOwner() != &fn.getBody().front())
    return why = "block_load reads a buffer that is not a kernel parameter", false;
  ArrayRef<int64_t> dims = l.getDims();
  if (dims.size() != 3)
    return why = "block_load dims are not [batch, rows, cols]", false;
  if (dims[2] % kChunk || !AxisAnalysis().isMultipleOf(l.getCol(), kChunk)) {
    // Implicit-GEMM kernels fill such blocks element by element (e.g. the [OC, K] weight of
    // a 3x3 conv of 3 channels: rows of 27 elements); plain matmuls refuse them.
    if (!aIm2col)
      return why = dims[2] % kChunk
                       ? "matrix rows are not a multiple of 16 bytes (cp.async granule)"
                       : "block_load column is not provably a multiple of 8 elements",
             false;
    o.elementwise = true;
  }
  // Copies: every thread takes chunks tid, tid + T, ...
  int64_t n = o.rows * o.chunks();
  if (n >= (int64_t(1) << 24))
    return why = "operand block too large", false;
  return true;
}

bool MmaSyncKernel::setupIm2col(Operand &o, tl::Im2ColLoadOp l, std::string &why) {
  o.im2col = l;
  auto t = l.getType();
  o.rows = t.getDimSize(0);
  o.cols = t.getDimSize(1);
  o.kMajor = true;
  o.stageElems = o.rows * o.cols;
  auto ptr = dyn_cast<BlockArgument>(l.getPtr());
  if (!ptr || ptr.getOwner() != &fn.getBody().front())
    return why = "im2col_load reads a buffer that is not a kernel parameter", false;
  // 8 consecutive k (from a multiple of 8) are 8 consecutive channels of one input pixel, 16
  // contiguous bytes, when the input is NHWC with C % 8 == 0 (tile.im2col_load's formula:
  // (kh, kw, c) = q split over [KH, KW, C]); anything else is gathered per element.
  o.elementwise = !(l.isNHWC() && l.getInput()[1] % kChunk == 0 &&
                    AxisAnalysis().isMultipleOf(l.getCol(), kChunk));
  if (o.rows * o.chunks() >= (int64_t(1) << 24))
    return why = "operand block too large", false;
  return true;
}

bool MmaSyncKernel::match(std::string &why) {
  DotKLoop m;
  if (!matchDotKLoop(fn, m, why))
    return false;
  aIm2col = m.aIm2col;
  dot = m.dot;
  loop = m.loop ? cast<scf::ForOp>(m.loop) : scf::ForOp();
  kOp = m.kOp;
  accResult = m.accResult;
  rowSquares = m.rowSquares;
  xRowSums = m.rowSums;
  rowOps = m.rowOps;
  tl::BlockLoadOp a = m.a, bl = m.b;
  std::optional<int64_t> ub = m.upper, st = m.step;
  auto accT = dot.getType();
  auto aT = cast<RankedTensorType>(dot.getA().getType());
  elem = aT.getElementType();
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
  // The path's tile rules (include/aicc/Target/TensorCoreRules.h), shared with the config
  // heuristic: the operand type and block shape here, the warps and the shared memory below.
  MatmulTile tile{
      BM, BN, BK, sched.getNumWarps(), sched.getNumStages(), tensorCoreOperandOf(elem, false)};
  if (std::string problem = mmaSyncBlockProblem(tile); !problem.empty())
    return why = problem, false;
  // Program ids all come before the K loop (they are remapped to the grouped order).
  bool lateIds = false;
  fn.walk([&](tl::ProgramIdOp p) {
    if (p->getBlock() != &fn.getBody().front() || !p->isBeforeInBlock(kOp))
      lateIds = true;
  });
  if (lateIds)
    return why = "tile.program_id after the K loop", false;
  auto grid = sched.getGrid();
  if (grid[0] * grid[1] >= (int64_t(1) << 31) || grid[1] > 65535 || grid[2] > 65535)
    return why = "grid too large", false;

  // Warps: the most square warp tile, WM >= WN on ties.
  threads = 32 * tile.numWarps;
  MmaSyncWarpLayout warpLayout;
  if (std::string problem = mmaSyncTileProblem(tile, &warpLayout); !problem.empty())
    return why = problem, false;
  warpsM = warpLayout.warpsM;
  warpsN = warpLayout.warpsN;
  WM = warpLayout.warpM;
  WN = warpLayout.warpN;
  stages = std::max<int64_t>(2, sched.getNumStages());

  // A [BM, BK]: plain storage has K contiguous (an im2col block is stored so too). B [BK, BN]:
  // plain storage has N contiguous.
  if (!(aIm2col ? setupIm2col(opA, aIm2col, why) : setupOperand(opA, a, true, why)) ||
      !setupOperand(opB, bl, false, why))
    return false;
  // The norm prologue sums the squares of the A fragments (rows of the accumulator's).
  if (rowSquares && (aIm2col || !opA.kMajor || opA.elementwise))
    return why = "a norm prologue needs A stored K-major", false;
  // Epilogue ops: scalars, elementwise, tile construction, loads and stores.
  for (Operation &op : fn.getBody().front()) {
    if (&op == kOp || &op == dot.getOperation() || isa<func::ReturnOp>(op))
      continue;
    if (&op == dot.getA().getDefiningOp() || &op == bl.getOperation() ||
        llvm::is_contained(rowOps, &op))
      continue;
    if (!AccumulatorEpilogue::isSupported(&op))
      return why = ("epilogue holds " + op.getName().getStringRef()).str(), false;
  }
  if (std::string problem = mmaSyncSharedMemoryProblem(tile, maxSharedBytes); !problem.empty())
    return why = problem, false;
  opA.offset = 0;
  opB.offset = stages * opA.stageElems;
  smemBytes = stages * (opA.stageElems + opB.stageElems) * 2;
  if (smemStoreOption) {
    smemStoreRefused = matchSmemStore();
    if (smemStoreRefused.empty()) {
      int64_t stBytes = BM * stPitch() * outBytes;
      if (stBytes > maxSharedBytes)
        smemStoreRefused = "the staging tile (" + std::to_string(stBytes) +
                           " bytes) exceeds the shared memory per block";
      else
        smemBytes = std::max(smemBytes, stBytes);
    }
    smemStore = smemStoreRefused.empty();
  }
  return true;
}

std::string MmaSyncKernel::matchSmemStore() {
  // The only store: a block store of the accumulator-shaped tile at the top level (the
  // matmul template's and the NHWC conv's), whose registers are exactly the accumulator's.
  SmallVector<Operation *> stores;
  fn.walk([&](Operation *op) {
    if (isa<tl::StoreOp, tl::BlockStoreOp>(op))
      stores.push_back(op);
  });
  for (Operation *op : stores)
    if (auto bs = dyn_cast<tl::BlockStoreOp>(op); bs && bs.getTranspose())
      return "the block store is transposed (an NCHW conv output; the staging tile is row-major)";
  if (stores.size() != 1)
    return "the kernel has " + std::to_string(stores.size()) + " stores, not one block store";
  outStore = dyn_cast<tl::BlockStoreOp>(stores.front());
  if (!outStore)
    return "the kernel's store is not a block store (it stores by offsets and mask)";
  if (std::string why = stagedTileRefusal(outStore, fn, BM, BN); !why.empty())
    return why;
  outElem = outStore.getValue().getType().getElementType();
  outBytes = outElem.getIntOrFloatBitWidth() / 8;
  outChunk = 16 / outBytes;
  ArrayRef<int64_t> d = outStore.getDims();
  if (d.size() != 3)
    return "block_store dims are not [batch, rows, cols]";
  // Every 16-byte chunk of a row is 16-byte aligned and wholly inside or outside the
  // matrix: rows of whole chunks (the buffer itself is 16-byte aligned), block columns on
  // chunk boundaries.
  if (d[2] % outChunk)
    return "output rows are not a multiple of 16 bytes (" + std::to_string(d[2]) + " x " +
           std::to_string(outBytes) + " bytes)";
  if (!AxisAnalysis().isMultipleOf(outStore.getCol(), outChunk))
    return "the block store's column is not provably a multiple of " +
           std::to_string(outChunk) + " elements (16 bytes)";
  return "";
}

