//===- GraphFuse.cpp - form fusion groups ----------------------------------===//
//
// Greedy fusion into graph.fusion_group ops, one group per future kernel (the groups being
// formed: FusionGroups.h; the sibling merges: HorizontalFusion.cpp). Legality is
// stated by small rules, one function each (the split of TVM's FuseOps op patterns and
// Inductor's can_fuse); each has a name that the pass records when it keeps a producer
// and its consumer in different kernels (the `refusals` attribute, see Passes.td):
//   - single-user        (hasSingleUser): the producer's value is needed by nobody else,
//                        so it never has to be written to memory;
//   - recompute-cost     (recomputeCheaperThanStore): a producer with several users may
//                        still be fused into each of them, recomputed, when that costs less
//                        roofline time (CostModel.h) than storing it once and reading it
//                        back in each consumer; a matmul / conv / reduction is never
//                        recomputed (its output is kept, however many consumers need it);
//   - side-effect-free   (isSideEffectFree): moving the op into a kernel cannot reorder
//                        observable effects;
//   - no-aliasing        (noAliasing): the value is a private temporary of the kernel only
//                        if no other name refers to its memory: see noAliasing below;
//   - iteration-space    (sameIterationSpace): the consumer iterates over exactly the
//                        producer's shape, so the producer is computed once per element;
//   - reduction-in-one-kernel (reductionStaysInOneKernel): a reduced dimension is handled
//                        by one kernel template; two reductions in a row, or a reduction
//                        and a consumer that iterates over what it reduced, are not fused;
//   - template           (templateAbsorbs): the consumer's kernel template can evaluate the
//                        producer in its loads (matmul / conv / pool / scatter templates
//                        read their operands from memory; a row kernel evaluates
//                        elementwise producers of its input row, a reduction kernel those
//                        of its reduce inputs);
//   - single-output      (absorbConsumerDag): a matmul / Gemm epilogue value with several
//                        users still takes them, and their elementwise users, when exactly
//                        one value the added ops compute leaves the kernel (SiLU's
//                        x * sigmoid(x) on a gate projection);
//   - norm-prologue, norm-prologue-cost (normPrologueRefusal): a scale-free RMS norm or
//                        LayerNorm read only as a matmul / Gemm's left operand joins the
//                        GEMM's kernel (the row sums of squares, and of x for a LayerNorm,
//                        in its K loop, r and the mean's correction in its epilogue) where
//                        the target's matmul lowering does it and it pays;
//   - claimed            the producer already belongs to another kernel (anchors grow
//                        first, in program order).
//
// Kinds: "epilogue" (matmul / gemm / conv + elementwise consumers), "softmax" (row kernels:
// softmax, log_softmax, layer_norm with elementwise producers of the row and elementwise
// consumers), "elementwise" (DAGs of elementwise and view ops; independent siblings that
// read a common input are merged, several outputs), "reduction" (sibling reduce ops of one
// input shape and axes with their elementwise producers and consumers, several outputs),
// "window", "attention" (graph.attention, the views that make its operands, elementwise
// consumers), "single" (a scatter, with the elementwise and view ops that compute its
// updates: formScatters).
//
//===----------------------------------------------------------------------===//
#include "ConstantValues.h"
#include "FusionGroups.h"
#include "FusionRules.h"
#include "aicc/Dialect/Graph/IR/SwapPairsView.h"

#include "aicc/Dialect/Graph/Analysis/CostModel.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"


namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHFUSE
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {
using namespace aicc::graph::fusion;

/// Outlines `ops` (in program order, all in one block) into a fusion group placed right
/// before the last op. Results: values of the group used outside it. Ops whose results
/// are still used after the group is built stay (a recomputed producer's other users).
/// `refused` gives, per (consumer op, operand number), the rule that kept that operand's
/// producer out; recorded on the group as `refusals = [{input = i, rule = "..."}]`.
/// `extraInputs` follow the inputs the body reads (rule norm-prologue's column sums).
FusionGroupOp outline(ArrayRef<Operation *> ops, StringRef kind,
                      const DenseMap<std::pair<Operation *, unsigned>, StringRef> &refused,
                      ArrayRef<Value> extraInputs = {}) {
  llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  SmallVector<std::pair<unsigned, StringRef>> refusals;
  for (Operation *op : ops) {
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      Operation *def = v.getDefiningOp();
      if (def && inGroup.count(def))
        continue;
      inputs.insert(v);
      auto it = refused.find({op, use.getOperandNumber()});
      if (it == refused.end())
        continue;
      unsigned idx = inputs.getArrayRef().size() - 1;
      for (auto [i, in] : llvm::enumerate(inputs))
        if (in == v)
          idx = i;
      if (llvm::none_of(refusals, [&](auto &r) { return r.first == idx; }))
        refusals.push_back({idx, it->second});
    }
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !inGroup.count(u); }))
        outputs.push_back(r);
  }
  for (Value v : extraInputs)
    inputs.insert(v);
  Operation *last = ops.back();
  OpBuilder b(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto group = FusionGroupOp::create(b, last->getLoc(), resultTypes, inputs.getArrayRef(), kind);
  if (!refusals.empty()) {
    llvm::sort(refusals, [](auto &x, auto &y) { return x.first < y.first; });
    SmallVector<Attribute> entries;
    for (auto [i, rule] : refusals)
      entries.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("input", b.getI64IntegerAttr(i)),
           b.getNamedAttr("rule", b.getStringAttr(rule))}));
    group->setAttr("refusals", b.getArrayAttr(entries));
  }
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
  YieldOp::create(inner, last->getLoc(), yielded);
  for (auto [v, r] : llvm::zip(outputs, group.getResults()))
    v.replaceAllUsesWith(r);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return group;
}

