//===- AttentionKernels.h - the attention template's kernels (private) -*- C++ -*-===//
//
// The kernels buildAttentionKernels (AttentionTemplate.cpp) makes of one graph.attention
// group: the cpu target's two-pass kernel (AttentionCPUTemplate.cpp), the GPU targets'
// one-pass form (AttentionGPUTemplate.cpp) and, with the keys split across programs
// (flash-decoding), the kernel combining the slices (AttentionCombineTemplate.cpp), with
// what they share.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_GRAPHTOTILE_ATTENTIONKERNELS_H
#define AICC_LIB_CONVERSION_GRAPHTOTILE_ATTENTIONKERNELS_H

#include "TemplateSupport.h"

#include "aicc/Dialect/Graph/IR/AttentionOperands.h"

#include <utility>

namespace aicc::templates {

/// Most rows / keys per block (the cpu target's tiles; the GPU lowering picks its own).
constexpr int64_t kAttentionBlockM = 64;
constexpr int64_t kAttentionBlockN = 64;
/// Largest head size (D, Dv) the template holds in one tile.
constexpr int64_t kMaxAttentionHeadSize = 512;

/// The power of two >= n (at least 1), at most `cap`.
inline int64_t blockOf(int64_t n, int64_t cap) {
  return std::min<int64_t>(cap, (int64_t)llvm::PowerOf2Ceil(std::max<int64_t>(1, n)));
}

/// A batch of row-major matrices of a kernel buffer as a program's block loads and stores
/// address them: tile.block_load's dims, the program's matrix `batch` and column offset.
struct AttentionMatrix {
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
  AttentionMatrix matrixAt(Value param, const AttentionOperandView &view,
                           ArrayRef<int64_t> vshape) {
    AttentionMatrix m{param, i32(view.batch), i32(view.col), {}, view.keyRows};
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
/// `queryRows` (0: Sq) are the query rows the kernels cover: a shape bucket's kernels
/// (TemplateOptions::attentionRunQueriesMax) cover the first rows of the bound's buffers.
/// `keyBound`: end each program's key loop at its rows' graph.attention key_bound
/// (keyBoundEnd; the FlashAttention-3 lowering ends each tile's key blocks there too).
struct GPUAttentionConfig {
  int64_t blockM = 0, blockN = 0, numWarps = 0;
  int64_t splits = 1, splitBlocks = 0;
  int64_t queryRows = 0;
  bool keyBound = false;
};

/// The end of the keys program rows [m0, min(m0 + BM, rowsEnd)) weigh (i32 scalar): the
/// largest key_bound of those rows + 1, capped at Skv (0 for no row), Skv when one row's
/// bound is negative; none when `att` has no key_bound or the kernel does not read it as
/// an input (through reshapes).
Value keyBoundEnd(OpBuilder &b, Location loc, KernelContext &kc, AttentionOp att, Value m0,
                  int64_t BM, Value rowsEnd, int64_t Skv);

/// graph.attention's key_bound_mask c for the [R, C] scores of query rows `rows` and keys
/// `cols` (i32 [R] and [C] tiles) as an additive tile of `floatType`: 0 where cols[c] <=
/// key_bound of row rows[r], c past it. The bound is read as one [R] tile (one element per row
/// below Sq; batch dims at the scalars `batchIdx` of `batchShape`) through the group's views of a
/// kernel input, so the GPU lowerings evaluate one load per row a thread holds.
/// Null when the op has no such mask; failure (diagnosed) when the bound cannot be read.
FailureOr<Value> keyBoundMaskBias(OpBuilder &b, Location loc, KernelContext &kc, AttentionOp att,
                                  ArrayRef<Value> batchIdx, ArrayRef<int64_t> batchShape,
                                  Value rows, Value cols, Type floatType);

/// The temporaries of an attention whose keys are split in `splits` slices, over its first
/// `rows` query rows: the slices' outputs [splits * batch, rows, Dv] and log-sum-exps
/// [splits * batch, rows, 1], slice-major, in the accumulators' type (f32; f64 for f64
/// operands).
std::pair<RankedTensorType, RankedTensorType> splitPartialTypes(AttentionOp att, int64_t splits,
                                                                int64_t rows);

/// The rows whose softmax is undefined, from the rows' sums `l` (a [BLOCK_M] f32 / f64
/// tile): l = 0 (every score -inf: NaN for ONNX's softmax), and with the op's
/// zero_undefined_rows also a NaN l (a NaN or +inf score), as !(l > 0).
inline Value undefinedRows(OpBuilder &b, Location loc, AttentionOp att, Value l) {
  auto t = cast<RankedTensorType>(l.getType());
  Value zero = TileBuilder{b, loc, {t.getDimSize(0)}}.splatF(t.getElementType(), 0.0);
  return arith::CmpFOp::create(
      b, loc, att.getZeroUndefinedRows() ? arith::CmpFPredicate::ULE : arith::CmpFPredicate::OEQ, l,
      zero);
}

/// The block matrices the GPU kernels store the result to: its [batch, Sq, Dv] matrices
/// (matrix `pidB`), or through the head merge the group took (transpose [.., H, Sq, Dv] ->
/// [.., Sq, H, Dv], attentionResultRowDim) blocks of its result X's matrices, the head a
/// column offset.
FailureOr<AttentionMatrix> resultMatrix(BatchIndexing &bi, Value outParam, AttentionOp att,
                                        Value pidB, Value zero32);

/// The GPU targets' kernel (the file comment of AttentionGPUTemplate.cpp) of `att` with the
/// blocks, warps and key slices of `cfg`.
FailureOr<func::FuncOp> buildAttentionGPU(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                          AttentionOp att, const GPUAttentionConfig &cfg);

/// The cpu target's kernel (the file comment's two passes); with `splits` > 1 the program
/// runs key slice program_id(2) of `splitBlocks` blocks and stores the partials
/// (splitPartialTypes, as buildAttentionGPU's).
FailureOr<func::FuncOp> buildAttentionCPU(OpBuilder &builder, FusionGroupOp group, StringRef name,
                                          AttentionOp att, int64_t splits, int64_t splitBlocks,
                                          int64_t blockM = kAttentionBlockM,
                                          int64_t blockN = kAttentionBlockN);

/// The second kernel of a split attention over its first `queryRows` query rows: one program per
/// (query row, batch matrix), a 1-D tile of the row's Dv columns (GPU targets: the register
/// lowering), combining the `splits` slices' partials (splitPartialTypes) of its row,
///
///   M = max_s lse_s (0 when -inf);  w_s = exp(lse_s - M);  y = sum_s w_s O_s / sum_s w_s
///
/// (the log-sum-exp rescaling of flash-decoding; a row whose every slice saw no key is
/// 0 / 0 = NaN, as the unsplit kernel's), in slice order, then stored where the unsplit
/// kernel stores its result: after the GPU tensor-core kernel's partials (`tensorCore`) at
/// the elements of the result's block matrices (through the head merge), after the cpu
/// template's (the cpu target's, f32 GPU attention's) with the group's elementwise
/// epilogue applied. Rows past the run's query count (kRunLengthsAttrName) load and store
/// nothing.
FailureOr<func::FuncOp> buildAttentionCombine(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, AttentionOp att, int64_t splits,
                                              int64_t queryRows, bool tensorCore);

} // namespace aicc::templates

#endif
