//===- FusionRules.cpp - graph-fuse's legality rules ---------------------------===//
#include "FusionRules.h"

#include "aicc/Dialect/Graph/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace aicc::graph;
using namespace aicc::graph::fusion;

bool aicc::graph::fusion::isFusableElementwise(Operation *op) {
  return isElementwise(op) && !isa<TriluOp>(op) && op->getNumResults() == 1;
}

bool aicc::graph::fusion::noAliasing(Value v, Operation *consumer, bool throughReshape) {
  if (throughReshape || isView(consumer))
    return false;
  return llvm::none_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

bool aicc::graph::fusion::viewOfView(Value v, Operation *producer, Operation *consumer) {
  return isView(producer) && isView(consumer) &&
         llvm::none_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

bool aicc::graph::fusion::computedView(Value v, Operation *producer, Operation *consumer) {
  return isRemapView(consumer) &&
         (isFusableElementwise(producer) || isView(producer) || isa<ReshapeOp>(producer)) &&
         llvm::none_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

bool aicc::graph::fusion::sameIterationSpace(Value producer, Operation *consumer) {
  return cast<ShapedType>(producer.getType()).getShape() ==
         cast<ShapedType>(consumer->getResult(0).getType()).getShape();
}

bool aicc::graph::fusion::reductionStaysInOneKernel(Operation *producer, Operation *consumer) {
  bool pReduces = isReduction(producer) || isRowOp(producer);
  bool cReduces = isReduction(consumer) || isRowOp(consumer);
  if (pReduces && cReduces)
    return false;
  if (isReduction(producer) && consumer->getNumResults() == 1 &&
      !sameIterationSpace(producer->getResult(0), consumer))
    return false;
  return true;
}

bool aicc::graph::fusion::templateAbsorbs(StringRef kind, Operation *anchor, Operation *consumer,
                                          unsigned operandIdx, Operation *producer) {
  if (kind == "elementwise")
    return (isElementwise(producer) || isView(producer)) && !isView(consumer);
  if (kind == "softmax") {
    if (!isFusableElementwise(producer))
      return false;
    if (consumer == anchor)
      return operandIdx == 0;
    // A producer of the row's producers (consumer is before the anchor).
    return consumer->isBeforeInBlock(anchor);
  }
  if (kind == "attention")
    // The views that make Q, K^T, V (and the bias), and views of those.
    return isAttentionOperandView(producer) &&
           (consumer == anchor ||
            (isAttentionOperandView(consumer) && consumer->isBeforeInBlock(anchor)));
  if (kind == "reduction") {
    // Prologue: elementwise producers of a reduce op's input (or of those producers),
    // evaluated per loaded element; broadcast operands (a bias) are loaded.
    auto inShape = cast<ShapedType>(anchor->getOperand(0).getType()).getShape();
    return isFusableElementwise(producer) &&
           cast<ShapedType>(producer->getResult(0).getType()).getShape() == inShape &&
           (isReduction(consumer) ||
            (isFusableElementwise(consumer) &&
             cast<ShapedType>(consumer->getResult(0).getType()).getShape() == inShape &&
             consumer->isBeforeInBlock(anchor)));
  }
  return false;
}

bool aicc::graph::fusion::recomputeCheaperThanStore(Operation *p, ArrayRef<Operation *> users,
                                                    const HardwareDescription &hw) {
  if (!(isFusableElementwise(p) || isView(p) || isa<ReshapeOp>(p)) || users.size() < 2 ||
      users.size() > kMaxRecomputeUsers)
    return false;
  double bw = hw.hbmBytesPerSecond;
  Type elem = getElementTypeOrSelf(p->getResult(0).getType());
  double peak = hw.peakFlops(elem, /*tensorCore=*/false);
  llvm::SetVector<Value> ins(p->getOperands().begin(), p->getOperands().end());
  double pBytes = tensorBytes(p->getResult(0).getType());
  // What evaluating p reads of an input: all of it, except that a view reads at most its
  // own elements' worth (a slice of a merged q / k / v product reads its columns only).
  bool view = isView(p) || isa<ReshapeOp>(p);
  auto readBytes = [&](Value v) {
    double b = tensorBytes(v.getType());
    return view ? std::min(b, pBytes) : b;
  };
  double inBytes = 0, extra = 0;
  for (Value v : ins)
    inBytes += readBytes(v);
  for (Operation *u : users)
    for (Value v : ins)
      if (!llvm::is_contained(u->getOperands(), v))
        extra += readBytes(v);
  double k = double(users.size());
  double recompute = extra / bw + (k - 1) * opFlops(p) / peak;
  double store = (inBytes + (1 + k) * pBytes) / bw;
  return recompute < store;
}

// ReduceLogSumExp as one row kernel (FusionRules.h says which chains).
std::optional<SmallVector<Operation *>>
aicc::graph::fusion::matchLogSumExp(ReduceMaxOp mx, function_ref<bool(Operation *)> assigned) {
  auto single = [&](Value v) -> Operation * {
    return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
  };
  if (!mx.getKeepdims())
    return std::nullopt;
  Value m = mx;
  auto clip = dyn_cast_or_null<ClipOp>(single(mx));
  if (clip)
    m = clip;
  if (std::distance(m.getUsers().begin(), m.getUsers().end()) != 2)
    return std::nullopt;
  SubOp sub;
  Operation *mUse = nullptr; // the add, or the reshape feeding it
  for (Operation *u : m.getUsers()) {
    if (auto s = dyn_cast<SubOp>(u); s && s.getLhs() == mx.getInput() && s.getRhs() == m)
      sub = s;
    else
      mUse = u;
  }
  if (!sub || !mUse)
    return std::nullopt;
  auto exp = dyn_cast_or_null<ExpOp>(single(sub));
  auto sum = exp ? dyn_cast_or_null<ReduceSumOp>(single(exp)) : ReduceSumOp();
  if (!sum || sum.getAxes() != mx.getAxes())
    return std::nullopt;
  auto log = dyn_cast_or_null<LogOp>(single(sum));
  auto add = log ? dyn_cast_or_null<AddOp>(single(log)) : AddOp();
  if (!add || add.getType() != log.getType())
    return std::nullopt;
  SmallVector<Operation *> ops{mx, sub, exp, sum, log};
  if (clip)
    ops.push_back(clip);
  Value mIn = m;
  if (auto r = dyn_cast<ReshapeOp>(mUse)) {
    if (single(r) != add.getOperation())
      return std::nullopt;
    ops.push_back(r);
    mIn = r;
  } else if (mUse != add.getOperation()) {
    return std::nullopt;
  }
  if (!((add.getLhs() == log && add.getRhs() == mIn) ||
        (add.getRhs() == log && add.getLhs() == mIn)))
    return std::nullopt;
  ops.push_back(add);
  if (llvm::any_of(ops, [&](Operation *o) { return assigned(o); }))
    return std::nullopt;
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

/// Ops an attention group may take as views: not taken by another kernel (`free`), in the
/// attention's block, side-effect free, not read by the function's return.
static bool viewCandidate(Operation *att, Operation *d,
                          llvm::function_ref<bool(Operation *)> free) {
  return free(d) && d->getBlock() == att->getBlock() && isSideEffectFree(d) &&
         llvm::none_of(d->getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
}

SmallVector<Operation *>
aicc::graph::fusion::attentionOperandViews(Operation *att,
                                           llvm::function_ref<bool(Operation *)> free) {
  // (value, the op that reads it as operand `idx`) pairs still to look at.
  SmallVector<std::tuple<Value, Operation *, unsigned>> work;
  for (auto [i, v] : llvm::enumerate(att->getOperands()))
    work.push_back({v, att, (unsigned)i});
  SmallVector<Operation *> views;
  while (!work.empty()) {
    auto [v, consumer, idx] = work.pop_back_val();
    Operation *d = v.getDefiningOp();
    if (!d || !viewCandidate(att, d, free) || !hasSingleUser(v) ||
        !templateAbsorbs("attention", att, consumer, idx, d))
      continue;
    views.push_back(d);
    work.push_back({d->getOperand(0), d, 0});
  }
  llvm::sort(views, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return views;
}

SmallVector<Operation *>
aicc::graph::fusion::gpuAttentionViews(AttentionOp att,
                                       llvm::function_ref<bool(Operation *)> free) {
  auto eligible = [&](Operation *d) { return viewCandidate(att, d, free); };
  using OpSet = llvm::SmallSetVector<Operation *, 16>;
  // Each operand's view ops through `follow`; a view's root is read from memory, so it is
  // never one of the ops taken (`members`).
  std::array<OpSet, 3> opsOf;
  auto collect = [&](llvm::function_ref<bool(Operation *)> follow, const OpSet &members) {
    OpSet ops;
    for (unsigned i = 0; i < 3; ++i) {
      opsOf[i].clear();
      auto view = attentionOperandView(att->getOperand(i), i, follow, [&](Value root) {
        return !members.contains(root.getDefiningOp());
      });
      if (view)
        opsOf[i].insert(view->ops.begin(), view->ops.end());
      ops.insert(opsOf[i].begin(), opsOf[i].end());
    }
    return ops;
  };
  OpSet taken = collect(eligible, OpSet());
  while (true) {
    // A view read outside the kernel would still have to be stored: leave it (and what
    // only it reads) to its own kernel. So must a view the attention reads directly as an
    // operand whose own chain does not include it (q's chain through it, k reading it
    // whole). `next` only shrinks, so this ends.
    OpSet kept;
    for (Operation *d : taken) {
      bool inKernel = llvm::all_of(d->getUses(), [&](OpOperand &u) {
        if (u.getOwner() == att)
          return u.getOperandNumber() < 3 && opsOf[u.getOperandNumber()].contains(d);
        return taken.contains(u.getOwner());
      });
      if (inKernel)
        kept.insert(d);
    }
    OpSet next = collect([&](Operation *d) { return kept.contains(d); }, kept);
    if (next.size() == taken.size())
      break;
    taken = std::move(next);
  }
  SmallVector<Operation *> ops(taken.begin(), taken.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

StringRef aicc::graph::fusion::normPrologueRefusal(Operation *normOp, Operation *mm,
                                                   const aicc::ChipInfo &target,
                                                   const HardwareDescription &hw) {
  auto norm = dyn_cast<LayerNormOp>(normOp);
  if (!norm || !isa<MatMulOp, GemmOp>(mm))
    return kNormPrologue;
  auto xt = cast<RankedTensorType>(norm.getInput().getType());
  Value n = norm.getResult();
  if (norm.getScale() || norm.getBias() || !xt.hasStaticShape() || xt.getRank() < 2 ||
      static_cast<int64_t>(norm.getAxis()) != xt.getRank() - 1 || !n.hasOneUse() ||
      *n.getUsers().begin() != mm || mm->getOperand(0) != n ||
      llvm::count(mm->getOperands(), n) != 1 || !isSideEffectFree(mm))
    return kNormPrologue;
  auto gemm = dyn_cast<GemmOp>(mm);
  if (gemm && gemm.getTransA())
    return kNormPrologue;
  auto bt = cast<RankedTensorType>(mm->getOperand(1).getType());
  if (!bt.hasStaticShape() || bt.getRank() < 2)
    return kNormPrologue;
  // LayerNorm: the GEMM subtracts mu * c, c the column sums of a constant 2-D B.
  bool mean = !norm.getRms();
  if (mean && (bt.getRank() != 2 || !matchPattern(mm->getOperand(1), m_Constant())))
    return kNormPrologue;
  Type elem = xt.getElementType();
  if (target.isGPU &&
      (!(elem.isF16() || elem.isBF16()) ||
       !(target.has(aicc::ChipFeature::MmaSync) || target.has(aicc::ChipFeature::Wgmma))))
    return kNormPrologue;
  if (!isa<FloatType>(elem))
    return kNormPrologue;
  // Cost (roofline seconds).
  int64_t N = bt.getDimSize(gemm && gemm.getTransB() ? bt.getRank() - 2 : bt.getRank() - 1);
  double tiles = double((N + kNormPrologueBlockN - 1) / kNormPrologueBlockN);
  double extraFlops = (mean ? 3.0 : 2.0) * xt.getNumElements() * tiles;
  double gemmT = costOfOp(mm, hw).rooflineSeconds;
  double normT = costOfOp(norm, hw).rooflineSeconds;
  // On tensor cores the sums run on the FP32 units beside the MMAs (the roofline's time is
  // the largest of the two); a CUDA-core GEMM does them on its own units: added.
  // A LayerNorm's sums are f64 (MatmulTemplate.cpp): on the FP64 units.
  bool tensorCore = target.isGPU && (elem.isF16() || elem.isBF16());
  MLIRContext *ctx = mm->getContext();
  Type sumT = mean ? Type(Float64Type::get(ctx)) : Type(Float32Type::get(ctx));
  double fusedT = tensorCore ? std::max(gemmT, extraFlops / hw.peakFlops(sumT, false))
                             : gemmT + extraFlops / hw.peakFlops(mean ? sumT : elem, false);
  if (fusedT - gemmT >= normT)
    return kNormPrologueCost;
  return "";
}
