//===- GraphRecomposeAttention.cpp - the attention chain -> graph.attention ------===//
//
// graph-recompose-attention (Passes.td gives the forms it matches). One pattern, rooted at
// the second matmul (probabilities @ V), walks the chain up: softmax over the last axis,
// an optional mask (additive, or a bool `where` against -inf), optional scalar scales, the
// Q K^T matmul and scalar factors on its operands. Every intermediate must have exactly one
// user: the scores and probabilities are then private to the attention and the fused
// kernel never writes them (Dao et al., "FlashAttention", 2022, section 3.1).
//
//===----------------------------------------------------------------------===//
#include "FusionRules.h"
#include "GraphAttentionKeyBound.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Target/TargetAttr.h"
#include "aicc/Target/TensorCoreRules.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHRECOMPOSEATTENTION
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// The value of a one-element floating-point value computed from constants alone (any
/// shape of one element): a constant, or sqrt / reciprocal / cast / mul / div / add / sub of
/// such values (torch exports the scale 1 / sqrt(d) as that arithmetic), or none. At most
/// `depth` ops deep.
std::optional<double> scalarConstant(Value v, int depth = 8) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getNumElements() != 1 || !isa<FloatType>(t.getElementType()) || depth < 0)
    return std::nullopt;
  DenseFPElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return (*attr.getValues<APFloat>().begin()).convertToDouble();
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  auto arg = [&](unsigned i) { return scalarConstant(d->getOperand(i), depth - 1); };
  if (isa<SqrtOp>(d))
    if (auto x = arg(0))
      return std::sqrt(*x);
  if (isa<ReciprocalOp>(d))
    if (auto x = arg(0))
      return 1.0 / *x;
  if (auto c = dyn_cast<CastOp>(d);
      c && isa<FloatType>(getElementTypeOrSelf(c->getOperand(0).getType())))
    return arg(0);
  if (isa<MulOp, DivOp, AddOp, SubOp>(d)) {
    auto x = arg(0), y = arg(1);
    if (!x || !y)
      return std::nullopt;
    if (isa<MulOp>(d))
      return *x * *y;
    if (isa<DivOp>(d))
      return *x / *y;
    return isa<AddOp>(d) ? *x + *y : *x - *y;
  }
  return std::nullopt;
}

/// `att`'s key_bound when one bound holds for every query row ([.., 1, 1]: it then holds for
/// the rows of a packed form too), else none.
Value rowConstantKeyBound(AttentionOp att) {
  Value kb = att.getKeyBound();
  return kb && cast<RankedTensorType>(kb.getType()).getShape().end()[-2] == 1 ? kb : Value();
}

bool isNegInfConstant(Value v) {
  auto c = scalarConstant(v);
  return c && std::isinf(*c) && *c < 0;
}

/// Peels scalar factors off `v`: v = x * c, c * x or x / c (c a finite, non-zero
/// one-element constant; each peeled op has one user). Multiplies `scale` by the factors.
Value peelScale(Value v, double &scale) {
  while (true) {
    Operation *d = v.getDefiningOp();
    if (!d || !v.hasOneUse() || !isa<MulOp, DivOp>(d))
      return v;
    auto rt = cast<RankedTensorType>(v.getType());
    bool peeled = false;
    for (int i = 0; i < (isa<DivOp>(d) ? 1 : 2); ++i) {
      Value x = d->getOperand(i), c = d->getOperand(1 - i);
      auto f = scalarConstant(c);
      if (!f || !std::isfinite(*f) || *f == 0.0 || x.getType() != rt)
        continue;
      scale *= isa<DivOp>(d) ? 1.0 / *f : *f;
      v = x;
      peeled = true;
      break;
    }
    if (!peeled)
      return v;
  }
}

