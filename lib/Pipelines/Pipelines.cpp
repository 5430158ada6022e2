//===- Pipelines.cpp - aicc's named pass pipelines -------------------------===//
#include "aicc/Pipelines/Pipelines.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Graph/Transforms/Passes.h"
#include "aicc/Dialect/Tile/Transforms/Passes.h"
#include "aicc/Target/Chip.h"

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

#include <functional>
#include <optional>

using namespace mlir;
using namespace aicc;

void aicc::buildGraphPipeline(OpPassManager &pm, const PipelineConfig &config) {
  pm.addNestedPass<func::FuncOp>(graph::createGraphInferShapes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Before the re-compositions: the masks and scales they match are then constants.
  pm.addNestedPass<func::FuncOp>(graph::createGraphFoldConstants());
  pm.addNestedPass<func::FuncOp>(graph::createGraphRecompose());
  // After GELU / LayerNorm (whose chains do not overlap attention's), before fusion.
  if (fusesAttention(config))
    pm.addNestedPass<func::FuncOp>(graph::createGraphRecomposeAttention());
  // A KV cache that is a model input, updated at the step's positions along its own axis
  // (in place at convert-graph-to-tile), before the selects and before the transposes move.
  pm.addNestedPass<func::FuncOp>(graph::createGraphScatterInPlace());
  // A KV cache's update at the step's positions as selects (one elementwise kernel with the
  // transposes around it), before the transposes move.
  if (config.scatterSelectMaxUpdates > 0) {
    graph::GraphScatterToSelectOptions scatter;
    scatter.maxUpdates = config.scatterSelectMaxUpdates;
    pm.addNestedPass<func::FuncOp>(graph::createGraphScatterToSelect(scatter));
  }
  // After the attention is recognized (its patterns read the exported transposes): the
  // row-order transposes around projections move to the attention's view chains.
  pm.addNestedPass<func::FuncOp>(graph::createGraphSinkTransposes());
  // After the transposes moved (a projection's input is then the activation itself), before
  // fusion and graph-matvec (which then see one product).
  pm.addNestedPass<func::FuncOp>(graph::createGraphMergeSiblingMatmuls());
  // After the merge (q and k are then views of one product), before fusion (which puts the
  // rotation in that product's epilogue); it reads graph.attention.
  if (fusesAttention(config))
    pm.addNestedPass<func::FuncOp>(graph::createGraphRotaryIntoProjection());
  // After the merges (one product per norm: the weights are then constants side by side),
  // before fusion (which takes the scale-free RMS norm as the GEMM's prologue).
  pm.addNestedPass<func::FuncOp>(graph::createGraphNormScaleIntoWeights());
  // After the re-composition (it matches the imported NCHW chains), before fusion (which
  // then sees the NHWC convs and the elementwise ops moved next to them). NCHW is the
  // imported layout: nothing to do. auto: the 16-bit convs of GPU targets (tensor cores'
  // implicit GEMM), nothing on the cpu target. Any other value goes to the pass, which
  // rejects it.
  bool autoLayout = config.convLayout == "auto";
  if (config.convLayout != "nchw" && !(autoLayout && !chipOf(config.target).isGPU)) {
    graph::GraphConvLayoutOptions layout;
    layout.layout = autoLayout ? "nhwc" : config.convLayout;
    if (autoLayout)
      layout.elementTypes = {"f16", "bf16"};
    // sm_90a's wgmma producer gathers 8-byte runs (4 f16 channels); the mma.sync path 16.
    if (chipOf(config.target).has(ChipFeature::Wgmma))
      layout.padChannels = 4;
    pm.addNestedPass<func::FuncOp>(graph::createGraphConvLayout(layout));
    // Two convs of one input each transposed it.
    pm.addPass(createCSEPass());
  }
  // Small-M matmuls as dot-product reductions (GPU targets only: the cpu target's matmul
  // kernel is already a blocked GEMV loop), before graph-split-reduction sees the
  // reductions it makes.
  if (config.matvecMaxRows > 0 && config.target != Target::CPU) {
    graph::GraphMatVecOptions matvec;
    matvec.maxRows = config.matvecMaxRows;
    pm.addNestedPass<func::FuncOp>(graph::createGraphMatVec(matvec));
  }
  // After the re-composition (it matches reduce_mean chains), before fusion.
  pm.addNestedPass<func::FuncOp>(graph::createGraphSplitReduction());
}

void aicc::buildFusionPipeline(OpPassManager &pm, const PipelineConfig &config) {
  pm.addNestedPass<func::FuncOp>(graph::createGraphFuse());
}

void aicc::buildTilePipeline(OpPassManager &pm, const PipelineConfig &config) {
  // The kernel configs first (a typed tile.matmul_config per matmul group), then the
  // kernels built with them.
  SelectMatmulConfigsOptions select;
  select.matmulConfig = config.matmulConfig;
  select.splitK = config.matmulSplitK;
  select.allowTF32 = config.allowTF32;
  select.convAlgorithm = config.convAlgorithm;
  select.shapeBuckets = config.shapeBuckets;
  pm.addPass(createSelectMatmulConfigs(select));
  ConvertGraphToTileOptions o;
  o.allowTF32 = config.allowTF32;
  o.convAlgorithm = config.convAlgorithm;
  o.tmaStore = config.wgmmaTmaStore;
  o.attentionBlockM = config.attentionBlockM;
  o.attentionKVSplits = config.attentionKVSplits;
  o.shapeBuckets = config.shapeBuckets;
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

void aicc::addTensorCoreMatmulPasses(OpPassManager &pm, const PipelineConfig &config) {
  const ChipInfo &c = chipOf(config.target);
  // FlashAttention kernels first (they hold two tile.dot ops the matmul lowerings refuse).
  // sm_90a: the template's wgmma form (128 x 128 blocks) to FlashAttention-3; the rest (the
  // mma.sync form: --attention-block-m, head sizes other than 64 / 128) to mma.sync.
  if (fusesAttention(config) && c.has(ChipFeature::Wgmma)) {
    ConvertTileAttentionToWGMMAOptions o;
    o.intraWarpgroupOverlap = config.attentionOverlap;
    o.warpgroupPingpong = config.attentionPingpong;
    o.persistent = config.attentionPersistent;
    o.hardware = hardwareOf(config);
    pm.addPass(createConvertTileAttentionToWGMMA(o));
  }
  if (fusesAttention(config) && c.has(ChipFeature::MmaSync))
    pm.addPass(createConvertTileAttentionToMMASync());
  // wgmma first (sm_90a); the kernels it refuses (a config it cannot run, an epilogue that
  // reads a dot operand) still get tensor cores through mma.sync, which sm_90a runs too.
  if (c.has(ChipFeature::Wgmma)) {
    ConvertTileDotToWGMMAOptions wgmma;
    wgmma.tmaStore = config.wgmmaTmaStore;
    pm.addPass(createConvertTileDotToWGMMA(wgmma));
  }
  if (c.has(ChipFeature::MmaSync)) {
    ConvertTileDotToMMASyncOptions mma;
    // Explicit (the pass would read the same row): the printed pipeline shows the budget.
    mma.maxSharedBytes = c.sharedMemPerBlockBytes;
    mma.smemStore = config.mmaSmemStore;
    pm.addPass(createConvertTileDotToMMASync(mma));
  }
}

void aicc::buildGPULoweringPipeline(OpPassManager &pm, const PipelineConfig &config) {
  // 1-D kernels (elementwise, rows, reductions) go to registers straight from their tensor
  // form; the rest (matmul, pools, scatter) bufferize and distribute (convert-tile-to-gpu).
  // sm_90a: matmul kernels go to TMA + wgmma (warp-specialized, persistent).
  // sm_80 / sm_90: matmul kernels go to cp.async + ldmatrix + mma.sync (multistage).
  addTensorCoreMatmulPasses(pm, config);
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
  target.chip = targetName(config.target).str();
  target.features = ptxFeaturesOf(config);
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
}

void aicc::addAttachTarget(OpPassManager &pm, const PipelineConfig &config) {
  AttachTargetOptions o;
  o.target = targetName(config.target).str();
  o.hardware = hardwareOf(config);
  pm.addPass(createAttachTarget(o));
}

void aicc::buildStagePipeline(OpPassManager &pm, const PipelineConfig &config, Stage stage) {
  // Every MLIR stage starts by recording (or checking) the chip on the module: its passes
  // read it from there (include/aicc/Target/TargetAttr.h).
  if (stage == Stage::Graph || stage == Stage::Fused || stage == Stage::Tile ||
      stage == Stage::Lowered)
    addAttachTarget(pm, config);
  switch (stage) {
  case Stage::Graph:
    return buildGraphPipeline(pm, config);
  case Stage::Fused:
    return buildFusionPipeline(pm, config);
  case Stage::Tile:
    return buildTilePipeline(pm, config);
  case Stage::Lowered:
    if (config.target == Target::CPU)
      return buildCPUPipeline(pm);
    return buildGPULoweringPipeline(pm, config);
  case Stage::ONNX:
  case Stage::LLVM:
  case Stage::PTX:
  case Stage::Cubin:
  case Stage::Bundle:
    return; // not MLIR passes: import, translation, codegen, ptxas, bundling
  }
}

void aicc::buildPipeline(OpPassManager &pm, const PipelineConfig &config, Stage from,
                         Stage to) {
  for (Stage s : {Stage::Graph, Stage::Fused, Stage::Tile, Stage::Lowered})
    if (stageRank(s) > stageRank(from) && stageRank(s) <= stageRank(to))
      buildStagePipeline(pm, config, s);
}

namespace {
/// The target and the knobs of `options` (either options struct) as a PipelineConfig.
template <typename Options>
llvm::Expected<PipelineConfig> configOf(const Options &options) {
  PipelineConfig config;
  auto target = parseTarget(options.target);
  if (!target)
    return target.takeError();
  config.target = *target;
#define AICC_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                      \
  config.FIELD = options.FIELD;
#include "aicc/Pipelines/PipelineOptions.def"
  if (llvm::Error e = verifyPipelineConfig(config))
    return std::move(e);
  return config;
}

using ErrorHandler = llvm::function_ref<LogicalResult(const llvm::Twine &)>;

/// Registers pipeline `arg` whose options parse into `Options`; `build` gets the verified
/// config and may refuse it (a message for errorHandler).
template <typename Options>
void registerConfigPipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<LogicalResult(OpPassManager &, const Options &, const PipelineConfig &,
                                ErrorHandler)>
        build) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [build, name](OpPassManager &pm, llvm::StringRef text, ErrorHandler errorHandler) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        auto config = configOf(options);
        if (!config)
          return errorHandler(name + ": " + llvm::toString(config.takeError()));
        return build(pm, options, *config, errorHandler);
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

/// A per-stage pipeline: `stage`'s passes (+ `extra` after them).
void registerStagePipeline(llvm::StringRef arg, llvm::StringRef description, Stage stage,
                           std::optional<bool> gpuOnly = std::nullopt,
                           void (*extra)(OpPassManager &) = nullptr) {
  std::string name = arg.str();
  registerConfigPipeline<StagePipelineOptions>(
      arg, description,
      [=](OpPassManager &pm, const StagePipelineOptions &, const PipelineConfig &config,
          ErrorHandler errorHandler) -> LogicalResult {
        bool gpu = config.target != Target::CPU;
        if (gpuOnly && *gpuOnly && !gpu)
          return errorHandler(name + " lowers for a GPU: give target=sm_80, sm_86, sm_89, sm_90, sm_90a or sm_100");
        if (gpuOnly && !*gpuOnly && gpu)
          return errorHandler(name + " lowers for the cpu target, not " +
                              targetName(config.target) + " (aicc-gpu-pipeline)");
        buildStagePipeline(pm, config, stage);
        if (extra)
          extra(pm);
        return success();
      });
}

/// gpu-module-to-binary (compilationTarget isa: PTX in a gpu.binary), after the lowering.
void addGPUModuleToBinary(OpPassManager &pm) {
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(bin));
}
} // namespace

