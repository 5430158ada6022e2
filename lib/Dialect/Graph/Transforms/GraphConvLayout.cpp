//===- GraphConvLayout.cpp - graph-conv-layout: NCHW <-> NHWC convolutions -===//
//
// Rewrites 2-D, group-1 convolutions into the requested layout with transposes around
// them (GraphOps.td, graph.conv: NHWC = NCHW with X, W transposed by [0, 2, 3, 1] and Y
// transposed back by [0, 3, 1, 2]), then sinks the transposes back to the other layout
// below elementwise consumers so that transpose pairs between consecutive convolutions
// cancel (TransposeOp::fold: transpose(transpose(x, p), q) = x when p[q[i]] = i; a
// transpose of a constant folds to the transposed constant).
//
//===----------------------------------------------------------------------===//
#include "TransposeUtils.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallSet.h"

#include <functional>

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHCONVLAYOUT
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// NCHW -> NHWC and back, for rank-4 tensors.
constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

/// The transpose by `perm` that defines `v`, if any.
TransposeOp transposeBy(Value v, ArrayRef<int64_t> perm) {
  auto t = v.getDefiningOp<TransposeOp>();
  return t && t.getPerm() == perm ? t : TransposeOp();
}

/// Replaces `op` by a clone of it (properties kept: alpha, axes, count_include_pad, ...) that
/// reads `operands` and yields `type`, followed by a transpose by `perm` back to the old
/// order (none when `perm` is empty). `attrs` are set on the clone.
void rebuildInNewLayout(PatternRewriter &rewriter, Operation *op, ValueRange operands,
                        RankedTensorType type, ArrayRef<int64_t> perm,
                        ArrayRef<NamedAttribute> attrs = {}) {
  Operation *inner = rewriter.clone(*op);
  inner->setOperands(operands);
  for (NamedAttribute a : attrs)
    inner->setAttr(a.getName(), a.getValue());
  inner->getResult(0).setType(type);
  Value r = inner->getResult(0);
  if (!perm.empty())
    r = transpose(rewriter, op->getLoc(), r, perm);
  rewriter.replaceOp(op, r);
}

/// E(transpose(a, q), ...) -> transpose(E(a, ...), q) for an elementwise E whose operands
/// are transposes by q (the conv-layout pass's "back" permutation) of the result's rank, a
/// constant of the result's rank (transposed by q^-1, which folds), or tensors of size-1
/// dims only (they broadcast the same in any layout). At least one operand is such a
/// transpose. The E's other operands are left alone otherwise: no new transpose is put on
/// a computed value.
struct SinkTransposeBelowElementwise : public RewritePattern {
  SinkTransposeBelowElementwise(MLIRContext *ctx, ArrayRef<int64_t> back)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), back(back) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!commutesWithTranspose(op))
      return failure();
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!rt || rt.getRank() != (int64_t)back.size())
      return failure();
    SmallVector<int64_t> inv = inversePerm(back);
    bool anyTranspose = false;
    for (Value o : op->getOperands()) {
      auto ot = dyn_cast<RankedTensorType>(o.getType());
      if (!ot)
        return failure();
      if (transposeBy(o, back)) {
        anyTranspose = true;
        continue;
      }
      if (ot.getRank() == rt.getRank() && o.getDefiningOp<ConstantOp>())
        continue;
      if (llvm::all_of(ot.getShape(), [](int64_t d) { return d == 1; }))
        continue;
      return failure();
    }
    if (!anyTranspose)
      return failure();
    SmallVector<Value> operands;
    for (Value o : op->getOperands()) {
      auto ot = cast<RankedTensorType>(o.getType());
      if (TransposeOp t = transposeBy(o, back))
        operands.push_back(t.getInput());
      else if (ot.getRank() == rt.getRank() && o.getDefiningOp<ConstantOp>())
        operands.push_back(transpose(rewriter, op->getLoc(), o, inv));
      else
        operands.push_back(o);
    }
    rebuildInNewLayout(rewriter, op, operands, permuted(rt, inv), back);
    return success();
  }

  SmallVector<int64_t> back;
};

