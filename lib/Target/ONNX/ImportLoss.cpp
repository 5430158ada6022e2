//===- ImportLoss.cpp - ONNX loss ops -> graph dialect ----------------------===//
//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importLossOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
