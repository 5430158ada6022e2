//===- MatmulTemplate.cpp - matmul / Gemm + fused epilogue template ---------===//
#include "TemplateSupport.h"

#include "aicc/Target/MatmulConfigSyntax.h"

namespace aicc::templates {

//===----------------------------------------------------------------------===//
// Matmul / Gemm + epilogue template
//===----------------------------------------------------------------------===//
LogicalResult applyMatmulConfigOverride(Operation *anchor, StringRef override,
                                        MatmulConfig &cfg) {
  if (override.empty())
    return success();
  static_assert(kMaxMatmulConfigSplitK == tl::kMaxSplitK);
  // verifyPipelineConfig refused a malformed value before any pass ran; a pass run on its own
  // (aicc-opt -convert-graph-to-tile="matmul-config=...") gets the same message here.
  auto parsed = parseMatmulConfig(override);
  if (!parsed)
    return anchor->emitError(llvm::toString(parsed.takeError())), failure();
  const MatmulConfigOverride &o = *parsed;
  cfg.blockM = o.blockM;
  cfg.blockN = o.blockN;
  cfg.blockK = o.blockK;
  if (o.numStages)
    cfg.numStages = *o.numStages;
  cfg.splitK = o.splitK;
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
  c.splitK = a.getSplitK();
  return c;
}

FailureOr<MatmulProblem> analyzeMatmul(FusionGroupOp group, const TemplateOptions &options) {
  MatmulProblem p;
  Block &body = group.getBody().front();
  Operation *anchor = &body.front();
  while (isa<TransposeOp, LayerNormOp>(anchor))
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
  // Rule norm-prologue: A is the scale-free RMS norm or LayerNorm of a kernel input over
  // its last dim; a LayerNorm's column sums of B are the group's last input (graph-fuse;
  // the symbol values' input may follow).
  if (auto norm = p.a.getDefiningOp<LayerNormOp>()) {
    auto xt = cast<RankedTensorType>(norm.getInput().getType());
    if (norm.getScale() || norm.getBias() || p.transA ||
        static_cast<int64_t>(norm.getAxis()) != xt.getRank() - 1 || xt.getRank() < 2)
      return norm.emitError("a matmul prologue is a norm over the last dim without scale "
                            "or bias, of a left operand that is not transposed"),
             failure();
    p.rowNorm = norm;
    p.a = norm.getInput();
    if (!norm.getRms()) {
      // (The run's symbol values, bounded symbolic dims, come after it.)
      unsigned last = body.getNumArguments() - 1;
      if (auto in = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
          in && in.getInt() == (int64_t)last && last > 0)
        --last;
      BlockArgument c = body.getArgument(last);
      auto ct = dyn_cast<RankedTensorType>(c.getType());
      auto bt = dyn_cast<RankedTensorType>(p.b.getType());
      if (!c.use_empty() || !ct || ct.getRank() != 1 || !isa<FloatType>(ct.getElementType()) ||
          !bt || bt.getRank() != 2 || ct.getDimSize(0) != bt.getDimSize(p.transB ? 0 : 1))
        return norm.emitError("a LayerNorm prologue needs the column sums of a 2-D B as the "
                              "group's last input (graph-fuse's rule norm-prologue)"),
               failure();
      p.columnSums = c;
    }
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
  if (group.getNumResults() != 1)
    return group.emitError("a matmul / Gemm group has one result (its epilogue's output), got ")
               << group.getNumResults(),
           failure();
  p.outType = cast<RankedTensorType>(group.getResult(0).getType());
  // Column pairs (graph-fuse's rule column-pairs): two slices of step 2 along the last dim
  // of an epilogue value, at 0 and 1; the output has N / 2 columns.
  for (Operation &op : body)
    if (auto sl = dyn_cast<SliceOp>(op)) {
      // The swap of the product's column pairs (SwapPairsView.h), read in registers.
      if (auto r1 = sl.getInput().getDefiningOp<ReshapeOp>();
          r1 && !p.swapPairs && cast<RankedTensorType>(r1.getInput().getType()).getShape().back() == p.N) {
        if (auto chain = matchSwapPairsView(r1.getInput(), r1); chain && (*chain)[1] == sl) {
          p.swapPairs = r1;
          continue;
        }
      }
      auto in = cast<RankedTensorType>(sl.getInput().getType());
      int64_t last = in.getRank() - 1, start = sl.getStarts()[last];
      bool pair = sl.getSteps()[last] == 2 && (start == 0 || start == 1) &&
                  in.getShape().back() == p.N && p.N % 2 == 0 &&
                  cast<RankedTensorType>(sl.getType()).getShape().back() * 2 == p.N &&
                  !(start ? p.oddSlice : p.evenSlice);
      for (int64_t d = 0; d < last; ++d)
        pair = pair && sl.getStarts()[d] == 0 && sl.getSteps()[d] == 1 &&
               cast<RankedTensorType>(sl.getType()).getDimSize(d) == in.getDimSize(d);
      if (!pair)
        return sl.emitError("a matmul epilogue takes only the column pairs of its product "
                            "(two slices of step 2 along the last dim, at 0 and 1)"),
               failure();
      (start ? p.oddSlice : p.evenSlice) = sl;
    }
  if (!p.evenSlice != !p.oddSlice)
    return group.emitError("a matmul epilogue reads both column pairs or neither"), failure();
  int64_t outN = p.evenSlice ? p.N / 2 : p.N;
  if (p.outType.getNumElements() != p.batch * p.M * outN)
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
    if (&op != anchor && &op != p.rowNorm.getOperation() &&
        !isa<TransposeOp, AddOp, SubOp, MulOp, ReluOp, ClipOp, MaxOp, MinOp, NegOp, CastOp,
             ReshapeOp, YieldOp>(op))
      mathEpilogue = true;
  // The extents the config is chosen for: the bound's, or a shape bucket's run
  // (TemplateOptions::configAtValue; the kernel is built at the bound either way).
  int64_t cfgM = p.M, cfgN = p.N, cfgBatch = p.batch;
  if (auto rt = dyn_cast<RankedTensorType>(anchor->getResult(0).getType());
      options.configAtValue > 0 && rt && rt.getRank() == (int64_t)p.batchShape.size() + 2) {
    SmallVector<int64_t> e = configExtents(anchor, rt.getShape(), options.configAtValue);
    cfgM = e[e.size() - 2];
    cfgN = e.back();
    cfgBatch = numElements(ArrayRef<int64_t>(e).drop_back(2));
  }
  MatmulConfig cfg = chooseMatmulConfig(cfgM, cfgN, p.K, p.aT.getElementType(), tmaRowsOK,
                                        targetChip(options), hardwareChip(options),
                                        p.tf32 && !p.transA && p.transB, cfgBatch, mathEpilogue);
  // Split-K sums the partials in a 1-D kernel of output elements, which has no column
  // pairs: a gated product is one kernel.
  bool pairwise = p.evenSlice || p.swapPairs;
  // Split-K slices would each see part of a row: a norm prologue is one kernel too.
  bool oneKernel = pairwise || p.rowNorm;
  if (options.splitK && !oneKernel)
    cfg.splitK = chooseSplitK(cfgM, cfgN, p.K, cfgBatch, cfg, hardwareChip(options));
  if (failed(applyMatmulConfigOverride(anchor, options.matmulConfig, cfg)))
    return failure();
  // A SPLIT_K of --matmul-config (it applies to every matmul) does not apply to this one.
  if (oneKernel)
    cfg.splitK = 1;
  p.config = configOfGroup(group, cfg);
  if (oneKernel && p.config.splitK != 1)
    return anchor->emitError("split_k = ")
               << p.config.splitK
               << (pairwise ? ": a matmul whose epilogue reads column pairs"
                            : ": a matmul with a norm prologue")
               << " runs as one kernel (split_k 1)",
           failure();
  if (p.config.splitK > 1 && p.outType.getNumElements() * p.config.splitK >= (int64_t(1) << 31))
    return group.emitError("split-K partials of ")
               << p.outType.getNumElements() * p.config.splitK
               << " elements exceed 2^31 (i32 offsets)",
           failure();
  int64_t numK = (p.K + p.config.blockK - 1) / p.config.blockK;
  if (p.config.splitK > numK)
    return anchor->emitError("split_k = ")
               << p.config.splitK << " exceeds the " << numK << " k blocks of K = " << p.K
               << " at BLOCK_K = " << p.config.blockK,
           failure();
  return p;
}

/// Alpha, Gemm's beta * C and the group's fused elementwise ops applied to the f32
/// accumulator tile `acc` of the output elements at `idx` (one i32 tile per dim of the
/// output) under `mask`.
static FailureOr<Value> applyMatmulEpilogue(TileBuilder &t2, KernelContext &kc,
                                            const MatmulProblem &p, Value acc,
                                            ArrayRef<int64_t> outShape, ArrayRef<Value> idx,
                                            Value mask, const ColumnPairs *pairs = nullptr) {
  OpBuilder &b = t2.b;
  Location loc = t2.loc;
  Type accElem = cast<RankedTensorType>(acc.getType()).getElementType();
  Value result = acc;
  if (p.alpha != 1.0)
    result = arith::MulFOp::create(b, loc, result, t2.splatF(accElem, p.alpha));
  if (p.c) {
    auto cl = loadOperand(t2, kc, p.c, outShape, idx, mask);
    if (failed(cl))
      return failure();
    Value c = *cl;
    if (p.beta != 1.0)
      c = arith::MulFOp::create(b, loc, c, t2.splatF(accElem, p.beta));
    result = arith::AddFOp::create(b, loc, result, c);
  }
  return applyEpilogue(t2, kc, p.anchor, result, outShape, idx, mask, pairs);
}

/// The type of a split-K group's partial products: [split_k * batch, M, N], slice-major, in
/// the accumulator's type (f32 for f16 / bf16 / f32 operands, f64 for f64 ones).
static RankedTensorType partialsType(const MatmulProblem &p, MLIRContext *) {
  return RankedTensorType::get({p.config.splitK * p.batch, p.M, p.N},
                               computeType(p.aT.getElementType()));
}

/// The tile kernel of a matmul group: programs over BLOCK_M x BLOCK_N output tiles of each
/// of the `batch` matrices (grid z), a K loop of tile.dot into an f32 accumulator.
/// `partials` false: the whole K loop, then the epilogue, stored to the group's result.
/// `partials` true (split-K): grid z is slice-major (z = slice * batch + matrix); slice s
/// runs the k blocks [s * B, (s + 1) * B) (B = ceil(ceil(K / BLOCK_K) / split_k); blocks
/// past K load zeros) and stores its f32 accumulator unchanged to partial matrix z.
static FailureOr<func::FuncOp> buildMatmulTiles(OpBuilder &builder, FusionGroupOp group,
                                                StringRef name, const MatmulProblem &p,
                                                bool partials) {
  Operation *anchor = p.anchor;
  Value aV = p.a, bV = p.b;
  bool transA = p.transA, transB = p.transB, tf32 = p.tf32;
  RankedTensorType aT = p.aT, bT = p.bT, outType = p.outType;
  ArrayRef<int64_t> aBatch = p.aBatch, bBatch = p.bBatch;
  const SmallVector<int64_t> *batchShape = &p.batchShape;
  int64_t M = p.M, N = p.N, K = p.K, batch = p.batch;
  const MatmulConfig &cfg = p.config;
  int64_t BM = cfg.blockM, BN = cfg.blockN, BK = cfg.blockK;
  int64_t gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
  int64_t slices = partials ? cfg.splitK : 1;
  SmallVector<NamedAttribute> blocks{blockAttr(builder, "BLOCK_M", BM),
                                     blockAttr(builder, "BLOCK_N", BN),
                                     blockAttr(builder, "BLOCK_K", BK)};
  if (partials)
    blocks.push_back(blockAttr(builder, "SPLIT_K", slices));
  KernelContext kc =
      partials
          ? makeKernelWithParams(builder, group, name, {}, {partialsType(p, builder.getContext())},
                                 {gm, gn, slices * batch}, cfg.numWarps, blocks, cfg.numStages)
          : makeKernel(builder, group, name, {gm, gn, batch}, cfg.numWarps, blocks, cfg.numStages);
  // Bounded symbolic dims: programs along x cover M's rows in order (BLOCK_M each), along z
  // the matrices; a run at a smaller value needs only those of the prefix (tile.symgrid).
  // Rows that follow the symbol in every matrix of a batch (x [B, seq, K] at B > 1: the
  // symbol behind the batch dim) shrink x alike, z staying whole: the lowerings number the
  // run's tiles over x and y per matrix (mma.sync) or per run tile count (wgmma).
  // Split-K partials too along x (the partial rows past the run are never summed into an
  // element the run reads back); their z is slice-major, so not along z.
  if (group->getNumResults() == 1 && outType.getRank() >= 2)
    if (auto sd = groupResultSymDim(group, 0)) {
      Builder ab(builder.getContext());
      int64_t r = outType.getRank();
      if (sd->axis == r - 2 && M % sd->max == 0)
        kc.kernel->setAttr(tl::kSymGridAttrName,
                           ab.getDenseI64ArrayAttr({0, sd->symbol, M / sd->max, BM, 1}));
      else if (!partials && sd->axis < r - 2 && batch % sd->max == 0 &&
               llvm::all_of(outType.getShape().take_front(sd->axis),
                            [](int64_t d) { return d == 1; }))
        kc.kernel->setAttr(tl::kSymGridAttrName,
                           ab.getDenseI64ArrayAttr({2, sd->symbol, batch / sd->max, 1, 1}));
      // The run's symbol values (GPU targets): a persistent lowering loops over the run's
      // tiles only (ConvertTileDotToWGMMA.cpp).
      if (auto in = group->getAttrOfType<IntegerAttr>(kSymbolValuesInputAttrName);
          in && kc.kernel->hasAttr(tl::kSymGridAttrName))
        kc.kernel->setAttr(tl::kSymValuesAttrName, ab.getI64IntegerAttr(in.getInt()));
    }
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
  Value pidZ = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
  // Split-K: the slice and the matrix of program z.
  Value pidB = pidZ, slice;
  if (slices > 1) {
    slice = batch == 1 ? pidZ : arith::DivSIOp::create(b, loc, pidZ, t2.i32(batch)).getResult();
    pidB = batch == 1 ? t2.i32(0) : arith::RemSIOp::create(b, loc, pidZ, t2.i32(batch)).getResult();
  }
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
  // A 1-D operand is one matrix of 1 x K (A) or K x 1 (B). A split-K slice loops over its
  // own K range from k = 0, its first k block added to each load's k (the loop keeps the
  // constant bounds from 0 that the tensor-core lowerings match).
  int64_t numA = numElements(aBatch), numB = numElements(bBatch);
  int64_t sliceK = K;
  Value kBase; // the slice's first k (split-K only)
  if (slices > 1) {
    int64_t numK = (K + BK - 1) / BK;
    sliceK = (numK + slices - 1) / slices * BK;
    kBase = scalarMul(slice, sliceK);
  }
  Value zeroAcc = t2.splatF(acc, 0.0);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value cK = arith::ConstantIndexOp::create(b, loc, sliceK);
  Value cBK = arith::ConstantIndexOp::create(b, loc, BK);
  // Norm prologue: the sum of squares of each of the BM rows of A, carried beside the
  // accumulator (the loop's second value; the tensor-core lowerings match this shape).
  // A LayerNorm's sums are f64 (sum(x^2) / K - mu^2 cancels as |mu| / std grows:
  // docs/fusion.md), and the sum of each row of x is the loop's third value.
  Type sumElem = p.columnSums ? b.getF64Type() : acc;
  auto rowT = RankedTensorType::get({BM}, acc), sumRowT = RankedTensorType::get({BM}, sumElem);
  auto splatOf = [&](RankedTensorType t, double v) -> Value {
    Type e = t.getElementType();
    return tl::SplatOp::create(b, loc, t,
                               arith::ConstantOp::create(b, loc, e, b.getFloatAttr(e, v)));
  };
  auto splatRow = [&](double v) { return splatOf(rowT, v); };
  auto splatSum = [&](double v) { return splatOf(sumRowT, v); };
  SmallVector<Value> inits{zeroAcc};
  if (p.rowNorm)
    inits.push_back(splatSum(0.0));
  if (p.columnSums)
    inits.push_back(splatSum(0.0));
  auto loop = scf::ForOp::create(b, loc, c0, cK, cBK, inits);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value k0 = arith::IndexCastOp::create(lb, loc, lb.getI32Type(), loop.getInductionVar());
    if (kBase)
      k0 = arith::AddIOp::create(lb, loc, k0, kBase);
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
    SmallVector<Value> yields{next};
    if (p.rowNorm) {
      // Rows past M and columns past K load zeros: they add nothing.
      auto wide = RankedTensorType::get({BM, BK}, sumElem);
      Value x = inElem == sumElem ? aTile : arith::ExtFOp::create(lb, loc, wide, aTile).getResult();
      Value sq = arith::MulFOp::create(lb, loc, x, x);
      Value rowSum =
          tl::ReduceOp::create(lb, loc, sumRowT, sq, lb.getI32IntegerAttr(1),
                               tl::ReduceKindAttr::get(lb.getContext(), tl::ReduceKind::add));
      yields.push_back(arith::AddFOp::create(lb, loc, loop.getRegionIterArg(1), rowSum));
      if (p.columnSums) {
        Value xSum =
            tl::ReduceOp::create(lb, loc, sumRowT, x, lb.getI32IntegerAttr(1),
                                 tl::ReduceKindAttr::get(lb.getContext(), tl::ReduceKind::add));
        yields.push_back(arith::AddFOp::create(lb, loc, loop.getRegionIterArg(2), xSum));
      }
    }
    scf::YieldOp::create(lb, loc, yields);
  }
  Value result = loop.getResult(0);
  if (p.columnSums) {
    // LayerNorm: r (x @ B - mu c), mu = S1 / K, var = max(S2 / K - mu^2, 0), r = 1 /
    // sqrt(var + epsilon) in f64 (the sums' type), then rounded to the accumulator's; c the
    // column sums of B loaded as a bias is.
    Value mu = arith::DivFOp::create(b, loc, loop.getResult(2), splatSum((double)K));
    Value ex2 = arith::DivFOp::create(b, loc, loop.getResult(1), splatSum((double)K));
    Value var = arith::MaximumFOp::create(
        b, loc, arith::SubFOp::create(b, loc, ex2, arith::MulFOp::create(b, loc, mu, mu)),
        splatSum(0.0));
    Value denom = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, var,
                              splatSum(LayerNormOp(p.rowNorm).getEpsilon().convertToDouble())));
    Value r = arith::DivFOp::create(b, loc, splatSum(1.0), denom);
    if (sumElem != acc) {
      mu = arith::TruncFOp::create(b, loc, rowT, mu);
      r = arith::TruncFOp::create(b, loc, rowT, r);
    }
    auto c = loadOperand(t2, kc, p.columnSums, ArrayRef<int64_t>{M, N}, ArrayRef<Value>{rm2, rn2},
                         outMask);
    if (failed(c))
      return failure();
    Value cT = *c;
    auto wide = RankedTensorType::get({BM, BN}, acc);
    if (cast<RankedTensorType>(cT.getType()).getElementType() != acc)
      cT = arith::ExtFOp::create(b, loc, wide, cT);
    Value centered =
        arith::SubFOp::create(b, loc, result, arith::MulFOp::create(b, loc, t2.along(mu, 0), cT));
    result = arith::MulFOp::create(b, loc, centered, t2.along(r, 0));
  } else if (p.rowNorm) {
    // r = 1 / sqrt(sum / K + epsilon) per row (one division per row, a multiply per
    // element, as the row kernel), applied to the accumulator before the epilogue.
    Value mean = arith::DivFOp::create(b, loc, loop.getResult(1), splatRow((double)K));
    Value denom = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, mean,
                              splatRow(LayerNormOp(p.rowNorm).getEpsilon().convertToDouble())));
    Value r = arith::DivFOp::create(b, loc, splatRow(1.0), denom);
    result = arith::MulFOp::create(b, loc, result, t2.along(r, 0));
  }

  if (partials) {
    // The slice's f32 accumulator as it is: the sum kernel applies the epilogue.
    tl::BlockStoreOp::create(b, loc, kc.outParams[0], pidZ, m0, n0, result,
                             ArrayRef<int64_t>{slices * batch, M, N});
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }

  // Output index per dim of the real output shape: batch dims from pidB (scalar splat),
  // then M and N (either may be squeezed away for 1-D matmul operands).
  SmallVector<int64_t> fullShape(outType.getShape());
  if (p.evenSlice)
    fullShape = SmallVector<int64_t>(
        cast<RankedTensorType>(p.evenSlice->getOperand(0).getType()).getShape());
  ArrayRef<int64_t> outShape = fullShape;
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

  // Column pairs: the epilogue's [.., M, N / 2] values live at the accumulator's even
  // columns (column c holds output column c / 2; its odd neighbour c + 1 is swap_pairs's).
  ColumnPairs pairs;
  Value half;
  if (p.evenSlice) {
    if (bT.getRank() == 1)
      return group.emitError("column pairs of a matrix-vector product"), failure();
    pairs.even = p.evenSlice;
    pairs.odd = p.oddSlice;
    pairs.shape = SmallVector<int64_t>(outType.getShape());
    half = arith::ShRUIOp::create(b, loc, rn2, t2.splatI32(1));
    Value even = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, loc, rn2, t2.splatI32(1)), t2.splatI32(0));
    pairs.mask = arith::AndIOp::create(b, loc, outMask, even);
    pairs.idx.assign(idx.begin(), idx.end());
    pairs.idx.back() = half;
  }
  auto fused = applyMatmulEpilogue(t2, kc, p, result, outShape, idx, outMask,
                                   p.evenSlice ? &pairs : nullptr);
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
  if (p.evenSlice) {
    // Only the even columns, at row-major [batch, M, N / 2] offsets ((pidB * M + row) *
    // (N / 2) + col / 2: below 2^31, as the output's element count is).
    Value rowBase = arith::AddIOp::create(b, loc, t2.splat(scalarMul(pidB, M)), rm2);
    Value offs = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rowBase, t2.splatI32(N / 2)), half);
    t2.store(outBuf, offs, outTile, pairs.mask);
    func::ReturnOp::create(b, loc);
    return kc.kernel;
  }
  tl::BlockStoreOp::create(b, loc, outBuf, batch == 1 ? t2.i32(0) : pidB, m0, n0, outTile,
                           ArrayRef<int64_t>{batch, M, N});
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

