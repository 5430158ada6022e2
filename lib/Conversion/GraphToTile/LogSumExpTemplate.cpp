//===- LogSumExpTemplate.cpp - ReduceLogSumExp row template -----------------===//
#include "TemplateSupport.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// LogSumExp row template: y = m + log(sum(exp(x - m))), m = max(x) over `axes` (ONNX
// ReduceLogSumExp, decomposed by the importer into reduce_max, sub, exp, reduce_sum, log,
// add, m clamped to the finite range by a clip; GraphFuse groups that chain as one row
// kernel). One program per output element; the reduced elements are held in one tile, or
// read in chunks of kChunk by two loops (the max, then the sum of exp(x - max)), as in the
// softmax row template. Masked lanes read -inf and contribute exp(-inf) = 0; the clamped m
// makes an all -inf row -inf (log 0) and a row holding +inf +inf (docs/numerics.md).
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildLogSumExp(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  auto mx = dyn_cast<ReduceMaxOp>(body.front());
  if (!mx || !isa<BlockArgument>(mx.getInput()) || group.getNumResults() != 1)
    return group.emitError("logsumexp group must start with reduce_max of a kernel input and "
                           "have one result"),
           failure();
  auto inT = cast<RankedTensorType>(mx.getInput().getType());
  ArrayRef<int64_t> shape = inT.getShape();
  ReducedDims rd = splitReducedDims(shape, mx.getAxes());
  const SmallVector<int64_t> &keptShape = rd.keptShape, &redShape = rd.redShape, &redStr = rd.redStr;
  int64_t R = numElements(redShape), O = numElements(keptShape);
  if (inT.getNumElements() >= (int64_t(1) << 31))
    return mx->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  Type elem = computeType(inT.getElementType());
  if (!isa<FloatType>(elem))
    return mx->emitError("logsumexp needs a float input"), failure();
  bool chunked = R > kMaxSoftmaxRow;
  int64_t block = chunked ? kChunk : std::max<int64_t>(32, llvm::PowerOf2Ceil(R));
  int64_t warps = std::min<int64_t>(8, std::max<int64_t>(1, block / 256));
  KernelContext kc = makeKernel(builder, group, name, {O, 1, 1}, warps,
                                {blockAttr(builder, "BLOCK", block)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = mx.getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value base = keptBaseOffset(tb, pid, rd);
  double inf = std::numeric_limits<double>::infinity();
  // x at the reduced elements [start, start + block), -inf in masked lanes; and the mask.
  auto loadChunk = [&](TileBuilder &t, Value start) -> std::pair<Value, Value> {
    Value r = t.range(block);
    if (start)
      r = arith::AddIOp::create(t.b, loc, t.splat(start), r);
    Value mask = arith::CmpIOp::create(t.b, loc, arith::CmpIPredicate::slt, r, t.splatI32(R));
    SmallVector<Value> ridx = t.delinearize(r, redShape);
    Value offs = t.offsets(ridx, redStr, base);
    return {t.load(kc.inParams[0], offs, mask, elem, -inf), mask};
  };
  auto scalarT = RankedTensorType::get({}, elem);
  auto bcast = [&](TileBuilder &t, Value sc) -> Value {
    Value e = tl::ExpandDimsOp::create(t.b, loc, RankedTensorType::get({1}, elem), sc,
                                       t.b.getI32IntegerAttr(0));
    return tl::BroadcastOp::create(t.b, loc, t.tileOf(elem), e);
  };
  // exp(x - max) with masked lanes forced to 0 (x - max is NaN there when max = -inf).
  auto expShifted = [&](TileBuilder &t, std::pair<Value, Value> c, Value mT) -> Value {
    Value e = math::ExpOp::create(t.b, loc, arith::SubFOp::create(t.b, loc, c.first, mT));
    return arith::SelectOp::create(t.b, loc, c.second, e, t.splatF(elem, 0.0));
  };
  // The importer's clip of the max (finite bounds), when the group has it.
  ClipOp clip;
  for (Operation &op : body)
    if (auto c = dyn_cast<ClipOp>(op))
      clip = c;
  auto clampMax = [&](Value mv) -> Value {
    if (!clip)
      return mv;
    auto bound = [&](FloatAttr a) {
      return tl::SplatOp::create(
          b, loc, scalarT,
          arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, a.getValueAsDouble())));
    };
    if (auto lo = clip.getMinAttr())
      mv = arith::MaximumFOp::create(b, loc, mv, bound(lo));
    if (auto hi = clip.getMaxAttr())
      mv = arith::MinimumFOp::create(b, loc, mv, bound(hi));
    return mv;
  };
  Value m, sum;
  if (!chunked) {
    auto c = loadChunk(tb, Value());
    m = clampMax(tl::ReduceOp::create(b, loc, scalarT, c.first, (uint32_t)0, tl::ReduceKind::max));
    sum = tl::ReduceOp::create(b, loc, scalarT, expShifted(tb, c, bcast(tb, m)), (uint32_t)0,
                               tl::ReduceKind::add);
  } else {
    auto maxLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(elem, -inf)}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          return SmallVector<Value>{
              arith::MaximumFOp::create(lb, loc, acc[0], loadChunk(lt, k).first)};
        });
    m = clampMax(tl::ReduceOp::create(b, loc, scalarT, maxLoop.getResult(0), (uint32_t)0,
                                      tl::ReduceKind::max));
    Value mT = bcast(tb, m);
    auto sumLoop = chunkLoop(
        b, loc, R, block, {tb.splatF(elem, 0.0)}, [&](OpBuilder &lb, Value k, ValueRange acc) {
          TileBuilder lt{lb, loc, {block}};
          return SmallVector<Value>{
              arith::AddFOp::create(lb, loc, acc[0], expShifted(lt, loadChunk(lt, k), mT))};
        });
    sum = tl::ReduceOp::create(b, loc, scalarT, sumLoop.getResult(0), (uint32_t)0,
                               tl::ReduceKind::add);
  }
  // m + log(sum); an empty or all -inf row gives -inf (log 0), not NaN (-inf - -inf).
  Value lg = math::LogOp::create(b, loc, sum);
  Value mFinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::ONE, m,
      tl::SplatOp::create(b, loc, scalarT,
                          arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(elem, -inf))));
  Value y = arith::SelectOp::create(b, loc, mFinite,
                                    arith::AddFOp::create(b, loc, m, lg).getResult(), lg);
  TileBuilder t1{b, loc, {1}};
  Value y1 =
      tl::ExpandDimsOp::create(b, loc, RankedTensorType::get({1}, elem), y, b.getI32IntegerAttr(0));
  t1.store(kc.outParams[0], t1.splat(pid), y1, Value());
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
