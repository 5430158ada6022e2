//===- AttentionTemplate.cpp - graph.attention -> its FlashAttention kernels ------===//
//
// The FlashAttention forward pass (Dao et al., "FlashAttention: Fast and Memory-Efficient
// Exact Attention with IO-Awareness", 2022, in FlashAttention-2's loop order: Dao, 2023,
// Algorithm 1 -- the query block outside, the key / value blocks inside). The tile form
// follows Triton's fused-attention tutorial (python/tutorials/06-fused-attention.py); the
// code is our own. buildAttentionKernels checks the group and picks the kernels: the cpu
// target's two-pass kernel (AttentionCPUTemplate.cpp), or on GPU targets the one-pass form
// (AttentionGPUTemplate.cpp) with the blocks of the lowering that will take it (the
// FlashAttention-3 wgmma kernel on sm_90a, else the mma.sync one; decode's few queries one
// warp per 16), and whether the keys are split across programs (flash-decoding: the
// partials, then AttentionCombineTemplate.cpp's combine kernel).
//
//===----------------------------------------------------------------------===//
#include "AttentionKernels.h"

#include "aicc/Target/Chip.h"
#include "aicc/Target/TensorCoreRules.h"

namespace aicc::templates {

FailureOr<GroupKernels> buildAttentionKernels(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, const TemplateOptions &opts) {
  Block &body = group.getBody().front();
  AttentionOp att;
  for (Operation &op : body.without_terminator())
    if (auto a = dyn_cast<AttentionOp>(op))
      att = a;
  if (!att)
    return group.emitError("attention group must hold graph.attention"), failure();
  if (group.getNumResults() != 1)
    return group.emitError("an attention group has one result, got ") << group.getNumResults(),
           failure();
  // Ops after the attention: its elementwise epilogue (GraphFuse's consumer chain), or on
  // GPU targets the head merge (checked by the GPU form).
  for (Operation *op = att->getNextNode(); op && !isa<YieldOp>(op); op = op->getNextNode())
    if (!isElementwise(op) && !isa<TransposeOp>(op))
      return op->emitError("attention kernel cannot apply ")
                 << op->getName() << " after the attention",
             failure();
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  int64_t Sq = att.getQueryLength(), Skv = att.getKeyLength(), D = att.getHeadSize(),
          Dv = att.getValueHeadSize();
  int64_t batch = numElements(batchShape);
  if (D > kMaxAttentionHeadSize || Dv > kMaxAttentionHeadSize)
    return att.emitError("attention head sizes up to ")
               << kMaxAttentionHeadSize << " are supported, got D = " << D << ", Dv = " << Dv,
           failure();
  for (Value v : att->getOperands())
    if (cast<RankedTensorType>(v.getType()).getNumElements() >= (int64_t(1) << 31))
      return att.emitError("attention operand exceeds 2^31 elements (i32 offsets)"), failure();
  if (yT.getNumElements() >= (int64_t(1) << 31))
    return att.emitError("attention result exceeds 2^31 elements (i32 offsets)"), failure();
  if (Skv == 0 && Sq != 0 && Dv != 0 && batch != 0)
    return att.emitError("graph.attention over no keys (Skv = 0) is not supported (an empty "
                         "contraction: the matmul templates refuse it too)"),
           failure();
  if (opts.attentionKVSplits < 0 || opts.attentionKVSplits > kMaxAttentionKVSplits)
    return att.emitError("attention-kv-splits must be in [0, ")
               << kMaxAttentionKVSplits << "], got " << opts.attentionKVSplits,
           failure();
  using Buffer = GroupKernels::Buffer;
  GroupKernels plan;
  SmallVector<Buffer> inputs;
  for (unsigned i = 0; i < group.getInputs().size(); ++i)
    inputs.push_back({Buffer::Input, i});
  auto single = [&](FailureOr<func::FuncOp> kernel) -> FailureOr<GroupKernels> {
    if (failed(kernel))
      return failure();
    SmallVector<Buffer> bufs = inputs;
    bufs.push_back({Buffer::Result, 0});
    plan.launches.push_back({*kernel, bufs});
    return plan;
  };
  if (Sq == 0 || Dv == 0 || batch == 0) {
    // Nothing to write: one program whose store is fully masked would still need tiles of
    // size >= 1; an empty kernel is the whole answer.
    KernelContext kc = makeKernel(builder, group, name, {1, 1, 1}, 1, {});
    OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
    func::ReturnOp::create(b, att.getLoc());
    return single(kc.kernel);
  }
  // A shape bucket's kernels (attentionShapeBuckets: GPU targets, 16-bit operands) cover
  // the first `queryRows` query rows only: every choice below is made for that many queries.
  int64_t queryRows = Sq;
  if (opts.attentionRunQueriesMax > 0) {
    auto rl = att->getAttrOfType<DenseI64ArrayAttr>(kRunLengthsAttrName);
    if (!rl || rl.size() != 4 || rl[0] < 0)
      return att.emitError("attention kernels for at most ")
                 << opts.attentionRunQueriesMax
                 << " queries (a shape bucket) need queries of run-time length ("
                 << kRunLengthsAttrName << ")",
             failure();
    queryRows = std::min(Sq, opts.attentionRunQueriesMax);
  }
  // The key slices (1: none) of a kernel of `programs` programs over blocks of `blockN`
  // keys, `threads` threads and `sharedBytes` of shared memory each: the option's, capped
  // so every slice has a key block, or on GPUs the heuristic's.
  const ChipInfo *chip = lookupChip(opts.target);
  bool gpu = chip && chip->isGPU;
  int64_t splits = 1, splitBlocks = 0;
  auto chooseSplits = [&](int64_t programs, int64_t blockN, int64_t threads,
                          int64_t sharedBytes) -> LogicalResult {
    int64_t keyBlocks = llvm::divideCeil(Skv, blockN);
    splits = opts.attentionKVSplits;
    if (splits == 0)
      splits = gpu ? chooseAttentionKVSplits(programs, keyBlocks, threads, sharedBytes,
                                             hardwareChip(opts))
                   : 1;
    splits = std::min(splits, keyBlocks);
    splitBlocks = llvm::divideCeil(keyBlocks, splits);
    splits = llvm::divideCeil(keyBlocks, splitBlocks); // no empty slice
    if (splits > 1 &&
        splitPartialTypes(att, splits, queryRows).first.getNumElements() >= (int64_t(1) << 31))
      return att.emitError("attention key slices: ")
                 << splits << " partial outputs exceed 2^31 elements (i32 offsets)",
             failure();
    return success();
  };
  // (`queryRows`: the query rows the kernels cover, Sq but for a shape bucket's GPU kernels.)
  // (`tensorCore`: the partials are the GPU tensor-core kernel's, stored without the
  // group's epilogue, which the combine then does not apply either; the cpu template's
  // partials, f32 GPU attention's too, leave the epilogue to the combine.)
  auto splitPlan = [&](FailureOr<func::FuncOp> partials, int64_t queryRows,
                       bool tensorCore) -> FailureOr<GroupKernels> {
    if (failed(partials))
      return failure();
    auto combine = buildAttentionCombine(builder, group, name, att, splits, queryRows, tensorCore);
    if (failed(combine))
      return failure();
    auto [partialT, lseT] = splitPartialTypes(att, splits, queryRows);
    plan.temps = {partialT, lseT};
    SmallVector<Buffer> first = inputs, second = inputs;
    for (unsigned t = 0; t < 2; ++t) {
      first.push_back({Buffer::Temp, t});
      second.push_back({Buffer::Temp, t});
    }
    second.push_back({Buffer::Result, 0});
    plan.launches.push_back({*partials, first});
    plan.launches.push_back({*combine, second});
    return plan;
  };
  std::string partialsName = (name + kSplitKPartialsSuffix).str();
  // The cpu template reads the run's lengths (bounded symbolic dims) in one pass over the
  // keys only: no key slices there.
  bool runLengths = att->hasAttr(kRunLengthsAttrName);
  auto cpuTemplateSplits = [&](int64_t blockN) -> LogicalResult {
    if (runLengths && opts.attentionKVSplits > 1)
      return att.emitError("attention-kv-splits=")
                 << opts.attentionKVSplits
                 << ": this attention over a sequence of run-time length runs in one pass "
                    "over the keys on this target (no key slices)",
             failure();
    if (failed(chooseSplits(0, blockN, 0, 0)))
      return failure();
    if (runLengths)
      splits = 1;
    return success();
  };
  Type qe = cast<RankedTensorType>(att.getQuery().getType()).getElementType();
  if (queryRows != Sq && (!gpu || qe.isF32()))
    return att.emitError("attention kernels for at most ")
               << queryRows << " queries (a shape bucket): only the GPU tensor-core form",
           failure();
  if (!gpu) {
    if (failed(cpuTemplateSplits(blockOf(Skv, kAttentionBlockN))))
      return failure();
    if (splits == 1)
      return single(buildAttentionCPU(builder, group, name, att, 1, 0));
    return splitPlan(buildAttentionCPU(builder, group, partialsName, att, splits, splitBlocks), Sq,
                     /*tensorCore=*/false);
  }
  // GPU targets, f32 operands: the cpu template's program in blocks the generic lowering's
  // shared memory holds (attentionSimtProblem, TensorCoreRules.h).
  if (qe.isF32()) {
    if (failed(cpuTemplateSplits(blockOf(Skv, kAttentionSimtBlockN))))
      return failure();
    if (splits == 1)
      return single(buildAttentionCPU(builder, group, name, att, 1, 0, kAttentionSimtBlockM,
                                      kAttentionSimtBlockN));
    return splitPlan(buildAttentionCPU(builder, group, partialsName, att, splits, splitBlocks,
                                       kAttentionSimtBlockM, kAttentionSimtBlockN),
                     Sq, /*tensorCore=*/false);
  }
  // GPU targets: the FlashAttention-2 form of convert-tile-attention-to-mma-sync.
  AttentionShape shape;
  bool same = llvm::all_of(att->getOperands(), [&](Value v) {
    return v == att.getKeyBound() || cast<RankedTensorType>(v.getType()).getElementType() == qe;
  });
  shape.operand = same ? tensorCoreOperandOf(qe, false) : TensorCoreOperand::Other;
  shape.headSize = D;
  shape.valueHeadSize = Dv;
  shape.keyLength = Skv;
  shape.batch = batch;
  if (Value bias = att.getBias()) {
    auto bT = cast<RankedTensorType>(bias.getType());
    shape.bias = true;
    shape.biasAlongRows = bT.getRank() >= 2 && bT.getShape().end()[-2] != 1;
  }
  // K^T as K's rows through the transposes graph-fuse put into the group (the view
  // buildAttentionGPU reads: through the group's views, from a kernel input).
  auto view = attentionOperandView(
      att.getKeyT(), 1, [&](Operation *d) { return d->getBlock() == &body; },
      [](Value root) { return isa<BlockArgument>(root); });
  shape.keyRowMajor = view && view->keyRows;
  // The result itself, or its head merge (GraphFuse's gpuAttentionHeadMerge).
  Operation *next = att->getNextNode();
  if (auto t = dyn_cast<TransposeOp>(next);
      t && t.getInput() == att.getResult() && attentionResultRowDim(t))
    next = t->getNextNode();
  shape.plainOutput = next && isa<YieldOp>(next) && yT.getElementType() == qe;
  std::string why = attentionMmaSyncProblem(shape, *chip);
  if (!why.empty())
    return att.emitError("the ") << chip->name << " attention kernel does not take this "
                                 << "graph.attention: " << why,
           failure();
  // sm_90a: the FlashAttention-3 form of convert-tile-attention-to-wgmma (128 x 128 blocks,
  // three warpgroups) where it takes the attention, the queries are more than a decode
  // step's, no --attention-block-m asks for the mma.sync kernel and no split is asked for --
  // unless its CTAs would be at most half full of queries and too few to fill the GPU without
  // a split (packed grouped-query decode: 16 queries x 4 heads over a long cache): the
  // mma.sync kernel's 64-row blocks and split keys fill it.
  auto wgmmaFills = [&] {
    if (opts.attentionKVSplits == 1 || queryRows > kAttentionWgmmaBlockM / 2)
      return true;
    int64_t programs = (int64_t)llvm::divideCeil(queryRows, kAttentionWgmmaBlockM) * batch;
    return chooseAttentionKVSplits(programs, llvm::divideCeil(Skv, kAttentionWgmmaBlockN),
                                   128 * (kAttentionWgmmaWarps / 4 + 1),
                                   attentionWgmmaSharedBytes(D, Dv), hardwareChip(opts)) == 1;
  };
  if (opts.attentionBlockM == 0 && opts.attentionKVSplits <= 1 &&
      queryRows > kAttentionDecodeMaxQueries && attentionWgmmaProblem(shape, *chip).empty() &&
      wgmmaFills())
    return single(buildAttentionGPU(builder, group, name, att,
                                    {kAttentionWgmmaBlockM, kAttentionWgmmaBlockN,
                                     kAttentionWgmmaWarps, 1, 0, queryRows,
                                     /*keyBound=*/true}));
  // The mma.sync kernel: 64 or 128 rows as asked; decode (at most 32 queries) one warp per
  // 16 of them, at least two for D + Dv >= 256 (one warp issuing all 32 16-byte copies per
  // thread of a 64-key block of D = Dv = 128 spilled 8 bytes in ptxas 13.0 with split keys).
  // Heads over 128 (up to 256: Gemma) take 8 warps where the shared memory holds their
  // 128-row Q block: with 16 x 256 f32 accumulators a thread, fewer warps issuing a 64-key
  // block's copies spilled (ptxas 13.0, D = 256: 264 bytes at 2 warps, 16 at 4, 0 at 8).
  int64_t blockM = opts.attentionBlockM;
  if (blockM == 0 && std::max(D, Dv) > kAttentionMmaSyncQInRegistersMaxHeadSize)
    blockM = attentionMmaSyncSharedBytes(128, D, Dv) <= chip->sharedMemPerBlockBytes
                 ? 128
                 : kAttentionMmaSyncBlockM;
  else if (blockM == 0)
    blockM = queryRows <= kAttentionDecodeMaxQueries
                 ? std::max<int64_t>(D + Dv >= 256 ? 32 : 16, llvm::PowerOf2Ceil(queryRows))
                 : kAttentionMmaSyncBlockM;
  else if (blockM != 64 && blockM != 128)
    return att.emitError("attention-block-m must be 64 or 128, got ") << blockM, failure();
  int64_t sharedBytes = attentionMmaSyncSharedBytes(blockM, D, Dv);
  if (sharedBytes > chip->sharedMemPerBlockBytes)
    return att.emitError("attention-block-m ")
               << blockM << ": the Q block and two K / V stages exceed the shared memory per block",
           failure();
  GPUAttentionConfig cfg{blockM, kAttentionMmaSyncBlockN, blockM / 16, 1, 0, queryRows, true};
  if (failed(chooseSplits((int64_t)llvm::divideCeil(queryRows, blockM) * batch, cfg.blockN,
                          32 * cfg.numWarps, sharedBytes)))
    return failure();
  if (splits == 1)
    return single(buildAttentionGPU(builder, group, name, att, cfg));
  cfg.splits = splits;
  cfg.splitBlocks = splitBlocks;
  return splitPlan(buildAttentionGPU(builder, group, partialsName, att, cfg), queryRows,
                   /*tensorCore=*/true);
}

} // namespace aicc::templates

