//===- CostModel.cpp - roofline cost of graph ops and fusion groups --------===//
#include "aicc/Dialect/Graph/Analysis/CostModel.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>

using namespace mlir;
using namespace aicc::graph;

std::optional<HardwareDescription> aicc::graph::hardwareByName(llvm::StringRef name) {
  const ChipInfo *c = lookupChip(name);
  if (!c || !c->isGPU)
    return std::nullopt;
  return *c;
}

double aicc::graph::tensorBytes(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return 0;
  Type e = rt.getElementType();
  unsigned bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 8;
  return double(rt.getNumElements()) * double(std::max(1u, (bits + 7) / 8));
}

static double numel(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.hasStaticShape() ? double(rt.getNumElements()) : 0;
}

bool aicc::graph::isContraction(Operation *op) { return op->hasTrait<OpTrait::Contraction>(); }

double aicc::graph::opFlops(Operation *op) {
  if (op->getNumResults() == 0)
    return 0;
  double out = numel(op->getResult(0).getType());
  if (auto mm = dyn_cast<MatMulOp>(op)) {
    // [..., M, K] x [..., K, N]: 2*K FLOPs (a multiply and an add) per output element.
    auto a = cast<RankedTensorType>(mm.getLhs().getType());
    return 2.0 * out * double(a.getShape().back());
  }
  if (auto g = dyn_cast<GemmOp>(op)) {
    auto a = cast<RankedTensorType>(g.getA().getType());
    double k = double(a.getDimSize(g.getTransA() ? 0 : 1));
    return 2.0 * out * k + (g.getC() ? out : 0.0);
  }
  if (auto c = dyn_cast<ConvOp>(op)) {
    // W: [Cout, Cin/group, K1..Kk] (NCHW) or [Cout, K1..Kk, Cin/group] (NHWC): each output
    // element is a dot product of Cin/g*prod(K), the product of W's dims after the first in
    // either layout.
    auto w = cast<RankedTensorType>(c.getWeight().getType());
    double perOut = 1;
    for (int64_t d = 1; d < w.getRank(); ++d)
      perOut *= double(w.getDimSize(d));
    return 2.0 * out * perOut + (c.getBias() ? out : 0.0);
  }
  if (auto a = dyn_cast<AttentionOp>(op)) {
    // Q K^T (2 D per score), the softmax on the scores, P V (2 Dv per score); the causal
    // mask skips about half the scores (FlashAttention-2's FLOP count, section 4).
    double scores =
        out / double(std::max<int64_t>(1, a.getValueHeadSize())) * double(a.getKeyLength());
    double f =
        scores * (2.0 * a.getHeadSize() + 2.0 * a.getValueHeadSize() + 4.0 + kTranscendentalFlops);
    return a.getCausal() ? f / 2 : f;
  }
  if (isa<MaxPoolOp, AvgPoolOp>(op)) {
    double window = 1;
    if (auto ks = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
      for (int64_t k : ks.asArrayRef())
        window *= double(k);
    return out * window;
  }
  if (isReduction(op))
    return numel(op->getOperand(0).getType());
  // Row ops, per element: softmax max + sub + exp + sum + div; log_softmax max + sub +
  // exp + sum + sub (+ one log per row, ignored); layer_norm sum + sub + square + sum +
  // sub + div (+ scale and bias).
  if (isa<SoftmaxOp, LogSoftmaxOp>(op))
    return out * (4.0 + kTranscendentalFlops);
  if (auto ln = dyn_cast<LayerNormOp>(op))
    return out * (6.0 + (ln.getScale() ? 1.0 : 0.0) + (ln.getBias() ? 1.0 : 0.0));
  if (isElementwise(op))
    return out * (isTranscendental(op) ? kTranscendentalFlops : 1.0);
  if (auto s = dyn_cast<ScatterElementsOp>(op))
    return s.getReduction() == "none" ? 0.0 : numel(s.getUpdates().getType());
  if (auto s = dyn_cast<ScatterNDOp>(op))
    return s.getReduction() == "none" ? 0.0 : numel(s.getUpdates().getType());
  return 0; // views, reshapes, constants, gathers: data movement only
}

void aicc::graph::finishCost(KernelCost &c, const HardwareDescription &hw, Type elem,
                             bool tensorCore) {
  double bytes = c.bytes();
  c.intensity = bytes > 0 ? c.flops / bytes : 0;
  double peak = hw.peakFlops(elem, tensorCore);
  double tMem = hw.hbmBytesPerSecond > 0 ? bytes / hw.hbmBytesPerSecond : 0;
  double tCompute = peak > 0 ? c.flops / peak : 0;
  c.rooflineSeconds = std::max(tMem, tCompute);
}

/// Element type the peak is chosen by: a contraction's input, else the last result.
static std::pair<Type, bool> peakKey(ArrayRef<Operation *> ops) {
  for (Operation *op : ops)
    if (isContraction(op))
      return {getElementTypeOrSelf(op->getOperand(0).getType()), true};
  for (Operation *op : llvm::reverse(ops))
    if (op->getNumResults())
      return {getElementTypeOrSelf(op->getResult(0).getType()), false};
  return {Float32Type::get(ops.front()->getContext()), false};
}

KernelCost aicc::graph::costOfOps(ArrayRef<Operation *> ops, const HardwareDescription &hw) {
  KernelCost c;
  if (ops.empty())
    return c;
  llvm::SmallPtrSet<Operation *, 16> in(ops.begin(), ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops) {
    c.flops += opFlops(op);
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !in.count(def))
        inputs.insert(v);
    }
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !in.count(u); }))
        c.bytesWritten += tensorBytes(r.getType());
  }
  for (Value v : inputs)
    c.bytesRead += tensorBytes(v.getType());
  auto [elem, tc] = peakKey(ops);
  finishCost(c, hw, elem, tc);
  return c;
}

KernelCost aicc::graph::costOfOp(Operation *op, const HardwareDescription &hw) {
  KernelCost c;
  llvm::SetVector<Value> inputs(op->getOperands().begin(), op->getOperands().end());
  for (Value v : inputs)
    c.bytesRead += tensorBytes(v.getType());
  for (Value r : op->getResults())
    c.bytesWritten += tensorBytes(r.getType());
  c.flops = opFlops(op);
  auto [elem, tc] = peakKey({op});
  finishCost(c, hw, elem, tc);
  return c;
}

KernelCost aicc::graph::costOfGroup(FusionGroupOp group, const HardwareDescription &hw) {
  KernelCost c;
  for (Value v : group.getInputs())
    c.bytesRead += tensorBytes(v.getType());
  for (Type t : group.getResultTypes())
    c.bytesWritten += tensorBytes(t);
  SmallVector<Operation *> ops;
  for (Operation &op : group.getBody().front().without_terminator()) {
    c.flops += opFlops(&op);
    ops.push_back(&op);
  }
  if (ops.empty()) {
    finishCost(c, hw, Float32Type::get(group.getContext()), false);
    return c;
  }
  auto [elem, tc] = peakKey(ops);
  finishCost(c, hw, elem, tc);
  return c;
}