/// Pool_from(transpose(a, back)) -> transpose(Pool_to(a), back): a max / average pool whose
/// input is a transpose back to the old layout pools in the new one (NHWC pools read
/// consecutive channels per lane, WindowTemplate.cpp), so conv -> pool -> conv keeps the
/// pool between two NHWC convs with no transpose around it.
template <typename PoolOp> struct SinkTransposeBelowPool : public OpRewritePattern<PoolOp> {
  SinkTransposeBelowPool(MLIRContext *ctx, ArrayRef<int64_t> back, StringRef to)
      : OpRewritePattern<PoolOp>(ctx), back(back), to(to) {}

  LogicalResult matchAndRewrite(PoolOp pool, PatternRewriter &rewriter) const override {
    TransposeOp t = transposeBy(pool.getInput(), back);
    if (!t || pool.getLayout() == to || pool.getType().getRank() != (int64_t)back.size())
      return failure();
    rebuildInNewLayout(rewriter, pool, {t.getInput()}, permuted(pool.getType(), inversePerm(back)),
                       back, {rewriter.getNamedAttr("layout", rewriter.getStringAttr(to))});
    return success();
  }

  SmallVector<int64_t> back;
  std::string to;
};

/// Conv_from(transpose(a, back), W) -> transpose(Conv_to(a, transpose(W, back^-1)), back) for
/// the convolutions the pass leaves in the old layout (group > 1: depthwise and grouped
/// convs, which the window template runs in both layouts), of the pass's element types:
/// mobilenet's depthwise convs sit between NHWC pointwise convs.
struct SinkTransposeBelowGroupConv : public OpRewritePattern<ConvOp> {
  SinkTransposeBelowGroupConv(MLIRContext *ctx, ArrayRef<int64_t> back, StringRef to,
                              std::function<bool(ConvOp)> eligible)
      : OpRewritePattern<ConvOp>(ctx), back(back), to(to), eligible(std::move(eligible)) {}

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    TransposeOp t = transposeBy(conv.getInput(), back);
    if (!t || conv.getLayout() == to || conv.getType().getRank() != (int64_t)back.size() ||
        !eligible(conv))
      return failure();
    SmallVector<int64_t> toTarget = inversePerm(back);
    Location loc = conv.getLoc();
    Value w = transpose(rewriter, loc, conv.getWeight(), toTarget);
    auto y =
        ConvOp::create(rewriter, loc, permuted(conv.getType(), toTarget), t.getInput(), w,
                       conv.getBias(), conv.getStridesAttr(), conv.getPadsAttr(),
                       conv.getDilationsAttr(), conv.getGroupAttr(), rewriter.getStringAttr(to));
    rewriter.replaceOp(conv, transpose(rewriter, loc, y, back));
    return success();
  }

  SmallVector<int64_t> back;
  std::string to;
  std::function<bool(ConvOp)> eligible;
};

/// R(transpose(a, p), axes, keepdims) -> transpose(R(a, p[axes], keepdims), p) for a
/// reduce_* with keepdims (the result keeps every dim, so the same transpose restores the
/// order): mobilenet's squeeze-excitation means over H and W, ResNet's global average pool.
/// Without keepdims the reduced dims leave the result, and the transpose applies to what
/// remains (nothing when the kept dims keep their order).
struct SinkTransposeBelowReduce : public RewritePattern {
  SinkTransposeBelowReduce(MLIRContext *ctx, ArrayRef<int64_t> back)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx), back(back) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isReduction(op) || op->getNumOperands() != 1 || op->getNumResults() != 1)
      return failure();
    TransposeOp t = transposeBy(op->getOperand(0), back);
    auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    auto keep = op->getAttrOfType<BoolAttr>("keepdims");
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = back.size();
    if (!t || !axesAttr || !rt || axesAttr.empty())
      return failure();
    bool keepdims = !keep || keep.getValue();
    // Input dims reduced: p[axes], sorted (ReduceOp's axes are sorted and unique).
    SmallVector<int64_t> axes;
    llvm::SmallBitVector reduced(rank);
    for (int64_t a : axesAttr.asArrayRef()) {
      if (a < 0 || a >= rank)
        return failure();
      axes.push_back(back[a]);
      reduced.set(back[a]);
    }
    llvm::sort(axes);
    // The new reduction's result: the input's dims (size 1 where reduced, or dropped).
    RankedTensorType inT = t.getInput().getType();
    SmallVector<int64_t> shape, keptIn; // keptIn: input dims left, in order
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d])
        keptIn.push_back(d);
      if (!reduced[d] || keepdims)
        shape.push_back(reduced[d] ? 1 : inT.getDimSize(d));
    }
    // The permutation restoring the old order: with keepdims p itself; without, result dim j
    // (the j-th kept dim i of the old order) is input dim p[i], at its place in keptIn.
    SmallVector<int64_t> perm;
    if (keepdims) {
      perm.assign(back.begin(), back.end());
    } else {
      for (int64_t i = 0; i < rank; ++i)
        if (!llvm::is_contained(axesAttr.asArrayRef(), i))
          perm.push_back(llvm::find(keptIn, back[i]) - keptIn.begin());
    }
    rebuildInNewLayout(rewriter, op, {t.getInput()},
                       RankedTensorType::get(shape, rt.getElementType()), perm,
                       {rewriter.getNamedAttr("axes", rewriter.getDenseI64ArrayAttr(axes))});
    return success();
  }

  SmallVector<int64_t> back;
};

