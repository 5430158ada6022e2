//===- Evaluator.cpp - the reference evaluator's driver ---------------------===//
//
// Walks a function's ops in order, keeps every value's tensor, and hands each op to its
// family (ElementwiseOps.cpp, ReductionOps.cpp, ContractionOps.cpp, DataMovementOps.cpp).
// Constants and fusion groups are handled here.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>

using namespace mlir;
using namespace aicc::reference;
using namespace aicc::reference::detail;

static InFlightDiagnostic evalError(Operation *op) {
  return op->emitError("reference evaluator: ");
}

/// Checks that `t` can stand for a value of type `type`; `what` names it in the error.
static LogicalResult checkTensorType(Operation *op, const Tensor &t, Type type, const Twine &what) {
  auto rt = dyn_cast<RankedTensorType>(type);
  if (!rt || !rt.hasStaticShape())
    return evalError(op) << what << " has type " << type
                         << "; only statically shaped ranked tensors are evaluated";
  if (!isSupportedElementType(rt.getElementType()))
    return evalError(op) << what << " has element type " << rt.getElementType()
                         << ", which the evaluator does not hold";
  if (t.elementType != rt.getElementType() || ArrayRef<int64_t>(t.shape) != rt.getShape())
    return evalError(op) << what << " is " << t.getType() << " but the IR says " << type;
  int64_t n = t.numElements();
  if ((t.isFloat() ? (int64_t)t.floats.size() : (int64_t)t.ints.size()) != n)
    return evalError(op) << what << " holds the wrong number of elements";
  return success();
}

FailureOr<std::vector<Tensor>> Evaluator::run(func::FuncOp fn, ArrayRef<Tensor> args) {
  if (fn.isExternal())
    return evalError(fn) << "function @" << fn.getName() << " has no body", failure();
  if (args.size() != fn.getNumArguments())
    return evalError(fn) << "@" << fn.getName() << " takes " << fn.getNumArguments()
                         << " argument(s), got " << args.size(),
           failure();
  for (auto [i, t] : llvm::enumerate(args))
    if (failed(checkTensorType(fn, t, fn.getArgument(i).getType(), "argument " + Twine(i))))
      return failure();
  return runBlock(fn.getBody().front(), args);
}

FailureOr<std::vector<Tensor>> Evaluator::runBlock(Block &block, ArrayRef<Tensor> args) {
  // Tensors are shared, never copied, between the values that hold them.
  llvm::DenseMap<Value, std::shared_ptr<const Tensor>> values;
  for (auto [arg, t] : llvm::zip(block.getArguments(), args))
    values[arg] = std::make_shared<const Tensor>(t);
  for (Operation &op : block) {
    SmallVector<const Tensor *> operands;
    for (auto [i, v] : llvm::enumerate(op.getOperands())) {
      auto it = values.find(v);
      if (it == values.end())
        return evalError(&op) << "operand " << i << " is not defined in this block", failure();
      operands.push_back(it->second.get());
    }
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      if (!isa<func::ReturnOp, aicc::graph::YieldOp>(op))
        return evalError(&op) << "unexpected terminator '" << op.getName() << "'", failure();
      std::vector<Tensor> results;
      for (const Tensor *t : operands)
        results.push_back(*t);
      return results;
    }
    std::vector<Tensor> results;
    if (auto group = dyn_cast<aicc::graph::FusionGroupOp>(op)) {
      std::vector<Tensor> in;
      for (const Tensor *t : operands)
        in.push_back(*t);
      auto r = runBlock(group.getBody().front(), in);
      if (failed(r))
        return failure();
      results = std::move(*r);
      for (auto [i, t] : llvm::enumerate(results))
        if (failed(checkTensorType(&op, t, op.getResult(i).getType(), "result " + Twine(i))))
          return failure();
    } else {
      auto r = evaluateOne(&op, operands);
      if (failed(r))
        return failure();
      results.push_back(std::move(*r));
    }
    if (observer)
      observer(&op, results);
    for (auto [v, t] : llvm::zip(op.getResults(), results))
      values[v] = std::make_shared<const Tensor>(std::move(t));
  }
  return evalError(block.getParentOp()) << "block has no terminator", failure();
}

FailureOr<Tensor> Evaluator::evaluateOne(Operation *op, ArrayRef<const Tensor *> operands) {
  if (op->getNumResults() != 1)
    return evalError(op) << "no implementation of '" << op->getName() << "' ("
                         << op->getNumResults() << " results)",
           failure();
  Type type = op->getResult(0).getType();
  auto rt = dyn_cast<RankedTensorType>(type);
  if (!rt || !rt.hasStaticShape() || !isSupportedElementType(rt.getElementType()))
    return evalError(op) << "result type " << type << " is not a statically shaped tensor "
                         << "of an element type the evaluator holds",
           failure();
  for (auto [i, t] : llvm::enumerate(operands))
    if (failed(checkTensorType(op, *t, op->getOperand(i).getType(), "operand " + Twine(i))))
      return failure();

  std::optional<EvalResult> r;
  if (auto c = dyn_cast<aicc::graph::ConstantOp>(op))
    r = tensorFromAttr(op->getLoc(), c.getValue());
  if (!r)
    r = evalElementwiseOp(op, operands);
  if (!r)
    r = evalReductionOp(op, operands);
  if (!r)
    r = evalContractionOp(op, operands);
  if (!r)
    r = evalDataMovementOp(op, operands);
  if (!r)
    return evalError(op) << "no implementation of '" << op->getName() << "'", failure();
  if (failed(*r))
    return failure();
  Tensor t = std::move(**r);
  // Every family builds its result from the op's declared type; a mismatch is a bug here.
  if (failed(checkTensorType(op, t, type, "the computed result")))
    return failure();
  if (options.roundToElementType || !t.isFloat())
    roundToType(t);
  return t;
}

FailureOr<std::vector<Tensor>> Evaluator::evaluateOp(Operation *op, ArrayRef<Tensor> operands) {
  if (operands.size() != op->getNumOperands())
    return evalError(op) << "'" << op->getName() << "' takes " << op->getNumOperands()
                         << " operand(s), got " << operands.size(),
           failure();
  if (auto group = dyn_cast<aicc::graph::FusionGroupOp>(op)) {
    for (auto [i, t] : llvm::enumerate(operands))
      if (failed(checkTensorType(op, t, op->getOperand(i).getType(), "operand " + Twine(i))))
        return failure();
    auto r = runBlock(group.getBody().front(), operands);
    if (failed(r))
      return failure();
    for (auto [i, t] : llvm::enumerate(*r))
      if (failed(checkTensorType(op, t, op->getResult(i).getType(), "result " + Twine(i))))
        return failure();
    if (observer)
      observer(op, *r);
    return r;
  }
  SmallVector<const Tensor *> ptrs;
  for (const Tensor &t : operands)
    ptrs.push_back(&t);
  auto r = evaluateOne(op, ptrs);
  if (failed(r))
    return failure();
  std::vector<Tensor> results;
  results.push_back(std::move(*r));
  if (observer)
    observer(op, results);
  return results;
}
