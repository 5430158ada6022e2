//===- KernelTemplates.h - graph fusion groups -> tile kernels --*- C++ -*-===//
//
// Kernel templates used by convert-graph-to-tile. buildKernelForGroup picks one by the
// group's kind and builds one tile kernel (a func.func with a #tile.schedule) from a
// graph.fusion_group (lib/Conversion/GraphToTile/*Template.cpp, one file each):
//   - buildElementwise ("elementwise", views): 1-D programs of BLOCK output elements; every
//     input is read at the broadcast (and, for a transposed input, permuted) offset of each
//     output element.
//   - buildMatmul ("epilogue" around a matmul / Gemm): programs over (BLOCK_M x BLOCK_N)
//     output tiles (grid z = batch), a K loop of BLOCK_K with tile.dot into an f32
//     accumulator, then the fused epilogue (Gemm alpha/beta*C, elementwise chain) applied to
//     the accumulator tile before one store; the tile config from chooseMatmulConfig.
//     Under split-K (MatmulConfig::splitK > 1, chooseSplitK) the group is two kernels: the
//     partial products of the K slices (grid z = slice x batch) and their sum + epilogue.
//   - buildConvGemm (2-D group-1 conv, implicit GEMM) and buildWindow (the direct window
//     loop: other convs, pools).
//   - buildSoftmax / buildLogSumExp ("softmax"): one program per row, the row held on chip.
//   - buildReduction / buildColumnReduction ("reduction"): row and column reductions.
//   - buildScatter (scatter_elements / scatter_nd, a "single" group): programs own blocks of
//     the coordinates no update crosses; each copies its part of data, then applies the
//     updates landing there in order (a loop), so duplicates combine in order without
//     atomics.
// Kernel parameters are the group's inputs then its outputs, each a flat 1-D memref
// (row-major, element count = the tensor's); a group of several kernels
// (buildKernelsForGroup) also passes the temporaries between them.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_CONVERSION_GRAPHTOTILE_KERNELTEMPLATES_H
#define AICC_CONVERSION_GRAPHTOTILE_KERNELTEMPLATES_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "aicc/Target/Chip.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace aicc {
/// Builds the kernel for `group` as a func.func named `name` at `builder`'s insertion
/// point. Emits a diagnostic at the offending op and returns failure for groups no
/// template covers (the message names the op and the reason).
struct TemplateOptions {
  /// A chip table name (include/aicc/Target/Chip.h: cpu, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100): its
  /// features select the matmul tile config space (chooseMatmulConfig) and the conv
  /// algorithm; its shared memory bounds num_stages.
  std::string target = "cpu";
  /// The chip table row the configs are tuned for (SM count: programs per wave), by name or
  /// product alias ("h200"; aicc-compile --hardware).
  std::string hardware = "h200";
  /// BMxBNxBK[xSTAGES[xSPLIT_K]] overriding chooseMatmulConfig (and chooseSplitK) for every
  /// matmul; empty: the heuristics.
  std::string matmulConfig;
  /// Tensor-core matmuls may split K (chooseSplitK); false: split_k = 1 unless matmulConfig
  /// gives one.
  bool splitK = true;
  /// f32 matmuls may use tf32 tensor cores (tile.dot input_precision = tf32; about 1e-3
  /// relative error instead of f32's 1e-7). Off: exact f32.
  bool allowTF32 = false;
  /// How 2-D group-1 convolutions are computed: "implicit-gemm" (tile.dot on im2col blocks,
  /// the tensor-core form), "direct" (a loop over the window per output element), or "auto":
  /// implicit-gemm where a tensor-core lowering takes it (sm_80 / sm_90 / sm_90a with f16 / bf16, sm_90a f32 under
  /// allowTF32), direct elsewhere. NHWC convs are always implicit-gemm. Convs implicit GEMM cannot take
  /// (grouped, 1-D/3-D, non-float) are direct whatever this says.
  std::string convAlgorithm = "auto";
  /// sm_90a: the lowering will store through TMA (convert-tile-dot-to-wgmma tma-store), so
  /// NCHW implicit-GEMM conv tiles stay within one image where the TMA store can take the
  /// output (a tile spanning images would need stores at negative pixel coordinates). False:
  /// tiles run over all N * OH * OW rows (no padding; register stores).
  bool tmaStore = true;
  /// GPU attention kernels' BLOCK_M (query rows per program): 64 (4 warps) or 128 (8
  /// warps); 0: 64.
  int64_t attentionBlockM = 0;
  /// Attention key slices per query block (flash-decoding; GroupKernels below): 0 picks
  /// (chooseAttentionKVSplits: GPU targets only), 1 is none, S in [2, kMaxAttentionKVSplits]
  /// forces S (capped at the key blocks).
  int64_t attentionKVSplits = 0;
  /// Bounded symbolic dims, one shape bucket of an attention over queries of run-time
  /// length (attentionShapeBuckets): the run's Sq is at most this many rows, so the GPU
  /// kernels cover (and choose their blocks and key slices for) that many query rows of the
  /// bound's buffers; 0: the bound's Sq.
  int64_t attentionRunQueriesMax = 0;
  /// Bounded symbolic dims, shape buckets (select-matmul-configs): choose the matmul /
  /// implicit-GEMM tile config for a run at this value of the symbol the anchor's result
  /// follows (kAnchorSymDimAttrName), as if M (or N, or the batch) had that run's size; the
  /// kernel itself is still built at the bound. 0: at the bound (the group's types).
  int64_t configAtValue = 0;
};
/// Bounded symbolic dims (aicc-compile --dim NAME=MIN..MAX, docs/symbolic-shapes.md): the
/// compiler driver marks each fusion group whose results carry a symbol with this attribute,
/// one entry per result: array<i64: axis, symbol, factor, max> (dim `axis` is factor x
/// symbol `symbol`, whose largest value is `max`; the group was compiled at max), or an empty
/// array for a result without one. Templates whose programs write their output in order of
/// the symbolic rows then record tile.symgrid on the kernel: the programs a run at a smaller
/// value needs.
constexpr llvm::StringLiteral kGroupSymDimsAttrName = "aicc.symdims";
/// Attention over a sequence of run-time length (bounded symbolic dims, cpu target): on the
/// graph.attention, array<i64: q symbol, q factor, kv symbol, kv factor> (-1, 0 where the
/// length is static): Sq is q factor x the run's value of symbol q, Skv likewise. Its fusion
/// group then carries kSymbolValuesInputAttrName: the index of the group input holding the
/// run's symbol values (i32 [number of symbols]; the kernel's tile.symvalues parameter).
constexpr llvm::StringLiteral kRunLengthsAttrName = "aicc.run_lengths";
/// graph.scatter_nd of a symbolic number of index tuples (bounded symbolic dims): array<i64:
/// axis, symbol, factor>: the indices' dim `axis` (and the updates') is factor x the run's
/// value of `symbol`; the tuples past it along that dim are the buffers' tail, never applied.
/// Its fusion group carries kSymbolValuesInputAttrName as for kRunLengthsAttrName.
constexpr llvm::StringLiteral kRunTuplesAttrName = "aicc.run_tuples";
constexpr llvm::StringLiteral kSymbolValuesInputAttrName = "aicc.symvalues_input";
/// graph.scatter_nd whose data is a model input read by nothing else (convert-graph-to-tile
/// sets it, unit attribute): the kernel's output is the data's own buffer, so the kernel
/// writes only the update slices (no copy of the data); with reduction "none" one program
/// per index tuple and slice block (ONNX ScatterND-18 asks for distinct tuples then: among
/// duplicates, which one lands is unspecified).
constexpr llvm::StringLiteral kScatterInPlaceAttrName = "aicc.in_place";
/// On the graph.matmul / graph.gemm / graph.conv of a fusion group whose result follows a
/// bounded symbolic dim (checkSymbolicDims): array<i64: axis, symbol, factor, min, max>: the
/// op's result dim `axis` is factor x symbol `symbol`, whose values are [min, max].
/// select-matmul-configs chooses a tile config per shape bucket of that symbol from it
/// (TemplateOptions::configAtValue). Also on a graph.attention whose queries follow one
/// (axis: its result's Sq dim), for attentionShapeBuckets.
constexpr llvm::StringLiteral kAnchorSymDimAttrName = "aicc.result_symdim";
/// The kAnchorSymDimAttrName of the first op in `group`'s body that carries one (its matmul
/// or conv), or null.
mlir::DenseI64ArrayAttr groupAnchorSymDim(graph::FusionGroupOp group);

