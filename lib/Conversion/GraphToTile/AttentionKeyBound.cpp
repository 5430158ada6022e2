//===- AttentionKeyBound.cpp - graph.attention's key_bound in the attention templates ===//
//
// A graph.attention with `key_bound` (a static KV cache: row i sees the keys j <= bound[i])
// in the tile kernels of both templates (AttentionGPUTemplate.cpp, AttentionCPUTemplate.cpp;
// docs/fusion.md, "The mask folded into the op"):
//   - keyBoundEnd: the end of a block of query rows' key loop, one past the largest bound
//     of its rows (the key blocks past every row's bound are skipped; the FlashAttention-3
//     lowering ends each tile's key blocks there too);
//   - keyBoundMaskBias: with `key_bound_mask` = c, the [R, C] bias tile of a block of
//     scores, 0 for the keys j <= bound[row] and c past them, from one load of the bound per
//     row.
//
//===----------------------------------------------------------------------===//
#include "AttentionKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace aicc::templates {

Value keyBoundEnd(OpBuilder &b, Location loc, KernelContext &kc, AttentionOp att, Value m0,
                  int64_t BM, Value rowsEnd, int64_t Skv) {
  Value kb = att.getKeyBound();
  if (!kb)
    return {};
  // The bound as the group reads it: a kernel input, through reshapes (each row one
  // element, in row order: [1, .., Sq or 1, 1]).
  Value root = kb;
  while (auto r = root.getDefiningOp<ReshapeOp>())
    root = r.getInput();
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || !kc.argIndex.count(arg))
    return {};
  Value param = kc.inParams[kc.argIndex.lookup(arg)];
  auto kt = cast<RankedTensorType>(kb.getType());
  Type et = kt.getElementType();
  Type i32 = b.getI32Type();
  auto c32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  auto cE = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, et, v); };
  auto toIndex = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
  };
  // Rows [m0, min(m0 + BM, rowsEnd)), or the one bound of every row.
  bool perRow = kt.getShape().end()[-2] != 1;
  Value lo = perRow ? m0 : c32(0);
  Value hi =
      perRow ? arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, m0, c32(BM)), rowsEnd)
                   .getResult()
             : c32(1);
  hi = arith::MaxSIOp::create(b, loc, hi, lo);
  Value zero = cE(0);
  // (max bound, any negative): -1 and false before the first row. kKeyBoundRowsPerStep
  // rows per step, their loads independent (row min(r + k, hi - 1): a repeated row changes
  // neither), so a thread has that many in flight instead of one load's latency per row (a
  // FlashAttention-3 tile's 128 rows in 16 steps).
  constexpr int64_t kKeyBoundRowsPerStep = 8;
  Value hiIdx = toIndex(hi);
  Value last = arith::SubIOp::create(b, loc, hiIdx, arith::ConstantIndexOp::create(b, loc, 1));
  auto loop = scf::ForOp::create(
      b, loc, toIndex(lo), hiIdx, arith::ConstantIndexOp::create(b, loc, kKeyBoundRowsPerStep),
      ValueRange{cE(-1), arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0)},
      [&](OpBuilder &lb, Location l, Value r, ValueRange carried) {
        Value mx = carried[0], neg = carried[1];
        for (int64_t k = 0; k < kKeyBoundRowsPerStep; ++k) {
          Value row =
              k == 0
                  ? r
                  : arith::MinSIOp::create(
                        lb, l,
                        arith::AddIOp::create(lb, l, r, arith::ConstantIndexOp::create(lb, l, k)),
                        last)
                        .getResult();
          Value v = memref::LoadOp::create(lb, l, param, ValueRange{row});
          mx = arith::MaxSIOp::create(lb, l, mx, v);
          neg = arith::OrIOp::create(
              lb, l, neg, arith::CmpIOp::create(lb, l, arith::CmpIPredicate::slt, v, zero));
        }
        scf::YieldOp::create(lb, l, ValueRange{mx, neg});
      });
  // min(max bound, Skv - 1) + 1 (>= 0; clamped before the + 1, so the type's largest
  // position does not wrap), Skv when a row's bound is negative (in the bound's width, then
  // i32: Skv < 2^31).
  Value end = arith::AddIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, loop.getResult(0), cE(Skv - 1)), cE(1));
  end = arith::SelectOp::create(b, loc, loop.getResult(1), cE(Skv), end);
  if (et.getIntOrFloatBitWidth() > 32)
    end = arith::TruncIOp::create(b, loc, i32, end);
  return end;
}

FailureOr<Value> keyBoundMaskBias(OpBuilder &b, Location loc, KernelContext &kc, AttentionOp att,
                                  ArrayRef<Value> batchIdx, ArrayRef<int64_t> batchShape,
                                  Value rows, Value cols, Type floatType) {
  Value kb = att.getKeyBound();
  std::optional<APFloat> c = att.getKeyBoundMask();
  if (!c || !kb)
    return Value();
  int64_t R = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  int64_t C = cast<RankedTensorType>(cols.getType()).getDimSize(0);
  // key_bound [1, .., Sq or 1, 1] broadcast to [batch.., Sq, 1]: one element per row.
  SmallVector<int64_t> outShape(batchShape);
  outShape.append({att.getQueryLength(), 1});
  if (cast<RankedTensorType>(kb.getType()).getRank() > (int64_t)outShape.size())
    return att.emitError("attention template: key_bound has more dims than the scores"), failure();
  TileBuilder tr{b, loc, {R}};
  SmallVector<Value> idx;
  for (Value i : batchIdx)
    idx.push_back(tr.splat(i));
  idx.append({rows, tr.splatI32(0)});
  Value rowMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rows,
                                        tr.splatI32(att.getQueryLength()));
  FailureOr<Value> bound = loadOperand(tr, kc, kb, outShape, idx, rowMask);
  if (failed(bound))
    return failure();
  // An i64 position clamped to [-1, Skv] in its width (the same keys visible: none below 0,
  // all from Skv - 1 on), then compared in i32: per row, not per score.
  Value rb = *bound;
  auto bt = cast<RankedTensorType>(rb.getType());
  if (bt.getElementType().getIntOrFloatBitWidth() > 32) {
    auto cE = [&](int64_t v) {
      return tl::SplatOp::create(b, loc, bt,
                                 arith::ConstantIntOp::create(b, loc, bt.getElementType(), v));
    };
    rb = arith::MaxSIOp::create(b, loc, rb, cE(-1));
    rb = arith::MinSIOp::create(b, loc, rb, cE(att.getKeyLength()));
    rb = arith::TruncIOp::create(b, loc, RankedTensorType::get({R}, b.getI32Type()), rb);
  }
  TileBuilder ts{b, loc, {R, C}};
  Value visible =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, ts.along(cols, 1), ts.along(rb, 0));
  return arith::SelectOp::create(b, loc, visible, ts.splatF(floatType, 0.0),
                                 ts.splatF(floatType, c->convertToDouble()))
      .getResult();
}

} // namespace aicc::templates
