//===- StridedViewTest.cpp - view chains as strided views, attention block matrices ---===//
//
// composeView against a brute-force check that shares no code with it: every element of a
// view, addressed through the strided form (and through attentionBlockMatrix's block
// matrices), is the element of the root that the chain of ops selects, found by moving the
// index back through each op (transpose: the inverse permutation; reshape: linearize and
// split again; slice: start + i * step). Random chains of splits, merges, transposes and
// slices, and the chains torch's attention exports produce.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/StridedView.h"
#include "aicc/Dialect/Graph/IR/AttentionOperands.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace mlir;
using namespace aicc::graph;

namespace {

/// Row-major index `flat` of `shape` as one index per dim.
SmallVector<int64_t> delinearize(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

int64_t linearize(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k)
    flat = flat * shape[k] + idx[k];
  return flat;
}

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

/// The root's flat element that element `idx` of `v` is, through `chain` (viewChain order).
int64_t bruteForce(Value v, ArrayRef<Operation *> chain, SmallVector<int64_t> idx) {
  for (Operation *op : chain) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    SmallVector<int64_t> prev(in.size());
    if (auto t = dyn_cast<TransposeOp>(op)) {
      for (auto [k, p] : llvm::enumerate(t.getPerm()))
        prev[p] = idx[k];
    } else if (auto s = dyn_cast<SliceOp>(op)) {
      for (size_t k = 0; k < in.size(); ++k)
        prev[k] = s.getStarts()[k] + idx[k] * s.getSteps()[k];
    } else if (isa<ExpandOp>(op)) { // right-aligned broadcast
      size_t lead = idx.size() - in.size();
      for (size_t k = 0; k < in.size(); ++k)
        prev[k] = in[k] == 1 ? 0 : idx[k + lead];
    } else {
      prev = delinearize(linearize(idx, shapeOf(op->getResult(0))), in);
    }
    idx = std::move(prev);
  }
  Value root = chain.empty() ? v : chain.back()->getOperand(0);
  return linearize(idx, shapeOf(root));
}

/// Every element of `v` addressed through its composed view (when there is one) is the
/// brute-force element; returns whether there was one.
bool checkView(Value v) {
  SmallVector<Operation *> chain = viewChain(v, [](Operation *) { return true; });
  auto view = composeView(v, chain, chain.size());
  if (!view)
    return false;
  ArrayRef<int64_t> shape = shapeOf(v);
  EXPECT_EQ(view->shape, SmallVector<int64_t>(shape));
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  for (int64_t f = 0; f < n; ++f) {
    SmallVector<int64_t> idx = delinearize(f, shape);
    int64_t got = view->offset;
    for (size_t k = 0; k < idx.size(); ++k)
      got += idx[k] * view->strides[k];
    EXPECT_EQ(got, bruteForce(v, chain, idx)) << "element " << f;
    if (got != bruteForce(v, chain, idx))
      return true;
  }
  return true;
}

using Terms = std::vector<std::array<int64_t, 4>>;
/// (dim, div, size, step) of each term.
Terms terms(ArrayRef<AttentionIndexTerm> ts) {
  Terms out;
  for (const AttentionIndexTerm &t : ts)
    out.push_back({t.dim, t.div, t.size, t.step});
  return out;
}

/// Every element of `v` addressed through composeModes' modes is the brute-force element.
void checkModes(Value v) {
  SmallVector<Operation *> chain = viewChain(v, [](Operation *) { return true; });
  auto view = composeModes(v, chain, chain.size());
  ASSERT_TRUE(view);
  ArrayRef<int64_t> shape = shapeOf(v);
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  for (int64_t f = 0; f < n; ++f) {
    SmallVector<int64_t> idx = delinearize(f, shape);
    int64_t got = view->offset;
    for (size_t k = 0; k < idx.size(); ++k) {
      int64_t inner = shape[k];
      for (ViewMode m : view->dims[k]) {
        inner /= m.size;
        got += (idx[k] / inner) % m.size * m.stride;
      }
    }
    ASSERT_EQ(got, bruteForce(v, chain, idx)) << "element " << f;
  }
}

