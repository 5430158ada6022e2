//===- TemplateSupport.h - what the kernel templates share --------*- C++ -*-===//
//
// Private to lib/Conversion/GraphToTile: the tile builder every template emits through
// (TileBuilder), the kernel skeleton (KernelContext, makeKernel), view / operand loads and
// the fused elementwise epilogue (loadView, loadOperand, applyEpilogue, emitElementwise),
// and the chunked loops of the row and reduction templates. One file per template
// (*Template.cpp) builds on these; KernelTemplates.cpp dispatches (buildKernelForGroup).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_GRAPHTOTILE_TEMPLATESUPPORT_H
#define AICC_LIB_CONVERSION_GRAPHTOTILE_TEMPLATESUPPORT_H

#include "aicc/Conversion/GraphToTile/KernelTemplates.h"

#include "aicc/Dialect/Tile/IR/TileOps.h"
#include "aicc/Dialect/Graph/IR/SwapPairsView.h"
#include "aicc/Support/SaturatingInt.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <functional>
#include <limits>

namespace aicc::templates {
using namespace mlir;
using namespace aicc::graph;
namespace tl = aicc::tile;

/// The chip table rows of `o.target` and `o.hardware` (convert-graph-to-tile checks both
/// names before any template runs; an unknown one falls back to the CPU / H200 rows).
const ChipInfo &targetChip(const TemplateOptions &o);

const ChipInfo &hardwareChip(const TemplateOptions &o);

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape);

/// Strides (in elements) of a value of shape `in` (whose own dims have strides `inStrides`)
/// seen through numpy broadcasting as a value of shape `out`: right-aligned, size-1 and
/// missing dims get stride 0.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in, ArrayRef<int64_t> inStrides,
                                      ArrayRef<int64_t> out);

int64_t numElements(ArrayRef<int64_t> shape);

/// Element type kernel memory and tiles hold for graph element type `t`: arith works on
/// signless integers, so ui8 ... ui64 (and siN) become iN. The graph ops keep the signedness;
/// the templates read it there and pick the unsigned arith ops (divui, cmpi ult, extui ...).
Type storageType(Type t);

/// Element type the kernel computes in: f32 for 16-bit floats, else the storage type.
Type computeType(Type t);

/// Element type of a graph value (tensor or scalar).
Type graphElementType(Value v);

/// The unsigned form of a signed integer predicate (slt -> ult, ...); eq / ne unchanged.
arith::CmpIPredicate unsignedPredicate(arith::CmpIPredicate p);

/// Small builder of tile arithmetic used by all templates.
struct TileBuilder {
  OpBuilder &b;
  Location loc;
  SmallVector<int64_t> shape; // the tile shape of the kernel's output iteration

