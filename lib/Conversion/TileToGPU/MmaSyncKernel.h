//===- MmaSyncKernel.h - the sm_80 mma.sync + cp.async kernel builder (private) -*- C++ -*-===//
//
// Shared by the files of convert-tile-dot-to-mma-sync: MmaSyncPlan.cpp (match: which kernels
// qualify, their operands and configuration, the staged store) and
// ConvertTileDotToMMASync.cpp (the emitters: cp.async loads, ldmatrix + mma.sync, the
// epilogues; the pass). The design is in ConvertTileDotToMMASync.cpp's file comment.
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_MMASYNCKERNEL_H
#define AICC_LIB_CONVERSION_TILETOGPU_MMASYNCKERNEL_H

#include "AccumulatorEpilogue.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace aicc::mma_sync {
using namespace mlir;
namespace tl = aicc::tile;

constexpr int64_t kGroupM = 8;
/// Elements of one 16-byte chunk (cp.async size, ldmatrix row) of the f16/bf16 operands
/// (the staging tile's chunks hold 16 / output element bytes: MmaSyncKernel::outChunk).
constexpr int64_t kChunk = 8;
/// The most accumulator registers per thread (beyond, ptxas spills).
constexpr int64_t kMaxAccRegs = 128;

/// The XOR swizzle phase (i32) of stored row `row` of a shared-memory block whose rows are
/// `chunks` 16-byte chunks (a power of two): (row * stride) % 8 for rows of >= 8 chunks, else
/// ((row / (8 / chunks)) * stride) % chunks; stride is 1 or 2 (ConvertTileDotToMMASync.cpp's
/// file comment, "Shared-memory swizzle"). Logical chunk c of the row is stored at c ^ phase.
Value swizzlePhase(OpBuilder &b, Location loc, int64_t chunks, Value row, int64_t stride = 1);

/// One dot operand, staged through shared memory.
struct Operand {
  /// A block load, or (A of an implicit-GEMM convolution) an im2col load: exactly one is set.
  tl::BlockLoadOp load;
  tl::Im2ColLoadOp im2col;
  /// Whether each 16-byte chunk is filled element by element (8 masked global loads, one
  /// 16-byte shared store) rather than by one cp.async: im2col blocks whose 8 consecutive k
  /// are not 8 contiguous elements (NCHW, or NHWC with C % 8 != 0), weight blocks of an
  /// implicit-GEMM kernel whose rows are not 16-byte multiples.
  bool elementwise = false;
  /// The stored block: rows x cols of the row-major matrix (cols contiguous).
  int64_t rows = 0, cols = 0;
  /// Whether the contiguous dim is K (A [M, K] or B [N, K] in memory).
  bool kMajor = false;
  /// Elements of one stage, element offset of stage 0 in the shared-memory view.
  int64_t stageElems = 0, offset = 0;
  int64_t chunks() const { return cols / kChunk; }
};

class MmaSyncKernel {
public:
  MmaSyncKernel(func::FuncOp fn, tl::ScheduleAttr sched, int64_t maxSharedBytes,
                bool smemStoreOption)
      : fn(fn), sched(sched), maxSharedBytes(maxSharedBytes), smemStoreOption(smemStoreOption) {}