/// The scatter_elements / scatter_nd whose result a "single" group yields (the scatter
/// template's group, possibly with the elementwise and view ops computing its updates before
/// it); null for any other group.
mlir::Operation *scatterOfGroup(graph::FusionGroupOp group);

mlir::FailureOr<mlir::func::FuncOp> buildKernelForGroup(mlir::OpBuilder &builder,
                                                       graph::FusionGroupOp group,
                                                       llvm::StringRef name,
                                                       const TemplateOptions &options = {});

/// The kernels one fusion group runs as, in launch order, and the temporaries between them.
/// Most groups are one kernel over (inputs..., results...). A split-K matmul group
/// (MatmulConfig::splitK > 1) is two: `NAME_partials` over (inputs..., temp 0) writing the
/// f32 partial products [split_k * batch, M, N], then `NAME` over (inputs..., temp 0,
/// results...) summing them and applying the epilogue. The last launch writes the group's
/// results and carries the group's name (aicc-run --bisect maps groups to launches by it).
struct GroupKernels {
  /// A launch's buffer: the group's input or result `index`, or temporary `index`.
  struct Buffer {
    enum Kind { Input, Result, Temp } kind;
    unsigned index;
  };
  struct Launch {
    mlir::func::FuncOp kernel;
    llvm::SmallVector<Buffer> buffers;
  };
  /// Row-major tensors the host plan allocates (the memory planner places them as temps).
  llvm::SmallVector<mlir::RankedTensorType> temps;
  llvm::SmallVector<Launch> launches;
};

