// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// The hardware is an option of the pass; an unknown one is an error.
// RUN: not aicc-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(graph-fuse{hardware=tpu}))' 2>&1 | FileCheck %s --check-prefix=HW
// HW: graph-fuse: unknown hardware 'tpu' (expected a GPU row of the chip table: sm_80 (a100), sm_86 (a10), sm_89 (l40s), sm_90 (h200), sm_90a (h200), sm_100 (b200))
// RUN: aicc-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(graph-fuse{hardware=sm_90}))' | FileCheck %s
// Rule recompute-cost (GraphFuse.cpp recomputeCheaperThanStore): a cheap producer with
// several users is recomputed in each of them when the roofline time of recomputing
// (extra input bytes + extra FLOPs) is below that of storing it once and reading it back
// (H200 numbers, CostModel.h).

// Accept: y = x * 2 has two users that also read x: recomputing costs one multiply per
// element and no extra bytes, storing costs 3 * |y| bytes. Each user gets its own copy.
// CHECK-LABEL: func.func @accept
// CHECK-NEXT:    %[[C:.*]] = graph.constant
// CHECK-NEXT:    %[[G:.*]]:2 = graph.fusion_group "elementwise" (%{{.*}}, %[[C]]) : (tensor<1024xf32>, tensor<f32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<1024xf32>, %[[K:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[Y1:.*]] = graph.mul %[[X]], %[[K]]
// CHECK-NEXT:      %[[Y2:.*]] = graph.mul %[[X]], %[[K]]
// CHECK-NEXT:      graph.add %[[Y2]], %[[X]]
// CHECK-NEXT:      graph.sub %[[Y1]], %[[X]]
// CHECK-NOT:     refusals
func.func @accept(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %k = graph.constant dense<2.0> : tensor<f32>
  %y = graph.mul %x, %k : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  %a = graph.add %y, %x : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %s = graph.sub %y, %x : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %a, %s : tensor<1024xf32>, tensor<1024xf32>
}

// -----

// Refuse: m = a < b is 1 byte per element but reads 8; its two users read neither a nor
// b, so recomputing reads 16 bytes per element where storing moves 8 + 3 * 1: m is
// stored once and both users read it.
// CHECK-LABEL: func.func @refuse
// CHECK-NEXT:    %[[M:.*]] = graph.fusion_group "elementwise" (%{{.*}}, %{{.*}}) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.less
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    graph.fusion_group "elementwise" (%[[M]]) {refusals = [{input = 0 : i64, rule = "recompute-cost"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.not
// CHECK:         graph.fusion_group "elementwise" (%[[M]]) {refusals = [{input = 0 : i64, rule = "recompute-cost"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.cast
func.func @refuse(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<1024xi1>, tensor<1024xf32>) {
  %m = graph.less %a, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xi1>
  %n = graph.not %m : tensor<1024xi1>
  %f = graph.cast %m : tensor<1024xi1> -> tensor<1024xf32>
  return %n, %f : tensor<1024xi1>, tensor<1024xf32>
}
