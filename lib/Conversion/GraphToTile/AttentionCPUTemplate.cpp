//===- AttentionCPUTemplate.cpp - graph.attention -> the cpu FlashAttention kernel ---===//
//
// The FlashAttention forward pass's tiling (Dao et al., "FlashAttention: Fast and
// Memory-Efficient Exact Attention with IO-Awareness", 2022, in FlashAttention-2's loop
// order: Dao, 2023, Algorithm 1 -- the query block outside, the key / value blocks inside,
// so a program owns its output rows and never combines with others). The tile form follows
// Triton's fused-attention tutorial (python/tutorials/06-fused-attention.py); the code is
// our own.
//
// One program per (BLOCK_M query rows, batch element): program_id(0) is the query block,
// program_id(1) the flat index over the op's batch dims (row-major). The program loads its
// Q block [BLOCK_M, D] once; the scores of a key block of BLOCK_N keys are
//
//   s = scale * (Q @ K^T[:, block]) + bias[rows, block]        [BLOCK_M, BLOCK_N], f32
//   s = -inf outside the keys (the ragged last block) and above the causal diagonal
//
// and two loops over the key blocks produce the output, the scores never in memory:
//
//   pass 1:  m   = max(m, rowmax(s))                 m' = (m == -inf ? 0 : m)
//   pass 2:  p   = exp(s - m');  l += rowsum(p);  acc += p @ V[block, :]
//   y = acc / l
//
// This is the exact softmax with the max known before the sums, so nothing is rescaled.
// FlashAttention's one-pass form (the online softmax of Milakov & Gimelshein, 2018:
// acc = acc * exp(m_old - m_new) + p @ V) reads the running max after its update; the cpu
// path's one-shot bufferization cannot keep such a loop-carried tile in place (it needs
// each yielded tile to be its iteration argument's last use), and a copy per key block
// would cost more than computing Q K^T twice. The tensor-core lowerings (issue 17's next
// step) take the one-pass form in registers. A row whose every score is -inf has l = 0
// and is NaN, as ONNX's softmax makes it; exp(-inf - -inf) is never evaluated (with the
// op's zero_undefined_rows: 0 where !(l > 0), i.e. l = 0 or a NaN / +inf score). Products
// accumulate in f32 (f16 / bf16 operands are loaded as f32; f64 ones stay f64). Q, K^T, V
// and the bias are read through the views in the group (K^T = transpose(K), heads split
// from [B, S, H, D]) by index arithmetic (loadView); elementwise consumers of the output (a
// cast) are applied before the store.
//
// Split keys: program_id(2) runs its slice of the key blocks in both passes and stores the
// slice's O / l and log-sum-exp (AttentionKernels.h, buildAttentionCPU).
//
//===----------------------------------------------------------------------===//
#include "AttentionKernels.h"

namespace aicc::templates {

FailureOr<func::FuncOp> buildAttentionCPU(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                          AttentionOp att, int64_t splits, int64_t splitBlocks,
                                          int64_t blockM, int64_t blockN) {
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  int64_t Sq = att.getQueryLength(), Skv = att.getKeyLength(), D = att.getHeadSize(),
          Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  int64_t BM = blockOf(Sq, blockM), BN = blockOf(Skv, blockN);
  int64_t BD = blockOf(D, kMaxAttentionHeadSize), BDV = blockOf(Dv, kMaxAttentionHeadSize);
  bool split = splits > 1;
  SmallVector<NamedAttribute> blocks = {
      blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_N", BN),
      blockAttr(builder, "BLOCK_D", BD), blockAttr(builder, "BLOCK_DV", BDV)};
  SmallVector<int64_t> grid = {(int64_t)llvm::divideCeil(Sq, BM), batch, 1};
  auto [partialT, lseT] = splitPartialTypes(att, splits, att.getQueryLength());
  KernelContext kc;
  if (split) {
    blocks.push_back(blockAttr(builder, "KV_SPLITS", splits));
    grid[2] = splits;
    kc = makeKernelWithParams(builder, group, name, {}, {partialT, lseT}, grid, 4, blocks);
  } else {
    kc = makeKernel(builder, group, name, grid, 4, blocks);
    // Bounded symbolic dims: program y = b writes batch element b of the result, in order;
    // a run at a smaller value needs those of the prefix (tile.symgrid).
    if (auto sd = groupResultSymDim(group, 0);
        sd && group->getNumResults() == 1 && group->getResult(0).getType() == yT &&
        sd->axis < (int64_t)batchShape.size() && batch % sd->max == 0 &&
        llvm::all_of(ArrayRef<int64_t>(yShape).take_front(sd->axis),
                     [](int64_t d) { return d == 1; }))
      kc.kernel->setAttr(tl::kSymGridAttrName,
                         builder.getDenseI64ArrayAttr({1, sd->symbol, batch / sd->max, 1, 1}));
  }
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = att.getLoc();
  // f32 for f16 / bf16 / f32 operands, f64 for f64 ones.
  Type ct = computeType(yT.getElementType());
  double inf = std::numeric_limits<double>::infinity();
  auto i32 = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantIntOp::create(ob, loc, ob.getI32Type(), v);
  };

