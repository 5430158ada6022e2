// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule no-aliasing (GraphFuse.cpp noAliasing): graph tensors are never written in place,
// but a value is visible under another name, and so must be in memory, when it is a graph
// output (the caller's buffer), when it is read through a reshape (a view of the same
// buffer), or when its consumer is a view op (which reads by index arithmetic on the
// buffer).

// Accept: a private temporary (exp) fuses into its consumer.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.relu
func.func @accept(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Refuse: exp is also a graph output.
// CHECK-LABEL: func.func @graph_output
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK:         graph.fusion_group "elementwise" (%[[E]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
func.func @graph_output(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Refuse: relu reads exp's buffer through a reshape.
// CHECK-LABEL: func.func @through_reshape
// CHECK:         %[[R:.*]] = graph.reshape
// CHECK-NEXT:    graph.fusion_group "elementwise" (%[[R]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
func.func @through_reshape(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.reshape %0 : (tensor<4x8xf32>) -> tensor<32xf32>
  %2 = graph.relu %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// Refuse: a transpose (a view) reads exp's buffer by index arithmetic; the transpose joins
// its consumer's kernel, exp stays in its own.
// CHECK-LABEL: func.func @view_consumer
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK:         graph.fusion_group "elementwise" (%[[E]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.relu
func.func @view_consumer(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.transpose %0, [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = graph.relu %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