  RankedTensorType tileOf(Type elem) const { return RankedTensorType::get(shape, elem); }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value splat(Value scalar) {
    return tl::SplatOp::create(b, loc, tileOf(scalar.getType()), scalar);
  }
  Value splatI32(int64_t v) { return splat(i32(v)); }
  Value splatF(Type elem, double v) {
    Value c = arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, v));
    return splat(c);
  }
  Value range(int64_t n) {
    return tl::MakeRangeOp::create(b, loc, RankedTensorType::get({n}, b.getI32Type()),
                                   b.getI32IntegerAttr(0), b.getI32IntegerAttr(n));
  }
  /// Place a 1-D tile along dim `d` of the kernel tile shape (expand_dims + broadcast).
  Value along(Value v1d, unsigned d) {
    auto t = cast<RankedTensorType>(v1d.getType());
    Value v = v1d;
    SmallVector<int64_t> cur{t.getDimSize(0)};
    // Insert unit dims before and after, then broadcast.
    for (unsigned i = 0; i < d; ++i) {
      cur.insert(cur.begin() + i, 1);
      v = tl::ExpandDimsOp::create(b, loc, RankedTensorType::get(cur, t.getElementType()), v,
                                   b.getI32IntegerAttr(i));
    }
    for (unsigned i = d + 1; i < shape.size(); ++i) {
      cur.push_back(1);
      v = tl::ExpandDimsOp::create(b, loc, RankedTensorType::get(cur, t.getElementType()), v,
                                   b.getI32IntegerAttr(i));
    }
    if (ArrayRef<int64_t>(cur) != ArrayRef<int64_t>(shape))
      v = tl::BroadcastOp::create(b, loc, tileOf(t.getElementType()), v);
    return v;
  }
  /// Offset tile sum_d idx[d] * strides[d] (+ scalar base), or nullptr-free splat(0).
  Value offsets(ArrayRef<Value> idx, ArrayRef<int64_t> strides, Value scalarBase = {}) {
    Value acc;
    for (auto [v, s] : llvm::zip(idx, strides)) {
      if (s == 0 || !v)
        continue;
      Value term = s == 1 ? v : arith::MulIOp::create(b, loc, v, splatI32(s)).getResult();
      acc = acc ? arith::AddIOp::create(b, loc, acc, term).getResult() : term;
    }
    if (scalarBase && isConstantIntValue(scalarBase, 0))
      scalarBase = Value();
    if (scalarBase)
      acc = acc ? arith::AddIOp::create(b, loc, acc, splat(scalarBase)).getResult()
                : splat(scalarBase);
    return acc ? acc : splatI32(0);
  }
  /// Per-dim index tiles of the row-major linear index tile `lin` over `shape`
  /// (dim 0 is not wrapped: masked-off lanes past the end keep growing indices).
  SmallVector<Value> delinearize(Value lin, ArrayRef<int64_t> shape) {
    SmallVector<Value> idx;
    SmallVector<int64_t> strides(shape.size(), 1);
    for (int64_t i = (int64_t)shape.size() - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    for (size_t d = 0; d < shape.size(); ++d) {
      Value q = lin;
      if (strides[d] != 1)
        q = arith::DivSIOp::create(b, loc, q, splatI32(strides[d]));
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, splatI32(shape[d]));
      idx.push_back(q);
    }
    return idx;
  }
  /// Loads `buffer` at `offs` under `mask` (masked-off lanes read `padding`: for integer
  /// buffers saturated to the type, unsigned when `isUnsigned`), extended to `computeElem`.
  Value load(Value buffer, Value offs, Value mask, Type computeElem, double padding = 0.0,
             bool isUnsigned = false) {
    auto elem = cast<MemRefType>(buffer.getType()).getElementType();
    TypedAttr pad;
    if (isa<FloatType>(elem))
      pad = b.getFloatAttr(elem, padding);
    else
      pad = b.getIntegerAttr(elem,
                             saturatingInt(padding, elem.getIntOrFloatBitWidth(), isUnsigned));
    Value v = tl::LoadOp::create(b, loc, tileOf(elem), buffer, offs, mask, pad);
    if (computeElem != elem)
      v = arith::ExtFOp::create(b, loc, tileOf(computeElem), v);
    return v;
  }
  void store(Value buffer, Value offs, Value value, Value mask) {
    auto elem = cast<MemRefType>(buffer.getType()).getElementType();
    if (cast<RankedTensorType>(value.getType()).getElementType() != elem)
      value = arith::TruncFOp::create(b, loc, tileOf(elem), value);
    tl::StoreOp::create(b, loc, buffer, offs, value, mask);
  }
};

/// Emits the tile math of one elementwise graph op on operand tiles. Floats of 16 bits are
/// computed in f32 (their tiles arrive extended); other types in their own type, integers as
/// signless iN: the graph operand's type says whether they are unsigned (then divui, remui,
/// minui / maxui, cmpi ult ..., extui and uitofp give ONNX's unsigned semantics).
FailureOr<Value> emitElementwise(TileBuilder &tb, Operation *op, ArrayRef<Value> in);

