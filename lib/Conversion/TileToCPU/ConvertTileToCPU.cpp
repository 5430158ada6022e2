//===- ConvertTileToCPU.cpp - bufferized tile kernels -> host functions ----===//
//
// A CPU "program instance" is one call of the kernel function: the runtime loops over the
// grid (in parallel over host threads). Tile-wide work stays as scf.parallel loops, which
// lower to plain nested loops; tile buffers are heap allocations freed by the upstream
// ownership-based deallocation that runs before this pass.
//
//===----------------------------------------------------------------------===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTTILETOCPU
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;

namespace {
struct ConvertTileToCPUPass : public aicc::impl::ConvertTileToCPUBase<ConvertTileToCPUPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    for (auto kernels : top.getOps<ModuleOp>()) {
      if (kernels.getSymName() != kKernelModuleName)
        continue;
      for (auto fn : kernels.getOps<func::FuncOp>()) {
        tile::ScheduleAttr sched = tile::getSchedule(fn);
        if (!sched)
          continue;
        unsigned numBuffers = fn.getNumArguments();
        Block &entry = fn.getBody().front();
        SmallVector<Type> types(fn.getArgumentTypes());
        IndexType idx = IndexType::get(ctx);
        SmallVector<Value> pid, grid;
        for (int i = 0; i < 3; ++i)
          pid.push_back(entry.addArgument(idx, fn.getLoc()));
        for (int i = 0; i < 3; ++i)
          grid.push_back(entry.addArgument(idx, fn.getLoc()));
        types.append(6, idx);
        fn.setType(FunctionType::get(ctx, types, {}));
        SmallVector<Operation *> ids;
        fn.walk([&](Operation *op) {
          if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
            ids.push_back(op);
        });
        for (Operation *op : ids) {
          OpBuilder b(op);
          Value v;
          if (auto p = dyn_cast<tile::ProgramIdOp>(op))
            v = pid[p.getAxis()];
          else
            v = grid[cast<tile::NumProgramsOp>(op).getAxis()];
          op->getResult(0).replaceAllUsesWith(
              arith::IndexCastOp::create(b, op->getLoc(), b.getI32Type(), v));
          op->erase();
        }
        fn.setPublic();
        fn->setAttr(tile::kCpuKernelAttrName,
                    IntegerAttr::get(IntegerType::get(ctx, 64), numBuffers));
      }
    }
  }
};
} // namespace
