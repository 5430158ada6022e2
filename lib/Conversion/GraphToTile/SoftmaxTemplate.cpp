//===- SoftmaxTemplate.cpp - row template: softmax, log_softmax, layer_norm ---===//
#include "TemplateSupport.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Row template (softmax, log_softmax, layer_norm): one program per row. A row of at most
// kMaxSoftmaxRow elements is held in one tile; a longer row is read in chunks of kChunk
// elements by scf.for loops over the row:
//  - softmax / log_softmax: a pass for the row max M, one for S = sum(exp(x - M)), one that
//    writes exp(x - M) / S (or x - M - log S). The online normalizer (Milakov & Gimelshein,
//    "Online normalizer calculation for softmax", 2018), which fuses the first two passes,
//    carries a running max that is read again after its update; the CPU path's one-shot
//    bufferization cannot keep such a loop-carried tile in place (scf.for yields must be
//    equivalent to its iter args), so the row is read three times here (issue 5 may revisit);
//  - layer_norm: a pass for the mean, one for the biased variance sum((x - mean)^2) / n
//    (two passes rather than E[x^2] - E[x]^2, which cancels catastrophically), one that
//    writes; RMS norm skips the mean pass.
// Accumulation is in the compute type (f32 for f16 / bf16).
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildSoftmax(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  // The row op follows its fused elementwise producers (loop fusion, GraphFuse).
  Operation *sm = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(op)) {
      sm = &op;
      break;
    }
    if (!isElementwise(&op) || isa<TriluOp>(op))
      return op.emitError("row kernel cannot evaluate ") << op.getName() << " before its row op",
             failure();
  }
  if (!sm)
    return group.emitError("row group must hold softmax, log_softmax or layer_norm"),
           failure();
  bool isLog = isa<LogSoftmaxOp>(sm);
  auto ln = dyn_cast<LayerNormOp>(sm);
  auto inT = cast<RankedTensorType>(sm->getResult(0).getType());
  ArrayRef<int64_t> shape = inT.getShape();
  int64_t axis = sm->getAttrOfType<IntegerAttr>("axis").getInt();
  int64_t R = shape[axis];
  int64_t inner = 1, outer = 1;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    inner *= shape[d];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  if (ln) { // the row is every dim from `axis`, contiguous
    R *= inner;
    inner = 1;
  }
  if (inT.getNumElements() >= (int64_t(1) << 31))
    return sm->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  bool chunked = R > kMaxSoftmaxRow;
  int64_t block = chunked ? kRowChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  // 64 bytes of the row per thread (four 16-byte loads in flight), 1 to 16 warps: measured
  // best on the H200 for 8192-element rows (8 warps for f16, 16 for f32; docs/performance.md).
  int64_t rowBytes = block * std::max<int64_t>(1, storageType(inT.getElementType()).getIntOrFloatBitWidth() / 8);
  int64_t warps = std::min<int64_t>(16, std::max<int64_t>(1, rowBytes / (32 * 64)));
  // A result whose symbol sits behind non-unit dims ([B, seq, D] rows over D): programs
  // (x, y) take row y * perY + x, so that a run launches only its rows (tile.symgrid along
  // x); otherwise program p takes row p.
  std::optional<SymbolRows> rows;
  if (group->getNumResults() == 1 && inner == 1)
    rows = symbolRows(group);
  if (rows && (rows->inner % R != 0 || rows->outer * rows->inner != inT.getNumElements()))
    rows.reset();
  int64_t perY = rows ? rows->inner / R : 1;
  KernelContext kc =
      makeKernel(builder, group, name, {rows ? perY : outer * inner, rows ? rows->outer : 1, 1},
                 warps, {blockAttr(builder, "BLOCK", block)});
  // Program o * inner + i writes row (o, i): elements of [o * R * inner, (o + 1) * R * inner).
  if (rows)
    setRowsSymGrid(kc, *rows, R);
  else if (group->getNumResults() == 1)
    setFlatSymGrid(kc, 0, R * inner, inner);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = sm->getLoc();
  TileBuilder tb{b, loc, {block}};
  Type elem = computeType(inT.getElementType());
  Value row = rows ? rowsProgramIndex(b, loc, perY)
                   : tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value o = arith::DivSIOp::create(b, loc, row, tb.i32(inner));
  Value i = arith::RemSIOp::create(b, loc, row, tb.i32(inner));
  Value base =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, o, tb.i32(R * inner)), i);
  Value rowIn = sm->getOperand(0);
  auto argIt = kc.argIndex.find(rowIn);
  if (argIt == kc.argIndex.end() && (!rowIn.getDefiningOp() ||
                                     rowIn.getDefiningOp()->getBlock() != &body))
    return sm->emitError("softmax input must be a kernel input or computed in the kernel"),
           failure();
  double inf = std::numeric_limits<double>::infinity();
  LogicalResult rowStatus = success();
  // The row input at `offs` (linear offsets into the row op's shape): a kernel input
  // loaded, or its elementwise producers in the group evaluated there, their other
  // operands loaded (broadcast) at the element's index. Masked lanes read `pad`.
  auto loadRowInput = [&](TileBuilder &t, Value offs, Value mask, double pad) -> Value {
    if (argIt != kc.argIndex.end())
      return t.load(kc.inParams[argIt->second], offs, mask, elem, pad);
    DenseMap<Value, Value> tiles;
    SmallVector<Value> idx;
    std::function<FailureOr<Value>(Value)> eval = [&](Value v) -> FailureOr<Value> {
      if (auto it = tiles.find(v); it != tiles.end())
        return it->second;
      Operation *def = v.getDefiningOp();
      FailureOr<Value> r = failure();
      auto vt = cast<RankedTensorType>(v.getType());
      if (def && def->getBlock() == &body) {
        SmallVector<Value> ins;
        for (Value o : def->getOperands()) {
          auto in = eval(o);
          if (failed(in))
            return failure();
          ins.push_back(*in);
        }
        r = emitElementwise(t, def, ins);
      } else if (auto a = kc.argIndex.find(v); a != kc.argIndex.end() && vt.getShape() == shape) {
        r = t.load(kc.inParams[a->second], offs, mask, computeType(vt.getElementType()));
      } else {
        if (idx.empty())
          idx = t.delinearize(offs, shape);
        r = loadOperand(t, kc, v, shape, idx, mask);
      }
      if (succeeded(r))
        tiles[v] = *r;
      return r;
    };
    auto x = eval(rowIn);
    if (failed(x)) {
      rowStatus = failure();
      return t.splatF(elem, pad);
    }
    return arith::SelectOp::create(t.b, loc, mask, *x, t.splatF(elem, pad));
  };
  // The row's elements [start, start + block) (start: an i32 scalar, or none for 0): their
  // offsets and mask, and x loaded there (masked lanes: -inf for softmax, 0 for layer_norm).
  struct Chunk {
    Value offs, mask, x;
  };
  auto loadChunk = [&](TileBuilder &t, Value start) -> Chunk {
    OpBuilder &cb = t.b;
    Value cols = t.range(block);
    if (start)
      cols = arith::AddIOp::create(cb, loc, t.splat(start), cols);
    Value mask = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::slt, cols, t.splatI32(R));
    Value offs = arith::AddIOp::create(
        cb, loc, t.splat(base),
        inner == 1 ? cols : arith::MulIOp::create(cb, loc, cols, t.splatI32(inner)).getResult());
    Value x = loadRowInput(t, offs, mask, ln ? 0.0 : -inf);
    return {offs, mask, x};
  };
  auto scalarT = RankedTensorType::get({}, elem);
  auto scalar = [&](double v) -> Value {
    return tl::SplatOp::create(b, loc, scalarT,
                               arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, v)));
  };
  // A scalar tile broadcast to the block, and a tile reduced to a scalar tile (of their
  // operand's element type: the compute type, or layer_norm's statistics type).
  auto bcast = [&](TileBuilder &t, Value s) -> Value {
    Type et = cast<RankedTensorType>(s.getType()).getElementType();
    Value e = tl::ExpandDimsOp::create(t.b, loc, RankedTensorType::get({1}, et), s,
                                       t.b.getI32IntegerAttr(0));
    return tl::BroadcastOp::create(t.b, loc, t.tileOf(et), e);
  };
  auto reduce = [&](Value v, tl::ReduceKind kind) -> Value {
    Type et = cast<RankedTensorType>(v.getType()).getElementType();
    return tl::ReduceOp::create(b, loc, RankedTensorType::get({}, et), v, (uint32_t)0, kind);
  };
  // layer_norm's mean and variance accumulate in f64 when the row holds f32 or bf16 (f32's
  // exponent range): the squares of |x| > 1.8e19 overflow f32 and those of |x| < 1e-19
  // underflow, so a row of 1e30 normalized to 0 (inf variance). f16 rows fit f32
  // (65504^2 * 2^31 < 3.4e38). The values are stored back in the compute type.
  Type statT = elem;
  if (ln && (inT.getElementType().isF32() || inT.getElementType().isBF16()))
    statT = b.getF64Type();
  auto scalarOf = [&](Type t, double v) -> Value {
    return tl::SplatOp::create(b, loc, RankedTensorType::get({}, t),
                               arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v)));
  };
  auto toStat = [&](OpBuilder &ob, Value v) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getElementType() == statT)
      return v;
    return arith::ExtFOp::create(ob, loc, RankedTensorType::get(vt.getShape(), statT), v);
  };
  auto fromStat = [&](OpBuilder &ob, Value v) -> Value {
    auto vt = cast<RankedTensorType>(v.getType());
    if (vt.getElementType() == elem)
      return v;
    return arith::TruncFOp::create(ob, loc, RankedTensorType::get(vt.getShape(), elem), v);
  };
  // Scale / bias of layer_norm, the fused consumers (their other operands loaded at the
  // output index), the store.
  auto finish = [&](TileBuilder &t, Value y, const Chunk &c) -> LogicalResult {
    OpBuilder &cb = t.b;
    SmallVector<Value> idx = t.delinearize(c.offs, shape);
    if (ln) {
      for (auto [v, isScale] : {std::pair{ln.getScale(), true}, std::pair{ln.getBias(), false}}) {
        if (!v)
          continue;
        auto p = loadOperand(t, kc, v, shape, idx, c.mask);
        if (failed(p))
          return failure();
        y = isScale ? arith::MulFOp::create(cb, loc, y, *p).getResult()
                    : arith::AddFOp::create(cb, loc, y, *p).getResult();
      }
    }
    auto fused = applyEpilogue(t, kc, sm, y, shape, idx, c.mask);
    if (failed(fused))
      return failure();
    // Results: the row op's chain, and possibly the row input itself (a fused producer
    // also used outside the kernel, e.g. the residual stream of add + layer_norm).
    for (auto [k, v] : llvm::enumerate(cast<YieldOp>(body.getTerminator()).getValues()))
      t.store(kc.outParams[k], c.offs, v == rowIn ? c.x : *fused, c.mask);
    return success();
  };

  if (!chunked) {
    Chunk c = loadChunk(tb, Value());
    Value x = c.x;
    Value y;
    if (ln) {
      // mean and biased variance of the row (masked lanes load 0 and are zeroed in d); RMS
      // norm: d = x, the mean square of the row in place of the variance. In statT.
      Value d = toStat(b, x);
      if (!ln.getRms()) {
        Value mean = arith::DivFOp::create(b, loc, reduce(d, tl::ReduceKind::add),
                                           scalarOf(statT, (double)R));
        d = arith::SubFOp::create(b, loc, d, bcast(tb, mean));
        d = arith::SelectOp::create(b, loc, c.mask, d, tb.splatF(statT, 0.0));
      }
      Value sq = reduce(arith::MulFOp::create(b, loc, d, d), tl::ReduceKind::add);
      Value var = arith::DivFOp::create(b, loc, sq, scalarOf(statT, (double)R));
      Value denom = math::SqrtOp::create(
          b, loc,
          arith::AddFOp::create(b, loc, var, scalarOf(statT, ln.getEpsilon().convertToDouble())));
      // One division per row, a multiply per element (in statT: 1 / std may exceed the
      // compute type's range where d * (1 / std) does not).
      y = fromStat(
          b, arith::MulFOp::create(
                 b, loc, d, bcast(tb, arith::DivFOp::create(b, loc, scalarOf(statT, 1.0), denom))));
    } else {
      Value mx = reduce(x, tl::ReduceKind::max);
      Value shifted = arith::SubFOp::create(b, loc, x, bcast(tb, mx));
      Value e = math::ExpOp::create(b, loc, shifted);
      Value sum = reduce(e, tl::ReduceKind::add);
      y = isLog
              ? arith::SubFOp::create(b, loc, shifted, bcast(tb, math::LogOp::create(b, loc, sum)))
                    .getResult()
              : arith::MulFOp::create(b, loc, e,
                                      bcast(tb, arith::DivFOp::create(b, loc, scalar(1.0), sum)))
                    .getResult();
    }
    if (failed(finish(tb, y, c)) || failed(rowStatus))
      return failure();
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }

  // Chunked row. The final pass (no carried values) computes y from a chunk and stores it.
  LogicalResult status = success();
  auto writePass = [&](function_ref<Value(TileBuilder &, Value)> compute) {
    chunkLoop(b, loc, R, block, {}, [&](OpBuilder &lb, Value k, ValueRange) {
      TileBuilder lt{lb, loc, {block}};
      Chunk c = loadChunk(lt, k);
      if (failed(finish(lt, compute(lt, c.x), c)))
        status = failure();
      return SmallVector<Value>{};
    });
  };
  if (ln) {
    // One statistics pass. Layer norm: per-lane sums of d = x - K and d^2 with K the row's
    // first element (the shifted-data variance, Chan, Golub & LeVeque, "Algorithms for
    // computing the sample variance", 1983: var = E[d^2] - E[d]^2 does not cancel
    // catastrophically once the data are centred near their mean); RMS norm: the sum of x^2.
    Value shift;
    if (!ln.getRms()) {
      TileBuilder one{b, loc, {1}}; // the row's first element, as a 1-element tile
      Value k = one.load(kc.inParams[argIt->second], one.splat(base), Value(), elem, 0.0);
      shift = bcast(tb, tl::ReduceOp::create(b, loc, scalarT, k, (uint32_t)0, tl::ReduceKind::add));
    }
    // The sums accumulate in statT.
    auto statLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(statT, 0.0), tb.splatF(statT, 0.0)},
        [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          Chunk c = loadChunk(lt, k); // masked lanes load 0
          Value d = c.x;
          if (shift)
            d = arith::SelectOp::create(lb, loc, c.mask, arith::SubFOp::create(lb, loc, c.x, shift),
                                        lt.splatF(elem, 0.0));
          d = toStat(lb, d);
          return SmallVector<Value>{
              arith::AddFOp::create(lb, loc, acc[0], d),
              arith::AddFOp::create(lb, loc, acc[1], arith::MulFOp::create(lb, loc, d, d))};
        });
    Value n = scalarOf(statT, (double)R);
    Value meanSq =
        arith::DivFOp::create(b, loc, reduce(statLoop.getResult(1), tl::ReduceKind::add), n);
    Value var = meanSq, meanT;
    if (shift) {
      Value meanD =
          arith::DivFOp::create(b, loc, reduce(statLoop.getResult(0), tl::ReduceKind::add), n);
      var = arith::MaximumFOp::create(
          b, loc,
          arith::SubFOp::create(b, loc, meanSq, arith::MulFOp::create(b, loc, meanD, meanD)),
          scalarOf(statT, 0.0));
      meanT = arith::AddFOp::create(b, loc, shift, bcast(tb, fromStat(b, meanD)));
    }
    Value denom = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, var, scalarOf(statT, ln.getEpsilon().convertToDouble())));
    // 1 / std in the compute type: above its range only for a row whose std is below 3e-39
    // (with epsilon 0), which the chunked path does not cover (docs/numerics.md).
    Value invT = bcast(tb, fromStat(b, arith::DivFOp::create(b, loc, scalarOf(statT, 1.0), denom)));
    writePass([&](TileBuilder &lt, Value x) -> Value {
      Value d = meanT ? arith::SubFOp::create(lt.b, loc, x, meanT).getResult() : x;
      return arith::MulFOp::create(lt.b, loc, d, invT);
    });
  } else {
    // Online normalizer (Milakov & Gimelshein, "Online normalizer calculation for softmax",
    // 2018): one pass carries the running row max m (a scalar: each chunk's max is reduced
    // across the lanes) and per-lane sums s of exp(x - m), rescaled by exp(m_old - m) when m
    // grows; then S = sum(s). Carrying m as a scalar keeps the loop's tiles updated in place
    // (the CPU path's one-shot bufferization needs each yielded tile to be its iter arg's
    // last use). While m is -inf (only masked or -inf elements so far) nothing is added and
    // s is not rescaled, never exp(-inf + inf).
    Value zero = tb.splatF(elem, 0.0);
    Value mInit = arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, -inf));
    auto onlineLoop = chunkLoop(
        b, loc, R, block, {mInit, zero}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          Value x = loadChunk(lt, k).x;
          Value cm = tensor::ExtractOp::create(
              lb, loc, tl::ReduceOp::create(lb, loc, scalarT, x, (uint32_t)0, tl::ReduceKind::max),
              ValueRange{});
          Value m = acc[0];
          Value mNew = arith::MaximumFOp::create(lb, loc, m, cm);
          Value negInfS = arith::ConstantOp::create(lb, loc, elem, lb.getFloatAttr(elem, -inf));
          Value none = arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::OEQ, mNew, negInfS);
          Value one = arith::ConstantOp::create(lb, loc, elem, lb.getFloatAttr(elem, 1.0));
          Value alpha = arith::SelectOp::create(
              lb, loc, none, one,
              math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, m, mNew)));
          Value e = math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, lt.splat(mNew)));
          e = arith::SelectOp::create(lb, loc, none, lt.splatF(elem, 0.0), e);
          Value sNew = arith::AddFOp::create(
              lb, loc, arith::MulFOp::create(lb, loc, acc[1], lt.splat(alpha)), e);
          return SmallVector<Value>{mNew, sNew};
        });
    Value mxT = tb.splat(onlineLoop.getResult(0));
    Value sum = reduce(onlineLoop.getResult(1), tl::ReduceKind::add);
    Value normT = bcast(tb, isLog ? math::LogOp::create(b, loc, sum).getResult()
                                  : arith::DivFOp::create(b, loc, scalar(1.0), sum).getResult());
    writePass([&](TileBuilder &lt, Value x) -> Value {
      Value shifted = arith::SubFOp::create(lt.b, loc, x, mxT);
      if (isLog)
        return arith::SubFOp::create(lt.b, loc, shifted, normT);
      return arith::MulFOp::create(lt.b, loc, math::ExpOp::create(lt.b, loc, shifted), normT);
    });
  }
  if (failed(status) || failed(rowStatus))
    return failure();
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
