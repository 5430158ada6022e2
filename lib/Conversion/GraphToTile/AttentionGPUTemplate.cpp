//===- AttentionGPUTemplate.cpp - graph.attention -> the GPU FlashAttention form ----===//
//
// The GPU form (FlashAttention-2's one-pass loop, Dao 2023, Algorithm 1), the form
// convert-tile-attention-to-mma-sync lowers: Q, K (or K^T) and V as tile.block_load of
// [batch, rows, cols] matrices, one loop over the key blocks carrying the row max m, the
// row sum l and the accumulator O (f32):
//
//   s     = scale * Q K^T[:, block] + bias[rows, block] (f32; optional),
//           -inf outside the keys and above the causal diagonal
//   m'    = max(m, rowmax(s));  m'' = (m' == -inf ? 0 : m')
//   alpha = exp(m - m'');  p = exp(s - m'')
//   l     = l * alpha + rowsum(p);  O = O * alpha + f16(p) @ V[block, :]
//   y     = O / l
//
// (the online softmax of Milakov & Gimelshein, 2018). P is rounded to the operands' type
// before the second product, as the tensor cores take it. The caller checked the rules of
// attentionMmaSyncProblem (TensorCoreRules.h): 16-bit operands, D and Dv powers of two,
// K^T read as K's rows or stored with 16-byte rows, no epilogue. Q, K and V are
// read through the transposes in the group as blocks of row-major matrices of the kernel
// inputs (AttentionOperands.h): the head split of [B, S, H, D] is the column offset h * D
// of the [B, S, H * D] matrices, so no transpose kernel runs before the attention.
//
// Split keys (cfg.splits > 1, flash-decoding: Dao, Haziza, Massa, Sizov, "Flash-Decoding
// for long-context inference", 2023): program_id(2) is the slice s, whose loop runs the keys
// [s * splitBlocks * BLOCK_N, min((s + 1) * splitBlocks * BLOCK_N, Skv)); the program
// stores O / l in f32 (0 where l = 0: no visible key in the slice) and lse = m + log(l)
// (-inf there) to the partials (splitPartialTypes) instead of the result.
//
// A sequence of run-time length (bounded symbolic dims, kRunLengthsAttrName): the run's Skv
// is an i32 scalar read at the kernel's start from the group's symbol values (memref.load of
// the tile.symvalues parameter, which each session writes per run; a causal diagonal must
// not move with it: Sq and Skv follow one symbol alike, or Sq is static and not causal). The key
// loop runs to the run's Skv (the slices of split keys end there too), the keys past it are masked
// like the ragged tail's, and K's and V's block loads take it as their `rows`: the rows of the
// buffers' tail read as zero, so none of them meets a query of the prefix, not even as 0 x NaN in P
// V.
//
//===----------------------------------------------------------------------===//
#include "AttentionKernels.h"

#include "aicc/Target/TensorCoreRules.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace aicc::templates {

FailureOr<AttentionMatrix> resultMatrix(BatchIndexing &bi, Value outParam, AttentionOp att,
                                        Value pidB, Value zero32) {
  ArrayRef<int64_t> yShape = att.getType().getShape();
  AttentionMatrix out{
      outParam,
      pidB,
      zero32,
      {numElements(yShape.drop_back(2)), att.getQueryLength(), att.getValueHeadSize()}};
  auto t = dyn_cast<TransposeOp>(att->getNextNode());
  if (!t)
    return out;
  // The result as a strided view of X (result dim perm[j] is X dim j), which
  // attentionResultRowDim made block matrices.
  ModeView yv;
  yv.root = t.getResult();
  yv.shape.assign(yShape.begin(), yShape.end());
  yv.dims.resize(yShape.size());
  auto xStr = rowMajorStrides(t.getType().getShape());
  for (auto [j, p] : llvm::enumerate(t.getPerm()))
    if (yShape[p] != 1)
      yv.dims[p] = {ViewMode{yShape[p], xStr[j]}};
  auto view = attentionBlockMatrix(yv, 0);
  if (!view)
    return t.emitError("GPU attention kernel: the head merge is not block matrices of its "
                       "result"),
           failure();
  return bi.matrixAt(outParam, *view, yShape);
}

