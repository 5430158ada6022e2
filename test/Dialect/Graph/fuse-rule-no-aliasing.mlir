// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// Rule no-aliasing (GraphFuse.cpp noAliasing): graph tensors are never written in place,
// but a value is visible under another name, and so must be in memory, when it is a graph
// output (the caller's buffer), when it is read through a reshape (a view of the same
// buffer), or when its consumer is a view op (which reads by index arithmetic on the
// buffer). Exception computed-view: in an elementwise kernel a transpose, reshape or slice
// of a value the kernel computes is index arithmetic on that value (the template evaluates
// it at the element the view maps to).

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

// Exception computed-view (FusionRules.h computedView): relu reads exp through a reshape,
// which the elementwise template evaluates as index arithmetic (the element keeps its linear
// index), so exp, the reshape and relu are one kernel.
// CHECK-LABEL: func.func @through_reshape
// CHECK-NEXT:    graph.fusion_group "elementwise" (%{{.*}}) : (tensor<4x8xf32>) -> tensor<32xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.relu
func.func @through_reshape(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.reshape %0 : (tensor<4x8xf32>) -> tensor<32xf32>
  %2 = graph.relu %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}

// -----

// Exception computed-view: a transpose of exp joins exp's kernel (relu's element (i, j)
// evaluates exp at (j, i)); before, exp was a kernel of its own and the transpose read its
// buffer.
// CHECK-LABEL: func.func @view_consumer
// CHECK-NEXT:    graph.fusion_group "elementwise" (%{{.*}}) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.relu
func.func @view_consumer(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.transpose %0, [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = graph.relu %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// computed-view does not cover a value the caller also reads (a graph output), nor views
// that read an element more than once (expand).
// CHECK-LABEL: func.func @computed_view_refused
// CHECK:         %[[E:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "elementwise" (%[[E]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.relu
// CHECK:         %[[F:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "elementwise" (%[[F]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.expand
// CHECK-NEXT:      graph.neg
func.func @computed_view_refused(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>) {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.transpose %0, [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = graph.relu %1 : tensor<8x4xf32>
  %3 = graph.exp %y : tensor<1x8xf32>
  %4 = graph.expand %3 : tensor<1x8xf32> -> tensor<4x8xf32>
  %5 = graph.neg %4 : tensor<4x8xf32>
  return %0, %2, %5 : tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>
}