/// The second kernel of a split-K group: 1-D programs of BLOCK output elements (the
/// elementwise template's shape, which the register path lowers), each summing the
/// split_k partials of its elements in slice order (the same order on every target and
/// every run), then applying the epilogue and storing the group's result.
static FailureOr<func::FuncOp> buildSplitKSum(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, const MatmulProblem &p) {
  int64_t slices = p.config.splitK;
  int64_t total = p.outType.getNumElements();
  int64_t block = std::min<int64_t>(1024, std::max<int64_t>(128, llvm::PowerOf2Ceil(total)));
  int64_t programs = (total + block - 1) / block;
  KernelContext kc = makeKernelWithParams(
      builder, group, name, {partialsType(p, builder.getContext())}, {p.outType}, {programs, 1, 1},
      4, {blockAttr(builder, "BLOCK", block), blockAttr(builder, "SPLIT_K", slices)});
  // Bounded symbolic dims: programs cover the output's flat elements in order.
  setFlatSymGrid(kc, 0, block, 1);
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  Location loc = p.anchor->getLoc();
  TileBuilder tb{b, loc, {block}};
  Value pid = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value base = arith::MulIOp::create(b, loc, pid, tb.i32(block));
  Value offs = arith::AddIOp::create(b, loc, tb.splat(base), tb.range(block));
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, offs, tb.splatI32(total));
  Value partialsBuf = kc.inParams.back();
  Type f32 = computeType(p.aT.getElementType()); // the accumulator's type
  Value sum = tb.load(partialsBuf, offs, mask, f32);
  for (int64_t s = 1; s < slices; ++s) {
    Value at = arith::AddIOp::create(b, loc, offs, tb.splatI32(s * total));
    sum = arith::AddFOp::create(b, loc, sum, tb.load(partialsBuf, at, mask, f32));
  }
  ArrayRef<int64_t> outShape = p.outType.getShape();
  SmallVector<Value> idx = tb.delinearize(offs, outShape);
  auto fused = applyMatmulEpilogue(tb, kc, p, sum, outShape, idx, mask);
  if (failed(fused))
    return failure();
  tb.store(kc.outParams[0], offs, *fused, mask);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

