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

FailureOr<func::FuncOp> aicc::buildKernelForGroup(OpBuilder &builder, FusionGroupOp group,
                                                  StringRef name, const TemplateOptions &options) {
  for (Type t : group.getResultTypes())
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return group.emitError("kernel templates need static shapes"), failure();
  StringRef kind = group.getKind();
  // A matmul or convolution over an empty operand with a non-empty result (a dot product of
  // two [0] vectors, K = 0) would be its epilogue applied to zeros; the block loads and tensor
  // maps of these templates need every dim >= 1. Refused, not miscompiled (aicc-fuzz-onnx).
  Operation *anchor = &group.getBody().front().front();
  if (isa<MatMulOp, GemmOp, ConvOp>(anchor))
    for (Value v : anchor->getOperands())
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0)
        return anchor->emitError()
                   << anchor->getName() << " with an empty operand " << v.getType()
                   << " and a non-empty result is not supported (an empty contraction)",
               failure();
  if (isa<ScatterElementsOp, ScatterNDOp>(group.getBody().front().front()))
    return buildScatter(builder, group, name);
  if (auto conv = dyn_cast<ConvOp>(group.getBody().front().front());
      conv && (kind == "window" || kind == "epilogue") && useImplicitGemm(conv, options))
    return buildConvGemm(builder, group, name, options);
  if (kind == "window" || (kind == "epilogue" && isa<ConvOp>(group.getBody().front().front())))
    return buildWindow(builder, group, name);
  if (kind == "epilogue")
    return buildMatmul(builder, group, name, options);
  if (kind == "softmax" && isa<ReduceMaxOp>(group.getBody().front().front()))
    return buildLogSumExp(builder, group, name);
  if (kind == "softmax")
    return buildSoftmax(builder, group, name);
  if (kind == "reduction")
    return buildReduction(builder, group, name);
  if (group.getNumResults() != 1 && kind != "elementwise")
    return group.emitError("multi-result groups are only supported for elementwise kernels"),
           failure();
  return buildElementwise(builder, group, name);
}

