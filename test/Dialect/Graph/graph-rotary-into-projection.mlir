// RUN: aicc-opt %s -split-input-file -graph-rotary-into-projection | FileCheck %s
// Rotary position embedding (rotate-half form) of q and k, head splits of one product by
// constant weights, read only as attention's query and K^T: each rotated head's weight
// columns are reordered so that d and d + D/2 are a column pair (head [0..3] -> columns
// 0, 2, 1, 3; v's columns 8..11 stay), the tables likewise (the sine's first half negated),
// and the rotation is elementwise over the product's columns with their pair partner (the
// reshape / reversing slice / reshape swap), v's columns kept by the where.

// CHECK-LABEL: func @rope
// CHECK-NOT: 1.300000e+01, 1.400000e+01
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[}}[0.000000e+00, 2.000000e+00, 1.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00, 5.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01], [1.200000e+01, 1.400000e+01, 1.300000e+01, 1.500000e+01, 1.600000e+01, 1.800000e+01, 1.700000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01]]>
// CHECK-DAG: %[[C:.*]] = graph.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 2.000000e+00, 4.000000e+00], [5.000000e+00, 7.000000e+00, 6.000000e+00, 8.000000e+00]]>
// CHECK-DAG: %[[S:.*]] = graph.constant dense<{{\[}}[-1.000000e+01, 3.000000e+01, -2.000000e+01, 4.000000e+01], [-5.000000e+01, 7.000000e+01, -6.000000e+01, 8.000000e+01]]>
// CHECK: %[[Y:.*]] = graph.matmul %arg0, %[[W]]
// CHECK: %[[CT:.*]] = graph.tile %[[C]] : tensor<2x4xf32> -> tensor<2x12xf32>
// CHECK: %[[ST:.*]] = graph.tile %[[S]] : tensor<2x4xf32> -> tensor<2x12xf32>
// CHECK: %[[P:.*]] = graph.reshape %[[Y]] : (tensor<1x2x12xf32>) -> tensor<1x2x6x2xf32>
// CHECK: %[[R:.*]] = graph.slice %[[P]] {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, -1>}
// CHECK: %[[SW:.*]] = graph.reshape %[[R]] : (tensor<1x2x6x2xf32>) -> tensor<1x2x12xf32>
// CHECK-DAG: %[[A:.*]] = graph.mul %[[Y]], %[[CT]]
// CHECK-DAG: %[[B:.*]] = graph.mul %[[SW]], %[[ST]]
// CHECK: %[[ROT:.*]] = graph.add %[[A]], %[[B]]
// CHECK: %[[M:.*]] = graph.constant dense<[true, true, true, true, true, true, true, true, false, false, false, false]>
// CHECK: %[[Y2:.*]] = graph.where %[[M]], %[[ROT]], %[[Y]]
// CHECK-NOT: graph.neg
// CHECK-NOT: graph.concat
// CHECK: graph.attention
func.func @rope(%x: tensor<1x2x2xf32>) -> tensor<1x1x2x4xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x12xf32>
  %cos = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x1x2x4xf32>
  %sin = graph.constant dense<[[[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]]]> : tensor<1x1x2x4xf32>
  %y = graph.matmul %x, %w : (tensor<1x2x2xf32>, tensor<2x12xf32>) -> tensor<1x2x12xf32>
  %qs = graph.slice %y {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %qr = graph.reshape %qs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %q = graph.transpose %qr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %ks = graph.slice %y {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %kr = graph.reshape %ks : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k = graph.transpose %kr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %vs = graph.slice %y {starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %vr = graph.reshape %vs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %v = graph.transpose %vr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %qn = graph.neg %q2 : tensor<1x1x2x2xf32>
  %qc = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %qa = graph.mul %q, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qb = graph.mul %qc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qo = graph.add %qa, %qb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %kn = graph.neg %k2 : tensor<1x1x2x2xf32>
  %kc = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %ka = graph.mul %k, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kb = graph.mul %kc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ko = graph.add %ka, %kb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kt = graph.transpose %ko, [0, 1, 3, 2] : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %o = graph.attention %qo, %kt, %v {causal, scale = 5.000000e-01 : f64} : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----
// The rotated k is also returned (a KV cache): its order of d must stay; nothing changes.
// CHECK-LABEL: func @returned
// CHECK-NOT: graph.where
// CHECK: graph.neg
// CHECK: graph.neg
func.func @returned(%x: tensor<1x2x2xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x12xf32>
  %cos = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x1x2x4xf32>
  %sin = graph.constant dense<[[[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]]]> : tensor<1x1x2x4xf32>
  %y = graph.matmul %x, %w : (tensor<1x2x2xf32>, tensor<2x12xf32>) -> tensor<1x2x12xf32>
  %qs = graph.slice %y {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %qr = graph.reshape %qs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %q = graph.transpose %qr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %ks = graph.slice %y {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %kr = graph.reshape %ks : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k = graph.transpose %kr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %vs = graph.slice %y {starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %vr = graph.reshape %vs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %v = graph.transpose %vr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %qn = graph.neg %q2 : tensor<1x1x2x2xf32>
  %qc = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %qa = graph.mul %q, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qb = graph.mul %qc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qo = graph.add %qa, %qb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %kn = graph.neg %k2 : tensor<1x1x2x2xf32>
  %kc = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %ka = graph.mul %k, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kb = graph.mul %kc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ko = graph.add %ka, %kb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kt = graph.transpose %ko, [0, 1, 3, 2] : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %o = graph.attention %qo, %kt, %v {causal, scale = 5.000000e-01 : f64} : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o, %ko : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>
}

// -----
// Only q is rotated (the attention's K^T is not): a permutation of q's d alone would change
// the scores; nothing changes.
// CHECK-LABEL: func @k_plain
// CHECK-NOT: graph.where
// CHECK: graph.neg
func.func @k_plain(%x: tensor<1x2x2xf32>) -> tensor<1x1x2x4xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x12xf32>
  %cos = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x1x2x4xf32>
  %sin = graph.constant dense<[[[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]]]> : tensor<1x1x2x4xf32>
  %y = graph.matmul %x, %w : (tensor<1x2x2xf32>, tensor<2x12xf32>) -> tensor<1x2x12xf32>
  %qs = graph.slice %y {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %qr = graph.reshape %qs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %q = graph.transpose %qr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %ks = graph.slice %y {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %kr = graph.reshape %ks : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k = graph.transpose %kr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %vs = graph.slice %y {starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %vr = graph.reshape %vs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %v = graph.transpose %vr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %qn = graph.neg %q2 : tensor<1x1x2x2xf32>
  %qc = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %qa = graph.mul %q, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qb = graph.mul %qc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qo = graph.add %qa, %qb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %kn = graph.neg %k2 : tensor<1x1x2x2xf32>
  %kc = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %ka = graph.mul %k, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kb = graph.mul %kc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ko = graph.add %ka, %kb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %o = graph.attention %qo, %kt, %v {causal, scale = 5.000000e-01 : f64} : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}

// -----
// q's half slices also take only the first position (broadcast back by the sine's
// multiply): not a rotate-half; k alone may not be permuted; nothing changes.
// CHECK-LABEL: func @cut_sequence
// CHECK-NOT: graph.where
// CHECK: graph.neg
// CHECK: graph.neg
func.func @cut_sequence(%x: tensor<1x2x2xf32>) -> tensor<1x1x2x4xf32> {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x12xf32>
  %cos = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x1x2x4xf32>
  %sin = graph.constant dense<[[[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]]]> : tensor<1x1x2x4xf32>
  %y = graph.matmul %x, %w : (tensor<1x2x2xf32>, tensor<2x12xf32>) -> tensor<1x2x12xf32>
  %qs = graph.slice %y {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %qr = graph.reshape %qs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %q = graph.transpose %qr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %ks = graph.slice %y {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %kr = graph.reshape %ks : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k = graph.transpose %kr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %vs = graph.slice %y {starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>} : tensor<1x2x12xf32> -> tensor<1x2x4xf32>
  %vr = graph.reshape %vs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %v = graph.transpose %vr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x1x2xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x1x2xf32>
  %qn = graph.neg %q2 : tensor<1x1x1x2xf32>
  %qc = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x4xf32>
  %qa = graph.mul %q, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qb = graph.mul %qc, %sin : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qo = graph.add %qa, %qb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %kn = graph.neg %k2 : tensor<1x1x2x2xf32>
  %kc = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %ka = graph.mul %k, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kb = graph.mul %kc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ko = graph.add %ka, %kb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kt = graph.transpose %ko, [0, 1, 3, 2] : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %o = graph.attention %qo, %kt, %v {causal, scale = 5.000000e-01 : f64} : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o : tensor<1x1x2x4xf32>
}


// -----
// q from a product by a constant weight, k from one by a weight passed as an argument (its
// columns cannot be reordered): q alone may not be permuted; nothing changes (a review
// found q rotated in pair order against k's exported order: 2.5 abs error).
// CHECK-LABEL: func @split
// CHECK-NOT: graph.where
// CHECK: graph.neg
// CHECK: graph.neg
func.func @split(%x: tensor<1x2x2xf32>, %wk: tensor<2x8xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x2x4xf32>) {
  %w = graph.constant dense<[[0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 20.0, 21.0, 22.0, 23.0]]> : tensor<2x8xf32>
  %cos = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]]> : tensor<1x1x2x4xf32>
  %sin = graph.constant dense<[[[[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]]]]> : tensor<1x1x2x4xf32>
  %y = graph.matmul %x, %w : (tensor<1x2x2xf32>, tensor<2x8xf32>) -> tensor<1x2x8xf32>
  %y2 = graph.matmul %x, %wk : (tensor<1x2x2xf32>, tensor<2x8xf32>) -> tensor<1x2x8xf32>
  %qs = graph.slice %y {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
  %qr = graph.reshape %qs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %q = graph.transpose %qr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %ks = graph.slice %y2 {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
  %kr = graph.reshape %ks : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %k = graph.transpose %kr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %es = graph.slice %y2 {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
  %vs = graph.slice %y {starts = array<i64: 0, 0, 4>, steps = array<i64: 1, 1, 1>} : tensor<1x2x8xf32> -> tensor<1x2x4xf32>
  %vr = graph.reshape %vs : (tensor<1x2x4xf32>) -> tensor<1x2x1x4xf32>
  %v = graph.transpose %vr, [0, 2, 1, 3] : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %qn = graph.neg %q2 : tensor<1x1x2x2xf32>
  %qc = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %qa = graph.mul %q, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qb = graph.mul %qc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %qo = graph.add %qa, %qb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 2>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %kn = graph.neg %k2 : tensor<1x1x2x2xf32>
  %kc = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %ka = graph.mul %k, %cos : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kb = graph.mul %kc, %sin : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %ko = graph.add %ka, %kb : (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %kt = graph.transpose %ko, [0, 1, 3, 2] : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %o = graph.attention %qo, %kt, %v {causal, scale = 5.000000e-01 : f64} : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %o, %es : tensor<1x1x2x4xf32>, tensor<1x2x4xf32>
}
