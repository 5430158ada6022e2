//===- TileFuseElementwise.cpp - elementwise fusion with recompute ---------===//
#include "aicc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// Makes loop-carried accumulators update in place: a parallel linalg.generic yielded by an
/// scf.for, writing a fresh tensor.empty and reading the matching iteration argument at the
/// identity map, writes into that argument instead. One-shot bufferization then keeps one
/// buffer for the accumulator across iterations (it rejects non-equivalent yields).
void accumulateInPlace(func::FuncOp fn) {
  fn.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      auto g = v.getDefiningOp<linalg::GenericOp>();
      if (!g || g.getNumResults() != 1 || g.getNumReductionLoops() != 0 ||
          !g.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
          !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
        continue;
      BlockArgument acc = loop.getRegionIterArg(i);
      OpOperand *use = nullptr;
      for (OpOperand *in : g.getDpsInputOperands())
        if (in->get() == acc && g.getMatchingIndexingMap(in).isIdentity())
          use = in;
      if (!use || !acc.hasOneUse())
        continue;
      // The out block argument now carries the accumulator's old value.
      Block &body = g.getRegion().front();
      BlockArgument inArg = body.getArgument(use->getOperandNumber());
      BlockArgument outArg = body.getArguments().back();
      if (!outArg.use_empty())
        continue;
      inArg.replaceAllUsesWith(outArg);
      g.getDpsInitOperand(0)->set(acc);
      // Drop the now unused input (and its indexing map).
      SmallVector<Value> ins;
      SmallVector<AffineMap> maps;
      for (OpOperand *in : g.getDpsInputOperands())
        if (in != use) {
          ins.push_back(in->get());
          maps.push_back(g.getMatchingIndexingMap(in));
        }
      maps.push_back(g.getMatchingIndexingMap(g.getDpsInitOperand(0)));
      OpBuilder b(g);
      auto ng = b.create<linalg::GenericOp>(g.getLoc(), g.getResultTypes(), ins, ValueRange{acc},
                                            maps, g.getIteratorTypesArray());
      Region &r = ng.getRegion();
      r.takeBody(g.getRegion());
      r.front().eraseArgument(use->getOperandNumber());
      g.getResult(0).replaceAllUsesWith(ng.getResult(0));
      g.erase();
    }
  });
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
    accumulateInPlace(getOperation());
  }
};
} // namespace
