//===- Pipelines.cpp - aicc's named pass pipelines -------------------------===//
#include "aicc/Pipelines/Pipelines.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void aicc::buildGraphPipeline(OpPassManager &pm) {
  buildGraphPipeline(pm, GraphPipelineOptions());
}

void aicc::buildGraphPipeline(OpPassManager &pm, const GraphPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(graph::createGraphInferShapes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(graph::createGraphRecompose());
  // After the re-composition (it matches the imported NCHW chains), before fusion (which
  // then sees the NHWC convs and the elementwise ops moved next to them). NCHW is the
  // imported layout: nothing to do. Any other value goes to the pass, which rejects it.
  if (options.convLayout != "nchw") {
    graph::GraphConvLayoutOptions layout;
    layout.layout = options.convLayout;
    pm.addNestedPass<func::FuncOp>(graph::createGraphConvLayout(layout));
    // Two convs of one input each transposed it.
    pm.addPass(createCSEPass());
  }
  // After the re-composition (it matches reduce_mean chains), before fusion.
  pm.addNestedPass<func::FuncOp>(graph::createGraphSplitReduction());
}

void aicc::buildFusionPipeline(OpPassManager &pm) { buildFusionPipeline(pm, "h200"); }

void aicc::buildFusionPipeline(OpPassManager &pm, llvm::StringRef hardware) {
  graph::GraphFuseOptions opts;
  opts.hardware = hardware.str();
  pm.addNestedPass<func::FuncOp>(graph::createGraphFuse(opts));
}

void aicc::buildTilePipeline(OpPassManager &pm) { buildTilePipeline(pm, TilePipelineOptions()); }

void aicc::buildTilePipeline(OpPassManager &pm, const TilePipelineOptions &options) {
  ConvertGraphToTileOptions o;
  o.target = options.target;
  o.matmulConfig = options.matmulConfig;
  o.allowTF32 = options.allowTF32;
  o.convAlgorithm = options.convAlgorithm;
  o.tmaStore = options.tmaStore;
  pm.addPass(createConvertGraphToTile(o));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void aicc::buildTileBufferizePipeline(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<ModuleOp>();
  kernels.addNestedPass<func::FuncOp>(createConvertTileToLinalg());
  kernels.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  kernels.addNestedPass<func::FuncOp>(tile::createTileFuseElementwise());
  kernels.addNestedPass<func::FuncOp>(createConvertTileStoreToSCF());
  kernels.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  kernels.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  kernels.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // Math functions neither libm-free GPU code nor the LLVM intrinsics cover, as exp/log.
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"sinh", "cosh", "tan", "asinh", "acosh", "atanh", "fpowi", "ctlz"};
  kernels.addNestedPass<func::FuncOp>(math::createMathExpandOpsPass(expand));
}

void aicc::buildCPUPipeline(OpPassManager &pm) {
  // The CPU has no block-load unit: block loads become masked gathers first.
  pm.nest<ModuleOp>().addNestedPass<func::FuncOp>(tile::createTileExpandBlockLoads());
  buildTileBufferizePipeline(pm);
  bufferization::buildBufferDeallocationPipeline(pm.nest<ModuleOp>());
  pm.addPass(createConvertTileToCPU());
  OpPassManager &kernels = pm.nest<ModuleOp>();
  // bf16 <-> f32 conversions as integer ops: the host's libgcc may lack __truncsfbf2.
  arith::ArithExpandOpsPassOptions expandOpts;
  expandOpts.includeBf16 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expandOpts));
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertMathToLibmPass());
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createArithToLLVMConversionPass());
  kernels.addPass(createFinalizeMemRefToLLVMConversionPass());
  kernels.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOpts;
  funcOpts.useBarePtrCallConv = true;
  kernels.addPass(createConvertFuncToLLVMPass(funcOpts));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createTileCPUEmitEntryPoints());
  kernels.addPass(createCanonicalizerPass());
}

void aicc::addTensorCoreMatmulPasses(OpPassManager &pm, llvm::StringRef chip, bool tmaStore,
                                     bool mmaSmemStore) {
  // sm_90a: wgmma first; the kernels it refuses (a config it cannot run, an epilogue that
  // reads a dot operand) still get tensor cores through mma.sync, which sm_90a runs too.
  if (chip == "sm_90a") {
    ConvertTileDotToWGMMAOptions wgmma;
    wgmma.tmaStore = tmaStore;
    pm.addPass(createConvertTileDotToWGMMA(wgmma));
  }
  if (chip == "sm_80" || chip == "sm_90" || chip == "sm_90a") {
    ConvertTileDotToMMASyncOptions mma;
    // Opt-in dynamic shared memory per block (CUDA C Programming Guide, "Technical
    // Specifications per Compute Capability"): 8.0 163 KiB, 9.0 227 KiB.
    mma.maxSharedBytes = chip == "sm_80" ? 163 * 1024 : 227 * 1024;
    mma.smemStore = mmaSmemStore;
    pm.addPass(createConvertTileDotToMMASync(mma));
  }
}

void aicc::buildGPULoweringPipeline(OpPassManager &pm, const GPUPipelineOptions &options) {
  // 1-D kernels (elementwise, rows, reductions) go to registers straight from their tensor
  // form; the rest (matmul, pools, scatter) bufferize and distribute (convert-tile-to-gpu).
  // sm_90a: matmul kernels go to TMA + wgmma (warp-specialized, persistent).
  // sm_80 / sm_90: matmul kernels go to cp.async + ldmatrix + mma.sync (multistage).
  addTensorCoreMatmulPasses(pm, options.chip, options.wgmmaTmaStore, options.mmaSmemStore);
  // Block loads no earlier pass took (TMA on sm_90a, cp.async on sm_80/sm_90) become masked
  // gathers first.
  pm.nest<ModuleOp>().addNestedPass<func::FuncOp>(tile::createTileExpandBlockLoads());
  pm.addPass(createConvertTileToGPURegisters());
  buildTileBufferizePipeline(pm);
  pm.addPass(createConvertTileToGPU());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // nvgpu ops (cp.async copies, ldmatrix of convert-tile-dot-to-mma-sync) -> NVVM, while
  // their memrefs still have their types.
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvmOpts;
  nvvmOpts.useBarePtrCallConv = true;
  nvvmOpts.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvmOpts));
  // NVVM ops written as inline PTX (wgmma.mma_async, mbarrier waits) become llvm.inline_asm.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createFinalizeTensorMapParams());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.triple = "nvptx64-nvidia-cuda";
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
}

void aicc::buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options) {
  buildGPULoweringPipeline(pm, options);
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(bin));
}

void aicc::registerPipelines() {
  PassPipelineRegistration<GraphPipelineOptions>(
      "aicc-graph-pipeline", "graph cleanup (shapes, canonicalize, cse, conv layout)",
      [](OpPassManager &pm, const GraphPipelineOptions &o) { buildGraphPipeline(pm, o); });
  PassPipelineRegistration<>("aicc-fusion-pipeline", "form fusion groups",
                             [](OpPassManager &pm) { buildFusionPipeline(pm); });
  PassPipelineRegistration<TilePipelineOptions>(
      "aicc-tile-pipeline", "fused graph -> tile kernels + host plan",
      [](OpPassManager &pm, const TilePipelineOptions &o) { buildTilePipeline(pm, o); });
  PassPipelineRegistration<>("aicc-cpu-pipeline", "tile kernels -> LLVM dialect host code",
                             buildCPUPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "aicc-gpu-pipeline", "tile kernels -> NVVM -> PTX in a gpu.binary", buildGPUPipeline);
}