struct GraphFusePass : public aicc::graph::impl::GraphFuseBase<GraphFusePass>,
                       public FusionGroups {
  using GraphFuseBase::GraphFuseBase;

  HardwareDescription hw;
  /// GPU target: attention groups take only transposes that keep operands block matrices
  /// (gpuAttentionTakes) and no consumers (attentionMmaSyncProblem, TensorCoreRules.h).
  bool gpuAttention = false;
  /// The target chip (rule norm-prologue asks what its matmul lowering does).
  const aicc::ChipInfo *targetChip = nullptr;
  /// Rule norm-prologue: the RMS norm producing `mm`'s left operand, when it joins `mm`'s
  /// kernel as its prologue (normPrologueRefusal, FusionRules.h), else null.
  Operation *normPrologue(Operation *mm) {
    if (!isa<MatMulOp, GemmOp>(mm) || mm->getNumOperands() == 0)
      return nullptr;
    auto norm = mm->getOperand(0).getDefiningOp<LayerNormOp>();
    if (!norm || assigned(norm) || norm->getBlock() != mm->getBlock() ||
        !normPrologueRefusal(norm, mm, *targetChip, hw).empty())
      return nullptr;
    return norm;
  }
  /// Whether attention `op` runs a tensor-core kernel (GPU targets, 16-bit operands: what
  /// graph-recompose-attention formed for them); an f32 attention on a GPU target runs the
  /// cpu template's program (attentionSimtProblem) and is grouped as on the cpu target.
  bool tensorCoreAttention(Operation *op) const {
    auto att = dyn_cast_or_null<AttentionOp>(op);
    return gpuAttention && att &&
           !cast<ShapedType>(att.getQuery().getType()).getElementType().isF32();
  }
  /// The attention op of group `grp` (null when none).
  static Operation *attentionOf(const Group &grp) {
    for (Operation *o : grp.ops)
      if (isa<AttentionOp>(o))
        return o;
    return nullptr;
  }

  /// The rule that keeps producer `p` (result `v`) out of the kernel of `consumer`, which
  /// reads it as operand `idx` (through reshapes when `viaReshape`). Two directions could
  /// have joined them: the consumer growing the producer's chain (an anchor kernel's
  /// elementwise consumers), or the consumer's kernel template absorbing the producer;
  /// the first rule that fails in the applicable direction is the answer.
  StringRef refusal(Operation *p, Value v, Operation *consumer, unsigned idx, bool viaReshape) {
    if (!isSideEffectFree(p) || !isSideEffectFree(consumer))
      return kSideEffectFree;
    if (isa<LayerNormOp>(p) && isa<MatMulOp, GemmOp>(consumer) && idx == 0)
      if (StringRef r = normPrologueRefusal(p, consumer, *targetChip, hw); !r.empty())
        return r;
    if (!noAliasing(v, consumer, viaReshape))
      return kNoAliasing;
    if (!reductionStaysInOneKernel(p, consumer))
      return kReductionInOneKernel;
    Group &pg = groups[groupOf.lookup(p)];
    Group &cg = groups[groupOf.lookup(consumer)];
    Operation *cAnchor = cg.ops.front();
    for (Operation *op : cg.ops)
      if (isRowOp(op) || isa<AttentionOp>(op))
        cAnchor = op;
    if (cg.kind == "reduction")
      for (Operation *op : llvm::reverse(cg.ops))
        if (isReduction(op))
          cAnchor = op; // the first reduce op
    if (cg.kind == "reduction" && isReduction(consumer))
      cAnchor = consumer;
    // Down: p ends (or is in) the chain of an anchor kernel and the consumer is elementwise.
    // A reduction kernel's epilogue chain starts at a reduce op (or its chain), not at a
    // prologue member (those iterate over the reduce input).
    bool pgAnchorKind =
        pg.kind == "epilogue" || pg.kind == "window" || pg.kind == "softmax" ||
        (pg.kind == "attention" && !tensorCoreAttention(attentionOf(pg))) ||
        (pg.kind == "reduction" && (isReduction(p) || llvm::none_of(pg.ops, [&](Operation *o) {
                                      return isReduction(o) && p->isBeforeInBlock(o);
                                    })));
    bool down = pgAnchorKind &&
                !(pg.kind == "softmax" && !isRowOp(p) &&
                  llvm::any_of(pg.ops, [&](Operation *o) {
                    return isRowOp(o) && p->isBeforeInBlock(o);
                  })) &&
                isFusableElementwise(consumer);
    // The chain template loads a consumer's other operands from memory: one computed in
    // the producer's kernel too cannot be read there.
    if (down && llvm::any_of(consumer->getOperands(), [&](Value o) {
          Operation *d = o.getDefiningOp();
          return o != v && d && groupOf.count(d) && groupOf.lookup(d) == groupOf.lookup(p);
        }))
      down = false;
    auto inGroup = [&](Operation *x) { return groupOf.count(x) && &groups[groupOf[x]] == &cg; };
    bool up = templateAbsorbs(cg.kind, cAnchor, consumer, idx, p) &&
              (cg.kind != "attention" || !tensorCoreAttention(cAnchor) ||
               gpuAttentionTakes(cast<AttentionOp>(cAnchor), p, inGroup));
    if (!down && !up)
      return kTemplate;
    // A reduction kernel's prologue iterates over the reduce input (templateAbsorbs checked
    // the producer's shape), not over the consumer's result.
    bool prologue = up && !down && cg.kind == "reduction";
    if (!prologue && !sameIterationSpace(v, consumer))
      return kIterationSpace;
    if (!hasSingleUser(v)) {
      if (!(isFusableElementwise(p) || isView(p)))
        return kSingleUser;
      SmallVector<Operation *> users(v.getUsers().begin(), v.getUsers().end());
      return recomputeCheaperThanStore(p, users, hw) ? kSingleUser : kRecomputeCost;
    }
    return kClaimed;
  }

  /// Phase 1: anchors. matmul / gemm / conv (epilogue), pools (window) and row ops grow
  /// down their chain of elementwise consumers; a row op first takes the elementwise
  /// producers of its row input (loop fusion).
  void formAnchors(Block &top) {
    for (Operation &opRef : top) {
      Operation *op = &opRef;
      if (auto m = dyn_cast<ReduceMaxOp>(op)) {
        if (auto ops = matchLogSumExp(m, [&](Operation *o) { return assigned(o); })) {
          unsigned g = newGroup("softmax");
          for (Operation *o : *ops)
            add(g, o);
        }
        continue;
      }
      if (assigned(op))
        continue;
      // An RMS norm that will be the prologue of the GEMM reading it (rule norm-prologue)
      // joins that GEMM's kernel when the GEMM is reached.
      if (isRowOp(op) && op->hasOneUse())
        if (Operation *mm = *op->getUsers().begin(); normPrologue(mm) == op)
          continue;
      StringRef kind;
      if (isa<MatMulOp, GemmOp, ConvOp>(op))
        kind = "epilogue";
      else if (isa<MaxPoolOp, AvgPoolOp>(op))
        kind = "window";
      else if (isRowOp(op))
        kind = "softmax"; // row kernels: the reduced dims on chip
      else if (isa<AttentionOp>(op))
        kind = "attention";
      else
        continue;
      unsigned g = newGroup(kind);
      if (isRowOp(op))
        absorbRowProducers(g, op);
      if (isa<AttentionOp>(op))
        absorbOperandViews(g, op);
      if (Operation *norm = normPrologue(op))
        add(g, norm);
      add(g, op);
      if (!tensorCoreAttention(op))
        absorbConsumerChain(g, op);
      else if (TransposeOp t = gpuAttentionHeadMerge(op); t && !assigned(t))
        add(g, t); // stored in place
    }
  }

  /// Attention: the views that make its operands join group `g` (attentionOperandViews,
  /// FusionRules.h: cpu target; GPU targets: gpuAttentionViews).
  void absorbOperandViews(unsigned g, Operation *op) {
    auto notAssigned = [&](Operation *d) { return !assigned(d); };
    for (Operation *d : tensorCoreAttention(op)
                            ? gpuAttentionViews(cast<AttentionOp>(op), notAssigned)
                            : attentionOperandViews(op, notAssigned))
      add(g, d);
  }

  /// Epilogue: single-user elementwise consumers of `op`'s result over its shape join group
  /// `g`; templates load their other operands, so none may be computed in this kernel.
  void absorbConsumerChain(unsigned g, Operation *op) {
    Value tail = op->getResult(0);
    bool dag = isa<MatMulOp, GemmOp>(op);
    while (true) {
      if (!tail.hasOneUse()) {
        // Several users: the epilogue DAG rule (matmul / Gemm anchors), first through the
        // column pairs of a gated projection's product (graph-merge-sibling-matmuls).
        if (dag) {
          // Once per kernel, on the product's own [.., N] (a matrix-vector product's last
          // dim is M; a value after the pairs is [.., N / 2]).
          auto mm = dyn_cast<MatMulOp>(op);
          bool productShape =
              tail.getType() == op->getResult(0).getType() &&
              !(mm && cast<ShapedType>(mm.getRhs().getType()).getRank() < 2);
          SmallVector<Operation *> pairs =
              productShape ? columnPairSlices(tail) : SmallVector<Operation *>{};
          // Or the swap of its column pairs (graph-rotary-into-projection's partner of each
          // rotated column), on the product's own [.., N] too.
          if (pairs.empty() && productShape)
            for (Operation *u : tail.getUsers())
              if (auto swap = matchSwapPairsView(tail, u); swap && !assigned(u)) {
                pairs.assign(swap->begin(), swap->end());
                break;
              }
          if ((!pairs.empty() && absorbConsumerDag(g, op, tail, pairs)) ||
              absorbConsumerDag(g, op, tail))
            continue;
        }
        break;
      }
      Operation *user = *tail.getUsers().begin();
      // A reduction's epilogue continues through a reshape (the reduction template keeps
      // the element's linear index: the Linear layers' bias after graph-matvec's
      // [N, 1, K] x [1, M, K] products, reshaped back to [B, S, M]).
      Value from = tail;
      auto via = dyn_cast<ReshapeOp>(user);
      if (via && groups[g].kind == "reduction" && !assigned(via) &&
          via->getBlock() == op->getBlock() && via.getResult().hasOneUse() &&
          noAliasing(tail, via, false)) {
        from = via.getResult();
        user = *from.getUsers().begin();
      } else {
        via = {};
      }
      bool readsMember = llvm::any_of(user->getOperands(), [&](Value o) {
        Operation *d = o.getDefiningOp();
        return o != from && d && groupOf.count(d) && groupOf.lookup(d) == g;
      });
      if (readsMember || assigned(user) || user->getBlock() != op->getBlock() ||
          !isFusableElementwise(user) || !isSideEffectFree(user) ||
          !noAliasing(from, user, false) || !sameIterationSpace(from, user))
        break;
      if (via)
        add(g, via);
      add(g, user);
      tail = user->getResult(0);
    }
  }

  /// Column pairs (rule column-pairs, an exception to no-aliasing): when the matmul
  /// epilogue value `v` is read only by the two slices of step 2 along its last dim that
  /// start at 0 and 1 (graph-merge-sibling-matmuls' gated pair), those slices; else none.
  /// The matmul template reads both in registers (tile.swap_pairs), never storing `v`.
  SmallVector<Operation *> columnPairSlices(Value v) {
    auto t = cast<ShapedType>(v.getType());
    if (!t.hasStaticShape() || t.getRank() < 1 || t.getShape().back() % 2 ||
        llvm::range_size(v.getUsers()) != 2)
      return {};
    SmallVector<Operation *> pairs(2);
    for (Operation *u : v.getUsers()) {
      auto sl = dyn_cast<SliceOp>(u);
      if (!sl || assigned(sl) || sl->getBlock() != v.getParentBlock())
        return {};
      ArrayRef<int64_t> starts = sl.getStarts(), steps = sl.getSteps();
      auto rt = cast<ShapedType>(sl.getType());
      int64_t last = t.getRank() - 1;
      for (int64_t d = 0; d < last; ++d)
        if (starts[d] != 0 || steps[d] != 1 || rt.getDimSize(d) != t.getDimSize(d))
          return {};
      if (steps[last] != 2 || (starts[last] != 0 && starts[last] != 1) ||
          rt.getDimSize(last) * 2 != t.getDimSize(last) || pairs[starts[last]])
        return {};
      pairs[starts[last]] = u;
    }
    return pairs;
  }

  /// Most ops one application of the epilogue DAG rule adds.
  static constexpr unsigned kMaxEpilogueDagOps = 8;

  /// Epilogue DAG (rule single-output): the epilogue's `tail` has several users. Its
  /// elementwise users, and theirs, join group `g` when in the end exactly one value the
  /// added ops compute is read outside the kernel, and `tail` is not: SiLU's x *
  /// sigmoid(x) after a matmul (SwiGLU's gate projection), x * (1 + tanh(...)) forms of
  /// GELU. The matmul template evaluates epilogue ops in order over the tiles computed so
  /// far (applyEpilogue), loading only the values defined outside, which must come before
  /// the anchor `anchor` (no cycle through an op the kernel does not hold). On success
  /// `tail` is that one value; on failure nothing changed.
  bool absorbConsumerDag(unsigned g, Operation *anchor, Value &tail,
                         ArrayRef<Operation *> seeds = {}) {
    llvm::SetVector<Operation *> added(seeds.begin(), seeds.end());
    // The shape the added ops compute: the tail's, the column pairs' [.., N / 2] or the
    // swapped pairs' [.., N] (the last seed's).
    ArrayRef<int64_t> space = cast<ShapedType>(
                                  (seeds.empty() ? tail : seeds.back()->getResult(0)).getType())
                                  .getShape();
    // Views of constants the added ops read (the rotation's tables repeated over the heads:
    // graph.tile), taken into the kernel: its loads read the constant through them. A
    // chain other ops read too (one table's view shared by every layer after CSE) is
    // cloned for this kernel: views cost nothing, and each kernel needs its own.
    llvm::MapVector<Operation *, SmallVector<Operation *>> constantViews; // head -> chain
    auto constantView = [&](Operation *d) {
      Operation *head = d;
      SmallVector<Operation *> chain;
      while (d && (isView(d) || isa<ReshapeOp>(d)) && !assigned(d) && d->getNumOperands() == 1 &&
             d->getBlock() == anchor->getBlock()) {
        chain.push_back(d);
        d = d->getOperand(0).getDefiningOp();
      }
      if (chain.empty() || !d || !isa<ConstantOp>(d))
        return false;
      constantViews[head] = SmallVector<Operation *>(chain.rbegin(), chain.rend());
      return true;
    };
    // The chains of constantViews as the kernel's own ops: those read only within the
    // kernel as they are, the others cloned after their head for the added ops' uses.
    auto takeConstantViews = [&](SmallVectorImpl<Operation *> &ordered) {
      for (auto &entry : constantViews) {
        Operation *head = entry.first;
        SmallVector<Operation *> &chain = entry.second;
        bool own = llvm::all_of(chain, [&](Operation *c) {
          return llvm::all_of(c->getUsers(), [&](Operation *u) {
            return added.count(u) || llvm::is_contained(chain, u);
          });
        });
        if (own) {
          ordered.append(chain.begin(), chain.end());
          continue;
        }
        OpBuilder b(head->getContext());
        b.setInsertionPointAfter(head);
        IRMapping map;
        Operation *copy = nullptr;
        for (Operation *c : chain) {
          copy = b.clone(*c, map);
          ordered.push_back(copy);
        }
        head->getResult(0).replaceUsesWithIf(copy->getResult(0), [&](OpOperand &use) {
          return added.count(use.getOwner()) > 0;
        });
      }
    };
    auto inKernel = [&](Value v) {
      return v == tail || (v.getDefiningOp() && added.count(v.getDefiningOp()));
    };
    // A user may join: an elementwise op of the tail's shape, in no kernel yet.
    auto mayJoin = [&](Operation *user, Value from) {
      return !assigned(user) && user->getBlock() == anchor->getBlock() &&
             !user->use_empty() && // a dead op would not be placed by its users
             isFusableElementwise(user) && isSideEffectFree(user) &&
             noAliasing(from, user, false) && user->getNumResults() == 1 &&
             cast<ShapedType>(user->getResult(0).getType()).getShape() == space;
    };
    // Once grown: every operand of an added op is computed in the kernel, or is read from
    // memory (the template loads it) and surely computed before this kernel runs: a
    // function argument, a constant, or the result of a kernel already formed whose ops
    // all come before the anchor. (A producer no kernel holds yet may still be claimed by
    // a later one, a row kernel's prologue, and placed after this one.)
    auto operandsAvailable = [&](Operation *op) {
      return llvm::all_of(op->getOperands(), [&](Value o) {
        if (inKernel(o))
          return true;
        Operation *d = o.getDefiningOp();
        if (!d || isa<ConstantOp>(d) || constantView(d))
          return true;
        if (!d->isBeforeInBlock(anchor))
          return false;
        if (!assigned(d) || groupOf.lookup(d) == g)
          return false;
        return llvm::all_of(groups[groupOf.lookup(d)].ops,
                            [&](Operation *m) { return m->isBeforeInBlock(anchor); });
      });
    };
    while (true) {
      // The values the kernel computes that something outside it reads.
      SmallVector<Value> escaping;
      auto escapes = [&](Value v) {
        return llvm::any_of(v.getUsers(), [&](Operation *u) { return !added.count(u); });
      };
      if (escapes(tail))
        escaping.push_back(tail);
      for (Operation *o : added)
        if (escapes(o->getResult(0)))
          escaping.push_back(o->getResult(0));
      if (escaping.size() == 1 && escaping.front() != tail &&
          !llvm::is_contained(seeds, escaping.front().getDefiningOp())) {
        if (!llvm::all_of(added, operandsAvailable))
          return false;
        SmallVector<Operation *> ordered(added.begin(), added.end());
        takeConstantViews(ordered);
        llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
        for (Operation *o : ordered)
          add(g, o);
        tail = escaping.front();
        return true;
      }
      // Grow by the outside users of escaping values that may join; the rest stay outside
      // (the value they read then leaves the kernel: fine when it is the last one).
      SmallVector<Operation *> users;
      for (Value v : escaping)
        for (Operation *u : v.getUsers())
          if (!added.count(u) && !llvm::is_contained(users, u) && mayJoin(u, v))
            users.push_back(u);
      if (users.empty() || added.size() + users.size() > kMaxEpilogueDagOps)
        return false;
      added.insert(users.begin(), users.end());
    }
  }

  /// Loop fusion: elementwise producers of the row op's input (and their elementwise
  /// producers) join the row kernel, which evaluates them as it loads the row. Every such
  /// producer must have the row's shape and only users inside the kernel, except the row
  /// input itself, which the row template may also write as a second output (a residual
  /// stream: y = layer_norm(x + r) with x + r used again later).
  void absorbRowProducers(unsigned g, Operation *row) {
    llvm::SetVector<Operation *> members;
    llvm::SmallPtrSet<Operation *, 8> inKernel{row};
    ArrayRef<int64_t> rowShape = cast<ShapedType>(row->getOperand(0).getType()).getShape();
    SmallVector<std::pair<Operation *, unsigned>> work{{row, 0}};
    while (!work.empty()) {
      auto [consumer, idx] = work.pop_back_val();
      Value v = consumer->getOperand(idx);
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != row->getBlock() || assigned(def) || members.count(def) ||
          !isFusableElementwise(def) || !isSideEffectFree(def) ||
          cast<ShapedType>(v.getType()).getShape() != rowShape)
        continue;
      bool direct = consumer == row;
      // A deeper producer's value never leaves the kernel; the row input may (and must not
      // be a graph output read by the caller under its own buffer: noAliasing).
      if (!noAliasing(v, row, false))
        continue;
      if (!direct && !llvm::all_of(v.getUsers(), [&](Operation *u) { return inKernel.count(u); }))
        continue;
      // The row input read outside the kernel becomes its second result, available only
      // once the row kernel ran: every other reader must come after the row op (a reader
      // before it would be placed ahead of the kernel that now computes its operand).
      if (direct && !llvm::all_of(v.getUsers(), [&](Operation *u) {
            return u == row || row->isBeforeInBlock(u);
          }))
        continue;
      members.insert(def);
      inKernel.insert(def);
      for (unsigned i = 0; i < def->getNumOperands(); ++i)
        work.push_back({def, i});
    }
    SmallVector<Operation *> ordered(members.begin(), members.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : ordered)
      add(g, op);
  }

  /// The reduction template (buildReduction / buildColumnReduction) holds reduce op `red`:
  /// a float input, i32 offsets.
  static bool reductionTemplateHolds(Operation *red) {
    auto t = cast<RankedTensorType>(red->getOperand(0).getType());
    return t.hasStaticShape() && isa<FloatType>(t.getElementType()) &&
           t.getNumElements() < (int64_t(1) << 31);
  }

  /// Loop fusion into a reduction kernel: elementwise producers of the reduce input (and
  /// their elementwise producers), of the reduce input's shape, whose users are all in the
  /// kernel (rule single-user; a producer with other users is a kernel of its own, or is
  /// recomputed by duplicateCheapProducers' rule recompute-cost when its users are all
  /// elementwise). The template evaluates them per loaded element.
  void absorbReduceProducers(unsigned g, Operation *red) {
    llvm::SetVector<Operation *> members;
    llvm::SmallPtrSet<Operation *, 8> inKernel{red};
    ArrayRef<int64_t> inShape = cast<ShapedType>(red->getOperand(0).getType()).getShape();
    // (value, read through a view): behind a remap view (transpose, reshape, slice) only
    // more views join, read by index arithmetic on a kernel input (loadView): the head
    // merge before an out-projection's matvec.
    SmallVector<std::pair<Value, bool>> work{{red->getOperand(0), false}};
    auto leadsToRemap = [&](Value x) {
      while (auto r = x.getDefiningOp<ReshapeOp>())
        x = r.getInput();
      Operation *d = x.getDefiningOp();
      return d && isa<TransposeOp, SliceOp>(d) && !assigned(d) && d->getBlock() == red->getBlock();
    };
    while (!work.empty()) {
      // Not a structured binding: lambdas below capture v (C++17).
      std::pair<Value, bool> item = work.pop_back_val();
      Value v = item.first;
      bool viewed = item.second;
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != red->getBlock() || assigned(def) || members.count(def) ||
          !isSideEffectFree(def))
        continue;
      bool view = isRemapView(def);
      // Reshapes alone stay buffer views between kernels (reading through them costs index
      // arithmetic); they join when a transpose or slice follows below them.
      if (view && isa<ReshapeOp>(def) && !leadsToRemap(v))
        continue;
      if (view ? !llvm::all_of(v.getUsers(), [&](Operation *u) { return inKernel.count(u); })
               : (viewed || !isFusableElementwise(def) ||
                  cast<ShapedType>(v.getType()).getShape() != inShape ||
                  !llvm::all_of(v.getUsers(), [&](Operation *u) {
                    return inKernel.count(u) && noAliasing(v, u, false);
                  })))
        continue;
      members.insert(def);
      inKernel.insert(def);
      for (Value o : def->getOperands())
        work.push_back({o, viewed || view});
    }
    SmallVector<Operation *> ordered(members.begin(), members.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    for (Operation *op : ordered)
      add(g, op);
  }

  /// Phase 1b: reduction kernels. Each reduce op the template holds takes its elementwise
  /// producers (prologue) and its chain of elementwise consumers over the output shape
  /// (epilogue, rule single-user as for the anchors); then sibling reductions (same input
  /// shape, axes and keepdims, any of sum / mean / max / min / prod) that read a common
  /// input of the reduce input's size and do not depend on each other become one kernel
  /// that reads that input once (horizontal fusion, mean and variance in one pass).
  void formReductions(Block &top) {
    SmallVector<unsigned> formed;
    for (Operation &opRef : top) {
      Operation *red = &opRef;
      if (assigned(red) || !isReduction(red) || !reductionTemplateHolds(red))
        continue;
      unsigned g = newGroup("reduction");
      formed.push_back(g);
      absorbReduceProducers(g, red);
      add(g, red);
      absorbConsumerChain(g, red);
    }
    mergeSiblingReductions(*this, formed);
  }

  /// Recompute: a cheap injective producer with several users, all of them unassigned
  /// elementwise ops of its iteration space (future elementwise-group members, which
  /// absorb producers), is cloned once per user when recomputeCheaperThanStore says so;
  /// each clone then has one user and fuses into it.
  void duplicateCheapProducers(Block &top) {
    SmallVector<Operation *> ops;
    for (Operation &op : top)
      ops.push_back(&op);
    for (Operation *p : llvm::reverse(ops)) {
      if (assigned(p) || p->getNumResults() != 1 ||
          !(isFusableElementwise(p) || isView(p) || isa<ReshapeOp>(p)) || !isSideEffectFree(p))
        continue;
      Value v = p->getResult(0);
      SmallVector<Operation *> users;
      for (Operation *u : v.getUsers())
        if (!llvm::is_contained(users, u))
          users.push_back(u);
      if (users.size() < 2 ||
          !llvm::all_of(users, [&](Operation *u) {
            return !assigned(u) && isSideEffectFree(u) &&
                   ((isFusableElementwise(u) && !isa<ReshapeOp>(p) && noAliasing(v, u, false) &&
                     sameIterationSpace(v, u)) ||
                    computedView(v, p, u));
          }) ||
          !recomputeCheaperThanStore(p, users, hw))
        continue;
      for (Operation *u : llvm::drop_begin(users)) {
        OpBuilder b(u);
        Operation *copy = b.clone(*p);
        u->replaceUsesOfWith(v, copy->getResult(0));
      }
    }
  }

  /// Phase 2: elementwise DAGs. From each unassigned root (walking backwards), absorb
  /// producers the rules allow.
  void formElementwise(Block &top) {
    SmallVector<Operation *> allOps;
    for (Operation &op : top)
      allOps.push_back(&op);
    auto injective = [](Operation *op) { return isElementwise(op) || isView(op); };
    for (Operation *root : llvm::reverse(allOps)) {
      if (assigned(root) || !injective(root))
        continue;
      unsigned g = newGroup("elementwise");
      llvm::SetVector<Operation *> members;
      members.insert(root);
      groupOf[root] = g;
      for (size_t i = 0; i < members.size(); ++i) {
        Operation *consumer = members[i];
        for (Value v : consumer->getOperands()) {
          Operation *def = v.getDefiningOp();
          // A reshape joins only as a producer (a reshape of another kernel's result stays
          // a view of that buffer between kernels).
          if (!def || assigned(def) || !(injective(def) || isa<ReshapeOp>(def)) ||
              def->getBlock() != root->getBlock() || !isSideEffectFree(def) || !hasSingleUser(v))
            continue;
          // Elementwise consumers take producers of their own shape (no recompute under
          // broadcasting): the root's, or, behind a remap view, the shape the view reads.
          bool sameSpace = sameIterationSpace(def->getResult(0), root) ||
                           (!isView(consumer) && sameIterationSpace(def->getResult(0), consumer));
          if (!viewOfView(v, def, consumer) && !computedView(v, def, consumer) &&
              (!(templateAbsorbs("elementwise", root, consumer, 0, def) || isa<ReshapeOp>(def)) ||
               !noAliasing(v, consumer, false) || !sameSpace))
            continue;
          members.insert(def);
          groupOf[def] = g;
        }
      }
      SmallVector<Operation *> ordered(members.begin(), members.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      groups[g].ops = ordered;
    }
  }

  void runOnOperation() override {
    // The option, else the module's aicc.hardware (include/aicc/Target/TargetAttr.h).
    const aicc::ChipInfo *row = aicc::resolveChip(getOperation(), aicc::ChipRole::Hardware,
                                                  hardware, "h200", getArgument());
    if (!row)
      return signalPassFailure();
    hw = *row;
    const aicc::ChipInfo *target =
        aicc::resolveChip(getOperation(), aicc::ChipRole::Target, "", "cpu", getArgument());
    if (!target)
      return signalPassFailure();
    gpuAttention = target->isGPU;
    targetChip = target;
    groups.clear();
    groupOf.clear();
    func::FuncOp fn = getOperation();
    if (fn.isExternal()) // a declaration: nothing to fuse
      return;
    // Only ops directly in the function body: ops already inside a fusion group stay put,
    // so the pass is idempotent.
    Block &top = fn.getBody().front();

    formAnchors(top);
    formReductions(top);
    duplicateCheapProducers(top);
    formScatters(*this, top);
    formElementwise(top);
    mergeSiblings(*this);

    // Reductions the template cannot hold (integer inputs) are kernels of their own
    // (and fail there, loudly).
    for (Operation &opRef : top) {
      Operation *op = &opRef;
      if (!assigned(op) && isReduction(op)) {
        unsigned g = newGroup("reduction");
        add(g, op);
      }
    }

    // Explain every producer -> consumer edge between two kernels (looking through
    // reshapes, which are views of a buffer, not kernels).
    DenseMap<std::pair<Operation *, unsigned>, StringRef> refused;
    for (auto [op, g] : groupOf) {
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        bool viaReshape = false;
        while (auto r = v.getDefiningOp<ReshapeOp>()) {
          v = r.getInput();
          viaReshape = true;
        }
        Operation *p = v.getDefiningOp();
        // An op with side effects stays outside every kernel.
        if (p && !groupOf.count(p) && !isSideEffectFree(p)) {
          refused[{op, use.getOperandNumber()}] = kSideEffectFree;
          continue;
        }
        if (!p || !groupOf.count(p) || groupOf.lookup(p) == g)
          continue;
        refused[{op, use.getOperandNumber()}] =
            refusal(p, v, op, use.getOperandNumber(), viaReshape);
      }
    }

    for (Group &g : groups)
      if (!g.ops.empty()) {
        SmallVector<Value> extra;
        if (Value c = layerNormColumnSums(g.ops))
          extra.push_back(c);
        outline(g.ops, g.kind, refused, extra);
      }
  }

  /// Rule norm-prologue with a LayerNorm (mean subtracted): the GEMM computes
  /// r (x @ B - mu c) and reads c, the column sums of its constant 2-D B ([N], B's element
  /// type widened to f32, each sum in f64 over the elements as stored, rounded once), as its
  /// group's last input (after those the body reads; MatmulTemplate.cpp). Null for any
  /// other group, or (not expected after the rule) when B cannot be read.
  Value layerNormColumnSums(ArrayRef<Operation *> ops) {
    auto it = llvm::find_if(ops, [](Operation *op) { return isa<LayerNormOp>(op); });
    auto norm = it == ops.end() ? LayerNormOp() : cast<LayerNormOp>(*it);
    if (!norm || norm.getRms() || !norm->hasOneUse())
      return Value();
    Operation *mm = *norm->getUsers().begin();
    if (!isa<MatMulOp, GemmOp>(mm) || !llvm::is_contained(ops, mm) ||
        mm->getOperand(0) != norm.getResult())
      return Value();
    Value bV = mm->getOperand(1);
    auto bt = cast<RankedTensorType>(bV.getType());
    auto w = floatConstantValues(bV);
    if (!w || bt.getRank() != 2)
      return Value();
    auto gemm = dyn_cast<GemmOp>(mm);
    bool transB = gemm && gemm.getTransB();
    int64_t rows = bt.getDimSize(0), cols = bt.getDimSize(1);
    int64_t N = transB ? rows : cols;
    std::vector<double> c(N, 0.0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        c[transB ? i : j] += (*w)[i * cols + j];
    auto ct = RankedTensorType::get({N}, Float32Type::get(mm->getContext()));
    OpBuilder b(norm);
    return ConstantOp::create(b, mm->getLoc(), ct, roundedFloatAttr(ct, c));
  }
};
} // namespace
