//===- ConvGemmTemplate.cpp - implicit-GEMM 2-D convolution template --------===//
#include "TemplateSupport.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Implicit-GEMM convolution template (2-D, group 1): the convolution as the GEMM
// Y[P, M] = A[P, K] x W^T, P = N * OH * OW output pixels, K = C * KH * KW, A the input's
// im2col matrix read block by block (tile.im2col_load: never materialized), W the weight as
// its row-major [M, K] matrix (ONNX [M, C, KH, KW], NHWC [M, KH, KW, C]: K contiguous in
// both). The K loop has the matmul template's shape (tile.dot on a [BLOCK_M, BLOCK_K] A block
// and a [BLOCK_K, BLOCK_N] weight block), so the tensor-core lowerings take it; the
// epilogue (bias, fused elementwise ops) runs on the [BLOCK_M pixels, BLOCK_N channels]
// accumulator tile and stores it: NHWC as the [P, M] matrix's block (tile.block_store); NCHW
// on sm_90a, where per-image tiles pay (see the rule below), as the transposed block of its
// image's [M, OH * OW] matrix; other NCHW tiles straddle images and store by offsets.
//===----------------------------------------------------------------------===//

std::string whyNotImplicitGemm(ConvOp conv) {
  auto xT = cast<RankedTensorType>(conv.getInput().getType());
  if (xT.getRank() != 4)
    return "not a 2-D convolution";
  if (conv.getGroup() != 1)
    return "group != 1";
  Type e = xT.getElementType();
  if (!e.isF16() && !e.isBF16() && !e.isF32())
    return "element type is not f16, bf16 or f32";
  if (!isa<BlockArgument>(conv.getInput()) || !isa<BlockArgument>(conv.getWeight()))
    return "operands are not kernel inputs";
  for (Type t : {conv.getInput().getType(), conv.getWeight().getType(), conv.getType()})
    if (cast<RankedTensorType>(t).getNumElements() == 0)
      return "an operand or the result is empty (a dimension of size 0)";
  return "";
}

/// Whether the conv group takes the implicit-GEMM template: NHWC convs (the direct window
/// template reads NCHW only), `--conv-algorithm=implicit-gemm`, or auto where a tensor-core
/// lowering takes the GEMM form: sm_90a (wgmma gathers the im2col blocks) with f16 / bf16
/// operands, or f32 under --allow-tf32; sm_80 / sm_90 (mma.sync gathers them too) with f16 /
/// bf16 operands. Elsewhere (the CPU, f32 on sm_80 / sm_90) auto keeps the direct window loop.
bool useImplicitGemm(ConvOp conv, const TemplateOptions &o) {
  if (!whyNotImplicitGemm(conv).empty())
    return false;
  if (conv.isChannelsLast())
    return true;
  if (o.convAlgorithm != "auto")
    return o.convAlgorithm == "implicit-gemm";
  Type e = conv.getInput().getType().getElementType();
  bool half = e.isF16() || e.isBF16();
  const ChipInfo &chip = targetChip(o);
  if (chip.has(ChipFeature::Wgmma))
    return half || (e.isF32() && o.allowTF32);
  return chip.has(ChipFeature::MmaSync) && half;
}

