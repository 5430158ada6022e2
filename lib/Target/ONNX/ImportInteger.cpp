//===- ImportInteger.cpp - ONNX integer ops -> graph dialect ----------------===//
//
// BitShift, QuantizeLinear, DequantizeLinear.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importIntegerOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
