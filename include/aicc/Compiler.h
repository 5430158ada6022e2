//===- Compiler.h - aicc's embeddable compiler API --------------*- C++ -*-===//
//
// Compiles a model (ONNX ModelProto bytes or graph-dialect MLIR text) into a runnable
// bundle (see docs/bundle-format.md) or an intermediate artifact. aicc-compile is a thin
// command-line wrapper over this header.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_COMPILER_H
#define AICC_COMPILER_H

#include "aicc/Pipelines/PipelineConfig.h"
#include "aicc/Support/CheckedSize.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace aicc {

/// What compileModel returns.
enum class EmitKind {
  Bundle, ///< one .aicc file: code + launch plan + weights (docs/bundle-format.md)
  Cubin,  ///< one cubin (ELF) holding every kernel (GPU targets only)
  PTX,    ///< PTX text of every kernel (GPU targets only)
  Import, ///< graph-dialect MLIR as the ONNX importer wrote it, before any pass (stage
          ///< onnx: the input of aicc-opt's aicc-pipeline{from=onnx})
  Graph,  ///< graph-dialect MLIR after import and graph cleanup
  Fused,  ///< graph-dialect MLIR after fusion (graph.fusion_group ops)
  Tile,   ///< tile kernels + host plan (MLIR)
  LLVM,   ///< LLVM IR of the kernels (host code for cpu, NVVM IR for GPU targets)
  Lowered, ///< MLIR after the target lowering (stage gpu / cpu)
  Dot,    ///< Graphviz of the fused graph: one cluster per fusion group, coloured by kind
  FusionReport, ///< text: every kernel's ops, kind, bytes, FLOPs, roofline time, and the
                ///< rule that kept each producer/consumer pair apart (docs/fusion.md)
  MemoryReport, ///< text: the launch plan's memory plan (after the tile stage): arena bytes
                ///< against the peak-live lower bound, every temp's offset and lifetime
                ///< (aicc/Runtime/MemoryPlan.h, docs/bundle-format.md "Memory plan")
};

/// Model input format.
enum class InputKind { ONNX, MLIR };

/// A graph input fixed at compile time (aicc-compile --bind-input NAME=FILE.pb).
struct InputBinding {
  /// The ONNX name of a graph input (not an initializer).
  std::string name;
  /// A serialized onnx.TensorProto (as test_data_set_N/input_K.pb) of the input's declared
  /// element type and shape.
  std::string tensorPath;
};

/// Everything compileModel takes besides the input. The pipeline's target and knobs
/// (target, hardware, conv-layout, matmul-config, allow-tf32, conv-algorithm,
/// wgmma-tma-store, mma-smem-store, ptx-features) are the PipelineConfig base, documented
/// in aicc/Pipelines/PipelineOptions.def; the rest is about input, output and debugging.
struct CompileOptions : PipelineConfig {
  /// ONNX input only: specialize the model on these graph inputs' values. Each becomes a
  /// constant (so shape operands such as Reshape's shape or Slice's starts fold) and is no
  /// longer a bundle input; the bundle records it with its value (`bound` records,
  /// docs/bundle-format.md) so aicc-run can check a value given for it. Errors (unknown
  /// input name, unreadable or unparsable file, element type or shape different from the
  /// input's declaration) are located diagnostics; see onnx_import::ImportOptions.
  std::vector<InputBinding> bindInputs;
  /// ONNX input only: dynamic dims of graph inputs fixed at compile time, by input (the
  /// whole shape, aicc-compile --shape NAME=D0,D1,...) or by ONNX dim_param (aicc-compile
  /// --dim NAME=N); see onnx_import::ImportOptions::inputShapes for the checks.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputShapes;
  std::vector<std::pair<std::string, int64_t>> dimParams;
  /// ONNX input only: dim_params kept symbolic (aicc-compile --dim NAME=MIN..MAX): one bundle
  /// runs every value in [min, max]. The model is compiled at max ("bounded symbolic dims",
  /// docs/symbolic-shapes.md); compileModel checks that the code is right for every value in
  /// the range (the symbol only in the first non-unit dim of a materialized tensor, no
  /// kernel mixing positions along it, no value computed from its size) and refuses the
  /// model otherwise, naming the op and the reason. The bundle records the symbols
  /// (format version 6, docs/bundle-format.md).
  struct SymbolicDim {
    std::string name;
    /// 1 <= min <= max < 2^31.
    int64_t min = 1, max = 1;
  };
  std::vector<SymbolicDim> symbolicDims;
  /// ONNX input with one symbolic range, bundle output only: (NAME, V) compiles the model
  /// also with NAME fixed at V (the range's MIN or MAX) and adds that launch plan to the
  /// bundle beside the range's (format version 10 `plan` records): a run at V takes the
  /// code a bundle for that shape alone has (aicc-compile --specialize NAME=V,
  /// docs/symbolic-shapes.md "Specialized plans"). At most one.
  std::vector<std::pair<std::string, int64_t>> specializations;
  /// ONNX input only: the cap on the bytes of any one tensor of the model (inputs,
  /// outputs, weights, intermediates); bigger ones are refused with a located diagnostic
  /// before anything is allocated (onnx_import::ImportOptions::maxTensorBytes,
  /// aicc-compile --max-tensor-bytes). Default 16 GiB (include/aicc/Support/CheckedSize.h).
  uint64_t maxTensorBytes = kDefaultMaxTensorBytes;
  /// CUDA toolkit root (holds bin/ptxas). Empty: $CUDA_HOME, then /usr/local/cuda, then PATH.
  std::string cudaPath;
  /// When non-empty, a failing pass writes an MLIR crash reproducer to this file
  /// (same as aicc-opt --mlir-pass-pipeline-crash-reproducer).
  std::string crashReproducer;
  /// Print the IR after every pass to stderr (like --mlir-print-ir-after-all).
  bool printIRAfterAll = false;
  /// Print per-pass timing to stderr at the end (like --mlir-timing).
  bool timing = false;
  /// Stage the input is at. Unset: Stage::ONNX (a model to import, or graph MLIR to clean up).
  std::optional<Stage> from;
  /// For --compile-from=llvm|ptx|cubin with a bundle as the result: an MLIR file at the tile
  /// or gpu/cpu stage of the same model whose host plan (buffers, launches, weights) the
  /// bundle uses.
  std::string planFile;
  /// When non-empty, every MLIR pass runs as its own step and the IR after it is written to
  /// DIR/NN-<pass>.mlir with the aicc-opt command reproducing it from the previous file;
  /// LLVM IR / PTX steps are written too.
  std::string dumpStepsDir;
  /// When non-empty, per kernel: DIR/<kernel>/{tile.mlir, kernel.ll, kernel.ptx,
  /// resources.json} (PTX and ptxas resource usage for GPU targets).
  std::string dumpKernelsDir;
  /// When set, called on the calling thread as each stage of the compile ends (also one
  /// that fails, before compileModel returns its error), with the stage's name: "import",
  /// then the MLIR stages "graph", "fused", "tile", "gpu" or "cpu", then "llvm", and "ptx",
  /// "cubin" (GPU targets) or "codegen (x86-64 + link)" (cpu); only the stages the compile
  /// runs. aicc-compile prints its progress lines from it.
  std::function<void(llvm::StringRef stage)> onStageEnd;
};

/// The passes compileModel runs for `options` and `emit`, one stage a line:
/// `stage: textual pipeline` for MLIR stages, a description for the others.
std::string describePipeline(EmitKind emit, const CompileOptions &options = {});

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
