// RUN: aicc-opt %s -graph-fuse | FileCheck %s
// Exception computed-view with a concat (isRemapView, FusionRules.h): the rotate-half of a
// rotary embedding, concat(-x2, x1), reads each of its elements from one input, so a
// concat of a value the elementwise kernel computes (the neg) joins that kernel, and the
// multiply-add consuming it too: one kernel, not a kernel for the neg and concat and one for
// the rest. test/Tools/views-fusion.test runs the same pattern against the float64
// evaluator (Inputs/views-rope.mlir).
// CHECK-LABEL: func.func @rope
// CHECK:         graph.fusion_group "elementwise"
// CHECK:           graph.neg
// CHECK-NEXT:      graph.concat
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.add
// CHECK-NOT:     graph.fusion_group
func.func @rope(%q: tensor<2x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> tensor<2x5x8xf32> {
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x5x8xf32> -> tensor<2x5x4xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<2x5x8xf32> -> tensor<2x5x4xf32>
  %qn = graph.neg %q2 : tensor<2x5x4xf32>
  %qr = graph.concat %qn, %q1 {axis = 2 : i64} : (tensor<2x5x4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x8xf32>
  %qa = graph.mul %q, %cos : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>
  %qb = graph.mul %qr, %sin : (tensor<2x5x8xf32>, tensor<5x8xf32>) -> tensor<2x5x8xf32>
  %qo = graph.add %qa, %qb : (tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return %qo : tensor<2x5x8xf32>
}