/// Shared state of a template: the group, the kernel's parameters and the tile index
/// of every output dim.
struct KernelContext {
  FusionGroupOp group;
  func::FuncOp kernel;
  SmallVector<Value> inParams, outParams; // kernel params, flat 1-D memrefs
  DenseMap<Value, unsigned> argIndex;     // group body block arg -> input index
  /// Evaluates a value the kernel computes (not a kernel input, not a view op) at the
  /// element `idx` of its own shape under `mask`, for loadView reaching one through a view
  /// chain (the elementwise template: transposes, reshapes and slices of values it computes,
  /// an index map per element as Inductor's loop bodies are). Unset: such a read fails.
  std::function<FailureOr<Value>(Value, ArrayRef<Value>, Value)> evalComputed;
};

/// Elementwise op `op` at the element `at` of its result (i32 tiles, one per dim): each
/// operand read through `operandAt` at the element it broadcasts from (numpy rules: size-1
/// dims read element 0, missing leading dims dropped; an operand of the result's shape at
/// `at` itself), then emitElementwise.
FailureOr<Value>
emitElementwiseAt(TileBuilder &tb, Operation *op, ArrayRef<Value> at,
                  llvm::function_ref<FailureOr<Value>(Value, ArrayRef<Value>)> operandAt);

/// Evaluates body value `v` of kc.group at the element whose index along each of v's dims
/// is `at[d]` (i32 tiles), under `mask`: kernel inputs and views are read by loadView
/// (index arithmetic), elementwise ops of the body evaluate their operands at the element
/// they broadcast from (numpy rules) and apply emitElementwise. Each (value, index) is
/// evaluated once per call (`memo`). Sets kc.evalComputed to itself, so that a view chain
/// over a value the body computes evaluates that value at the element the chain maps to.
/// Fails (diagnosed) on any other op. The elementwise template has its own evaluator
/// (contiguous loads at the kernel's own element, trilu).
FailureOr<Value> evalBodyValueAt(TileBuilder &tb, KernelContext &kc, Value v, ArrayRef<Value> at,
                                 Value mask);

/// Loads view `v` (a kernel input, or view ops over kernel inputs) at the element whose
/// index along each of v's dims is `idx[d]` (i32 tiles), under `mask`. View ops become
/// index arithmetic: transpose permutes, reshape relinearizes (row-major: the element keeps
/// its linear index), expand pins broadcast dims to 0, slice scales and
/// shifts, tile wraps, pad shifts and masks (or clamps / reflects / wraps), concat selects.
FailureOr<Value> loadView(TileBuilder &tb, KernelContext &kc, Value v, ArrayRef<Value> idx,
                          Value mask);

/// The index of `operand` (of type `operandType`) read at element `idx` of a shape it is
/// broadcast to (numpy rules): leading dims it lacks are dropped, its size-1 dims read 0.
SmallVector<Value> broadcastIndex(TileBuilder &tb, RankedTensorType operandType,
                                  ArrayRef<Value> idx);

/// Loads body value `v` at the output element given by `idx` (one i32 tile per dim of
/// `outShape`), broadcasting v to `outShape` (numpy rules) first.
FailureOr<Value> loadOperand(TileBuilder &tb, KernelContext &kc, Value v,
                             ArrayRef<int64_t> outShape, ArrayRef<Value> idx, Value mask);

/// Column pairs of a matmul epilogue (graph-fuse's rule column-pairs): `even` and `odd`
/// slice the epilogue value of shape [.., N] at columns 0, 2, .. and 1, 3, ..; ops of
/// shape `shape` ([.., N / 2]) after them are evaluated at the accumulator's even columns,
/// their operands loaded at `idx` (column c / 2) under `mask` (even columns only).
struct ColumnPairs {
  Operation *even = nullptr, *odd = nullptr;
  SmallVector<int64_t> shape;
  SmallVector<Value> idx;
  Value mask;
};