FailureOr<MatmulConfig> convGemmConfig(FusionGroupOp group, const TemplateOptions &options) {
  auto conv = cast<ConvOp>(&group.getBody().front().front());
  if (std::string why = whyNotImplicitGemm(conv); !why.empty())
    return conv.emitError("implicit-GEMM conv template: ") << why, failure();
  auto xT = cast<RankedTensorType>(conv.getInput().getType());
  auto wT = cast<RankedTensorType>(conv.getWeight().getType());
  auto yT = cast<RankedTensorType>(conv.getType());
  // The GEMM: P = N * OH * OW output pixels by OC channels, K = C * KH * KW.
  int64_t OC = wT.getDimSize(0);
  // The pixels the config is chosen for: the bound's, or a shape bucket's run
  // (TemplateOptions::configAtValue: the batch at that value; the kernel is built at the bound).
  int64_t P = numElements(configExtents(conv, yT.getShape(), options.configAtValue)) / OC;
  int64_t K = wT.getNumElements() / OC;
  Type inElem = xT.getElementType();
  bool tf32 = options.allowTF32 && inElem.isF32();
  // The tensor-core lowerings gather the A blocks themselves (and the weight blocks when
  // their rows break the TMA stride / cp.async granule): the rows' 16-byte rule that
  // tmaRowsOK stands for does not bind them, so sm_90a (wgmma) and sm_80 / sm_90 (mma.sync)
  // get their tensor-core configs; other targets the generic one.
  const ChipInfo &chip = targetChip(options);
  bool tensorCoreTarget = chip.has(ChipFeature::Wgmma) || chip.has(ChipFeature::MmaSync);
  MatmulConfig cfg =
      chooseMatmulConfig(P, OC, K, inElem, tensorCoreTarget, chip, hardwareChip(options), tf32, 1,
                         /*keepPingPong=*/true, /*implicitGemm=*/true);
  if (failed(applyMatmulConfigOverride(conv, options.matmulConfig, cfg)))
    return failure();
  cfg.splitK = 1; // --matmul-config's SPLIT_K is for matmul and Gemm kernels
  MatmulConfig chosen = configOfGroup(group, cfg);
  if (chosen.splitK != 1)
    return conv.emitError("split_k = ")
               << chosen.splitK << " is for matmul and Gemm kernels; an implicit-GEMM conv "
               << "runs its K loop in one program",
           failure();
  return chosen;
}