/// The elements of constant `v`: its dense attribute, or the data of a float
/// dense_resource (the importer keeps large initializers, a [S, S] mask among them, as
/// resources) viewed as one; null otherwise.
DenseElementsAttr constantElements(Value v) {
  ElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return DenseElementsAttr();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense;
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  auto t = res ? dyn_cast<RankedTensorType>(res.getType()) : RankedTensorType();
  AsmResourceBlob *blob = res ? res.getRawHandle().getBlob() : nullptr;
  if (!blob || !t || !isa<FloatType>(t.getElementType()))
    return DenseElementsAttr();
  ArrayRef<char> raw = blob->getData();
  if ((int64_t)raw.size() != t.getNumElements() * t.getElementTypeBitWidth() / 8)
    return DenseElementsAttr();
  return DenseElementsAttr::getFromRawBuffer(t, raw);
}

/// Whether constant `v` is a [.., sq, skv] mask (every leading dim 1) whose element at
/// (i, j) satisfies `is(element, masked)` everywhere, masked = j > i + skv - sq (the
/// bottom-right aligned causal mask). AttrT / ElemT: DenseFPElementsAttr / APFloat for an
/// additive mask, DenseIntElementsAttr / APInt for a bool one.
template <typename AttrT, typename ElemT>
bool isCausalMask(Value v, int64_t sq, int64_t skv,
                  function_ref<bool(const ElemT &, bool masked)> is) {
  auto attr = dyn_cast_or_null<AttrT>(constantElements(v));
  if (!attr || sq > skv)
    return false;
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  if (shape.size() < 2 || shape.end()[-2] != sq || shape.back() != skv ||
      attr.getNumElements() != sq * skv)
    return false;
  int64_t idx = 0;
  for (const ElemT &x : attr.template getValues<ElemT>()) {
    int64_t i = idx / skv, j = idx % skv;
    ++idx;
    if (!is(x, j > i + (skv - sq)))
      return false;
  }
  return true;
}

/// An additive causal mask: 0 where visible, -inf where masked.
bool isCausalConstant(Value bias, int64_t sq, int64_t skv) {
  return isCausalMask<DenseFPElementsAttr, APFloat>(
      bias, sq, skv, [](const APFloat &x, bool masked) {
        double e = x.convertToDouble();
        return masked ? std::isinf(e) && e < 0 : e == 0.0;
      });
}

/// A bool causal mask: true exactly where masked (`trueMasks`, masked_fill's mask) or
/// exactly where visible.
bool isCausalBoolConstant(Value cond, int64_t sq, int64_t skv, bool trueMasks) {
  return isCausalMask<DenseIntElementsAttr, APInt>(cond, sq, skv, [&](const APInt &x, bool masked) {
    return x.getBoolValue() == (trueMasks == masked);
  });
}

/// `probs` as torch's scaled_dot_product_attention with a bool mask leaves it, in the
/// dynamo exporter's decomposition (softmax, then NaN probabilities -- a row without a
/// visible key -- zeroed): where(isnan(p), 0, p), IsNaN imported as not(p == p). Returns p
/// (whose only users are that cleanup) or null.
Value peelUndefinedRowsCleanup(Value probs) {
  auto w = probs.getDefiningOp<WhereOp>();
  if (!w || !probs.hasOneUse())
    return Value();
  Value p = w.getRhs();
  auto zero = scalarConstant(w.getLhs());
  auto isNan = w.getCond().getDefiningOp<NotOp>();
  auto same = isNan ? isNan.getInput().getDefiningOp<EqualOp>() : EqualOp();
  if (!zero || *zero != 0.0 || !same || !w.getCond().hasOneUse() || !isNan.getInput().hasOneUse() ||
      same.getLhs() != p || same.getRhs() != p || p.getType() != w.getType())
    return Value();
  // p's users: the comparison (both operands) and the where.
  for (Operation *u : p.getUsers())
    if (u != same.getOperation() && u != w.getOperation())
      return Value();
  return p;
}