/// Applies the elementwise ops of the group body that follow `start` (exclusive), whose
/// other operands are loaded at `idx`. `current` is the tile of start's result. With
/// `pairs`, the even slice is the tile it reads, the odd one its tile.swap_pairs, and ops
/// of the pairs' shape load their operands at the pairs' indices. A swap of the column
/// pairs of a value it computes (SwapPairsView.h) is that value's tile.swap_pairs.
FailureOr<Value> applyEpilogue(TileBuilder &tb, KernelContext &kc, Operation *start,
                               Value current, ArrayRef<int64_t> outShape,
                               ArrayRef<Value> idx, Value mask,
                               const ColumnPairs *pairs = nullptr);

/// Creates the kernel func with flat 1-D memref params for inputs then outputs.
KernelContext makeKernel(OpBuilder &builder, FusionGroupOp group, StringRef name,
                         ArrayRef<int64_t> grid, int64_t numWarps,
                         ArrayRef<NamedAttribute> blocks, int64_t numStages = 1);

/// makeKernel with other parameters after the group's inputs: `extraInputs` (in
/// kc.inParams after the group's inputs) then `outputs` (kc.outParams), instead of the
/// group's results. A group of several kernels passes its temporaries so.
KernelContext makeKernelWithParams(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                   ArrayRef<RankedTensorType> extraInputs,
                                   ArrayRef<RankedTensorType> outputs, ArrayRef<int64_t> grid,
                                   int64_t numWarps, ArrayRef<NamedAttribute> blocks,
                                   int64_t numStages = 1);

NamedAttribute blockAttr(OpBuilder &b, StringRef n, int64_t v);

/// Result `i`'s bounded symbolic dim (kGroupSymDimsAttrName on the group), or none.
struct ResultSymDim {
  int64_t axis = 0, symbol = 0, factor = 1, max = 1;
};
std::optional<ResultSymDim> groupResultSymDim(FusionGroupOp group, unsigned i);

/// Records tile.symgrid on `kc.kernel` for a kernel whose programs along grid axis `axis`
/// write every result in row-major order: the programs p with floor(p / group) = j write
/// only elements [j * per, (j + 1) * per) of each result (flat). Every result must carry
/// the same symbol in its first non-unit dim (then its elements at value v are the first
/// v * numel / max); otherwise nothing is recorded (all programs run). unit = the largest
/// numel / max over the results. `equalResults`: record nothing unless every result has as
/// many elements as the first (templates whose programs write only the first's index space).
void setFlatSymGrid(KernelContext &kc, int64_t axis, int64_t per, int64_t group,
                    bool equalResults = true);

/// A kernel's results whose symbol sits behind non-unit dims (`[B, H, seq, D]` with seq
/// symbolic): each result is `outer` rows of `inner` = seq_max x `unit` elements, and at
/// value v only the first v x unit elements of each row are the run's (buffers inside the
/// model keep the bound's layout). The kernel's grid is (ceil(inner / per), outer) of the
/// largest result (its fields here); `results` has each result's (outer, unit). None when a
/// result has no symbolic dim or another symbol, when every result has its symbol in its
/// first non-unit dim (setFlatSymGrid's case), when outer exceeds grid y's 65535, or with
/// `sameInner` when a result's inner differs from the largest's.
struct SymbolRows {
  int64_t outer = 1, inner = 1, symbol = 0, unit = 1;
  SmallVector<std::pair<int64_t, int64_t>> results;
};
std::optional<SymbolRows> symbolRows(FusionGroupOp group, bool sameInner = true);

/// The flat program index y * perRow + x of a kernel gridded (perRow, rows) by symbolRows
/// (an i32 scalar): the program a 1-D grid of the same programs would have.
Value rowsProgramIndex(OpBuilder &b, Location loc, int64_t perRow);

/// Records tile.symgrid for a kernel gridded (ceil(inner / per), outer) by symbolRows:
/// along x, a run at value v needs the programs of its rows' first v x unit elements.
void setRowsSymGrid(KernelContext &kc, const SymbolRows &rows, int64_t per);

