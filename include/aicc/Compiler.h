//===- Compiler.h - aicc's embeddable compiler API --------------*- C++ -*-===//
//
// Compiles a model (ONNX ModelProto bytes or graph-dialect MLIR text) into a runnable
// bundle (see docs/bundle-format.md) or an intermediate artifact. aicc-compile is a thin
// command-line wrapper over this header.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_COMPILER_H
#define AICC_COMPILER_H

#include "aicc/Support/CheckedSize.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace aicc {

/// Code generation target. sm_80/sm_90/sm_90a produce PTX for that SM, assembled to a cubin
/// by ptxas; cpu produces an x86-64 ELF shared object.
enum class Target { CPU, SM80, SM90, SM90a };

/// Compilation stages, in order. `aicc-compile --compile-to=S` stops after S and writes its
/// output; `--compile-from=S` reads S's output (possibly edited) and resumes.
///   onnx    the model input (.onnx, or graph-dialect .mlir not yet cleaned up)
///   graph   graph dialect after import and aicc-graph-pipeline (MLIR)
///   fused   after aicc-fusion-pipeline: graph.fusion_group ops (MLIR)
///   tile    after aicc-tile-pipeline: tile kernels + host plan (MLIR)
///   gpu     after the target lowering: gpu.module in the NVVM/LLVM dialects (GPU targets), or
///   cpu     the kernels module in the LLVM dialect (cpu target); host plan kept (MLIR)
///   llvm    LLVM IR of the kernels (text)
///   ptx     PTX of every kernel (GPU targets)
///   cubin   one cubin holding every kernel (GPU targets)
///   bundle  the runnable .aicc file
enum class Stage { ONNX, Graph, Fused, Tile, Lowered, LLVM, PTX, Cubin, Bundle };

/// Parses a stage name (onnx, graph, fused, tile, gpu, cpu, llvm, ptx, cubin, bundle).
llvm::Expected<Stage> parseStage(llvm::StringRef name);
/// The stage's name; Lowered is "gpu" for GPU targets and "cpu" for the cpu target.
std::string stageName(Stage stage, Target target);

/// What compileModel returns.
enum class EmitKind {
  Bundle, ///< one .aicc file: code + launch plan + weights (docs/bundle-format.md)
  Cubin,  ///< one cubin (ELF) holding every kernel (GPU targets only)
  PTX,    ///< PTX text of every kernel (GPU targets only)
  Graph,  ///< graph-dialect MLIR after import and graph cleanup
  Fused,  ///< graph-dialect MLIR after fusion (graph.fusion_group ops)
  Tile,   ///< tile kernels + host plan (MLIR)
  LLVM,   ///< LLVM IR of the kernels (host code for cpu, NVVM IR for GPU targets)
  Lowered, ///< MLIR after the target lowering (stage gpu / cpu)
  Dot,    ///< Graphviz of the fused graph: one cluster per fusion group, coloured by kind
  FusionReport, ///< text: every kernel's ops, kind, bytes, FLOPs, roofline time, and the
                ///< rule that kept each producer/consumer pair apart (docs/fusion.md)
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

struct CompileOptions {
  Target target = Target::CPU;
  /// ONNX input only: specialize the model on these graph inputs' values. Each becomes a
  /// constant (so shape operands such as Reshape's shape or Slice's starts fold) and is no
  /// longer a bundle input; the bundle records it with its value (`bound` records,
  /// docs/bundle-format.md) so aicc-run can check a value given for it. Errors (unknown
  /// input name, unreadable or unparsable file, element type or shape different from the
  /// input's declaration) are located diagnostics; see onnx_import::ImportOptions.
  std::vector<InputBinding> bindInputs;
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
  /// Hardware description of graph-fuse's cost model and of the fusion report
  /// (CostModel.h): "h200" (= "sm_90").
  std::string hardware = "h200";
  /// Overrides the matmul template's per-shape tile config (chooseMatmulConfig) for every
  /// matmul of the model: "BMxBNxBK" or "BMxBNxBKxSTAGES" (e.g. "128x128x64x6"); empty: the
  /// heuristic. For experiments and the autotuner; the sm_90a wgmma path takes BM 64/128,
  /// BN a multiple of 64 up to 256, BK a multiple of 64.
  std::string matmulConfig;
  /// f32 matmuls may use tf32 tensor cores (about 1e-3 relative error; sm_90a wgmma path,
  /// Gemm transB = 1 / nn.Linear operand layout). Default: exact f32.
  bool allowTF32 = false;
  /// 2-D group-1 convolutions: "auto" (implicit GEMM where a tensor-core lowering takes it:
  /// sm_80 / sm_90 / sm_90a with f16 / bf16, sm_90a f32 under allowTF32; the direct window
  /// loop elsewhere),
  /// "implicit-gemm" or "direct". NHWC convs (convLayout "nhwc") are always implicit GEMM.
  std::string convAlgorithm = "auto";
  /// Layout of 2-D group-1 convolutions after the graph stage (aicc-graph-pipeline's
  /// conv-layout, graph-conv-layout): "nchw" (as imported, no rewrite) or "nhwc" (channels
  /// last, weights OHWI, transposes around; for tensor-core implicit GEMM). Anything else is
  /// an error.
  std::string convLayout = "nchw";
  /// sm_90a matmul epilogues store their tile through a shared-memory staging buffer and TMA
  /// box stores (false: per-thread register stores; for A/B measurements).
  bool wgmmaTmaStore = true;
  /// sm_80 / sm_90 (mma.sync) matmul epilogues store their tile through a shared-memory
  /// staging tile and coalesced 16-byte global stores (false: per-thread register stores).
  bool mmaSmemStore = true;
};

/// The passes compileModel runs for `options` and `emit`, one stage a line:
/// `stage: textual pipeline` for MLIR stages, a description for the others.
std::string describePipeline(EmitKind emit, const CompileOptions &options = {});

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
