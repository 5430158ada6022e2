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

namespace aicc::graph::OpTrait {
/// GraphOps.td's Graph_Elementwise: result element i depends on operand element i only
/// (after numpy broadcasting). Ask with isElementwise(op).
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {};
/// GraphOps.td's Graph_Transcendental: a libm / SFU function per element.
template <typename ConcreteType>
class Transcendental : public mlir::OpTrait::TraitBase<ConcreteType, Transcendental> {};
/// Graph_View: data movement folded into loads (isView).
template <typename ConcreteType>
class View : public mlir::OpTrait::TraitBase<ConcreteType, View> {};
/// Graph_Reduction: graph.reduce_* (isReduction).
template <typename ConcreteType>
class Reduction : public mlir::OpTrait::TraitBase<ConcreteType, Reduction> {};
/// Graph_Contraction: matmul, gemm, conv (isContraction, CostModel.h).
template <typename ConcreteType>
class Contraction : public mlir::OpTrait::TraitBase<ConcreteType, Contraction> {};
} // namespace aicc::graph::OpTrait

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

/// True for graph.reduce_* ops (the Reduction trait).
inline bool isReduction(mlir::Operation *op) { return op->hasTrait<OpTrait::Reduction>(); }

/// True for the data-movement ops kernels fold into their loads (transpose, expand, slice,
/// pad, concat, tile, gather): each output element is one input element, found by index
/// arithmetic (the View trait).
inline bool isView(mlir::Operation *op) { return op->hasTrait<OpTrait::View>(); }

/// True for the graph ops that map one element to one element (relu, add, ...): the ops with
/// the Elementwise trait (GraphOps.td).
inline bool isElementwise(mlir::Operation *op) { return op->hasTrait<OpTrait::Elementwise>(); }
/// True for the elementwise ops that evaluate a transcendental function (Transcendental trait).
inline bool isTranscendental(mlir::Operation *op) {
  return op->hasTrait<OpTrait::Transcendental>();
}
} // namespace aicc::graph

#endif