/// Builds `group`'s kernels (GroupKernels) as func.funcs named from `name` at `builder`'s
/// insertion point; fails with buildKernelForGroup's diagnostics.
/// One shape bucket of a graph.attention whose queries follow a bounded symbolic dim: a
/// run at a value of symbol `symbol` in [lo, hi] has at most `maxQueries` queries and runs
/// the group's kernels built with TemplateOptions::attentionRunQueriesMax = maxQueries.
struct AttentionShapeBucket {
  int64_t symbol = 0, lo = 0, hi = 0, maxQueries = 0;
};

/// The shape buckets of `group`'s attention, ascending and covering the symbol's range, or
/// none (one kernel set for every value): on GPU targets, an attention of 16-bit operands
/// whose Sq follows a symbol (aicc.run_lengths, and kAnchorSymDimAttrName for the range)
/// with a bound of more than kAttentionDecodeMaxQueries queries gets the decode kernel
/// (one warp per 16 queries, keys split across programs; TensorCoreRules.h) for the values
/// of at most 16 queries, and the bound's kernel above them. At most `maxBuckets` (1: none).
llvm::SmallVector<AttentionShapeBucket> attentionShapeBuckets(graph::FusionGroupOp group,
                                                              const TemplateOptions &options,
                                                              int64_t maxBuckets);

mlir::FailureOr<GroupKernels> buildKernelsForGroup(mlir::OpBuilder &builder,
                                                   graph::FusionGroupOp group, llvm::StringRef name,
                                                   const TemplateOptions &options = {});

/// Suffix of the first kernel of a split-K group ("fused_3_epilogue_partials").
constexpr llvm::StringLiteral kSplitKPartialsSuffix = "_partials";

/// One point of the matmul tile config space: the program's output tile (BLOCK_M x BLOCK_N),
/// its K step (BLOCK_K), warps per program and software-pipeline depth.
struct MatmulConfig {
  int64_t blockM = 32, blockN = 32, blockK = 32, numWarps = 4, numStages = 1;
  /// Whether the sm_90a lowering (TMA + wgmma) is expected to take the kernel.
  bool wgmma = false;
  /// Whether the sm_80 / sm_90 lowering (cp.async + ldmatrix + mma.sync) is expected to.
  bool mmaSync = false;
  /// K slices (split-K): 1 is one kernel; S > 1 runs each output tile as S programs, each
  /// over ceil(K / (S * BLOCK_K)) k blocks, writing f32 partials that a second kernel sums
  /// and applies the epilogue to (#tile.matmul_config's split_k).
  int64_t splitK = 1;
};

