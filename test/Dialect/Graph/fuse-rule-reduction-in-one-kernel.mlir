// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule reduction-in-one-kernel (GraphFuse.cpp reductionStaysInOneKernel): a reduced dim is
// handled by one kernel template. A reduction's result does not fuse into a consumer that
// reduces again, nor into one that iterates over the dims it reduced.

// Accept: softmax's reductions stay inside the row template, with its elementwise
// producer and consumer.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    graph.fusion_group "softmax"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.softmax
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.yield
func.func @accept(%x: tensor<4x16xf32>, %s: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = graph.mul %x, %s : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = graph.softmax %0 {axis = 1 : i64} : tensor<4x16xf32>
  %2 = graph.relu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// Refuse: a reduction of a softmax result (two reductions in a row).
// CHECK-LABEL: func.func @reduce_after_row
// CHECK-NEXT:    %[[S:.*]] = graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "reduction" (%[[S]]) {refusals = [{input = 0 : i64, rule = "reduction-in-one-kernel"}]}
func.func @reduce_after_row(%x: tensor<4x16xf32>) -> tensor<4x1xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x16xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  return %1 : tensor<4x1xf32>
}

// -----

// Refuse: x - mean(x) iterates over the dim the mean reduced.
// CHECK-LABEL: func.func @broadcast_back
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group "reduction"
// CHECK:         graph.fusion_group "elementwise" (%{{.*}}, %[[M]]) {refusals = [{input = 1 : i64, rule = "reduction-in-one-kernel"}]}
func.func @broadcast_back(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
