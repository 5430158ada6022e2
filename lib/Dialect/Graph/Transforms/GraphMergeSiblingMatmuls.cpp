//===- GraphMergeSiblingMatmuls.cpp - one GEMM for projections of one input ------===//
//
// The q, k and v projections of an attention layer are three matmuls of one activation by
// three constant weights; three GEMM kernels read the activation three times and each fills
// the GPU with a third of the tiles. Merged, the weights are one constant [K, N1 + N2 + N3]
// (its columns the three weights' side by side: graph.concat of constants folds), the
// product one GEMM, and each projection a slice of its columns, which the consumers read in
// place (slices are views: the RoPE kernels, the attention kernel's packed-qkv operands).
// The pass description in Passes.td has the rules.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHMERGESIBLINGMATMULS
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// One projection: `matmul` = lhs x W (W a constant [K, N]), then optionally `bias` = the
/// matmul + a constant [N] (either operand order). `result` is the last of the two.
struct Projection {
  MatMulOp matmul;
  AddOp bias;
  Value weight, biasValue;
  int64_t n = 0;
  Value result() { return bias ? bias.getResult() : matmul.getResult(); }
};

bool isConstant(Value v) { return matchPattern(v, m_Constant()); }

/// Whether every user of `v` is a view (reshape, transpose, slice, ...): the merged
/// product's slice then joins the kernels of those views' readers, as the projection did.
/// A projection read by an elementwise op, whose GEMM epilogue would take that op, is not
/// merged (the epilogue would be a kernel of its own).
bool onlyViewUsers(Value v) {
  return !v.use_empty() &&
         llvm::all_of(v.getUsers(), [](Operation *u) { return isView(u) || isa<ReshapeOp>(u); });
}

std::optional<Projection> projectionOf(MatMulOp mm, Value lhs) {
  if (mm.getLhs() != lhs || mm.getRhs() == lhs || mm->getParentOfType<FusionGroupOp>())
    return std::nullopt;
  auto wt = dyn_cast<RankedTensorType>(mm.getRhs().getType());
  auto rt = dyn_cast<RankedTensorType>(mm.getType());
  auto lt = dyn_cast<RankedTensorType>(lhs.getType());
  if (!wt || !rt || !lt || wt.getRank() != 2 || lt.getRank() < 2 || !isConstant(mm.getRhs()) ||
      !rt.hasStaticShape())
    return std::nullopt;
  Projection p{mm, AddOp(), mm.getRhs(), Value(), wt.getDimSize(1)};
  if (mm->hasOneUse())
    if (auto add = dyn_cast<AddOp>(*mm->getUsers().begin())) {
      Value other = add.getLhs() == mm.getResult() ? add.getRhs() : add.getLhs();
      auto bt = dyn_cast<RankedTensorType>(other.getType());
      if (add.getType() == rt && bt && bt.getRank() == 1 && bt.getDimSize(0) == p.n &&
          isConstant(other)) {
        p.bias = add;
        p.biasValue = other;
      }
    }
  if (!onlyViewUsers(p.result()))
    return std::nullopt;
  return p;
}