FailureOr<func::FuncOp> buildConvGemm(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                      const TemplateOptions &options) {
  auto conv = cast<ConvOp>(&group.getBody().front().front());
  if (std::string why = whyNotImplicitGemm(conv); !why.empty())
    return conv.emitError("implicit-GEMM conv template: ") << why, failure();
  Value xV = conv.getInput(), wV = conv.getWeight();
  auto xT = cast<RankedTensorType>(xV.getType()), wT = cast<RankedTensorType>(wV.getType());
  auto yT = cast<RankedTensorType>(conv.getType());
  const bool nhwc = conv.isChannelsLast(); // X [N, H, W, C], W [OC, KH, KW, C], Y [N, OH, OW, OC]
  int64_t N = xT.getDimSize(0), C = xT.getDimSize(nhwc ? 3 : 1);
  int64_t H = xT.getDimSize(nhwc ? 1 : 2), W = xT.getDimSize(nhwc ? 2 : 3);
  int64_t OC = wT.getDimSize(0), KH = wT.getDimSize(nhwc ? 1 : 2), KW = wT.getDimSize(nhwc ? 2 : 3);
  int64_t OH = yT.getDimSize(nhwc ? 1 : 2), OW = yT.getDimSize(nhwc ? 2 : 3);
  for (int64_t n : {xT.getNumElements(), wT.getNumElements(), yT.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return conv.emitError("tensor exceeds 2^31 elements (i32 offsets)"), failure();
  auto outType = cast<RankedTensorType>(group.getResult(0).getType());
  if (outType.getShape() != yT.getShape())
    return group.emitError("epilogue changes the conv's shape"), failure();
  int64_t P = N * OH * OW, K = C * KH * KW, OHW = OH * OW;
  Type inElem = xT.getElementType();
  Type acc = computeType(inElem);
  bool tf32 = options.allowTF32 && inElem.isF32();
  auto config = convGemmConfig(group, options);
  if (failed(config))
    return failure();
  const MatmulConfig &cfg = *config;
  const ChipInfo &chip = targetChip(options);
  int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK;
  // NCHW on sm_90a: where the output's channel rows allow TMA box stores (OH * OW * bytes a
  // 16-byte multiple), padding each image's pixels to whole tiles costs at most 1/16 more
  // work and BLOCK_N >= 128, every tile stays within one image. Measured on the H200
  // (ResNet-50 layers at batch 32, same run against straddling tiles stored from registers):
  // 56 x 56, 64 -> 256 channels 1x1 (BLOCK_N 128): 0.0986 against 0.1086 ms; but with
  // BLOCK_N = 64 per-image tiles lost (3x3 64 -> 64: 0.2139 against 0.1869 ms; 1x1 256 -> 64:
  // 0.2078 against 0.1785; twenty-fourth run), and 28 x 28 with 14% padding lost too
  // (0.1420 against 0.1299 ms, twenty-third run). Such a tile stays within one image: its transposed block is one TMA box store
  // (a tile spanning images needs stores at negative pixel columns, which fault on TMA).
  auto outElemT = cast<RankedTensorType>(group.getResult(0).getType()).getElementType();
  int64_t outBytes = outElemT.getIntOrFloatBitWidth() / 8;
  int64_t tilesPerImage = (OHW + BM - 1) / BM;
  bool perImage = !nhwc && OHW > 1 && N > 1 && cfg.wgmma && chip.has(ChipFeature::Wgmma) &&
                  options.tmaStore && BN >= 128 && (OHW * outBytes) % 16 == 0 &&
                  16 * tilesPerImage * BM <= 17 * OHW;
  int64_t gridM = perImage ? N * tilesPerImage : (P + BM - 1) / BM;
  KernelContext kc =
      makeKernel(builder, group, name, {gridM, (OC + BN - 1) / BN, 1}, cfg.numWarps,
                 {blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_N", BN),
                  blockAttr(builder, "BLOCK_K", BK)},
                 cfg.numStages);
  // Bounded symbolic dims, a symbolic batch: programs along x cover the pixel rows in order
  // (per image: tilesPerImage each), so a run needs only those of its images (tile.symgrid:
  // the runtime shrinks the launch; a persistent lowering loops over those tiles, reading
  // the run's value from the group's symbol values).
  if (auto sd = groupResultSymDim(group, 0); sd && sd->axis == 0 && N % sd->max == 0) {
    Builder ab(builder.getContext());
    int64_t perUnit = N / sd->max;
    kc.kernel->setAttr(tl::kSymGridAttrName,
                       perImage
                           ? ab.getDenseI64ArrayAttr({0, sd->symbol, perUnit * tilesPerImage, 1, 1})
                           : ab.getDenseI64ArrayAttr({0, sd->symbol, perUnit * OHW, BM, 1}));
    if (auto in = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName))
      kc.kernel->setAttr(tl::kSymValuesAttrName, ab.getI64IntegerAttr(in.getInt()));
  }
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = conv.getLoc();
  TileBuilder t2{b, loc, {BM, BN}};
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidN = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  // Per-image tiles: program pidM covers pixels pix0 .. pix0 + BM - 1 of image img; its rows
  // past the image (the next image's pixels, or past P: masked) are computed and not stored.
  Value imgT, pixT;
  Value m0 = arith::MulIOp::create(b, loc, pidM, t2.i32(BM));
  if (perImage) {
    imgT = arith::DivSIOp::create(b, loc, pidM, t2.i32(tilesPerImage));
    pixT = arith::MulIOp::create(
        b, loc, arith::RemSIOp::create(b, loc, pidM, t2.i32(tilesPerImage)), t2.i32(BM));
    m0 = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, imgT, t2.i32(OHW)), pixT);
  }
  Value n0 = arith::MulIOp::create(b, loc, pidN, t2.i32(BN));
  auto range1 = [&](Value start, int64_t n) -> Value {
    return arith::AddIOp::create(
        b, loc, tl::SplatOp::create(b, loc, RankedTensorType::get({n}, b.getI32Type()), start),
        t2.range(n));
  };
  auto op1 = [&](auto tag, Value v, int64_t c) -> Value {
    using Op = decltype(tag);
    return Op::create(b, loc, v,
                      tl::SplatOp::create(b, loc, cast<RankedTensorType>(v.getType()), t2.i32(c)));
  };
  Value rm = range1(m0, BM), rn = range1(n0, BN);
  Value rm2 = t2.along(rm, 0), rn2 = t2.along(rn, 1);
  Value outMask = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rm2, t2.splatI32(P)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rn2, t2.splatI32(OC)));

  Value zeroAcc = t2.splatF(acc, 0.0);
  auto loop = scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                                 arith::ConstantIndexOp::create(b, loc, K),
                                 arith::ConstantIndexOp::create(b, loc, BK), ValueRange{zeroAcc});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = arith::IndexCastOp::create(lb, loc, lb.getI32Type(), loop.getInductionVar());
    auto arr = [&](ArrayRef<int64_t> v) { return lb.getDenseI64ArrayAttr(v); };
    auto pads = conv.getPads();
    Value aTile = tl::Im2ColLoadOp::create(
        lb, loc, RankedTensorType::get({BM, BK}, inElem), kc.inParams[kc.argIndex[xV]], m0, k0,
        arr({N, C, H, W}), lb.getStringAttr(nhwc ? "NHWC" : "NCHW"), arr({KH, KW}),
        arr(conv.getStrides()), arr({pads[0], pads[1]}), arr(conv.getDilations()), arr({OH, OW}));
    // The weight as the row-major [OC, K] matrix: its [BN, BK] block at (n0, k0), transposed.
    Value bTile = tl::BlockLoadOp::create(lb, loc, RankedTensorType::get({BK, BN}, inElem),
                                          kc.inParams[kc.argIndex[wV]],
                                          arith::ConstantIntOp::create(lb, loc, lb.getI32Type(), 0),
                                          n0, k0, ArrayRef<int64_t>{1, OC, K}, /*transpose=*/true);
    Value next = tl::DotOp::create(
        lb, loc, loop.getRegionIterArg(0).getType(), aTile, bTile, loop.getRegionIterArg(0),
        tl::InputPrecisionAttr::get(lb.getContext(),
                                    tf32 ? tl::InputPrecision::tf32 : tl::InputPrecision::ieee));
    scf::YieldOp::create(lb, loc, next);
  }
  Value result = loop.getResult(0);

  // Output indices per dim (pixel parts split on the 1-D row range, once per row).
  Value nIdx = op1(arith::DivSIOp(), rm, OHW), pix = op1(arith::RemSIOp(), rm, OHW);
  Value oh = op1(arith::DivSIOp(), pix, OW), ow = op1(arith::RemSIOp(), pix, OW);
  SmallVector<Value> idx = nhwc ? SmallVector<Value>{t2.along(nIdx, 0), t2.along(oh, 0),
                                                     t2.along(ow, 0), rn2}
                                : SmallVector<Value>{t2.along(nIdx, 0), rn2, t2.along(oh, 0),
                                                     t2.along(ow, 0)};
  ArrayRef<int64_t> outShape = outType.getShape();
  if (conv.getBias()) {
    auto bias = loadOperand(t2, kc, conv.getBias(), {OC}, {rn2}, outMask);
    if (failed(bias))
      return failure();
    result = arith::AddFOp::create(b, loc, result, *bias);
  }
  auto fused = applyEpilogue(t2, kc, conv, result, outShape, idx, outMask);
  if (failed(fused))
    return failure();
  Value outBuf = kc.outParams[0];
  auto outElem = cast<MemRefType>(outBuf.getType()).getElementType();
  auto outTile = [&]() -> Value {
    Value v = *fused;
    if (cast<RankedTensorType>(v.getType()).getElementType() != outElem)
      v = arith::TruncFOp::create(b, loc, RankedTensorType::get({BM, BN}, outElem), v);
    return v;
  };
  if (perImage) {
    // Per-image tiles: the transposed block at (n0, pix0) of image img, clipped at OHW.
    tl::BlockStoreOp::create(b, loc, outBuf, imgT, n0, pixT, outTile(),
                             ArrayRef<int64_t>{N, OC, OHW}, /*transpose=*/true);
  } else if (nhwc || OHW == 1) {
    // NHWC (and NCHW with one output pixel: n * OC + oc): the output is the GEMM's row-major
    // [P, OC] matrix; the tile is its [BM, BN] block at (m0, n0), clipped at the edges (a TMA
    // store on sm_90a).
    tl::BlockStoreOp::create(b, loc, outBuf, t2.i32(0), m0, n0, outTile(),
                             ArrayRef<int64_t>{1, P, OC});
  } else {
    // NCHW with tiles that may straddle images: one store at the offsets
    // n * OC * OHW + oc * OHW + pix. (As one transposed block store per image the tile
    // touches, the register epilogues held every element's S masks and addresses at once and
    // spilled on sm_90a, e.g. 256 bytes for ResNet-50's 28 x 28 3x3 layer, and no store
    // through shared memory could take them: TMA faults at the negative pixel columns.)
    Value outOff = t2.offsets({t2.along(op1(arith::MulIOp(), nIdx, OC * OHW), 0), rn2,
                               t2.along(pix, 0)},
                              {1, OHW, 1});
    t2.store(outBuf, outOff, *fused, outMask);
  }
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