struct RecomposeAttention : public OpRewritePattern<MatMulOp> {
  /// `gpu`: the GPU chip whose attention kernel must take the op (null on the cpu target,
  /// whose template takes every graph.attention).
  RecomposeAttention(MLIRContext *ctx, const aicc::ChipInfo *gpu)
      : OpRewritePattern(ctx), gpu(gpu) {}
  const aicc::ChipInfo *gpu;
  LogicalResult matchAndRewrite(MatMulOp pv, PatternRewriter &rewriter) const override {
    // The softmax, or (HF Llama and others: softmax(x, dtype=float32).to(x.dtype)) a 16-bit
    // cast of an f32 softmax of the 16-bit scores widened: the kernel computes the softmax
    // in f32 and rounds P to the operands' type all the same.
    // torch's SDPA with a bool mask zeroes the NaN rows (peelUndefinedRowsCleanup), before
    // or after that cast: the op's zero_undefined_rows. Exact but for a row without a
    // visible key and a non-finite V (torch: 0 @ V, NaN there; the op: 0).
    Value probs = pv.getLhs();
    bool zeroRows = false;
    auto peelCleanup = [&] {
      if (Value p = peelUndefinedRowsCleanup(probs)) {
        probs = p;
        zeroRows = true;
      }
    };
    peelCleanup();
    auto narrow = probs.getDefiningOp<CastOp>();
    if (narrow && narrow->hasOneUse())
      probs = narrow.getInput();
    if (!zeroRows)
      peelCleanup();
    auto sm = probs.getDefiningOp<SoftmaxOp>();
    auto yT = pv.getType();
    // With the cleanup the softmax's users are its comparison and where (checked there).
    if (!sm || (!zeroRows && !sm->hasOneUse()) || sm.getType().getRank() < 2 ||
        (int64_t)sm.getAxis() != sm.getType().getRank() - 1)
      return rewriter.notifyMatchFailure(pv, "left operand is not a last-axis softmax");
    Value s = sm.getInput();
    if (narrow) {
      auto widen = s.getDefiningOp<CastOp>();
      if (!widen || !s.hasOneUse() || !sm.getType().getElementType().isF32() ||
          widen.getInput().getType() != narrow.getType())
        return rewriter.notifyMatchFailure(pv, "a cast around the softmax that is not the "
                                               "f32 round trip of the scores");
      s = widen.getInput();
    }
    auto scoresT = cast<RankedTensorType>(s.getType());
    Type elem = scoresT.getElementType();
    // The masks: up to two layers over the scaled scores, additive ones (add) and at most
    // one bool one (where(cond, s, -inf) or where(cond, -inf, s)) -- GPT-2's eager
    // attention writes where(causal, s, -inf) + attention_mask, torch's eager attention
    // with a mask and is_causal an add of each. `reaches(x)`: x leads to Q K^T through
    // scales (which must sit below every mask: a scale above one would scale the mask) or
    // through a further mask layer.
    std::function<bool(Value, int)> reaches = [&](Value x, int depth) -> bool {
      double unused = 1.0;
      if (x.getType() != scoresT)
        return false;
      if (peelScale(x, unused).getDefiningOp<MatMulOp>())
        return true;
      if (depth == 0 || !x.hasOneUse())
        return false;
      Operation *d = x.getDefiningOp();
      if (isa_and_nonnull<AddOp>(d))
        return reaches(d->getOperand(0), depth - 1) || reaches(d->getOperand(1), depth - 1);
      if (auto w = dyn_cast_or_null<WhereOp>(d))
        return (isNegInfConstant(w.getRhs()) && reaches(w.getLhs(), depth - 1)) ||
               (isNegInfConstant(w.getLhs()) && reaches(w.getRhs(), depth - 1));
      return false;
    };
    SmallVector<Value, 2> biases;
    Value cond;
    bool condMasksTrue = false; // where(cond, -inf, s): cond marks the masked scores
    for (int layer = 0; layer < 2 && s.hasOneUse(); ++layer) {
      int below = 1 - layer; // mask layers the rest may still hold
      if (auto add = s.getDefiningOp<AddOp>()) {
        int i = reaches(add.getLhs(), below) ? 0 : reaches(add.getRhs(), below) ? 1 : -1;
        if (i < 0)
          break;
        biases.push_back(add->getOperand(1 - i));
        s = add->getOperand(i);
      } else if (auto w = s.getDefiningOp<WhereOp>(); w && !cond) {
        if (isNegInfConstant(w.getRhs()) && reaches(w.getLhs(), below)) {
          cond = w.getCond();
          s = w.getLhs();
        } else if (isNegInfConstant(w.getLhs()) && reaches(w.getRhs(), below)) {
          cond = w.getCond();
          condMasksTrue = true;
          s = w.getRhs();
        } else {
          break;
        }
      } else {
        break;
      }
    }
    double scale = 1.0;
    Value scores = peelScale(s, scale);
    auto qk = scores.getDefiningOp<MatMulOp>();
    if (!qk || !scores.hasOneUse() || qk.getType() != scoresT)
      return rewriter.notifyMatchFailure(pv, "no Q K^T matmul under the softmax");
    Value q = peelScale(qk.getLhs(), scale), kt = peelScale(qk.getRhs(), scale);
    Value v = pv.getRhs();
    auto qT = cast<RankedTensorType>(q.getType()), ktT = cast<RankedTensorType>(kt.getType()),
         vT = cast<RankedTensorType>(v.getType());
    if (qT.getRank() < 2 || ktT.getRank() < 2 || vT.getRank() < 2 || qT.getElementType() != elem ||
        ktT.getElementType() != elem || vT.getElementType() != elem ||
        yT.getElementType() != elem || !std::isfinite(scale))
      return rewriter.notifyMatchFailure(pv, "operands are not matrices of the scores' type");
    int64_t sq = scoresT.getShape().end()[-2], skv = scoresT.getShape().back();
    if (skv == 0)
      return rewriter.notifyMatchFailure(pv, "no keys (an empty contraction)");
    for (Value bias : biases) {
      auto bT = cast<RankedTensorType>(bias.getType());
      auto bc = broadcastShapes(scoresT.getShape(), bT.getShape());
      if (bT.getElementType() != elem || failed(bc) || ArrayRef<int64_t>(*bc) != scoresT.getShape())
        return rewriter.notifyMatchFailure(pv, "mask does not broadcast to the scores");
    }
    if (cond) {
      auto cT = cast<RankedTensorType>(cond.getType());
      auto bc = broadcastShapes(scoresT.getShape(), cT.getShape());
      if (failed(bc) || ArrayRef<int64_t>(*bc) != scoresT.getShape())
        return rewriter.notifyMatchFailure(pv, "bool mask does not broadcast to the scores");
    }
    // The rest of the op's contract (head sizes, batch broadcast, result shape) holds
    // because both matmuls are valid and the peeled scales keep their operand's type.
    Location loc = pv.getLoc();
    bool causal = false;
    for (Value &bias : biases)
      if (!causal && isCausalConstant(bias, sq, skv)) {
        causal = true;
        bias = Value();
      }
    if (!causal && cond && isCausalBoolConstant(cond, sq, skv, condMasksTrue)) {
      causal = true;
      cond = Value();
    }
    llvm::erase(biases, Value());
    if (gpu) {
      // GPU targets: only the attention their kernel runs (TensorCoreRules.h); the rest
      // stays four kernels.
      aicc::AttentionShape shape;
      shape.operand = aicc::tensorCoreOperandOf(elem, /*tf32=*/false);
      shape.headSize = qT.getShape().back();
      shape.valueHeadSize = vT.getShape().back();
      shape.keyLength = skv;
      shape.batch = 1;
      for (int64_t d : yT.getShape().drop_back(2))
        shape.batch *= d;
      shape.bias = !biases.empty() || cond;
      // K^T read as K's rows through the views graph-fuse will take (single users).
      auto view = attentionOperandView(kt, 1, [](Operation *d) { return d->hasOneUse(); });
      shape.keyRowMajor = view && view->keyRows;
      std::string why = aicc::attentionMmaSyncProblem(shape, *gpu);
      // f32: the generic kernel (the cpu template's program, TensorCoreRules.h).
      std::string simt = aicc::attentionSimtProblem(shape, *gpu);
      if (!why.empty() && !simt.empty())
        return rewriter.notifyMatchFailure(pv, "the " + std::string(gpu->name) +
                                                   " attention kernels do not take it: " + why +
                                                   "; " + simt);
    }
    if (cond) {
      // bias = where(cond, 0, -inf) (or where(cond, -inf, 0)), the mask's own shape.
      auto cT = cast<RankedTensorType>(cond.getType());
      auto scalarT = RankedTensorType::get({}, elem);
      auto c = [&](double x) -> Value {
        return ConstantOp::create(rewriter, loc, scalarT,
                                  DenseElementsAttr::get(scalarT, rewriter.getFloatAttr(elem, x)));
      };
      double ninf = -std::numeric_limits<double>::infinity();
      Value zero = c(0.0), masked = c(ninf);
      biases.push_back(WhereOp::create(rewriter, loc, RankedTensorType::get(cT.getShape(), elem),
                                       cond, condMasksTrue ? masked : zero,
                                       condMasksTrue ? zero : masked));
    }
    // Two masks left (neither causal): their sum, broadcast between them.
    Value bias = biases.empty() ? Value() : biases.front();
    if (biases.size() == 2) {
      auto aT = cast<RankedTensorType>(biases[0].getType()),
           bT = cast<RankedTensorType>(biases[1].getType());
      // Both broadcast to the scores, so to each other.
      auto bc = broadcastShapes(aT.getShape(), bT.getShape());
      SmallVector<int64_t> shape(succeeded(bc) ? ArrayRef<int64_t>(*bc) : scoresT.getShape());
      bias = AddOp::create(rewriter, loc, RankedTensorType::get(shape, elem), biases[0], biases[1]);
    }
    auto op = AttentionOp::create(rewriter, loc, yT, q, kt, v, bias, Value(),
                                  rewriter.getF64FloatAttr(scale),
                                  causal ? rewriter.getUnitAttr() : UnitAttr(),
                                  zeroRows ? rewriter.getUnitAttr() : UnitAttr(), FloatAttr());
    rewriter.replaceOp(pv, op.getResult());
    return success();
  }
};