struct GraphMergeSiblingMatmulsPass
    : public aicc::graph::impl::GraphMergeSiblingMatmulsBase<GraphMergeSiblingMatmulsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Values read by two or more matmuls as their left operand, in program order.
    SmallVector<Value> lhss;
    llvm::DenseSet<Value> seen;
    fn.walk([&](MatMulOp mm) {
      if (seen.insert(mm.getLhs()).second)
        lhss.push_back(mm.getLhs());
    });
    for (Value lhs : lhss) {
      SmallVector<Projection> group;
      llvm::SetVector<Operation *> users(lhs.getUsers().begin(), lhs.getUsers().end());
      for (Operation *u : users)
        if (auto mm = dyn_cast<MatMulOp>(u))
          if (auto p = projectionOf(mm, lhs))
            group.push_back(*p);
      // One weight type and K, all with or all without a bias; in program order.
      if (group.size() < 2)
        continue;
      llvm::sort(group,
                 [](Projection &a, Projection &b) { return a.matmul->isBeforeInBlock(b.matmul); });
      auto w0 = cast<RankedTensorType>(group[0].weight.getType());
      bool biased = (bool)group[0].bias;
      if (llvm::any_of(group, [&](Projection &p) {
            auto w = cast<RankedTensorType>(p.weight.getType());
            return w.getDimSize(0) != w0.getDimSize(0) ||
                   w.getElementType() != w0.getElementType() || (bool)p.bias != biased ||
                   p.matmul->getBlock() != group[0].matmul->getBlock();
          }))
        continue;
      merge(group, biased);
    }
  }

  void merge(MutableArrayRef<Projection> group, bool biased) {
    // The merged product goes where the first matmul was; weights and biases defined after
    // it (constants: no operands) move before it, so the product dominates every use of
    // the projections (a view of the first one may sit before a later weight).
    Operation *first = group[0].matmul;
    for (Projection &p : group)
      for (Value v : {p.weight, p.biasValue})
        if (Operation *d = v ? v.getDefiningOp() : nullptr) {
          if (d->getBlock() != first->getBlock())
            continue;
          if (first->isBeforeInBlock(d)) {
            if (d->getNumOperands() != 0)
              return;
            d->moveBefore(first);
          }
        }
    OpBuilder b(first);
    Location loc =
        FusedLoc::get(first->getContext(),
                      llvm::map_to_vector(group, [](Projection &p) { return p.matmul.getLoc(); }));
    auto w0 = cast<RankedTensorType>(group[0].weight.getType());
    int64_t n = 0;
    for (Projection &p : group)
      n += p.n;
    SmallVector<Value> weights = llvm::map_to_vector(group, [](Projection &p) { return p.weight; });
    auto wT = RankedTensorType::get({w0.getDimSize(0), n}, w0.getElementType());
    Value w = b.createOrFold<ConcatOp>(loc, wT, weights, b.getI64IntegerAttr(1));
    if (!isConstant(w)) {
      // Too big to fold (kMaxFoldedConcatBytes): keep the projections apart.
      if (Operation *d = w.getDefiningOp())
        d->erase();
      return;
    }
    auto r0 = cast<RankedTensorType>(group[0].matmul.getType());
    SmallVector<int64_t> shape(r0.getShape());
    shape.back() = n;
    auto rT = RankedTensorType::get(shape, r0.getElementType());
    Value merged = MatMulOp::create(b, loc, rT, group[0].matmul.getLhs(), w);
    if (biased) {
      SmallVector<Value> biases =
          llvm::map_to_vector(group, [](Projection &p) { return p.biasValue; });
      auto bT =
          RankedTensorType::get({n}, cast<RankedTensorType>(biases[0].getType()).getElementType());
      Value bias = b.createOrFold<ConcatOp>(loc, bT, biases, b.getI64IntegerAttr(0));
      merged = AddOp::create(b, loc, rT, merged, bias);
    }
    // The slices right after the product, then the projections go (the builder may point
    // at one of them).
    b.setInsertionPointAfter(merged.getDefiningOp());
    int64_t off = 0;
    SmallVector<Value> slices;
    for (Projection &p : group) {
      SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1);
      starts.back() = off;
      off += p.n;
      slices.push_back(SliceOp::create(b, p.matmul.getLoc(), p.result().getType(), merged,
                                       b.getDenseI64ArrayAttr(starts),
                                       b.getDenseI64ArrayAttr(steps)));
    }
    llvm::SetVector<Operation *> inputs;
    for (auto [p, slice] : llvm::zip(group, slices)) {
      for (Value v : {p.weight, p.biasValue})
        if (Operation *d = v ? v.getDefiningOp() : nullptr)
          inputs.insert(d);
      p.result().replaceAllUsesWith(slice);
      if (p.bias)
        p.bias->erase();
      p.matmul->erase();
    }
    // The weights and biases no other op reads (their values live on in the merged ones).
    for (Operation *d : inputs)
      if (d->use_empty())
        d->erase();
  }
};

} // namespace