struct Builder {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  OpBuilder b{&ctx};
  Location loc = UnknownLoc::get(&ctx);
  Builder() {
    ctx.loadDialect<GraphDialect, func::FuncDialect>();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
  }
  RankedTensorType ty(ArrayRef<int64_t> s) { return RankedTensorType::get(s, b.getF16Type()); }
  Value input(ArrayRef<int64_t> s) {
    return ConstantOp::create(b, loc, ty(s), DenseElementsAttr::get(ty(s), b.getF16FloatAttr(0)));
  }
  Value reshape(Value x, ArrayRef<int64_t> s) { return ReshapeOp::create(b, loc, ty(s), x); }
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    SmallVector<int64_t> s;
    for (int64_t p : perm)
      s.push_back(shapeOf(x)[p]);
    return TransposeOp::create(b, loc, ty(s), x, b.getDenseI64ArrayAttr(perm));
  }
  Value expand(Value x, ArrayRef<int64_t> s) { return ExpandOp::create(b, loc, ty(s), x); }
  Value slice(Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> steps, ArrayRef<int64_t> s) {
    return SliceOp::create(b, loc, ty(s), x, b.getDenseI64ArrayAttr(starts),
                           b.getDenseI64ArrayAttr(steps));
  }
};

TEST(StridedView, ReshapeStridesFollowsTheViewRule) {
  auto s = reshapeStrides({6, 4}, {4, 1}, {2, 3, 4});
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (SmallVector<int64_t>{12, 4, 1}));
  // The transpose of a [4, 6] tensor (strides [1, 6]) cannot merge its two dims, but can
  // split each of them and take size-1 dims anywhere.
  EXPECT_FALSE(reshapeStrides({6, 4}, {1, 6}, {24}));
  s = reshapeStrides({6, 4}, {1, 6}, {1, 2, 3, 1, 4});
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)[1], 3);
  EXPECT_EQ((*s)[2], 1);
  EXPECT_EQ((*s)[4], 6);
  // A third of a sequence-first [S, B, 3E] projection ([S, B, E], strides [6E, 3E, 1])
  // viewed [S, B * H, D]: B and H do not merge into one stride.
  EXPECT_FALSE(reshapeStrides({128, 2, 256}, {1536, 768, 1}, {128, 8, 64}));
  EXPECT_FALSE(reshapeStrides({0, 4}, {4, 1}, {0, 2, 2}));
  EXPECT_FALSE(reshapeStrides({6, 4}, {4, 1}, {5, 4}));
}

// torch's sequence-first MultiheadAttention (what nn.TransformerEncoderLayer exports): the
// [S, B * H, D] step has no single stride per dim, the [B, H, S, D] result has.
TEST(StridedView, SequenceFirstMultiheadAttention) {
  Builder t;
  int64_t S = 10, B = 2, H = 4, D = 8, E = H * D;
  Value x = t.input({S, B, 3 * E});
  Value w = t.reshape(t.transpose(t.reshape(x, {1, S, B, 3, E}), {3, 1, 2, 0, 4}), {3, S, B, E});
  Value k = t.reshape(t.slice(w, {1, 0, 0, 0}, {1, 1, 1, 1}, {1, S, B, E}), {S, B, E});
  Value kr = t.reshape(k, {S, B * H, D});
  Value kt = t.reshape(t.transpose(kr, {1, 2, 0}), {B, H, D, S});
  Value q = t.reshape(
      t.transpose(
          t.reshape(t.reshape(t.slice(w, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, S, B, E}), {S, B, E}),
                    {S, B * H, D}),
          {1, 0, 2}),
      {B, H, S, D});
  EXPECT_TRUE(checkView(q));
  EXPECT_TRUE(checkView(kt));
  EXPECT_FALSE(checkView(kr)); // B * H has two modes
  // As attention operands: matrices of S rows with row stride B * 3E, b and h column
  // offsets, K's third at column E, K^T read as K's rows.
  auto qv = attentionOperandView(q, 0, [](Operation *) { return true; });
  ASSERT_TRUE(qv);
  EXPECT_EQ(qv->root, x);
  EXPECT_EQ(qv->dims, (std::array<int64_t, 3>{1, S, B * 3 * E}));
  EXPECT_EQ(qv->col, 0);
  EXPECT_EQ(terms(qv->colTerms), (Terms{{0, 1, B, 3 * E}, {1, 1, H, D}}));
  EXPECT_TRUE(qv->batchTerms.empty());
  auto kv = attentionOperandView(kt, 1, [](Operation *) { return true; });
  ASSERT_TRUE(kv);
  EXPECT_TRUE(kv->keyRows);
  EXPECT_EQ(kv->root, x);
  EXPECT_EQ(kv->col, E);
  EXPECT_EQ(kv->ops.size(), 8u);
  // Following only the last transpose and reshape: the root is the [S, B * H, D] tensor.
  auto shallow = attentionOperandView(kt, 1, [&](Operation *op) {
    return op == kt.getDefiningOp() || op == kt.getDefiningOp()->getOperand(0).getDefiningOp();
  });
  ASSERT_TRUE(shallow);
  EXPECT_EQ(shallow->root, kr);
  EXPECT_EQ(shallow->dims, (std::array<int64_t, 3>{1, S, B * H * D}));
}

