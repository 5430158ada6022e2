// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// ReduceLogSumExp, as the ONNX importer decomposes it (m = reduce_max(x); log(sum(exp(x -
// m))) + m), is one row kernel ("softmax" kind, the LogSumExp row template).

// CHECK-LABEL: func.func @lse
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "softmax" (%{{.*}}) : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.reduce_max
// CHECK-NEXT:      graph.sub
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.reduce_sum
// CHECK-NEXT:      graph.log
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @lse(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = graph.exp %d : tensor<4x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %l = graph.log %s : tensor<4xf32>
  %mr = graph.reshape %m : (tensor<4x1xf32>) -> tensor<4xf32>
  %o = graph.add %l, %mr : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

// Not the pattern: the max is also a graph output; the chain falls back to two reduction
// kernels (the second evaluates x - m, exp in its prologue and log, + m in its epilogue).
// CHECK-LABEL: func.func @max_escapes
// CHECK:         graph.fusion_group "reduction"
// CHECK-NOT:     graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "reduction"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.sub
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.reduce_sum
// CHECK-NEXT:      graph.log
// CHECK-NEXT:      graph.add
func.func @max_escapes(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %m = graph.reduce_max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = graph.exp %d : tensor<4x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %l = graph.log %s : tensor<4x1xf32>
  %o = graph.add %l, %m : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %o, %m : tensor<4x1xf32>, tensor<4x1xf32>
}
