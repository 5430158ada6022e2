//===- AttentionProgram.h - the GPU attention tile program, matched (private) -*- C++ -*-===//
//
// Shared by the FlashAttention lowerings (convert-tile-attention-to-mma-sync for every GPU,
// convert-tile-attention-to-wgmma for sm_90a): the one-pass form the attention template
// writes for GPU targets (AttentionGPUTemplate.cpp, buildAttentionGPU),
//
//   %q = tile.block_load %Q[%bq, %m0, %cq]                       [BLOCK_M, D]
//   scf.for %n0 = 0 to Skv step BLOCK_N iter_args(%m, %l, %acc) { (absent when Skv <= BLOCK_N;
//                                                   split keys: the slice's bounds)
//     %kt = tile.block_load %K[%bk, %n0, %ck] {transpose}        [D, BLOCK_N] (or a stored K^T)
//     %s  = tile.dot %q, %kt;  s * scale (+ bias);  -inf outside the keys / above the diagonal
//     online softmax (max, exp, sum), %p16 = truncf(p)
//     %v  = tile.block_load %V[%bv, %n0, %cv]                    [BLOCK_N, Dv]
//     %acc = tile.dot %p16, %v, acc * alpha
//   }
//   tile.block_store %Y[%b, %m0, %cy], truncf(acc / l)           [BLOCK_M, Dv]
//
// matched into the few facts the lowerings rebuild the kernel from (the block loads' and the
// store's scalar operands are cloned by each lowering; the tile math is regenerated).
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_ATTENTIONPROGRAM_H
#define AICC_LIB_CONVERSION_TILETOGPU_ATTENTIONPROGRAM_H

#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/Chip.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace aicc {

struct AttentionProgram {
  /// The key loop, or null (Skv <= BLOCK_N: canonicalization inlined its one iteration).
  mlir::scf::ForOp loop;
  tile::DotOp dotS, dotO;
  tile::BlockLoadOp q, k, v;
  tile::BlockStoreOp store;
  /// Split keys (flash-decoding, the template's KV_SPLITS): the key loop runs from its lower
  /// to its upper bound (a slice of the key blocks), `store` writes the f32 O / l (0 where l
  /// = 0) and `lseStore` the [BLOCK_M, 1] f32 log-sum-exp m + log(l) of the rows; null when
  /// the kernel stores the attention itself.
  tile::BlockStoreOp lseStore;
  /// K read as stored [keys, D] through a transpose (else a stored K^T [D, keys]).
  bool keyRows = false;
  bool causal = false;
  /// The store's tile is select(!(l > 0), 0, O / l) (graph.attention's zero_undefined_rows:
  /// rows without a visible key, or with a NaN / +inf score, are 0, not NaN).
  bool zeroUndefinedRows = false;
  /// The constant S is scaled by.
  double scale = 1.0;
  /// The additive bias (null: none): the f32 [BLOCK_M, BLOCK_N] tile added to the scaled S,
  /// computed from index tiles and tile.loads only (the template's bias block; ops in
  /// `biasOps`), which emitAttentionBias evaluates at a thread's accumulator registers.
  mlir::Value bias;
  llvm::SmallPtrSet<mlir::Operation *, 32> biasOps;
  /// Bounded symbolic dims (AttentionGPUTemplate.cpp): the run's key count, an i32 scalar of
  /// the kernel's top block before the key loop (V's block-load `rows`, and K's when read as
  /// rows), or null: Skv. The key loop then runs to it.
  mlir::Value runSkv;
  /// The run's query count (Q's block-load `rows`, an i32 scalar of the top block before the
  /// key loop), or null: Sq. The query rows past it are the buffers' tail: zero-filled where
  /// Q is copied (mma.sync), and the FlashAttention-3 kernel runs only the query tiles before
  /// it.
  mlir::Value runSq;
  int64_t D = 0, Dv = 0, Sq = 0, Skv = 0;
  /// f16 or bf16 (Q, K, V, P and the output).
  mlir::Type elem;
};

/// Matches `fn` against the one-pass form with a [blockM, D] Q block and [D, blockN] /
/// [blockN, Dv] key / value blocks, one program per blockM query rows along grid x (the
/// schedule `sched`'s grid); fills `p`. Returns why it does not match ("" when it does).
/// Checked: two dots in the key loop (or the kernel's top block), the three block loads
/// (a run-time `rows` on V and K's rows, the same scalar of the top block, and on Q),
/// f16 / bf16 throughout, Q and V read as stored, rows of 16-byte multiples, S scaled by
/// one finite constant, then optionally a bias added (an f32 tile of index math, splats and
/// tile.loads that the accumulator epilogue evaluator takes), no other op in the loop the
/// template's GPU form does not have, one block store of the [blockM, Dv] tile in the
/// operands' type, or (split keys) of the f32 tile and one of the [blockM, 1] f32
/// log-sum-exps.
std::string matchAttentionProgram(mlir::func::FuncOp fn, tile::ScheduleAttr sched, int64_t blockM,
                                  int64_t blockN, AttentionProgram &p);

