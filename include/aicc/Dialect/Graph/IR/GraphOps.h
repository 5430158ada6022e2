//===- GraphOps.h - aicc graph dialect --------------------------*- C++ -*-===//
//
// The graph dialect: tensor-level operator DAG. See GraphOps.td for op semantics.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_DIALECT_GRAPH_IR_GRAPHOPS_H
#define AICC_DIALECT_GRAPH_IR_GRAPHOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "aicc/Dialect/Graph/IR/GraphOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "aicc/Dialect/Graph/IR/GraphOps.h.inc"

namespace aicc::graph {
/// Numpy/ONNX multidirectional broadcast of two static shapes (ONNX Broadcasting.md).
/// Returns failure when a pair of dims is neither equal nor 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Result shape of reducing `shape` over `axes` (empty = all dims), keeping size-1 dims
/// when `keepdims`. Fails when an axis is out of range, repeated or unsorted.
mlir::FailureOr<llvm::SmallVector<int64_t>>
reducedShape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> axes, bool keepdims);

/// True for graph.reduce_* ops.
bool isReduction(mlir::Operation *op);

/// True for the data-movement ops kernels fold into their loads (transpose, expand, slice,
/// pad, concat, tile): each output element is one input element, found by index arithmetic.
bool isView(mlir::Operation *op);

/// True for the graph ops that map one element to one element (relu, add, ...).
bool isElementwise(mlir::Operation *op);
} // namespace aicc::graph

#endif
