//===- TileFuseElementwise.cpp - elementwise fusion with recompute ---------===//
#include "aicc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace aicc::tile {
#define GEN_PASS_DEF_TILEFUSEELEMENTWISE
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace aicc::tile

using namespace mlir;

namespace {
/// A linalg producer is cheap to recompute when nothing in its body touches memory.
bool isCheapToRecompute(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic)
    return false;
  bool readsMemory = false;
  generic.getRegion().walk([&](Operation *op) {
    if (!isMemoryEffectFree(op))
      readsMemory = true;
  });
  return !readsMemory;
}

struct TileFuseElementwisePass
    : public aicc::tile::impl::TileFuseElementwiseBase<TileFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      return producer && (producer->hasOneUse() || isCheapToRecompute(producer));
    });
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
