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
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
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
  return p;
}

/// The constant `v` as a new constant of `type` (the same elements, another shape): a
/// dense_resource keeps its blob (no copy). Null when `v` is not such a constant.
Value retyped(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return Value();
  if (auto d = dyn_cast<DenseElementsAttr>(a))
    return ConstantOp::create(b, loc, type, d.reshape(type));
  if (auto r = dyn_cast<DenseResourceElementsAttr>(a))
    return ConstantOp::create(b, loc, type, DenseResourceElementsAttr::get(type, r.getRawHandle()));
  return Value();
}

/// Whether the results of projections `a` and `b` are read only by elementwise ops (of
/// their shape, not returned) and combined by one within a few steps: SwiGLU's silu(gate) *
/// up, GeGLU's gelu(gate) * up. Merged with interleaved columns, such a pair is one GEMM
/// whose epilogue reads each column pair in registers (graph-fuse's column-pair slices).
/// Returns the depth of the combining op (nearest first), or none.
std::optional<int> gatedPair(Projection &a, Projection &b) {
  constexpr int kMaxDepth = 4;
  // The elementwise ops of the value's type reachable from `v` within kMaxDepth steps, with
  // their least depth; none when `v` itself is read by anything else.
  auto reach = [&](Value v) {
    llvm::DenseMap<Operation *, int> depth;
    SmallVector<std::pair<Value, int>> work{{v, 0}};
    while (!work.empty()) {
      auto [x, d] = work.pop_back_val();
      for (Operation *u : x.getUsers()) {
        bool same = isElementwise(u) && u->getNumResults() == 1 &&
                    u->getResult(0).getType() == x.getType();
        if (!same && d == 0) // a projection read by anything else
          return llvm::DenseMap<Operation *, int>{};
        if (!same || d + 1 > kMaxDepth)
          continue;
        auto [it, fresh] = depth.try_emplace(u, d + 1);
        if (!fresh && it->second <= d + 1)
          continue;
        it->second = d + 1;
        work.push_back({u->getResult(0), d + 1});
      }
    }
    return depth;
  };
  if (a.result().getType() != b.result().getType() || a.result().use_empty() ||
      b.result().use_empty())
    return std::nullopt;
  auto ra = reach(a.result()), rb = reach(b.result());
  // The combining op: the common one nearest to both.
  Operation *combine = nullptr;
  int best = 0;
  for (auto [op, da] : ra)
    if (auto it = rb.find(op); it != rb.end())
      if (int d = std::max(da, it->second); !combine || d < best ||
                                            (d == best && op->isBeforeInBlock(combine))) {
        combine = op;
        best = d;
      }
  if (!combine)
    return std::nullopt;
  // What the epilogue would hold: the ops of either DAG that lead to the combine. Every
  // value it computes but the combine's must stay inside (graph-fuse's single-output rule);
  // otherwise the merged product would be stored and read back through strided slices.
  llvm::SmallPtrSet<Operation *, 16> kernel{combine};
  SmallVector<Operation *> work{combine};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value o : op->getOperands())
      if (Operation *d = o.getDefiningOp();
          d && (ra.count(d) || rb.count(d)) && kernel.insert(d).second)
        work.push_back(d);
  }
  auto inside = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *u) { return kernel.contains(u); });
  };
  if (!inside(a.result()) || !inside(b.result()))
    return std::nullopt;
  for (Operation *op : kernel)
    if (op != combine && !inside(op->getResult(0)))
      return std::nullopt;
  return best;
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
      SmallVector<Projection> viewed, other;
      llvm::SetVector<Operation *> users(lhs.getUsers().begin(), lhs.getUsers().end());
      for (Operation *u : users)
        if (auto mm = dyn_cast<MatMulOp>(u))
          if (auto p = projectionOf(mm, lhs))
            (onlyViewUsers(p->result()) ? viewed : other).push_back(*p);
      auto before = [](Projection &a, Projection &b) {
        return a.matmul->isBeforeInBlock(b.matmul);
      };
      llvm::sort(viewed, before);
      llvm::sort(other, before);
      if (viewed.size() >= 2 && alike(viewed))
        merge(viewed, /*interleave=*/false);
      // Gated pairs, nearest combine first (silu(g1) * u1 + silu(g2) * u2 pairs g1 with u1,
      // not g1 with g2), then program order.
      struct Candidate {
        size_t i, j;
        int depth;
      };
      SmallVector<Candidate> candidates;
      for (size_t i = 0; i < other.size(); ++i)
        for (size_t j = i + 1; j < other.size(); ++j) {
          SmallVector<Projection> pair{other[i], other[j]};
          if (!alike(pair))
            continue;
          if (std::optional<int> d = gatedPair(other[i], other[j]))
            candidates.push_back({i, j, *d});
        }
      llvm::stable_sort(candidates,
                        [](const Candidate &x, const Candidate &y) { return x.depth < y.depth; });
      for (const Candidate &c : candidates) {
        if (!other[c.i].matmul || !other[c.j].matmul)
          continue;
        SmallVector<Projection> pair{other[c.i], other[c.j]};
        if (merge(pair, /*interleave=*/true))
          other[c.i].matmul = other[c.j].matmul = MatMulOp();
      }
    }
  }

  /// One weight type and K, all with or all without a bias, in one block.
  static bool alike(ArrayRef<Projection> group) {
    auto w0 = cast<RankedTensorType>(group[0].weight.getType());
    bool biased = (bool)group[0].bias;
    return llvm::none_of(group, [&](const Projection &p) {
      auto w = cast<RankedTensorType>(p.weight.getType());
      return w.getDimSize(0) != w0.getDimSize(0) || w.getElementType() != w0.getElementType() ||
             (bool)p.bias != biased || p.matmul->getBlock() != group[0].matmul->getBlock();
    });
  }

  /// Side by side (`interleave` false): the weights [W_1 .. W_n], projection i the slice of
  /// its columns. Interleaved (two projections of one N): column 2j is W_1's column j,
  /// 2j + 1 W_2's, projection i the slice of columns i, i + 2, ... (step 2). Returns false
  /// (nothing changed) when the merged constants do not fold.
  bool merge(MutableArrayRef<Projection> group, bool interleave) {
    bool biased = (bool)group[0].bias;
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
              return false;
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
    // Constants side by side ([.., n_1 + .. + n_k] along `axis`), or interleaved: each
    // [.., c] operand as [.., c, 1], concatenated to [.., c, k], read as [.., c * k].
    SmallVector<Operation *> made;
    auto combine = [&](ArrayRef<Value> parts, int64_t axis) -> Value {
      auto t0 = cast<RankedTensorType>(parts[0].getType());
      SmallVector<int64_t> shape(t0.getShape());
      if (!interleave) {
        shape[axis] = 0;
        for (Value v : parts)
          shape[axis] += cast<RankedTensorType>(v.getType()).getDimSize(axis);
        Value c = b.createOrFold<ConcatOp>(loc, RankedTensorType::get(shape, t0.getElementType()),
                                           parts, b.getI64IntegerAttr(axis));
        if (Operation *d = c.getDefiningOp())
          made.push_back(d);
        return c;
      }
      SmallVector<int64_t> col(shape);
      col.push_back(1);
      SmallVector<Value> cols;
      for (Value v : parts) {
        Value r = retyped(b, loc, v, RankedTensorType::get(col, t0.getElementType()));
        if (!r)
          return Value();
        made.push_back(r.getDefiningOp());
        cols.push_back(r);
      }
      col.back() = parts.size();
      Value c = b.createOrFold<ConcatOp>(loc, RankedTensorType::get(col, t0.getElementType()), cols,
                                         b.getI64IntegerAttr(shape.size()));
      if (Operation *d = c.getDefiningOp())
        made.push_back(d);
      shape.back() *= parts.size();
      Value r = retyped(b, loc, c, RankedTensorType::get(shape, t0.getElementType()));
      if (r)
        made.push_back(r.getDefiningOp());
      return r;
    };
    auto discard = [&] {
      for (Operation *d : llvm::reverse(made))
        if (d->use_empty())
          d->erase();
    };
    SmallVector<Value> weights = llvm::map_to_vector(group, [](Projection &p) { return p.weight; });
    Value w = combine(weights, 1);
    if (!w || !isConstant(w)) {
      // Too big to fold (kMaxFoldedConcatBytes): keep the projections apart.
      discard();
      return false;
    }
    auto r0 = cast<RankedTensorType>(group[0].matmul.getType());
    SmallVector<int64_t> shape(r0.getShape());
    shape.back() = n;
    auto rT = RankedTensorType::get(shape, r0.getElementType());
    Value merged = MatMulOp::create(b, loc, rT, group[0].matmul.getLhs(), w);
    if (biased) {
      SmallVector<Value> biases =
          llvm::map_to_vector(group, [](Projection &p) { return p.biasValue; });
      Value bias = combine(biases, 0);
      if (!bias || !isConstant(bias)) {
        merged.getDefiningOp()->erase();
        discard();
        return false;
      }
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
      if (interleave) {
        steps.back() = group.size();
        ++off;
      } else {
        off += p.n;
      }
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
    return true;
  }
};

} // namespace