/// transpose(x, p) -> reshape(x) when p keeps the order of x's dims of size > 1 (it moves
/// only size-1 dims: the same bytes in the same order), e.g. [8, 1, 1, 512] -> [8, 512, 1,
/// 1] after a global average pool in NHWC. A reshape is a view; a transpose may be a copy.
struct TransposeOfUnitDimsToReshape : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp t, PatternRewriter &rewriter) const override {
    RankedTensorType in = t.getInput().getType();
    if (!in.hasStaticShape() || !t.getType().hasStaticShape()) // graph.reshape is static
      return failure();
    int64_t last = -1;
    for (int64_t p : t.getPerm()) {
      if (in.getDimSize(p) == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(t, t.getType(), t.getInput());
    return success();
  }
};

/// NHWC conv X [N, H, W, C] with C * bytes not a multiple of 16 (a first layer's 3 RGB
/// channels): the implicit-GEMM gather copies 16 bytes of channels at a time only when C is a
/// multiple of 16 / bytes, and one element at a time otherwise (ConvertTileDotToWGMMA's
/// gather; 136 us against cuDNN's 21 us for ResNet-18's 7x7 stem at batch 8 on the H200).
/// Padding C with zero channels (X by a graph.pad that fuses with the layout transpose
/// before it, W by one that folds for a constant weight) keeps every output the same (the
/// padded products are 0) and lets the gather copy whole pixels. Only group-1 f16 / bf16
/// NHWC convs with fewer than 8 channels whose input is a layout transpose (the model's
/// NCHW input: the pad joins that copy's kernel; elsewhere it would be a kernel of its
/// own); f32 convs (CUDA cores unless tf32) gain nothing from whole-pixel copies.
void padConvChannels(OpBuilder &b, ConvOp c, int64_t vec) {
  RankedTensorType xT = c.getInput().getType(), wT = c.getWeight().getType();
  int64_t rank = xT.getRank(), C = xT.getDimSize(rank - 1);
  Type e = xT.getElementType();
  if (!c.isChannelsLast() || c.getGroup() != 1 || rank != 4 || C >= vec || C < 1 ||
      !(e.isF16() || e.isBF16()) || !c.getInput().getDefiningOp<TransposeOp>())
    return;
  auto pad = [&](Value v, RankedTensorType t) -> Value {
    SmallVector<int64_t> low(rank, 0), high(rank, 0), shape(t.getShape());
    high[rank - 1] = vec - C;
    shape[rank - 1] = vec;
    // createOrFold: a constant weight becomes the padded constant (PadOp::fold).
    return b.createOrFold<PadOp>(c.getLoc(), RankedTensorType::get(shape, t.getElementType()), v,
                                 b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
                                 b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
  };
  b.setInsertionPoint(c);
  Value x = pad(c.getInput(), xT), w = pad(c.getWeight(), wT);
  c.getInputMutable().assign(x);
  c.getWeightMutable().assign(w);
}

struct GraphConvLayout : public aicc::graph::impl::GraphConvLayoutBase<GraphConvLayout> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool toNHWC;
    if (layout == "nhwc")
      toNHWC = true;
    else if (layout == "nchw")
      toNHWC = false;
    else {
      func.emitError("graph-conv-layout: layout must be nhwc or nchw, got '") << layout << "'";
      return signalPassFailure();
    }
    StringRef from = toNHWC ? "NCHW" : "NHWC", to = toNHWC ? "NHWC" : "NCHW";
    ArrayRef<int64_t> toTarget = toNHWC ? ArrayRef<int64_t>(kToNHWC) : ArrayRef<int64_t>(kToNCHW);
    ArrayRef<int64_t> back = toNHWC ? ArrayRef<int64_t>(kToNCHW) : ArrayRef<int64_t>(kToNHWC);

    // f16 / bf16 / f32 only: the NHWC kernel (the implicit-GEMM template) takes those; the
    // integer convs (ConvInteger, imported as f64 convs) stay NCHW. `element-types` narrows
    // the set (conv-layout=auto: the 16-bit types tensor cores take).
    llvm::SmallSet<std::string, 3> types;
    for (const std::string &t : elementTypes) {
      if (t != "f16" && t != "bf16" && t != "f32") {
        func.emitError("graph-conv-layout: element-types takes f16, bf16 and f32, got '")
            << t << "'";
        return signalPassFailure();
      }
      types.insert(t);
    }
    if (types.empty())
      types = {"f16", "bf16", "f32"};
    auto typeOK = [&](ConvOp c) {
      Type e = c.getInput().getType().getElementType();
      std::string name = e.isF16() ? "f16" : e.isBF16() ? "bf16" : e.isF32() ? "f32" : "";
      return types.contains(name);
    };
    SmallVector<ConvOp> convs;
    func.walk([&](ConvOp c) {
      if (c.getLayout() == from && c.getGroup() == 1 && c.getInput().getType().getRank() == 4 &&
          typeOK(c))
        convs.push_back(c);
    });
    if (convs.empty())
      return;
    OpBuilder b(func.getContext());
    for (ConvOp c : convs) {
      b.setInsertionPoint(c);
      Location loc = c.getLoc();
      Value x = transpose(b, loc, c.getInput(), toTarget);
      Value w = transpose(b, loc, c.getWeight(), toTarget);
      auto y = ConvOp::create(b, loc, permuted(c.getType(), toTarget), x, w, c.getBias(),
                              c.getStridesAttr(), c.getPadsAttr(), c.getDilationsAttr(),
                              c.getGroupAttr(), b.getStringAttr(to));
      c.replaceAllUsesWith(transpose(b, loc, y, back));
      c.erase();
    }
    // Sink the transposes back below elementwise consumers, pools, grouped convs and
    // reductions; the greedy driver folds transpose pairs that cancel, transposes of
    // constants (the weights) and pads of constants (padConvChannels' weights).
    MLIRContext *ctx = func.getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<SinkTransposeBelowElementwise, SinkTransposeBelowReduce>(ctx, back);
    patterns.add<SinkTransposeBelowPool<MaxPoolOp>, SinkTransposeBelowPool<AvgPoolOp>>(ctx, back,
                                                                                       to);
    patterns.add<SinkTransposeBelowGroupConv>(
        ctx, back, to, [typeOK](ConvOp c) { return c.getGroup() > 1 && typeOK(c); });
    // Not converging within the driver's iteration limit leaves correct IR (each step is
    // an equivalence), only less folded.
    (void)applyPatternsGreedily(func, std::move(patterns));
    // Then the layout copies that remain (at the model's edges) take the channel padding
    // of the few-channel convs they feed, and the transposes that move only size-1 dims
    // become reshapes (only now: the sinking above matches transposes).
    if (padChannels != 0 && padChannels != 4 && padChannels != 8) {
      func.emitError("graph-conv-layout: pad-channels takes 0, 4 or 8, got ")
          << static_cast<int64_t>(padChannels);
      return signalPassFailure();
    }
    if (toNHWC && padChannels)
      func.walk([&](ConvOp c) { padConvChannels(b, c, padChannels); });
    RewritePatternSet views(ctx);
    views.add<TransposeOfUnitDimsToReshape>(ctx);
    (void)applyPatternsGreedily(func, std::move(views));
  }
};

} // namespace