// GPT-2's Split of [B, S, 3E]: the thirds are column offsets of the [B, S, 3E] matrices.
TEST(StridedView, SplitThirds) {
  Builder t;
  int64_t S = 8, B = 3, H = 2, D = 8, E = H * D; // f16: rows and heads of whole 16 bytes
  Value x = t.input({B, S, 3 * E});
  Value v = t.transpose(t.reshape(t.slice(x, {0, 0, 2 * E}, {1, 1, 1}, {B, S, E}), {B, S, H, D}),
                        {0, 2, 1, 3});
  EXPECT_TRUE(checkView(v));
  auto vv = attentionOperandView(v, 2, [](Operation *) { return true; });
  ASSERT_TRUE(vv);
  EXPECT_EQ(vv->dims, (std::array<int64_t, 3>{B, S, 3 * E}));
  EXPECT_EQ(vv->col, 2 * E);
  EXPECT_EQ(terms(vv->batchTerms), (Terms{{0, 1, B, 1}}));
  EXPECT_EQ(terms(vv->colTerms), (Terms{{1, 1, H, D}}));
  // A stored K^T must be plain matrices of its keys: the second half of a [B, D, 2S]
  // tensor is a column offset, refused, so the view falls back to the operand itself.
  Value k2 = t.input({B, D, 2 * S});
  Value kts = t.slice(k2, {0, 0, S}, {1, 1, 1}, {B, D, S});
  EXPECT_TRUE(checkView(kts));
  auto kv = attentionOperandView(kts, 1, [](Operation *) { return true; });
  ASSERT_TRUE(kv);
  EXPECT_FALSE(kv->keyRows);
  EXPECT_EQ(kv->root, kts);
  EXPECT_TRUE(kv->ops.empty());
  EXPECT_EQ(kv->dims, (std::array<int64_t, 3>{B, D, S}));
  // A third that starts at column 4 (8 bytes) is not whole 16-byte chunks of the kernel's
  // cp.async copies: the view of y is refused; the kernel reads the (copied) slice through
  // the reshape and the head transpose.
  Value y = t.input({B, S, 24});
  Value third = t.slice(y, {0, 0, 4}, {1, 1, 1}, {B, S, 16});
  Value v4 = t.transpose(t.reshape(third, {B, S, 2, 8}), {0, 2, 1, 3});
  EXPECT_TRUE(checkView(v4));
  auto vv4 = attentionOperandView(v4, 2, [](Operation *) { return true; });
  ASSERT_TRUE(vv4);
  EXPECT_EQ(vv4->root, third);
  EXPECT_EQ(vv4->ops.size(), 2u);
}

