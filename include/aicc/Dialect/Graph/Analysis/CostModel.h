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
#include "aicc/Target/Chip.h"

#include <optional>
#include <string>

namespace aicc::graph {

/// One accelerator, as the cost model sees it: a GPU row of the chip table
/// (include/aicc/Target/Chip.h, where the numbers and their sources are). Every field the
/// model reads is a peak or a capacity.
using HardwareDescription = aicc::ChipInfo;

/// The GPU row named `name` (a target such as "sm_90" or a product alias such as "h200";
/// aicc-compile --hardware); none when unknown or the CPU (no GPU numbers to model).
std::optional<HardwareDescription> hardwareByName(llvm::StringRef name);

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
