//===- SymbolicDims.cpp - bounded symbolic dims: legality at the bound -----===//
//
// aicc-compile --dim NAME=MIN..MAX (docs/symbolic-shapes.md). The second of the two steps
// that prove the code compiled at MAX right for every value in the range (the first,
// compareSymbolSample, is SymbolSamples.cpp):
//
// checkSymbolicDims: every materialized tensor (function arguments and results, every
// value outside a fusion group: a kernel's buffer or a view of one) has its symbolic dim
// as its first non-unit dim, so its elements at value v are a prefix of its buffer at
// MAX; and no op mixes positions along the symbol (a reduction, softmax, contraction,
// concat or slice along it, a gather of it ...), so each output element in the prefix
// reads only input elements in the prefix. Views keep the symbol the outermost factor
// of its dim (a reshape may merge it with inner dims, never with outer ones), so the
// kernels' index arithmetic, built from the bound's static strides, addresses the same
// element at every value.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Conversion/GraphToTile/KernelTemplates.h"
#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Target/TargetAttr.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::detail;

namespace {

/// Legality of one module at the bound, given every value's symbolic dim.
struct LegalityChecker {
  ArrayRef<SymbolRange> symbols;
  const SymDimMap &dims;
  /// GPU targets flatten some row batches (graph-matvec), which the cpu target keeps.
  bool cpuTarget = false;
  /// Ops whose kernels read the run's symbol values: attention over a symbolic sequence
  /// ([q symbol, q factor, kv symbol, kv factor], kRunLengthsAttrName) and scatter_nd of a
  /// symbolic number of index tuples ([axis, symbol, factor], kRunTuplesAttrName).
  SmallVector<std::pair<Operation *, SmallVector<int64_t, 4>>> runLengths;

  std::optional<SymDim> of(Value v) const {
    auto it = dims.find(v);
    if (it == dims.end())
      return std::nullopt;
    return it->second;
  }

  InFlightDiagnostic refuse(Operation *op, const SymDim &sd) {
    const SymbolRange &r = symbols[sd.symbol];
    return emitError(op->getLoc())
           << op->getName() << " is not supported with the symbolic dim '" << r.name << "' (--dim "
           << r.name << "=" << r.min << ".." << r.max << "): ";
  }

  static int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }
  static int64_t dimOf(Value v, int64_t d) {
    return cast<RankedTensorType>(v.getType()).getDimSize(d);
  }

  /// Operand `o` of an op whose result `r` is aligned to it from the right (numpy
  /// broadcasting): its symbolic dim must sit where r's is; without one, its dim there is 1.
  LogicalResult checkAligned(Operation *op, Value o, Value r, StringRef what) {
    auto so = of(o), sr = of(r);
    int64_t offset = rankOf(r) - rankOf(o);
    if (so) {
      if (!sr || so->axis + offset != sr->axis || so->symbol != sr->symbol)
        return refuse(op, *so) << what << " carries the symbol in dim #" << so->axis
                               << ", not where the result does";
      return success();
    }
    if (sr && sr->axis - offset >= 0 && dimOf(o, sr->axis - offset) != 1)
      return refuse(op, *sr) << what << " has " << dimOf(o, sr->axis - offset)
                             << " elements along the result's symbolic dim #" << sr->axis
                             << " without carrying the symbol (a tensor of the bound's size "
                                "cannot follow a smaller value)";
    return success();
  }