// GQA as HF Llama writes it (repeat_kv): K [B, KVH, S, D] unsqueezed to [B, KVH, 1, S, D],
// expanded to G query heads per kv head and viewed [B, H, S, D]: dim H has the modes
// (KVH, S * D) and (G, 0), so the attention reads kv head h / G; K^T as K's rows.
TEST(StridedView, GroupedQueryExpand) {
  Builder t;
  int64_t B = 2, KVH = 2, G = 3, S = 5, D = 8;
  Value k = t.input({B, KVH, S, D});
  Value kh =
      t.reshape(t.expand(t.reshape(k, {B, KVH, 1, S, D}), {B, KVH, G, S, D}), {B, KVH * G, S, D});
  Value kt = t.transpose(kh, {0, 1, 3, 2});
  checkModes(kh);
  checkModes(kt);
  EXPECT_FALSE(checkView(kh)); // no single stride for H
  auto kv = attentionOperandView(kt, 1, [](Operation *) { return true; });
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->root, k);
  EXPECT_TRUE(kv->keyRows);
  EXPECT_EQ(kv->dims, (std::array<int64_t, 3>{B * KVH, S, D}));
  EXPECT_EQ(terms(kv->batchTerms), (Terms{{0, 1, B, KVH}, {1, G, KVH, 1}}));
  EXPECT_TRUE(kv->colTerms.empty());
  // A broadcast along the rows (every key the same) is not block matrices: the expand
  // stays a kernel, the view stops above it.
  Value rows = t.expand(t.input({B, 1, 1, D}), {B, 1, S, D});
  auto rv = attentionOperandView(rows, 2, [](Operation *) { return true; });
  ASSERT_TRUE(rv);
  EXPECT_EQ(rv->root, rows);
}

/// Deterministic values (64-bit LCG, Knuth's MMIX constants).
struct Random {
  uint64_t state;
  int64_t below(int64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return int64_t((state >> 33) % uint64_t(n));
  }
};

// Random chains: every composed view the analysis gives is exact, and chains of splits,
// transposes and slices (never a merge) always give one.
TEST(StridedView, RandomChains) {
  Builder t;
  Random rng{7};
  int found = 0;
  for (int trial = 0; trial < 300; ++trial) {
    bool mergeFree = trial % 2 == 0;
    SmallVector<int64_t> shape;
    for (int k = 0, r = 1 + rng.below(3); k < r; ++k)
      shape.push_back(std::vector<int64_t>{2, 3, 4, 6}[rng.below(4)]);
    Value v = t.input(shape);
    for (int step = 0, n = 1 + rng.below(5); step < n; ++step) {
      SmallVector<int64_t> s(shapeOf(v));
      int op = rng.below(3);
      if (op == 0) { // transpose
        SmallVector<int64_t> perm(s.size());
        std::iota(perm.begin(), perm.end(), 0);
        for (size_t k = perm.size(); k > 1; --k)
          std::swap(perm[k - 1], perm[rng.below(k)]);
        v = t.transpose(v, perm);
      } else if (op == 1) { // reshape: split a dim, or (not mergeFree) merge two
        size_t k = rng.below(s.size());
        SmallVector<int64_t> ns(s.begin(), s.begin() + k);
        if (!mergeFree && k + 1 < s.size() && rng.below(2)) {
          ns.push_back(s[k] * s[k + 1]);
          ns.append(s.begin() + k + 2, s.end());
        } else if (s[k] % 2 == 0) {
          ns.append({2, s[k] / 2});
          ns.append(s.begin() + k + 1, s.end());
        } else {
          ns.append({1, s[k]});
          ns.append(s.begin() + k + 1, s.end());
        }
        v = t.reshape(v, ns);
      } else { // slice one dim
        size_t k = rng.below(s.size());
        if (s[k] < 2)
          continue;
        SmallVector<int64_t> starts(s.size(), 0), steps(s.size(), 1), ns(s);
        starts[k] = rng.below(s[k] - 1);
        steps[k] = 1 + rng.below(2);
        ns[k] = (s[k] - starts[k] + steps[k] - 1) / steps[k];
        v = t.slice(v, starts, steps, ns);
      }
    }
    bool got = checkView(v);
    found += got;
    if (mergeFree)
      EXPECT_TRUE(got) << "trial " << trial;
  }
  EXPECT_GT(found, 150);
}

} // namespace
