//===- AccumulatorEpilogue.h - tile epilogues on MMA accumulator layouts -*- C++ -*-===//
//
// Shared by the tensor-core lowerings (convert-tile-dot-to-wgmma, convert-tile-dot-to-mma-sync):
// after the K loop, every thread holds R accumulator registers, register i being the element
// (row(i), col(i)) of the program's [BLOCK_M, BLOCK_N] output tile. The tile ops after the loop
// (bias / residual loads, elementwise math, casts, the masked tile.store) are evaluated per
// thread on that layout, in registers:
//   - a 2-D tile value becomes R scalars, one per register;
//   - a 1-D tile along dim d (a make_range, a bias load) is evaluated once per distinct row
//     (d = 0) or column (d = 1) coordinate the thread holds ("classes"), and the registers of a
//     class share it;
//   - tile.store writes registers 2j, 2j+1 (adjacent columns in both MMA layouts) with one
//     2-element store when their offsets are consecutive and pair-aligned (checked at run
//     time, folded by LLVM where visible), else one masked store each;
//   - tile.block_store does the same with the offsets and masks of its block (row part per
//     row class, column part per column class), or, when the lowering installed a sink (the
//     sm_90a TMA-store epilogue), hands each register pair's values to the sink, which writes
//     them to a shared-memory staging buffer (once per tile value);
//   - transposed tile.block_stores (the NCHW conv output: one per image a tile can touch)
//     store each register once per op, masked, the tile evaluated once for all of them
//     (block-row part per column class, block-column part per row class; no pairs: adjacent
//     registers are adjacent block rows).
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_ACCUMULATOREPILOGUE_H
#define AICC_LIB_CONVERSION_TILETOGPU_ACCUMULATOREPILOGUE_H

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace mlir::scf {
class ForOp;
}