/// Runs one attention lowering, pass `pass`, over the tile kernels of `root`: every
/// attention kernel (the template's schedule names BLOCK_D; one without a tile.dot, an
/// empty attention's, is left out) whose BLOCK_N is `blockN` (0: any) goes to `lower`,
/// which returns why the kernel is not the form it takes ("" when it took and lowered it;
/// failure when lowering failed, reported). An error names the pass and the kernel: a
/// `chip` without `feature` (named `featureName`), or a kernel `lower` does not take.
mlir::LogicalResult lowerAttentionKernels(
    mlir::ModuleOp root, int64_t blockN, const ChipInfo &chip, ChipFeature feature,
    llvm::StringRef featureName, llvm::StringRef pass,
    llvm::function_ref<mlir::FailureOr<std::string>(mlir::func::FuncOp, tile::ScheduleAttr)> lower);

/// The store both lowerings end with: per thread two rows (`rowOf` builds the i32 row of the
/// thread's first from the store's origin row, after the sums; the second is 8 rows
/// further), register 4 n + 2 h + e of
/// `O` (the m16n8 / wgmma accumulator layout: row h, column 8 n + 2 (lane % 4) + e) divided
/// by the row's sum (`l`: the thread's two partial sums, added over the quad that shares a row
/// by two shuffles), rounded to the store's element type and written as 2-element vectors;
/// rows past the store's dims[1] are skipped. The store's matrices may be wider than Dv (the
/// head merge stored in place: its origin column). `map` gives the store's operands.
/// Split keys (`lseStore` given): rows with l = 0 store 0 (not 0 / 0), the f32 store takes
/// the values unrounded, and lane 4 g of each quad stores its two rows' log-sum-exp
/// (m + log2(l)) ln 2 to `lseStore`'s [.., rows, 1] matrices, `mLog2` being the thread's two
/// row maxima in the log2 domain (the kernels' x = s scale log2(e)). `zeroUndefinedRows`:
/// rows whose sum is not > 0 (0, or NaN) store 0 (AttentionProgram::zeroUndefinedRows).
void emitAttentionStore(mlir::OpBuilder &b, mlir::Location loc, tile::BlockStoreOp store,
                        mlir::IRMapping &map, llvm::function_ref<mlir::Value(mlir::Value)> rowOf,
                        mlir::Value lane, llvm::ArrayRef<mlir::Value> O,
                        llvm::ArrayRef<mlir::Value> l, bool zeroUndefinedRows,
                        tile::BlockStoreOp lseStore = {}, llvm::ArrayRef<mlir::Value> mLog2 = {});

/// log2(e): the kernels' softmax runs in the log2 domain (x = s scale log2(e), ex2).
constexpr double kLog2E = 1.4426950408889634;

/// The bias `p.bias` of the key block whose first key is `n0` (the key loop's induction
/// value, index; unused without a loop) at the `regs` accumulator registers of a thread in
/// the m16n8 / wgmma layout: register i at tile-local row `rowLocal[(i % 4) / 2]` and column
/// 8 (i / 4) + 2 (lane % 4) + i % 2, in f32 and in the log2 domain of the kernels' softmax
/// (times kLog2E). `map` holds the kernel's top-level scalars; the
/// loop body's scalars are cloned at `b` with the induction variable at `n0`. The loads are
/// global loads per register (per key column when the bias is constant along the rows),
/// masked at the bias matrices' edges (AccumulatorEpilogue). Fails with an error naming
/// `pass`.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
emitAttentionBias(mlir::OpBuilder &b, mlir::Location loc, const AttentionProgram &p,
                  const mlir::IRMapping &map, mlir::Value n0, llvm::ArrayRef<mlir::Value> rowLocal,
                  mlir::Value lane, int64_t regs, tile::ScheduleAttr sched, llvm::StringRef pass);

/// Whether `v` is a tile of one constant (tile.splat of a constant, or a splat constant),
/// and its value.
std::optional<double> splatConstant(mlir::Value v);

} // namespace aicc

#endif