  /// graph.attention: a symbol in the batch dims (all but the last two) of its operands is
  /// aligned with the result's. Symbolic query rows (Q's, the result's and the mask's dim
  /// -2) over static keys need nothing more on any target: each row is computed on its own,
  /// and the rows of the buffers' tail meet only the result's tail. Symbolic keys (K^T's
  /// dim -1, V's dim -2, one symbol for both), or query rows that move a causal diagonal
  /// (Skv - Sq), need a kernel that knows the run's lengths: the cpu target's reads them
  /// (tile.symvalues) and masks the keys past the run's Skv without reading them, so no key
  /// of a buffer's tail meets a query of the prefix, not even as 0 x (a NaN tail). Recorded
  /// in `runLengths` for attachSymbolValues. Head dims stay static.
  LogicalResult checkAttention(graph::AttentionOp at) {
    Operation *op = at;
    Value res = at.getResult();
    auto sr = of(res);
    bool seqResult = sr && sr->axis == rankOf(res) - 2;
    // [q symbol, q factor, kv symbol, kv factor]; -1: static.
    SmallVector<int64_t, 4> rl = {-1, 0, -1, 0};
    auto seqDim = [&](Value o, int64_t seqAxis, int slot, StringRef what) -> LogicalResult {
      auto so = of(o);
      int64_t r = rankOf(o);
      if (!so) {
        // Without the symbol: a bound-sized batch dim may not meet the result's symbolic one.
        if (sr && !seqResult)
          return checkAligned(op, o, res, what);
        return success();
      }
      if (so->axis < r - 2) {
        if (seqResult)
          return refuse(op, *so) << what
                                 << " carries a symbol in a batch dim while the "
                                    "result carries one in its query rows";
        return checkAligned(op, o, res, what);
      }
      if (so->axis != seqAxis)
        return refuse(op, *so) << "the symbol is in a head dim of " << what
                               << " (only batch and sequence dims may be symbolic)";
      if (rl[slot] >= 0 && (rl[slot] != so->symbol || rl[slot + 1] != so->factor))
        return refuse(op, *so) << what
                               << " and the other operand along the same sequence "
                                  "carry it differently";
      rl[slot] = so->symbol;
      rl[slot + 1] = so->factor;
      return success();
    };
    Value q = at.getQuery(), kt = at.getKeyT(), v = at.getValue();
    if (failed(seqDim(q, rankOf(q) - 2, 0, "the query")) ||
        failed(seqDim(res, rankOf(res) - 2, 0, "the result")) ||
        failed(seqDim(kt, rankOf(kt) - 1, 2, "the keys")) ||
        failed(seqDim(v, rankOf(v) - 2, 2, "the values")))
      return failure();
    if (Value bias = at.getBias()) {
      // A mask whose rows follow the query rows' symbol is read row by row like Q: the rows
      // of its tail meet only the result's tail. One whose key dim follows the keys' (a
      // padding mask [B, 1, 1, Skv] over a prompt of run-time length) is read at the run's
      // keys only, like K and V.
      auto sb = of(bias);
      int64_t keyDim = rankOf(bias) - 1;
      if (sb && sb->axis == keyDim) {
        if (rl[2] != sb->symbol || rl[3] != sb->factor)
          return refuse(op, *sb) << "the additive mask carries the symbol in its key dim, "
                                    "which the keys do not carry alike";
      } else {
        if (rl[2] >= 0 && dimOf(bias, keyDim) != 1)
          return refuse(op, SymDim{0, (int)rl[2], rl[3]})
                 << "the additive mask has " << dimOf(bias, keyDim)
                 << " keys while the keys carry the symbol";
        if (failed(checkAligned(op, bias, res, "the additive mask")))
          return failure();
      }
    }
    // key_bound (graph-recompose-attention: a static cache's positions, one per query row)
    // is read at the run's query rows: its rows follow the queries' symbol alike, or one
    // bound holds for every row.
    if (Value kb = at.getKeyBound())
      if (auto sk = of(kb);
          sk && (sk->axis != rankOf(kb) - 2 || sk->symbol != rl[0] || sk->factor != rl[1]))
        return refuse(op, *sk) << "key_bound carries the symbol other than the query rows do";
    // Each query row is computed on its own: over static keys, the query rows of the
    // buffers' tail meet only the result's tail. The kernels still read the run's Sq then:
    // a prompt of a few tokens over a KV cache of thousands of positions (HF's StaticCache)
    // would otherwise run every query tile of the bound (FlashAttention-3 runs the run's
    // query tiles only, AttentionGPUTemplate.cpp).
    if (rl[0] < 0 && rl[2] < 0)
      return success();
    // Every target's attention kernel reads the run's lengths (the cpu template and the GPU
    // targets' f32 form: AttentionCPUTemplate.cpp; the tensor-core forms:
    // AttentionGPUTemplate.cpp).
    runLengths.push_back({at, rl});
    return success();
  }