namespace aicc {

/// Whether `op` has a tile (ranked tensor) operand or result.
bool touchesTiles(mlir::Operation *op);

/// Clones the scalar ops of `src` (up to `stopAt`, exclusive; null: all of them) into `b`, as
/// both tensor-core lowerings rebuild a kernel's scalar prologue and K-loop index math:
/// terminators and tile ops are skipped (tile ops are the epilogue evaluator's), ops whose
/// result `map` already has (the program ids) are not cloned again, tile.num_programs becomes
/// the `sched` grid size. An scf.for of scalars is cloned whole; another op with regions is
/// refused: an error naming `pass`.
mlir::LogicalResult cloneScalarOps(mlir::OpBuilder &b, mlir::Block &src, mlir::IRMapping &map,
                                   mlir::Operation *stopAt, tile::ScheduleAttr sched,
                                   llvm::StringRef pass);

/// The matmul kernel shape both tensor-core lowerings take: one `tile.dot` whose operands are
/// `tile.block_load`s (A may also be a `tile.im2col_load`) read by the dot only, in a K loop at the kernel's top level
/// (`scf.for %k = 0 to K step BLOCK_K` carrying just the accumulator, holding only the loads,
/// the dot and side-effect-free scalar ops), or with no loop when K fits one block; the
/// accumulator starts at zero.
struct DotKLoop {
  tile::DotOp dot;
  /// A is a block load or (implicit-GEMM convolution) an im2col load: exactly one is set.
  tile::BlockLoadOp a, b;
  tile::Im2ColLoadOp aIm2col;
  /// The K loop, or null (one k block: loads and dot at the top level).
  mlir::Operation *loop = nullptr;
  /// The loop, or the dot when there is none: scalars before it are the tile's prologue.
  mlir::Operation *kOp = nullptr;
  /// The accumulator after the K loop.
  mlir::Value accResult;
  /// The loop's upper bound (K) and step.
  int64_t upper = 0, step = 0;
  /// Rule norm-prologue (the matmul template's row sums of squares of A): the [BLOCK_M]
  /// tile of each row's sum of x * x over K after the loop (the loop's second value, or
  /// without a loop the sum of the one k block), null when the kernel has none; `rowOps`
  /// are the ops computing it from A's tile (an extf for 16-bit A, the square, the
  /// tile.reduce along dim 1, the add to the carried sum). The lowering computes the sums
  /// from its own copy of A's tile and gives them to the epilogue (setRowValues).
  mlir::Value rowSquares;
  /// A LayerNorm prologue's [BLOCK_M] tile of each row's sum of x (the loop's third
  /// value), null when the kernel has none (an RMS norm, no norm); its tile.reduce and add
  /// are in `rowOps` too.
  mlir::Value rowSums;
  llvm::SmallVector<mlir::Operation *> rowOps;
};

/// Matches `fn` against the DotKLoop shape; on failure `why` says what does not fit.
bool matchDotKLoop(mlir::func::FuncOp fn, DotKLoop &out, std::string &why);

/// The driver both tensor-core passes share: for every scheduled kernel of the tile kernel
/// module of `top` that holds a tile.dot, `lower(fn, schedule, why)` matches and rewrites it.
/// It returns failure on an error (diagnosed), success otherwise; a kernel it leaves alone gets
/// its non-empty `why` as the string attribute `refusedAttr` (the next lowering may take it).
mlir::LogicalResult lowerDotKernels(
    mlir::ModuleOp top, llvm::StringRef refusedAttr,
    llvm::function_ref<mlir::LogicalResult(mlir::func::FuncOp, tile::ScheduleAttr, std::string &)>
        lower);

/// Grouped tile order (Triton's matmul tutorial: GROUP_M row tiles per group, for L2 reuse of
/// B): the (pid_m, pid_n) of linear output tile `mn` (i32, row-major over gm x gn tiles).
std::pair<mlir::Value, mlir::Value> groupedTilePids(mlir::OpBuilder &b, mlir::Location loc,
                                                    mlir::Value mn, int64_t gm, int64_t gn,
                                                    int64_t groupM = 8);
/// Bounded symbolic dims: the programs along grid `axis` (0 or 2) a run of tile kernel `fn`
/// needs, an i32 built at `b` from its tile.symgrid ([axis, symbol, unit, per, group]: group
/// x ceil(v x unit / per), at most `boundPrograms`) and the run's symbol value v, read from
/// its tile.symvalues parameter (`args`: the lowered kernel's buffer parameters); null when
/// the kernel records no symgrid along `axis` or no symbol values.
mlir::Value runPrograms(mlir::OpBuilder &b, mlir::Location loc, mlir::func::FuncOp fn,
                        llvm::ArrayRef<mlir::Value> args, int64_t axis, int64_t boundPrograms);

/// The same with gm an i32 value (a run's row tiles: bounded symbolic dims).
std::pair<mlir::Value, mlir::Value> groupedTilePids(mlir::OpBuilder &b, mlir::Location loc,
                                                    mlir::Value mn, mlir::Value gm, int64_t gn,
                                                    int64_t groupM = 8);

/// Why the block store `st` cannot go through a staged (shared-memory) epilogue as the
/// accumulator tile of kernel `fn` ("" when it can): it must sit at the kernel's top level and
/// store a [BM, BN] tile of f16, bf16 or f32 (the rules both tensor-core passes share; each
/// adds its own about rows and alignment).
std::string stagedTileRefusal(tile::BlockStoreOp st, mlir::func::FuncOp fn, int64_t BM,
                              int64_t BN);

/// Which tile coordinates a thread's accumulator registers hold.
struct AccumulatorLayout {
  /// For register i: index into rowCoords / colCoords.
  llvm::SmallVector<int64_t> rowClass, colClass;
  /// i32 tile-local coordinates (0 .. BLOCK_M-1 / BLOCK_N-1) of each class, computed by the
  /// caller from the thread and warp ids.
  llvm::SmallVector<mlir::Value> rowCoords, colCoords;
  int64_t regs() const { return rowClass.size(); }
};

class AccumulatorEpilogue {
public:
  /// `map` maps the kernel's scalars (program ids, arguments) to their values at the insertion
  /// point of `b`; `acc` holds the R accumulator registers (f32), `accTile` is the tile value
  /// they stand for (the K loop's result).
  AccumulatorEpilogue(mlir::OpBuilder &b, mlir::Location loc, mlir::IRMapping &map,
                      AccumulatorLayout layout, llvm::SmallVector<mlir::Value> acc,
                      mlir::Value accTile)
      : b(b), loc(loc), map(map), layout(std::move(layout)), acc(std::move(acc)),
        accTile(accTile) {}

  /// Evaluates every op of `block` after `after` (skipped: `after` and what precedes it):
  /// tile ops lazily from the tile.stores, scalar ops cloned in order. Fails (with a
  /// diagnostic) on ops it cannot evaluate (reductions, loops over tiles, non-splat tile
  /// constants).
  mlir::LogicalResult emitAfter(mlir::Block &block, mlir::Operation *after);

