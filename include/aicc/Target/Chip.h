//===- Chip.h - the one table of what aicc knows about each target chip ----*- C++ -*-===//
//
// Every number or capability of a target that a pass, a kernel template, the cost model or
// the driver needs comes from this table (lib/Target/Chip.cpp): SM count, shared memory,
// registers, HBM bandwidth, peak FLOP/s per dtype, the instructions aicc's lowerings use, and
// the PTX ISA version the NVPTX backend targets. Nothing else in the tree writes "132 SMs"
// or "227 KiB".
//
// Sources (per row in Chip.cpp): the CUDA C++ Programming Guide, "Compute Capabilities"
// (technical specifications per compute capability: shared memory per block / SM,
// registers, threads), the PTX ISA 8.x "Target ISA notes" (which instruction needs which
// sm_XX and PTX version), and the vendor datasheets of the part the row models (SM count,
// HBM bandwidth, dense peak FLOP/s).
//
//===----------------------------------------------------------------------------------===//
#ifndef AICC_TARGET_CHIP_H
#define AICC_TARGET_CHIP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
class Type;
} // namespace mlir

namespace aicc {

/// Instructions / hardware units the lowerings use. A chip has a feature when the hardware
/// and the PTX version of its row support it.
enum class ChipFeature : uint32_t {
  None = 0,
  /// cp.async (Ampere+, sm_80): asynchronous global -> shared copies.
  CpAsync = 1u << 0,
  /// ldmatrix (sm_75+): warp-wide shared -> register matrix loads.
  LdMatrix = 1u << 1,
  /// mma.sync (m16n8k16 f16/bf16, m16n8k8 tf32; sm_80+): warp-level tensor-core MMA.
  MmaSync = 1u << 2,
  /// wgmma.mma_async (sm_90a only): warpgroup-level tensor-core MMA from shared memory.
  Wgmma = 1u << 3,
  /// cp.async.bulk.tensor + mbarrier expect-tx (sm_90+): the Tensor Memory Accelerator.
  TMA = 1u << 4,
  /// setmaxnreg (sm_90a only): warpgroup register reallocation.
  SetMaxNReg = 1u << 5,
};

/// One target chip. GPU rows model one product (named in `product`); the CPU row has no
/// GPU numbers (zero) and no features.
struct ChipInfo {
  /// Target name as aicc-compile --target and the pipelines' `target` / `chip` options
  /// spell it: "cpu", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100".
  llvm::StringRef name;
  /// The product the numbers are from ("H200 SXM", "A100 SXM4 80GB"); aicc-compile
  /// --hardware accepts it (lower-case, e.g. "h200") as well as `name`.
  llvm::StringRef product;
  /// Lower-case alias of `product` for --hardware ("h200", "a100"); empty for the CPU.
  llvm::StringRef productAlias;
  bool isGPU = false;
  /// Compute capability x 10 (80, 90); 0 for the CPU.
  unsigned computeCapability = 0;
  /// NVPTX feature string of the PTX ISA version emitted ("+ptx78" = PTX 7.8).
  llvm::StringRef ptxFeatures;
  uint32_t features = 0;

  int64_t smCount = 0;                ///< streaming multiprocessors of `product`
  double hbmBytesPerSecond = 0;       ///< DRAM (HBM) bandwidth, bytes/s
  int64_t l2Bytes = 0;                ///< L2 cache, bytes
  /// Peak dense FLOP/s. f16 / bf16 / tf32 are tensor-core (MMA) peaks; f32 / f64 are the
  /// CUDA-core (FMA pipe, 2 FLOP per FMA) peaks; "dense" = no structured sparsity.
  double peakF16 = 0, peakBF16 = 0, peakTF32 = 0, peakF32 = 0, peakF64 = 0;
  int64_t sharedMemPerBlockBytes = 0; ///< opt-in max dynamic shared memory of one block
  int64_t sharedMemPerSMBytes = 0;    ///< shared memory of one SM, bytes
  int64_t registersPerSM = 0;         ///< 32-bit registers per SM
  int64_t maxThreadsPerSM = 0;        ///< resident threads per SM

  bool has(ChipFeature f) const { return features & static_cast<uint32_t>(f); }
  /// Peak FLOP/s for an op computing in `elem`. `tensorCore`: a matmul/conv that can use
  /// MMA instructions (f16/bf16 inputs: the f16/bf16 peak; f32 inputs: `allowTF32` picks the
  /// TF32 peak, else the FP32 one). Elementwise and reduction work runs on the CUDA cores
  /// in f32 (f16/bf16 are computed in f32 by the kernel templates): the FP32 peak; f64: FP64.
  double peakFlops(mlir::Type elem, bool tensorCore, bool allowTF32 = false) const;
};

/// Every chip aicc targets, CPU first.
llvm::ArrayRef<ChipInfo> allChips();
/// The row whose `name` or `productAlias` is `name`; nullptr when there is none.
const ChipInfo *lookupChip(llvm::StringRef name);
/// The names of allChips(), comma-separated ("cpu, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100"), for messages.
std::string chipNames();
/// The GPU rows a `hardware` option may name, for messages: "sm_80 (a100), sm_90 (h200),
/// sm_90a (h200)".
std::string gpuChipNames();
/// The message of every pass / driver refusing `hardware` `name` (not a GPU row):
/// "unknown hardware 'NAME' (expected a GPU row of the chip table: <gpuChipNames()>)".
std::string unknownHardwareMessage(llvm::StringRef name);

} // namespace aicc

#endif // AICC_TARGET_CHIP_H
