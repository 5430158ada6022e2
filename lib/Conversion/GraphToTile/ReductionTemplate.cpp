//===- ReductionTemplate.cpp - row and column reduction templates -----------===//
#include "TemplateSupport.h"

#include <map>

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Reduction template, two kernels by layout (all tiles 1-D):
// - column (buildColumnReduction): the innermost non-unit dims are kept ones (at least
//   kColumnMinInner elements): one program per BLOCK consecutive outputs, an scf.for over
//   the reduced index loading BLOCK consecutive (coalesced) elements per step, accumulated
//   per lane; no cross-lane reduction.
// - otherwise one program per output element. Up to kMaxReduction reduced elements are held
//   in one tile; more are read in chunks of kChunk elements by an scf.for that accumulates a
//   per-lane running partial (sum / product / max / min; the padding of masked lanes is the
//   identity), reduced across the lanes after the loop.
// Mean divides at the end; 16-bit floats accumulate in f32. A fusion group lowers to one
// kernel, so a reduction with few outputs and a long reduced extent (a whole-tensor sum)
// is split into partials + a final reduction at the graph level (graph-split-reduction).
//===----------------------------------------------------------------------===//

/// The reduce kind and the identity (masked lanes' padding) of graph reduction `red`.
std::pair<tl::ReduceKind, double> reduceKindOf(Operation *red) {
  tl::ReduceKind kind = isa<ReduceMaxOp>(red)    ? tl::ReduceKind::max
                        : isa<ReduceMinOp>(red)  ? tl::ReduceKind::min
                        : isa<ReduceProdOp>(red) ? tl::ReduceKind::mul
                                                 : tl::ReduceKind::add;
  return {kind, tl::reduceIdentityValue(kind)};
}

/// The column kernel is used when at least this many kept elements are innermost (one warp
/// of lanes); fewer take the per-output kernel (strided loads of a few columns beat a loop
/// of mostly idle lanes). It covers up to kColumnBlock of them per program and step. Both
/// are mirrored in graph-split-reduction's program count (GraphSplitReduction.cpp).
constexpr int64_t kColumnMinInner = 32;
constexpr int64_t kColumnBlock = 256;
/// Reduced positions loaded per iteration of the column loop (independent loads in flight).
constexpr int64_t kColumnUnroll = 4;

/// A reduction group's body (GraphFuse formReductions): sibling reduce ops with one input
/// shape, axes and keepdims; the elementwise prologue that computes their inputs per input
/// element; the elementwise epilogue over the output shape that follows them.
struct ReductionBody {
  SmallVector<Operation *> reds, prologue, epilogue; // body order
  RankedTensorType inT;
  SmallVector<int64_t> outShape;
  ArrayRef<int64_t> axes;
};

