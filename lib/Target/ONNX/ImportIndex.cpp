//===- ImportIndex.cpp - ONNX index ops -> graph dialect --------------------===//
//
// ArgMax/ArgMin, Hardmax, TopK, CumSum, OneHot, GatherND, Scatter*, Einsum.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importIndexOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
