//===- GraphSinkTransposes.cpp - row-order transposes across row-wise ops ---===//
//
// A transpose that keeps the last dim only reorders rows; row-wise ops (a matmul by a 2-D
// weight, elementwise ops whose other operands are the same for every row) commute with
// it. The patterns move such transposes to where a view chain absorbs them (the GPU
// attention kernel's operands and head merge), so no copy kernel runs for them. The pass
// description in Passes.td has the rules.
//
//===----------------------------------------------------------------------===//
#include "TransposeUtils.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHSINKTRANSPOSES
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// A single-user transpose outside fusion groups that keeps the last dim (moves rows only).
TransposeOp rowTranspose(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || t->getParentOfType<FusionGroupOp>())
    return TransposeOp();
  ArrayRef<int64_t> p = t.getPerm();
  return !p.empty() && p.back() == (int64_t)p.size() - 1 ? t : TransposeOp();
}

/// An operand every row sees the same: rank <= 1 (a bias [N], a scalar) or all dims but the
/// last of size 1. It broadcasts the same before and after a row-order transpose.
bool sameForEveryRow(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && llvm::all_of(t.getShape().drop_back(t.getRank() ? 1 : 0),
                           [](int64_t d) { return d == 1; });
}

/// matmul(transpose(x, p), W) -> transpose(matmul(x, W), p) for a 2-D W.
struct SinkBelowMatMul : public OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    TransposeOp t = rowTranspose(op.getLhs());
    auto w = cast<RankedTensorType>(op.getRhs().getType());
    auto rt = cast<RankedTensorType>(op.getType());
    if (!t || w.getRank() != 2 || rt.getRank() < 2 || op->getParentOfType<FusionGroupOp>())
      return failure();
    ArrayRef<int64_t> p = t.getPerm();
    auto inner = MatMulOp::create(rewriter, op.getLoc(), permuted(rt, inversePerm(p)), t.getInput(),
                                  op.getRhs());
    // The moved transpose keeps its own location (the exporter's node name in reports).
    rewriter.replaceOp(op, transpose(rewriter, t.getLoc(), inner, p));
    return success();
  }
};

/// E(transpose(x, p), c...) -> transpose(E(x, c...), p) when every other operand is the
/// same for every row and x comes from a matmul, a gemm or an elementwise op: E then joins
/// x's kernel (a matmul epilogue: the bias add after the projection). A transpose of a
/// view or an input stays: the elementwise kernel of E reads through it in place, where
/// E's result could not be fused into a transpose consumer.
struct SinkBelowElementwise : public RewritePattern {
  SinkBelowElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!commutesWithTranspose(op) || op->getParentOfType<FusionGroupOp>())
      return failure();
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    TransposeOp t;
    unsigned at = 0;
    for (auto [i, o] : llvm::enumerate(op->getOperands()))
      if (!t && o.getType() == rt && (t = rowTranspose(o)))
        at = i;
    Operation *src = t ? t.getInput().getDefiningOp() : nullptr;
    if (!src || !(isa<MatMulOp, GemmOp>(src) || commutesWithTranspose(src)) ||
        llvm::any_of(llvm::enumerate(op->getOperands()),
                     [&](auto io) { return io.index() != at && !sameForEveryRow(io.value()); }))
      return failure();
    Operation *inner = rewriter.clone(*op); // keeps the op's properties
    inner->setOperand(at, t.getInput());
    inner->getResult(0).setType(permuted(rt, inversePerm(t.getPerm())));
    rewriter.replaceOp(op, transpose(rewriter, t.getLoc(), inner->getResult(0), t.getPerm()));
    return success();
  }
};

/// The number of leading dims of `shape` whose product is `m`, or none.
std::optional<size_t> leadingDimsOf(ArrayRef<int64_t> shape, int64_t m) {
  int64_t prod = 1;
  for (size_t k = 0; k <= shape.size(); ++k) {
    if (prod == m)
      return k;
    if (k == shape.size() || prod > m)
      break;
    prod *= shape[k];
  }
  return std::nullopt;
}

