//===- PipelineConfig.h - what aicc's pipeline is built for ------*- C++ -*-===//
//
// The target, the stages and every option of aicc's compile pipeline as plain data, with
// no MLIR dependency: aicc::CompileOptions (the C++ API) derives from PipelineConfig,
// aicc-compile fills it from its flags, and the registered pass pipelines (aicc-opt's
// `aicc-pipeline{...}`, Pipelines.h) parse their options into it. The pipeline built from
// one PipelineConfig is the same in all three (buildStagePipeline, Pipelines.h).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PIPELINES_PIPELINECONFIG_H
#define AICC_PIPELINES_PIPELINECONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace aicc {
struct ChipInfo;

/// Code generation target. The sm_NN targets produce PTX for that SM, assembled to a cubin by
/// ptxas; cpu produces an x86-64 ELF shared object. Each has a row in the chip table
/// (include/aicc/Target/Chip.h) of the same name, whose features pick the lowerings (sm_86,
/// sm_89 and sm_100 take sm_80's mma.sync path).
enum class Target { CPU, SM80, SM86, SM89, SM90, SM90a, SM100 };

/// Parses a target name: "cpu", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100".
/// Returns an error naming the accepted values otherwise.
llvm::Expected<Target> parseTarget(llvm::StringRef name);
/// The target's name, as parseTarget spells it.
llvm::StringRef targetName(Target target);
/// "cpu, sm_80, ... or sm_100": every target, for messages.
std::string targetNames();
/// The chip table's row of `target` (never null).
const ChipInfo &chipOf(Target target);

/// Compilation stages, in order. `aicc-compile --compile-to=S` stops after S and writes its
/// output; `--compile-from=S` reads S's output (possibly edited) and resumes.
///   onnx    the model input (.onnx, or graph-dialect .mlir not yet cleaned up); for ONNX
///           input, --compile-to=onnx writes the importer's raw graph-dialect module
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
/// Position of `stage` in the order above (onnx 0 ... bundle 8).
constexpr int stageRank(Stage stage) { return static_cast<int>(stage); }

/// Everything the MLIR pipeline is built from: the target and the knobs of
/// PipelineOptions.def (one field each, same name and default).
struct PipelineConfig {
  Target target = Target::CPU;
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION) TYPE FIELD = DEFAULT;
#include "aicc/Pipelines/PipelineOptions.def"
};

/// Checks the knobs' values: `hardware` names a chip table row; conv-layout is auto, nchw
/// or nhwc; conv-algorithm is auto, implicit-gemm or direct; attention is auto, fused
/// or unfused, and fused only where the target hasFusedAttention. The error names the option and
/// the accepted values; matmul-config is empty or parses (parseMatmulConfig,
/// aicc/Target/MatmulConfigSyntax.h).
llvm::Error verifyPipelineConfig(const PipelineConfig &config);

/// The NVPTX feature string the GPU lowering emits PTX for: `config.ptxFeatures`, or the
/// target's chip table row when that is empty ("" for the cpu target).
std::string ptxFeaturesOf(const PipelineConfig &config);
/// Whether `target` has a lowering of graph.attention's one-kernel (FlashAttention)
/// template: the cpu target, and GPU targets with mma.sync (convert-tile-attention-to-
/// mma-sync; graph-recompose-attention forms only the attention that kernel takes there).
bool hasFusedAttention(Target target);
/// Whether the pipeline forms graph.attention (graph-recompose-attention): `attention` is
/// fused, or auto on a target that hasFusedAttention (on the H200 the GPU kernel is 1.6-2.3x
/// the four-kernel form at every shape measured: docs/performance.md).
bool fusesAttention(const PipelineConfig &config);

/// The hardware row the code is tuned for: `config.hardware`, or when empty the target's
/// own row by its product alias ("a100" for sm_80, "h200" for sm_90 / sm_90a), "h200" for
/// the cpu target (whose fusion decisions use a GPU's roofline).
std::string hardwareOf(const PipelineConfig &config);

} // namespace aicc

#endif // AICC_PIPELINES_PIPELINECONFIG_H
