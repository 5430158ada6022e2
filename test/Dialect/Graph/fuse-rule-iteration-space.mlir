// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule iteration-space (GraphFuse.cpp sameIterationSpace): a producer joins a consumer
// that iterates over exactly its shape, so it is computed once per element (never again
// for every broadcast copy).

// Accept: producer and consumer have one shape; a smaller operand (the bias) is a kernel
// input read with broadcasting.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.add
func.func @accept(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.exp %x : tensor<2x3xf32>
  %1 = graph.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Refuse: exp on [3] broadcast to [2, 3] by its consumer.
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%{{.*}}) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK:         graph.fusion_group "elementwise" (%[[E]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "iteration-space"}]}
func.func @broadcast(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.exp %a : tensor<3xf32>
  %1 = graph.add %0, %b : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Refuse in a row kernel: the mask add joins the softmax (loop fusion), but the exp of
// the [16] bias it broadcasts does not.
// CHECK-LABEL: func.func @row_broadcast
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%{{.*}}) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK:         graph.fusion_group "softmax" (%{{.*}}, %[[E]]) {refusals = [{input = 1 : i64, rule = "iteration-space"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.softmax
func.func @row_broadcast(%x: tensor<4x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = graph.exp %b : tensor<16xf32>
  %1 = graph.add %x, %0 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = graph.softmax %1 {axis = 1 : i64} : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
