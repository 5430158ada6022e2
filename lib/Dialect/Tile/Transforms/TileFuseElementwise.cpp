//===- TileFuseElementwise.cpp - elementwise fusion with recompute ---------===//
//
// One decision sweep and one construction per fused op (linear in the IR size times the
// number of places a cheap value is recomputed), instead of upstream's pairwise
// FuseElementwiseOps pattern, which re-creates the accumulated consumer for every producer
// it absorbs: a chain of n elementwise ops cost O(n^2) cloned ops and operand lists (a chain
// of 3,000 Relu nodes took over 90 s, a Concat of 125 inputs 47 s, issue 14).
//
// Terms. A *root* is a generic that stays in the IR (a "materialized" generic). An
// *instance* (P, phi) says that the body of producer P is recomputed inside the fused body of
// root R at the loop point phi : R's loops -> P's loops (P's output map is a permutation, so
// phi = inverse(outputMap(P)) o consumerMap o phi(consumer)). The legality rules are
// upstream's linalg::areElementwiseOpsFusable (mlir/lib/Dialect/Linalg/Transforms/
// ElementwiseOpFusion.cpp): P is an all-parallel generic on tensors whose output maps are
// permutations, the use is an input operand whose map has one result per loop of P, and the
// fused op must keep an operand that defines every loop dim (checked for roots whose outs do
// not cover all their loops, e.g. reductions).
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"

#include <functional>

