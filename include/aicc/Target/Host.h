//===- Host.h - the cpu target's code generation: a shared object ---*- C++ -*-===//
//
// LLVM IR of the CPU kernels (after aicc-cpu-pipeline and translation) -> an x86-64 ELF
// shared object the runtime dlopens (docs/bundle-format.md: the bundle is code).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_TARGET_HOST_H
#define AICC_TARGET_HOST_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace aicc::host {

/// Compiles LLVM IR (text) of the CPU kernels for the host triple (CPU x86-64-v2, PIC, -O3)
/// and links it with the system C compiler driver (`cc -shared -nostartfiles
/// -Wl,--build-id=none ... -lm`: deterministic bytes). Defines __truncsfbf2 in the module
/// (libgcc has it only from GCC 13). Returns the .so's bytes; errors are MLIR diagnostics at
/// `loc` (no `cc` on PATH, a link failure with its output).
mlir::FailureOr<std::string> emitSharedObject(mlir::Location loc, llvm::StringRef llvmIR);

} // namespace aicc::host

#endif // AICC_TARGET_HOST_H
