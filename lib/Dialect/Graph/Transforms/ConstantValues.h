//===- ConstantValues.h - float constants read as doubles -------*- C++ -*-===//
//
// Private to lib/Dialect/Graph/Transforms: the passes that rewrite constant weights at
// compile time (graph-norm-scale-into-weights) and graph-fuse (rule norm-prologue's column
// sums) read a float constant's elements so.
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_DIALECT_GRAPH_TRANSFORMS_CONSTANTVALUES_H
#define AICC_LIB_DIALECT_GRAPH_TRANSFORMS_CONSTANTVALUES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <vector>

namespace aicc::graph {

/// The elements of float constant `v` (a dense or dense-resource attribute of a statically
/// shaped float tensor) as doubles, row-major; none when `v` is not such a constant or its
/// resource cannot be read.
std::optional<std::vector<double>> floatConstantValues(mlir::Value v);

/// A dense attribute of float tensor type `t` holding `values` (row-major, t's element
/// count of them), each rounded once (to nearest, ties to even) to t's element type.
mlir::DenseElementsAttr roundedFloatAttr(mlir::RankedTensorType t, llvm::ArrayRef<double> values);

} // namespace aicc::graph

#endif
