//===- ImportSpatial.cpp - ONNX spatial ops -> graph dialect ----------------===//
//
// Resize, Upsample, ConvTranspose.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importSpatialOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
