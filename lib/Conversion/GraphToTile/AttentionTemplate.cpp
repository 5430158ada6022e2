//===- AttentionTemplate.cpp - graph.attention -> one FlashAttention kernel ------===//
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
// and is NaN, as ONNX's softmax makes it; exp(-inf - -inf) is never evaluated. Products
// accumulate in f32 (f16 / bf16 operands are loaded as f32; f64 ones stay f64). Q, K^T, V
// and the bias are read through the views in the group (K^T = transpose(K), heads split
// from [B, S, H, D]) by index arithmetic (loadView); elementwise consumers of the output (a
// cast) are applied before the store.
//
// Split keys (flash-decoding; TemplateOptions::attentionKVSplits, chooseAttentionKVSplits on
// GPUs): the group is two kernels, NAME_partials (program_id(2) runs one slice of the key
// blocks and stores its f32 O / l and log-sum-exp) and NAME (buildAttentionCombine), the
// same on the cpu target (its two passes over the slice) and the GPU ones (the one-pass
// form below).
//
//===----------------------------------------------------------------------===//
#include "TemplateSupport.h"

#include "aicc/Dialect/Graph/IR/AttentionOperands.h"
#include "aicc/Target/Chip.h"
#include "aicc/Target/TensorCoreRules.h"

namespace aicc::templates {

namespace {
/// Most rows / keys per block (the cpu target's tiles; the GPU lowering picks its own).
constexpr int64_t kAttentionBlockM = 64;
constexpr int64_t kAttentionBlockN = 64;
/// Largest head size (D, Dv) the template holds in one tile.
constexpr int64_t kMaxAttentionHeadSize = 512;

int64_t blockOf(int64_t n, int64_t cap) {
  return std::min<int64_t>(cap, (int64_t)llvm::PowerOf2Ceil(std::max<int64_t>(1, n)));
}
} // namespace

namespace {
/// A batch of row-major matrices of a kernel buffer as a program's block loads and stores
/// address them: tile.block_load's dims, the program's matrix `batch` and column offset.
struct Matrix {
  Value param, batch, col;
  SmallVector<int64_t> dims;
  bool keyRows = false;
};

/// The program's index in each batch dim of the attention's result (i32 scalars, from the
/// flat program id `pidB`, row-major), and the block matrices of views at them.
struct BatchIndexing {
  OpBuilder &b;
  Location loc;
  SmallVector<int64_t> shape;
  SmallVector<Value> idx;

  BatchIndexing(OpBuilder &b, Location loc, Value pidB, ArrayRef<int64_t> batchShape)
      : b(b), loc(loc), shape(batchShape) {
    auto strides = rowMajorStrides(batchShape);
    for (size_t d = 0; d < batchShape.size(); ++d) {
      Value q = arith::DivSIOp::create(b, loc, pidB, i32(strides[d]));
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, i32(batchShape[d]));
      idx.push_back(q);
    }
  }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }

  /// `view` (AttentionOperands.h) of a value of `shape` as blocks of `param`'s matrices:
  /// the program's matrix and column offset from its batch indices (numpy broadcast:
  /// right-aligned, size-1 dims pinned to 0).
  Matrix matrixAt(Value param, const AttentionOperandView &view, ArrayRef<int64_t> vshape) {
    Matrix m{param, i32(view.batch), i32(view.col), {}, view.keyRows};
    m.dims.assign(view.dims.begin(), view.dims.end());
    size_t off = shape.size() - (vshape.size() - 2);
    // ((idx / div) % size) * step per term; size-1 dims are pinned to 0 (broadcast).
    auto addTerms = [&](Value &acc, ArrayRef<AttentionIndexTerm> terms) {
      for (const AttentionIndexTerm &t : terms) {
        if (vshape[t.dim] == 1)
          continue;
        Value x = idx[off + t.dim];
        if (t.div > 1)
          x = arith::DivSIOp::create(b, loc, x, i32(t.div));
        if (t.div * t.size < vshape[t.dim])
          x = arith::RemSIOp::create(b, loc, x, i32(t.size));
        acc = arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, x, i32(t.step)));
      }
    };
    addTerms(m.batch, view.batchTerms);
    addTerms(m.col, view.colTerms);
    return m;
  }
};

/// How the GPU kernel runs one attention: the mma.sync or wgmma form's blocks and warps, and
/// the key slices (flash-decoding) with `splitBlocks` key blocks each (1: one slice).
struct GPUAttentionConfig {
  int64_t blockM = 0, blockN = 0, numWarps = 0;
  int64_t splits = 1, splitBlocks = 0;
};
} // namespace

