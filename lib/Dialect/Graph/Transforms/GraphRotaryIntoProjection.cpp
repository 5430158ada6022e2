//===- GraphRotaryIntoProjection.cpp - RoPE as the projection's column pairs -----===//
//
// Rotary position embedding (Su et al. 2021, RoFormer, eq. 34 in the rotate-half form of
// GPT-NeoX / Llama) of a head h of q or k is
//
//   r[.., s, d] = x[.., s, d] cos[s, d] + rotate_half(x)[.., s, d] sin[s, d],
//   rotate_half(x) = concat(-x[.., D/2:], x[.., :D/2]),
//
// pairing dim d with d + D/2. When x is a head-split view of a product y = a @ W by
// constant weights and the rotated q and k are read only as attention's q and K^T, the
// pass orders each head's columns of W so that the partners are adjacent (column 2j of the
// head is d = j, 2j + 1 is d = j + D/2): q k^T sums over d, so one permutation of d for
// both leaves the scores unchanged. The rotation is then elementwise over y's columns with
// each column's pair partner, which the matmul template holds in the same thread's
// registers (tile.swap_pairs):
//
//   y' = where(rotated[c], y * C[s, c] + swap_pairs(y) * S[s, c], y)
//
// with C, S the tables in the new order (S's sign for d < D/2 folded in) repeated over the
// heads (graph.tile: a view, never materialized), and q, k, v the same head-split views of
// y' as before of y. graph-fuse puts all of it in the GEMM's epilogue: the RoPE kernel and
// its reads and writes of q and k are gone. The pass description in Passes.td has the rules.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHROTARYINTOPROJECTION
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The raw row-major bytes of constant `v` (dense or dense_resource, not a splat), or none.
std::optional<ArrayRef<char>> rawBytes(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return std::nullopt;
  if (auto d = dyn_cast<DenseElementsAttr>(a)) {
    if (d.isSplat() || d.getElementType().getIntOrFloatBitWidth() % 8)
      return std::nullopt;
    return d.getRawData();
  }
  if (auto r = dyn_cast<DenseResourceElementsAttr>(a))
    if (AsmResourceBlob *blob = r.getRawHandle().getBlob()) {
      ArrayRef<char> data = blob->getData();
      auto t = cast<ShapedType>(r.getType());
      if (!t.getElementType().isIntOrFloat() || t.getElementType().getIntOrFloatBitWidth() % 8)
        return std::nullopt;
      int64_t bytes = t.getNumElements() * t.getElementType().getIntOrFloatBitWidth() / 8;
      if ((int64_t)data.size() != bytes)
        return std::nullopt;
      return data;
    }
  return std::nullopt;
}

/// One rotated head split: x = transpose(reshape(slice(y, columns c0 .. c0 + H * D))) of
/// shape [.., H, S, D], and the ops of r = x * cos + concat(-x[.., D/2:], x[.., :D/2]) * sin
/// (`ops`, the add last).
struct Rope {
  SliceOp slice;
  ReshapeOp split;
  TransposeOp heads;
  SmallVector<Operation *> ops;
  Value cos, sin;
  int64_t c0 = 0, width = 0, D = 0;
  Value result() { return ops.back()->getResult(0); }
};

/// Whether binary `op` reads `x`; `other` is then its other operand.
bool orderOperands(Operation *op, Value x, Value &other) {
  if (op->getNumOperands() != 2)
    return false;
  if (op->getOperand(0) == x)
    other = op->getOperand(1);
  else if (op->getOperand(1) == x)
    other = op->getOperand(0);
  else
    return false;
  return true;
}

/// The table operand `t` read as [S, D]: a constant of the element type whose leading dims
/// are 1 and last two S and D.
bool isTable(Value t, Type elem, int64_t S, int64_t D) {
  auto tt = dyn_cast<RankedTensorType>(t.getType());
  if (!tt || tt.getElementType() != elem || tt.getRank() < 2 || !rawBytes(t))
    return false;
  ArrayRef<int64_t> s = tt.getShape();
  for (int64_t d = 0; d + 2 < tt.getRank(); ++d)
    if (s[d] != 1)
      return false;
  return s.end()[-2] == S && s.back() == D;
}