/// The most queries per head the packings below take (issue 17's decode: 1..16): more is a
/// prefill, whose query blocks fill the GPU without packing.
constexpr int64_t kMaxPackedQueries = 16;

/// Why the query rows of `att` (rank r) cannot be packed with the query heads sharing a K /
/// V head ("" when they can): the causal mask of more than one query depends on the query's
/// own row (one query sees every key: the flag goes), and a bias must be constant over the
/// heads and the rows (size 1 at dims r - 3 and r - 2, right-aligned: a padding mask
/// [B, 1, 1, Skv]) so that it broadcasts to the packed scores as it is.
static std::string packingProblem(AttentionOp att, int64_t r) {
  if (att.getCausal() && att.getQueryLength() != 1)
    return "causal over more than one query";
  // (The packing keeps a bound that holds for every row, rowConstantKeyBound.)
  if (att.getKeyBoundMask() && !rowConstantKeyBound(att))
    return "a key_bound mask varying over the query rows";
  if (Value bias = att.getBias()) {
    auto t = cast<RankedTensorType>(bias.getType());
    for (int64_t d : {r - 3, r - 2}) {
      int64_t bd = d - (r - t.getRank());
      if (bd >= 0 && t.getDimSize(bd) != 1)
        return "a bias varying over the query heads or rows";
    }
  }
  return "";
}

