//===- ConvertGraphToTile.cpp - fused graph -> tile kernels + host plan ----===//
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace aicc {
#define GEN_PASS_DEF_CONVERTGRAPHTOTILE
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
using namespace aicc;
using namespace aicc::graph;

namespace {

MemRefType toMemRef(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return MemRefType::get(rt.getShape(), rt.getElementType());
}

/// Identity-layout view of `src` with the shape of `type` (contiguous reshape).
Value reshapeView(OpBuilder &b, Location loc, Value src, MemRefType type) {
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int64_t i = type.getRank() - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.getDimSize(i + 1);
  SmallVector<OpFoldResult> sizes, strs;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  for (int64_t s : strides)
    strs.push_back(b.getIndexAttr(s));
  return b.create<memref::ReinterpretCastOp>(loc, type, src, b.getIndexAttr(0), sizes, strs);
}

struct ConvertGraphToTilePass
    : public aicc::impl::ConvertGraphToTileBase<ConvertGraphToTilePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (convAlgorithm != "auto" && convAlgorithm != "implicit-gemm" && convAlgorithm != "direct") {
      module.emitError("convert-graph-to-tile: conv-algorithm must be auto, implicit-gemm or "
                       "direct, got '")
          << convAlgorithm << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> graphFuncs;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(tile::kScheduleAttrName))
        graphFuncs.push_back(fn);
    if (graphFuncs.empty())
      return;

    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto kernels = mb.create<ModuleOp>(module.getLoc(), StringRef(kKernelModuleName));
    OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
    SymbolTable moduleSymbols(module);
    unsigned kernelCount = 0, constCount = 0;

    for (func::FuncOp fn : graphFuncs) {
      // New host function over memrefs.
      SmallVector<Type> argTypes, resTypes;
      for (Type t : fn.getArgumentTypes())
        argTypes.push_back(toMemRef(t));
      for (Type t : fn.getResultTypes())
        resTypes.push_back(toMemRef(t));
      OpBuilder hb(fn);
      auto host = hb.create<func::FuncOp>(fn.getLoc(), fn.getName(),
                                          FunctionType::get(ctx, argTypes, resTypes));
      host.setArgAttrsAttr(fn.getArgAttrsAttr());
      host.setResAttrsAttr(fn.getResAttrsAttr());
      Block *entry = host.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockEnd(entry);
      IRMapping map;
      for (auto [a, na] : llvm::zip(fn.getArguments(), entry->getArguments()))
        map.map(a, na);

      for (Operation &op : fn.getBody().front()) {
        Location loc = op.getLoc();
        if (auto c = dyn_cast<ConstantOp>(op)) {
          auto type = toMemRef(c.getType());
          std::string name = "__constant_" + std::to_string(constCount++);
          OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
          auto global = gb.create<memref::GlobalOp>(
              loc, name, gb.getStringAttr("private"), type, c.getValue(),
              /*constant=*/true, /*alignment=*/gb.getI64IntegerAttr(64));
          (void)global;
          map.map(c.getResult(), b.create<memref::GetGlobalOp>(loc, type, name));
          continue;
        }
        if (auto r = dyn_cast<ReshapeOp>(op)) {
          map.map(r.getResult(), reshapeView(b, loc, map.lookup(r.getInput()),
                                             toMemRef(r.getType())));
          continue;
        }
        if (auto g = dyn_cast<FusionGroupOp>(op)) {
          std::string name = "fused_" + std::to_string(kernelCount++) + "_" + g.getKind().str();
          TemplateOptions topts;
          topts.target = target;
          topts.matmulConfig = matmulConfig;
          topts.allowTF32 = allowTF32;
          topts.convAlgorithm = convAlgorithm;
          topts.tmaStore = tmaStore;
          auto kernel = buildKernelForGroup(kb, g, name, topts);
          if (failed(kernel))
            return signalPassFailure();
          SmallVector<Value> bufs;
          for (Value in : g.getInputs())
            bufs.push_back(map.lookup(in));
          for (Value res : g.getResults()) {
            Value alloc = b.create<memref::AllocOp>(loc, toMemRef(res.getType()),
                                                    b.getI64IntegerAttr(64));
            map.map(res, alloc);
            bufs.push_back(alloc);
          }
          auto ref = SymbolRefAttr::get(ctx, kKernelModuleName,
                                        {FlatSymbolRefAttr::get(ctx, name)});
          b.create<tile::LaunchOp>(loc, ref, bufs);
          continue;
        }
        if (auto ret = dyn_cast<func::ReturnOp>(op)) {
          SmallVector<Value> vals;
          for (Value v : ret.getOperands())
            vals.push_back(map.lookup(v));
          b.create<func::ReturnOp>(loc, vals);
          continue;
        }
        op.emitError("convert-graph-to-tile: ")
            << op.getName()
            << " is outside any fusion group; run graph-fuse (aicc-fusion-pipeline) first";
        return signalPassFailure();
      }
      fn.erase();
    }
  }
};
} // namespace
