//===- GraphFuse.cpp - form fusion groups ----------------------------------===//
//
// Greedy fusion into graph.fusion_group ops. Legality is stated by small predicates, one
// rule each (the same split as TVM's FuseOps op patterns / Inductor's can_fuse):
//   - hasSingleUser:        the producer's value is not needed by anyone else, so it
//                           never has to be written to memory;
//   - isSideEffectFree:     moving the op into a kernel cannot reorder observable effects;
//   - sameIterationSpace:   the consumer iterates over exactly the producer's shape, so
//                           the producer is computed once per output element (no
//                           recompute under broadcasting).
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHFUSE
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

bool hasSingleUser(Value v) { return v.hasOneUse(); }

bool isSideEffectFree(Operation *op) { return isMemoryEffectFree(op); }

bool sameIterationSpace(Value producer, Operation *consumer) {
  return cast<ShapedType>(producer.getType()).getShape() ==
         cast<ShapedType>(consumer->getResult(0).getType()).getShape();
}

/// A view op finds its element by index arithmetic on its operand, so that operand must be
/// in memory (a kernel input): its producer never joins the view's kernel.
bool mayAbsorbProducers(Operation *op) { return !isView(op); }

/// A consumer can join a group whose current output is `tail`.
bool canFuseConsumer(Value tail, Operation *user) {
  // trilu reads its element's position, which only the elementwise template provides.
  return user && isElementwise(user) && !isa<TriluOp>(user) && isSideEffectFree(user) &&
         hasSingleUser(tail) &&
         user->getNumResults() == 1 && sameIterationSpace(tail, user);
}

/// Outlines `ops` (in program order, all in one block) into a fusion group placed right
/// before the last op. Results: values of the group used outside it.
void outline(ArrayRef<Operation *> ops, StringRef kind) {
  llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  for (Operation *op : ops) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !inGroup.count(def))
        inputs.insert(v);
    }
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !inGroup.count(u); }))
        outputs.push_back(r);
  }
  Operation *last = ops.back();
  OpBuilder b(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto group = b.create<FusionGroupOp>(last->getLoc(), resultTypes, inputs.getArrayRef(), kind);
  Block &body = group.getBody().front();
  IRMapping map;
  for (auto [in, arg] : llvm::zip(inputs, body.getArguments()))
    map.map(in, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  for (Operation *op : ops)
    inner.clone(*op, map);
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(map.lookup(v));
  inner.create<YieldOp>(last->getLoc(), yielded);
  for (auto [v, r] : llvm::zip(outputs, group.getResults()))
    v.replaceAllUsesWith(r);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
}

struct GraphFusePass : public aicc::graph::impl::GraphFuseBase<GraphFusePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    llvm::SmallPtrSet<Operation *, 32> assigned;
    SmallVector<std::pair<SmallVector<Operation *>, std::string>> groups;

    // 1. Anchors (matmul/gemm -> epilogue, softmax -> softmax) grow down their chain of
    //    elementwise consumers.
    // Only ops directly in the function body: ops already inside a fusion group stay put,
    // so the pass is idempotent.
    Block &top = fn.getBody().front();
    auto topLevel = [&](Operation *op) { return op->getBlock() == &top; };
    fn.walk([&](Operation *op) {
      if (!topLevel(op))
        return;
      std::string kind;
      if (isa<MatMulOp, GemmOp, ConvOp>(op))
        kind = "epilogue";
      else if (isa<MaxPoolOp, AvgPoolOp>(op))
        kind = "window";
      else if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(op))
        kind = "softmax"; // row kernels: the reduced dims on chip
      else
        return;
      SmallVector<Operation *> chain{op};
      assigned.insert(op);
      Value tail = op->getResult(0);
      while (tail.hasOneUse()) {
        Operation *user = *tail.getUsers().begin();
        if (!canFuseConsumer(tail, user) || assigned.count(user) ||
            user->getBlock() != op->getBlock())
          break;
        chain.push_back(user);
        assigned.insert(user);
        tail = user->getResult(0);
      }
      groups.push_back({chain, kind});
    });

    // 2. Elementwise DAGs: from each unassigned root (walking backwards), absorb
    //    single-user elementwise producers of the same iteration space.
    SmallVector<Operation *> allOps;
    for (Operation &op : top)
      allOps.push_back(&op);
    // View ops (transpose, slice, pad, concat, tile, expand) join these groups as
    // injective ops; they read only kernel inputs (mayAbsorbProducers).
    auto injective = [](Operation *op) { return isElementwise(op) || isView(op); };
    for (Operation *root : llvm::reverse(allOps)) {
      if (assigned.count(root) || !injective(root))
        continue;
      llvm::SetVector<Operation *> members;
      members.insert(root);
      assigned.insert(root);
      for (size_t i = 0; i < members.size(); ++i) {
        if (!mayAbsorbProducers(members[i]))
          continue;
        for (Value v : members[i]->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def || assigned.count(def) || !injective(def) ||
              !isSideEffectFree(def) || !hasSingleUser(v) ||
              def->getBlock() != root->getBlock() ||
              !sameIterationSpace(def->getResult(0), root))
            continue;
          members.insert(def);
          assigned.insert(def);
        }
      }
      SmallVector<Operation *> ordered(members.begin(), members.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      groups.push_back({ordered, "elementwise"});
    }

    // 3. Reductions are kernels of their own; everything else that computes
    //    (transpose) too.
    for (Operation *op : allOps) {
      if (assigned.count(op))
        continue;
      if (isReduction(op)) {
        assigned.insert(op);
        groups.push_back({{op}, "reduction"});
      }
      // Scatters write at run-time positions: a kernel of their own (scatter template).
      if (isa<ScatterElementsOp, ScatterNDOp>(op)) {
        assigned.insert(op);
        groups.push_back({{op}, "single"});
      }
    }

    for (auto &[ops, kind] : groups)
      outline(ops, kind);
  }
};
} // namespace
