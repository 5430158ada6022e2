//===- ScatterFusion.cpp - graph-fuse's scatter kernels ---------------------===//
//
// Part of graph-fuse (GraphFuse.cpp, phase 2b): each scatter's kernel takes the ops that
// compute its updates (FusionGroups.h says which).
//
//===----------------------------------------------------------------------===//
#include "FusionGroups.h"
#include "FusionRules.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::graph::fusion;

void aicc::graph::fusion::formScatters(FusionGroups &fg, Block &top) {
  for (Operation &opRef : top) {
    Operation *sc = &opRef;
    if (fg.assigned(sc) || !isa<ScatterElementsOp, ScatterNDOp>(sc))
      continue;
    llvm::SetVector<Operation *> members;
    llvm::SmallPtrSet<Operation *, 8> inKernel{sc};
    SmallVector<Value> work{sc->getOperand(2)};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      // Every use inside the kernel, and the scatter's own only as its updates (data and
      // indices stay kernel inputs: the template reads them from memory).
      auto usedInside = [&](OpOperand &use) {
        Operation *u = use.getOwner();
        return inKernel.count(u) && (u != sc || use.getOperandNumber() == 2);
      };
      if (!def || def->getBlock() != sc->getBlock() || fg.assigned(def) || members.count(def) ||
          !isSideEffectFree(def) || def->getNumResults() != 1 ||
          !(isFusableElementwise(def) || isRemapView(def)) ||
          !llvm::all_of(v.getUses(), usedInside))
        continue;
      members.insert(def);
      inKernel.insert(def);
      for (Value o : def->getOperands())
        work.push_back(o);
    }
    unsigned g = fg.newGroup("single");
    if (!llvm::all_of(members, [](Operation *op) { return isa<ReshapeOp>(op); })) {
      SmallVector<Operation *> ordered(members.begin(), members.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      for (Operation *op : ordered)
        fg.add(g, op);
    }
    fg.add(g, sc);
  }
}