  /// graph.scatter_nd of a symbolic number of index tuples into static data (a KV cache
  /// written at a prompt's positions: index_copy): the indices' and the updates' leading
  /// dims (before the indices' last) carry the symbol at the same axis, the data and the
  /// result do not. The kernel reads the run's value (kRunTuplesAttrName) and skips the
  /// tuples of the buffers' tail, so no stale index writes the result.
  LogicalResult checkScatterND(graph::ScatterNDOp sc) {
    Operation *op = sc;
    Value idx = sc.getIndices(), upd = sc.getUpdates();
    auto si = of(idx), su = of(upd);
    auto sd = of(sc.getData()), sr = of(sc.getResult());
    // checkOp calls this for ops with a symbolic operand or result only.
    SymDim any = si ? *si : su ? *su : sd ? *sd : sr.value_or(SymDim{});
    if (sd || sr)
      return refuse(op, any) << "its data or result carries the symbol (only the index tuples "
                                "and their updates may)";
    if (!si || !su)
      return refuse(op, any) << "the symbol is in " << (si ? "the indices" : "the updates")
                             << " only";
    if (si->axis >= rankOf(idx) - 1)
      return refuse(op, *si) << "the symbol is in the indices' last dim (the tuple's length)";
    if (su->axis != si->axis || su->symbol != si->symbol || su->factor != si->factor)
      return refuse(op, *su) << "the updates carry the symbol in dim #" << su->axis
                             << ", not where the indices do (#" << si->axis << ")";
    runLengths.push_back({op, {si->axis, si->symbol, si->factor}});
    return success();
  }

  /// The symbolic dim of `v` (if any) is none of `axes` (negative ones count from the end).
  LogicalResult checkNotAlong(Operation *op, Value v, ArrayRef<int64_t> axes, StringRef what,
                              bool emptyMeansAll = false) {
    auto sd = of(v);
    if (!sd)
      return success();
    if (emptyMeansAll && axes.empty())
      return refuse(op, *sd) << what << " runs over every dim, the symbolic one included";
    for (int64_t a : axes)
      if ((a < 0 ? a + rankOf(v) : a) == sd->axis)
        return refuse(op, *sd) << what << " runs along the symbolic dim #" << sd->axis
                               << " (its result would read positions past a smaller value)";
    return success();
  }

  LogicalResult checkMatmul(Operation *op, Value a, Value b, bool transA, bool transB) {
    // A [..., M, K] (or [K, M]), B [..., K, N] (or [N, K]); 1-D operands are vectors.
    auto sa = of(a), sb = of(b);
    int64_t ra = rankOf(a), rb = rankOf(b);
    if (sa) {
      int64_t kAxis = ra == 1 ? 0 : (transA ? ra - 2 : ra - 1);
      if (sa->axis == kAxis)
        return refuse(op, *sa) << "the contraction (K) dim of its first operand is symbolic";
    }
    if (sb) {
      int64_t kAxis = rb == 1 ? 0 : (transB ? rb - 1 : rb - 2);
      if (sb->axis == kAxis)
        return refuse(op, *sb) << "the contraction (K) dim of its second operand is symbolic";
    }
    // Batch dims (all but the last two) broadcast from the right.
    Value r = op->getResult(0);
    int64_t rr = rankOf(r);
    auto batchCheck = [&](Value o, int64_t ro, std::optional<SymDim> so,
                          StringRef what) -> LogicalResult {
      auto sr = of(r);
      if (so && so->axis < ro - 2) {
        int64_t at = so->axis + (rr - ro);
        if (!sr || sr->axis != at)
          return refuse(op, *so) << what << "'s symbolic batch dim is not the result's";
      }
      if (!so && sr && sr->axis < rr - 2 && ro > 2) {
        int64_t at = sr->axis - (rr - ro);
        if (at >= 0 && at < ro - 2 && dimOf(o, at) != 1)
          return refuse(op, *sr) << what << " has " << dimOf(o, at)
                                 << " matrices along the symbolic batch dim without carrying "
                                    "the symbol";
      }
      return success();
    };
    if (failed(batchCheck(a, ra, sa, "the first operand")) ||
        failed(batchCheck(b, rb, sb, "the second operand")))
      return failure();
    return success();
  }

