//===- MatmulTemplate.cpp - matmul / Gemm + fused epilogue template ---------===//
#include "TemplateSupport.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Matmul / Gemm + epilogue template
//===----------------------------------------------------------------------===//
LogicalResult applyMatmulConfigOverride(Operation *anchor, StringRef override,
                                        MatmulConfig &cfg) {
  if (override.empty())
    return success();
  constexpr int64_t kMaxBlock = 1024, kMaxStages = 16;
  SmallVector<StringRef> parts;
  override.split(parts, 'x');
  SmallVector<int64_t> v;
  for (StringRef p : parts) {
    int64_t x;
    if (p.getAsInteger(10, x) || x < 1)
      break;
    v.push_back(x);
  }
  if (v.size() != parts.size() || (v.size() != 3 && v.size() != 4))
    return anchor->emitError("--matmul-config '")
               << override << "': expected BMxBNxBK or BMxBNxBKxSTAGES (positive integers)",
           failure();
  // Bounds well past every target's space (tensor-core blocks <= 256, 8 stages; a generic
  // GPU kernel's tiles share 48 KiB): larger values only overflowed i32 tile ranges and
  // int64 shared-memory sizes, or had the CPU kernel allocate a [BM, BN] tile of gigabytes.
  if (v[0] > kMaxBlock || v[1] > kMaxBlock || v[2] > kMaxBlock ||
      (v.size() == 4 && v[3] > kMaxStages))
    return anchor->emitError("--matmul-config '")
               << override << "': block sizes must be at most " << kMaxBlock
               << " and num_stages at most " << kMaxStages,
           failure();
  cfg.blockM = v[0];
  cfg.blockN = v[1];
  cfg.blockK = v[2];
  if (v.size() == 4)
    cfg.numStages = v[3];
  if (cfg.wgmma)
    cfg.numWarps = 4 * std::max<int64_t>(1, cfg.blockM / 64);
  if (cfg.mmaSync && cfg.blockM >= 16 && cfg.blockN >= 16)
    cfg.numWarps = mmaSyncNumWarps(cfg.blockM, cfg.blockN);
  return success();
}

MatmulConfig configOfGroup(FusionGroupOp group, const MatmulConfig &chosen) {
  auto a = group->getAttrOfType<tl::MatmulConfigAttr>(tl::kMatmulConfigAttrName);
  if (!a)
    return chosen;
  MatmulConfig c;
  c.blockM = a.getBlockM();
  c.blockN = a.getBlockN();
  c.blockK = a.getBlockK();
  c.numWarps = a.getNumWarps();
  c.numStages = a.getNumStages();
  c.wgmma = a.getPath() == tl::MatmulPath::wgmma;
  c.mmaSync = a.getPath() == tl::MatmulPath::mma_sync;
  return c;
}

FailureOr<MatmulProblem> analyzeMatmul(FusionGroupOp group, const TemplateOptions &options) {
  MatmulProblem p;
  Block &body = group.getBody().front();
  Operation *anchor = &body.front();
  while (isa<TransposeOp>(anchor))
    anchor = anchor->getNextNode();
  p.anchor = anchor;
  if (auto mm = dyn_cast<MatMulOp>(anchor)) {
    p.a = mm.getLhs();
    p.b = mm.getRhs();
  } else if (auto gemm = dyn_cast<GemmOp>(anchor)) {
    p.a = gemm.getA();
    p.b = gemm.getB();
    p.c = gemm.getC();
    p.transA = gemm.getTransA();
    p.transB = gemm.getTransB();
    p.alpha = gemm.getAlpha().convertToDouble();
    p.beta = gemm.getBeta().convertToDouble();
  } else {
    return anchor->emitError("epilogue group must start with matmul or gemm"), failure();
  }
  if (!isa<BlockArgument>(p.a) || !isa<BlockArgument>(p.b))
    return anchor->emitError("matmul operands must be kernel inputs"), failure();
  p.aT = cast<RankedTensorType>(p.a.getType());
  p.bT = cast<RankedTensorType>(p.b.getType());
  SmallVector<int64_t> aS(p.aT.getShape()), bS(p.bT.getShape());
  if (aS.size() == 1)
    aS.insert(aS.begin(), 1);
  if (bS.size() == 1)
    bS.push_back(1);
  p.M = p.transA ? aS[aS.size() - 1] : aS[aS.size() - 2];
  p.K = p.transA ? aS[aS.size() - 2] : aS[aS.size() - 1];
  p.N = p.transB ? bS[bS.size() - 2] : bS[bS.size() - 1];
  p.aBatch.assign(aS.begin(), aS.end() - 2);
  p.bBatch.assign(bS.begin(), bS.end() - 2);
  auto batchShape = broadcastShapes(p.aBatch, p.bBatch);
  if (failed(batchShape))
    return anchor->emitError("batch dims do not broadcast"), failure();
  p.batchShape = *batchShape;
  p.batch = numElements(p.batchShape);
  p.outType = cast<RankedTensorType>(group.getResult(0).getType());
  if (p.outType.getNumElements() != p.batch * p.M * p.N)
    return group.emitError("epilogue changes the matmul's shape"), failure();
  for (int64_t n : {p.aT.getNumElements(), p.bT.getNumElements(), p.outType.getNumElements()})
    if (n >= (int64_t(1) << 31))
      return group.emitError("operand exceeds 2^31 elements (i32 offsets)"), failure();

  // The stored rows of A and B (their contiguous dim) must be 16-byte multiples for TMA.
  int64_t es = p.aT.getElementTypeBitWidth() / 8;
  int64_t aRow = p.transA ? p.M : p.K, bRow = p.transB ? p.K : p.N;
  bool tmaRowsOK = (aRow * es) % 16 == 0 && (bRow * es) % 16 == 0;
  p.tf32 = options.allowTF32 && p.aT.getElementType().isF32();
  // A math epilogue: anything beyond adds, multiplies, Relu / Clip / Max / Min, negation
  // and casts (chooseMatmulConfig keeps ping-pong tiles for it).
  bool mathEpilogue = false;
  for (Operation &op : body)
    if (&op != anchor && !isa<TransposeOp, AddOp, SubOp, MulOp, ReluOp, ClipOp, MaxOp, MinOp,
                              NegOp, CastOp, ReshapeOp, YieldOp>(op))
      mathEpilogue = true;
  MatmulConfig cfg = chooseMatmulConfig(p.M, p.N, p.K, p.aT.getElementType(), tmaRowsOK,
                                        targetChip(options), hardwareChip(options),
                                        p.tf32 && !p.transA && p.transB, p.batch, mathEpilogue);
  if (failed(applyMatmulConfigOverride(anchor, options.matmulConfig, cfg)))
    return failure();
  p.config = configOfGroup(group, cfg);
  return p;
}