/// Grouped-query decode: Sq queries per head, G query heads sharing each K / V head (q's
/// batch dim just above the rows has size G where K^T's and V's have 1, HF's repeat_kv made
/// a broadcast) becomes one attention over G Sq query rows per K / V head,
///
///   y = reshape(attention(reshape(q) [..., 1, G Sq, D], kt, v)) [..., G, Sq, Dv]
///
/// (both reshapes views of contiguous memory), so the kernel reads each K / V block once for
/// the G heads instead of once per query head (flash-decoding's GQA packing). Queries and
/// rows must not be told apart (packingProblem): not causal unless Sq = 1 (then the mask
/// hides nothing -- key j is visible when j <= Skv - 1 -- and is dropped), a bias only as a
/// padding mask.
struct PackGroupedQueries : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp att, PatternRewriter &rewriter) const override {
    auto qT = cast<RankedTensorType>(att.getQuery().getType());
    auto ktT = cast<RankedTensorType>(att.getKeyT().getType());
    auto vT = cast<RankedTensorType>(att.getValue().getType());
    auto yT = att.getType();
    int64_t r = qT.getRank();
    if (r < 3 || att.getQueryLength() > kMaxPackedQueries || !qT.hasStaticShape() ||
        !yT.hasStaticShape() || ktT.getRank() != r || vT.getRank() != r)
      return rewriter.notifyMatchFailure(att, "not a few queries per head over equal-rank K, V");
    std::string why = packingProblem(att, r);
    if (!why.empty())
      return rewriter.notifyMatchFailure(att, why);
    int64_t g = qT.getDimSize(r - 3);
    if (g <= 1 || ktT.getDimSize(r - 3) != 1 || vT.getDimSize(r - 3) != 1)
      return rewriter.notifyMatchFailure(att, "no query heads sharing a K / V head");
    auto pack = [&](RankedTensorType t) {
      SmallVector<int64_t> s(t.getShape());
      s[r - 2] *= s[r - 3];
      s[r - 3] = 1;
      return RankedTensorType::get(s, t.getElementType());
    };
    Location loc = att.getLoc();
    Value q = ReshapeOp::create(rewriter, loc, pack(qT), att.getQuery());
    auto packed =
        AttentionOp::create(rewriter, loc, pack(yT), q, att.getKeyT(), att.getValue(),
                            att.getBias(), rowConstantKeyBound(att), att.getScaleAttr(), UnitAttr(),
                            att.getZeroUndefinedRowsAttr(), att.getKeyBoundMaskAttr());
    rewriter.replaceOpWithNewOp<ReshapeOp>(att, yT, packed.getResult());
    return success();
  }
};

