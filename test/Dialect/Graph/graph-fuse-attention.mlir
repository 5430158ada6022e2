// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// graph.attention is one kernel (kind "attention"): the transposes that make Q, K^T and V
// from [B, S, H, D] projections join it (the template reads through them), and so does the
// elementwise chain after it.

// CHECK-LABEL: func.func @heads_split_and_cast
// CHECK:         %[[G:.*]] = graph.fusion_group "attention" (%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x16x4x8xf16>, tensor<2x16x4x8xf16>, tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.attention
// CHECK-NEXT:      graph.cast
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @heads_split_and_cast(%q: tensor<2x16x4x8xf16>, %k: tensor<2x16x4x8xf16>, %v: tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf32> {
  %qh = graph.transpose %q, [0, 2, 1, 3] : (tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf16>
  %kt = graph.transpose %k, [0, 2, 3, 1] : (tensor<2x16x4x8xf16>) -> tensor<2x4x8x16xf16>
  %vh = graph.transpose %v, [0, 2, 1, 3] : (tensor<2x16x4x8xf16>) -> tensor<2x4x16x8xf16>
  %y = graph.attention %qh, %kt, %vh {scale = 0.35355339059327379 : f64} : (tensor<2x4x16x8xf16>, tensor<2x4x8x16xf16>, tensor<2x4x16x8xf16>) -> tensor<2x4x16x8xf16>
  %c = graph.cast %y : tensor<2x4x16x8xf16> -> tensor<2x4x16x8xf32>
  return %c : tensor<2x4x16x8xf32>
}

// -----

// A transpose with another reader stays out (its own kernel writes it once for both).
// CHECK-LABEL: func.func @shared_view_stays_out
// CHECK:         %[[KT:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "attention" (%{{.*}}, %[[KT]], %{{.*}})
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.attention
func.func @shared_view_stays_out(%q: tensor<16x8xf32>, %k: tensor<16x8xf32>, %v: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<8x16xf32>) {
  %kt = graph.transpose %k, [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %y = graph.attention %q, %kt, %v {scale = 1.0 : f64} : (tensor<16x8xf32>, tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y, %kt : tensor<16x8xf32>, tensor<8x16xf32>
}

// -----

// A view of a view (GQA's keys expanded over the query heads after the K^T transpose) joins
// in program order: the expand follows the transpose it reads.
// CHECK-LABEL: func.func @view_of_view
// CHECK:         graph.fusion_group "attention"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.expand
// CHECK-NEXT:      graph.attention
func.func @view_of_view(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x6x8xf32>, %v: tensor<2x4x6x8xf32>) -> tensor<2x4x5x8xf32> {
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<2x1x6x8xf32>) -> tensor<2x1x8x6xf32>
  %ke = graph.expand %kt : tensor<2x1x8x6xf32> -> tensor<2x4x8x6xf32>
  %y = graph.attention %q, %ke, %v {scale = 0.35 : f64} : (tensor<2x4x5x8xf32>, tensor<2x4x8x6xf32>, tensor<2x4x6x8xf32>) -> tensor<2x4x5x8xf32>
  return %y : tensor<2x4x5x8xf32>
}
