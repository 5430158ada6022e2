//===- GraphFoldConstants.cpp - evaluate constant subgraphs at compile time ----===//
//
// The pass description in Passes.td has the rule. The evaluation is the float64 reference
// evaluator's (include/aicc/Reference/Evaluator.h), so every graph op it implements folds
// with the semantics the tests check kernels against, rounded once to the result's type.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Reference/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

#include <cmath>

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHFOLDCONSTANTS
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;
namespace ref = aicc::reference;

namespace {

/// Bytes a constant of `type` takes in the bundle (a splat: one element).
int64_t constantBytes(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  unsigned bits = type.getElementTypeBitWidth();
  int64_t bytes = bits == 1 ? 1 : (int64_t)(bits + 7) / 8;
  bool splat = isa<DenseElementsAttr>(value) && cast<DenseElementsAttr>(value).isSplat();
  return splat ? bytes : bytes * type.getNumElements();
}

/// Bytes a non-splat constant of `type` takes (constantBytes' count).
int64_t typeBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return std::numeric_limits<int64_t>::max();
  unsigned bits = t.getElementTypeBitWidth();
  return (bits == 1 ? 1 : (int64_t)(bits + 7) / 8) * t.getNumElements();
}

/// Set while this thread evaluates an op: the evaluator's diagnostics then are not the
/// user's (the handler is the context's, shared by functions compiled in parallel).
thread_local bool evaluating = false;

/// Whether folding `op` on `operands` gives what the compiled kernel computes. The
/// evaluator works in float64 and rounds each result once: exact for integer and bool
/// results, for views and for elementwise float ops (correctly rounded where the kernel's
/// are), but a float reduction or contraction accumulates differently from the kernel
/// (overflow, cancellation), an integer beyond 2^53 converted to a float would be rounded
/// twice, and a non-finite or out-of-range float converted to an integer is undefined
/// (ONNX Cast) and differs between the fold and the target.
bool foldIsFaithful(Operation *op, ArrayRef<ref::Tensor> operands) {
  bool floatResults = llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<FloatType>(cast<ShapedType>(t).getElementType());
  });
  if (floatResults && !isElementwise(op) && !isView(op))
    return false;
  auto cast = dyn_cast<CastOp>(op);
  if (!cast)
    return true;
  const ref::Tensor &in = operands.front();
  Type to = cast.getType().getElementType();
  if (!in.isFloat() && isa<FloatType>(to))
    return llvm::all_of(in.ints, [](int64_t v) { return v >= -(int64_t(1) << 53) && v <= (int64_t(1) << 53); });
  if (in.isFloat() && isa<IntegerType>(to)) {
    unsigned w = to.getIntOrFloatBitWidth();
    double lo = w == 1 ? 0.0 : cast.getType().getElementType().isUnsignedInteger() ? 0.0 : -std::ldexp(1.0, (int)w - 1);
    double hi = w == 1 ? 1.0 : cast.getType().getElementType().isUnsignedInteger() ? std::ldexp(1.0, (int)w) - 1 : std::ldexp(1.0, (int)w - 1) - 1;
    return llvm::all_of(in.floats, [&](double v) { return std::isfinite(v) && v >= lo && v <= hi; });
  }
  return true;
}

struct GraphFoldConstantsPass
    : aicc::graph::impl::GraphFoldConstantsBase<GraphFoldConstantsPass> {
  using GraphFoldConstantsBase::GraphFoldConstantsBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.getBody().empty())
      return;
    ref::Evaluator eval;
    // An op the evaluator cannot take (not implemented, a data-dependent error) stays in
    // the graph: its diagnostics are not the user's.
    ScopedDiagnosticHandler quiet(&getContext(),
                                  [](Diagnostic &) { return success(evaluating); });
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front()))
      fold(&op, eval);
  }

  void fold(Operation *op, ref::Evaluator &eval) {
    if (!op->getDialect() || !isa<GraphDialect>(op->getDialect()) || isa<ConstantOp>(op) ||
        isa<FusionGroupOp>(op) || op->getNumOperands() == 0 || op->getNumResults() == 0 ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return;
    SmallVector<ConstantOp> csts;
    int64_t inElems = 0;
    for (Value v : op->getOperands()) {
      auto c = v.getDefiningOp<ConstantOp>();
      if (!c)
        return;
      csts.push_back(c);
      inElems += cast<ShapedType>(c.getValue().getType()).getNumElements();
    }
    int64_t outElems = 0;
    for (Value r : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t || !t.hasStaticShape())
        return;
      outElems += t.getNumElements();
      for (Operation *u : r.getUsers())
        if (isa<func::ReturnOp>(u))
          return;
    }
    if (inElems > maxElements || outElems > maxElements)
      return;
    // The constants the fold leaves unused (their only users are this op).
    int64_t freed = 0;
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (ConstantOp c : csts)
      if (seen.insert(c).second &&
          llvm::all_of(c->getUsers(), [&](Operation *u) { return u == op; }))
        freed += constantBytes(c.getValue());
    SmallVector<ref::Tensor> operands;
    evaluating = true;
    auto done = llvm::make_scope_exit([] { evaluating = false; });
    for (ConstantOp c : csts) {
      FailureOr<ref::Tensor> t = ref::tensorFromAttr(c.getLoc(), c.getValue());
      if (failed(t))
        return;
      operands.push_back(std::move(*t));
    }
    if (!foldIsFaithful(op, operands))
      return;
    FailureOr<std::vector<ref::Tensor>> results = eval.evaluateOp(op, operands);
    if (failed(results) || results->size() != op->getNumResults())
      return;
    SmallVector<DenseElementsAttr> attrs;
    int64_t bytes = 0;
    for (auto [r, t] : llvm::zip(op->getResults(), *results)) {
      if (t.getType() != r.getType())
        return;
      attrs.push_back(ref::attrFromTensor(t));
      bytes += constantBytes(attrs.back());
    }
    // A fold that grows the constants is taken when its one user has only constant
    // operands and results no larger than this op frees: that user folds next (a causal
    // mask's cast to f32 before its compare, torch's masked_fill(mask == 0): 2 MiB of f16
    // -> 4 MiB of f32 -> 1 MiB of i1 at 1024 positions).
    auto shrinksNext = [&] {
      if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
        return false;
      Operation *u = *op->getResult(0).getUsers().begin();
      if (!u->getDialect() || !isa<GraphDialect>(u->getDialect()) || u->getNumRegions() ||
          !isMemoryEffectFree(u) || u->getNumResults() == 0)
        return false;
      for (Value o : u->getOperands())
        if (o != op->getResult(0) && !o.getDefiningOp<ConstantOp>())
          return false;
      int64_t limit = std::max<int64_t>(maxBytes, freed), out = 0;
      for (Value r : u->getResults()) {
        int64_t rb = typeBytes(r.getType());
        if (rb > limit - out)
          return false;
        out += rb;
      }
      return true;
    };
    if (bytes > std::max<int64_t>(maxBytes, freed) && !shrinksNext())
      return;
    OpBuilder b(op);
    for (auto [r, a] : llvm::zip(op->getResults(), attrs))
      r.replaceAllUsesWith(ConstantOp::create(b, op->getLoc(), r.getType(), a).getResult());
    op->erase();
    for (ConstantOp c : csts)
      if (seen.erase(c) && c->use_empty())
        c->erase();
  }
};

} // namespace