namespace aicc::tile {
#define GEN_PASS_DEF_TILEFUSEELEMENTWISE
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace aicc::tile

using namespace mlir;

namespace {
/// A producer body is cheap to recompute when nothing in it touches memory.
bool isCheapToRecompute(linalg::GenericOp producer) {
  return !producer.getRegion()
              .walk([](Operation *op) {
                return isMemoryEffectFree(op) ? WalkResult::advance() : WalkResult::interrupt();
              })
              .wasInterrupted();
}

/// Upstream's RemoveOutsDependency: an init operand whose value the payload never reads
/// becomes a fresh tensor.empty, so the producer of the old init is no longer a user of it.
void removeOutsDependencies(ArrayRef<linalg::GenericOp> generics) {
  for (linalg::GenericOp g : generics) {
    for (OpOperand &init : g.getDpsInitsMutable()) {
      auto type = dyn_cast<RankedTensorType>(init.get().getType());
      if (!type || g.payloadUsesValueFromOperand(&init) ||
          init.get().getDefiningOp<tensor::EmptyOp>())
        continue;
      OpBuilder b(g);
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, g.getLoc(), init.get());
      init.set(tensor::EmptyOp::create(b, g.getLoc(), sizes, type.getElementType()));
    }
  }
}

/// Number of operands whose maps define each loop dim (an AffineDimExpr result).
void countDims(AffineMap map, SmallVectorImpl<int> &count, int delta) {
  for (AffineExpr e : map.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      count[d.getPosition()] += delta;
}

struct Instance {
  unsigned producer; // index into Fusion::generics
  AffineMap loops;   // root loops -> producer loops
};

/// What the sweep decided for one generic.
struct Decision {
  bool fusible = false;       // may be recomputed inside its users
  bool cheap = false;         // reads no memory
  bool materialized = false;  // stays in the IR (a root)
  SmallVector<AffineMap> inverseResultMaps;
  SmallVector<std::pair<unsigned, AffineMap>> inlinedInto; // (root, loops)
  // As a root: the instances to recompute in its body, and (roots whose outs do not define
  // every loop dim only) how many operands of the fused op define each dim so far.
  SmallVector<Instance> instances;
  SmallVector<int> coverage;
};

class Fusion {
public:
  explicit Fusion(func::FuncOp fn) : fn(fn) {
    fn.walk<WalkOrder::PreOrder>([&](linalg::GenericOp g) {
      index[g] = generics.size();
      generics.push_back(g);
    });
  }

  /// Returns false on an internal inconsistency (reported on the op).
  bool run() {
    removeOutsDependencies(generics);
    decisions.resize(generics.size());
    for (unsigned i = 0; i < generics.size(); ++i)
      analyze(i);
    // Users come after their producers in pre-order (SSA dominance), so visiting the
    // generics backwards decides every user before its producers.
    for (unsigned i = generics.size(); i-- > 0;)
      decide(i);
    SmallVector<std::pair<unsigned, linalg::GenericOp>> rebuilt;
    for (unsigned i = 0; i < generics.size(); ++i)
      if (decisions[i].materialized && needsRebuild(i))
        rebuilt.push_back({i, build(i)});
    // Replace and erase only now: building a root reads the original bodies of the
    // producers it recomputes, and a producer may also be a root.
    for (auto &[i, g] : rebuilt)
      generics[i]->replaceAllUsesWith(g);
    SmallVector<unsigned> dead;
    for (auto &[i, g] : rebuilt)
      dead.push_back(i);
    for (unsigned i = 0; i < generics.size(); ++i)
      if (!decisions[i].materialized)
        dead.push_back(i);
    llvm::sort(dead, std::greater<unsigned>());
    for (unsigned i : dead) {
      if (!generics[i]->use_empty()) {
        generics[i]->emitError("internal error: tile-fuse-elementwise left a user of a "
                               "fused producer");
        return false;
      }
      generics[i]->erase();
    }
    // The inits of the erased generics, and those removeOutsDependencies replaced.
    fn.walk([](tensor::EmptyOp e) {
      if (e->use_empty())
        e->erase();
    });
    return true;
  }

private:
  void analyze(unsigned i) {
    linalg::GenericOp p = generics[i];
    Decision &d = decisions[i];
    d.fusible = p.hasPureTensorSemantics() && p.getNumResults() > 0 &&
                p.getNumParallelLoops() == p.getNumLoops();
    for (OpResult r : p->getResults()) {
      AffineMap m = p.getIndexingMapMatchingResult(r);
      if (!m.isPermutation()) {
        d.fusible = false;
        break;
      }
      d.inverseResultMaps.push_back(inversePermutation(m));
    }
    d.cheap = d.fusible && isCheapToRecompute(p);
    // Roots whose outs leave a loop dim undefined need the coverage check.
    SmallVector<int> outs(p.getNumLoops(), 0);
    for (OpOperand &init : p.getDpsInitsMutable())
      countDims(p.getMatchingIndexingMap(&init), outs, 1);
    if (llvm::any_of(outs, [](int c) { return c == 0; })) {
      d.coverage.assign(p.getNumLoops(), 0);
      for (OpOperand &o : p->getOpOperands())
        countDims(p.getMatchingIndexingMap(&o), d.coverage, 1);
    }
  }

  /// The operands of producer `p` at loop point `loops`, as maps from root loops.
  void forEachOperandMap(linalg::GenericOp p, AffineMap loops,
                         llvm::function_ref<void(AffineMap)> fn) {
    for (OpOperand *in : p.getDpsInputOperands())
      fn(p.getMatchingIndexingMap(in).compose(loops));
    for (OpOperand &init : p.getDpsInitsMutable())
      if (p.payloadUsesValueFromOperand(&init))
        fn(p.getMatchingIndexingMap(&init).compose(loops));
  }

  void decide(unsigned i) {
    linalg::GenericOp p = generics[i];
    Decision &d = decisions[i];
    bool forced = false, sameBlock = true;
    // (root, loops) -> the operand maps (in root loops) through which the root reads p.
    llvm::MapVector<std::pair<unsigned, AffineMap>, SmallVector<AffineMap, 1>> needed;
    for (OpResult r : p->getResults()) {
      for (OpOperand &use : r.getUses()) {
        auto u = dyn_cast<linalg::GenericOp>(use.getOwner());
        auto it = u ? index.find(u) : index.end();
        if (!d.fusible || it == index.end() || it->second <= i || !u.isDpsInput(&use) ||
            !isa<RankedTensorType>(use.get().getType()) ||
            u.getMatchingIndexingMap(&use).getNumResults() != p.getNumLoops()) {
          forced = true;
          continue;
        }
        sameBlock &= u->getBlock() == p->getBlock();
        AffineMap m = u.getMatchingIndexingMap(&use);
        AffineMap inv = d.inverseResultMaps[r.getResultNumber()];
        const Decision &du = decisions[it->second];
        auto add = [&](unsigned root, AffineMap userLoops) {
          AffineMap operandMap = m.compose(userLoops);
          needed[{root, inv.compose(operandMap)}].push_back(operandMap);
        };
        if (du.materialized)
          add(it->second, AffineMap::getMultiDimIdentityMap(u.getNumLoops(), u.getContext()));
        for (auto &[root, loops] : du.inlinedInto)
          add(root, loops);
      }
    }
    // A producer that reads memory is recomputed only where it is read once.
    bool mayInline = d.fusible && (d.cheap || (!forced && sameBlock && needed.size() == 1));
    bool refused = !mayInline && !needed.empty();
    if (mayInline) {
      for (auto &[key, operandMaps] : needed) {
        auto [root, loops] = key;
        Decision &dr = decisions[root];
        if (!dr.coverage.empty()) {
          SmallVector<int> after = dr.coverage;
          for (AffineMap m : operandMaps)
            countDims(m, after, -1);
          forEachOperandMap(p, loops, [&](AffineMap m) { countDims(m, after, 1); });
          if (llvm::any_of(after, [](int c) { return c <= 0; })) {
            refused = true; // fusing would lose a loop bound
            continue;
          }
          dr.coverage = std::move(after);
        }
        d.inlinedInto.push_back({root, loops});
        dr.instances.push_back({i, loops});
      }
    }
    d.materialized = forced || refused || p->use_empty();
  }

  bool needsRebuild(unsigned i) {
    if (!decisions[i].instances.empty())
      return true;
    linalg::GenericOp g = generics[i];
    return llvm::any_of(g.getDpsInputOperands(),
                        [](OpOperand *in) { return splatValue(in->get()) != nullptr; });
  }

  /// The element of a splat dense tensor constant, or null.
  static TypedAttr splatValue(Value v) {
    DenseElementsAttr attr;
    if (!isa<RankedTensorType>(v.getType()) || !matchPattern(v, m_Constant(&attr)) ||
        !attr.isSplat())
      return nullptr;
    Attribute splat = attr.getSplatValue<Attribute>();
    return isa<IntegerAttr, FloatAttr>(splat) ? cast<TypedAttr>(splat) : nullptr;
  }

  /// Builds the fused op of root `r` before it: the root's body preceded by the bodies of
  /// its instances in program order (a producer before its users), each computed once.
  linalg::GenericOp build(unsigned r) {
    linalg::GenericOp root = generics[r];
    MLIRContext *ctx = root.getContext();
    unsigned numLoops = root.getNumLoops();
    auto body = std::make_unique<Block>();
    OpBuilder b(ctx); // the block is detached: atBlockEnd would ask its region for a context
    b.setInsertionPointToEnd(body.get());
    Location loc = root.getLoc();

    SmallVector<Value> leaves;
    SmallVector<AffineMap> leafMaps;
    DenseMap<std::pair<Value, AffineMap>, Value> leafValue;
    DenseMap<std::pair<unsigned, AffineMap>, SmallVector<Value>> built;
    DenseMap<AffineExpr, Value> indexValue;

    // The fused op's value of a producer's loop index (an expression of the root's loops).
    auto dimAt = [&](unsigned k) -> Value {
      Value &v = indexValue[getAffineDimExpr(k, ctx)];
      if (!v)
        v = linalg::IndexOp::create(b, loc, k);
      return v;
    };
    auto indexAt = [&](AffineExpr e) -> Value {
      if (auto d = dyn_cast<AffineDimExpr>(e))
        return dimAt(d.getPosition());
      if (Value v = indexValue.lookup(e))
        return v;
      Value v;
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        v = arith::ConstantIndexOp::create(b, loc, c.getValue());
      } else {
        SmallVector<Value> dims;
        for (unsigned k = 0; k < numLoops; ++k)
          dims.push_back(dimAt(k));
        v = affine::AffineApplyOp::create(b, loc, AffineMap::get(numLoops, 0, e), dims);
      }
      indexValue[e] = v;
      return v;
    };
    // The instance of this root that computes `v` read at `map` (root loops), if any.
    DenseSet<std::pair<unsigned, AffineMap>> inRoot;
    for (const Instance &inst : decisions[r].instances)
      inRoot.insert({inst.producer, inst.loops});
    auto instanceOf = [&](Value v,
                          AffineMap map) -> std::optional<std::pair<unsigned, AffineMap>> {
      auto res = dyn_cast<OpResult>(v);
      if (!res)
        return std::nullopt;
      auto it = index.find(res.getOwner());
      if (it == index.end() || !decisions[it->second].fusible)
        return std::nullopt;
      std::pair<unsigned, AffineMap> key{
          it->second,
          decisions[it->second].inverseResultMaps[res.getResultNumber()].compose(map)};
      if (!inRoot.contains(key))
        return std::nullopt;
      return key;
    };
    // A block argument of the fused op (or a scalar constant for a splat constant).
    auto leaf = [&](Value v, AffineMap map) -> Value {
      auto [slot, inserted] = leafValue.try_emplace({v, map});
      if (!inserted)
        return slot->second;
      if (TypedAttr splat = splatValue(v)) {
        slot->second = arith::ConstantOp::create(b, loc, splat);
        return slot->second;
      }
      leaves.push_back(v);
      leafMaps.push_back(map);
      slot->second = body->addArgument(getElementTypeOrSelf(v.getType()), v.getLoc());
      return slot->second;
    };
    // The operands generic `g` at `loops` reads, as (value, map in root loops).
    auto operandsOf = [&](linalg::GenericOp g, AffineMap loops, bool withInits) {
      SmallVector<std::pair<Value, AffineMap>> ops;
      for (OpOperand *in : g.getDpsInputOperands())
        ops.push_back({in->get(), g.getMatchingIndexingMap(in).compose(loops)});
      if (withInits)
        for (OpOperand &init : g.getDpsInitsMutable())
          if (g.payloadUsesValueFromOperand(&init))
            ops.push_back({init.get(), g.getMatchingIndexingMap(&init).compose(loops)});
      return ops;
    };
    // Leaves in upstream's order (a fused producer's operands take the place of the operand
    // it computed), found depth first with an explicit stack: chains may be long.
    AffineMap identity = AffineMap::getMultiDimIdentityMap(numLoops, ctx);
    {
      SmallVector<std::pair<Value, AffineMap>> stack(
          llvm::reverse(operandsOf(root, identity, /*withInits=*/false)));
      DenseSet<std::pair<unsigned, AffineMap>> expanded;
      while (!stack.empty()) {
        auto [v, map] = stack.pop_back_val();
        if (auto inst = instanceOf(v, map)) {
          if (expanded.insert(*inst).second)
            llvm::append_range(stack, llvm::reverse(operandsOf(generics[inst->first],
                                                               inst->second, true)));
          continue;
        }
        leaf(v, map);
      }
    }
    // The scalar that the fused body sees for tensor `v` read at `map` (root loops).
    auto valueOf = [&](Value v, AffineMap map) -> Value {
      if (auto inst = instanceOf(v, map)) {
        auto found = built.find(*inst);
        if (found != built.end())
          return found->second[cast<OpResult>(v).getResultNumber()];
      }
      return leaf(v, map);
    };
    // Clones the body of generic `g` at `loops` (root loops -> g's loops), the block
    // arguments already mapped; returns the yielded values.
    auto cloneBody = [&](linalg::GenericOp g, AffineMap loops, IRMapping &map) {
      Block &gb = g.getRegion().front();
      for (Operation &op : gb.without_terminator()) {
        if (auto idx = dyn_cast<linalg::IndexOp>(op)) {
          map.map(idx.getResult(), indexAt(loops.getResult(idx.getDim())));
          continue;
        }
        b.clone(op, map); // linalg.index is only allowed directly in a linalg body
      }
      SmallVector<Value> yields;
      for (Value y : gb.getTerminator()->getOperands())
        yields.push_back(map.lookupOrDefault(y));
      return yields;
    };

    SmallVector<Instance> instances = decisions[r].instances;
    llvm::stable_sort(instances,
                      [](const Instance &a, const Instance &c) { return a.producer < c.producer; });
    for (const Instance &inst : instances) {
      linalg::GenericOp p = generics[inst.producer];
      Block &pb = p.getRegion().front();
      IRMapping map;
      for (OpOperand *in : p.getDpsInputOperands())
        map.map(pb.getArgument(in->getOperandNumber()),
                valueOf(in->get(), p.getMatchingIndexingMap(in).compose(inst.loops)));
      for (OpOperand &init : p.getDpsInitsMutable())
        if (p.payloadUsesValueFromOperand(&init))
          map.map(pb.getArgument(init.getOperandNumber()),
                  valueOf(init.get(), p.getMatchingIndexingMap(&init).compose(inst.loops)));
      built[{inst.producer, inst.loops}] = cloneBody(p, inst.loops, map);
    }

    Block &rb = root.getRegion().front();
    IRMapping map;
    for (OpOperand *in : root.getDpsInputOperands())
      map.map(rb.getArgument(in->getOperandNumber()),
              valueOf(in->get(), root.getMatchingIndexingMap(in)));
    SmallVector<AffineMap> maps = leafMaps;
    for (OpOperand &init : root.getDpsInitsMutable()) {
      BlockArgument a = rb.getArgument(init.getOperandNumber());
      map.map(a, body->addArgument(a.getType(), a.getLoc()));
      maps.push_back(root.getMatchingIndexingMap(&init));
    }
    SmallVector<Value> yields = cloneBody(root, identity, map);
    linalg::YieldOp::create(b, rb.getTerminator()->getLoc(), yields);

    OpBuilder ob(root);
    auto fused = linalg::GenericOp::create(ob, loc, root->getResultTypes(), leaves,
                                           root.getDpsInits(), maps, root.getIteratorTypesArray());
    fused->setDiscardableAttrs(root->getDiscardableAttrDictionary());
    fused.getRegion().push_back(body.release());
    return fused;
  }

  func::FuncOp fn;
  SmallVector<linalg::GenericOp> generics;
  DenseMap<Operation *, unsigned> index;
  std::vector<Decision> decisions;
};

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
      auto ng = linalg::GenericOp::create(b, g.getLoc(), g.getResultTypes(), ins, ValueRange{acc},
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
    if (getOperation().isExternal())
      return;
    Fusion fusion(getOperation());
    if (!fusion.run())
      return signalPassFailure();
    accumulateInPlace(getOperation());
  }
};
} // namespace
