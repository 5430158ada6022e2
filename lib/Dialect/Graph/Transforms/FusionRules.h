//===- FusionRules.h - graph-fuse's legality rules, one function each -*- C++ -*-===//
//
// Private to lib/Dialect/Graph/Transforms: the rules graph-fuse (GraphFuse.cpp, whose file
// comment lists them) asks before it puts a producer and its consumer in one kernel, and
// the names it records when a rule refuses (the `refusals` attribute, --fusion-report).
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_DIALECT_GRAPH_TRANSFORMS_FUSIONRULES_H
#define AICC_LIB_DIALECT_GRAPH_TRANSFORMS_FUSIONRULES_H

#include "aicc/Dialect/Graph/Analysis/CostModel.h"
#include "aicc/Dialect/Graph/IR/AttentionOperands.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace aicc::graph::fusion {
using namespace mlir;

// Rule names, as recorded in the `refusals` attribute and printed by --fusion-report.
constexpr llvm::StringLiteral kSingleUser = "single-user";
constexpr llvm::StringLiteral kRecomputeCost = "recompute-cost";
constexpr llvm::StringLiteral kSideEffectFree = "side-effect-free";
constexpr llvm::StringLiteral kNoAliasing = "no-aliasing";
constexpr llvm::StringLiteral kIterationSpace = "iteration-space";
constexpr llvm::StringLiteral kReductionInOneKernel = "reduction-in-one-kernel";
constexpr llvm::StringLiteral kTemplate = "template";
constexpr llvm::StringLiteral kClaimed = "claimed";
constexpr llvm::StringLiteral kNormPrologue = "norm-prologue";
constexpr llvm::StringLiteral kNormPrologueCost = "norm-prologue-cost";

/// At most this many consumers recompute one producer (bounds the growth of the IR).
constexpr unsigned kMaxRecomputeUsers = 4;

/// At most this many sibling reduce ops share one reduction kernel (accumulators per lane).
constexpr int64_t kMaxSiblingReductions = 8;

/// Candidates the horizontal elementwise merge tries per group (readers of its inputs).
constexpr size_t kMaxHorizontalCandidates = 64;

inline bool isRowOp(Operation *op) { return isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(op); }

/// The views an attention kernel reads its operands through (K^T = transpose(K), heads
/// split from [B, S, H * D] by a reshape to [B, S, H, D], GQA's expand of K / V, a fused
/// QKV projection's slices): index arithmetic in its loads (loadView relinearizes through
/// a reshape, also of a strided slice).
inline bool isAttentionOperandView(Operation *op) {
  return isa<TransposeOp, ExpandOp, SliceOp, ReshapeOp>(op);
}

/// The transpose of a GPU attention's result (the head merge [B, H, S, Dv] -> [B, S, H, Dv])
/// that its group takes and stores in place (attentionResultRowDim), or null.
inline TransposeOp gpuAttentionHeadMerge(Operation *att) {
  if (!att->hasOneUse())
    return TransposeOp();
  auto t = dyn_cast<TransposeOp>(*att->getUsers().begin());
  return t && t->getBlock() == att->getBlock() && attentionResultRowDim(t) ? t : TransposeOp();
}

/// Whether a GPU attention group takes view op `p` (a transpose, reshape, slice or expand of its
/// operands): Q, K^T or V read through `p` and the views already in the group (`absorbed`)
/// is block matrices of a tensor above `p` (include/aicc/Dialect/Graph/IR/
/// AttentionOperands.h), the operand kind the mma.sync kernel reads.
inline bool gpuAttentionTakes(AttentionOp att, Operation *p,
                              llvm::function_ref<bool(Operation *)> absorbed) {
  if (!isa<TransposeOp, ReshapeOp, SliceOp, ExpandOp>(p))
    return false;
  for (unsigned i = 0; i < 3; ++i) {
    auto view = attentionOperandView(att->getOperand(i), i,
                                     [&](Operation *x) { return x == p || absorbed(x); });
    if (view && llvm::is_contained(view->ops, p))
      return true;
  }
  return false;
}

/// The transposes, expands and slices that make attention `att`'s operands (K^T from K,
/// heads split from [B, S, H, D]) when the kernel is their only reader, in program order
/// (the group body is cloned in the order of its ops: a view of a view follows its
/// producer); the cpu template loads through them by index arithmetic (loadView), so no
/// copy kernel runs. `free` says which ops no kernel has taken yet.
SmallVector<Operation *> attentionOperandViews(Operation *att,
                                               llvm::function_ref<bool(Operation *)> free);

