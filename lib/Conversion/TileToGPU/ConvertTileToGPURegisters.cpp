//===- ConvertTileToGPURegisters.cpp - 1-D tile kernels -> register SIMT code ---===//
//
// The fast GPU path for memory-bound kernels (elementwise, row kernels, reductions): a tile
// kernel whose tiles are all 1-D (or 0-D scalars) is lowered straight from its tensor form,
// before bufferization, to a gpu.func in which every thread holds its share of each tile in
// registers. Nothing goes through shared memory except the cross-warp step of a reduction.
//
// Layout (#tile.blocked<sizePerThread = [V], threadsPerWarp = [32], warpsPerCTA = [W]>, the
// Triton blocked encoding): a tile of N elements is split into N / V chunks of V contiguous
// elements; chunk c belongs to thread c mod T (T = 32 W) and is that thread's register group
// c div T. A thread's share is one vector<P x elt> value (P = V * ceil(N / (V T))). V is
// 16 bytes over the narrowest element the kernel loads or stores (8 for f16, 4 for f32), so a
// chunk is one 128-bit access. Tiles smaller than V T use a smaller V; below T elements the
// chunks are replicated (thread t holds chunk t mod (N / V); only t < N / V own it: replicas
// are masked out of stores and reductions). 0-D tiles and [1] tiles are uniform scalars.
//
// Loads and stores: an axis analysis of the offsets (Triton's AxisInfo, reduced to 1-D:
// contiguity, divisibility, constancy) proves when each chunk's offsets are V contiguous
// elements starting at a multiple of V. Such a tile is read with one 16-byte vector.load per
// chunk, all issued before any use, when every lane of the thread's mask is set (one branch per
// tile, not per element); a partial tile (the grid's last block, a row's tail) takes the
// masked path (vector.gather / vector.scatter, scalarized by LLVM). Offsets that are not
// provably contiguous (broadcast operands, strided rows) always take the gather path.
//
// Reductions (tile.reduce of a 1-D tile to a scalar): each thread combines its registers
// (vector.reduction), then a butterfly of gpu.shuffle xor over the warp, then lane 0 of every
// warp writes one value to shared memory, a barrier, and every thread combines the W values;
// the result is uniform. A reduction inside a loop ends with a second barrier so the next
// iteration's writes cannot overtake the reads.
//
// Structure: RegisterKernel (RegisterKernel.{h,cpp}) chooses the layouts and holds the
// per-thread state; the per-op lowerings are OpConversionPatterns (RegisterPatterns.cpp)
// over a TypeConverter from tile types to their per-thread shares; this file is the pass.
//
// The kernel stays a func.func in @kernels, rewritten in place and marked with `tile.layouts`;
// convert-tile-to-gpu then moves it into the gpu.module without distributing it again (its
// shared-memory buffers are memref.allocs that become workgroup attributions there). Kernels
// this path does not cover (2-D tiles: matmul, pools, scatter) keep their tile form for the
// bufferizing path (with a `tile.register_path_refused` reason).
//===----------------------------------------------------------------------===//
#include "RegisterKernel.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOGPUREGISTERS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

namespace {
struct ConvertTileToGPURegistersPass
    : public aicc::impl::ConvertTileToGPURegistersBase<ConvertTileToGPURegistersPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    ModuleOp kernels = getTileKernelModule(top);
    if (!kernels)
      return;
    MLIRContext *ctx = &getContext();
    for (auto fn : llvm::make_early_inc_range(kernels.getOps<func::FuncOp>())) {
      tl::ScheduleAttr sched = tl::getSchedule(fn);
      // Kernels the tensor-core lowerings took are per-thread code already.
      if (!sched || tile::isTensorCoreKernel(fn))
        continue;
      registers::RegisterKernel rk(fn, sched);
      std::string why;
      if (!rk.isEligible(why)) {
        fn->setAttr(tile::kRegisterPathRefusedAttrName, StringAttr::get(ctx, why));
        continue;
      }
      rk.prepare();
      registers::RegisterTypeConverter converter(rk);
      RewritePatternSet patterns(ctx);
      registers::populateRegisterPatterns(rk, converter, patterns);
      ConversionTarget target(*ctx);
      registers::configureRegisterTarget(converter, target);
      // The shares are built as written: no folding on the way.
      ConversionConfig config;
      config.foldingMode = DialectConversionFoldingMode::Never;
      if (failed(applyFullConversion(fn, target, std::move(patterns), config))) {
        fn.emitError("convert-tile-to-gpu-registers: cannot lower the kernel");
        return signalPassFailure();
      }
      rk.finish();
    }
  }
};
} // namespace
