//===- PipelineConfig.cpp - targets, stages, and the pipeline's knobs -------===//
#include "aicc/Pipelines/PipelineConfig.h"

#include "aicc/Target/Chip.h"
#include "aicc/Target/MatmulConfigSyntax.h"
#include "aicc/Target/TensorCoreRules.h"

#include "llvm/ADT/StringSwitch.h"

#include <optional>

using namespace aicc;

namespace {
constexpr Target kTargets[] = {Target::CPU,  Target::SM80,  Target::SM86, Target::SM89,
                               Target::SM90, Target::SM90a, Target::SM100};
} // namespace

llvm::StringRef aicc::targetName(Target t) {
  switch (t) {
  case Target::CPU:
    return "cpu";
  case Target::SM80:
    return "sm_80";
  case Target::SM86:
    return "sm_86";
  case Target::SM89:
    return "sm_89";
  case Target::SM90:
    return "sm_90";
  case Target::SM90a:
    return "sm_90a";
  case Target::SM100:
    return "sm_100";
  }
  return "cpu";
}

std::string aicc::targetNames() {
  std::string s;
  for (auto [i, t] : llvm::enumerate(kTargets))
    s += (i == 0 ? "" : i + 1 == std::size(kTargets) ? " or " : ", ") + targetName(t).str();
  return s;
}

llvm::Expected<Target> aicc::parseTarget(llvm::StringRef name) {
  for (Target t : kTargets)
    if (targetName(t) == name)
      return t;
  return llvm::createStringError("unknown target '" + name.str() + "' (expected " +
                                 targetNames() + ")");
}

const ChipInfo &aicc::chipOf(Target t) {
  // Every Target has a row of its name (Chip.cpp); the table is static.
  const ChipInfo *c = lookupChip(targetName(t));
  return c ? *c : allChips().front();
}

llvm::Expected<Stage> aicc::parseStage(llvm::StringRef name) {
  auto s = llvm::StringSwitch<std::optional<Stage>>(name)
               .Case("onnx", Stage::ONNX)
               .Case("graph", Stage::Graph)
               .Case("fused", Stage::Fused)
               .Case("tile", Stage::Tile)
               .Cases({"gpu", "cpu"}, Stage::Lowered)
               .Case("llvm", Stage::LLVM)
               .Case("ptx", Stage::PTX)
               .Case("cubin", Stage::Cubin)
               .Case("bundle", Stage::Bundle)
               .Default(std::nullopt);
  if (!s)
    return llvm::createStringError("unknown stage '" + name.str() +
                                   "' (expected onnx, graph, fused, tile, gpu, cpu, llvm, "
                                   "ptx, cubin or bundle)");
  return *s;
}

std::string aicc::stageName(Stage stage, Target target) {
  switch (stage) {
  case Stage::ONNX:
    return "onnx";
  case Stage::Graph:
    return "graph";
  case Stage::Fused:
    return "fused";
  case Stage::Tile:
    return "tile";
  case Stage::Lowered:
    return target == Target::CPU ? "cpu" : "gpu";
  case Stage::LLVM:
    return "llvm";
  case Stage::PTX:
    return "ptx";
  case Stage::Cubin:
    return "cubin";
  case Stage::Bundle:
    return "bundle";
  }
  return "?";
}

llvm::Error aicc::verifyPipelineConfig(const PipelineConfig &config) {
  const ChipInfo *hw = lookupChip(hardwareOf(config));
  if (!hw || !hw->isGPU)
    return llvm::createStringError(unknownHardwareMessage(hardwareOf(config)));
  if (config.convLayout != "auto" && config.convLayout != "nchw" && config.convLayout != "nhwc")
    return llvm::createStringError("unknown conv layout '" + config.convLayout +
                                   "' (expected auto, nchw or nhwc)");
  if (config.convAlgorithm != "auto" && config.convAlgorithm != "implicit-gemm" &&
      config.convAlgorithm != "direct")
    return llvm::createStringError("conv-algorithm must be auto, implicit-gemm or direct, got '" +
                                   config.convAlgorithm + "'");
  if (config.attention != "auto" && config.attention != "fused" && config.attention != "unfused")
    return llvm::createStringError("attention must be auto, fused or unfused, got '" +
                                   config.attention + "'");
  if (config.attentionPersistent != "auto" && config.attentionPersistent != "true" &&
      config.attentionPersistent != "false")
    return llvm::createStringError("attention-persistent must be auto, true or false, got '" +
                                   config.attentionPersistent + "'");
  if (config.attentionBlockM != 0 && config.attentionBlockM != 64 && config.attentionBlockM != 128)
    return llvm::createStringError("attention-block-m must be 0, 64 or 128, got " +
                                   std::to_string(config.attentionBlockM));
  if (config.attentionKVSplits < 0 || config.attentionKVSplits > kMaxAttentionKVSplits)
    return llvm::createStringError("attention-kv-splits must be in [0, " +
                                   std::to_string(kMaxAttentionKVSplits) + "], got " +
                                   std::to_string(config.attentionKVSplits));
  if (config.shapeBuckets < 1 || config.shapeBuckets > kMaxShapeBuckets)
    return llvm::createStringError("shape-buckets must be in [1, " +
                                   std::to_string(kMaxShapeBuckets) + "], got " +
                                   std::to_string(config.shapeBuckets));
  if (!config.matmulConfig.empty())
    if (auto parsed = parseMatmulConfig(config.matmulConfig); !parsed)
      return parsed.takeError();
  if (config.attention == "fused" && !hasFusedAttention(config.target))
    return llvm::createStringError(
        "attention=fused: target " + std::string(chipOf(config.target).name) +
        " has no attention kernel (the FlashAttention kernels need the cpu target or a GPU "
        "with mma.sync)");
  return llvm::Error::success();
}

bool aicc::hasFusedAttention(Target target) {
  const ChipInfo &c = chipOf(target);
  return !c.isGPU || c.has(ChipFeature::MmaSync);
}

bool aicc::fusesAttention(const PipelineConfig &config) {
  if (config.attention == "auto")
    return hasFusedAttention(config.target);
  return config.attention == "fused";
}

std::string aicc::hardwareOf(const PipelineConfig &config) {
  if (!config.hardware.empty())
    return config.hardware;
  const ChipInfo &c = chipOf(config.target);
  return c.isGPU ? c.productAlias.str() : "h200";
}

std::string aicc::ptxFeaturesOf(const PipelineConfig &config) {
  if (!config.ptxFeatures.empty())
    return config.ptxFeatures;
  return chipOf(config.target).ptxFeatures.str();
}
