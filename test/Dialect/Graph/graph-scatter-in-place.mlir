// RUN: aicc-opt %s -split-input-file -graph-scatter-in-place | FileCheck %s

// torch's index_copy of a step's k into a KV cache that is a model input (HF's StaticCache
// update, exported Transpose -> ScatterND -> Transpose): one scatter_nd along the cache's
// sequence dim (axis 2), on the input itself; the updates stay as they were.
// CHECK-LABEL: func.func @kv_cache_index_copy
// CHECK-SAME:    (%[[C:.*]]: tensor<2x2x32x16xf32>, %[[P:.*]]: tensor<3x1xi64>, %[[K:.*]]: tensor<2x2x3x16xf32>)
// CHECK:         %[[U:.*]] = graph.transpose %[[K]], [2, 0, 1, 3]
// CHECK:         %[[S:.*]] = graph.scatter_nd %[[C]], %[[P]], %[[U]] {axis = 2 : i64} : (tensor<2x2x32x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<2x2x32x16xf32>
// CHECK-NEXT:    return %[[S]]
func.func @kv_cache_index_copy(%cache: tensor<2x2x32x16xf32>, %pos: tensor<3x1xi64>, %k: tensor<2x2x3x16xf32>) -> tensor<2x2x32x16xf32> {
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %u = graph.transpose %k, [2, 0, 1, 3] : (tensor<2x2x3x16xf32>) -> tensor<3x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y : tensor<2x2x32x16xf32>
}

// -----

// Index tuples of two dims ([1, 2] to the front) with a reduction: axis 1, reduction kept.
// CHECK-LABEL: func.func @two_dims_add
// CHECK:         graph.scatter_nd %arg0, %arg1, %arg2 {axis = 1 : i64, reduction = "add"} : (tensor<2x3x4x5xf32>, tensor<6x2xi64>, tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32>
func.func @two_dims_add(%x: tensor<2x3x4x5xf32>, %i: tensor<6x2xi64>, %u: tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32> {
  %d = graph.transpose %x, [1, 2, 0, 3] : (tensor<2x3x4x5xf32>) -> tensor<3x4x2x5xf32>
  %s = graph.scatter_nd %d, %i, %u {reduction = "add"} : (tensor<3x4x2x5xf32>, tensor<6x2xi64>, tensor<6x2x5xf32>) -> tensor<3x4x2x5xf32>
  %y = graph.transpose %s, [2, 0, 1, 3] : (tensor<3x4x2x5xf32>) -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}

// -----

// Left alone: the cache is read elsewhere too (its buffer cannot take the update), the
// transpose does not keep the other dims in order, the second transpose is not the
// inverse, and the data is not a model input.
// CHECK-LABEL: func.func @read_twice
// CHECK:         graph.transpose
// CHECK:         graph.scatter_nd %{{.*}} : (tensor<32x2x2x16xf32>
// CHECK-NOT:     axis =
func.func @read_twice(%cache: tensor<2x2x32x16xf32>, %pos: tensor<1x1xi64>, %u: tensor<1x2x2x16xf32>) -> (tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>) {
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<1x1xi64>, tensor<1x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y, %cache : tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>
}

// -----

// CHECK-LABEL: func.func @other_dims_reordered
// CHECK-NOT:     axis =
func.func @other_dims_reordered(%cache: tensor<2x3x32x16xf32>, %pos: tensor<1x1xi64>, %u: tensor<1x3x2x16xf32>) -> tensor<2x3x32x16xf32> {
  %d = graph.transpose %cache, [2, 1, 0, 3] : (tensor<2x3x32x16xf32>) -> tensor<32x3x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x3x2x16xf32>, tensor<1x1xi64>, tensor<1x3x2x16xf32>) -> tensor<32x3x2x16xf32>
  %y = graph.transpose %s, [2, 1, 0, 3] : (tensor<32x3x2x16xf32>) -> tensor<2x3x32x16xf32>
  return %y : tensor<2x3x32x16xf32>
}

// -----

// CHECK-LABEL: func.func @not_the_inverse
// CHECK-NOT:     axis =
func.func @not_the_inverse(%cache: tensor<2x2x32x16xf32>, %pos: tensor<1x1xi64>, %u: tensor<1x2x2x16xf32>) -> tensor<2x32x2x16xf32> {
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<1x1xi64>, tensor<1x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 0, 2, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x32x2x16xf32>
  return %y : tensor<2x32x2x16xf32>
}

// -----

// CHECK-LABEL: func.func @computed_data
// CHECK-NOT:     axis =
func.func @computed_data(%cache: tensor<2x2x32x16xf32>, %pos: tensor<1x1xi64>, %u: tensor<1x2x2x16xf32>) -> tensor<2x2x32x16xf32> {
  %c = graph.neg %cache : tensor<2x2x32x16xf32>
  %d = graph.transpose %c, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<1x1xi64>, tensor<1x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y : tensor<2x2x32x16xf32>
}
