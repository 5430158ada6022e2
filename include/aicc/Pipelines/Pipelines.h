//===- Pipelines.h - aicc's named pass pipelines ----------------*- C++ -*-===//
//
// Every pipeline aicc-compile runs is registered here, so each stage reproduces in
// aicc-opt with --pass-pipeline="builtin.module(aicc-<name>-pipeline)".
//
//   aicc-graph-pipeline   graph cleanup: graph-infer-shapes, canonicalize, cse, graph-recompose,
//                         (conv-layout=nhwc: graph-conv-layout, cse), graph-split-reduction
//   aicc-fusion-pipeline  graph-fuse (fusion groups = future kernels)
//   aicc-tile-pipeline    convert-graph-to-tile (kernels + host plan)
//   aicc-cpu-pipeline     tile kernels -> LLVM dialect host code (+ entry points)
//   aicc-gpu-pipeline     tile kernels -> gpu.module -> NVVM -> PTX (gpu.binary)
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PIPELINES_PIPELINES_H
#define AICC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace aicc {

/// Options of aicc-graph-pipeline.
struct GraphPipelineOptions : public mlir::PassPipelineOptions<GraphPipelineOptions> {
  Option<std::string> convLayout{
      *this, "conv-layout",
      llvm::cl::desc("layout of 2-D group-1 convolutions: nchw (as imported, no rewrite) or "
                     "nhwc (graph-conv-layout: channels last, for tensor-core implicit GEMM)"),
      llvm::cl::init("nchw")};
};

/// Options of aicc-tile-pipeline.
struct TilePipelineOptions : public mlir::PassPipelineOptions<TilePipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cpu, sm_80, sm_90 or sm_90a: the matmul tile "
                                            "config space (chooseMatmulConfig)"),
                             llvm::cl::init("cpu")};
  Option<std::string> matmulConfig{
      *this, "matmul-config",
      llvm::cl::desc("override the matmul tile config: BMxBNxBK[xSTAGES] (empty: heuristic)"),
      llvm::cl::init("")};
  Option<bool> allowTF32{*this, "allow-tf32",
                         llvm::cl::desc("f32 matmuls may run on tf32 tensor cores"),
                         llvm::cl::init(false)};
  Option<std::string> convAlgorithm{
      *this, "conv-algorithm",
      llvm::cl::desc("2-D group-1 convs: auto (implicit-gemm where tensor cores take it: "
                     "sm_80/sm_90/sm_90a f16/bf16, sm_90a f32 with allow-tf32; else direct), "
                     "implicit-gemm or "
                     "direct"),
      llvm::cl::init("auto")};
  Option<bool> tmaStore{*this, "tma-store",
                        llvm::cl::desc("sm_90a: shape kernels for the TMA-store epilogue (NCHW "
                                       "conv tiles within one image); aicc-compile "
                                       "--wgmma-tma-store sets it"),
                        llvm::cl::init(true)};
};

struct GPUPipelineOptions : public mlir::PassPipelineOptions<GPUPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("target SM (sm_80, sm_90, sm_90a)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features", llvm::cl::desc("PTX ISA features"),
                               llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "opt-level", llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<bool> wgmmaTmaStore{
      *this, "wgmma-tma-store",
      llvm::cl::desc("sm_90a matmul epilogues store through shared memory and TMA "
                     "(convert-tile-dot-to-wgmma tma-store)"),
      llvm::cl::init(true)};
  Option<bool> mmaSmemStore{
      *this, "mma-smem-store",
      llvm::cl::desc("sm_80 / sm_90 matmul epilogues store through a shared-memory staging "
                     "tile and 16-byte global stores (convert-tile-dot-to-mma-sync smem-store)"),
      llvm::cl::init(true)};
};

void buildGraphPipeline(mlir::OpPassManager &pm);
/// The same with `options`; conv-layout=nhwc adds graph-conv-layout (then cse) after
/// graph-recompose. The pipeline does not check the option's value: graph-conv-layout
/// fails on anything but nchw / nhwc (nchw adds nothing here).
void buildGraphPipeline(mlir::OpPassManager &pm, const GraphPipelineOptions &options);
void buildFusionPipeline(mlir::OpPassManager &pm);
/// The same, with graph-fuse's cost model on the hardware description `hardware` ("h200",
/// "sm_90"; CostModel.h).
void buildFusionPipeline(mlir::OpPassManager &pm, llvm::StringRef hardware);
void buildTilePipeline(mlir::OpPassManager &pm);
void buildTilePipeline(mlir::OpPassManager &pm, const TilePipelineOptions &options);
/// Shared tail of both targets: tile ops -> linalg on tensors -> elementwise fusion ->
/// one-shot bufferization -> scf.parallel loops, on the nested kernels module.
void buildTileBufferizePipeline(mlir::OpPassManager &pm);
void buildCPUPipeline(mlir::OpPassManager &pm);
/// The tensor-core matmul lowering of `chip`, first in the GPU lowering: sm_90a
/// convert-tile-dot-to-wgmma, sm_80 / sm_90 convert-tile-dot-to-mma-sync (with the chip's
/// shared memory per block), nothing for other chips. `tmaStore`: the wgmma epilogue stores
/// through shared memory and TMA (convert-tile-dot-to-wgmma's tma-store option);
/// `mmaSmemStore`: the mma.sync epilogue stores through a shared-memory staging tile
/// (convert-tile-dot-to-mma-sync's smem-store option).
void addTensorCoreMatmulPasses(mlir::OpPassManager &pm, llvm::StringRef chip,
                               bool tmaStore = true, bool mmaSmemStore = true);
/// aicc-gpu-pipeline without its last pass (gpu-module-to-binary): ends with the kernels
/// as a gpu.module in the LLVM/NVVM dialects with an #nvvm.target attached.
void buildGPULoweringPipeline(mlir::OpPassManager &pm, const GPUPipelineOptions &options);
void buildGPUPipeline(mlir::OpPassManager &pm, const GPUPipelineOptions &options);

/// Registers the aicc-*-pipeline names with the global pass registry.
void registerPipelines();

} // namespace aicc

#endif
