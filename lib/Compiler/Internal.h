//===- Internal.h - pieces of the compiler driver ---------------*- C++ -*-===//
#ifndef AICC_LIB_COMPILER_INTERNAL_H
#define AICC_LIB_COMPILER_INTERNAL_H

#include "aicc/Runtime/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <string>

namespace aicc::detail {

/// Launch geometry of one kernel, read from its tile.schedule before lowering.
struct KernelInfo {
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t threads = 1;
  int numParams = 0;
};
using KernelInfoMap = llvm::StringMap<KernelInfo>;

/// Collects KernelInfo for every kernel of the nested @kernels module (tile level).
KernelInfoMap collectKernelInfo(mlir::ModuleOp top);

/// Builds the bundle's plan (buffers, inputs, outputs, kernels, launches) and weights from
/// the host function of `top` (after convert-graph-to-tile). `gpu` selects the block size
/// recorded per kernel (threads) or {1,1,1} for the cpu target.
mlir::FailureOr<runtime::Bundle> buildBundlePlan(mlir::ModuleOp top, const KernelInfoMap &info,
                                                 bool gpu);

/// Translates the LLVM-dialect module `kernels` to LLVM IR text.
mlir::FailureOr<std::string> translateToLLVMIRText(mlir::Operation *kernels);

/// Compiles the LLVM-dialect kernels module for the host CPU (x86-64, PIC, -O3) and links
/// it into an ELF shared object with the system C compiler driver. Returns the .so bytes.
mlir::FailureOr<std::string> emitCPUSharedObject(mlir::Operation *kernels);

/// Runs ptxas (-arch=`chip`, -O3) on `ptx`; returns cubin bytes. `cudaPath` may be empty.
mlir::FailureOr<std::string> assemblePTX(mlir::Location loc, llvm::StringRef ptx,
                                         llvm::StringRef chip, llvm::StringRef cudaPath);

/// Returns the PTX held by the gpu.binary @kernels of `top`.
mlir::FailureOr<std::string> extractPTX(mlir::ModuleOp top);

} // namespace aicc::detail

#endif