/// Warps of an mma.sync program of BLOCK_M x BLOCK_N (powers of two >= 16): one warp per
/// 64 x 64 of output (128 f32 accumulators per thread), at least 4 when 16 x 16 warp tiles
/// allow it, at most 8.
int64_t mmaSyncNumWarps(int64_t blockM, int64_t blockN);

/// The per-shape heuristic over the config space (documented in docs/tensor-cores.md):
/// M, N, K of one matmul, the operand element type, whether the stored rows of A and B
/// (K or M for A, N or K for B: the contiguous dim) allow TMA (16-byte multiples), the
/// target chip (its tensor-core features and shared memory) and the hardware tuned for (its
/// SM count). The choice is checked against the tensor-core path's rules
/// (include/aicc/Target/TensorCoreRules.h), the ones its lowering refuses kernels by; a
/// tensor-core config they refuse becomes the generic one.
/// `tf32KMajor`: f32 operands may run as tf32 and are both K-major (wgmma's tf32 rule).
/// `batch`: the number of matrices (programs along grid z). `keepPingPong`: no cooperative
/// 128 x 256 tiles on sm_90a — for a fused epilogue that computes more than adds,
/// multiplies, Relu / Clip and casts (GELU's erf, Tanh, Sigmoid, divisions, ...: one ping-pong
/// warpgroup's epilogue hides under the other's K loop), and for implicit-GEMM convs (their
/// gather producer was measured with ping-pong tiles only). `implicitGemm`: an implicit-GEMM
/// conv (no split-K: its programs count without one in the under-filled-grid rule that
/// takes 64-row tiles, docs/tensor-cores.md).
MatmulConfig chooseMatmulConfig(int64_t M, int64_t N, int64_t K, mlir::Type elem, bool tmaRowsOK,
                                const ChipInfo &target, const ChipInfo &hw, bool tf32KMajor = false,
                                int64_t batch = 1, bool keepPingPong = false,
                                bool implicitGemm = false);

/// The K slices for a matmul of `batch` M x N x K products with tile config `c` (split-K;
/// 1: none). Only tensor-core configs split: when the grid has at most half a wave of
/// programs (`hw.smCount`), S = the most slices that keep the grid within one wave, each
/// slice at least kSplitKMinBlocks k blocks, at most tile::kMaxSplitK, then the fewest
/// slices of that many k blocks each. The partial products cost S x batch x M x N f32
/// written and read back, against S times the programs streaming A and B (CUTLASS's
/// "split-K parallel" reduction; docs/tensor-cores.md has the measurements).
int64_t chooseSplitK(int64_t M, int64_t N, int64_t K, int64_t batch, const MatmulConfig &c,
                     const ChipInfo &hw);

/// Fewest k blocks (of BLOCK_K) one split-K slice runs. Measured on the H200 (f16, wgmma,
/// docs/tensor-cores.md "Split-K"): splits pay where a program runs 48-64 k blocks (256 x 768
/// x 3072: 0.0162 -> 0.0105 ms; 64 x 4096 x 4096: 0.0172 -> 0.0123 ms) and gain nothing or
/// lose at 12-16 blocks split into slices of 3-4 (256 x 768 x 768: 0.0080 -> 0.0081 ms).
constexpr int64_t kSplitKMinBlocks = 8;

/// `value` is a conv-algorithm option value (auto, implicit-gemm, direct); else an error on
/// `op`: "PASS: conv-algorithm must be auto, implicit-gemm or direct, got 'VALUE'".
mlir::LogicalResult checkConvAlgorithm(mlir::Operation *op, llvm::StringRef pass,
                                       llvm::StringRef value);

/// The tile config of `group`'s kernel when its template is the matmul or the
/// implicit-GEMM conv one (chooseMatmulConfig, the `options.matmulConfig` override, or a
/// tile.matmul_config already on the group); none for other templates and for groups the
/// templates refuse without a config (dynamic shapes, empty contractions: buildKernelForGroup
/// reports those). Fails with a diagnostic where the matmul template would.
mlir::FailureOr<std::optional<MatmulConfig>>
chooseGroupMatmulConfig(graph::FusionGroupOp group, const TemplateOptions &options);
} // namespace aicc

#endif
