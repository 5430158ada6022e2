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

#include <limits>

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
  /// The config chooseGroupMatmulConfig gives `group` for a run at `value` of its anchor's
  /// symbol (0: the bound), as the attribute; null for groups without one.
  static FailureOr<tl::MatmulConfigAttr>
  configAttrAt(aicc::graph::FusionGroupOp group, aicc::TemplateOptions options, int64_t value) {
    options.configAtValue = value;
    auto config = aicc::chooseGroupMatmulConfig(group, options);
    if (failed(config))
      return failure();
    if (!*config)
      return tl::MatmulConfigAttr();
    const aicc::MatmulConfig &c = **config;
    tl::MatmulPath path = c.wgmma     ? tl::MatmulPath::wgmma
                          : c.mmaSync ? tl::MatmulPath::mma_sync
                                      : tl::MatmulPath::generic;
    auto attr = tl::MatmulConfigAttr::getChecked(
        [&] { return group.emitError("select-matmul-configs: "); }, group.getContext(), c.blockM,
        c.blockN, c.blockK, c.numWarps, c.numStages, path, c.splitK);
    if (!attr)
      return failure();
    return attr;
  }

  /// Shape buckets (the pass description): `top` is the bound's config; when `group`'s
  /// matmul / conv follows a symbol, the configs at the symbol's powers of two below the
  /// bound, merged where they agree, at most shapeBuckets of them, as tile.matmul_buckets.
  LogicalResult selectBuckets(aicc::graph::FusionGroupOp group,
                              const aicc::TemplateOptions &options, tl::MatmulConfigAttr top) {
    DenseI64ArrayAttr sd = aicc::groupAnchorSymDim(group);
    if (!sd)
      return success();
    // (--dim caps MAX below 2^31; hand-written IR is held to the same.)
    if (sd.size() != 5 || sd[0] < 0 || sd[1] < 0 || sd[2] < 1 || sd[3] < 1 || sd[3] > sd[4] ||
        sd[4] > std::numeric_limits<int32_t>::max())
      return group.emitError("select-matmul-configs: ")
                 << aicc::kAnchorSymDimAttrName
                 << " must be array<i64: axis, symbol, factor, min, max>, axis >= 0, factor "
                    ">= 1, 1 <= min <= max < 2^31",
             failure();
    const int64_t symbol = sd[1], min = sd[3], max = sd[4];
    // Buckets (lo, hi, config), ascending: hi at each power of two in [min, max), then max.
    struct Bucket {
      int64_t lo, hi;
      tl::MatmulConfigAttr config;
    };
    SmallVector<Bucket> buckets;
    for (int64_t hi = 1; hi < max; hi *= 2) {
      if (hi < min)
        continue;
      auto c = configAttrAt(group, options, hi);
      if (failed(c))
        return failure();
      if (!buckets.empty() && buckets.back().config == *c)
        buckets.back().hi = hi;
      else
        buckets.push_back({buckets.empty() ? min : buckets.back().hi + 1, hi, *c});
    }
    if (!buckets.empty() && buckets.back().config == top)
      buckets.back().hi = max;
    else
      buckets.push_back({buckets.empty() ? min : buckets.back().hi + 1, max, top});
    // At most shapeBuckets: the smallest ones keep their configs, the rest run the bound's.
    if ((int64_t)buckets.size() > shapeBuckets) {
      buckets.resize(shapeBuckets - 1);
      if (buckets.back().config == top)
        buckets.back().hi = max;
      else
        buckets.push_back({buckets.back().hi + 1, max, top});
    }
    if (buckets.size() < 2)
      return success();
    Builder b(group.getContext());
    SmallVector<Attribute> list;
    for (const Bucket &k : buckets)
      list.push_back(b.getDictionaryAttr({b.getNamedAttr("symbol", b.getI64IntegerAttr(symbol)),
                                          b.getNamedAttr("lo", b.getI64IntegerAttr(k.lo)),
                                          b.getNamedAttr("hi", b.getI64IntegerAttr(k.hi)),
                                          b.getNamedAttr("config", k.config)}));
    group->setAttr(tl::kMatmulBucketsAttrName, b.getArrayAttr(list));
    return success();
  }

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
      auto config = configAttrAt(group, options, 0);
      if (failed(config))
        return WalkResult::interrupt();
      if (!*config)
        return WalkResult::advance();
      // (The bucket configs first: the heuristic takes a config on the group as given.)
      if (shapeBuckets > 1 && matmulConfig.empty() &&
          failed(selectBuckets(group, options, *config)))
        return WalkResult::interrupt();
      group->setAttr(tl::kMatmulConfigAttrName, *config);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
