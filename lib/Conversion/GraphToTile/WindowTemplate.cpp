//===- WindowTemplate.cpp - direct window template: conv, max / average pool ---===//
#include "TemplateSupport.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Window template (conv, max / average pool): 1-D programs over the output elements, a
// loop over the window (and, for conv, the input channels of the group) accumulating in
// registers; out-of-range input positions are masked (padding). Both layouts: NCHW (X [N,
// C, D1..Dk], W [M, C/group, K1..Kk]) and NHWC (X [N, D1..Dk, C], W [M, K1..Kk, C/group]),
// where consecutive programs' lanes are consecutive channels of one pixel (coalesced loads:
// the depthwise convs and pools between channels-last convs, graph-conv-layout).
//===----------------------------------------------------------------------===//
FailureOr<func::FuncOp> buildWindow(OpBuilder &builder, FusionGroupOp group, StringRef name) {
  Block &body = group.getBody().front();
  Operation *anchor = &body.front();
  auto conv = dyn_cast<ConvOp>(anchor);
  auto maxPool = dyn_cast<MaxPoolOp>(anchor);
  auto avgPool = dyn_cast<AvgPoolOp>(anchor);
  if (!conv && !maxPool && !avgPool)
    return anchor->emitError("window group must start with conv or a pool"), failure();
  const bool nhwc = conv      ? conv.isChannelsLast()
                    : maxPool ? maxPool.isChannelsLast()
                              : avgPool.isChannelsLast();
  Value xV = anchor->getOperand(0);
  auto xT = cast<RankedTensorType>(xV.getType());
  auto outT = cast<RankedTensorType>(anchor->getResult(0).getType());
  if (!isa<BlockArgument>(xV) || (conv && !isa<BlockArgument>(conv.getWeight())))
    return anchor->emitError("window operands must be kernel inputs"), failure();
  // Channel dim and first spatial dim of X, W (conv) and Y.
  const int64_t rank = xT.getRank(), k = rank - 2;
  const int64_t cDim = nhwc ? rank - 1 : 1, sp0 = nhwc ? 1 : 2;
  int64_t C = xT.getDimSize(cDim), M = outT.getDimSize(cDim);
  SmallVector<int64_t> kernel, strides, pads, dil;
  if (conv) {
    auto wt = conv.getWeight().getType();
    kernel.assign(wt.getShape().begin() + sp0, wt.getShape().begin() + sp0 + k);
    strides.assign(conv.getStrides().begin(), conv.getStrides().end());
    pads.assign(conv.getPads().begin(), conv.getPads().end());
    dil.assign(conv.getDilations().begin(), conv.getDilations().end());
  } else {
    auto get = [&](StringRef n) {
      auto a = anchor->getAttrOfType<DenseI64ArrayAttr>(n).asArrayRef();
      return SmallVector<int64_t>(a.begin(), a.end());
    };
    kernel = get("kernel_shape");
    strides = get("strides");
    pads = get("pads");
    dil = get("dilations");
  }
  int64_t kw = numElements(kernel);
  int64_t G = conv ? conv.getGroup() : 1, Cg = C / G, Mg = M / G;
  int64_t K = conv ? Cg * kw : kw;
  int64_t numel = outT.getNumElements();
  for (int64_t n : {xT.getNumElements(), numel})
    if (n >= (int64_t(1) << 31))
      return anchor->emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  int64_t block = std::min<int64_t>(256, std::max<int64_t>(32, llvm::PowerOf2Ceil(numel)));
  KernelContext kc = makeKernel(builder, group, name, {(numel + block - 1) / block, 1, 1}, 4,
                                {blockAttr(builder, "BLOCK", block)});
  setFlatSymGrid(kc, 0, block, 1);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = anchor->getLoc();
  TileBuilder tb{b, loc, {block}};
  Type elem = computeType(xT.getElementType());
  if (!isa<FloatType>(elem))
    return anchor->emitError("the window template supports float inputs only, got ")
               << xT.getElementType(),
           failure();
  Value pid = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value offs = arith::AddIOp::create(
      b, loc, tb.splat(arith::MulIOp::create(b, loc, pid, tb.i32(block))), tb.range(block));
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offs, tb.splatI32(numel));
  ArrayRef<int64_t> outShape = outT.getShape();
  SmallVector<Value> idx = tb.delinearize(offs, outShape);
  double inf = std::numeric_limits<double>::infinity();
  bool countInRange = avgPool && !avgPool.getCountIncludePad();
  SmallVector<Value> init{tb.splatF(elem, maxPool ? -inf : 0.0)};
  if (avgPool)
    init.push_back(tb.splatF(elem, 0.0)); // window positions counted
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value cK = arith::ConstantIndexOp::create(b, loc, K);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, c0, cK, c1, init);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    TileBuilder lt{lb, loc, {block}};
    auto si = [&](int64_t v) { return lt.i32(v); };
    Value kk = arith::IndexCastOp::create(lb, loc, lb.getI32Type(), loop.getInductionVar());
    // kk = c * kw + r (NCHW: W's [C/group, K1..Kk] order) or r * Cg + c (NHWC: [K1..Kk,
    // C/group]); r is the window position, c the input channel within the group.
    Value cIn, r = kk;
    if (conv) {
      cIn = nhwc ? arith::RemSIOp::create(lb, loc, kk, si(Cg)).getResult()
                 : arith::DivSIOp::create(lb, loc, kk, si(kw)).getResult();
      r = nhwc ? arith::DivSIOp::create(lb, loc, kk, si(Cg)).getResult()
               : arith::RemSIOp::create(lb, loc, kk, si(kw)).getResult();
    }
    // Window position per spatial dim (scalars) and input position (tiles).
    Value inb = mask, inPad = mask;
    SmallVector<Value> in;
    int64_t inner = kw;
    for (int64_t d = 0; d < k; ++d) {
      inner /= kernel[d];
      Value kd = arith::RemSIOp::create(lb, loc, arith::DivSIOp::create(lb, loc, r, si(inner)),
                                        si(kernel[d]));
      Value shift = arith::SubIOp::create(lb, loc, arith::MulIOp::create(lb, loc, kd, si(dil[d])),
                                          si(pads[d]));
      Value pos = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, idx[sp0 + d], lt.splatI32(strides[d])),
          lt.splat(shift));
      int64_t I = xT.getDimSize(sp0 + d);
      auto within = [&](int64_t lo, int64_t hi) -> Value {
        return arith::AndIOp::create(
            lb, loc,
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sge, pos, lt.splatI32(lo)),
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, pos, lt.splatI32(hi)));
      };
      inb = arith::AndIOp::create(lb, loc, inb, within(0, I));
      if (avgPool)
        inPad = arith::AndIOp::create(lb, loc, inPad, within(-pads[d], I + pads[d + k]));
      in.push_back(pos);
    }
    // Input channel: conv reads channel g*Cg + c of its group; pools read channel m.
    Value chan = idx[cDim];
    if (conv) {
      Value g = arith::DivSIOp::create(lb, loc, idx[cDim], lt.splatI32(Mg));
      chan = arith::AddIOp::create(lb, loc, arith::MulIOp::create(lb, loc, g, lt.splatI32(Cg)),
                                   lt.splat(cIn));
    }
    // Row-major offset of X[n, chan, in...] (NCHW) or X[n, in..., chan] (NHWC).
    Value xo = nhwc ? idx[0]
                    : arith::AddIOp::create(
                          lb, loc, arith::MulIOp::create(lb, loc, idx[0], lt.splatI32(C)), chan);
    for (int64_t d = 0; d < k; ++d)
      xo = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, xo, lt.splatI32(xT.getDimSize(sp0 + d))), in[d]);
    if (nhwc)
      xo = arith::AddIOp::create(lb, loc, arith::MulIOp::create(lb, loc, xo, lt.splatI32(C)), chan);
    Value x = lt.load(kc.inParams[kc.argIndex[xV]], xo, inb, elem, maxPool ? -inf : 0.0);
    SmallVector<Value> next;
    if (conv) {
      // W[m, c, kd...]: (m * Cg + c) * kw + r (NCHW); W[m, kd..., c]: (m * kw + r) * Cg + c
      // (NHWC); both m * K + kk.
      Value wo = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, idx[cDim], lt.splatI32(K)), lt.splat(kk));
      Value w = lt.load(kc.inParams[kc.argIndex[conv.getWeight()]], wo, mask, elem);
      next.push_back(arith::AddFOp::create(lb, loc, loop.getRegionIterArg(0),
                                           arith::MulFOp::create(lb, loc, x, w)));
    } else if (maxPool) {
      next.push_back(arith::MaximumFOp::create(lb, loc, loop.getRegionIterArg(0), x));
    } else {
      next.push_back(arith::AddFOp::create(lb, loc, loop.getRegionIterArg(0), x));
      Value counted = countInRange ? inb : inPad;
      next.push_back(
          arith::AddFOp::create(lb, loc, loop.getRegionIterArg(1),
                                arith::UIToFPOp::create(lb, loc, lt.tileOf(elem), counted)));
    }
    scf::YieldOp::create(lb, loc, next);
  }
  Value acc = loop.getResult(0);
  if (avgPool)
    acc = arith::DivFOp::create(b, loc, acc, loop.getResult(1));
  if (conv && conv.getBias()) {
    auto bias = loadOperand(tb, kc, conv.getBias(), {M}, {idx[cDim]}, mask);
    if (failed(bias))
      return failure();
    acc = arith::AddFOp::create(b, loc, acc, *bias);
  }
  auto fused = applyEpilogue(tb, kc, anchor, acc, outShape, idx, mask);
  if (failed(fused))
    return failure();
  tb.store(kc.outParams[0], offs, *fused, mask);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
