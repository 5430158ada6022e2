//===- CostModel.h - roofline cost of graph ops and fusion groups -*- C++ -*-===//
//
// A hardware description and a roofline estimate of a kernel's time, used by graph-fuse
// to decide recomputation against storing, and by `aicc-compile --fusion-report`.
//
// Roofline model: Williams, Waterman, Patterson, "Roofline: an insightful visual
// performance model for multicore architectures", CACM 52(4), 2009:
//   time = max(bytes moved / memory bandwidth, FLOPs / peak FLOP/s).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_ANALYSIS_COSTMODEL_H
#define AICC_DIALECT_GRAPH_ANALYSIS_COSTMODEL_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include <optional>
#include <string>

namespace aicc::graph {

/// One accelerator, as the cost model sees it. Every field is a peak or a capacity.
struct HardwareDescription {
  std::string name;                    ///< e.g. "h200"
  std::string arch;                    ///< e.g. "sm_90"
  int64_t smCount = 0;                 ///< streaming multiprocessors
  double hbmBytesPerSecond = 0;        ///< DRAM (HBM) bandwidth, bytes/s
  int64_t l2Bytes = 0;                 ///< L2 cache, bytes
  /// Peak dense FLOP/s. f16 / bf16 / tf32 are tensor-core (MMA) peaks; f32 / f64 are the
  /// CUDA-core (FMA pipe, 2 FLOP per FMA) peaks; "dense" = no structured sparsity.
  double peakF16 = 0, peakBF16 = 0, peakTF32 = 0, peakF32 = 0, peakF64 = 0;
  int64_t sharedMemPerBlockBytes = 0;  ///< max dynamic shared memory of one block, bytes
  int64_t sharedMemPerSMBytes = 0;     ///< shared memory of one SM, bytes
  int64_t registersPerSM = 0;          ///< 32-bit registers per SM
  int64_t maxThreadsPerSM = 0;         ///< resident threads per SM

  /// NVIDIA H200 SXM (sm_90). Sources: NVIDIA H200 Tensor Core GPU datasheet (HBM3e
  /// 4.8 TB/s; dense peaks: FP16/BF16 989.4 TFLOP/s, TF32 494.7, FP32 66.9, FP64 33.5 =
  /// the datasheet's sparse figures halved where it quotes sparsity); the H100/Hopper
  /// tuning guide and the CUDA C Programming Guide, "Features and Technical Specifications"
  /// for compute capability 9.0 (132 SMs on the SXM part, 50 MiB L2, 227 KiB shared memory
  /// per block out of 228 KiB per SM, 64K 32-bit registers per SM, 2048 threads per SM).
  static HardwareDescription h200();

  /// The description named `name` ("h200" or its arch "sm_90"); none if unknown.
  static std::optional<HardwareDescription> byName(llvm::StringRef name);

  /// Peak FLOP/s for an op computing in `elem`. `tensorCore`: a matmul/conv that can use
  /// MMA instructions (f16/bf16 inputs: the f16/bf16 peak; f32 inputs: `allowTF32` picks the
  /// TF32 peak, else the FP32 one). Elementwise and reduction work runs on the CUDA cores
  /// in f32 (f16/bf16 are computed in f32 by the kernel templates): the FP32 peak; f64: FP64.
  double peakFlops(mlir::Type elem, bool tensorCore, bool allowTF32 = false) const;
};

/// FLOPs charged for one transcendental function (exp, log, tanh, erf, sin, pow, ...).
/// The CUDA C Programming Guide, "Arithmetic Instructions" throughput table, gives 128
/// FP32 add/mul/FMA results per clock per SM for compute capability 9.0 but 16 for the
/// special-function unit (exp2, log2, sin, cos, rsqrt, reciprocal): one SFU op costs the
/// issue slots of 8 FP32 ops.
constexpr double kTranscendentalFlops = 8.0;

/// Cost of one kernel. Bytes are those crossing HBM: each input read once, each output
/// written once (the roofline's compulsory traffic; caches and re-reads are ignored).
struct KernelCost {
  double bytesRead = 0;       ///< bytes
  double bytesWritten = 0;    ///< bytes
  double flops = 0;           ///< floating-point (or integer ALU) operations
  double intensity = 0;       ///< flops / (bytesRead + bytesWritten), FLOP/byte
  double rooflineSeconds = 0; ///< max(bytes / HBM bandwidth, flops / peak), seconds
  double bytes() const { return bytesRead + bytesWritten; }
};

/// Bytes of a ranked tensor of static shape (i1 counts 1 byte, as it is stored); 0 for
/// anything else.
double tensorBytes(mlir::Type t);

/// FLOPs of one graph op (see CostModel.cpp for the per-op formulas): matmul 2*M*N*K per
/// batch, gemm 2*M*N*K (+ M*N with C), conv 2 * output elements * Cin/group * prod(kernel)
/// (= 2*N*Cout*OH*OW*Cin/g*KH*KW in 2-D), pools output elements * prod(kernel),
/// elementwise 1 per output element (kTranscendentalFlops for a transcendental),
/// reductions 1 per input element, row ops a fixed count per element; views, reshapes and
/// constants 0.
double opFlops(mlir::Operation *op);

/// Whether `op`'s main computation is tensor-core work (matmul, gemm, conv).
bool isContraction(mlir::Operation *op);

/// The cost of a kernel that computes `ops` (all in one block): inputs are the operands
/// defined outside `ops` (counted once each), outputs the results used outside `ops`.
/// The peak is chosen by the first contraction in `ops` if any (tensor cores), else by
/// the element type of the last op's result.
KernelCost costOfOps(llvm::ArrayRef<mlir::Operation *> ops, const HardwareDescription &hw);

/// The cost of one op run as its own kernel (operands read, results written).
KernelCost costOfOp(mlir::Operation *op, const HardwareDescription &hw);

/// The cost of a fusion group: its inputs read, its results written, its body's FLOPs.
KernelCost costOfGroup(FusionGroupOp group, const HardwareDescription &hw);

/// Fills intensity and rooflineSeconds from bytes and flops, `elem` and `tensorCore`
/// choosing the peak.
void finishCost(KernelCost &c, const HardwareDescription &hw, mlir::Type elem, bool tensorCore);

} // namespace aicc::graph

#endif