FailureOr<func::FuncOp> buildAttentionGPU(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                          AttentionOp att, const GPUAttentionConfig &cfg) {
  Location loc = att.getLoc();
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  int64_t Sq = att.getQueryLength(), Skv = att.getKeyLength(), D = att.getHeadSize(),
          Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  int64_t BM = cfg.blockM, BN = cfg.blockN;
  bool split = cfg.splits > 1;
  SmallVector<NamedAttribute> blocks = {
      blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_N", BN),
      blockAttr(builder, "BLOCK_D", D), blockAttr(builder, "BLOCK_DV", Dv)};
  // The query rows the programs cover: Sq, or a shape bucket's first rows.
  int64_t queryRows = cfg.queryRows > 0 ? std::min(cfg.queryRows, Sq) : Sq;
  SmallVector<int64_t> grid = {(int64_t)llvm::divideCeil(queryRows, BM), batch, 1};
  auto [partialT, lseT] = splitPartialTypes(att, cfg.splits, queryRows);
  KernelContext kc;
  if (split) {
    blocks.push_back(blockAttr(builder, "KV_SPLITS", cfg.splits));
    grid[2] = cfg.splits;
    kc = makeKernelWithParams(builder, group, name, {}, {partialT, lseT}, grid, cfg.numWarps,
                              blocks, kAttentionMmaSyncStages);
  } else {
    kc = makeKernel(builder, group, name, grid, cfg.numWarps, blocks, kAttentionMmaSyncStages);
  }
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Type elem = yT.getElementType(), f32 = b.getF32Type();
  double inf = std::numeric_limits<double>::infinity();
  auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); };
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  BatchIndexing bi(b, loc, pidB, batchShape);
  // Each operand as blocks of a batch of row-major matrices of a kernel input X, read
  // through the views in the group (AttentionOperands.h).
  Block &body = group.getBody().front();
  auto matrixOf = [&](unsigned index) -> FailureOr<AttentionMatrix> {
    Value v = att->getOperand(index);
    auto view = attentionOperandView(
        v, index, [&](Operation *d) { return d->getBlock() == &body; },
        [](Value root) { return isa<BlockArgument>(root); });
    auto arg = view ? dyn_cast<BlockArgument>(view->root) : BlockArgument();
    if (!arg || !kc.argIndex.count(arg))
      return att.emitError("GPU attention kernel: operand #")
                 << index << " is not a block matrix of a kernel input (through views that "
                 << "keep its last dim contiguous)",
             failure();
    if (cast<RankedTensorType>(arg.getType()).getNumElements() >= (int64_t(1) << 31))
      return att.emitError("GPU attention kernel: operand #")
                 << index << " is read from a tensor of 2^31 elements or more (i32 offsets)",
             failure();
    return bi.matrixAt(kc.inParams[kc.argIndex.lookup(arg)], *view,
                       cast<RankedTensorType>(v.getType()).getShape());
  };
  auto qM = matrixOf(0), kM = matrixOf(1), vM = matrixOf(2);
  if (failed(qM) || failed(kM) || failed(vM))
    return failure();
  // The run's Skv and Sq (i32 scalars; null where static). Q's rows past the run's Sq are
  // the buffers' tail: its block load reads them as zero, and the FlashAttention-3 lowering
  // runs only the query tiles before them.
  Value runSkv, runSq;
  if (auto rl = att->getAttrOfType<DenseI64ArrayAttr>(kRunLengthsAttrName)) {
    auto input = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
    if (!input || rl.size() != 4 || input.getInt() < 0 ||
        input.getInt() >= (int64_t)kc.inParams.size())
      return att.emitError("GPU attention kernel: ") << kRunLengthsAttrName << " needs the group's "
                                                     << kSymbolValuesInputAttrName << " input",
             failure();
    Value values = kc.inParams[input.getInt()];
    kc.kernel->setAttr(tl::kSymValuesAttrName, b.getI64IntegerAttr(input.getInt()));
    auto runLength = [&](int which) -> Value {
      if (rl[which] < 0)
        return {};
      Value v = memref::LoadOp::create(
          b, loc, values, ValueRange{arith::ConstantIndexOp::create(b, loc, rl[which])});
      return rl[which + 1] == 1 ? v : arith::MulIOp::create(b, loc, v, i32(rl[which + 1]));
    };
    // The causal diagonal j <= i + Skv - Sq stays where it is when Sq and Skv follow one
    // symbol alike (self-attention over the prompt); the cpu template moves it per run.
    if (att.getCausal() && (rl[0] != rl[2] || rl[1] != rl[3]))
      return att.emitError("GPU attention kernel: a causal attention whose query and key "
                           "lengths change differently per run (the diagonal's offset Skv - Sq "
                           "would change) is not supported on GPU targets yet"),
             failure();
    runSkv = runLength(2);
    runSq = runLength(0);
  }
  Value keyLimit = runSkv ? runSkv : i32(Skv);
  Value m0 = arith::MulIOp::create(b, loc, pidM, i32(BM));
  Value zero32 = i32(0);
  Value q = tl::BlockLoadOp::create(b, loc, RankedTensorType::get({BM, D}, elem), qM->param,
                                    qM->batch, m0, qM->col, runSq, qM->dims);
  TileBuilder t1{b, loc, {BM}};
  Value rows = arith::AddIOp::create(b, loc, t1.splat(m0), t1.range(BM));
  auto rowsToTile = [&](OpBuilder &ob, Value v, int64_t cols) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    Value e = tl::ExpandDimsOp::create(ob, loc, RankedTensorType::get({BM, 1}, vt.getElementType()),
                                       v, ob.getI32IntegerAttr(1));
    return tl::BroadcastOp::create(ob, loc, RankedTensorType::get({BM, cols}, vt.getElementType()),
                                   e);
  };
  auto rowReduce = [&](OpBuilder &ob, Value v, tl::ReduceKind kind) -> Value {
    return tl::ReduceOp::create(ob, loc, RankedTensorType::get({BM}, f32), v, (uint32_t)1, kind);
  };
  auto ieee = tl::InputPrecisionAttr::get(b.getContext(), tl::InputPrecision::ieee);
  SmallVector<Value> init = {t1.splatF(f32, -inf), t1.splatF(f32, 0.0),
                             TileBuilder{b, loc, {BM, Dv}}.splatF(f32, 0.0)};
  Value pidS;
  // Queries of run-time length over static keys (a prompt over a fixed-capacity KV cache):
  // a program whose query rows all lie past the run's Sq loops over no key block (the
  // lowerings that run one CTA per query tile launch the bound's grid: mma.sync; the
  // FlashAttention-3 lowering skips those tiles itself).
  Value deadTileEnd;
  if (runSq && !runSkv && !split)
    deadTileEnd = arith::SelectOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m0, runSq), i32(Skv),
        zero32);
  // key_bound (graph.attention's promise that query i weighs no key past key_bound[i]): the
  // program's keys end at the largest bound of its query rows + 1 (a decode step at
  // position p of a static cache reads p + 1 keys, a prompt's blocks stop at their last
  // row's position), every key when a row's bound is negative. A scalar loop over the
  // program's rows before the key loop (their bounds are one i32 / i64 each).
  // Only the loop ends move: the keys of the last block past the bound keep their scores
  // and bias (the lowerings mask at the run's Skv, not at this end).
  Value loopLimit = keyLimit;
  if (Value blockEnd = cfg.keyBound
                           ? keyBoundEnd(b, loc, kc, att, m0, BM, runSq ? runSq : i32(Sq), Skv)
                           : Value()) {
    loopLimit = arith::MinSIOp::create(b, loc, keyLimit, blockEnd);
    deadTileEnd =
        deadTileEnd ? arith::MinSIOp::create(b, loc, deadTileEnd, blockEnd).getResult() : blockEnd;
  }
  auto keyLoop = [&](function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> step) {
    if (!split)
      return runSkv        ? rangeLoop(b, loc, zero32, loopLimit, BN, init, step)
             : deadTileEnd ? rangeLoop(b, loc, zero32, deadTileEnd, BN, init, step)
                           : chunkLoop(b, loc, Skv, BN, init, step);
    pidS = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
    Value lo = arith::MulIOp::create(b, loc, pidS, i32(cfg.splitBlocks * BN));
    Value hi = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, i32(cfg.splitBlocks * BN)), loopLimit);
    return rangeLoop(b, loc, lo, hi, BN, init, step);
  };
  // The additive bias of key block `cols` as an f32 [BM, BN] tile: read through the group's
  // views of a kernel input (loadOperand), masked past Sq / Skv. A bias constant along the
  // query rows (a padding mask [B, 1, 1, Skv], every decode step's) is one [BN] row
  // broadcast over the block, so the lowerings load it once per key column, not per score.
  LogicalResult status = success();
  auto biasBlock = [&](OpBuilder &lb, Value cols, Value colsOk) -> Value {
    Value bias = att.getBias();
    auto bT = cast<RankedTensorType>(bias.getType());
    bool rowConstant = bT.getRank() < 2 || bT.getShape().end()[-2] == 1;
    SmallVector<int64_t> outShape(batchShape);
    outShape.append({rowConstant ? 1 : Sq, Skv});
    TileBuilder ts{lb, loc, {BM, BN}};
    TileBuilder tt{lb, loc, rowConstant ? SmallVector<int64_t>{BN} : SmallVector<int64_t>{BM, BN}};
    SmallVector<Value> idx;
    for (Value i : bi.idx)
      idx.push_back(tt.splat(i));
    Value mask = colsOk;
    if (rowConstant) {
      idx.append({tt.splatI32(0), cols});
    } else {
      idx.append({tt.along(rows, 0), tt.along(cols, 1)});
      Value rowsOk = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, rows,
                                           TileBuilder{lb, loc, {BM}}.splatI32(Sq));
      mask = arith::AndIOp::create(lb, loc, tt.along(rowsOk, 0), tt.along(colsOk, 1));
    }
    auto loaded = loadOperand(tt, kc, bias, outShape, idx, mask);
    if (failed(loaded)) {
      status = failure();
      return ts.splatF(f32, 0.0);
    }
    Value v = *loaded;
    if (!cast<RankedTensorType>(v.getType()).getElementType().isF32())
      v = arith::ExtFOp::create(lb, loc, tt.tileOf(f32), v);
    return rowConstant ? ts.along(v, 1) : v;
  };
  auto loop = keyLoop([&](OpBuilder &lb, Value n0, ValueRange carried) {
    TileBuilder ts{lb, loc, {BM, BN}};
    TileBuilder tr{lb, loc, {BM}};
    // K's rows [BN, D] read transposed, or a stored K^T's [D, BN] block (no column
    // offsets: attentionOperandView takes a stored K^T only as plain matrices).
    auto ktT = RankedTensorType::get({D, BN}, elem);
    // (A stored K^T's columns past the run's Skv are read: their scores are replaced by -inf
    // below, so their values never matter.)
    Value kt = kM->keyRows ? tl::BlockLoadOp::create(lb, loc, ktT, kM->param, kM->batch, n0,
                                                     kM->col, runSkv, kM->dims, /*transpose=*/true)
                           : tl::BlockLoadOp::create(lb, loc, ktT, kM->param, kM->batch, zero32, n0,
                                                     kM->dims);
    Value s = tl::DotOp::create(lb, loc, ts.tileOf(f32), q, kt, ts.splatF(f32, 0.0), ieee);
    s = arith::MulFOp::create(lb, loc, s, ts.splatF(f32, att.getScale().convertToDouble()));
    TileBuilder tn{lb, loc, {BN}};
    Value cols = arith::AddIOp::create(lb, loc, tn.splat(n0), tn.range(BN));
    // (Unsigned: the sm_90a kernel evaluates the bias block at a last block it loads from
    // before key 0 for a run shorter than a block; those columns read nothing.)
    Value colsOk =
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, cols, tn.splat(keyLimit));
    // The bias and the key_bound mask: one f32 tile added to the scaled scores (the
    // lowerings' bias form).
    Value bias = att.getBias() ? biasBlock(lb, cols, colsOk) : Value();
    FailureOr<Value> kbMask =
        keyBoundMaskBias(lb, loc, kc, att, bi.idx, batchShape, rows, cols, f32);
    if (failed(kbMask))
      status = failure();
    else if (*kbMask)
      bias = bias ? arith::AddFOp::create(lb, loc, bias, *kbMask).getResult() : *kbMask;
    if (bias)
      s = arith::AddFOp::create(lb, loc, s, bias);
    Value keep = ts.along(colsOk, 1);
    if (att.getCausal()) {
      // Key j is visible from query i when j <= i + (Skv - Sq).
      Value limit = arith::AddIOp::create(lb, loc, ts.along(rows, 0), ts.splatI32(Skv - Sq));
      keep = arith::AndIOp::create(
          lb, loc, keep,
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sle, ts.along(cols, 1), limit));
    }
    s = arith::SelectOp::create(lb, loc, keep, s, ts.splatF(f32, -inf));
    Value mNew =
        arith::MaximumFOp::create(lb, loc, carried[0], rowReduce(lb, s, tl::ReduceKind::max));
    Value none =
        arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::OEQ, mNew, tr.splatF(f32, -inf));
    Value mSafe = arith::SelectOp::create(lb, loc, none, tr.splatF(f32, 0.0), mNew);
    Value alpha = math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, carried[0], mSafe));
    Value p =
        math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, s, rowsToTile(lb, mSafe, BN)));
    Value l = arith::AddFOp::create(lb, loc, arith::MulFOp::create(lb, loc, carried[1], alpha),
                                    rowReduce(lb, p, tl::ReduceKind::add));
    Value v = tl::BlockLoadOp::create(lb, loc, RankedTensorType::get({BN, Dv}, elem), vM->param,
                                      vM->batch, n0, vM->col, runSkv, vM->dims);
    Value p16 = arith::TruncFOp::create(lb, loc, ts.tileOf(elem), p);
    Value acc = arith::MulFOp::create(lb, loc, carried[2], rowsToTile(lb, alpha, Dv));
    acc = tl::DotOp::create(lb, loc, acc.getType(), p16, v, acc, ieee);
    return SmallVector<Value>{mNew, l, acc};
  });
  if (failed(status))
    return failure();
  if (split) {
    // The slice's O / l (0 for rows without a visible key) and log-sum-exp m + log(l).
    Value l = loop.getResult(1);
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, t1.splatF(f32, 0.0));
    Value inv = arith::SelectOp::create(b, loc, empty, t1.splatF(f32, 0.0),
                                        arith::DivFOp::create(b, loc, t1.splatF(f32, 1.0), l));
    Value y = arith::MulFOp::create(b, loc, loop.getResult(2), rowsToTile(b, inv, Dv));
    Value lse = arith::AddFOp::create(b, loc, loop.getResult(0), math::LogOp::create(b, loc, l));
    lse = tl::ExpandDimsOp::create(b, loc, RankedTensorType::get({BM, 1}, f32), lse,
                                   b.getI32IntegerAttr(1));
    Value at = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, pidS, i32(batch)), pidB);
    tl::BlockStoreOp::create(b, loc, kc.outParams[0], at, m0, zero32, y, partialT.getShape());
    tl::BlockStoreOp::create(b, loc, kc.outParams[1], at, m0, zero32, lse, lseT.getShape());
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }
  Value inv = arith::DivFOp::create(b, loc, t1.splatF(f32, 1.0), loop.getResult(1));
  Value y = arith::MulFOp::create(b, loc, loop.getResult(2), rowsToTile(b, inv, Dv));
  // zero_undefined_rows: select(!(l > 0), 0, O / l), which the lowerings match
  // (AttentionProgram::zeroUndefinedRows).
  if (att.getZeroUndefinedRows())
    y = arith::SelectOp::create(b, loc,
                                rowsToTile(b, undefinedRows(b, loc, att, loop.getResult(1)), Dv),
                                TileBuilder{b, loc, {BM, Dv}}.splatF(f32, 0.0), y);
  y = arith::TruncFOp::create(b, loc, RankedTensorType::get({BM, Dv}, elem), y);
  auto out = resultMatrix(bi, kc.outParams[0], att, pidB, zero32);
  if (failed(out))
    return failure();
  tl::BlockStoreOp::create(b, loc, out->param, out->batch, m0, out->col, y, out->dims);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