  LogicalResult checkOp(Operation *op) {
    bool symbolic = llvm::any_of(op->getOperands(), [&](Value v) { return of(v).has_value(); }) ||
                    llvm::any_of(op->getResults(), [&](Value v) { return of(v).has_value(); });
    // Constants that carry the symbol were compared at two values: a run reads the bound's
    // elements at the indices it would read its own (compareSymbolSample's sub-box rule).
    if (!symbolic ||
        isa<func::ReturnOp, graph::YieldOp, graph::FusionGroupOp, graph::ConstantOp>(op))
      return success();
    SymDim any =
        *(llvm::any_of(op->getResults(), [&](Value v) { return of(v).has_value(); })
              ? of(*llvm::find_if(op->getResults(), [&](Value v) { return of(v).has_value(); }))
              : of(*llvm::find_if(op->getOperands(), [&](Value v) { return of(v).has_value(); })));
    if (auto sc = dyn_cast<graph::ScatterNDOp>(op))
      return checkScatterND(sc);
    // A symbol that enters an op leaves it: a result without it would be the bound's (a pass
    // that padded or sliced the symbolic dim to a fixed size, say). Reductions and attention
    // over symbolic keys (static queries: a decode step over a cache of run-time length) are
    // checked below.
    if (llvm::any_of(op->getOperands(), [&](Value v) { return of(v).has_value(); }))
      for (Value r : op->getResults())
        if (isa<RankedTensorType>(r.getType()) && !of(r) &&
            !isa<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp, graph::ReduceMinOp,
                 graph::ReduceProdOp, graph::AttentionOp>(op))
          return refuse(op, any) << "its result " << r.getType()
                                 << " does not carry the symbol its operands carry";
    if (graph::isElementwise(op)) {
      for (auto [i, o] : llvm::enumerate(op->getOperands()))
        if (failed(checkAligned(op, o, op->getResult(0), "operand #" + std::to_string(i))))
          return failure();
      return success();
    }
    if (auto m = dyn_cast<graph::MatMulOp>(op))
      return checkMatmul(op, m.getLhs(), m.getRhs(), false, false);
    if (auto g = dyn_cast<graph::GemmOp>(op)) {
      if (failed(checkMatmul(op, g.getA(), g.getB(), g.getTransA(), g.getTransB())))
        return failure();
      if (g.getC() && failed(checkAligned(op, g.getC(), g.getResult(), "C")))
        return failure();
      return success();
    }
    if (isa<graph::ConvOp, graph::MaxPoolOp, graph::AvgPoolOp>(op)) {
      // The batch dim (0 in NCHW and NHWC) of the input only.
      auto si = of(op->getOperand(0));
      if (!si || si->axis != 0)
        return refuse(op, any) << "only the batch dim (#0) of its input may be symbolic";
      for (Value o : op->getOperands().drop_front())
        if (of(o))
          return refuse(op, any) << "its weights or bias carry the symbol";
      return success();
    }
    if (auto s = dyn_cast<graph::SoftmaxOp>(op))
      return checkNotAlong(op, s.getInput(), {(int64_t)s.getAxis()}, "the softmax");
    if (auto s = dyn_cast<graph::LogSoftmaxOp>(op))
      return checkNotAlong(op, s.getInput(), {(int64_t)s.getAxis()}, "the log-softmax");
    if (auto ln = dyn_cast<graph::LayerNormOp>(op)) {
      SmallVector<int64_t> axes;
      int64_t r = rankOf(ln.getInput()), a = ln.getAxis() < 0 ? ln.getAxis() + r : ln.getAxis();
      for (int64_t d = a; d < r; ++d)
        axes.push_back(d);
      if (failed(checkNotAlong(op, ln.getInput(), axes, "the normalization")))
        return failure();
      for (Value o : {ln.getScale(), ln.getBias()})
        if (o && failed(checkAligned(op, o, ln.getResult(), "the scale or bias")))
          return failure();
      return success();
    }
    if (isa<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp, graph::ReduceMinOp,
            graph::ReduceProdOp>(op)) {
      auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
      return checkNotAlong(op, op->getOperand(0), axes ? axes.asArrayRef() : ArrayRef<int64_t>{},
                           "the reduction", /*emptyMeansAll=*/true);
    }
    if (auto at = dyn_cast<graph::AttentionOp>(op))
      return checkAttention(at);
    if (auto r = dyn_cast<graph::ReshapeOp>(op)) {
      // The symbol stays the outermost factor of its dim: the dims before it hold as many
      // elements on both sides (the row-major index of an element does not depend on the
      // symbol's value then).
      auto si = of(r.getInput()), so = of(r.getResult());
      if (!si || !so)
        return refuse(op, any) << "the symbol appears on one side of the reshape only";
      auto before = [](Value v, int64_t axis) {
        int64_t n = 1;
        for (int64_t d = 0; d < axis; ++d)
          n *= dimOf(v, d);
        return n;
      };
      if (before(r.getInput(), si->axis) != before(r.getResult(), so->axis)) {
        InFlightDiagnostic d = refuse(op, *si)
                               << "it merges the symbolic dim with an outer dim ("
                               << r.getInput().getType() << " -> " << r.getResult().getType()
                               << "): the element order would depend on the symbol's value";
        // graph-matvec's rows of a small matmul, [B, S, K] -> [B * S, 1, K].
        auto rt = cast<RankedTensorType>(r.getResult().getType());
        if (!cpuTarget && rt.getRank() == 3 && rt.getDimSize(1) == 1)
          d << " (graph-matvec flattens a small matmul's rows so on GPU targets: "
               "--matvec-max-rows=0 turns it off)";
        return d;
      }
      return success();
    }
    if (auto t = dyn_cast<graph::TransposeOp>(op))
      return success(); // Types moved the dim; a materialized result is checked as such.
    if (isa<graph::SliceOp, graph::PadOp, graph::TileOp>(op)) {
      auto si = of(op->getOperand(0)), so = of(op->getResult(0));
      // The prefix of a static tensor as long as the symbol (a position table or a causal
      // mask sliced to the prompt: wpe[:seq]): element i does not depend on the value.
      if (auto s = dyn_cast<graph::SliceOp>(op); s && !si && so)
        return s.getStarts()[so->axis] == 0 && s.getSteps()[so->axis] == 1
                   ? success()
                   : (refuse(op, *so) << "it slices along the symbolic dim from a start other "
                                         "than 0 or with a step");
      if (!si || !so || si->axis != so->axis || si->factor != so->factor)
        return refuse(op, any) << "it slices, pads or repeats along the symbolic dim";
      if (auto s = dyn_cast<graph::SliceOp>(op))
        if (s.getStarts()[si->axis] != 0 || s.getSteps()[si->axis] != 1)
          return refuse(op, *si) << "it slices along the symbolic dim";
      return success();
    }
    if (auto c = dyn_cast<graph::ConcatOp>(op)) {
      for (Value o : c.getInputs())
        if (failed(checkAligned(op, o, c.getResult(), "an input")))
          return failure();
      return checkNotAlong(op, c.getResult(), {(int64_t)c.getAxis()}, "the concatenation");
    }
    if (auto e = dyn_cast<graph::ExpandOp>(op))
      return checkAligned(op, e.getInput(), e.getResult(), "the input");
    if (auto g = dyn_cast<graph::GatherOp>(op)) {
      if (failed(checkNotAlong(op, g.getInput(), {(int64_t)g.getAxis()}, "the gather")))
        return failure();
      return success();
    }
    if (auto g = dyn_cast<graph::GatherElementsOp>(op)) {
      if (failed(checkNotAlong(op, g.getInput(), {(int64_t)g.getAxis()}, "the gather")) ||
          failed(checkAligned(op, g.getIndices(), g.getResult(), "the indices")) ||
          failed(checkAligned(op, g.getInput(), g.getResult(), "the data")))
        return failure();
      return success();
    }
    if (auto t = dyn_cast<graph::TriluOp>(op)) {
      int64_t r = rankOf(t.getInput());
      return checkNotAlong(op, t.getInput(), {r - 1, r - 2}, "the triangle");
    }
    return refuse(op, any) << "no rule says how it treats positions along the symbol";
  }
};

} // namespace

