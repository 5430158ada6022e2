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

FailureOr<func::FuncOp> buildAttentionCombine(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, AttentionOp att, int64_t splits,
                                              int64_t queryRows, bool gpu) {
  Location loc = att.getLoc();
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  // (Sq: the rows combined, the first of the result's; the store addresses the whole result.)
  int64_t Sq = queryRows, Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  auto [partialT, lseT] = splitPartialTypes(att, splits, queryRows);
  Type ct = partialT.getElementType();
  // GPU: whole rows of Dv (a power of two there) so the block store writes no other head.
  int64_t BM = blockOf(Sq, 16), BDV = blockOf(Dv, kMaxAttentionHeadSize);
  KernelContext kc =
      makeKernelWithParams(builder, group, name, {partialT, lseT}, {yT},
                           {(int64_t)llvm::divideCeil(Sq, BM), batch, 1}, 4,
                           {blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_DV", BDV),
                            blockAttr(builder, "KV_SPLITS", splits)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  double inf = std::numeric_limits<double>::infinity();
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  TileBuilder tr{b, loc, {BM}};
  TileBuilder to{b, loc, {BM, BDV}};
  Value m0 = arith::MulIOp::create(b, loc, pidM, tr.i32(BM));
  Value rows = arith::AddIOp::create(b, loc, tr.splat(m0), tr.range(BM));
  Value rowMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rows, tr.splatI32(Sq));
  TileBuilder tc{b, loc, {BDV}};
  Value cols = tc.range(BDV);
  Value colMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cols, tc.splatI32(Dv));
  Value mask = arith::AndIOp::create(b, loc, to.along(rowMask, 0), to.along(colMask, 1));
  Value partials = kc.inParams[kc.inParams.size() - 2], lses = kc.inParams.back();
  // Slice s's rows: partial matrix s * batch + b.
  auto rowOffsets = [&](int64_t s) -> Value {
    Value base = arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, pidB, tr.i32(s * batch)), tr.i32(Sq));
    return arith::AddIOp::create(b, loc, tr.splat(base), rows);
  };
  auto toRows = [&](Value v) -> Value {
    Type et = cast<RankedTensorType>(v.getType()).getElementType();
    Value e = tl::ExpandDimsOp::create(b, loc, RankedTensorType::get({BM, 1}, et), v,
                                       b.getI32IntegerAttr(1));
    return tl::BroadcastOp::create(b, loc, to.tileOf(et), e);
  };
  SmallVector<Value> lse;
  Value M;
  for (int64_t s = 0; s < splits; ++s) {
    lse.push_back(tr.load(lses, rowOffsets(s), rowMask, ct, -inf));
    M = M ? arith::MaximumFOp::create(b, loc, M, lse.back()).getResult() : lse.back();
  }
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, M, tr.splatF(ct, -inf));
  M = arith::SelectOp::create(b, loc, none, tr.splatF(ct, 0.0), M);
  Value den, acc;
  for (int64_t s = 0; s < splits; ++s) {
    Value w = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, lse[s], M));
    Value offs = arith::AddIOp::create(
        b, loc, to.along(arith::MulIOp::create(b, loc, rowOffsets(s), tr.splatI32(Dv)), 0),
        to.along(cols, 1));
    Value o = arith::MulFOp::create(b, loc, to.load(partials, offs, mask, ct), toRows(w));
    den = den ? arith::AddFOp::create(b, loc, den, w).getResult() : w;
    acc = acc ? arith::AddFOp::create(b, loc, acc, o).getResult() : o;
  }
  Value y = arith::DivFOp::create(b, loc, acc, toRows(den));
  // No slice with a visible key: den = 0 and y NaN (ONNX's softmax), or with
  // zero_undefined_rows 0 (a NaN log-sum-exp, a NaN / +inf score, too: den NaN).
  if (att.getZeroUndefinedRows())
    y = arith::SelectOp::create(b, loc, toRows(undefinedRows(b, loc, att, den)), to.splatF(ct, 0.0),
                                y);
  if (gpu) {
    y = arith::TruncFOp::create(b, loc, to.tileOf(yT.getElementType()), y);
    BatchIndexing bi(b, loc, pidB, batchShape);
    auto out = resultMatrix(bi, kc.outParams[0], att, pidB, tr.i32(0));
    if (failed(out))
      return failure();
    tl::BlockStoreOp::create(b, loc, out->param, out->batch, m0, out->col, y, out->dims);
  } else {
    // The result's indices: the batch dims of pidB, the row, the column.
    SmallVector<Value> idx;
    auto strides = rowMajorStrides(batchShape);
    for (size_t d = 0; d < batchShape.size(); ++d) {
      Value q = arith::DivSIOp::create(b, loc, pidB, tr.i32(strides[d]));
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, tr.i32(batchShape[d]));
      idx.push_back(to.splat(q));
    }
    idx.push_back(to.along(rows, 0));
    idx.push_back(to.along(cols, 1));
    auto fused = applyEpilogue(to, kc, att, y, yShape, idx, mask);
    if (failed(fused))
      return failure();
    to.store(kc.outParams[0], to.offsets(idx, rowMajorStrides(yShape)), *fused, mask);
  }
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