FailureOr<ReductionBody> analyzeReductionBody(FusionGroupOp group) {
  ReductionBody rb;
  Block &body = group.getBody().front();
  for (Operation &op : body)
    if (isReduction(&op))
      rb.reds.push_back(&op);
  if (rb.reds.empty())
    return group.emitError("reduction group holds no reduce op"), failure();
  Operation *r0 = rb.reds.front();
  rb.inT = cast<RankedTensorType>(r0->getOperand(0).getType());
  rb.outShape = llvm::to_vector(cast<RankedTensorType>(r0->getResult(0).getType()).getShape());
  rb.axes = r0->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  for (Operation *r : rb.reds) {
    auto t = cast<RankedTensorType>(r->getOperand(0).getType());
    if (t.getShape() != rb.inT.getShape() || r->getAttr("axes") != r0->getAttr("axes") ||
        r->getAttr("keepdims") != r0->getAttr("keepdims"))
      return r->emitError("sibling reductions in one kernel need one input shape, axes and "
                          "keepdims"),
             failure();
    if (!isa<FloatType>(computeType(t.getElementType())))
      return r->emitError("the reduction template supports float inputs only, got ")
                 << t.getElementType(),
             failure();
  }
  // Prologue: the body ops the reduce inputs depend on. View ops (and reshapes) among them
  // are read by index arithmetic (loadView) down to kernel inputs: nothing computed below.
  llvm::SmallPtrSet<Operation *, 8> pro, views;
  SmallVector<std::pair<Value, bool>> work;
  for (Operation *r : rb.reds)
    work.push_back({r->getOperand(0), false});
  while (!work.empty()) {
    auto [v, viewed] = work.pop_back_val();
    Operation *d = v.getDefiningOp();
    if (!d || !pro.insert(d).second)
      continue;
    bool view = isView(d) || isa<ReshapeOp>(d);
    if (view)
      views.insert(d);
    if (!view && (viewed || !isElementwise(d) || d->getNumResults() != 1 ||
                  cast<RankedTensorType>(d->getResult(0).getType()).getShape() !=
                      rb.inT.getShape()))
      return d->emitError("cannot evaluate ") << d->getName()
                                              << " per element in the reduction prologue",
             failure();
    for (Value o : d->getOperands())
      work.push_back({o, viewed || view});
  }
  const int64_t outElems = numElements(rb.outShape);
  for (Operation &op : body) {
    if (isa<YieldOp>(op) || isReduction(&op) || views.count(&op))
      continue;
    if (pro.count(&op)) {
      rb.prologue.push_back(&op);
      continue;
    }
    // Epilogue: elementwise ops over the output's elements, and reshapes of them (the
    // element keeps its linear index).
    if (!(isElementwise(&op) || isa<ReshapeOp>(op)) || op.getNumResults() != 1 ||
        cast<RankedTensorType>(op.getResult(0).getType()).getNumElements() != outElems ||
        (!isa<ReshapeOp>(op) &&
         llvm::any_of(op.getOperands(),
                      [&](Value v) {
                        auto vt = cast<RankedTensorType>(v.getType());
                        return v.getDefiningOp() &&
                               v.getDefiningOp()->getBlock() == &body &&
                               vt.getShape() !=
                                   cast<RankedTensorType>(op.getResult(0).getType()).getShape();
                      })) ||
        llvm::any_of(op.getOperands(), [&](Value v) {
          return v.getDefiningOp() && pro.count(v.getDefiningOp());
        }))
      return op.emitError("cannot fuse ") << op.getName()
                                          << " into this reduction kernel's epilogue",
             failure();
    rb.epilogue.push_back(&op);
  }
  for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
    if (!v.getDefiningOp() || pro.count(v.getDefiningOp()))
      return group.emitError("a reduction kernel's results are its reductions and their "
                             "epilogue"),
             failure();
  if (rb.inT.getNumElements() >= (int64_t(1) << 31))
    return r0->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  return rb;
}

/// The reduce ops' inputs at the input elements of row-major offsets `offs` (under `mask`):
/// kernel inputs of the input's shape are loaded at `offs`, broadcast ones (a bias) at the
/// element's indices, then the prologue is evaluated. With `padMasked`, masked lanes hold
/// each reduction's identity (the per-output kernel reduces across lanes).
FailureOr<SmallVector<Value>> evalReduceInputs(TileBuilder &t, KernelContext &kc,
                                               const ReductionBody &rb, Value offs, Value mask,
                                               bool padMasked) {
  DenseMap<Value, Value> tiles;
  DenseMap<Value, double> loadedPad;
  SmallVector<Value> idx;
  bool haveIdx = false;
  auto leaf = [&](Value v, double pad) -> FailureOr<Value> {
    if (auto f = tiles.find(v); f != tiles.end())
      return f->second;
    auto vt = cast<RankedTensorType>(v.getType());
    FailureOr<Value> r;
    auto it = kc.argIndex.find(v);
    if (it != kc.argIndex.end() && vt.getShape() == rb.inT.getShape()) {
      r = t.load(kc.inParams[it->second], offs, mask, computeType(vt.getElementType()), pad);
      loadedPad[v] = pad;
    } else {
      if (!haveIdx)
        idx = t.delinearize(offs, rb.inT.getShape());
      haveIdx = true;
      r = loadOperand(t, kc, v, rb.inT.getShape(), idx, mask);
    }
    if (succeeded(r))
      tiles[v] = *r;
    return r;
  };
  // Direct inputs first, padded with their reduction's identity: kernel inputs, and views
  // of them (a reduce over a transpose or slice reads through it: loadView).
  for (Operation *r : rb.reds) {
    Value in = r->getOperand(0);
    Operation *d = in.getDefiningOp();
    bool direct = isa<BlockArgument>(in) || (d && (isView(d) || isa<ReshapeOp>(d)) &&
                                             !llvm::is_contained(rb.prologue, d));
    if (direct && failed(leaf(in, reduceKindOf(r).second)))
      return failure();
  }
  for (Operation *op : rb.prologue) {
    SmallVector<Value> ins;
    for (Value o : op->getOperands()) {
      auto f = tiles.find(o);
      FailureOr<Value> in = f != tiles.end() ? FailureOr<Value>(f->second) : leaf(o, 0.0);
      if (failed(in))
        return failure();
      ins.push_back(*in);
    }
    auto r = emitElementwise(t, op, ins);
    if (failed(r))
      return failure();
    tiles[op->getResult(0)] = *r;
  }
  SmallVector<Value> xs;
  for (Operation *r : rb.reds) {
    Value in = r->getOperand(0);
    Value x = tiles.lookup(in);
    double pad = reduceKindOf(r).second;
    auto lp = loadedPad.find(in);
    if (padMasked && mask && (lp == loadedPad.end() || lp->second != pad)) {
      Type elem = cast<RankedTensorType>(x.getType()).getElementType();
      x = arith::SelectOp::create(t.b, t.loc, mask, x, t.splatF(elem, pad));
    }
    xs.push_back(x);
  }
  return xs;
}