static LogicalResult
attachSymbolValues(func::FuncOp fn, ArrayRef<SymbolRange> symbols,
                   ArrayRef<std::pair<Operation *, SmallVector<int64_t, 4>>> runLengths) {
  if (runLengths.empty())
    return success();
  OpBuilder b(fn.getContext());
  b.setInsertionPointToStart(&fn.getBody().front());
  SmallVector<int32_t> maxima;
  for (const SymbolRange &s : symbols)
    maxima.push_back((int32_t)s.max);
  auto type = RankedTensorType::get({(int64_t)symbols.size()}, b.getI32Type());
  Value values =
      graph::ConstantOp::create(b, fn.getLoc(), DenseElementsAttr::get(type, ArrayRef(maxima)));
  for (const auto &[op, lengths] : runLengths) {
    // A group itself: its kernel reads the values (a persistent GEMM's run tile count).
    auto g = dyn_cast<graph::FusionGroupOp>(op);
    if (!g) {
      op->setAttr(isa<graph::AttentionOp>(op) ? kRunLengthsAttrName : kRunTuplesAttrName,
                  b.getDenseI64ArrayAttr(lengths));
      g = op->getParentOfType<graph::FusionGroupOp>();
    }
    if (!g)
      return op->emitError("reads the run's symbol values outside a fusion group"), failure();
    if (g->hasAttr(kSymbolValuesInputAttrName))
      continue;
    unsigned idx = g->getNumOperands();
    g->insertOperands(idx, values);
    g.getBody().front().addArgument(type, g.getLoc());
    g->setAttr(kSymbolValuesInputAttrName, b.getI64IntegerAttr(idx));
  }
  return success();
}

