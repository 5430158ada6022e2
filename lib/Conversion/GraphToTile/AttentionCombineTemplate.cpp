//===- AttentionCombineTemplate.cpp - split keys: the slices' partials -> the result ---===//
//
// Flash-decoding's second step (Dao, Haziza, Massa, Sizov, "Flash-Decoding for long-context
// inference", 2023): the partials of the key slices (splitPartialTypes) and the kernel that
// combines them (buildAttentionCombine, AttentionKernels.h).
//
//===----------------------------------------------------------------------===//
#include "AttentionKernels.h"

namespace aicc::templates {

std::pair<RankedTensorType, RankedTensorType> splitPartialTypes(AttentionOp att, int64_t splits,
                                                                int64_t rows) {
  auto yT = att.getType();
  int64_t matrices = splits * numElements(yT.getShape().drop_back(2));
  Type ct = computeType(yT.getElementType());
  return {RankedTensorType::get({matrices, rows, att.getValueHeadSize()}, ct),
          RankedTensorType::get({matrices, rows, 1}, ct)};
}

/// One program per (query row, batch matrix) over the row's Dv columns, a 1-D tile (GPU
/// targets lower it in registers: the slices' log-sum-exps are [1] tiles broadcast along
/// the row), so Sq x batch programs share the slices' reads. A row past the run's query
/// count (an attention over a symbolic sequence: the group's symbol values) loads and
/// stores nothing.
FailureOr<func::FuncOp> buildAttentionCombine(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, AttentionOp att, int64_t splits,
                                              int64_t queryRows, bool tensorCore) {
  Location loc = att.getLoc();
  auto yT = att.getType();
  SmallVector<int64_t> batchShape(yT.getShape().drop_back(2));
  int64_t Sq = queryRows, Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  auto [partialT, lseT] = splitPartialTypes(att, splits, queryRows);
  Type ct = partialT.getElementType();
  int64_t BDV = blockOf(Dv, kMaxAttentionHeadSize);
  // Four f32 of the row per thread, one to four warps.
  int64_t warps = std::min<int64_t>(4, std::max<int64_t>(1, BDV / 128));
  KernelContext kc = makeKernelWithParams(
      builder, group, name, {partialT, lseT}, {yT}, {Sq, batch, 1}, warps,
      {blockAttr(builder, "BLOCK_DV", BDV), blockAttr(builder, "KV_SPLITS", splits)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  double inf = std::numeric_limits<double>::infinity();
  Value row = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  TileBuilder t1{b, loc, {1}};
  TileBuilder tc{b, loc, {BDV}};
  auto i32 = [&](int64_t v) { return t1.i32(v); };
  Value cols = tc.range(BDV);
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cols, tc.splatI32(Dv));
  Value rowOk; // [1] i1: the row is the run's (none: every row is)
  if (auto rl = att->getAttrOfType<DenseI64ArrayAttr>(kRunLengthsAttrName);
      rl && rl.size() == 4 && rl[0] >= 0) {
    auto input = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
    if (!input || input.getInt() < 0 || input.getInt() >= (int64_t)kc.inParams.size())
      return att.emitError("attention combine kernel: ")
                 << kRunLengthsAttrName << " needs the group's " << kSymbolValuesInputAttrName
                 << " input",
             failure();
    kc.kernel->setAttr(tl::kSymValuesAttrName, b.getI64IntegerAttr(input.getInt()));
    Value runSq = t1.load(kc.inParams[input.getInt()], t1.splatI32(rl[0]), Value(), b.getI32Type());
    if (rl[1] != 1)
      runSq = arith::MulIOp::create(b, loc, runSq, t1.splatI32(rl[1]));
    rowOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t1.splat(row), runSq);
    mask = arith::AndIOp::create(b, loc, mask,
                                 tl::BroadcastOp::create(b, loc, tc.tileOf(b.getI1Type()), rowOk));
  }
  auto toRow = [&](Value v1) -> Value {
    Type et = cast<RankedTensorType>(v1.getType()).getElementType();
    return tl::BroadcastOp::create(b, loc, tc.tileOf(et), v1);
  };
  Value partials = kc.inParams[kc.inParams.size() - 2], lses = kc.inParams.back();
  // Slice s's row: row `row` of partial matrix s * batch + pidB.
  auto rowIndex = [&](int64_t s) -> Value {
    Value m = arith::AddIOp::create(b, loc, pidB, i32(s * batch));
    return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, m, i32(Sq)), row);
  };
  SmallVector<Value> lse;
  Value M;
  for (int64_t s = 0; s < splits; ++s) {
    lse.push_back(t1.load(lses, t1.splat(rowIndex(s)), rowOk, ct, -inf));
    M = M ? arith::MaximumFOp::create(b, loc, M, lse.back()).getResult() : lse.back();
  }
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, M, t1.splatF(ct, -inf));
  M = arith::SelectOp::create(b, loc, none, t1.splatF(ct, 0.0), M);
  Value den, acc;
  for (int64_t s = 0; s < splits; ++s) {
    Value w = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, lse[s], M));
    Value offs = arith::AddIOp::create(
        b, loc, tc.splat(arith::MulIOp::create(b, loc, rowIndex(s), i32(Dv))), cols);
    Value o = arith::MulFOp::create(b, loc, tc.load(partials, offs, mask, ct), toRow(w));
    den = den ? arith::AddFOp::create(b, loc, den, w).getResult() : w;
    acc = acc ? arith::AddFOp::create(b, loc, acc, o).getResult() : o;
  }
  Value y = arith::DivFOp::create(b, loc, acc, toRow(den));
  // No slice with a visible key: den = 0 and y NaN (ONNX's softmax), or with
  // zero_undefined_rows 0 (a NaN log-sum-exp, a NaN / +inf score, too: den NaN).
  if (att.getZeroUndefinedRows())
    y = arith::SelectOp::create(b, loc, toRow(undefinedRows(b, loc, att, den)), tc.splatF(ct, 0.0),
                                y);
  BatchIndexing bi(b, loc, pidB, batchShape);
  if (!tensorCore) {
    // The result's indices: the batch dims of pidB, the row, the columns; the group's
    // elementwise epilogue applied there.
    SmallVector<Value> idx;
    for (Value q : bi.idx)
      idx.push_back(tc.splat(q));
    idx.push_back(tc.splat(row));
    idx.push_back(cols);
    ArrayRef<int64_t> yShape = yT.getShape();
    auto fused = applyEpilogue(tc, kc, att, y, yShape, idx, mask);
    if (failed(fused))
      return failure();
    tc.store(kc.outParams[0], tc.offsets(idx, rowMajorStrides(yShape)), *fused, mask);
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }
  y = arith::TruncFOp::create(b, loc, tc.tileOf(yT.getElementType()), y);
  auto out = resultMatrix(bi, kc.outParams[0], att, pidB, i32(0));
  if (failed(out))
    return failure();
  // Element (row, c) of block matrix `batch` of the [matrices, rows, cols] buffer, as
  // tile.block_store addresses it.
  Value base = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, out->batch, i32(out->dims[1])), row),
          i32(out->dims[2])),
      out->col);
  tc.store(out->param, arith::AddIOp::create(b, loc, tc.splat(base), cols), y, mask);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