/// The view ops (transposes, reshapes, slices, expands) a GPU attention kernel reads its operands
/// through (attentionOperandView over the ops `free` says no kernel has taken: side-effect
/// free, in the attention's block, not a function result), in program order: the
/// deepest chains that keep Q, K^T and V block matrices, cut back until every op's result
/// is read only by the attention or by another taken op (q, k and v may share a chain:
/// select after an unflatten of one projection). Each view then costs no copy kernel.
SmallVector<Operation *> gpuAttentionViews(AttentionOp att,
                                           llvm::function_ref<bool(Operation *)> free);

/// Elementwise ops a fused kernel can evaluate at any element (trilu reads the element's
/// position, which only the elementwise template provides).
bool isFusableElementwise(Operation *op);

/// Rule single-user: `v` has exactly one use.
inline bool hasSingleUser(Value v) { return v.hasOneUse(); }

/// Rule side-effect-free: the op neither reads nor writes memory that others see.
inline bool isSideEffectFree(Operation *op) { return isMemoryEffectFree(op); }

/// Rule no-aliasing. Graph tensors are SSA values, never written in place; a value is
/// nevertheless visible under another name, and must be in memory, when
///   - it is a graph output (an operand of the function's return): the caller owns its
///     buffer, so the kernel must write it even if a consumer also fuses it;
///   - it is read through a reshape: graph.reshape is lowered to a view of the same buffer
///     (ConvertGraphToTile), so the consumer reads the producer's memory;
///   - the consumer is a view op (transpose, expand, slice, pad, concat, tile, gather): the
///     kernel reads the element it needs by index arithmetic on the operand's buffer.
/// `consumer` reads `v` (directly, or through reshapes when `throughReshape`).
bool noAliasing(Value v, Operation *consumer, bool throughReshape);

/// A view consumer of a view producer (graph-conv-layout's channel pad of the layout
/// transpose of a model input): both are index maps, composed per loaded element by the
/// elementwise kernel (TileBuilder's loadView recurses through view chains down to the
/// kernel's inputs), so the chain is one kernel even though a view cannot read a computed
/// value (noAliasing) and the two iterate over different shapes. `v`, the producer's result,
/// must not be a graph output (the kernel would not write it).
bool viewOfView(Value v, Operation *producer, Operation *consumer);

/// A view the elementwise template evaluates over a value it computes: transpose, reshape,
/// slice and concat read each element of their input at most once (ElementwiseTemplate's
/// evalAt computes the producer at the element the view maps to, loadView's callback), so a
/// producer behind them is computed at most once per element it has. (A concat evaluates
/// each input at every element and selects, so its inputs' producers cost their FLOPs once
/// per element of the concat: cheap elementwise ops, such as rotary embedding's neg.)
inline bool isRemapView(Operation *op) {
  return isa<TransposeOp, ReshapeOp, SliceOp, ConcatOp>(op);
}

/// Exception computed-view (to no-aliasing and iteration-space, elementwise kernels only):
/// a remap view consumer (isRemapView) of an elementwise, view or reshape producer whose
/// value is not a graph output joins the producer's elementwise kernel; the chain of views
/// between a bias add and the attention's q, k, v (batch-first transposes, the head split,
/// the q / k / v select) is then index arithmetic in one kernel, not a copy kernel per view.
bool computedView(Value v, Operation *producer, Operation *consumer);

/// Rule iteration-space: the consumer iterates over exactly the producer's shape (no
/// recompute of the producer under broadcasting). A row op iterates over its input.
bool sameIterationSpace(Value producer, Operation *consumer);

/// Rule reduction-in-one-kernel: a reduced dimension stays inside one kernel template. A
/// reduction's (or row op's) result is not fused into a consumer that reduces again (no
/// template nests two reductions), and a reduction's result is not fused into a consumer
/// that iterates over the dims it reduced (x - mean(x): every element would need the
/// whole reduction first, which only the row template does, for its own reductions).
bool reductionStaysInOneKernel(Operation *producer, Operation *consumer);

/// Rule template: the kernel template of a group of `kind` anchored at `anchor` can
/// evaluate `producer` where `consumer` reads operand `operandIdx`:
///   - elementwise groups evaluate elementwise and view producers of any member;
///   - a row kernel evaluates elementwise producers of its row input (operand 0 of the row
///     op) and of those producers; scale / bias are read from memory;
///   - a reduction kernel evaluates elementwise producers of the shape of its reduce inputs
///     (and of those producers); their other operands (a bias) are loaded per element;
///   - an attention kernel reads its operands through transposes, expands and slices
///     (K^T = transpose(K), heads split from [B, S, H, D]);
///   - epilogue chain consumers read their other operands from memory; matmul, conv, pool
///     and scatter templates read every operand from memory.
bool templateAbsorbs(StringRef kind, Operation *anchor, Operation *consumer, unsigned operandIdx,
                     Operation *producer);

