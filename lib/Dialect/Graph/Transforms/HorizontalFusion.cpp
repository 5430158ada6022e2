//===- HorizontalFusion.cpp - graph-fuse's sibling merges -------------------===//
//
// Part of graph-fuse (GraphFuse.cpp): kernels that read a common input merge into one
// kernel of several results (FusionGroups.h says which).
//
//===----------------------------------------------------------------------===//
#include "FusionGroups.h"
#include "FusionRules.h"

#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::graph::fusion;

/// The values a group reads from outside it (kernel inputs), in first-use order.
static llvm::SetVector<Value> groupInputs(Group &g) {
  llvm::SmallPtrSet<Operation *, 8> in(g.ops.begin(), g.ops.end());
  llvm::SetVector<Value> ins;
  for (Operation *op : g.ops)
    for (Value v : op->getOperands())
      if (!v.getDefiningOp() || !in.count(v.getDefiningOp()))
        ins.insert(v);
  return ins;
}

void aicc::graph::fusion::mergeSiblingReductions(FusionGroups &fg, ArrayRef<unsigned> formed) {
  auto &groups = fg.groups;
  auto &groupOf = fg.groupOf;
  auto firstReduce = [&](Group &g) {
    return *llvm::find_if(g.ops, [](Operation *o) { return isReduction(o); });
  };
  auto usesGroup = [&](Group &user, unsigned g) {
    return llvm::any_of(user.ops, [&](Operation *op) {
      return llvm::any_of(op->getOperands(), [&](Value v) {
        Operation *d = v.getDefiningOp();
        return d && groupOf.count(d) && groupOf.lookup(d) == g;
      });
    });
  };
  for (size_t i = 0; i < formed.size(); ++i) {
    unsigned a = formed[i];
    if (groups[a].ops.empty())
      continue;
    for (size_t j = i + 1; j < formed.size(); ++j) {
      unsigned c = formed[j];
      Group &ga = groups[a], &gc = groups[c];
      if (gc.ops.empty())
        continue;
      if (llvm::count_if(ga.ops, [](Operation *o) { return isReduction(o); }) >=
          kMaxSiblingReductions)
        break;
      Operation *ra = firstReduce(ga), *rc = firstReduce(gc);
      if (cast<ShapedType>(ra->getOperand(0).getType()).getShape() !=
              cast<ShapedType>(rc->getOperand(0).getType()).getShape() ||
          ra->getAttr("axes") != rc->getAttr("axes") ||
          ra->getAttr("keepdims") != rc->getAttr("keepdims"))
        continue;
      // A real shared read: an input at least as large as the reduce input.
      int64_t n = cast<ShapedType>(ra->getOperand(0).getType()).getNumElements();
      auto ia = groupInputs(ga), ic = groupInputs(gc);
      if (llvm::none_of(ia, [&](Value v) {
            return ic.contains(v) && cast<ShapedType>(v.getType()).getNumElements() >= n;
          }))
        continue;
      if (usesGroup(ga, c) || usesGroup(gc, a))
        continue;
      bool aFirst = ga.ops.back()->isBeforeInBlock(gc.ops.back());
      Group &first = aFirst ? ga : gc, &second = aFirst ? gc : ga;
      Operation *last = second.ops.back();
      llvm::SmallPtrSet<Operation *, 8> firstOps(first.ops.begin(), first.ops.end());
      bool independent = llvm::all_of(first.ops, [&](Operation *op) {
        return llvm::all_of(op->getUsers(), [&](Operation *u) {
          return firstOps.count(u) || last->isBeforeInBlock(u);
        });
      });
      if (!independent)
        continue;
      for (Operation *op : gc.ops)
        groupOf[op] = a;
      ga.ops.append(gc.ops.begin(), gc.ops.end());
      llvm::sort(ga.ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
      gc.ops.clear();
    }
  }
}

void aicc::graph::fusion::mergeSiblings(FusionGroups &fg) {
  auto &groups = fg.groups;
  auto &groupOf = fg.groupOf;
  auto assigned = [&](Operation *op) { return fg.assigned(op); };
  // The values a group yields (used outside it).
  auto resultsOf = [&](Group &g) {
    llvm::SmallPtrSet<Operation *, 8> in(g.ops.begin(), g.ops.end());
    SmallVector<Value> outs;
    for (Operation *op : g.ops)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !in.count(u); }))
          outs.push_back(r);
    return outs;
  };
  // Cached per group; a merged group's entries are recomputed. Candidates for `a` are the
  // groups reading one of a's inputs (readers), so the search is not quadratic.
  SmallVector<SmallVector<Value>> results(groups.size());
  SmallVector<llvm::SetVector<Value>> inputs(groups.size());
  DenseMap<Value, SmallVector<unsigned>> readers;
  auto isEw = [&](unsigned g) { return groups[g].kind == "elementwise" && !groups[g].ops.empty(); };
  for (unsigned g = 0; g < groups.size(); ++g) {
    if (!isEw(g))
      continue;
    results[g] = resultsOf(groups[g]);
    inputs[g] = groupInputs(groups[g]);
    for (Value v : inputs[g])
      readers[v].push_back(g);
  }
  for (unsigned a = 0; a < groups.size(); ++a) {
    if (!isEw(a))
      continue;
    // At most kMaxHorizontalCandidates groups are tried per group: a value read by every
    // step of an unrolled recurrence (its weights) made the search quadratic (16384 RNN
    // steps: 18.6 s; aicc-fuzz-onnx audit).
    llvm::SetVector<unsigned> candidates;
    for (Value v : inputs[a])
      for (unsigned c : readers.lookup(v))
        if (candidates.size() < kMaxHorizontalCandidates)
          candidates.insert(c);
    for (unsigned c : candidates) {
      if (c == a || !isEw(c) || !isEw(a))
        continue;
      Group &first = groups[a], &second = groups[c];
      // `first` is the earlier group (by its last op).
      if (!first.ops.back()->isBeforeInBlock(second.ops.back()))
        continue;
      SmallVector<Value> &r1 = results[a], &r2 = results[c];
      // One element type: the elementwise template runs one program per BLOCK of the
      // largest result's linear index and stores every result at its own indices of that
      // index, masked past its element count (q, k as [B, H, S, D] and v as [B * H, S, D];
      // RoPE of q with H heads and of k with H_kv heads under grouped-query attention).
      auto elems = [](Value v) { return cast<ShapedType>(v.getType()).getNumElements(); };
      auto sameType = [&](Value v) {
        auto t = cast<ShapedType>(v.getType()), t0 = cast<ShapedType>(r1.front().getType());
        return t.getElementType() == t0.getElementType() && t.hasStaticShape() &&
               t0.hasStaticShape();
      };
      if (r1.empty() || r2.empty() || !llvm::all_of(llvm::concat<Value>(r1, r2), sameType))
        continue;
      // A real shared read: at least as many elements as each result of one of the groups
      // (not a broadcast scalar, bias or table).
      auto maxElems = [&](ArrayRef<Value> rs) {
        int64_t n = 0;
        for (Value r : rs)
          n = std::max(n, elems(r));
        return n;
      };
      int64_t outElems = std::min(maxElems(r1), maxElems(r2));
      bool shared = llvm::any_of(inputs[a], [&](Value v) {
        return inputs[c].contains(v) && elems(v) >= outElems;
      });
      if (!shared)
        continue;
      Operation *last = second.ops.back();
      // Reshapes (buffer views, in no kernel) of first's results that sit before `last`
      // move after it when all their readers come later (v's view for the PV matmul).
      SmallVector<Operation *> moved;
      std::function<bool(Value)> readLater = [&](Value r) {
        return llvm::all_of(r.getUsers(), [&](Operation *u) {
          if (llvm::is_contained(first.ops, u) || last->isBeforeInBlock(u))
            return true;
          if (!isa<ReshapeOp>(u) || assigned(u))
            return false;
          moved.push_back(u);
          return readLater(u->getResult(0));
        });
      };
      if (!llvm::all_of(r1, readLater))
        continue;
      llvm::sort(moved, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
      for (Operation *m : llvm::reverse(moved))
        m->moveAfter(last);
      for (Operation *op : first.ops)
        groupOf[op] = c;
      second.ops.append(first.ops.begin(), first.ops.end());
      llvm::sort(second.ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
      first.ops.clear();
      results[c] = resultsOf(second);
      for (Value v : inputs[a])
        if (!inputs[c].contains(v)) {
          inputs[c].insert(v);
          readers[v].push_back(c);
        }
      break;
    }
  }
}