/// `v` as HF's repeat_kv writes a K or V of `heads` heads from one of fewer: reshape(expand(x))
/// with x [..., Hkv, 1, S, D] expanded to [..., Hkv, G, S, D] and viewed [..., Hkv * G, S,
/// D] (= `heads`). Returns x and sets `groups` to G, or null.
static Value repeatedKV(Value v, int64_t &groups) {
  auto reshape = v.getDefiningOp<ReshapeOp>();
  auto expand = reshape ? reshape.getInput().getDefiningOp<ExpandOp>() : ExpandOp();
  if (!expand)
    return Value();
  auto xT = cast<RankedTensorType>(expand.getInput().getType());
  auto eT = cast<RankedTensorType>(expand.getType());
  auto vT = cast<RankedTensorType>(v.getType());
  int64_t r = vT.getRank();
  if (!xT.hasStaticShape() || !vT.hasStaticShape() || r < 3 || xT.getRank() != r + 1 ||
      eT.getRank() != r + 1)
    return Value();
  ArrayRef<int64_t> x = xT.getShape(), e = eT.getShape(), out = vT.getShape();
  // x = [prefix..., Hkv, 1, S, D], e = x with G at the 1, out = [prefix..., Hkv * G, S, D].
  if (x[r - 2] != 1 || e[r - 2] <= 1 || x.take_front(r - 2) != e.take_front(r - 2) ||
      x.take_back(2) != e.take_back(2) || x.take_front(r - 3) != out.take_front(r - 3) ||
      out[r - 3] != x[r - 3] * e[r - 2] || x.take_back(2) != out.take_back(2))
    return Value();
  groups = e[r - 2];
  return expand.getInput();
}

