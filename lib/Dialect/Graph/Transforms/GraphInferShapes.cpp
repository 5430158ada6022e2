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
      if (op.hasTrait<mlir::OpTrait::SameOperandsAndResultType>() && op.getNumOperands() == 1 &&
          op.getNumResults() == 1) {
        op.getResult(0).setType(op.getOperand(0).getType());
        continue;
      }
      if (!isa_and_nonnull<aicc::graph::GraphDialect>(op.getDialect())) // null: unregistered
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
    if (fn.isExternal()) // a declaration: no ops to infer
      return;
    if (failed(inferBlock(fn.getBody().front())))
      return signalPassFailure();
    // The result types follow the func.return ops (any block may hold one; all must agree).
    std::optional<TypeRange> results;
    for (Block &block : fn.getBody()) {
      auto ret = dyn_cast_or_null<func::ReturnOp>(block.getTerminator());
      if (!ret)
        continue;
      if (results && TypeRange(ret.getOperandTypes()) != *results) {
        ret.emitError("graph-infer-shapes: the returns of @")
            << fn.getName() << " return different types";
        return signalPassFailure();
      }
      results = ret.getOperandTypes();
    }
    if (results)
      fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(), *results));
  }
};
} // namespace
