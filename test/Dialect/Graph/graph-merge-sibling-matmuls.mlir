// RUN: aicc-opt %s -split-input-file -graph-merge-sibling-matmuls -canonicalize | FileCheck %s
// RUN: aicc-opt %s -split-input-file -graph-merge-sibling-matmuls -o /dev/null
// The q / k / v projections of one activation by constant weights, read only through views
// (the head splits), become one matmul by the weights side by side (the concat of the
// constants folds: row r of the merged weight is row r of each weight in turn) and three
// slices of its columns.
// CHECK-LABEL: func.func @qkv
// CHECK:         %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00, 7.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK:         %[[M:.*]] = graph.matmul %arg0, %[[W]] : (tensor<3x5x2xf32>, tensor<2x4xf32>) -> tensor<3x5x4xf32>
// CHECK:         graph.slice %[[M]] {starts = array<i64: 0, 0, 0>, {{.*}} -> tensor<3x5x2xf32>
// CHECK:         graph.slice %[[M]] {starts = array<i64: 0, 0, 2>, {{.*}} -> tensor<3x5x1xf32>
// CHECK:         graph.slice %[[M]] {starts = array<i64: 0, 0, 3>, {{.*}} -> tensor<3x5x1xf32>
// CHECK-NOT:     graph.matmul
func.func @qkv(%x: tensor<3x5x2xf32>) -> (tensor<3x5x1x2xf32>, tensor<5x3x1xf32>, tensor<15xf32>) {
  %wq = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wk = graph.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %wv = graph.constant dense<[[7.0], [8.0]]> : tensor<2x1xf32>
  %q = graph.matmul %x, %wq : (tensor<3x5x2xf32>, tensor<2x2xf32>) -> tensor<3x5x2xf32>
  %k = graph.matmul %x, %wk : (tensor<3x5x2xf32>, tensor<2x1xf32>) -> tensor<3x5x1xf32>
  %v = graph.matmul %x, %wv : (tensor<3x5x2xf32>, tensor<2x1xf32>) -> tensor<3x5x1xf32>
  %qh = graph.reshape %q : (tensor<3x5x2xf32>) -> tensor<3x5x1x2xf32>
  %kh = graph.transpose %k, [1, 0, 2] : (tensor<3x5x1xf32>) -> tensor<5x3x1xf32>
  %vh = graph.reshape %v : (tensor<3x5x1xf32>) -> tensor<15xf32>
  return %qh, %kh, %vh : tensor<3x5x1x2xf32>, tensor<5x3x1xf32>, tensor<15xf32>
}

