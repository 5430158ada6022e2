//===- ConvertTileToCPU.cpp - bufferized tile kernels -> host functions ----===//
//
// A CPU "program instance" is one call of the kernel function: the runtime loops over the
// grid (in parallel over host threads). Tile-wide work stays as scf.parallel loops, which
// lower to plain nested loops; tile buffers are heap allocations freed by the upstream
// ownership-based deallocation that runs before this pass.
//
//===----------------------------------------------------------------------===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Conversion/TileToCPU/TileToCPU.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOCPU
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;

namespace {
/// The `index` parameter `first + axis` of the kernel func around `op` (its pid or grid
/// parameters start after its tile.cpu_kernel buffers); null outside such a func.
Value kernelParameter(Operation *op, unsigned first, unsigned axis) {
  auto fn = op->getParentOfType<func::FuncOp>();
  auto n = fn ? fn->getAttrOfType<IntegerAttr>(tile::kCpuKernelAttrName) : IntegerAttr();
  if (!n || fn.getNumArguments() < n.getInt() + 6)
    return {};
  return fn.getArgument(n.getInt() + first + axis);
}

/// tile.program_id (first = 0) / tile.num_programs (first = 3) -> index_cast of the
/// parameter.
template <typename OpTy, unsigned First> struct LowerGridQuery : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                                ConversionPatternRewriter &b) const override {
    Value v = kernelParameter(op, First, op.getAxis());
    if (!v)
      return b.notifyMatchFailure(op, "not in a tile.cpu_kernel func");
    b.replaceOp(op, arith::IndexCastOp::create(b, op.getLoc(), b.getI32Type(), v));
    return success();
  }
};
} // namespace

void aicc::populateTileToCPUPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGridQuery<tile::ProgramIdOp, 0>, LowerGridQuery<tile::NumProgramsOp, 3>>(
      patterns.getContext());
}

namespace {
struct ConvertTileToCPUPass : public aicc::impl::ConvertTileToCPUBase<ConvertTileToCPUPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    ModuleOp kernels = getTileKernelModule(top);
    if (!kernels)
      return;
    // The signature: buffers, then pid x, y, z and grid x, y, z.
    for (auto fn : kernels.getOps<func::FuncOp>()) {
      if (!tile::getSchedule(fn))
        continue;
      unsigned numBuffers = fn.getNumArguments();
      Block &entry = fn.getBody().front();
      SmallVector<Type> types(fn.getArgumentTypes());
      for (int i = 0; i < 6; ++i)
        entry.addArgument(IndexType::get(ctx), fn.getLoc());
      types.append(6, IndexType::get(ctx));
      fn.setType(FunctionType::get(ctx, types, {}));
      fn.setPublic();
      fn->setAttr(tile::kCpuKernelAttrName,
                  IntegerAttr::get(IntegerType::get(ctx, 64), numBuffers));
    }
    RewritePatternSet patterns(ctx);
    populateTileToCPUPatterns(patterns);
    ConversionTarget target(*ctx);
    // Illegal inside the kernels only (a func without tile.schedule keeps its ops).
    target.addDynamicallyLegalOp<tile::ProgramIdOp, tile::NumProgramsOp>(
        [](Operation *op) { return !kernelParameter(op, 0, 0); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(kernels, target, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