/// The rotation of head-split view `x` (its users: the mul by cos and the two half slices),
/// or none.
std::optional<Rope> matchRope(TransposeOp heads) {
  Value x = heads.getResult();
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank();
  if (rank < 3 || !xt.hasStaticShape())
    return std::nullopt;
  int64_t D = xt.getShape().back(), S = xt.getShape()[rank - 2];
  if (D % 4 || llvm::range_size(x.getUsers()) != 3)
    return std::nullopt;
  MulOp mulCos;
  SliceOp lo, hi;
  for (Operation *u : x.getUsers()) {
    if (auto m = dyn_cast<MulOp>(u))
      mulCos = m;
    else if (auto s = dyn_cast<SliceOp>(u)) {
      if (s.getType().getShape().back() != D / 2)
        return std::nullopt;
      // Whole along every dim but the last (a slice also cutting the sequence would
      // broadcast back to x's shape in the concat's users).
      for (int64_t d = 0; d < rank; ++d)
        if (s.getSteps()[d] != 1 ||
            (d + 1 < rank && (s.getStarts()[d] != 0 || s.getType().getDimSize(d) != xt.getDimSize(d))))
          return std::nullopt;
      int64_t start = s.getStarts().back();
      if (start == 0 && !lo)
        lo = s;
      else if (start == D / 2 && !hi)
        hi = s;
      else
        return std::nullopt;
    }
  }
  if (!mulCos || !lo || !hi || !lo->hasOneUse() || !hi->hasOneUse() || !mulCos->hasOneUse())
    return std::nullopt;
  auto neg = dyn_cast<NegOp>(*hi->getUsers().begin());
  if (!neg || !neg->hasOneUse())
    return std::nullopt;
  auto cat = dyn_cast<ConcatOp>(*neg->getUsers().begin());
  if (!cat || cat.getNumOperands() != 2 || cat.getOperand(0) != neg.getResult() ||
      cat.getOperand(1) != lo.getResult() || cat.getAxis() != rank - 1 || !cat->hasOneUse() ||
      *lo->getUsers().begin() != cat)
    return std::nullopt;
  auto mulSin = dyn_cast<MulOp>(*cat->getUsers().begin());
  Value cosT, sinT;
  if (!mulSin || !mulSin->hasOneUse() || !orderOperands(mulSin, cat.getResult(), sinT) ||
      !orderOperands(mulCos, x, cosT))
    return std::nullopt;
  auto add = dyn_cast<AddOp>(*mulSin->getUsers().begin());
  Value other;
  if (!add || *mulCos->getUsers().begin() != add || !orderOperands(add, mulSin.getResult(), other) ||
      other != mulCos.getResult() || add.getType() != xt || mulCos.getType() != xt ||
      mulSin.getType() != xt)
    return std::nullopt;
  Type elem = xt.getElementType();
  if (!isTable(cosT, elem, S, D) || !isTable(sinT, elem, S, D))
    return std::nullopt;
  // The head split: [.., S, H * D] -> [.., S, H, D] -> [.., H, S, D] of a last-dim slice.
  auto split = heads.getInput().getDefiningOp<ReshapeOp>();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d + 3 < rank; ++d)
    perm.push_back(d);
  perm.append({rank - 2, rank - 3, rank - 1});
  if (!split || !split->hasOneUse() || heads.getPerm() != ArrayRef<int64_t>(perm))
    return std::nullopt;
  auto slice = split.getInput().getDefiningOp<SliceOp>();
  if (!slice || !slice->hasOneUse())
    return std::nullopt;
  auto st = slice.getType();
  auto it = cast<RankedTensorType>(slice.getInput().getType());
  int64_t H = xt.getShape()[rank - 3];
  if (st.getRank() != rank - 1 || st.getShape().back() != H * D || st.getShape().end()[-2] != S)
    return std::nullopt;
  for (int64_t d = 0; d < st.getRank(); ++d)
    if (slice.getSteps()[d] != 1 ||
        (d + 1 < st.getRank() && (slice.getStarts()[d] != 0 || st.getDimSize(d) != it.getDimSize(d))))
      return std::nullopt;
  // [.., S, H * D] split as [.., S, H, D].
  SmallVector<int64_t> want(st.getShape().drop_back());
  want.append({H, D});
  if (split.getType().getShape() != ArrayRef<int64_t>(want))
    return std::nullopt;
  Rope r;
  r.slice = slice;
  r.split = split;
  r.heads = heads;
  r.ops = {lo, hi, neg, cat, mulCos, mulSin, add};
  r.cos = cosT;
  r.sin = sinT;
  r.c0 = slice.getStarts().back();
  r.width = H * D;
  r.D = D;
  return r;
}

