// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule template (GraphFuse.cpp templateAbsorbs): the consumer's kernel template must be
// able to evaluate the producer where it reads it. The row template evaluates elementwise
// producers of its row input (loop fusion) and may write that input as a second result;
// matmul, conv, pool, reduction and scatter templates read their operands from memory.

// Accept: scale, mask add and softmax are one row kernel.
// CHECK-LABEL: func.func @accept_row_producers
// CHECK-NEXT:    %[[C:.*]] = graph.constant
// CHECK-NEXT:    graph.fusion_group "softmax" (%{{.*}}, %[[C]], %{{.*}}) : (tensor<2x4x8xf32>, tensor<f32>, tensor<4x8xf32>) -> tensor<2x4x8xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.softmax
// CHECK-NEXT:      graph.yield
func.func @accept_row_producers(%x: tensor<2x4x8xf32>, %mask: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %c = graph.constant dense<0.125> : tensor<f32>
  %0 = graph.mul %x, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = graph.add %0, %mask : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %2 = graph.softmax %1 {axis = 2 : i64} : tensor<2x4x8xf32>
  return %2 : tensor<2x4x8xf32>
}

// -----

// Accept: residual add + layer_norm are one kernel; the sum, used again later (the
// residual stream), is the kernel's second result.
// CHECK-LABEL: func.func @accept_residual_layer_norm
// CHECK-NEXT:    %[[G:.*]]:2 = graph.fusion_group "softmax" (%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[H:.*]] = graph.add
// CHECK-NEXT:      %[[L:.*]] = graph.layer_norm %[[H]]
// CHECK-NEXT:      graph.yield %[[H]], %[[L]]
// CHECK:         graph.fusion_group "elementwise" (%[[G]]#0, %[[G]]#1)
func.func @accept_residual_layer_norm(%x: tensor<4x16xf32>, %r: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %h = graph.add %x, %r : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %l = graph.layer_norm %h scale %g {axis = 1 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %o = graph.add %h, %l : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// Refuse: the matmul template reads its A operand from memory (no prologue fusion).
// CHECK-LABEL: func.func @refuse_matmul_prologue
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "epilogue" (%[[E]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "template"}]}
func.func @refuse_matmul_prologue(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.relu %x : tensor<4x8xf32>
  %1 = graph.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Refuse: the layer_norm scale is read from memory by the row template.
// CHECK-LABEL: func.func @refuse_row_scale
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "softmax" (%{{.*}}, %[[E]]) {refusals = [{input = 1 : i64, rule = "template"}]}
func.func @refuse_row_scale(%x: tensor<4x16xf32>, %g: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = graph.exp %g : tensor<16xf32>
  %1 = graph.layer_norm %x scale %0 {axis = 1 : i64} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
