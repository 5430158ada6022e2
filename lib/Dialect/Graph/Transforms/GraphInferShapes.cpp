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
  /// Re-infers the types of `block`'s ops in order. Fusion groups: block arguments take the
  /// group's (updated) input types, the body is processed, results take the yielded types.
  LogicalResult inferBlock(Block &block) {
    for (Operation &op : block) {
      if (auto group = dyn_cast<aicc::graph::FusionGroupOp>(op)) {
        Block &body = group.getBody().front();
        for (auto [arg, in] : llvm::zip(body.getArguments(), group.getInputs()))
          arg.setType(in.getType());
        if (failed(inferBlock(body)))
          return failure();
        for (auto [res, v] : llvm::zip(group.getResults(), body.getTerminator()->getOperands()))
          res.setType(v.getType());
        continue;
      }
      if (op.hasTrait<OpTrait::SameOperandsAndResultType>() && op.getNumOperands() == 1 &&
          op.getNumResults() == 1) {
        op.getResult(0).setType(op.getOperand(0).getType());
        continue;
      }
      if (!isa<aicc::graph::GraphDialect>(op.getDialect()))
        continue;
      auto infer = dyn_cast<InferTypeOpInterface>(op);
      if (!infer)
        continue;
      SmallVector<Type> types;
      if (failed(infer.inferReturnTypes(op.getContext(), op.getLoc(), op.getOperands(),
                                        op.getRawDictionaryAttrs(), op.getPropertiesStorage(),
                                        op.getRegions(), types)))
        return failure();
      for (auto [res, t] : llvm::zip(op.getResults(), types))
        res.setType(t);
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (!fn.isExternal() && failed(inferBlock(fn.getBody().front())))
      return signalPassFailure();
    if (fn.isExternal())
      return;
    auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                                 ret.getOperandTypes()));
  }
};
} // namespace