/// Rule recompute-cost: recomputing `p` in each of its `users`' kernels costs less than
/// storing it. Store: p's kernel reads p's inputs I once and writes p; each of the k users
/// reads p back: I + (1 + k) * |p| bytes. Recompute: each user reads the inputs of p it
/// does not read already (I_u) and evaluates p: sum_u I_u bytes + k * flops(p). Recompute
/// when sum_u I_u / BW + (k - 1) * flops(p) / peak < (I + (1 + k) * |p|) / BW (roofline
/// seconds, CostModel.h). Never for a matmul / conv / pool / reduction / row op: their
/// output is kept and read by every consumer.
bool recomputeCheaperThanStore(Operation *p, ArrayRef<Operation *> users,
                               const HardwareDescription &hw);

/// BLOCK_N the cost of rule norm-prologue assumes: each of the ceil(N / 128) column tiles
/// of a row block recomputes the row's sum of squares (the smallest BLOCK_N the tensor-core
/// configs pick for a wide N; a wider tile only makes the recompute cheaper).
constexpr int64_t kNormPrologueBlockN = 128;

/// Rules norm-prologue and norm-prologue-cost: whether RMS norm `norm` may be the
/// prologue of the matmul / gemm `mm` that reads it as its left operand (the GEMM reads
/// the norm's input x, sums the squares of each row of x in its K loop, and scales its
/// accumulator row by r = rsqrt(sum / K + eps) before the epilogue). Returns "" when it
/// may, else the rule that refuses:
///   - norm-prologue (legality): an RMS norm or a LayerNorm without scale or bias
///     (graph-norm-scale-into-weights folds constant ones into the weights and biases), over
///     the last dim only, static shape, read only by `mm` as its left operand (not
///     transposed); for a LayerNorm B is a 2-D constant (the GEMM also sums each row of x
///     and computes r (x @ B - mu c), c = the column sums of B, a constant graph-fuse makes);
///     the target's matmul lowering sums the rows: the cpu target (any float type), GPU
///     targets with mma.sync or wgmma for f16 / bf16 operands;
///   - norm-prologue-cost: where it does not pay. The norm kernel costs its roofline
///     time T_norm (read x, write the normalized x). In the GEMM each of the ceil(N / 128)
///     column tiles recomputes the row sums: 2 FLOPs per element of x per column tile (3
///     for a LayerNorm: the sum of x too, both sums in f64), T_extra = 2 |x| ceil(N / 128) /
///     peak FP32 (LayerNorm: 3 |x| ceil(N / 128) / peak FP64). A
///     tensor-core GEMM (16-bit operands on a GPU target) leaves the FP32 units idle while the
///     tensor cores (or memory) bound it: its roofline time grows from T_gemm to max(T_gemm,
///     T_extra); a CUDA-core GEMM does the sums on its own units: T_gemm + T_extra. It pays when
///     the growth is below T_norm (CostModel.h's roofline times; `hw` the hardware description). So
///     it pays for tensor-core GEMMs of any shape the roofline can tell apart (the sums are at most
///     peak TC / (128 peak FP32) = 12% of an f16 GEMM's tensor time on the H200) and
///     is refused for wide CUDA-core GEMMs of a small activation (f32 [64, 64] x
///     [64, 131072]: +0.13 us against a 0.007 us norm).
StringRef normPrologueRefusal(Operation *norm, Operation *mm, const aicc::ChipInfo &target,
                              const HardwareDescription &hw);

/// ReduceLogSumExp as the ONNX importer writes it (ImportCore.cpp importReduceComposite,
/// stabilised by the max, clamped to the finite range):
///   m = clip(reduce_max(x, axes, keepdims = 1)); e = exp(x - m);
///   s = reduce_sum(e, axes); y = log(s) + m (m reshaped to s's shape when keepdims = 0)
/// is one row kernel (kind "softmax", the LogSumExp row template). Returns the chain's ops
/// in program order when its intermediates have one user each, m (the clip, when there is
/// one) has exactly the sub and the final add (through the reshape) as users, both
/// reductions share axes, and no op is `assigned` to a kernel yet.
std::optional<SmallVector<Operation *>> matchLogSumExp(ReduceMaxOp mx,
                                                       function_ref<bool(Operation *)> assigned);

} // namespace aicc::graph::fusion

#endif