/// Applies `--matmul-config` (BMxBNxBK[xSTAGES]; empty: no change) to `cfg`, or fails with
/// a diagnostic at `anchor`.
LogicalResult applyMatmulConfigOverride(Operation *anchor, StringRef override,
                                        MatmulConfig &cfg);

/// `chosen`, or the config a `tile.matmul_config` attribute on `group` records
/// (select-matmul-configs wrote it).
MatmulConfig configOfGroup(FusionGroupOp group, const MatmulConfig &chosen);

/// A matmul / Gemm epilogue group as the matmul template reads it: the anchor op, its
/// operands (A [.., M, K] or [.., K, M] under transA; B [.., K, N] or [.., N, K] under
/// transB; Gemm's C, alpha, beta), the batch dims of each operand and their broadcast,
/// M / N / K / the batch count, whether f32 operands run as tf32, and the tile config
/// (chooseMatmulConfig, the --matmul-config override, then the group's tile.matmul_config).
struct MatmulProblem {
  Operation *anchor = nullptr;
  Value a, b, c;
  bool transA = false, transB = false, tf32 = false;
  double alpha = 1.0, beta = 1.0;
  RankedTensorType aT, bT, outType;
  SmallVector<int64_t> aBatch, bBatch, batchShape;
  int64_t M = 0, N = 0, K = 0, batch = 1;
  MatmulConfig config;
  /// Column pairs (ColumnPairs): the two slices, or null; the output is then [.., M, N / 2].
  Operation *evenSlice = nullptr, *oddSlice = nullptr;
  /// The first op of a swap of the product's column pairs (SwapPairsView.h), or null.
  Operation *swapPairs = nullptr;
  /// Rule norm-prologue (graph-fuse): the scale-free RMS norm whose result is the left
  /// operand, or null. `a` is then the norm's input x: the K loop also sums the squares of
  /// each row of x (f32 for 16-bit x), and the accumulator rows are scaled by
  /// 1 / sqrt(sum / K + epsilon) before the epilogue.
  LayerNormOp rowNorm;
  /// A LayerNorm prologue (rowNorm without rms): the group's last input, the column sums c
  /// of B ([N], f32; graph-fuse), else null. The K loop then also sums each row of x (both
  /// sums in f64), and the accumulator becomes r (acc - mu c), mu = sum / K, r = 1 /
  /// sqrt(max(sumsq / K - mu^2, 0) + epsilon).
  Value columnSums;
};
FailureOr<MatmulProblem> analyzeMatmul(FusionGroupOp group, const TemplateOptions &options);

/// The extents a tile config is chosen for (TemplateOptions::configAtValue): `extents` are
/// the bound's sizes of the anchor's result dims ([.., M, N] for a matmul, the conv's output
/// dims), returned with the dim of kAnchorSymDimAttrName at factor x `value` when `value` is
/// set (> 0) and the anchor carries the attribute; unchanged otherwise.
SmallVector<int64_t> configExtents(Operation *anchor, ArrayRef<int64_t> extents, int64_t value);

/// The tile config of an implicit-GEMM conv group (the GEMM [N * OH * OW, OC] x K, K =
/// C * KH * KW): chooseMatmulConfig, the --matmul-config override, then the group's
/// tile.matmul_config.
FailureOr<MatmulConfig> convGemmConfig(FusionGroupOp group, const TemplateOptions &options);

/// Rows / reductions up to this many elements are held in one tile (one pass over the data);
/// longer ones loop over the reduced extent in tiles of kChunk elements.
/// Rows up to this many elements are held on chip in one tile (in registers on the GPU:
/// 16 warps x 32 lanes x 32 elements); longer rows loop over chunks of kRowChunk.
constexpr int64_t kMaxSoftmaxRow = 16384;

constexpr int64_t kRowChunk = 4096;

constexpr int64_t kMaxReduction = 4096;

/// Tile size of the chunked loops (issue 5 tunes it for bandwidth).
constexpr int64_t kChunk = 1024;

