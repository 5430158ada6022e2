// RUN: aicc-opt %s -split-input-file -allow-unregistered-dialect -graph-fuse | FileCheck %s
// Rule side-effect-free (GraphFuse.cpp isSideEffectFree): only ops without memory effects
// move into kernels. Every graph op is Pure; an op of another dialect with unknown effects
// stays where it is, and its consumers read its result from memory.

// Accept: two pure elementwise ops form one kernel.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    graph.fusion_group "elementwise"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.relu
func.func @accept(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = graph.exp %x : tensor<8xf32>
  %1 = graph.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Refuse: the producer may have side effects (an unregistered op): it stays outside the
// kernels and the relu's kernel records the rule for that input.
// CHECK-LABEL: func.func @refuse
// CHECK-NEXT:    %[[E:.*]] = "test.effect"
// CHECK-NEXT:    graph.fusion_group "elementwise" (%[[E]]) {refusals = [{input = 0 : i64, rule = "side-effect-free"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.relu
func.func @refuse(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "test.effect"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = graph.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
