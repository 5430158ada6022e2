// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule single-user (GraphFuse.cpp hasSingleUser): a producer joins its consumer's kernel
// only when the consumer is its one user (else it is stored once and read back), unless
// recomputing it is cheaper (fuse-rule-recompute-cost.mlir). A matmul is never recomputed:
// its output is kept and read by every consumer.

// Accept: relu has one user (tanh); one kernel.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "elementwise" (%{{.*}}) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.tanh
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @accept(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = graph.relu %x : tensor<4x16xf32>
  %1 = graph.tanh %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// Refuse: the matmul result has two elementwise users. The matmul kernel writes it; each
// consumer reads it (refused by single-user); the consumers read one common input and
// have one shape, so they share one kernel (horizontal fusion).
// CHECK-LABEL: func.func @matmul_two_users
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group "epilogue" (%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]]:2 = graph.fusion_group "elementwise" (%[[M]]) {refusals = [{input = 0 : i64, rule = "single-user"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.tanh
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[E]]#0, %[[E]]#1
func.func @matmul_two_users(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = graph.relu %0 : tensor<4x16xf32>
  %2 = graph.tanh %0 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Refuse: a softmax result read by an elementwise op and by a matmul is stored; neither
// consumer fuses it.
// CHECK-LABEL: func.func @softmax_two_users
// CHECK:         %[[S:.*]] = graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" (%[[S]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "template"}]}
// CHECK:         graph.fusion_group "elementwise" (%[[S]]) {refusals = [{input = 0 : i64, rule = "single-user"}]}
func.func @softmax_two_users(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x16xf32>
  %1 = graph.matmul %0, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %2 = graph.exp %0 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}
