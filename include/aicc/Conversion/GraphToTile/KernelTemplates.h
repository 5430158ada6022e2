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
//   - buildConvGemm (2-D group-1 conv, implicit GEMM) and buildWindow (the direct window
//     loop: other convs, pools).
//   - buildSoftmax / buildLogSumExp ("softmax"): one program per row, the row held on chip.
//   - buildReduction / buildColumnReduction ("reduction"): row and column reductions.
//   - buildScatter (scatter_elements / scatter_nd, a "single" group): programs own blocks of
//     the coordinates no update crosses; each copies its part of data, then applies the
//     updates landing there in order (a loop), so duplicates combine in order without
//     atomics.
// Kernel parameters are the group's inputs then its outputs, each a flat 1-D memref
// (row-major, element count = the tensor's).
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
  /// BMxBNxBK[xSTAGES] overriding chooseMatmulConfig for every matmul; empty: the heuristic.
  std::string matmulConfig;
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
};
mlir::FailureOr<mlir::func::FuncOp> buildKernelForGroup(mlir::OpBuilder &builder,
                                                       graph::FusionGroupOp group,
                                                       llvm::StringRef name,
                                                       const TemplateOptions &options = {});

/// One point of the matmul tile config space: the program's output tile (BLOCK_M x BLOCK_N),
/// its K step (BLOCK_K), warps per program and software-pipeline depth.
struct MatmulConfig {
  int64_t blockM = 32, blockN = 32, blockK = 32, numWarps = 4, numStages = 1;
  /// Whether the sm_90a lowering (TMA + wgmma) is expected to take the kernel.
  bool wgmma = false;
  /// Whether the sm_80 / sm_90 lowering (cp.async + ldmatrix + mma.sync) is expected to.
  bool mmaSync = false;
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
/// gather producer was measured with ping-pong tiles only).
MatmulConfig chooseMatmulConfig(int64_t M, int64_t N, int64_t K, mlir::Type elem,
                                bool tmaRowsOK, const ChipInfo &target, const ChipInfo &hw,
                                bool tf32KMajor = false, int64_t batch = 1,
                                bool keepPingPong = false);

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
