//===- SelectMatmulConfigs.cpp - select-matmul-configs: a tile config per matmul group ===//
//
// The kernel-config choice as its own pass: every fusion group the matmul or implicit-GEMM
// conv template will build gets `tile.matmul_config` (#tile.matmul_config), which
// convert-graph-to-tile then builds the kernel with (KernelTemplates.h,
// chooseGroupMatmulConfig and configOfGroup).
//
//===----------------------------------------------------------------------===//
#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Target/TargetAttr.h"

namespace aicc {
#define GEN_PASS_DEF_SELECTMATMULCONFIGS
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

using namespace mlir;
namespace tl = aicc::tile;

namespace {
struct SelectMatmulConfigsPass
    : public aicc::impl::SelectMatmulConfigsBase<SelectMatmulConfigsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(aicc::checkConvAlgorithm(module, getArgument(), convAlgorithm)))
      return signalPassFailure();
    const aicc::ChipInfo *target =
        aicc::resolveChip(module, aicc::ChipRole::Target, "", "cpu", getArgument());
    const aicc::ChipInfo *hardware =
        aicc::resolveChip(module, aicc::ChipRole::Hardware, "", "h200", getArgument());
    if (!target || !hardware)
      return signalPassFailure();
    aicc::TemplateOptions options;
    options.target = target->name.str();
    options.hardware = hardware->name.str();
    options.matmulConfig = matmulConfig;
    options.splitK = splitK;
    options.allowTF32 = allowTF32;
    options.convAlgorithm = convAlgorithm;
    // The graph functions' groups (not the tile kernels of a module already lowered).
    auto result = module.walk([&](aicc::graph::FusionGroupOp group) -> WalkResult {
      if (group->hasAttr(tl::kMatmulConfigAttrName))
        return WalkResult::advance();
      auto config = aicc::chooseGroupMatmulConfig(group, options);
      if (failed(config))
        return WalkResult::interrupt();
      if (!*config)
        return WalkResult::advance();
      const aicc::MatmulConfig &c = **config;
      tl::MatmulPath path = c.wgmma     ? tl::MatmulPath::wgmma
                            : c.mmaSync ? tl::MatmulPath::mma_sync
                                        : tl::MatmulPath::generic;
      auto attr = tl::MatmulConfigAttr::getChecked(
          [&] { return group.emitError("select-matmul-configs: "); }, group.getContext(), c.blockM,
          c.blockN, c.blockK, c.numWarps, c.numStages, path, c.splitK);
      if (!attr)
        return WalkResult::interrupt();
      group->setAttr(tl::kMatmulConfigAttrName, attr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