FailureOr<func::FuncOp> buildMatmul(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                    const TemplateOptions &options) {
  auto problem = analyzeMatmul(group, options);
  if (failed(problem))
    return failure();
  const MatmulProblem &p = *problem;
  Operation *anchor = p.anchor;
  Value aV = p.a, bV = p.b, cV = p.c;
  bool transA = p.transA, transB = p.transB, tf32 = p.tf32;
  double alpha = p.alpha, beta = p.beta;
  RankedTensorType aT = p.aT, bT = p.bT, outType = p.outType;
  ArrayRef<int64_t> aBatch = p.aBatch, bBatch = p.bBatch;
  const SmallVector<int64_t> *batchShape = &p.batchShape;
  int64_t M = p.M, N = p.N, K = p.K, batch = p.batch;
  const MatmulConfig &cfg = p.config;
  int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK;
  int64_t gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
  KernelContext kc = makeKernel(builder, group, name, {gm, gn, batch}, cfg.numWarps,
                                {blockAttr(builder, "BLOCK_M", BM),
                                 blockAttr(builder, "BLOCK_N", BN),
                                 blockAttr(builder, "BLOCK_K", BK)},
                                cfg.numStages);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = anchor->getLoc();
  Type inElem = aT.getElementType();
  Type acc = computeType(inElem);
  if (!isa<FloatType>(acc))
    return anchor->emitError("the matmul template supports float operands only, got ")
               << inElem,
           failure();
  TileBuilder t2{b, loc, {BM, BN}};
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidN = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
  auto scalarMul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, t2.i32(c));
  };
  // Matrix index of A and of B for output batch pidB: the batch index split per dim of the
  // broadcast batch shape, each part weighted by the operand's own row-major stride over its
  // batch dims (broadcast dims of the operand contribute 0).
  Value aMatrix = t2.i32(0), bMatrix = t2.i32(0);
  {
    auto bs = rowMajorStrides(*batchShape);
    auto aStr = broadcastStrides(aBatch, rowMajorStrides(aBatch), *batchShape);
    auto bStr = broadcastStrides(bBatch, rowMajorStrides(bBatch), *batchShape);
    auto weighted = [&](Value q, int64_t stride) { return stride == 1 ? q : scalarMul(q, stride); };
    for (size_t d = 0; d < batchShape->size(); ++d) {
      Value q = bs[d] == 1 ? pidB : arith::DivSIOp::create(b, loc, pidB, t2.i32(bs[d])).getResult();
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, t2.i32((*batchShape)[d]));
      if (aStr[d])
        aMatrix = arith::AddIOp::create(b, loc, aMatrix, weighted(q, aStr[d]));
      if (bStr[d])
        bMatrix = arith::AddIOp::create(b, loc, bMatrix, weighted(q, bStr[d]));
    }
  }
  Value m0 = scalarMul(pidM, BM), n0 = scalarMul(pidN, BN);
  Value rm = arith::AddIOp::create(
      b, loc, tl::SplatOp::create(b, loc, RankedTensorType::get({BM}, b.getI32Type()), m0),
      t2.range(BM));
  Value rn = arith::AddIOp::create(
      b, loc, tl::SplatOp::create(b, loc, RankedTensorType::get({BN}, b.getI32Type()), n0),
      t2.range(BN));
  Value rm2 = t2.along(rm, 0), rn2 = t2.along(rn, 1);
  Value mMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rm2, t2.splatI32(M));
  Value nMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rn2, t2.splatI32(N));
  Value outMask = arith::AndIOp::create(b, loc, mMask, nMask);

  // K loop: the A and B tiles are blocks of the operands' row-major matrices (zero outside),
  // A stored [.., M, K] ([.., K, M] under transA: its [BK, BM] block at (k0, m0), transposed),
  // B stored [.., K, N] ([.., N, K] under transB: its [BN, BK] block at (n0, k0), transposed).
  // A 1-D operand is one matrix of 1 x K (A) or K x 1 (B).
  int64_t numA = numElements(aBatch), numB = numElements(bBatch);
  Value zeroAcc = t2.splatF(acc, 0.0);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value cK = arith::ConstantIndexOp::create(b, loc, K);
  Value cBK = arith::ConstantIndexOp::create(b, loc, BK);
  auto loop = scf::ForOp::create(b, loc, c0, cK, cBK, ValueRange{zeroAcc});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = arith::IndexCastOp::create(lb, loc, lb.getI32Type(), loop.getInductionVar());
    Value aPtr = kc.inParams[kc.argIndex[aV]], bPtr = kc.inParams[kc.argIndex[bV]];
    auto aTileType = RankedTensorType::get({BM, BK}, inElem);
    auto bTileType = RankedTensorType::get({BK, BN}, inElem);
    Value aTile = transA
                      ? tl::BlockLoadOp::create(lb, loc, aTileType, aPtr, aMatrix, k0, m0,
                                                ArrayRef<int64_t>{numA, K, M}, /*transpose=*/true)
                      : tl::BlockLoadOp::create(lb, loc, aTileType, aPtr, aMatrix, m0, k0,
                                                ArrayRef<int64_t>{numA, M, K});
    Value bTile = transB
                      ? tl::BlockLoadOp::create(lb, loc, bTileType, bPtr, bMatrix, n0, k0,
                                                ArrayRef<int64_t>{numB, N, K}, /*transpose=*/true)
                      : tl::BlockLoadOp::create(lb, loc, bTileType, bPtr, bMatrix, k0, n0,
                                                ArrayRef<int64_t>{numB, K, N});
    Value next = tl::DotOp::create(
        lb, loc, loop.getRegionIterArg(0).getType(), aTile, bTile, loop.getRegionIterArg(0),
        tl::InputPrecisionAttr::get(lb.getContext(),
                                    tf32 ? tl::InputPrecision::tf32 : tl::InputPrecision::ieee));
    scf::YieldOp::create(lb, loc, next);
  }
  Value result = loop.getResult(0);

  // Output index per dim of the real output shape: batch dims from pidB (scalar splat),
  // then M and N (either may be squeezed away for 1-D matmul operands).
  ArrayRef<int64_t> outShape = outType.getShape();
  SmallVector<Value> idx;
  {
    auto bs = rowMajorStrides(*batchShape);
    for (size_t d = 0; d < batchShape->size(); ++d) {
      Value q = bs[d] == 1 ? pidB : arith::DivSIOp::create(b, loc, pidB, t2.i32(bs[d])).getResult();
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, t2.i32((*batchShape)[d]));
      idx.push_back(t2.splat(q));
    }
    if (aT.getRank() != 1)
      idx.push_back(rm2);
    if (bT.getRank() != 1)
      idx.push_back(rn2);
  }
  if (idx.size() != outShape.size())
    return group.emitError("internal: matmul output rank mismatch"), failure();

  if (alpha != 1.0)
    result = arith::MulFOp::create(b, loc, result, t2.splatF(acc, alpha));
  if (cV) {
    auto cl = loadOperand(t2, kc, cV, outShape, idx, outMask);
    if (failed(cl))
      return failure();
    Value c = *cl;
    if (beta != 1.0)
      c = arith::MulFOp::create(b, loc, c, t2.splatF(acc, beta));
    result = arith::AddFOp::create(b, loc, result, c);
  }
  auto fused = applyEpilogue(t2, kc, anchor, result, outShape, idx, outMask);
  if (failed(fused))
    return failure();
  // The output is `batch` row-major M x N matrices whatever the operands' ranks (a 1-D operand
  // only squeezes M or N, of size 1, out of the shape): the tile is the [BM, BN] block at
  // (m0, n0) of matrix pidB, clipped at the matrix edge (a TMA box store on sm_90a; a masked
  // tile.store elsewhere, tile-expand-block-loads).
  Value outBuf = kc.outParams[0];
  Value outTile = *fused;
  auto outElem = cast<MemRefType>(outBuf.getType()).getElementType();
  if (cast<RankedTensorType>(outTile.getType()).getElementType() != outElem)
    outTile = arith::TruncFOp::create(b, loc, RankedTensorType::get({BM, BN}, outElem), outTile);
  tl::BlockStoreOp::create(b, loc, outBuf, batch == 1 ? t2.i32(0) : pidB, m0, n0, outTile,
                           ArrayRef<int64_t>{batch, M, N});
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

} // namespace aicc::templates
