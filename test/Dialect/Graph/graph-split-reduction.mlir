// RUN: aicc-opt %s -split-input-file -graph-split-reduction | FileCheck %s

// A whole-tensor sum of 2^24 elements (one program): 512 partials of 32768, then one sum.
// CHECK-LABEL: func.func @sum_all
// CHECK-SAME:      (%[[X:.*]]: tensor<4096x4096xf32>)
// CHECK:         %[[V:.*]] = graph.reshape %[[X]] : (tensor<4096x4096xf32>) -> tensor<512x32768xf32>
// CHECK:         %[[P:.*]] = graph.reduce_sum %[[V]] {axes = array<i64: 1>, keepdims = false} : (tensor<512x32768xf32>) -> tensor<512xf32>
// CHECK:         %[[S:.*]] = graph.reduce_sum %[[P]] {axes = array<i64: 0>, keepdims = false} : (tensor<512xf32>) -> tensor<f32>
// CHECK:         %[[R:.*]] = graph.reshape %[[S]] : (tensor<f32>) -> tensor<1x1xf32>
// CHECK:         return %[[R]]
func.func @sum_all(%x: tensor<4096x4096xf32>) -> tensor<1x1xf32> {
  %r = graph.reduce_sum %x {axes = array<i64>} : (tensor<4096x4096xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// -----

// A column reduction (4 programs of 256 columns): 128 partials of 64 rows. Mean of means
// (equal counts); the result needs no reshape.
// CHECK-LABEL: func.func @mean_columns
// CHECK:         %[[V:.*]] = graph.reshape %{{.*}} : (tensor<8192x1024xf32>) -> tensor<128x64x1024xf32>
// CHECK:         %[[P:.*]] = graph.reduce_mean %[[V]] {axes = array<i64: 1>, keepdims = false} : (tensor<128x64x1024xf32>) -> tensor<128x1024xf32>
// CHECK:         %[[M:.*]] = graph.reduce_mean %[[P]] {axes = array<i64: 0>, keepdims = false} : (tensor<128x1024xf32>) -> tensor<1024xf32>
// CHECK-NOT:     graph.reshape
// CHECK:         return %[[M]]
func.func @mean_columns(%x: tensor<8192x1024xf32>) -> tensor<1024xf32> {
  %r = graph.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : (tensor<8192x1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

// f16: the partials are f32, the second level rounds to f16. Kept dims on both sides of the
// reduced one (and unit dims) stay.
// CHECK-LABEL: func.func @max_f16_middle
// CHECK:         %[[V:.*]] = graph.reshape %{{.*}} : (tensor<2x1x4096x64xf16>) -> tensor<2x128x32x64xf16>
// CHECK:         %[[P:.*]] = graph.reduce_max %[[V]] {axes = array<i64: 2>, keepdims = false} : (tensor<2x128x32x64xf16>) -> tensor<2x128x64xf32>
// CHECK:         %[[M:.*]] = graph.reduce_max %[[P]] {axes = array<i64: 1>, keepdims = false} : (tensor<2x128x64xf32>) -> tensor<2x64xf16>
// CHECK:         graph.reshape %[[M]] : (tensor<2x64xf16>) -> tensor<2x1x1x64xf16>
func.func @max_f16_middle(%x: tensor<2x1x4096x64xf16>) -> tensor<2x1x1x64xf16> {
  %r = graph.reduce_max %x {axes = array<i64: 2>} : (tensor<2x1x4096x64xf16>) -> tensor<2x1x1x64xf16>
  return %r : tensor<2x1x1x64xf16>
}

// -----

// Two consecutive reduced dims split as one extent (prod; 13 of 7 * 11 * 13 = 1001).
// CHECK-LABEL: func.func @prod_two_dims
// CHECK:         graph.reshape %{{.*}} : (tensor<3x7x143x40xf32>) -> tensor<3x13x77x40xf32>
// CHECK:         graph.reduce_prod {{.*}} -> tensor<3x13x40xf32>
// CHECK:         graph.reduce_prod {{.*}} -> tensor<3x40xf32>
func.func @prod_two_dims(%x: tensor<3x7x143x40xf32>) -> tensor<3x40xf32> {
  %r = graph.reduce_prod %x {axes = array<i64: 1, 2>, keepdims = false} : (tensor<3x7x143x40xf32>) -> tensor<3x40xf32>
  return %r : tensor<3x40xf32>
}

// -----

// Not split: enough outputs (programs) already.
// CHECK-LABEL: func.func @many_rows
// CHECK-NOT:     graph.reshape
// CHECK:         graph.reduce_sum %{{.*}} : (tensor<1024x8192xf32>) -> tensor<1024x1xf32>
// CHECK-NEXT:    return
func.func @many_rows(%x: tensor<1024x8192xf32>) -> tensor<1024x1xf32> {
  %r = graph.reduce_sum %x {axes = array<i64: 1>} : (tensor<1024x8192xf32>) -> tensor<1024x1xf32>
  return %r : tensor<1024x1xf32>
}

// -----

// Not split: too little work per program (a small tensor).
// CHECK-LABEL: func.func @small
// CHECK-NOT:     graph.reshape
func.func @small(%x: tensor<64x3000xf32>) -> tensor<3000xf32> {
  %r = graph.reduce_min %x {axes = array<i64: 0>, keepdims = false} : (tensor<64x3000xf32>) -> tensor<3000xf32>
  return %r : tensor<3000xf32>
}

// -----

// Not split: the reduced dims are not consecutive (no copy-free [P, Q] reshape).
// CHECK-LABEL: func.func @not_consecutive
// CHECK-NOT:     graph.reshape
func.func @not_consecutive(%x: tensor<512x4x512xf32>) -> tensor<4xf32> {
  %r = graph.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<512x4x512xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Not split: a prime reduced extent has no divisor P >= 2.
// CHECK-LABEL: func.func @prime_extent
// CHECK-NOT:     graph.reshape
func.func @prime_extent(%x: tensor<65537xf32>) -> tensor<f32> {
  %r = graph.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : (tensor<65537xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Not split: a reduction already in a fusion group is one kernel.
// CHECK-LABEL: func.func @in_group
// CHECK-NOT:     graph.reshape
func.func @in_group(%x: tensor<4096x4096xf32>) -> tensor<f32> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<4096x4096xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4096x4096xf32>):
    %r = graph.reduce_sum %a {axes = array<i64>, keepdims = false} : (tensor<4096x4096xf32>) -> tensor<f32>
    graph.yield %r : tensor<f32>
  }
  return %0 : tensor<f32>
}