  /// The value of 2-D tile `v` at accumulator register `i`.
  mlir::FailureOr<mlir::Value> eval2D(mlir::Value v, int64_t i);
  /// The value of 1-D tile `v` (laid along tile dim `d`) at coordinate class `c`.
  mlir::FailureOr<mlir::Value> evalAlong(mlir::Value v, int d, int64_t c);
  mlir::LogicalResult store(tile::StoreOp st);
  /// An untransposed tile.block_store (registers to global memory, or to the sink), or with a
  /// sink installed any block store: the first store of a value hands it to the sink, later
  /// stores of the same value add nothing (the sink's owner copies the staged tile to each).
  mlir::LogicalResult blockStore(tile::BlockStoreOp st);
  /// Transposed tile.block_stores of one tile value, from registers to global memory: the
  /// value is evaluated once per register and stored by each op, masked (emitAfter calls this
  /// at the group's last op, where every op's coordinates are available).
  mlir::LogicalResult transposedBlockStores(llvm::ArrayRef<tile::BlockStoreOp> group);

  /// Receives the values (the stored element type) of registers i and i + 1 (i even: adjacent
  /// columns of one row) of a tile.block_store, at the builder's insertion point.
  using PairSink = std::function<void(mlir::OpBuilder &, int64_t i, mlir::Value v0, mlir::Value v1)>;
  /// Called after each group of kStoreChunk registers has gone to the sink.
  using ChunkEnd = std::function<void(mlir::OpBuilder &)>;
  /// Makes tile.block_store hand its register pairs to `s` instead of storing them to global
  /// memory (null: store them), and call `chunkEnd` (if set) after each group of
  /// kStoreChunk registers: the place for an ordering point that keeps the back end from
  /// hoisting the next group's loads and math above this group's stores (see the sm_90a
  /// TMA-store sink).
  void setBlockStoreSink(PairSink s, ChunkEnd chunkEnd = {}) {
    sink = std::move(s);
    sinkChunkEnd = std::move(chunkEnd);
  }

  /// Gives 1-D tile `v`, laid along dim 0 (one value per tile row), its values at the
  /// thread's row classes (computed by the lowering: the norm prologue's row sums).
  void setRowValues(mlir::Value v, llvm::ArrayRef<mlir::Value> perRowClass) {
    for (auto [c, x] : llvm::enumerate(perRowClass))
      memo1D[{v, int64_t(c) * 2}] = x;
  }

  /// Whether `op` (after the K loop) is one emitAfter can evaluate.
  static bool isSupported(mlir::Operation *op);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::IRMapping &map;
  AccumulatorLayout layout;
  llvm::SmallVector<mlir::Value> acc;
  mlir::Value accTile;
  PairSink sink;
  ChunkEnd sinkChunkEnd;
  /// Tile values already handed to the sink.
  llvm::DenseSet<mlir::Value> staged;
  /// Registers evaluated and stored per group (see storeRegisters).
  static constexpr int64_t kStoreChunk = 8;
  /// Stores the registers to `ptr` (a 1-D memref of `et`): `evalRegister(i, value, offset,
  /// mask)` gives register i's value, i32 element offset and i1 mask (null: unmasked; either
  /// every register of a store has a mask or none has).
  mlir::LogicalResult storeRegisters(
      mlir::Value ptr, mlir::Type et,
      llvm::function_ref<mlir::LogicalResult(int64_t, mlir::Value &, mlir::Value &, mlir::Value &)>
          evalRegister);
  /// Per store and register group (cleared between groups).
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, mlir::Value> memo2D;
  /// 1-D values by (value, dim, class): computed at first use, shared by the registers of
  /// that class.
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, mlir::Value> memo1D; // key: (v, class * 2 + d)

  mlir::Value add(mlir::Value v, int64_t c);
  mlir::FailureOr<mlir::Value>
  cloneElementwise(mlir::Operation *op, llvm::function_ref<mlir::FailureOr<mlir::Value>(mlir::Value)> ev);
  mlir::FailureOr<mlir::Value> splatConstant(mlir::Operation *op);
  mlir::Value scalar(mlir::Value v) { return map.lookupOrDefault(v); }
  /// One masked element load (`mask` null: unmasked), padding where the mask is false.
  mlir::Value loadOne(tile::LoadOp l, mlir::Value off, mlir::Value mask);
};

} // namespace aicc

#endif