// -----
// With a bias each (Linear): the biases side by side are one add after the merged product.
// CHECK-LABEL: func.func @biased
// CHECK-DAG:     %[[B:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK:         %[[M:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[A:.*]] = graph.add %[[M]], %[[B]]
// CHECK:         graph.slice %[[A]]
// CHECK:         graph.slice %[[A]]
func.func @biased(%x: tensor<4x2xf32>) -> (tensor<2x2x2xf32>, tensor<4x1xf32>) {
  %w1 = graph.constant dense<0.5> : tensor<2x2xf32>
  %w2 = graph.constant dense<0.25> : tensor<2x1xf32>
  %b1 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b2 = graph.constant dense<[3.0]> : tensor<1xf32>
  %m1 = graph.matmul %x, %w1 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %m2 = graph.matmul %x, %w2 : (tensor<4x2xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  %y1 = graph.add %m1, %b1 : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y2 = graph.add %b2, %m2 : (tensor<1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %r1 = graph.reshape %y1 : (tensor<4x2xf32>) -> tensor<2x2x2xf32>
  %r2 = graph.transpose %y2, [0, 1] : (tensor<4x1xf32>) -> tensor<4x1xf32>
  return %r1, %r2 : tensor<2x2x2xf32>, tensor<4x1xf32>
}

// -----
// Left alone: weights of another K, a bias on one of two projections.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-4: graph.matmul
func.func @refused(%x: tensor<4x2xf32>, %z: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = graph.constant dense<0.5> : tensor<2x2xf32>
  %u = graph.constant dense<0.25> : tensor<2x2xf32>
  %w3 = graph.constant dense<0.5> : tensor<3x2xf32>
  %a = graph.matmul %z, %w3 : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %ar = graph.reshape %a : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %bias = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = graph.matmul %z, %w3 : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %d = graph.matmul %x, %u : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %cb = graph.add %c, %bias : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %cr = graph.reshape %cb : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %dr = graph.reshape %d : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %e = graph.add %ar, %cr : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %f = graph.add %dr, %b : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %e, %f : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----
// A gated pair (SwiGLU: silu(x W_g) * (x W_u)): one matmul by the weights interleaved
// column by column (column 2j is W_g's j, 2j + 1 W_u's) and two slices of step 2; with
// biases, the biases interleaved the same way.
// CHECK-LABEL: func.func @gated
// CHECK:         %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 5.000000e+00, 2.000000e+00, 6.000000e+00], [3.000000e+00, 7.000000e+00, 4.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK:         %[[M:.*]] = graph.matmul %arg0, %[[W]] : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK:         %[[G:.*]] = graph.slice %[[M]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<4x4xf32> -> tensor<4x2xf32>
// CHECK:         %[[U:.*]] = graph.slice %[[M]] {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x4xf32> -> tensor<4x2xf32>
// CHECK:         %[[S:.*]] = graph.sigmoid %[[G]]
// CHECK:         %[[SILU:.*]] = graph.mul %[[G]], %[[S]]
// CHECK:         graph.mul %[[SILU]], %[[U]]
// CHECK-NOT:     graph.matmul
func.func @gated(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %wg = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wu = graph.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %g = graph.matmul %x, %wg : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %s = graph.sigmoid %g : tensor<4x2xf32>
  %silu = graph.mul %g, %s : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %u = graph.matmul %x, %wu : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %h = graph.mul %silu, %u : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %h : tensor<4x2xf32>
}

// -----
// CHECK-LABEL: func.func @gated_biased
// CHECK-DAG:     %[[B:.*]] = graph.constant dense<[1.000000e+00, 3.000000e+00, 2.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK:         %[[M:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK:         %[[A:.*]] = graph.add %[[M]], %[[B]]
// CHECK:         graph.slice %[[A]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>}
// CHECK:         graph.slice %[[A]] {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
// CHECK-NOT:     graph.matmul
func.func @gated_biased(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %wg = graph.constant dense<0.5> : tensor<2x2xf32>
  %wu = graph.constant dense<0.25> : tensor<2x2xf32>
  %bg = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %bu = graph.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %g0 = graph.matmul %x, %wg : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %u0 = graph.matmul %x, %wu : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %g = graph.add %g0, %bg : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %u = graph.add %u0, %bu : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %s = graph.sigmoid %g : tensor<4x2xf32>
  %h = graph.mul %s, %u : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %h : tensor<4x2xf32>
}

// -----
// Not gated pairs: a projection also returned (it must be stored), two that no
// elementwise op combines, two of another N.
// CHECK-LABEL: func.func @gated_refused
// CHECK-COUNT-6: graph.matmul
func.func @gated_refused(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x3xf32>) {
  %w = graph.constant dense<0.5> : tensor<2x2xf32>
  %w3 = graph.constant dense<0.5> : tensor<2x3xf32>
  %a = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %ab = graph.mul %a, %b : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = graph.constant dense<0.25> : tensor<2x2xf32>
  %c = graph.matmul %ab, %y : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %d = graph.matmul %ab, %y : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %cs = graph.sigmoid %c : tensor<4x2xf32>
  %dn = graph.neg %d : tensor<4x2xf32>
  %e = graph.matmul %dn, %w3 : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %f = graph.matmul %dn, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %ab, %cs, %dn, %f, %e : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x3xf32>
}

// -----
// A view of the first projection before the second weight: the weight moves up, the
// product dominates every use (found by review: the product went after the weight).
// CHECK-LABEL: func.func @order
// CHECK:         %[[M:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK:         graph.slice %[[M]]
// CHECK:         graph.slice %[[M]]
func.func @order(%x: tensor<4x2xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %w1 = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m1 = graph.matmul %x, %w1 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %r1 = graph.reshape %m1 : (tensor<4x2xf32>) -> tensor<8xf32>
  %w2 = graph.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %m2 = graph.matmul %x, %w2 : (tensor<4x2xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  %r2 = graph.reshape %m2 : (tensor<4x1xf32>) -> tensor<4xf32>
  return %r1, %r2 : tensor<8xf32>, tensor<4xf32>
}

// -----
// A constant multiplied by itself is one matmul, not two siblings (it crashed: the
// matmul was listed once per operand).
// CHECK-LABEL: func.func @selfmm
// CHECK:         graph.matmul %[[C:.*]], %[[C]]
func.func @selfmm() -> tensor<4xf32> {
  %c = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %m = graph.matmul %c, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = graph.reshape %m : (tensor<2x2xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
// Nearest combine first (review): silu(g1) * u1 + silu(g2) * u2 with the projections in
// the order g1, g2, u1, u2 pairs g1 with u1 and g2 with u2 (g1 and g2 also meet, at the
// add, one step further).
// CHECK-LABEL: func.func @gated_nearest
// CHECK-DAG:     %[[W1:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00]]> : tensor<1x2xf32>
// CHECK-DAG:     %[[W2:.*]] = graph.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00]]> : tensor<1x2xf32>
// CHECK:         graph.matmul %arg0, %[[W1]]
// CHECK:         graph.matmul %arg0, %[[W2]]
// CHECK-NOT:     graph.matmul
func.func @gated_nearest(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %wg1 = graph.constant dense<[[1.0]]> : tensor<1x1xf32>
  %wg2 = graph.constant dense<[[2.0]]> : tensor<1x1xf32>
  %wu1 = graph.constant dense<[[3.0]]> : tensor<1x1xf32>
  %wu2 = graph.constant dense<[[4.0]]> : tensor<1x1xf32>
  %g1 = graph.matmul %x, %wg1 : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %g2 = graph.matmul %x, %wg2 : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %u1 = graph.matmul %x, %wu1 : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %u2 = graph.matmul %x, %wu2 : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %s1 = graph.sigmoid %g1 : tensor<4x1xf32>
  %h1 = graph.mul %s1, %u1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %s2 = graph.sigmoid %g2 : tensor<4x1xf32>
  %h2 = graph.mul %s2, %u2 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = graph.add %h1, %h2 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %y : tensor<4x1xf32>
}

// -----
// Not merged (review): silu(g) is also returned, so the epilogue could not hold the
// combine and the merged product would be stored and read back through strided slices.
// CHECK-LABEL: func.func @gated_escapes
// CHECK-COUNT-2: graph.matmul
// CHECK-NOT:     graph.slice
func.func @gated_escapes(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wg = graph.constant dense<0.5> : tensor<2x2xf32>
  %wu = graph.constant dense<0.25> : tensor<2x2xf32>
  %g = graph.matmul %x, %wg : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %u = graph.matmul %x, %wu : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %s = graph.sigmoid %g : tensor<4x2xf32>
  %silu = graph.mul %g, %s : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %h = graph.mul %silu, %u : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %h, %silu : tensor<4x2xf32>, tensor<4x2xf32>
}