using namespace aicc::templates;

llvm::SmallVector<aicc::AttentionShapeBucket>
aicc::attentionShapeBuckets(FusionGroupOp group, const TemplateOptions &opts, int64_t maxBuckets) {
  const ChipInfo *chip = lookupChip(opts.target);
  if (maxBuckets < 2 || !chip || !chip->isGPU || opts.attentionBlockM != 0 ||
      opts.attentionKVSplits == 1 || opts.attentionRunQueriesMax != 0)
    return {};
  AttentionOp att;
  for (Operation &op : group.getBody().front().without_terminator())
    if (auto a = dyn_cast<AttentionOp>(op))
      att = a;
  if (!att)
    return {};
  // Queries of run-time length (the kernels read the run's Sq) and the symbol's range.
  auto rl = att->getAttrOfType<DenseI64ArrayAttr>(kRunLengthsAttrName);
  auto sd = att->getAttrOfType<DenseI64ArrayAttr>(kAnchorSymDimAttrName);
  if (!rl || rl.size() != 4 || rl[0] < 0 || rl[1] < 1 || !sd || sd.size() != 5 || sd[1] != rl[0] ||
      sd[2] != rl[1] || sd[3] < 1 || sd[3] > sd[4])
    return {};
  // The tensor-core kernels' operands (the f32 form reads the run's lengths in one pass).
  Type qe = cast<RankedTensorType>(att.getQuery().getType()).getElementType();
  if (!qe.isF16() && !qe.isBF16())
    return {};
  // The decode kernel for the values of at most 16 queries (one warp's rows), where the
  // bound runs more than decode's queries.
  constexpr int64_t kDecodeBucketQueries = 16;
  int64_t factor = rl[1], min = sd[3], max = sd[4];
  int64_t hi = kDecodeBucketQueries / factor;
  if (att.getQueryLength() <= kAttentionDecodeMaxQueries || hi < min || hi >= max)
    return {};
  return {{rl[0], min, hi, hi * factor}, {rl[0], hi + 1, max, 0}};
}