/// Whether every use of `v` (the head dim d at position `pos`) reaches, through views that
/// keep d a whole dim (reshapes keeping the last dim, expands, transposes), only operand 0
/// (query, d last) or 1 (K^T, d second to last) of graph.attention ops; those are recorded
/// in `reached` with the operand.
bool reachesOnlyScores(Value v, int64_t pos,
                       SmallVectorImpl<std::pair<AttentionOp, unsigned>> &reached) {
  auto t = cast<RankedTensorType>(v.getType());
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    if (auto att = dyn_cast<AttentionOp>(u)) {
      unsigned n = use.getOperandNumber();
      if ((n == 0 && pos == t.getRank() - 1) || (n == 1 && pos == t.getRank() - 2)) {
        reached.push_back({att, n});
        continue;
      }
      return false;
    }
    if (auto tr = dyn_cast<TransposeOp>(u)) {
      auto it = llvm::find(tr.getPerm(), pos);
      if (!reachesOnlyScores(tr.getResult(), it - tr.getPerm().begin(), reached))
        return false;
      continue;
    }
    if (isa<ReshapeOp, ExpandOp>(u)) {
      auto rt = cast<RankedTensorType>(u->getResult(0).getType());
      if (pos != t.getRank() - 1 || rt.getShape().back() != t.getShape().back())
        return false;
      if (!reachesOnlyScores(u->getResult(0), rt.getRank() - 1, reached))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// The bytes of a [rows, cols] row-major matrix of `elemBytes`-byte elements with the
/// columns of each head [h, h + D) of the column ranges `ranges` reordered (new 2j = old j,
/// new 2j + 1 = old j + D / 2); `negateFirstHalf` flips the sign bit of the elements that
/// came from old j < D / 2 (floats: the negation).
std::vector<char> pairColumns(ArrayRef<char> in, int64_t rows, int64_t cols, int64_t elemBytes,
                              ArrayRef<std::pair<int64_t, int64_t>> ranges, int64_t D,
                              bool negateFirstHalf) {
  std::vector<char> out(in.begin(), in.end());
  for (int64_t r = 0; r < rows; ++r)
    for (auto [b, e] : ranges)
      for (int64_t h = b; h < e; h += D)
        for (int64_t j = 0; j < D; ++j) {
          int64_t from = h + j;
          int64_t to = j < D / 2 ? h + 2 * j : h + 2 * (j - D / 2) + 1;
          const char *src = in.data() + (r * cols + from) * elemBytes;
          char *dst = out.data() + (r * cols + to) * elemBytes;
          std::memcpy(dst, src, elemBytes);
          if (negateFirstHalf && j < D / 2)
            dst[elemBytes - 1] ^= char(0x80); // little-endian: the sign bit is the last byte's top
        }
  return out;
}

struct GraphRotaryIntoProjection
    : aicc::graph::impl::GraphRotaryIntoProjectionBase<GraphRotaryIntoProjection> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // The rotations, by the matmul whose product they read.
    SmallVector<Rope> ropes;
    fn.walk([&](TransposeOp t) {
      if (auto r = matchRope(t))
        ropes.push_back(std::move(*r));
    });
    // Legal ropes: read only as attention's q / K^T, every attention they reach having both
    // its q and K^T rotated (one permutation of d for both). Drop those that are not until
    // none changes.
    SmallVector<SmallVector<std::pair<AttentionOp, unsigned>>> reach(ropes.size());
    SmallVector<bool> ok(ropes.size(), true);
    for (auto [i, r] : llvm::enumerate(ropes)) {
      auto rt = cast<RankedTensorType>(r.result().getType());
      ok[i] = reachesOnlyScores(r.result(), rt.getRank() - 1, reach[i]) && !reach[i].empty();
    }
    // A product whose rotations cannot all be rewritten (its weight not a 2-D constant,
    // tables differing, ...) drops them all, and the attentions they reach then drop their
    // other operand's: q is never permuted without its K^T.
    auto byProduct = [&] {
      llvm::MapVector<Value, SmallVector<unsigned>> m;
      for (auto [i, r] : llvm::enumerate(ropes))
        if (ok[i])
          m[r.slice.getInput()].push_back(i);
      return m;
    };
    for (bool changed = true; changed;) {
      changed = false;
      llvm::DenseMap<Operation *, unsigned> covered; // bit 0: q, bit 1: K^T
      for (auto [i, r] : llvm::enumerate(ropes))
        if (ok[i])
          for (auto [att, n] : reach[i])
            covered[att] |= 1u << n;
      for (auto [i, r] : llvm::enumerate(ropes)) {
        if (!ok[i])
          continue;
        for (auto [att, n] : reach[i])
          if (covered[att] != 3) {
            ok[i] = false;
            changed = true;
            break;
          }
      }
      for (auto &[y, idx] : byProduct())
        if (!plan(y, idx, ropes)) {
          for (unsigned i : idx)
            ok[i] = false;
          changed = true;
        }
    }
    for (auto &[y, idx] : byProduct())
      rewrite(*plan(y, idx, ropes), idx, ropes);
  }

  /// What rewriting the rotations `idx` of product `y` takes, or none when it cannot.
  struct Plan {
    MatMulOp mm;
    RankedTensorType yt, wt;
    ArrayRef<char> w;
    int64_t D = 0, N = 0, S = 0;
    SmallVector<std::pair<int64_t, int64_t>> ranges;
    SmallVector<SliceOp> others;
  };
  std::optional<Plan> plan(Value y, ArrayRef<unsigned> idx, MutableArrayRef<Rope> ropes) {
    Plan p;
    p.mm = y.getDefiningOp<MatMulOp>();
    if (!p.mm)
      return std::nullopt;
    p.yt = cast<RankedTensorType>(y.getType());
    p.wt = dyn_cast<RankedTensorType>(p.mm.getRhs().getType());
    Rope &first = ropes[idx.front()];
    p.D = first.D;
    p.N = p.yt.getShape().back();
    p.S = p.yt.getShape().end()[-2];
    auto wBytes = rawBytes(p.mm.getRhs());
    if (!p.wt || p.wt.getRank() != 2 || !wBytes || p.N % p.D || p.yt.getRank() < 2)
      return std::nullopt;
    p.w = *wBytes;
    Attribute cosA, sinA;
    if (!matchPattern(first.cos, m_Constant(&cosA)) || !matchPattern(first.sin, m_Constant(&sinA)))
      return std::nullopt;
    for (unsigned i : idx) {
      Rope &r = ropes[i];
      Attribute c, s;
      if (r.D != p.D || r.c0 % p.D || !matchPattern(r.cos, m_Constant(&c)) ||
          !matchPattern(r.sin, m_Constant(&s)) || c != cosA || s != sinA)
        return std::nullopt;
      p.ranges.push_back({r.c0, r.c0 + r.width});
    }
    // Every other user of y: a slice of columns no rotation covers (v), read from y' as is.
    for (Operation *u : y.getUsers()) {
      if (llvm::any_of(idx, [&](unsigned i) { return ropes[i].slice == u; }))
        continue;
      auto s = dyn_cast<SliceOp>(u);
      if (!s || s.getSteps().back() != 1)
        return std::nullopt;
      int64_t b = s.getStarts().back(), e = b + s.getType().getShape().back();
      if (llvm::any_of(p.ranges, [&](auto r) { return b < r.second && r.first < e; }))
        return std::nullopt;
      p.others.push_back(s);
    }
    llvm::sort(p.ranges);
    for (size_t i = 1; i < p.ranges.size(); ++i)
      if (p.ranges[i].first < p.ranges[i - 1].second)
        return std::nullopt; // overlapping rotations of one column
    Type elem = p.yt.getElementType();
    if (!isa<FloatType>(elem) || elem.getIntOrFloatBitWidth() < 8)
      return std::nullopt;
    return p;
  }

  void rewrite(const Plan &p, ArrayRef<unsigned> idx, MutableArrayRef<Rope> ropes) {
    MatMulOp mm = p.mm;
    Value y = mm.getResult();
    RankedTensorType yt = p.yt, wt = p.wt;
    int64_t D = p.D, N = p.N, S = p.S;
    ArrayRef<std::pair<int64_t, int64_t>> ranges = p.ranges;
    Rope &first = ropes[idx.front()];
    Type elem = yt.getElementType();
    int64_t eb = elem.getIntOrFloatBitWidth() / 8;
    OpBuilder b(mm);
    Location loc = mm.getLoc();
    // W with each rotated head's columns in pair order.
    int64_t K = wt.getShape()[0];
    std::vector<char> w = pairColumns(p.w, K, N, eb, ranges, D, false);
    Value newW = ConstantOp::create(b, loc, wt, DenseElementsAttr::getFromRawBuffer(wt, w));
    // The tables [S, D] in pair order, the sine's first half negated.
    auto tableT = RankedTensorType::get({S, D}, elem);
    auto table = [&](Value t, bool negate) {
      std::vector<char> bytes = pairColumns(*rawBytes(t), S, D, eb, {{0, D}}, D, negate);
      return ConstantOp::create(b, loc, tableT, DenseElementsAttr::getFromRawBuffer(tableT, bytes))
          .getResult();
    };
    Value cosP = table(first.cos, false), sinP = table(first.sin, true);
    Value oldW = mm.getRhs();
    mm->setOperand(1, newW);
    if (Operation *d = oldW.getDefiningOp(); d && d->use_empty())
      d->erase();
    b.setInsertionPointAfter(mm);
    auto fullT = RankedTensorType::get({S, N}, elem);
    Value cosF = TileOp::create(b, loc, fullT, cosP);
    Value sinF = TileOp::create(b, loc, fullT, sinP);
    SmallVector<int64_t> pairShape(yt.getShape());
    pairShape.back() /= 2;
    pairShape.push_back(2);
    auto pairT = RankedTensorType::get(pairShape, elem);
    Value asPairs = ReshapeOp::create(b, loc, pairT, y);
    SmallVector<int64_t> starts(pairShape.size(), 0), steps(pairShape.size(), 1);
    starts.back() = 1;
    steps.back() = -1;
    Value swapped = SliceOp::create(b, loc, pairT, asPairs, b.getDenseI64ArrayAttr(starts),
                                    b.getDenseI64ArrayAttr(steps));
    Value partner = ReshapeOp::create(b, loc, yt, swapped);
    Value rotated = AddOp::create(b, loc, yt, MulOp::create(b, loc, yt, y, cosF),
                                  MulOp::create(b, loc, yt, partner, sinF));
    auto maskT = RankedTensorType::get({N}, b.getI1Type());
    SmallVector<bool> mask(N, false);
    for (auto [lo, hi] : ranges)
      for (int64_t c = lo; c < hi; ++c)
        mask[c] = true;
    Value maskC = ConstantOp::create(b, loc, maskT, DenseElementsAttr::get(maskT, mask));
    Value y2 = WhereOp::create(b, loc, yt, maskC, rotated, y);
    for (SliceOp s : p.others)
      s->setOperand(0, y2);
    // q and k: the same head splits of y'.
    for (unsigned i : idx) {
      Rope &r = ropes[i];
      OpBuilder rb(r.result().getDefiningOp());
      IRMapping map;
      map.map(y, y2);
      Operation *s = rb.clone(*r.slice, map);
      Operation *sp = rb.clone(*r.split, map);
      sp->setOperand(0, s->getResult(0));
      Operation *h = rb.clone(*r.heads, map);
      h->setOperand(0, sp->getResult(0));
      r.result().replaceAllUsesWith(h->getResult(0));
      for (Operation *op : llvm::reverse(r.ops))
        op->erase();
      r.heads->erase();
      r.split->erase();
      r.slice->erase();
    }
    for (Value t : {first.cos, first.sin})
      if (Operation *d = t.getDefiningOp(); d && d->use_empty())
        d->erase();
  }
};

} // namespace