/// Grouped-query decode as HF writes it: Sq queries per head against K and V repeated per
/// query-head group (repeatedKV: K^T a transpose of the last two dims of one) becomes one
/// attention of G Sq query rows per K / V head over the unrepeated K and V,
///
///   y = reshape(attention(reshape(q) [..., Hkv, G Sq, D], transpose(reshape(k)), reshape(v)))
///
/// (every reshape a view), so K and V are read once per K / V head instead of once per
/// query head -- the packing of PackGroupedQueries above for the expand form, under the same
/// rules (packingProblem; HF's attention_mask [B, 1, 1, Skv] of a decode step packs).
struct PackRepeatedKV : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp att, PatternRewriter &rewriter) const override {
    auto qT = cast<RankedTensorType>(att.getQuery().getType());
    auto yT = att.getType();
    int64_t r = qT.getRank();
    auto kt = att.getKeyT().getDefiningOp<TransposeOp>();
    if (att.getQueryLength() > kMaxPackedQueries || r < 3 || !qT.hasStaticShape() ||
        !yT.hasStaticShape() || !kt)
      return rewriter.notifyMatchFailure(att, "not a few queries per head with K^T a transpose");
    std::string why = packingProblem(att, r);
    if (!why.empty())
      return rewriter.notifyMatchFailure(att, why);
    SmallVector<int64_t> swapLast2 = llvm::to_vector(llvm::seq<int64_t>(0, r));
    std::swap(swapLast2[r - 1], swapLast2[r - 2]);
    int64_t gk = 0, gv = 0;
    Value k5 = repeatedKV(kt.getInput(), gk), v5 = repeatedKV(att.getValue(), gv);
    if (kt.getPerm() != ArrayRef<int64_t>(swapLast2) || !k5 || !v5 || gk != gv ||
        qT.getShape().drop_back(2) !=
            cast<RankedTensorType>(att.getValue().getType()).getShape().drop_back(2))
      return rewriter.notifyMatchFailure(att, "K and V are not repeated per query-head group");
    Location loc = att.getLoc();
    // x [..., Hkv, 1, S, D] -> [..., Hkv, S, D].
    auto drop = [&](Value x5) -> Value {
      auto t = cast<RankedTensorType>(x5.getType());
      SmallVector<int64_t> s(t.getShape());
      s.erase(s.begin() + (r - 2));
      return ReshapeOp::create(rewriter, loc, RankedTensorType::get(s, t.getElementType()), x5);
    };
    Value k4 = drop(k5), v4 = drop(v5);
    auto k4T = cast<RankedTensorType>(k4.getType());
    SmallVector<int64_t> ktShape(k4T.getShape());
    std::swap(ktShape[r - 1], ktShape[r - 2]);
    Value kt4 = TransposeOp::create(rewriter, loc,
                                    RankedTensorType::get(ktShape, k4T.getElementType()), k4,
                                    rewriter.getDenseI64ArrayAttr(swapLast2));
    // q [..., H, Sq, D] -> [..., Hkv, G Sq, D]; the result back to [..., H, Sq, Dv].
    auto rows = [&](RankedTensorType t) {
      SmallVector<int64_t> s(t.getShape().drop_back(3));
      s.append({t.getDimSize(r - 3) / gk, gk * t.getDimSize(r - 2), t.getDimSize(r - 1)});
      return RankedTensorType::get(s, t.getElementType());
    };
    Value q = ReshapeOp::create(rewriter, loc, rows(qT), att.getQuery());
    auto packed = AttentionOp::create(rewriter, loc, rows(yT), q, kt4, v4, att.getBias(),
                                      rowConstantKeyBound(att), att.getScaleAttr(), UnitAttr(),
                                      att.getZeroUndefinedRowsAttr(), att.getKeyBoundMaskAttr());
    rewriter.replaceOpWithNewOp<ReshapeOp>(att, yT, packed.getResult());
    return success();
  }
};

struct GraphRecomposeAttentionPass
    : public aicc::graph::impl::GraphRecomposeAttentionBase<GraphRecomposeAttentionPass> {
  void runOnOperation() override {
    // The module's aicc.target (include/aicc/Target/TargetAttr.h); none: cpu.
    const aicc::ChipInfo *chip =
        aicc::resolveChip(getOperation(), aicc::ChipRole::Target, "", "cpu", getArgument());
    if (!chip)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<RecomposeAttention>(&getContext(), chip->isGPU ? chip : nullptr);
    patterns.add<PackGroupedQueries, PackRepeatedKV>(&getContext());
    populateAttentionKeyBoundPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
