//===- ScatterTemplate.cpp - scatter_elements / scatter_nd template ---------===//
#include "TemplateSupport.h"

mlir::Operation *aicc::scatterOfGroup(aicc::graph::FusionGroupOp group) {
  using namespace mlir;
  using namespace aicc::graph;
  if (group.getKind() != "single")
    return nullptr;
  Block &body = group.getBody().front();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return nullptr;
  Operation *op = yield.getValues()[0].getDefiningOp();
  return op && op->getBlock() == &body && isa<ScatterElementsOp, ScatterNDOp>(op) ? op : nullptr;
}

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Scatter template (scatter_elements, scatter_nd). Each program owns a block of the
// coordinates that updates cannot cross: data's coordinates outside `axis` for
// scatter_elements (an update only moves along `axis`), the positions within one slice
// for scatter_nd (an index tuple picks a whole slice). The program copies data to the
// output over the elements it owns, then applies the updates that land there one after
// another in their row-major order (a loop over the axis of `updates` / the index
// tuples, BLOCK lanes each): duplicates combine in order, and no two programs, and no two
// lanes of one store, write the same element. Work is O(numel(data) + numel(updates)).
//===----------------------------------------------------------------------===//

/// result = cur op upd for a scatter `reduction` ("add", "mul", "max", "min").
Value combineScatter(OpBuilder &b, Location loc, StringRef reduction, Value cur, Value upd) {
  bool isFloat = isa<FloatType>(cast<RankedTensorType>(cur.getType()).getElementType());
  if (reduction == "add")
    return isFloat ? arith::AddFOp::create(b, loc, cur, upd).getResult()
                   : arith::AddIOp::create(b, loc, cur, upd).getResult();
  if (reduction == "mul")
    return isFloat ? arith::MulFOp::create(b, loc, cur, upd).getResult()
                   : arith::MulIOp::create(b, loc, cur, upd).getResult();
  if (reduction == "max") // numpy.maximum: NaN propagates
    return isFloat ? arith::MaximumFOp::create(b, loc, cur, upd).getResult()
                   : arith::MaxSIOp::create(b, loc, cur, upd).getResult();
  return isFloat ? arith::MinimumFOp::create(b, loc, cur, upd).getResult()
                 : arith::MinSIOp::create(b, loc, cur, upd).getResult();
}

/// An scf.for over [0, n) step `step` with no results; returns the body builder (before
/// the terminator) and the i32 induction variable.
std::pair<OpBuilder, Value> emptyLoop(OpBuilder &b, Location loc, int64_t n, int64_t step) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value cn = arith::ConstantIndexOp::create(b, loc, n);
  Value cs = arith::ConstantIndexOp::create(b, loc, step);
  auto loop = scf::ForOp::create(b, loc, c0, cn, cs);
  Block *body = loop.getBody();
  if (body->empty() || !body->back().hasTrait<mlir::OpTrait::IsTerminator>()) {
    OpBuilder e = OpBuilder::atBlockEnd(body);
    scf::YieldOp::create(e, loc);
  }
  OpBuilder lb(body->getTerminator());
  Value iv = arith::IndexCastOp::create(lb, loc, lb.getI32Type(), loop.getInductionVar());
  return {lb, iv};
}

/// Copies rows [0, rows) x the owned columns `cols` (a [BC] tile, `colMask`) of a
/// [rows, rowStride]-strided buffer from `src` to `dst`, BR rows at a time.
void copyOwned(OpBuilder &b, Location loc, Value src, Value dst, Type elem, int64_t rows,
               int64_t rowStride, int64_t BR, Value colBase, Value colMask, int64_t BC) {
  auto [lb, r0] = emptyLoop(b, loc, rows, BR);
  TileBuilder t1{lb, loc, {BR}}, t2{lb, loc, {BR, BC}};
  Value r = arith::AddIOp::create(lb, loc, t1.splat(r0), t1.range(BR));
  Value rMask = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, r, t1.splatI32(rows));
  Value off = arith::AddIOp::create(
      lb, loc, arith::MulIOp::create(lb, loc, t2.along(r, 0), t2.splatI32(rowStride)),
      t2.along(colBase, 1));
  Value mask = arith::AndIOp::create(lb, loc, t2.along(rMask, 0), t2.along(colMask, 1));
  Value v = t2.load(src, off, mask, elem);
  t2.store(dst, off, v, mask);
}

