//===- RegisterKernel.h - the register path's kernel state and its patterns -*- C++ -*-===//
//
// Part of convert-tile-to-gpu-registers (ConvertTileToGPURegisters.cpp says what the path
// does and why). A kernel of 1-D / 0-D tiles is lowered in place: each tile value of
// tensor<N x T> becomes this thread's share of it, a vector<P x T> (or the uniform scalar T
// of a 0-D / [1] tile), under the blocked layout RegisterKernel chooses per tile size. The
// per-op lowerings are OpConversionPatterns (RegisterPatterns.cpp) over a TypeConverter that
// maps each tile type to its share; RegisterKernel holds what they share: the layouts, this
// thread's id, the packing of programs per CUDA block, and the axis facts of the offsets.
//
//===----------------------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_REGISTERKERNEL_H
#define AICC_LIB_CONVERSION_TILETOGPU_REGISTERKERNEL_H

#include "AxisAnalysis.h"

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace aicc::registers {

/// Most elements of one tile a thread holds on this path (the kernel templates need at most
/// 128: a 16384-element row over 128 threads).
constexpr int64_t kMaxRegsPerThread = 256;

/// How one tile size is spread over the block's threads.
struct Layout {
  int64_t n = 1;           // elements of the tile
  int64_t v = 1;           // sizePerThread: contiguous elements per chunk
  int64_t chunks = 1;      // n / v
  int64_t regs = 1;        // P: elements per thread
  bool replicated = false; // chunks < threads: thread t holds chunk t mod chunks
};

/// A 0-D tile or a tile of one element: every thread holds the same scalar.
bool isUniformTile(mlir::Type t);

/// One kernel on the register path: its layouts and the per-thread values the patterns use.
class RegisterKernel {
public:
  RegisterKernel(mlir::func::FuncOp fn, tile::ScheduleAttr sched);

  /// Whether every op and tile of the kernel is one this path lowers; on failure `why`
  /// says what is not (the kernel then takes the bufferizing path).
  bool isEligible(std::string &why);

  /// Before the patterns run: packs one-warp programs per CUDA block (choosePacking),
  /// creates this thread's id at the top of the kernel, and records the axis facts of every
  /// load / store offset tile (the patterns see the converted values only).
  void prepare();
  /// After the patterns ran: records the layouts used (`tile.layouts`, by tile size).
  void finish();

  /// The layout of a 1-D tile of `n` elements (memoized: one per size).
  Layout layoutFor(int64_t n);
  /// This thread's share of a tile type: vector<P x T>, or T for a uniform tile; other
  /// types unchanged.
  mlir::Type convert(mlir::Type t);

  mlir::func::FuncOp fn;
  tile::ScheduleAttr sched;
  /// Programs per CUDA block (> 1: one per warp) and, then, this program's warp in it.
  int64_t programsPerCTA = 1;
  mlir::Value warpInCTA; // i32
  int64_t threads = 128;
  /// This thread's index in its program (i32).
  mlir::Value tid;

  // --- helpers the patterns share
  static mlir::Value cI32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  static mlir::Value cIdx(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  /// The chunk of `l` this thread holds first, and whether it owns it (replicas do not).
  std::pair<mlir::Value, mlir::Value> firstChunk(mlir::OpBuilder &b, mlir::Location loc,
                                                 const Layout &l);
  /// gpu.shuffle xor of a scalar: 32-bit values as they are, narrower ones (i1, i8, f16,
  /// bf16) widened to i32 and back, 64-bit ones as two 32-bit halves.
  mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t offset);
  /// The axis facts of the offsets of load / store `op` (recorded by prepare()).
  AxisInfo offsetInfo(mlir::Operation *op) const;
  /// Whether every chunk of the offsets of load / store `op` is V contiguous, V-aligned
  /// elements of `elem`.
  bool isVectorizable(mlir::Operation *op, const Layout &l, mlir::Type elem) const;
  /// Where the cross-warp step of a reduction allocates its buffer: the kernel's entry.
  mlir::Block *entryBlock() { return &fn.getBody().front(); }

private:
  int64_t maxV = 4;
  llvm::DenseMap<int64_t, Layout> layouts;
  llvm::DenseMap<mlir::Operation *, AxisInfo> offsets;
  void choosePacking();
};

/// The type converter of the path: tile types to their per-thread share (rk.convert).
class RegisterTypeConverter : public mlir::TypeConverter {
public:
  explicit RegisterTypeConverter(RegisterKernel &rk);
};

/// The per-op lowerings: tile.program_id / num_programs / make_range / splat / expand_dims /
/// broadcast / reduce / load / store, tensor.extract of a uniform tile, splat constants
/// and every arith / math op on tiles (elementwise on the shares).
void populateRegisterPatterns(RegisterKernel &rk, const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);
/// The legality of the path: tile ops and tensor.extract illegal; arith / math / scf ops
/// legal once their types are the shares.
void configureRegisterTarget(const mlir::TypeConverter &converter, mlir::ConversionTarget &target);

} // namespace aicc::registers

#endif // AICC_LIB_CONVERSION_TILETOGPU_REGISTERKERNEL_H