/// Applies the epilogue to the reductions' results `redTiles` at the outputs of row-major
/// offsets `outOffs` and stores every group result there (under `mask`).
LogicalResult storeReductionResults(TileBuilder &t, KernelContext &kc, const ReductionBody &rb,
                                    ArrayRef<Value> redTiles, Value outOffs, Value mask) {
  DenseMap<Value, Value> tiles;
  for (auto [r, v] : llvm::zip(rb.reds, redTiles))
    tiles[r->getResult(0)] = v;
  // The output element's indices per shape the epilogue iterates over (the reduction's,
  // and a reshape's): one linear index, outOffs.
  std::map<SmallVector<int64_t>, SmallVector<Value>> idxOf;
  for (Operation *op : rb.epilogue) {
    if (isa<ReshapeOp>(op)) {
      tiles[op->getResult(0)] = tiles.lookup(op->getOperand(0));
      continue;
    }
    SmallVector<int64_t> shape =
        llvm::to_vector(cast<RankedTensorType>(op->getResult(0).getType()).getShape());
    SmallVector<Value> ins;
    for (Value o : op->getOperands()) {
      if (auto f = tiles.find(o); f != tiles.end()) {
        ins.push_back(f->second);
        continue;
      }
      auto [it, fresh] = idxOf.try_emplace(shape);
      if (fresh)
        it->second = t.delinearize(outOffs, shape);
      auto loaded = loadOperand(t, kc, o, shape, it->second, mask);
      if (failed(loaded))
        return failure();
      ins.push_back(*loaded);
    }
    auto r = emitElementwise(t, op, ins);
    if (failed(r))
      return failure();
    tiles[op->getResult(0)] = *r;
  }
  auto yield = cast<YieldOp>(kc.group.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    t.store(kc.outParams[i], outOffs, tiles.lookup(v), mask);
  return success();
}

/// Mean divides the sum by the reduced count `n`.
Value finishReduction(OpBuilder &b, Location loc, Operation *red, Value acc, int64_t n) {
  if (!isa<ReduceMeanOp>(red))
    return acc;
  auto t = cast<RankedTensorType>(acc.getType());
  Value c = arith::ConstantOp::create(b, loc, t.getElementType(),
                                      b.getFloatAttr(t.getElementType(), (double)n));
  return arith::DivFOp::create(b, loc, acc, tl::SplatOp::create(b, loc, t, c));
}

/// Column reductions: the innermost non-unit dims of the input are kept ones (a block of
/// `inner` consecutive elements, contiguous in memory, each one output). One program per
/// BLOCK consecutive outputs of that block (and per index of the other kept dims); an
/// scf.for over the reduced index loads BLOCK consecutive input elements per step
/// (coalesced), evaluates the prologue and accumulates every sibling reduction per lane,
/// so no cross-lane reduction is needed; mean divides by the count at the end, then the
/// epilogue runs and each result is stored. Returns a null func when the layout is not a
/// column one (the caller then builds the per-output kernel).
FailureOr<func::FuncOp> buildColumnReduction(OpBuilder &builder, FusionGroupOp group,
                                             const ReductionBody &rb, StringRef name) {
  ArrayRef<int64_t> shape = rb.inT.getShape();
  ArrayRef<int64_t> axes = rb.axes;
  SmallVector<bool> reduced(shape.size(), axes.empty());
  for (int64_t a : axes)
    reduced[a] = true;
  // Non-unit dims, adjacent dims of the same kind merged (row-major: the outer one's stride
  // is the inner one's times its size).
  struct Dim {
    int64_t size, stride;
    bool reduced;
  };
  SmallVector<Dim> dims;
  auto strides = rowMajorStrides(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    if (!dims.empty() && dims.back().reduced == reduced[d]) {
      dims.back().size *= shape[d];
      dims.back().stride = strides[d];
    } else {
      dims.push_back({shape[d], strides[d], (bool)reduced[d]});
    }
  }
  if (dims.size() < 2 || dims.back().reduced || dims.back().size < kColumnMinInner)
    return func::FuncOp();
  int64_t inner = dims.back().size;
  SmallVector<int64_t> outerShape, outerStr, redShape, redStr;
  for (const Dim &d : ArrayRef<Dim>(dims).drop_back()) {
    (d.reduced ? redShape : outerShape).push_back(d.size);
    (d.reduced ? redStr : outerStr).push_back(d.stride);
  }
  int64_t R = numElements(redShape), outer = numElements(outerShape);
  int64_t block = std::min<int64_t>(kColumnBlock, llvm::PowerOf2Ceil(inner));
  int64_t nb = (inner + block - 1) / block;
  int64_t warps = std::max<int64_t>(1, block / 64);
  Operation *red0 = rb.reds.front();
  KernelContext kc = makeKernel(builder, group, name, {outer * nb, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  // Program ob * nb + ib writes elements of [ob * inner, (ob + 1) * inner) of the result.
  setFlatSymGrid(kc, 0, inner, nb);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = red0->getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value ob = nb == 1 ? pid : arith::DivSIOp::create(b, loc, pid, tb.i32(nb)).getResult();
  Value ib = nb == 1 ? tb.i32(0) : arith::RemSIOp::create(b, loc, pid, tb.i32(nb)).getResult();
  // Scalar offset sum_d ((v / s_d) % n_d) * str_d of the row-major index v over `dimsShape`.
  auto scalarOffset = [&](OpBuilder &sb, Value v, ArrayRef<int64_t> dimsShape,
                          ArrayRef<int64_t> dimsStr) -> Value {
    auto c = [&](int64_t x) { return arith::ConstantIntOp::create(sb, loc, sb.getI32Type(), x); };
    auto s = rowMajorStrides(dimsShape);
    Value acc;
    for (size_t d = 0; d < dimsShape.size(); ++d) {
      Value q = s[d] == 1 ? v : arith::DivSIOp::create(sb, loc, v, c(s[d])).getResult();
      if (d != 0)
        q = arith::RemSIOp::create(sb, loc, q, c(dimsShape[d]));
      Value term = arith::MulIOp::create(sb, loc, q, c(dimsStr[d]));
      acc = acc ? arith::AddIOp::create(sb, loc, acc, term).getResult() : term;
    }
    return acc ? acc : c(0);
  };
  // Lanes: the outputs ib * BLOCK + [0, BLOCK) of the inner block.
  Value lane = arith::AddIOp::create(
      b, loc, tb.splat(arith::MulIOp::create(b, loc, ib, tb.i32(block))), tb.range(block));
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lane, tb.splatI32(inner));
  Value base = scalarOffset(b, ob, outerShape, outerStr);
  Value inOffs = isConstantIntValue(base, 0)
                     ? lane
                     : arith::AddIOp::create(b, loc, tb.splat(base), lane).getResult();
  size_t n = rb.reds.size();
  // Loops over reduced positions [lo, hi), `unroll` loads per iteration.
  auto loadAt = [&](OpBuilder &lb, Value r) -> FailureOr<SmallVector<Value>> {
    TileBuilder lt{lb, loc, {block}};
    Value offs =
        arith::AddIOp::create(lb, loc, inOffs, lt.splat(scalarOffset(lb, r, redShape, redStr)));
    return evalReduceInputs(lt, kc, rb, offs, mask, /*padMasked=*/false);
  };
  bool failedBody = false;
  auto loop = [&](int64_t lo, int64_t hi, int64_t unroll, SmallVector<Value> init) {
    if (hi <= lo || failedBody)
      return init;
    Value cl = arith::ConstantIndexOp::create(b, loc, lo);
    Value ch = arith::ConstantIndexOp::create(b, loc, hi);
    Value cs = arith::ConstantIndexOp::create(b, loc, unroll);
    auto f = scf::ForOp::create(
        b, loc, cl, ch, cs, ValueRange(init),
        [&](OpBuilder &lb, Location l, Value iv, ValueRange acc) {
          Value r = arith::IndexCastOp::create(lb, l, lb.getI32Type(), iv);
          SmallVector<SmallVector<Value>> xs(n); // per reduction, per unrolled step
          for (int64_t u = 0; u < unroll; ++u) {
            Value ru = u == 0
                           ? r
                           : arith::AddIOp::create(
                                 lb, l, r, arith::ConstantIntOp::create(lb, l, lb.getI32Type(), u))
                                 .getResult();
            auto step = loadAt(lb, ru);
            if (failed(step)) {
              failedBody = true;
              scf::YieldOp::create(lb, l, acc);
              return;
            }
            for (size_t i = 0; i < n; ++i)
              xs[i].push_back((*step)[i]);
          }
          SmallVector<Value> next;
          for (size_t i = 0; i < n; ++i) {
            // Pairwise combine of the loads, then into the running partial.
            tl::ReduceKind kind = reduceKindOf(rb.reds[i]).first;
            SmallVector<Value> &x = xs[i];
            while (x.size() > 1) {
              SmallVector<Value> half;
              for (size_t j = 0; j + 1 < x.size(); j += 2)
                half.push_back(tl::reduceCombine(lb, l, kind, x[j], x[j + 1]));
              if (x.size() % 2)
                half.push_back(x.back());
              x = half;
            }
            next.push_back(tl::reduceCombine(lb, l, kind, acc[i], x[0]));
          }
          scf::YieldOp::create(lb, l, next);
        });
    return SmallVector<Value>(f.getResults());
  };
  SmallVector<Value> init;
  for (Operation *r : rb.reds)
    init.push_back(tb.splatF(computeType(getElementTypeOrSelf(r->getOperand(0).getType())),
                             reduceKindOf(r).second));
  int64_t main = R / kColumnUnroll * kColumnUnroll;
  SmallVector<Value> acc = loop(0, main, kColumnUnroll, init);
  acc = loop(main, R, 1, acc);
  if (failedBody)
    return failure();
  for (size_t i = 0; i < n; ++i)
    acc[i] = finishReduction(b, loc, rb.reds[i], acc[i], R);
  // Output index: the outer kept index * inner + the lane's (row-major over the kept dims).
  Value outOffs = arith::AddIOp::create(
      b, loc, tb.splat(arith::MulIOp::create(b, loc, ob, tb.i32(inner))), lane);
  if (failed(storeReductionResults(tb, kc, rb, acc, outOffs, mask)))
    return failure();
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

FailureOr<func::FuncOp> buildReduction(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  FailureOr<ReductionBody> analyzed = analyzeReductionBody(group);
  if (failed(analyzed))
    return failure();
  const ReductionBody &rb = *analyzed;
  Operation *red0 = rb.reds.front();
  ArrayRef<int64_t> shape = rb.inT.getShape();
  ReducedDims rd = splitReducedDims(shape, rb.axes);
  const SmallVector<int64_t> &keptShape = rd.keptShape, &redShape = rd.redShape, &redStr = rd.redStr;
  int64_t R = numElements(redShape), O = numElements(keptShape);
  if (FailureOr<func::FuncOp> column = buildColumnReduction(builder, group, rb, name);
      failed(column) || *column)
    return column;
  bool chunked = R > kMaxReduction;
  int64_t block = chunked ? kChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  int64_t warps = std::min<int64_t>(8, std::max<int64_t>(1, block / 256));
  // Outputs whose symbol sits behind non-unit dims ([B, seq, 1]): programs (x, y) write
  // output element y * inner + x, so that a run launches only its rows' first outputs
  // (tile.symgrid along x); otherwise program p writes output element p.
  std::optional<SymbolRows> rows = symbolRows(group);
  if (rows && rows->outer * rows->inner != O)
    rows.reset();
  KernelContext kc = makeKernel(builder, group, name,
                                {rows ? rows->inner : O, rows ? rows->outer : 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  // Program p writes output element p (row-major over the kept dims).
  if (rows)
    setRowsSymGrid(kc, *rows, 1);
  else
    setFlatSymGrid(kc, 0, 1, 1);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = red0->getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = rows ? rowsProgramIndex(b, loc, rows->inner)
                   : tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  // Scalar base offset of this output element's kept coordinates.
  Value base = keptBaseOffset(tb, pid, rd);
  // The reduced elements [start, start + block) in row-major order over the reduced dims
  // (start: an i32 scalar, or none for 0), masked lanes padded with the identity.
  bool padMasked = R % block != 0;
  auto loadChunk = [&](TileBuilder &t, Value start) -> FailureOr<SmallVector<Value>> {
    Value r = t.range(block);
    if (start)
      r = arith::AddIOp::create(t.b, loc, t.splat(start), r);
    Value mask = arith::CmpIOp::create(t.b, loc, arith::CmpIPredicate::slt, r, t.splatI32(R));
    SmallVector<Value> ridx = t.delinearize(r, redShape);
    Value offs = t.offsets(ridx, redStr, base);
    return evalReduceInputs(t, kc, rb, offs, mask, padMasked);
  };
  size_t n = rb.reds.size();
  SmallVector<Value> xs;
  if (!chunked) {
    auto loaded = loadChunk(tb, Value());
    if (failed(loaded))
      return failure();
    xs = *loaded;
  } else {
    SmallVector<Value> init;
    for (Operation *r : rb.reds)
      init.push_back(tb.splatF(computeType(getElementTypeOrSelf(r->getOperand(0).getType())),
                               reduceKindOf(r).second));
    bool failedBody = false;
    auto loop = chunkLoop(b, loc, R, block, init, [&](OpBuilder &lb, Value k, ValueRange acc) {
      TileBuilder lt{lb, loc, {block}};
      auto loaded = loadChunk(lt, k);
      if (failed(loaded)) {
        failedBody = true;
        return SmallVector<Value>(acc);
      }
      SmallVector<Value> next;
      for (size_t i = 0; i < n; ++i)
        next.push_back(
            tl::reduceCombine(lb, loc, reduceKindOf(rb.reds[i]).first, acc[i], (*loaded)[i]));
      return next;
    });
    if (failedBody)
      return failure();
    xs = SmallVector<Value>(loop.getResults());
  }
  SmallVector<Value> outs;
  for (size_t i = 0; i < n; ++i) {
    Type elem = cast<RankedTensorType>(xs[i].getType()).getElementType();
    Value v = tl::ReduceOp::create(b, loc, RankedTensorType::get({}, elem), xs[i], (uint32_t)0,
                                   reduceKindOf(rb.reds[i]).first);
    v = finishReduction(b, loc, rb.reds[i], v, R);
    outs.push_back(tl::ExpandDimsOp::create(b, loc, RankedTensorType::get({1}, elem), v,
                                            b.getI32IntegerAttr(0)));
  }
  TileBuilder t1{b, loc, {1}};
  if (failed(storeReductionResults(t1, kc, rb, outs, t1.splat(pid), Value())))
    return failure();
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
