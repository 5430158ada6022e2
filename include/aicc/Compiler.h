//===- Compiler.h - aicc's embeddable compiler API --------------*- C++ -*-===//
//
// Compiles a model (ONNX ModelProto bytes or graph-dialect MLIR text) into a runnable
// bundle (see docs/bundle-format.md) or an intermediate artifact. aicc-compile is a thin
// command-line wrapper over this header.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_COMPILER_H
#define AICC_COMPILER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace aicc {

/// Code generation target. sm_80/sm_90/sm_90a produce PTX for that SM, assembled to a cubin
/// by ptxas; cpu produces an x86-64 ELF shared object.
enum class Target { CPU, SM80, SM90, SM90a };

/// What compileModel returns.
enum class EmitKind {
  Bundle, ///< one .aicc file: code + launch plan + weights (docs/bundle-format.md)
  Cubin,  ///< one cubin (ELF) holding every kernel (GPU targets only)
  PTX,    ///< PTX text of every kernel (GPU targets only)
  Graph,  ///< graph-dialect MLIR after import and graph cleanup
  Fused,  ///< graph-dialect MLIR after fusion (graph.fusion_group ops)
  Tile,   ///< tile kernels + host plan (MLIR)
  LLVM,   ///< LLVM IR of the kernels (host code for cpu, NVVM IR for GPU targets)
};

/// Model input format.
enum class InputKind { ONNX, MLIR };

struct CompileOptions {
  Target target = Target::CPU;
  /// CUDA toolkit root (holds bin/ptxas). Empty: $CUDA_HOME, then /usr/local/cuda, then PATH.
  std::string cudaPath;
  /// When non-empty, a failing pass writes an MLIR crash reproducer to this file
  /// (same as aicc-opt --mlir-pass-pipeline-crash-reproducer).
  std::string crashReproducer;
  /// Print the IR after every pass to stderr (like --mlir-print-ir-after-all).
  bool printIRAfterAll = false;
  /// Print per-pass timing to stderr at the end (like --mlir-timing).
  bool timing = false;
};

/// Parses a target name: "cpu", "sm_80", "sm_90", "sm_90a". Returns an error naming the
/// accepted values otherwise.
llvm::Expected<Target> parseTarget(llvm::StringRef name);
/// "cpu", "sm_80", "sm_90" or "sm_90a".
llvm::StringRef targetName(Target target);

/// Compiles `input` (bytes of a .onnx file or MLIR text; `bufferName` names it in
/// diagnostics, and for ONNX external data files are resolved next to it) and returns the
/// requested artifact's bytes. Deterministic: the same input and options give byte-identical
/// output. On failure returns an llvm::Error whose message holds every diagnostic, located
/// (ONNX node names become locations). Uses its own MLIRContext; thread-compatible.
llvm::Expected<std::string> compileModel(llvm::StringRef input, llvm::StringRef bufferName,
                                         InputKind kind, EmitKind emit,
                                         const CompileOptions &options = {});

} // namespace aicc

#endif
