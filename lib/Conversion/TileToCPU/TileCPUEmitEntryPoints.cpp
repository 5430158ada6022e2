//===- TileCPUEmitEntryPoints.cpp - C entry points for CPU tile kernels ---===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace aicc {
#define GEN_PASS_DEF_TILECPUEMITENTRYPOINTS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;

namespace {
struct TileCPUEmitEntryPointsPass
    : public aicc::impl::TileCPUEmitEntryPointsBase<TileCPUEmitEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptrT = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    SmallVector<LLVM::LLVMFuncOp> kernels;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn->hasAttr(aicc::tile::kCpuKernelAttrName))
        kernels.push_back(fn);
    for (LLVM::LLVMFuncOp fn : kernels) {
      int64_t numBuffers = fn->getAttrOfType<IntegerAttr>(aicc::tile::kCpuKernelAttrName).getInt();
      auto fnType = fn.getFunctionType();
      if ((int64_t)fnType.getNumParams() != numBuffers + 6) {
        fn.emitError("tile-cpu-emit-entry-points: expected ")
            << numBuffers << " pointer params + 6 i64 (pid, grid); lower with bare pointers";
        return signalPassFailure();
      }
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      Location loc = fn.getLoc();
      auto entryType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                                   {ptrT, ptrT, ptrT});
      auto entry = LLVM::LLVMFuncOp::create(b, loc, (fn.getName() + "_entry").str(), entryType);
      Block *blk = entry.addEntryBlock(b);
      b.setInsertionPointToStart(blk);
      SmallVector<Value> args;
      auto loadAt = [&](Value base, Type elem, int64_t i) -> Value {
        Value p = LLVM::GEPOp::create(b, loc, ptrT, elem, base, ArrayRef<LLVM::GEPArg>{(int32_t)i});
        return LLVM::LoadOp::create(b, loc, elem, p);
      };
      for (int64_t i = 0; i < numBuffers; ++i)
        args.push_back(loadAt(blk->getArgument(0), ptrT, i));
      for (int j = 0; j < 3; ++j)
        args.push_back(loadAt(blk->getArgument(1), i64, j));
      for (int j = 0; j < 3; ++j)
        args.push_back(loadAt(blk->getArgument(2), i64, j));
      LLVM::CallOp::create(b, loc, fn, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    }
  }
};
} // namespace
