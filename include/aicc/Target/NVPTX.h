//===- NVPTX.h - the GPU targets' code generation: PTX and cubins -*- C++ -*-===//
//
// LLVM IR of GPU kernels (the NVVM IR `aicc-compile --compile-to=llvm` writes) -> PTX with
// LLVM's NVPTX backend -> a cubin with the CUDA toolkit's ptxas. The chip and PTX version
// come from the chip table (aicc/Target/Chip.h) via the pipeline config
// (aicc::ptxFeaturesOf). Errors are MLIR diagnostics at `loc`.
//
// The CUDA toolkit is looked for at: `cudaPath` alone when it is not empty; else
// $CUDA_HOME, the toolkit CMake found (AICC_CUDA_ROOT), /usr/local/cuda, then ptxas on PATH.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_NVPTX_H
#define AICC_TARGET_NVPTX_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace aicc::nvptx {

/// Compiles LLVM IR (text) of GPU kernels to PTX: -O3, NVPTX backend for `chip` (sm_80,
/// sm_90, sm_90a) with PTX `features` ("+ptx78"). Calls to libdevice functions that are one
/// LLVM intrinsic (__nv_fmaf, __nv_fmaxf, __nv_floorf, ...) are defined as that intrinsic;
/// the other __nv_* functions (f64 __nv_exp, __nv_log, __nv_tanh, ...; f32 math is expanded
/// before) are linked from the toolkit's nvvm/libdevice/libdevice.10.bc (only those used;
/// __CUDA_FTZ=0, __CUDA_PREC_SQRT=1), the way clang, MLIR's NVVM target, Triton and IREE do.
/// The linking happens here, so the llvm stage (--compile-to=llvm) holds the module before
/// libdevice is linked and --compile-from=llvm reproduces the same PTX. Errors: an __nv_*
/// call when libdevice is not found (naming the function and the paths looked at).
mlir::FailureOr<std::string> emitPTX(mlir::Location loc, llvm::StringRef llvmIR,
                                     llvm::StringRef chip, llvm::StringRef features,
                                     llvm::StringRef cudaPath);

/// Runs ptxas (-arch=`chip`, -O3, -v) on `ptx`; returns the cubin's bytes. `log`, when
/// given, gets ptxas's -v output (registers, shared memory, spills per kernel). ptxas's
/// performance warnings C7515 (wgmma serialized) and C7508 (setmaxnreg ignored) are errors.
mlir::FailureOr<std::string> assemblePTX(mlir::Location loc, llvm::StringRef ptx,
                                         llvm::StringRef chip, llvm::StringRef cudaPath,
                                         std::string *log = nullptr);

/// The ptxas found (see the file comment), or "" when there is none.
std::string findPtxas(llvm::StringRef cudaPath);

} // namespace aicc::nvptx

#endif // AICC_TARGET_NVPTX_H
