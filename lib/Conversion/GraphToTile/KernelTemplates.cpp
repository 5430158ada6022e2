//===- KernelTemplates.cpp - graph fusion groups -> tile kernels -----------===//
//
// buildKernelForGroup: picks the template of a fusion group by its kind (one file each,
// *Template.cpp; TemplateSupport.h lists them).
//
//===----------------------------------------------------------------------===//
#include "TemplateSupport.h"

using namespace mlir;
using namespace aicc;
using namespace aicc::graph;
using namespace aicc::templates;
namespace tl = aicc::tile;

namespace {
/// The templates a fusion group can take (one file each).
enum class Template {
  Scatter,
  ConvGemm,
  Window,
  Matmul,
  LogSumExp,
  Softmax,
  Reduction,
  Attention,
  Elementwise
};
} // namespace

/// Which template builds `group`'s kernel: by its kind and first op.
static Template templateOf(FusionGroupOp group, const TemplateOptions &options) {
  StringRef kind = group.getKind();
  Operation *first = &group.getBody().front().front();
  if (isa<ScatterElementsOp, ScatterNDOp>(first) || scatterOfGroup(group))
    return Template::Scatter;
  if (auto conv = dyn_cast<ConvOp>(first);
      conv && (kind == "window" || kind == "epilogue") && useImplicitGemm(conv, options))
    return Template::ConvGemm;
  if (kind == "window" || (kind == "epilogue" && isa<ConvOp>(first)))
    return Template::Window;
  if (kind == "epilogue")
    return Template::Matmul;
  if (kind == "softmax" && isa<ReduceMaxOp>(first))
    return Template::LogSumExp;
  if (kind == "softmax")
    return Template::Softmax;
  if (kind == "reduction")
    return Template::Reduction;
  if (kind == "attention")
    return Template::Attention;
  return Template::Elementwise;
}

/// A matmul or convolution over an empty operand with a non-empty result (a dot product of
/// two [0] vectors, K = 0) would be its epilogue applied to zeros; the block loads and tensor
/// maps of these templates need every dim >= 1. Refused, not miscompiled (aicc-fuzz-onnx).
static Value emptyContractionOperand(FusionGroupOp group) {
  Operation *anchor = &group.getBody().front().front();
  if (isa<MatMulOp, GemmOp, ConvOp>(anchor))
    for (Value v : anchor->getOperands())
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0)
        return v;
  return {};
}

LogicalResult aicc::checkConvAlgorithm(Operation *op, StringRef pass, StringRef value) {
  if (value == "auto" || value == "implicit-gemm" || value == "direct")
    return success();
  return op->emitError() << pass << ": conv-algorithm must be auto, implicit-gemm or direct, got '"
                         << value << "'";
}

FailureOr<std::optional<MatmulConfig>>
aicc::chooseGroupMatmulConfig(FusionGroupOp group, const TemplateOptions &options) {
  for (Type t : group.getResultTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return std::optional<MatmulConfig>();
  if (emptyContractionOperand(group))
    return std::optional<MatmulConfig>();
  switch (templateOf(group, options)) {
  case Template::ConvGemm: {
    auto c = convGemmConfig(group, options);
    if (failed(c))
      return failure();
    return std::optional<MatmulConfig>(*c);
  }
  case Template::Matmul: {
    auto p = analyzeMatmul(group, options);
    if (failed(p))
      return failure();
    return std::optional<MatmulConfig>(p->config);
  }
  default:
    return std::optional<MatmulConfig>();
  }
}

/// The one kernel of a group of template `kind`.
static FailureOr<func::FuncOp> buildOneKernel(OpBuilder &builder, FusionGroupOp group,
                                              StringRef name, const TemplateOptions &options,
                                              Template kind) {
  switch (kind) {
  case Template::Scatter:
    return buildScatter(builder, group, name);
  case Template::ConvGemm:
    return buildConvGemm(builder, group, name, options);
  case Template::Window:
    return buildWindow(builder, group, name);
  case Template::Matmul:
    return buildMatmul(builder, group, name, options);
  case Template::LogSumExp:
    return buildLogSumExp(builder, group, name);
  case Template::Softmax:
    return buildSoftmax(builder, group, name);
  case Template::Reduction:
    return buildReduction(builder, group, name);
  case Template::Attention:
    return group.emitError("internal: an attention group's kernels are built by "
                           "buildAttentionKernels"),
           failure();
  case Template::Elementwise:
    break;
  }
  if (group.getNumResults() != 1 && group.getKind() != "elementwise")
    return group.emitError("multi-result groups are only supported for elementwise kernels"),
           failure();
  return buildElementwise(builder, group, name);
}

DenseI64ArrayAttr aicc::groupAnchorSymDim(FusionGroupOp group) {
  DenseI64ArrayAttr sd;
  group.getBody().walk([&](Operation *op) {
    if (auto a = op->getAttrOfType<DenseI64ArrayAttr>(kAnchorSymDimAttrName); a && !sd)
      sd = a;
  });
  return sd;
}

FailureOr<func::FuncOp> aicc::buildKernelForGroup(OpBuilder &builder, FusionGroupOp group,
                                                  StringRef name, const TemplateOptions &options) {
  auto plan = buildKernelsForGroup(builder, group, name, options);
  if (failed(plan))
    return failure();
  if (plan->launches.size() != 1) {
    for (GroupKernels::Launch &l : plan->launches)
      l.kernel.erase();
    return group.emitError("this group is ")
               << plan->launches.size() << " kernels (split-K); build it with buildKernelsForGroup",
           failure();
  }
  return plan->launches.front().kernel;
}

FailureOr<GroupKernels> aicc::buildKernelsForGroup(OpBuilder &builder, FusionGroupOp group,
                                                   StringRef name, const TemplateOptions &options) {
  for (Type t : group.getResultTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return group.emitError("kernel templates need static shapes"), failure();
  if (Value v = emptyContractionOperand(group)) {
    Operation *anchor = &group.getBody().front().front();
    return anchor->emitError() << anchor->getName() << " with an empty operand " << v.getType()
                               << " and a non-empty result is not supported (an empty contraction)",
           failure();
  }
  Template kind = templateOf(group, options);
  if (kind == Template::Matmul)
    return buildMatmulKernels(builder, group, name, options);
  if (kind == Template::Attention)
    return buildAttentionKernels(builder, group, name, options);
  // split_k is the matmul template's (the implicit-GEMM conv one refuses it itself).
  if (auto a = group->getAttrOfType<tl::MatmulConfigAttr>(tl::kMatmulConfigAttrName);
      a && a.getSplitK() != 1 && kind != Template::ConvGemm)
    return group.emitError("split_k = ")
               << a.getSplitK() << " is for matmul and Gemm kernels; this group's kernel is "
               << "not one",
           failure();
  auto kernel = buildOneKernel(builder, group, name, options, kind);
  if (failed(kernel))
    return failure();
  GroupKernels plan;
  SmallVector<GroupKernels::Buffer> bufs;
  for (unsigned i = 0; i < group.getInputs().size(); ++i)
    bufs.push_back({GroupKernels::Buffer::Input, i});
  for (unsigned i = 0; i < group.getNumResults(); ++i)
    bufs.push_back({GroupKernels::Buffer::Result, i});
  plan.launches.push_back({*kernel, bufs});
  return plan;
}