  // The program's query block and batch element.
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  SmallVector<Value> batchIdx; // one i32 scalar per batch dim
  {
    auto strides = rowMajorStrides(batchShape);
    for (size_t d = 0; d < batchShape.size(); ++d) {
      Value q = arith::DivSIOp::create(b, loc, pidB, i32(b, strides[d]));
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, i32(b, batchShape[d]));
      batchIdx.push_back(q);
    }
  }
  // Index tiles of a [R, C] tile: the batch dims, then `r` along dim 0 and `c` along 1.
  auto indices = [&](TileBuilder &t, Value r, Value c) {
    SmallVector<Value> idx;
    for (Value s : batchIdx)
      idx.push_back(t.splat(s));
    idx.push_back(t.along(r, 0));
    idx.push_back(t.along(c, 1));
    return idx;
  };
  auto both = [&](TileBuilder &t, Value rm, Value cm) -> Value {
    return arith::AndIOp::create(t.b, loc, t.along(rm, 0), t.along(cm, 1));
  };
  auto lessThan = [&](OpBuilder &ob, Value x, int64_t n) -> Value {
    TileBuilder t{ob, loc, {cast<RankedTensorType>(x.getType()).getDimSize(0)}};
    return arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt, x, t.splatI32(n));
  };
  auto shapeWith = [&](int64_t a, int64_t c) {
    SmallVector<int64_t> s(batchShape);
    s.append({a, c});
    return s;
  };
  // A [R] tile as [R, C] (each row's value across its columns).
  auto rowsToTile = [&](OpBuilder &ob, Value v, int64_t cols) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    int64_t r = vt.getDimSize(0);
    Value e = tl::ExpandDimsOp::create(ob, loc, RankedTensorType::get({r, 1}, vt.getElementType()),
                                       v, ob.getI32IntegerAttr(1));
    return tl::BroadcastOp::create(ob, loc, RankedTensorType::get({r, cols}, vt.getElementType()),
                                   e);
  };
  auto rowReduce = [&](OpBuilder &ob, Value v, tl::ReduceKind kind) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    return tl::ReduceOp::create(ob, loc, RankedTensorType::get({vt.getDimSize(0)}, ct), v,
                                (uint32_t)1, kind);
  };

  // Attention over a sequence of run-time length (bounded symbolic dims,
  // kRunLengthsAttrName): Sq and Skv are read from the group's symbol-values input (the
  // kernel's tile.symvalues parameter, which each session writes per run) as tiles. The key
  // loop still walks the bound's blocks; the keys past the run's Skv are masked like the
  // ragged tail's, their K and V never loaded (masked-off lanes read 0), so no key of a
  // buffer's tail meets a query of the prefix. Query rows past the run's Sq compute rows of
  // the result's tail, which a run at that value does not read.
  auto runLengths = att->getAttrOfType<DenseI64ArrayAttr>(kRunLengthsAttrName);
  Value symValues;
  if (runLengths) {
    auto input = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
    if (!input || runLengths.size() != 4 || input.getInt() < 0 ||
        input.getInt() >= (int64_t)kc.inParams.size() || split)
      return att.emitError("attention template: ")
                 << kRunLengthsAttrName << " needs the group's " << kSymbolValuesInputAttrName
                 << " input and no key split",
             failure();
    symValues = kc.inParams[input.getInt()];
    kc.kernel->setAttr(tl::kSymValuesAttrName, builder.getI64IntegerAttr(input.getInt()));
  }
  // The query (`which` 0) or key (2) length as an i32 tile of `t`'s shape: the run's, or the
  // static `bound`.
  auto runLength = [&](TileBuilder &t, int which, int64_t bound) -> Value {
    if (!runLengths || runLengths[which] < 0)
      return t.splatI32(bound);
    Value all = t.splat(arith::ConstantIntOp::create(t.b, loc, t.b.getI1Type(), 1));
    Value v = t.load(symValues, t.splatI32(runLengths[which]), all, t.b.getI32Type());
    return runLengths[which + 1] == 1
               ? v
               : arith::MulIOp::create(t.b, loc, v, t.splatI32(runLengths[which + 1])).getResult();
  };

  TileBuilder t1{b, loc, {BM}};
  Value m0 = arith::MulIOp::create(b, loc, pidM, i32(b, BM));
  Value rows = arith::AddIOp::create(b, loc, t1.splat(m0), t1.range(BM));
  Value rowMask = lessThan(b, rows, Sq);
  TileBuilder tD{b, loc, {BD}};
  Value dq = tD.range(BD);
  Value dqMask = lessThan(b, dq, D);
  TileBuilder tDV{b, loc, {BDV}};
  Value dv = tDV.range(BDV);
  Value dvMask = lessThan(b, dv, Dv);

  // Q [BM, BD], zero outside.
  TileBuilder tq{b, loc, {BM, BD}};
  auto q = loadOperand(tq, kc, att.getQuery(), shapeWith(Sq, D), indices(tq, rows, dq),
                       both(tq, rowMask, dqMask));
  if (failed(q))
    return failure();

  // The scores of key block `n0` ([BM, BN], f32): scale * Q K^T + bias, -inf outside the
  // keys and above the causal diagonal. Sets `status` when an operand cannot be loaded.
  LogicalResult status = success();
  auto scoresOf = [&](OpBuilder &lb, Value n0, Value &cols, Value &colMask) -> Value {
    TileBuilder tn{lb, loc, {BN}};
    cols = arith::AddIOp::create(lb, loc, tn.splat(n0), tn.range(BN));
    colMask = runLengths ? arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, cols,
                                                 runLength(tn, 2, Skv))
                               .getResult()
                         : lessThan(lb, cols, Skv);
    TileBuilder tk{lb, loc, {BD, BN}};
    TileBuilder ts{lb, loc, {BM, BN}};
    auto kt = loadOperand(tk, kc, att.getKeyT(), shapeWith(D, Skv), indices(tk, dq, cols),
                          both(tk, dqMask, colMask));
    if (failed(kt)) {
      status = failure();
      return ts.splatF(ct, 0.0);
    }
    Value s =
        tl::DotOp::create(lb, loc, ts.tileOf(ct), *q, *kt, ts.splatF(ct, 0.0),
                          tl::InputPrecisionAttr::get(lb.getContext(), tl::InputPrecision::ieee));
    s = arith::MulFOp::create(lb, loc, s, ts.splatF(ct, att.getScale().convertToDouble()));
    if (Value bias = att.getBias()) {
      auto bt = loadOperand(ts, kc, bias, shapeWith(Sq, Skv), indices(ts, rows, cols),
                            both(ts, rowMask, colMask));
      if (failed(bt)) {
        status = failure();
        return s;
      }
      s = arith::AddFOp::create(lb, loc, s, *bt);
    }
    FailureOr<Value> kbMask =
        keyBoundMaskBias(lb, loc, kc, att, batchIdx, batchShape, rows, cols, ct);
    if (failed(kbMask)) {
      status = failure();
      return s;
    }
    if (*kbMask)
      s = arith::AddFOp::create(lb, loc, s, *kbMask);
    Value keep = ts.along(colMask, 1);
    if (att.getCausal()) {
      // Key j is visible from query i when j <= i + (Skv - Sq).
      Value offset =
          runLengths ? arith::SubIOp::create(lb, loc, runLength(ts, 2, Skv), runLength(ts, 0, Sq))
                           .getResult()
                     : ts.splatI32(Skv - Sq);
      Value limit = arith::AddIOp::create(lb, loc, ts.along(rows, 0), offset);
      Value vis =
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sle, ts.along(cols, 1), limit);
      keep = arith::AndIOp::create(lb, loc, keep, vis);
    }
    return arith::SelectOp::create(lb, loc, keep, s, ts.splatF(ct, -inf));
  };

  // The key blocks the program runs: all, or its slice's.
  Value lo, hi;
  if (split) {
    Value pidS = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
    lo = arith::MulIOp::create(b, loc, pidS, i32(b, splitBlocks * BN));
    hi = arith::MinSIOp::create(b, loc, arith::AddIOp::create(b, loc, lo, i32(b, splitBlocks * BN)),
                                i32(b, Skv));
  }
  auto keyLoop = [&](ValueRange init,
                     function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> step) {
    return split ? rangeLoop(b, loc, lo, hi, BN, init, step)
                 : chunkLoop(b, loc, Skv, BN, init, step);
  };
  // Pass 1: the row max m over every key block.
  auto maxLoop = keyLoop({TileBuilder{b, loc, {BM}}.splatF(ct, -inf)},
                         [&](OpBuilder &lb, Value n0, ValueRange carried) {
                           Value cols, colMask;
                           Value s = scoresOf(lb, n0, cols, colMask);
                           return SmallVector<Value>{arith::MaximumFOp::create(
                               lb, loc, carried[0], rowReduce(lb, s, tl::ReduceKind::max))};
                         });
  // m' = 0 for a row of -inf scores (then p = 0 everywhere and l = 0: NaN below).
  TileBuilder t1b{b, loc, {BM}};
  Value m = maxLoop.getResult(0);
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, m, t1b.splatF(ct, -inf));
  Value mSafe = arith::SelectOp::create(b, loc, none, t1b.splatF(ct, 0.0), m);
  Value mTile = rowsToTile(b, mSafe, BN);
  // Pass 2: p = exp(s - m'), l += rowsum(p), acc += p @ V.
  auto loop = keyLoop({t1b.splatF(ct, 0.0), TileBuilder{b, loc, {BM, BDV}}.splatF(ct, 0.0)},
                      [&](OpBuilder &lb, Value n0, ValueRange carried) {
                        Value cols, colMask;
                        Value s = scoresOf(lb, n0, cols, colMask);
                        Value p =
                            math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, s, mTile));
                        Value lNew = arith::AddFOp::create(lb, loc, carried[0],
                                                           rowReduce(lb, p, tl::ReduceKind::add));
                        TileBuilder tv{lb, loc, {BN, BDV}};
                        auto v = loadOperand(tv, kc, att.getValue(), shapeWith(Skv, Dv),
                                             indices(tv, cols, dv), both(tv, colMask, dvMask));
                        if (failed(v)) {
                          status = failure();
                          return SmallVector<Value>{carried[0], carried[1]};
                        }
                        Value accNew = tl::DotOp::create(
                            lb, loc, carried[1].getType(), p, *v, carried[1],
                            tl::InputPrecisionAttr::get(lb.getContext(), tl::InputPrecision::ieee));
                        return SmallVector<Value>{lNew, accNew};
                      });
  if (failed(status))
    return failure();
  // y = acc / l, the epilogue, the store.
  TileBuilder to{b, loc, {BM, BDV}};
  Value l = loop.getResult(0);
  if (split) {
    // The slice's O / l (0 for rows without a visible key) and log-sum-exp m + log(l) at
    // partial matrix s * batch + b (rows ragged at Sq, columns at Dv).
    TileBuilder tr{b, loc, {BM}};
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, tr.splatF(ct, 0.0));
    Value inv = arith::SelectOp::create(b, loc, empty, tr.splatF(ct, 0.0),
                                        arith::DivFOp::create(b, loc, tr.splatF(ct, 1.0), l));
    Value y = arith::MulFOp::create(b, loc, loop.getResult(1), rowsToTile(b, inv, BDV));
    Value lse = arith::AddFOp::create(b, loc, m, math::LogOp::create(b, loc, l));
    Value pidS = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
    Value mat =
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, pidS, i32(b, batch)), pidB);
    Value rowBase = arith::MulIOp::create(b, loc, mat, i32(b, Sq));
    Value lseOffs = arith::AddIOp::create(b, loc, tr.splat(rowBase), rows);
    Value yOffs = arith::AddIOp::create(
        b, loc, to.along(arith::MulIOp::create(b, loc, lseOffs, tr.splatI32(Dv)), 0),
        to.along(dv, 1));
    to.store(kc.outParams[0], yOffs, y, both(to, rowMask, dvMask));
    tr.store(kc.outParams[1], lseOffs, lse, rowMask);
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }
  Value inv = arith::DivFOp::create(b, loc, TileBuilder{b, loc, {BM}}.splatF(ct, 1.0), l);
  Value y = arith::MulFOp::create(b, loc, loop.getResult(1), rowsToTile(b, inv, BDV));
  // l = 0 (every score -inf): 1 / 0 * 0 would be inf * 0 = NaN as well; keep it explicit.
  // zero_undefined_rows: 0 wherever the row's softmax is undefined, l = 0 or NaN.
  Value fullyMasked = undefinedRows(b, loc, att, l);
  double undefinedValue =
      att.getZeroUndefinedRows() ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  y = arith::SelectOp::create(b, loc, rowsToTile(b, fullyMasked, BDV),
                              to.splatF(ct, undefinedValue), y);
  SmallVector<Value> outIdx = indices(to, rows, dv);
  Value outMask = both(to, rowMask, dvMask);
  auto fused = applyEpilogue(to, kc, att, y, yShape, outIdx, outMask);
  if (failed(fused))
    return failure();
  auto strides = rowMajorStrides(yShape);
  Value offs = to.offsets(outIdx, strides);
  to.store(kc.outParams[0], offs, *fused, outMask);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