/// The temporaries of an attention whose keys are split in `splits` slices: the slices'
/// outputs [splits * batch, Sq, Dv] and log-sum-exps [splits * batch, Sq, 1], slice-major,
/// in the accumulators' type (f32; f64 for f64 operands).
static std::pair<RankedTensorType, RankedTensorType> splitPartialTypes(AttentionOp att,
                                                                       int64_t splits) {
  auto yT = att.getType();
  int64_t rows = splits * numElements(yT.getShape().drop_back(2));
  Type ct = computeType(yT.getElementType());
  return {RankedTensorType::get({rows, att.getQueryLength(), att.getValueHeadSize()}, ct),
          RankedTensorType::get({rows, att.getQueryLength(), 1}, ct)};
}

/// The block matrices the GPU kernels store the result to: its [batch, Sq, Dv] matrices
/// (matrix `pidB`), or through the head merge the group took (transpose [.., H, Sq, Dv] ->
/// [.., Sq, H, Dv], attentionResultRowDim) blocks of its result X's matrices, the head a
/// column offset.
static FailureOr<Matrix> resultMatrix(BatchIndexing &bi, Value outParam, AttentionOp att,
                                      Value pidB, Value zero32) {
  ArrayRef<int64_t> yShape = att.getType().getShape();
  Matrix out{outParam,
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

/// The GPU form (FlashAttention-2's one-pass loop, Dao 2023, Algorithm 1), the form
/// convert-tile-attention-to-mma-sync lowers: Q, K (or K^T) and V as tile.block_load of
/// [batch, rows, cols] matrices, one loop over the key blocks carrying the row max m, the
/// row sum l and the accumulator O (f32):
///
///   s     = scale * Q K^T[:, block], -inf outside the keys and above the causal diagonal
///   m'    = max(m, rowmax(s));  m'' = (m' == -inf ? 0 : m')
///   alpha = exp(m - m'');  p = exp(s - m'')
///   l     = l * alpha + rowsum(p);  O = O * alpha + f16(p) @ V[block, :]
///   y     = O / l
///
/// (the online softmax of Milakov & Gimelshein, 2018). P is rounded to the operands' type
/// before the second product, as the tensor cores take it. The caller checked the rules of
/// attentionMmaSyncProblem (TensorCoreRules.h): 16-bit operands, D and Dv powers of two,
/// no bias, K^T read as K's rows or stored with 16-byte rows, no epilogue. Q, K and V are
/// read through the transposes in the group as blocks of row-major matrices of the kernel
/// inputs (AttentionOperands.h): the head split of [B, S, H, D] is the column offset h * D
/// of the [B, S, H * D] matrices, so no transpose kernel runs before the attention.
///
/// Split keys (cfg.splits > 1, flash-decoding: Dao, Haziza, Massa, Sizov, "Flash-Decoding
/// for long-context inference", 2023): program_id(2) is the slice s, whose loop runs the keys
/// [s * splitBlocks * BLOCK_N, min((s + 1) * splitBlocks * BLOCK_N, Skv)); the program
/// stores O / l in f32 (0 where l = 0: no visible key in the slice) and lse = m + log(l)
/// (-inf there) to the partials (splitPartialTypes) instead of the result.
static FailureOr<func::FuncOp> buildAttentionGPU(OpBuilder &builder, FusionGroupOp group,
                                                 StringRef name, AttentionOp att,
                                                 const GPUAttentionConfig &cfg) {
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
  SmallVector<int64_t> grid = {(int64_t)llvm::divideCeil(Sq, BM), batch, 1};
  auto [partialT, lseT] = splitPartialTypes(att, cfg.splits);
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
  auto matrixOf = [&](unsigned index) -> FailureOr<Matrix> {
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
  Value m0 = arith::MulIOp::create(b, loc, pidM, i32(BM));
  Value zero32 = i32(0);
  Value q = tl::BlockLoadOp::create(b, loc, RankedTensorType::get({BM, D}, elem), qM->param,
                                    qM->batch, m0, qM->col, qM->dims);
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
  auto keyLoop = [&](function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> step) {
    if (!split)
      return chunkLoop(b, loc, Skv, BN, init, step);
    pidS = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(2));
    Value lo = arith::MulIOp::create(b, loc, pidS, i32(cfg.splitBlocks * BN));
    Value hi = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, i32(cfg.splitBlocks * BN)), i32(Skv));
    return rangeLoop(b, loc, lo, hi, BN, init, step);
  };
  auto loop = keyLoop([&](OpBuilder &lb, Value n0, ValueRange carried) {
    TileBuilder ts{lb, loc, {BM, BN}};
    TileBuilder tr{lb, loc, {BM}};
    // K's rows [BN, D] read transposed, or a stored K^T's [D, BN] block (no column
    // offsets: attentionOperandView takes a stored K^T only as plain matrices).
    auto ktT = RankedTensorType::get({D, BN}, elem);
    Value kt = kM->keyRows ? tl::BlockLoadOp::create(lb, loc, ktT, kM->param, kM->batch, n0,
                                                     kM->col, kM->dims, /*transpose=*/true)
                           : tl::BlockLoadOp::create(lb, loc, ktT, kM->param, kM->batch, zero32, n0,
                                                     kM->dims);
    Value s = tl::DotOp::create(lb, loc, ts.tileOf(f32), q, kt, ts.splatF(f32, 0.0), ieee);
    s = arith::MulFOp::create(lb, loc, s, ts.splatF(f32, att.getScale().convertToDouble()));
    TileBuilder tn{lb, loc, {BN}};
    Value cols = arith::AddIOp::create(lb, loc, tn.splat(n0), tn.range(BN));
    Value keep = ts.along(
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, cols, tn.splatI32(Skv)), 1);
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
                                      vM->batch, n0, vM->col, vM->dims);
    Value p16 = arith::TruncFOp::create(lb, loc, ts.tileOf(elem), p);
    Value acc = arith::MulFOp::create(lb, loc, carried[2], rowsToTile(lb, alpha, Dv));
    acc = tl::DotOp::create(lb, loc, acc.getType(), p16, v, acc, ieee);
    return SmallVector<Value>{mNew, l, acc};
  });
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
  y = arith::TruncFOp::create(b, loc, RankedTensorType::get({BM, Dv}, elem), y);
  auto out = resultMatrix(bi, kc.outParams[0], att, pidB, zero32);
  if (failed(out))
    return failure();
  tl::BlockStoreOp::create(b, loc, out->param, out->batch, m0, out->col, y, out->dims);
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}
/// The cpu target's kernel (the file comment's two passes); with `splits` > 1 the program
/// runs key slice program_id(2) of `splitBlocks` blocks and stores the partials
/// (splitPartialTypes, as buildAttentionGPU's).
static FailureOr<func::FuncOp> buildAttentionCPU(OpBuilder &builder, FusionGroupOp group,
                                                 StringRef name, AttentionOp att, int64_t splits,
                                                 int64_t splitBlocks) {
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  int64_t Sq = att.getQueryLength(), Skv = att.getKeyLength(), D = att.getHeadSize(),
          Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  int64_t BM = blockOf(Sq, kAttentionBlockM), BN = blockOf(Skv, kAttentionBlockN);
  int64_t BD = blockOf(D, kMaxAttentionHeadSize), BDV = blockOf(Dv, kMaxAttentionHeadSize);
  bool split = splits > 1;
  SmallVector<NamedAttribute> blocks = {
      blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_N", BN),
      blockAttr(builder, "BLOCK_D", BD), blockAttr(builder, "BLOCK_DV", BDV)};
  SmallVector<int64_t> grid = {(int64_t)llvm::divideCeil(Sq, BM), batch, 1};
  auto [partialT, lseT] = splitPartialTypes(att, splits);
  KernelContext kc;
  if (split) {
    blocks.push_back(blockAttr(builder, "KV_SPLITS", splits));
    grid[2] = splits;
    kc = makeKernelWithParams(builder, group, name, {}, {partialT, lseT}, grid, 4, blocks);
  } else {
    kc = makeKernel(builder, group, name, grid, 4, blocks);
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
    colMask = lessThan(lb, cols, Skv);
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
    Value keep = ts.along(colMask, 1);
    if (att.getCausal()) {
      // Key j is visible from query i when j <= i + (Skv - Sq).
      Value limit = arith::AddIOp::create(lb, loc, ts.along(rows, 0), ts.splatI32(Skv - Sq));
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
  Value fullyMasked = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l,
                                            TileBuilder{b, loc, {BM}}.splatF(ct, 0.0));
  y = arith::SelectOp::create(b, loc, rowsToTile(b, fullyMasked, BDV),
                              to.splatF(ct, std::numeric_limits<double>::quiet_NaN()), y);
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

/// The second kernel of a split attention: one program per (BLOCK_M rows, batch matrix),
/// combining the `splits` slices' partials (splitPartialTypes) of its rows,
///
///   M = max_s lse_s (0 when -inf);  w_s = exp(lse_s - M);  y = sum_s w_s O_s / sum_s w_s
///
/// (the log-sum-exp rescaling of flash-decoding; a row whose every slice saw no key is
/// 0 / 0 = NaN, as the unsplit kernel's), in slice order, then stored as the unsplit kernel
/// stores its result: GPU targets as blocks of the result's matrices (through the head
/// merge), the cpu target with the group's elementwise epilogue applied.
static FailureOr<func::FuncOp> buildAttentionCombine(OpBuilder &builder, FusionGroupOp group,
                                                     StringRef name, AttentionOp att,
                                                     int64_t splits, bool gpu) {
  Location loc = att.getLoc();
  auto yT = att.getType();
  ArrayRef<int64_t> yShape = yT.getShape();
  SmallVector<int64_t> batchShape(yShape.drop_back(2));
  int64_t Sq = att.getQueryLength(), Dv = att.getValueHeadSize(), batch = numElements(batchShape);
  auto [partialT, lseT] = splitPartialTypes(att, splits);
  Type ct = partialT.getElementType();
  // GPU: whole rows of Dv (a power of two there) so the block store writes no other head.
  int64_t BM = blockOf(Sq, 16), BDV = blockOf(Dv, kMaxAttentionHeadSize);
  KernelContext kc =
      makeKernelWithParams(builder, group, name, {partialT, lseT}, {yT},
                           {(int64_t)llvm::divideCeil(Sq, BM), batch, 1}, 4,
                           {blockAttr(builder, "BLOCK_M", BM), blockAttr(builder, "BLOCK_DV", BDV),
                            blockAttr(builder, "KV_SPLITS", splits)});
  OpBuilder b = OpBuilder::atBlockEnd(&kc.kernel.getBody().front());
  double inf = std::numeric_limits<double>::infinity();
  Value pidM = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value pidB = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  TileBuilder tr{b, loc, {BM}};
  TileBuilder to{b, loc, {BM, BDV}};
  Value m0 = arith::MulIOp::create(b, loc, pidM, tr.i32(BM));
  Value rows = arith::AddIOp::create(b, loc, tr.splat(m0), tr.range(BM));
  Value rowMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rows, tr.splatI32(Sq));
  TileBuilder tc{b, loc, {BDV}};
  Value cols = tc.range(BDV);
  Value colMask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cols, tc.splatI32(Dv));
  Value mask = arith::AndIOp::create(b, loc, to.along(rowMask, 0), to.along(colMask, 1));
  Value partials = kc.inParams[kc.inParams.size() - 2], lses = kc.inParams.back();
  // Slice s's rows: partial matrix s * batch + b.
  auto rowOffsets = [&](int64_t s) -> Value {
    Value base = arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, pidB, tr.i32(s * batch)), tr.i32(Sq));
    return arith::AddIOp::create(b, loc, tr.splat(base), rows);
  };
  auto toRows = [&](Value v) -> Value {
    Value e = tl::ExpandDimsOp::create(b, loc, RankedTensorType::get({BM, 1}, ct), v,
                                       b.getI32IntegerAttr(1));
    return tl::BroadcastOp::create(b, loc, to.tileOf(ct), e);
  };
  SmallVector<Value> lse;
  Value M;
  for (int64_t s = 0; s < splits; ++s) {
    lse.push_back(tr.load(lses, rowOffsets(s), rowMask, ct, -inf));
    M = M ? arith::MaximumFOp::create(b, loc, M, lse.back()).getResult() : lse.back();
  }
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, M, tr.splatF(ct, -inf));
  M = arith::SelectOp::create(b, loc, none, tr.splatF(ct, 0.0), M);
  Value den, acc;
  for (int64_t s = 0; s < splits; ++s) {
    Value w = math::ExpOp::create(b, loc, arith::SubFOp::create(b, loc, lse[s], M));
    Value offs = arith::AddIOp::create(
        b, loc, to.along(arith::MulIOp::create(b, loc, rowOffsets(s), tr.splatI32(Dv)), 0),
        to.along(cols, 1));
    Value o = arith::MulFOp::create(b, loc, to.load(partials, offs, mask, ct), toRows(w));
    den = den ? arith::AddFOp::create(b, loc, den, w).getResult() : w;
    acc = acc ? arith::AddFOp::create(b, loc, acc, o).getResult() : o;
  }
  Value y = arith::DivFOp::create(b, loc, acc, toRows(den));
  if (gpu) {
    y = arith::TruncFOp::create(b, loc, to.tileOf(yT.getElementType()), y);
    BatchIndexing bi(b, loc, pidB, batchShape);
    auto out = resultMatrix(bi, kc.outParams[0], att, pidB, tr.i32(0));
    if (failed(out))
      return failure();
    tl::BlockStoreOp::create(b, loc, out->param, out->batch, m0, out->col, y, out->dims);
  } else {
    // The result's indices: the batch dims of pidB, the row, the column.
    SmallVector<Value> idx;
    auto strides = rowMajorStrides(batchShape);
    for (size_t d = 0; d < batchShape.size(); ++d) {
      Value q = arith::DivSIOp::create(b, loc, pidB, tr.i32(strides[d]));
      if (d != 0)
        q = arith::RemSIOp::create(b, loc, q, tr.i32(batchShape[d]));
      idx.push_back(to.splat(q));
    }
    idx.push_back(to.along(rows, 0));
    idx.push_back(to.along(cols, 1));
    auto fused = applyEpilogue(to, kc, att, y, yShape, idx, mask);
    if (failed(fused))
      return failure();
    to.store(kc.outParams[0], to.offsets(idx, rowMajorStrides(yShape)), *fused, mask);
  }
  func::ReturnOp::create(b, loc);
  return kc.kernel;
}

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
    if (splits > 1 && splitPartialTypes(att, splits).first.getNumElements() >= (int64_t(1) << 31))
      return att.emitError("attention key slices: ")
                 << splits << " partial outputs exceed 2^31 elements (i32 offsets)",
             failure();
    return success();
  };
  auto splitPlan = [&](FailureOr<func::FuncOp> partials) -> FailureOr<GroupKernels> {
    if (failed(partials))
      return failure();
    auto combine = buildAttentionCombine(builder, group, name, att, splits, gpu);
    if (failed(combine))
      return failure();
    auto [partialT, lseT] = splitPartialTypes(att, splits);
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
  if (!gpu) {
    if (failed(chooseSplits(0, blockOf(Skv, kAttentionBlockN), 0, 0)))
      return failure();
    if (splits == 1)
      return single(buildAttentionCPU(builder, group, name, att, 1, 0));
    return splitPlan(buildAttentionCPU(builder, group, partialsName, att, splits, splitBlocks));
  }
  // GPU targets: the FlashAttention-2 form of convert-tile-attention-to-mma-sync.
  AttentionShape shape;
  Type qe = cast<RankedTensorType>(att.getQuery().getType()).getElementType();
  bool same = llvm::all_of(att->getOperands(), [&](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType() == qe;
  });
  shape.operand = same ? tensorCoreOperandOf(qe, false) : TensorCoreOperand::Other;
  shape.headSize = D;
  shape.valueHeadSize = Dv;
  shape.keyLength = Skv;
  shape.batch = batch;
  shape.bias = (bool)att.getBias();
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
  // step's, no --attention-block-m asks for the mma.sync kernel and no split is asked for.
  if (opts.attentionBlockM == 0 && opts.attentionKVSplits <= 1 && Sq > kAttentionDecodeMaxQueries &&
      attentionWgmmaProblem(shape, *chip).empty())
    return single(
        buildAttentionGPU(builder, group, name, att,
                          {kAttentionWgmmaBlockM, kAttentionWgmmaBlockN, kAttentionWgmmaWarps}));
  // The mma.sync kernel: 64 or 128 rows as asked; decode (at most 32 queries) one warp per
  // 16 of them, at least two for D + Dv >= 256 (one warp issuing all 32 16-byte copies per
  // thread of a 64-key block of D = Dv = 128 spilled 8 bytes in ptxas 13.0 with split keys).
  int64_t blockM = opts.attentionBlockM;
  if (blockM == 0)
    blockM = Sq <= kAttentionDecodeMaxQueries
                 ? std::max<int64_t>(D + Dv >= 256 ? 32 : 16, llvm::PowerOf2Ceil(Sq))
                 : kAttentionMmaSyncBlockM;
  else if (blockM != 64 && blockM != 128)
    return att.emitError("attention-block-m must be 64 or 128, got ") << blockM, failure();
  int64_t sharedBytes = attentionMmaSyncSharedBytes(blockM, D, Dv);
  if (sharedBytes > chip->sharedMemPerBlockBytes)
    return att.emitError("attention-block-m ")
               << blockM << ": the Q block and two K / V stages exceed the shared memory per block",
           failure();
  GPUAttentionConfig cfg{blockM, kAttentionMmaSyncBlockN, blockM / 16};
  if (failed(chooseSplits((int64_t)llvm::divideCeil(Sq, blockM) * batch, cfg.blockN,
                          32 * cfg.numWarps, sharedBytes)))
    return failure();
  if (splits == 1)
    return single(buildAttentionGPU(builder, group, name, att, cfg));
  cfg.splits = splits;
  cfg.splitBlocks = splitBlocks;
  return splitPlan(buildAttentionGPU(builder, group, partialsName, att, cfg));
}

} // namespace aicc::templates