LogicalResult aicc::detail::checkSymbolicDims(ModuleOp module, ArrayRef<SymbolRange> symbols,
                                              const SymDimMap &dims) {
  LegalityChecker lc{symbols, dims};
  lc.cpuTarget = resolveChipName(module, ChipRole::Target, "", "cpu") == "cpu";
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    // The model's inputs and outputs are the caller's compact tensors: the runtime copies a
    // run's inputs into the bound's buffers (their start, or with the symbol after non-unit
    // dims rows at the bound's pitch: TensorInfo::layoutAt) and returns the outputs' parts
    // likewise. Buffers inside the model keep the bound's layout whatever dim holds the
    // symbol: the kernels that write and read them address each element at the bound's
    // static strides.
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto name = fn.getResultAttrOfType<StringAttr>(i, "aicc.name");
      // A constant output is a buffer of the bound's weights; the runtime returns parts of
      // computed outputs only.
      if (auto sd = lc.of(v); sd && v.getDefiningOp<graph::ConstantOp>())
        return emitError(v.getLoc())
               << "graph output #" << i << (name ? " '" + name.getValue().str() + "'" : "")
               << " is a constant that follows the symbolic dim '" << symbols[sd->symbol].name
               << "' (a table cut to its size): not supported; it does not depend on the inputs";
    }
    lc.runLengths.clear();
    WalkResult w = fn.walk([&](Operation *op) {
      return failed(lc.checkOp(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (w.wasInterrupted())
      return failure();
    // GPU targets: a matmul or conv group whose result follows the symbol may become a
    // persistent tensor-core kernel (sm_90a's wgmma GEMMs and implicit-GEMM convs), whose
    // CTAs loop over the tiles and read the run's tile count from the symbol values
    // (tile.symgrid in the kernel; ConvertTileDotToWGMMA.cpp).
    if (!lc.cpuTarget)
      for (auto g : fn.getBody().front().getOps<graph::FusionGroupOp>()) {
        Block &gb = g.getBody().front();
        if (llvm::any_of(g->getResults(), [&](Value r) { return lc.of(r).has_value(); }) &&
            (!gb.getOps<graph::MatMulOp>().empty() || !gb.getOps<graph::ConvOp>().empty()))
          lc.runLengths.push_back({g, {}});
      }
    if (failed(attachSymbolValues(fn, symbols, lc.runLengths)))
      return failure();
    // The matmuls and convs whose result follows a symbol: select-matmul-configs chooses
    // their tile configs per shape bucket of it (TemplateOptions::configAtValue); the
    // attentions whose queries follow one: convert-graph-to-tile's attention buckets
    // (attentionShapeBuckets).
    for (auto g : fn.getBody().front().getOps<graph::FusionGroupOp>())
      g.getBody().walk([&](Operation *op) {
        if (!isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp, graph::AttentionOp>(op) ||
            op->getNumResults() != 1)
          return;
        auto sd = lc.of(op->getResult(0));
        if (sd && isa<graph::AttentionOp>(op) &&
            sd->axis != cast<RankedTensorType>(op->getResult(0).getType()).getRank() - 2)
          return;
        if (sd)
          op->setAttr(kAnchorSymDimAttrName,
                      b.getDenseI64ArrayAttr({sd->axis, sd->symbol, sd->factor,
                                              symbols[sd->symbol].min, symbols[sd->symbol].max}));
      });
    // The bundle's symdim records come from these.
    auto record = [&](Value v) -> Attribute {
      auto sd = lc.of(v);
      if (!sd)
        return {};
      return b.getDenseI64ArrayAttr({sd->axis, sd->symbol, sd->factor});
    };
    for (auto [i, arg] : llvm::enumerate(fn.getArguments()))
      if (Attribute a = record(arg))
        fn.setArgAttr(i, kSymDimAttrName, a);
    // Groups learn their results' symbolic dims (the templates' tile.symgrid).
    for (auto g : fn.getBody().front().getOps<graph::FusionGroupOp>()) {
      SmallVector<Attribute> perResult;
      bool any = false;
      for (Value r : g->getResults()) {
        auto sd = lc.of(r);
        any |= sd.has_value();
        perResult.push_back(
            sd ? b.getDenseI64ArrayAttr({sd->axis, sd->symbol, sd->factor, symbols[sd->symbol].max})
               : b.getDenseI64ArrayAttr({}));
      }
      if (any)
        g->setAttr(kGroupSymDimsAttrName, b.getArrayAttr(perResult));
    }
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (Attribute a = record(v))
        fn.setResultAttr(i, kSymDimAttrName, a);
  }
  SmallVector<Attribute> list;
  for (const SymbolRange &s : symbols)
    list.push_back(b.getDictionaryAttr({b.getNamedAttr("name", b.getStringAttr(s.name)),
                                        b.getNamedAttr("min", b.getI64IntegerAttr(s.min)),
                                        b.getNamedAttr("max", b.getI64IntegerAttr(s.max))}));
  module->setAttr(kSymbolsAttrName, b.getArrayAttr(list));
  return success();
}
