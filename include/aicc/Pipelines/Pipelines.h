//===- Pipelines.h - aicc's pass pipeline, built in one place ---*- C++ -*-===//
//
// aicc-compile, the C++ API (aicc/Compiler.h), aicc-compile --print-pipeline and aicc-opt all
// build their passes here, from one aicc::PipelineConfig (PipelineConfig.h). The whole
// compile is one registered name,
//
//   aicc-opt --pass-pipeline='builtin.module(aicc-pipeline{target=sm_90a from=onnx to=gpu})'
//
// which runs exactly the passes `aicc-compile --target=sm_90a --compile-to=gpu` runs after
// the import (test/Pipelines/aicc-opt-reproduces-aicc-compile.test checks it byte for byte
// at every stage and target). Each MLIR stage is also registered on its own, with the same
// options:
//
//   aicc-graph-pipeline   graph cleanup: graph-infer-shapes, canonicalize, cse, graph-recompose,
//                         (conv-layout=nhwc: graph-conv-layout, cse), graph-split-reduction
//   aicc-fusion-pipeline  graph-fuse (fusion groups = future kernels)
//   aicc-tile-pipeline    convert-graph-to-tile (kernels + host plan), canonicalize, cse
//   aicc-cpu-pipeline     tile kernels -> LLVM dialect host code (+ entry points); target=cpu
//   aicc-gpu-pipeline     tile kernels -> gpu.module -> NVVM -> PTX in a gpu.binary; a GPU
//                         target (the same as aicc-pipeline's to=gpu, plus
//                         gpu-module-to-binary)
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PIPELINES_PIPELINES_H
#define AICC_PIPELINES_PIPELINES_H

#include "aicc/Pipelines/PipelineConfig.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace aicc {

/// Options of the per-stage pipelines (aicc-graph-pipeline ... aicc-gpu-pipeline): the
/// target and every knob of PipelineOptions.def.
struct StagePipelineOptions : public mlir::PassPipelineOptions<StagePipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu, sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100"),
                             llvm::cl::init("cpu")};
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                      \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::desc(DESCRIPTION), llvm::cl::init(DEFAULT)};
#include "aicc/Pipelines/PipelineOptions.def"
};

/// Options of aicc-pipeline: the stages to run, the target, every knob.
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu, sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100"),
                             llvm::cl::init("cpu")};
  Option<std::string> from{
      *this, "from",
      llvm::cl::desc("the stage the input is at (as aicc-compile --compile-from): onnx (the "
                     "importer's output, aicc-compile --compile-to=onnx, or hand-written "
                     "graph IR), graph, fused or tile"),
      llvm::cl::init("onnx")};
  Option<std::string> to{
      *this, "to",
      llvm::cl::desc("the last stage to run (as aicc-compile --compile-to): graph, fused, "
                     "tile, or gpu / cpu (the target's lowering; the default)"),
      llvm::cl::init("")};
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                      \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::desc(DESCRIPTION), llvm::cl::init(DEFAULT)};
#include "aicc/Pipelines/PipelineOptions.def"
};

/// Adds the passes of one MLIR stage for `config`: Stage::Graph, Fused, Tile, or Lowered
/// (the GPU lowering up to and including nvvm-attach-target for a GPU target, the CPU
/// lowering for cpu). Stages without MLIR passes (onnx, llvm, ptx, cubin, bundle) add
/// nothing. `config` must pass verifyPipelineConfig.
/// Each MLIR stage starts with aicc-attach-target (addAttachTarget).
void buildStagePipeline(mlir::OpPassManager &pm, const PipelineConfig &config, Stage stage);
/// aicc-attach-target{target=config.target hardware=config.hardware}: records the chip on
/// the module for the passes that read it (include/aicc/Target/TargetAttr.h), or checks that
/// the module already carries the same.
void addAttachTarget(mlir::OpPassManager &pm, const PipelineConfig &config);
/// The stages after `from` up to and including `to`, in order (nothing when to <= from).
void buildPipeline(mlir::OpPassManager &pm, const PipelineConfig &config, Stage from,
                   Stage to);

// The stages' pieces, for the tools that run one of them alone (aicc-run --reference, the
// fuzz targets); each is what buildStagePipeline adds for that stage.
void buildGraphPipeline(mlir::OpPassManager &pm, const PipelineConfig &config = {});
void buildFusionPipeline(mlir::OpPassManager &pm, const PipelineConfig &config = {});
void buildTilePipeline(mlir::OpPassManager &pm, const PipelineConfig &config = {});
/// Shared tail of both targets: tile ops -> linalg on tensors -> elementwise fusion ->
/// one-shot bufferization -> scf.parallel loops, on the nested kernels module.
void buildTileBufferizePipeline(mlir::OpPassManager &pm);
void buildCPUPipeline(mlir::OpPassManager &pm);
/// The tensor-core matmul lowering of `config.target`, first in the GPU lowering: sm_90a
/// convert-tile-dot-to-wgmma (its persistent grid sized for `config.hardware`'s SMs;
/// tma-store = wgmmaTmaStore), then convert-tile-dot-to-mma-sync on every chip with
/// mma.sync (sm_80 / sm_90 / sm_90a; smem-store = mmaSmemStore) for what wgmma refused;
/// nothing for the cpu. The chip table's features decide. Also run by aicc-compile's
/// --plan on a tile-stage plan file (programs per CUDA block are decided here).
void addTensorCoreMatmulPasses(mlir::OpPassManager &pm, const PipelineConfig &config);
/// The GPU lowering (Stage::Lowered of a GPU target): ends with the kernels as a gpu.module
/// in the LLVM/NVVM dialects with an #nvvm.target (chip = target, features =
/// ptxFeaturesOf(config), O3) attached.
void buildGPULoweringPipeline(mlir::OpPassManager &pm, const PipelineConfig &config);

/// The config that `options` spell (target and knobs), or an error naming the bad option.
llvm::Expected<PipelineConfig> configFromOptions(const StagePipelineOptions &options);
llvm::Expected<PipelineConfig> configFromOptions(const PipelineOptions &options);

/// Registers aicc-pipeline and the aicc-*-pipeline names with the global pass registry.
/// Option errors (unknown target / stage / hardware, a GPU pipeline for the cpu) fail the
/// pipeline's parsing with a message naming the option.
void registerPipelines();

} // namespace aicc

#endif
