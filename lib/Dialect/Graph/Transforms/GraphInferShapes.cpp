//===- GraphInferShapes.cpp - re-infer graph result types ------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHINFERSHAPES
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;

namespace {
struct GraphInferShapesPass
    : public aicc::graph::impl::GraphInferShapesBase<GraphInferShapesPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    bool failedAny = false;
    fn.walk([&](Operation *op) {
      if (!isa<aicc::graph::GraphDialect>(op->getDialect()))
        return;
      auto infer = dyn_cast<InferTypeOpInterface>(op);
      if (!infer)
        return;
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                        op->getRawDictionaryAttrs(),
                                        op->getPropertiesStorage(), op->getRegions(),
                                        types))) {
        failedAny = true;
        return;
      }
      for (auto [res, t] : llvm::zip(op->getResults(), types))
        res.setType(t);
    });
    // Unary ops keep SameOperandsAndResultType: propagate operand types.
    fn.walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::SameOperandsAndResultType>() && op->getNumOperands() == 1 &&
          op->getNumResults() == 1)
        op->getResult(0).setType(op->getOperand(0).getType());
    });
    if (failedAny)
      return signalPassFailure();
    if (fn.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                                 ret.getOperandTypes()));
  }
};
} // namespace