FailureOr<func::FuncOp> buildScatter(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Operation *op = scatterOfGroup(group);
  if (!op)
    return group.emitError("scatter group must yield the result of its scatter_elements or "
                           "scatter_nd"),
           failure();
  auto se = dyn_cast<ScatterElementsOp>(op);
  auto snd = dyn_cast<ScatterNDOp>(op);
  Value dataV = op->getOperand(0), idxV = op->getOperand(1), updV = op->getOperand(2);
  for (Value v : {dataV, idxV})
    if (!isa<BlockArgument>(v))
      return op->emitError("scatter data and indices must be kernel inputs"), failure();
  // The updates: a kernel input, or computed before the scatter by elementwise and view
  // ops of the group (evaluated per update element; the group holds nothing else).
  for (Operation &other : group.getBody().front().without_terminator())
    if (&other != op && !(isElementwise(&other) || isView(&other) || isa<ReshapeOp>(other)))
      return other.emitError("scatter group holds ")
                 << other.getName() << ", which its kernel cannot evaluate per update",
             failure();
  auto dT = cast<RankedTensorType>(dataV.getType());
  auto iT = cast<RankedTensorType>(idxV.getType());
  auto uT = cast<RankedTensorType>(updV.getType());
  for (int64_t n : {dT.getNumElements(), iT.getNumElements(), uT.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return op->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  Type raw = dT.getElementType();
  if (raw.isUnsignedInteger() || raw.isSignedInteger())
    return op->emitError("kernel templates do not support ") << raw << " tensors yet", failure();
  StringRef reduction = se ? se.getReduction() : snd.getReduction();
  Type elem = computeType(raw);
  ArrayRef<int64_t> D = dT.getShape();
  auto dStr = rowMajorStrides(D);
  Location loc = op->getLoc();
  auto param = [&](KernelContext &kc, Value v) { return kc.inParams[kc.argIndex[v]]; };
  // The update at flat offsets `off` of updates' shape: loaded, or evaluated there.
  auto updateAt = [&](TileBuilder &lt, KernelContext &kc, Value off, Value mask) {
    if (isa<BlockArgument>(updV))
      return FailureOr<Value>(lt.load(param(kc, updV), off, mask, elem));
    return evalBodyValueAt(lt, kc, updV, lt.delinearize(off, uT.getShape()), mask);
  };

  if (se) {
    int64_t axis = se.getAxis(), N = D[axis];
    ArrayRef<int64_t> S = iT.getShape();
    auto sStr = rowMajorStrides(S);
    // Owned coordinates: data's dims other than `axis`, row-major.
    SmallVector<int64_t> other, otherDStr, otherSStr, otherS;
    for (int64_t d = 0; d < dT.getRank(); ++d)
      if (d != axis) {
        other.push_back(D[d]);
        otherDStr.push_back(dStr[d]);
        otherSStr.push_back(sStr[d]);
        otherS.push_back(S[d]);
      }
    int64_t C = numElements(other), U = S[axis];
    int64_t BC = std::min<int64_t>(1024, (int64_t)llvm::PowerOf2Ceil(C));
    int64_t BR = std::max<int64_t>(1, std::min<int64_t>(llvm::PowerOf2Ceil(N), 1024 / BC));
    KernelContext kc =
        makeKernel(builder, group, name, {(C + BC - 1) / BC, 1, 1}, 4,
                   {blockAttr(builder, "BLOCK", BC), blockAttr(builder, "BLOCK_ROWS", BR)});
    OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
    TileBuilder tb{b, loc, {BC}};
    Value pid = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
    Value c = arith::AddIOp::create(
        b, loc, tb.splat(arith::MulIOp::create(b, loc, pid, tb.i32(BC))), tb.range(BC));
    Value cMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, c, tb.splatI32(C));
    SmallVector<Value> coords = tb.delinearize(c, other);
    Value dBase = tb.offsets(coords, otherDStr);
    // Rows are positions along `axis`, columns the owned coordinates.
    copyOwned(b, loc, param(kc, dataV), kc.outParams[0], raw, N, dStr[axis], BR, dBase, cMask, BC);
    Value inUpd = cMask;
    for (auto [x, s, dd] : llvm::zip(coords, otherS, other))
      if (s < dd)
        inUpd = arith::AndIOp::create(
            b, loc, inUpd,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, tb.splatI32(s)));
    Value uBase = tb.offsets(coords, otherSStr);
    auto [lb, j] = emptyLoop(b, loc, U, 1);
    TileBuilder lt{lb, loc, {BC}};
    Value uOff = arith::AddIOp::create(
        lb, loc, uBase, lt.splat(arith::MulIOp::create(lb, loc, j, lt.i32(sStr[axis]))));
    Value k = lt.load(param(kc, idxV), uOff, inUpd, iT.getElementType());
    Value tgt = arith::AddIOp::create(
        lb, loc, dBase,
        arith::MulIOp::create(lb, loc, wrapIndex(lt, k, N), lt.splatI32(dStr[axis])));
    FailureOr<Value> u = updateAt(lt, kc, uOff, inUpd);
    if (failed(u))
      return failure();
    Value v = *u;
    if (reduction != "none")
      v = combineScatter(lb, loc, reduction, lt.load(kc.outParams[0], tgt, inUpd, elem), v);
    lt.store(kc.outParams[0], tgt, v, inUpd);
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }

  // scatter_nd: tuples of k indices pick one of P positions of data's dims [axis, axis + k)
  // (axis 0: ONNX's leading dims) and write a slice of S elements, data's other dims in
  // their order: slice element s = (outer, inner) over data.shape[:axis] and
  // data.shape[axis + k:] sits at outer * P * inner + position * inner + inner.
  int64_t k = iT.getShape().back(), axis = snd.getAxis();
  int64_t Q = iT.getNumElements() / std::max<int64_t>(k, 1);
  ArrayRef<int64_t> tupleDims = D.slice(axis, k);
  int64_t P = numElements(tupleDims), inner = numElements(D.drop_front(axis + k));
  int64_t outer = numElements(D.take_front(axis)), S = outer * inner;
  auto pStr = rowMajorStrides(tupleDims);
  int64_t BS = std::min<int64_t>(1024, (int64_t)llvm::PowerOf2Ceil(S));
  int64_t BR = std::max<int64_t>(1, std::min<int64_t>(llvm::PowerOf2Ceil(P), 1024 / BS));
  // In place (kScatterInPlaceAttrName: the output is the data's buffer): no copy; without a
  // reduction the tuples run in parallel, one program per (tuple, slice block), x being the
  // tuple (CUDA's y and z stop at 65535).
  const bool inPlace = snd->hasAttr(kScatterInPlaceAttrName);
  const int64_t sliceBlocks = (S + BS - 1) / BS;
  const bool perTuple = inPlace && reduction == "none" && Q >= 1 && sliceBlocks <= 65535;
  SmallVector<int64_t, 3> grid = perTuple ? SmallVector<int64_t, 3>{Q, sliceBlocks, 1}
                                          : SmallVector<int64_t, 3>{sliceBlocks, 1, 1};
  KernelContext kc =
      makeKernel(builder, group, name, grid, 4,
                 {blockAttr(builder, "BLOCK", BS), blockAttr(builder, "BLOCK_ROWS", BR)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  TileBuilder tb{b, loc, {BS}};
  Value pid =
      tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(perTuple ? 1 : 0));
  Value s = arith::AddIOp::create(b, loc, tb.splat(arith::MulIOp::create(b, loc, pid, tb.i32(BS))),
                                  tb.range(BS));
  Value sMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, s, tb.splatI32(S));
  // Slice element s's offset in data (its position's row aside) and the rows' stride.
  Value sBase = s;
  if (outer > 1)
    sBase = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, s, tb.splatI32(inner)),
                              tb.splatI32(P * inner)),
        arith::RemSIOp::create(b, loc, s, tb.splatI32(inner)));
  if (!inPlace)
    copyOwned(b, loc, param(kc, dataV), kc.outParams[0], raw, P, inner, BR, sBase, sMask, BS);
  // A symbolic number of tuples (bounded symbolic dims, kRunTuplesAttrName = [axis, symbol,
  // factor]): tuple u's coordinate along the indices' dim `axis` must be below factor x the
  // run's value of `symbol` (the group's symbol-values input, the kernel's tile.symvalues
  // parameter); the tuples past it are the buffers' tail, whatever they hold.
  auto runTuples = op->getAttrOfType<DenseI64ArrayAttr>(kRunTuplesAttrName);
  Value runLimit;
  int64_t tupleInner = 1, tupleDim = 1, tupleOuter = 1;
  if (runTuples) {
    auto input = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
    int64_t rAxis = runTuples.size() == 3 ? runTuples[0] : -1;
    if (!input || rAxis < 0 || rAxis >= iT.getRank() - 1 || input.getInt() < 0 ||
        input.getInt() >= (int64_t)kc.inParams.size() || runTuples[2] < 1)
      return op->emitError("scatter template: ")
                 << kRunTuplesAttrName << " needs [axis, symbol, factor] with the axis before "
                 << "the indices' last and the group's " << kSymbolValuesInputAttrName << " input",
             failure();
    tupleDim = iT.getDimSize(rAxis);
    for (int64_t d = rAxis + 1; d < iT.getRank() - 1; ++d)
      tupleInner *= iT.getDimSize(d);
    for (int64_t d = 0; d < rAxis; ++d)
      tupleOuter *= iT.getDimSize(d);
    kc.kernel->setAttr(tl::kSymValuesAttrName, b.getI64IntegerAttr(input.getInt()));
    Value all = tb.splat(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    runLimit = tb.load(kc.inParams[input.getInt()], tb.splatI32(runTuples[1]), all, b.getI32Type());
    if (runTuples[2] != 1)
      runLimit = arith::MulIOp::create(b, loc, runLimit, tb.splatI32(runTuples[2]));
    // One program per tuple, the run's tuples a prefix of them (nothing before the symbolic
    // dim): a run at value v launches only v x factor x tupleInner of them (tile.symgrid).
    if (perTuple && tupleOuter == 1)
      kc.kernel->setAttr(
          tl::kSymGridAttrName,
          b.getDenseI64ArrayAttr({0, runTuples[1], runTuples[2] * tupleInner, 1, 1}));
  }
  // The tuple's update: one program's (u = its x) or the loop's, in order.
  auto applyTuple = [&](OpBuilder &lb, Value u, Value mask) -> LogicalResult {
    TileBuilder lt{lb, loc, {BS}};
    if (runTuples) {
      Value coord = arith::RemSIOp::create(
          lb, loc, arith::DivSIOp::create(lb, loc, u, lt.i32(tupleInner)), lt.i32(tupleDim));
      Value inRun =
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, lt.splat(coord), runLimit);
      mask = arith::AndIOp::create(lb, loc, mask, inRun);
    }
    Value prefix = lt.splatI32(0);
    for (int64_t m = 0; m < k; ++m) {
      // Every lane reads the same index element u * k + m.
      Value at =
          arith::AddIOp::create(lb, loc, arith::MulIOp::create(lb, loc, u, lt.i32(k)), lt.i32(m));
      Value km = lt.load(param(kc, idxV), lt.splat(at), mask, iT.getElementType());
      prefix = arith::AddIOp::create(
          lb, loc, prefix,
          arith::MulIOp::create(lb, loc, wrapIndex(lt, km, tupleDims[m]), lt.splatI32(pStr[m])));
    }
    Value tgt = arith::AddIOp::create(
        lb, loc, arith::MulIOp::create(lb, loc, prefix, lt.splatI32(inner)), sBase);
    Value uOff =
        arith::AddIOp::create(lb, loc, lt.splat(arith::MulIOp::create(lb, loc, u, lt.i32(S))), s);
    FailureOr<Value> upd = updateAt(lt, kc, uOff, mask);
    if (failed(upd))
      return failure();
    Value v = *upd;
    if (reduction != "none")
      v = combineScatter(lb, loc, reduction, lt.load(kc.outParams[0], tgt, mask, elem), v);
    lt.store(kc.outParams[0], tgt, v, mask);
    return success();
  };
  if (perTuple) {
    if (failed(applyTuple(
            b, tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0)), sMask)))
      return failure();
  } else {
    auto [lb, u] = emptyLoop(b, loc, Q, 1);
    if (failed(applyTuple(lb, u, sMask)))
      return failure();
  }
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
