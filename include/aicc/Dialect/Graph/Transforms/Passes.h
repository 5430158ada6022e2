//===- Passes.h - graph dialect passes --------------------------*- C++ -*-===//
#ifndef AICC_DIALECT_GRAPH_TRANSFORMS_PASSES_H
#define AICC_DIALECT_GRAPH_TRANSFORMS_PASSES_H

#include "aicc/Dialect/Graph/IR/GraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace aicc::graph {
#define GEN_PASS_DECL
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "aicc/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace aicc::graph

#endif