/// scf.for over [0, n) step `step` carrying `init`; `body` gets a builder in the loop body,
/// the i32 induction variable and the carried values, and returns the next ones.
scf::ForOp chunkLoop(OpBuilder &b, Location loc, int64_t n, int64_t step, ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body);
/// chunkLoop over [lo, hi) (i32 scalars, lo a multiple of `step` as the caller needs it).
scf::ForOp rangeLoop(OpBuilder &b, Location loc, Value lo, Value hi, int64_t step, ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body);

/// The dims of a reduce's input split into kept and reduced ones (`axes` empty: all
/// reduced), each with its row-major stride in the input.
struct ReducedDims {
  SmallVector<int64_t> keptShape, keptStr, redShape, redStr;
};

ReducedDims splitReducedDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes);

/// i32 offset in the input of output element `pid`'s kept coordinates (row-major over the
/// kept dims), for one-program-per-output reduction kernels.
Value keptBaseOffset(TileBuilder &tb, Value pid, const ReducedDims &rd);

/// Why `conv` cannot run as an implicit GEMM (empty: it can).
std::string whyNotImplicitGemm(ConvOp conv);

/// i32 index tile from integer index tile `k` into a dim of size `n` (1 <= n < 2^31): negative
/// values count from the end; out-of-range ones (undefined in ONNX; onnxruntime raises) are
/// clamped to [0, n - 1] so accesses stay in bounds, the rule docs/onnx-import.md documents for
/// every indexing op ("Indices out of range"). Wrapping and clamping happen in the index's
/// own width, so a 64-bit index past 2^31 clamps instead of wrapping when truncated to i32.
Value wrapIndex(TileBuilder &tb, Value k, int64_t n);

// The templates (one file each), called by buildKernelForGroup.
FailureOr<func::FuncOp> buildElementwise(OpBuilder &builder, FusionGroupOp group,
                                         StringRef name);
FailureOr<func::FuncOp> buildMatmul(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                    const TemplateOptions &options);
/// The matmul group's kernels: one (buildMatmul's), or under split-K the partials kernel
/// and the sum + epilogue kernel (KernelTemplates.h, GroupKernels).
FailureOr<GroupKernels> buildMatmulKernels(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                           const TemplateOptions &options);
FailureOr<func::FuncOp> buildSoftmax(OpBuilder &builder, FusionGroupOp group, StringRef name);
FailureOr<func::FuncOp> buildReduction(OpBuilder &builder, FusionGroupOp group, StringRef name);
FailureOr<func::FuncOp> buildLogSumExp(OpBuilder &builder, FusionGroupOp group, StringRef name);
FailureOr<func::FuncOp> buildWindow(OpBuilder &builder, FusionGroupOp group, StringRef name);
FailureOr<func::FuncOp> buildConvGemm(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                      const TemplateOptions &options);
bool useImplicitGemm(ConvOp conv, const TemplateOptions &o);
/// graph.attention (kind "attention"): the FlashAttention template (AttentionTemplate.cpp and
/// the kernels of AttentionKernels.h).
/// One kernel, or with the keys split across programs (TemplateOptions::attentionKVSplits)
/// `NAME_partials` over (inputs..., temp 0, temp 1) writing each key slice's f32 output
/// [slices * batch, Sq, Dv] (temp 0, normalized by the slice's own sum, 0 where the slice
/// has no visible key) and log-sum-exp [slices * batch, Sq, 1] (temp 1, -inf there), then
/// `NAME` over (inputs..., temp 0, temp 1, result) combining them.
FailureOr<GroupKernels> buildAttentionKernels(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, const TemplateOptions &options);
/// The scatter template ("single" groups): data and indices are kernel inputs; the updates
/// a kernel input or computed in the group by elementwise and view ops (graph-fuse's
/// formScatters), evaluated at each update element the kernel applies (evalBodyValueAt).
FailureOr<func::FuncOp> buildScatter(OpBuilder &builder, FusionGroupOp group, StringRef name);

} // namespace aicc::templates

#endif
