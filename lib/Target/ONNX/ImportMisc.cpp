//===- ImportMisc.cpp - ONNX misc ops -> graph dialect ----------------------===//
//
// ops that fit no other family.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importMiscOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
