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
#include "llvm/ADT/SmallSet.h"

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
      if (auto t = o.getDefiningOp<TransposeOp>(); t && t.getPerm() == ArrayRef<int64_t>(back)) {
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
      if (auto t = o.getDefiningOp<TransposeOp>(); t && t.getPerm() == ArrayRef<int64_t>(back))
        operands.push_back(t.getInput());
      else if (ot.getRank() == rt.getRank() && o.getDefiningOp<ConstantOp>())
        operands.push_back(transpose(rewriter, op->getLoc(), o, inv));
      else
        operands.push_back(o);
    }
    // A clone keeps the op's properties (alpha, fmod, ...) as they are.
    Operation *inner = rewriter.clone(*op);
    inner->setOperands(operands);
    inner->getResult(0).setType(permuted(rt, inv));
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(), inner->getResult(0), back));
    return success();
  }

  SmallVector<int64_t> back;
};

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
    SmallVector<ConvOp> convs;
    func.walk([&](ConvOp c) {
      Type e = c.getInput().getType().getElementType();
      std::string name = e.isF16() ? "f16" : e.isBF16() ? "bf16" : e.isF32() ? "f32" : "";
      if (c.getLayout() == from && c.getGroup() == 1 && c.getInput().getType().getRank() == 4 &&
          types.contains(name))
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
    // Sink the transposes back below elementwise consumers; the greedy driver folds
    // transpose pairs that cancel and transposes of constants (the weights).
    RewritePatternSet patterns(func.getContext());
    patterns.add<SinkTransposeBelowElementwise>(func.getContext(), back);
    // Not converging within the driver's iteration limit leaves correct IR (each step is
    // an equivalence), only less folded.
    (void)applyPatternsGreedily(func, std::move(patterns));
  }
};

} // namespace
