// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Reduction kernels (GraphFuse.cpp formReductions): a reduce op takes its elementwise
// producers over its input shape (prologue, also with broadcast operands such as a bias;
// rule template), its chain of elementwise consumers over its output shape (epilogue;
// rules single-user, iteration-space), and sibling reduce ops of the same input shape,
// axes and keepdims that read a common input and do not depend on it (horizontal: one
// kernel, one read of the input, several results).

// Accept: mean(x), mean(x * x) and exp of the first are one kernel with two results.
// CHECK-LABEL: func.func @accept_siblings
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<64x512xf32>)
// CHECK-NEXT:    %[[G:.*]]:2 = graph.fusion_group "reduction" (%[[X]]) : (tensor<64x512xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<64x512xf32>):
// CHECK-NEXT:      %[[M:.*]] = graph.reduce_mean %[[IN]]
// CHECK-NEXT:      %[[SQ:.*]] = graph.mul %[[IN]], %[[IN]]
// CHECK-NEXT:      %[[V:.*]] = graph.reduce_mean %[[SQ]]
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[M]]
// CHECK-NEXT:      graph.yield %[[V]], %[[E]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]#1, %[[G]]#0
func.func @accept_siblings(%x: tensor<64x512xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %m = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<64x512xf32>) -> tensor<64xf32>
  %sq = graph.mul %x, %x : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = false} : (tensor<64x512xf32>) -> tensor<64xf32>
  %e = graph.exp %m : tensor<64xf32>
  return %e, %v : tensor<64xf32>, tensor<64xf32>
}

// -----

// Accept: a bias broadcast into the reduce input (loaded per element), a max and a sum of
// different kinds, a divide by a constant in the epilogue.
// CHECK-LABEL: func.func @accept_bias_prologue
// CHECK:         graph.fusion_group "reduction" (%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x32xf32>, tensor<32xf32>, tensor<f32>) -> (tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.reduce_max
// CHECK-NEXT:      graph.div
// CHECK-NEXT:      graph.reduce_sum
// CHECK-NEXT:      graph.yield
// CHECK-NOT:     graph.fusion_group
func.func @accept_bias_prologue(%x: tensor<8x32xf32>, %b: tensor<32xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
  %c = graph.constant dense<4.0> : tensor<f32>
  %0 = graph.add %x, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %1 = graph.reduce_max %0 {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %2 = graph.div %1, %c : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %3 = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  return %2, %3 : tensor<8x1xf32>, tensor<8x1xf32>
}

// -----

// Refuse (single-user): x * x is also read by a matmul; it is stored once, and the
// reduction reads it from memory.
// CHECK-LABEL: func.func @refuse_shared_producer
// CHECK:         %[[SQ:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "reduction" (%[[SQ]]) {refusals = [{input = 0 : i64, rule = "single-user"}]}
func.func @refuse_shared_producer(%x: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>) {
  %sq = graph.mul %x, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = graph.reduce_sum %sq {axes = array<i64: 1>, keepdims = false} : (tensor<8x8xf32>) -> tensor<8xf32>
  %p = graph.matmul %sq, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s, %p : tensor<8xf32>, tensor<8x8xf32>
}

// -----

// Refuse (single-user): the sum has two elementwise consumers; it is stored, and they
// are one elementwise kernel.
// CHECK-LABEL: func.func @refuse_two_consumers
// CHECK:         %[[S:.*]] = graph.fusion_group "reduction"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.reduce_sum
// CHECK-NEXT:      graph.yield
// CHECK:         graph.fusion_group "elementwise" (%[[S]]) {refusals = [{input = 0 : i64, rule = "single-user"}]}
func.func @refuse_two_consumers(%x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<8x16xf32>) -> tensor<8xf32>
  %a = graph.exp %s : tensor<8xf32>
  %b = graph.log %s : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// Refuse (reduction-in-one-kernel): mean(x - mean(x)) needs the first mean before its
// prologue; and the two reductions are not siblings (one depends on the other).
// CHECK-LABEL: func.func @refuse_dependent_sibling
// CHECK:         %[[M:.*]] = graph.fusion_group "reduction" (%{{.*}}) :
// CHECK:         graph.fusion_group "reduction" (%{{.*}}, %[[M]]) {refusals = [{input = 1 : i64, rule = "reduction-in-one-kernel"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.sub
// CHECK-NEXT:      graph.reduce_mean
func.func @refuse_dependent_sibling(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %m = graph.reduce_mean %x {axes = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %d = graph.sub %x, %m : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %v = graph.reduce_mean %d {axes = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %v : tensor<8x1xf32>
}

// -----

// Not siblings: the same input reduced over different axes is two kernels (the template
// holds one reduced extent).
// CHECK-LABEL: func.func @other_axes
// CHECK:         graph.fusion_group "reduction"
// CHECK:         graph.fusion_group "reduction"
func.func @other_axes(%x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<16xf32>) {
  %a = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (tensor<8x16xf32>) -> tensor<8xf32>
  %b = graph.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : (tensor<8x16xf32>) -> tensor<16xf32>
  return %a, %b : tensor<8xf32>, tensor<16xf32>
}

// -----

// Refuse (template): a matmul's result is not evaluated per element in the prologue.
// CHECK-LABEL: func.func @refuse_matmul_producer
// CHECK:         %[[P:.*]] = graph.fusion_group "epilogue"
// CHECK:         graph.fusion_group "reduction" (%[[P]]) {refusals = [{input = 0 : i64, rule = "template"}]}
func.func @refuse_matmul_producer(%x: tensor<8x8xf32>) -> tensor<8xf32> {
  %p = graph.matmul %x, %x : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = graph.reduce_sum %p {axes = array<i64: 1>, keepdims = false} : (tensor<8x8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