FailureOr<func::FuncOp> buildMatmul(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                    const TemplateOptions &options) {
  auto problem = analyzeMatmul(group, options);
  if (failed(problem))
    return failure();
  if (problem->config.splitK != 1)
    return group.emitError("internal: a split-K matmul group is two kernels "
                           "(buildMatmulKernels)"),
           failure();
  return buildMatmulTiles(builder, group, name, *problem, /*partials=*/false);
}

FailureOr<GroupKernels> buildMatmulKernels(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                           const TemplateOptions &options) {
  auto problem = analyzeMatmul(group, options);
  if (failed(problem))
    return failure();
  const MatmulProblem &p = *problem;
  using Buffer = GroupKernels::Buffer;
  GroupKernels plan;
  unsigned nIn = group.getInputs().size();
  auto inputs = [&] {
    SmallVector<Buffer> bufs;
    for (unsigned i = 0; i < nIn; ++i)
      bufs.push_back({Buffer::Input, i});
    return bufs;
  };
  if (p.config.splitK == 1) {
    auto kernel = buildMatmulTiles(builder, group, name, p, /*partials=*/false);
    if (failed(kernel))
      return failure();
    SmallVector<Buffer> bufs = inputs();
    bufs.push_back({Buffer::Result, 0});
    plan.launches.push_back({*kernel, bufs});
    return plan;
  }
  plan.temps.push_back(partialsType(p, builder.getContext()));
  auto partials =
      buildMatmulTiles(builder, group, (name + kSplitKPartialsSuffix).str(), p, /*partials=*/true);
  if (failed(partials))
    return failure();
  auto sum = buildSplitKSum(builder, group, name, p);
  if (failed(sum))
    return failure();
  SmallVector<Buffer> first = inputs(), second = inputs();
  first.push_back({Buffer::Temp, 0});
  second.push_back({Buffer::Temp, 0});
  second.push_back({Buffer::Result, 0});
  plan.launches.push_back({*partials, first});
  plan.launches.push_back({*sum, second});
  return plan;
}

} // namespace aicc::templates