  /// Checks the kernel's shape; on failure `why` says what does not fit.
  bool match(std::string &why);
  LogicalResult run();

private:
  // --- matching
  func::FuncOp fn;
  tl::ScheduleAttr sched;
  int64_t maxSharedBytes;
  // --- shared-memory store epilogue (see the file comment)
  bool smemStoreOption;
  /// Whether the epilogue stores through the staging tile; when the option is on but the
  /// kernel does not qualify, smemStoreRefused says why.
  bool smemStore = false;
  std::string smemStoreRefused;
  /// The output block store and its element type (set by matchSmemStore).
  tl::BlockStoreOp outStore;
  Type outElem;
  /// Bytes of one output element (2: f16/bf16, 4: f32) and elements of one 16-byte chunk of
  /// the staging tile and of the copy-out (8 or 4).
  int64_t outBytes = 2, outChunk = kChunk;
  /// Staging row pitch in elements (unpadded: the chunks are XOR-swizzled).
  int64_t stPitch() const { return BN; }
  /// Swizzle stride of the staging tile: the 16-byte chunks one thread quad's register
  /// pairs cover in a row (1 for 4-byte pairs, 2 for 8-byte f32 pairs; see the file comment).
  int64_t stStride() const { return outBytes / 2; }
  /// Why the kernel cannot use the staged store ("" when it can).
  std::string matchSmemStore();
  /// The K loop, or null when K fits one BLOCK_K (canonicalization removed the loop: the
  /// block loads and the dot sit at the kernel's top level).
  scf::ForOp loop;
  /// The loop, or the dot when there is none: scalars before it are the tile's prologue.
  Operation *kOp = nullptr;
  /// The accumulator after the K loop.
  Value accResult;
  /// Rule norm-prologue's row sums of squares of A (DotKLoop::rowSquares) and the ops that
  /// compute them in the tile kernel; the lowering sums the squares of its A fragments.
  Value rowSquares;
  /// A LayerNorm prologue's row sums of x (DotKLoop::rowSums), else null.
  Value xRowSums;
  /// The row sums' type: f32, f64 for a LayerNorm (MatmulTemplate.cpp).
  Type rowSumType(OpBuilder &b) const {
    return xRowSums ? Type(b.getF64Type()) : Type(b.getF32Type());
  }
  SmallVector<Operation *> rowOps;
  tl::DotOp dot;
  /// A's im2col load when this is an implicit-GEMM convolution, else null.
  tl::Im2ColLoadOp aIm2col;
  Operand opA, opB;
  int64_t BM = 0, BN = 0, BK = 0, K = 0, numK = 0, stages = 2;
  int64_t warpsM = 0, warpsN = 0, WM = 0, WN = 0, threads = 0, smemBytes = 0;
  Type elem;

  // --- generation state
  Location loc = fn.getLoc();
  Value tid;  // i32
  Value smem; // memref<N x elem, workgroup>
  /// Per operand and copy slot: element offset of this thread's chunk in a stage, its row and
  /// column (elements) in the stored block.
  struct CopySlot {
    Value dstOff, row, col;
    bool guarded = false;
    Value valid;
  };
  SmallVector<CopySlot> slotsA, slotsB;
  /// ldmatrix element offsets in a stage: t1[i] (per m16 tile of A / n16 pair of B) plus
  /// t2[kk] (per k16 slice).
  SmallVector<Value> aT1, aT2, bT1, bT2;

  int64_t mTiles() const { return WM / 16; }
  int64_t nTiles() const { return WN / 8; }
  int64_t accRegs() const { return mTiles() * nTiles() * 4; }

  static Value ci32(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  static Value cidx(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  static Value toIndex(OpBuilder &b, Location loc, Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  Value phase(OpBuilder &b, const Operand &o, Value row) { return phase(b, o.chunks(), row); }
  /// The same for a row of `chunks` 16-byte chunks; `stride` (1 or 2) spreads the phases of
  /// consecutive rows (lines) `stride` chunks apart (the f32 staging tile, see the file
  /// comment).
  Value phase(OpBuilder &b, int64_t chunks, Value row, int64_t stride = 1);
  bool setupOperand(Operand &o, tl::BlockLoadOp l, bool kContiguousIfPlain, std::string &why);
  bool setupIm2col(Operand &o, tl::Im2ColLoadOp l, std::string &why);
  /// The kernel's scalar ops up to `stopAt` into `b` (cloneScalarOps, AccumulatorEpilogue.h).
  LogicalResult cloneScalars(OpBuilder &b, Block &src, IRMapping &map, Operation *stopAt) {
    return cloneScalarOps(b, src, map, stopAt, sched, "convert-tile-dot-to-mma-sync");
  }
  void precompute(OpBuilder &b, Value lane, Value wm, Value wn);
  CopySlot copySlot(OpBuilder &b, const Operand &o, Value c, bool guarded);
  void issueLoads(OpBuilder &b, IRMapping &kmap, Value stage);
  /// One k block's mma.syncs into `acc`; with rowSquares also the squares of this
  /// thread's A fragment elements added to `rows` (f32, one per row class: 2 per m16 tile),
  /// with xRowSums then the elements themselves to the next 2 per m16 tile of `rows`.
  SmallVector<Value> compute(OpBuilder &b, Value stage, ValueRange acc,
                             SmallVectorImpl<Value> &rows);
  /// The row sums of a quad's four threads (each holds other k of the same two rows of an
  /// A fragment) added together, in every thread of the quad.
  Value quadSum(OpBuilder &b, Value v);
};

} // namespace aicc::mma_sync

#endif
