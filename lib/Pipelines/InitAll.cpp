//===- InitAll.cpp - register every aicc dialect, pass and pipeline -------===//
#include "aicc/InitAll.h"

#include <mutex>

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Dialect/Tile/Transforms/Passes.h"
#include "aicc/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void aicc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<aicc::graph::GraphDialect, aicc::tile::TileDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void aicc::registerAllPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    aicc::graph::registerGraphPasses();
    aicc::tile::registerTilePasses();
    aicc::registerConversionPasses();
    aicc::registerPipelines();
  });
}