/// transpose(reshape(G(reshape(z))), p) -> reshape(G(reshape(transpose(z, p')))): the
/// row-wise G (a gemm, or a matmul by a 2-D weight) over [M, K] rows that are z's leading
/// dims L merged, its [M, N] result split back into L; p permutes L only, p' is p on z's
/// L and the identity on z's other dims.
struct HoistAboveRowGemm : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> p = op.getPerm();
    auto out = op.getInput().getDefiningOp<ReshapeOp>();
    if (op->getParentOfType<FusionGroupOp>() || p.empty() || p.back() != (int64_t)p.size() - 1 ||
        !out || !out->hasOneUse())
      return failure();
    Operation *g = out.getInput().getDefiningOp();
    Value a;
    if (auto gemm = dyn_cast_or_null<GemmOp>(g);
        gemm && !gemm.getTransA() && (!gemm.getC() || sameForEveryRow(gemm.getC())))
      a = gemm.getA();
    else if (auto mm = dyn_cast_or_null<MatMulOp>(g);
             mm && cast<RankedTensorType>(mm.getRhs().getType()).getRank() == 2)
      a = mm.getLhs();
    if (!a || !g->hasOneUse() || cast<RankedTensorType>(a.getType()).getRank() != 2)
      return failure();
    auto in = a.getDefiningOp<ReshapeOp>();
    if (!in || !in->hasOneUse())
      return failure();
    ArrayRef<int64_t> zs = cast<RankedTensorType>(in.getInput().getType()).getShape();
    ArrayRef<int64_t> ys = cast<RankedTensorType>(out.getType()).getShape();
    int64_t m = cast<RankedTensorType>(a.getType()).getDimSize(0);
    // The result's leading dims (all but its last) must be z's leading dims L.
    auto lz = leadingDimsOf(zs, m);
    if (!lz || ys.size() < 2 || ArrayRef<int64_t>(ys).drop_back() != zs.take_front(*lz))
      return failure();
    SmallVector<int64_t> pz(p.drop_back());
    for (size_t k = *lz; k < zs.size(); ++k)
      pz.push_back(k);
    // Each new op keeps the location of the one it stands for.
    Value zt = transpose(rewriter, op.getLoc(), in.getInput(), pz);
    Value a2 = ReshapeOp::create(rewriter, in.getLoc(), a.getType(), zt);
    Operation *g2 = rewriter.clone(*g);
    g2->setOperand(0, a2);
    rewriter.replaceOp(op,
                       ReshapeOp::create(rewriter, out.getLoc(), op.getType(), g2->getResult(0)));
    return success();
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p o q) (result dim i = x dim p[q[i]]).
struct ComposeTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t || !t->hasOneUse() || op->getParentOfType<FusionGroupOp>())
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t q : op.getPerm())
      perm.push_back(t.getPerm()[q]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), t.getInput(),
                                             rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// transpose(x, p) -> reshape(x) when p keeps the order of x's dims of size > 1 (it moves
/// only size-1 dims: the same elements in the same order) and x is (through reshapes) an
/// attention's result. The head merge of a decode step, [B, H, 1, D] -> [B, 1, H, D], is
/// then a view every consumer reads in place (a matmul's row-major operand) instead of a
/// copy kernel. Head splits stay transposes: a projection's product becomes a slice of the
/// merged one (graph-merge-sibling-matmuls, after this pass), and the elementwise kernels
/// read slice -> reshape -> transpose chains in place, not a reshape of a strided slice.
struct UnitDimTransposeToReshape : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!in || !in.hasStaticShape() || op->getParentOfType<FusionGroupOp>())
      return failure();
    Operation *src = op.getInput().getDefiningOp();
    while (isa_and_nonnull<ReshapeOp>(src))
      src = src->getOperand(0).getDefiningOp();
    if (!isa_and_nonnull<AttentionOp>(src))
      return failure();
    int64_t last = -1;
    for (int64_t d : op.getPerm()) {
      if (in.getDimSize(d) == 1)
        continue;
      if (d < last)
        return failure();
      last = d;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

struct GraphSinkTransposesPass
    : public aicc::graph::impl::GraphSinkTransposesBase<GraphSinkTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkBelowMatMul, SinkBelowElementwise, HoistAboveRowGemm, ComposeTransposes,
                 UnitDimTransposeToReshape>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
