//===- GraphSplitReduction.cpp - two-level reductions for few outputs -----===//
//
// A reduction whose kernel would have few programs, each reading a long reduced extent,
// becomes two reductions: partials over P programs, then the reduction of the partials
// (the pass description in Passes.td has the rule and an example).
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace aicc::graph {
#define GEN_PASS_DEF_GRAPHSPLITREDUCTION
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

using namespace mlir;
using namespace aicc::graph;

namespace {

/// Programs wanted in flight per SM of the hardware.
constexpr int64_t kProgramsPerSM = 4;
/// Fewest input elements a first-level program reads (below this the launch and the
/// partials' round trip cost more than the parallelism gains).
constexpr int64_t kMinElementsPerProgram = 2048;
/// Fewest input elements an unsplit program reads for the split to pay for its second
/// launch and the partials' round trip (64 KiB of f16 .. 128 KiB of f32).
constexpr int64_t kMinElementsToSplit = 32768;
/// The reduction template's column kernel (lib/Conversion/GraphToTile/ReductionTemplate.cpp,
/// buildReduction): used when at least kColumnMinInner consecutive kept elements are
/// innermost; each program then covers up to kColumnBlock of them per step.
constexpr int64_t kColumnMinInner = 32;
constexpr int64_t kColumnBlock = 256;
/// A column program walks the reduced extent step by step (each step's loads wait on the
/// last's accumulation, kColumnUnroll in flight): its time grows with the steps, not the
/// elements, so a column reduction of this many steps splits however narrow its rows
/// (mobilenet_v3_small_f16's NHWC squeeze-excitation means, [8, 14, 14, 120] -> [8, 1, 1,
/// 120]: 8 programs of 196 steps took 31 us on the H200, ncu 2026-12-03).
constexpr int64_t kMinColumnStepsToSplit = 128;

/// The input seen as [outer, R, inner] (R: the reduced elements), when the reduced dims of
/// size > 1 are consecutive; otherwise nullopt.
struct Layout {
  int64_t outer = 1, reduced = 1, inner = 1;
};
std::optional<Layout> layoutOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<bool> isReduced(shape.size(), axes.empty());
  for (int64_t a : axes)
    isReduced[a] = true;
  Layout l;
  // 0: before the reduced run, 1: inside it, 2: after it.
  int state = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return std::nullopt;
    if (shape[d] == 1)
      continue;
    if (isReduced[d]) {
      if (state == 2)
        return std::nullopt;
      state = 1;
      l.reduced *= shape[d];
    } else {
      if (state == 1)
        state = 2;
      (state == 0 ? l.outer : l.inner) *= shape[d];
    }
  }
  return l;
}

/// The number of partials P for a reduction of layout `l` (1: do not split), with
/// `targetPrograms` programs wanted in flight.
int64_t chooseSplit(const Layout &l, int64_t targetPrograms) {
  bool column = l.inner >= kColumnMinInner;
  int64_t programs =
      column ? l.outer * (int64_t)llvm::divideCeil(l.inner, kColumnBlock) : l.outer * l.inner;
  int64_t perStep = column ? std::min(l.inner, kColumnBlock) : 1;
  bool enough =
      l.reduced * perStep >= kMinElementsToSplit || (column && l.reduced >= kMinColumnStepsToSplit);
  if (programs <= 0 || programs >= targetPrograms || !enough)
    return 1;
  int64_t limit = std::min<int64_t>(llvm::divideCeil(targetPrograms, programs),
                           l.reduced * perStep / kMinElementsPerProgram);
  for (int64_t p = limit; p >= 2; --p)
    if (l.reduced % p == 0)
      return p;
  return 1;
}

template <typename OpT>
Value build(OpBuilder &b, Location loc, Type resultType, Value in, int64_t axis) {
  return OpT::create(b, loc, resultType, in, b.getDenseI64ArrayAttr({axis}), b.getBoolAttr(false));
}

/// The same reduction kind as `op` over `axis` of `in` (keepdims = false).
Value sameKind(OpBuilder &b, Operation *op, Type resultType, Value in, int64_t axis) {
  Location loc = op->getLoc();
  if (isa<ReduceSumOp>(op))
    return build<ReduceSumOp>(b, loc, resultType, in, axis);
  if (isa<ReduceMeanOp>(op))
    return build<ReduceMeanOp>(b, loc, resultType, in, axis);
  if (isa<ReduceMaxOp>(op))
    return build<ReduceMaxOp>(b, loc, resultType, in, axis);
  if (isa<ReduceMinOp>(op))
    return build<ReduceMinOp>(b, loc, resultType, in, axis);
  return build<ReduceProdOp>(b, loc, resultType, in, axis);
}

struct GraphSplitReductionPass
    : aicc::graph::impl::GraphSplitReductionBase<GraphSplitReductionPass> {
  using GraphSplitReductionBase::GraphSplitReductionBase;

  void runOnOperation() override {
    // The option, else the module's aicc.hardware (include/aicc/Target/TargetAttr.h).
    const aicc::ChipInfo *hw = aicc::resolveChip(getOperation(), aicc::ChipRole::Hardware, hardware,
                                                 "h200", getArgument());
    if (!hw)
      return signalPassFailure();
    const int64_t targetPrograms = kProgramsPerSM * hw->smCount;
    SmallVector<Operation *> reductions;
    getOperation().walk([&](Operation *op) {
      // Reductions already inside a fusion group are one kernel each: left alone.
      if (isReduction(op) && !op->getParentOfType<FusionGroupOp>())
        reductions.push_back(op);
    });
    for (Operation *op : reductions) {
      auto inT = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      auto outT = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
      if (!inT || !outT || !axes || !inT.hasStaticShape())
        continue;
      std::optional<Layout> l = layoutOf(inT.getShape(), axes.asArrayRef());
      if (!l)
        continue;
      int64_t p = chooseSplit(*l, targetPrograms);
      if (p < 2)
        continue;
      int64_t q = l->reduced / p;
      // [outer?, P, Q, inner?]: size-1 outer / inner dims are left out.
      SmallVector<int64_t> split, partial;
      int64_t pAxis = 0;
      if (l->outer > 1) {
        split.push_back(l->outer);
        partial.push_back(l->outer);
        pAxis = 1;
      }
      split.append({p, q});
      partial.push_back(p);
      if (l->inner > 1) {
        split.push_back(l->inner);
        partial.push_back(l->inner);
      }
      Type elem = inT.getElementType();
      Type partialElem = elem.isF16() || elem.isBF16() ? Float32Type::get(&getContext()) : elem;
      SmallVector<int64_t> finalShape(partial);
      finalShape.erase(finalShape.begin() + pAxis);

      OpBuilder b(op);
      Location loc = op->getLoc();
      Value x = ReshapeOp::create(b, loc, RankedTensorType::get(split, elem), op->getOperand(0));
      Value partials =
          sameKind(b, op, RankedTensorType::get(partial, partialElem), x, pAxis + 1);
      Value r = sameKind(b, op, RankedTensorType::get(finalShape, outT.getElementType()),
                         partials, pAxis);
      if (cast<RankedTensorType>(r.getType()) != outT)
        r = ReshapeOp::create(b, loc, outT, r);
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
  }
};
} // namespace