llvm::Expected<PipelineConfig> aicc::configFromOptions(const StagePipelineOptions &options) {
  return configOf(options);
}

llvm::Expected<PipelineConfig> aicc::configFromOptions(const PipelineOptions &options) {
  return configOf(options);
}

void aicc::registerPipelines() {
  registerConfigPipeline<PipelineOptions>(
      "aicc-pipeline",
      "aicc-compile's MLIR pipeline for target, from stage `from` to stage `to`",
      [](OpPassManager &pm, const PipelineOptions &options, const PipelineConfig &config,
         ErrorHandler errorHandler) -> LogicalResult {
        auto from = parseStage(options.from);
        if (!from)
          return errorHandler("aicc-pipeline: from: " + llvm::toString(from.takeError()));
        Stage to = Stage::Lowered;
        if (!options.to.empty()) {
          auto t = parseStage(options.to);
          if (!t)
            return errorHandler("aicc-pipeline: to: " + llvm::toString(t.takeError()));
          to = *t;
        }
        if (stageRank(*from) > stageRank(Stage::Tile))
          return errorHandler("aicc-pipeline: from=" + options.from +
                              ": the MLIR stages start at onnx, graph, fused or tile");
        if (stageRank(to) < stageRank(Stage::Graph) || stageRank(to) > stageRank(Stage::Lowered))
          return errorHandler("aicc-pipeline: to=" + options.to +
                              ": the MLIR stages end at graph, fused, tile, gpu or cpu "
                              "(llvm, ptx, cubin and bundle are aicc-compile's)");
        if (stageRank(to) <= stageRank(*from))
          return errorHandler("aicc-pipeline: to=" + stageName(to, config.target) +
                              " is not after from=" + stageName(*from, config.target));
        if (to == Stage::Lowered && !options.to.empty() &&
            options.to != stageName(Stage::Lowered, config.target))
          return errorHandler("aicc-pipeline: to=" + options.to + " is not target " +
                              targetName(config.target) + "'s lowering (to=" +
                              stageName(Stage::Lowered, config.target) + ")");
        buildPipeline(pm, config, *from, to);
        return success();
      });
  registerStagePipeline("aicc-graph-pipeline",
                        "graph cleanup (shapes, canonicalize, cse, conv layout)", Stage::Graph);
  registerStagePipeline("aicc-fusion-pipeline", "form fusion groups", Stage::Fused);
  registerStagePipeline("aicc-tile-pipeline", "fused graph -> tile kernels + host plan",
                        Stage::Tile);
  registerStagePipeline("aicc-cpu-pipeline", "tile kernels -> LLVM dialect host code",
                        Stage::Lowered, /*gpuOnly=*/false);
  registerStagePipeline("aicc-gpu-pipeline", "tile kernels -> NVVM -> PTX in a gpu.binary",
                        Stage::Lowered, /*gpuOnly=*/true, addGPUModuleToBinary);
}
