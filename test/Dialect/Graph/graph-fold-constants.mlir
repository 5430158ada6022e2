// RUN: aicc-opt %s --split-input-file -pass-pipeline='builtin.module(func.func(graph-fold-constants))' | FileCheck %s
// RUN: aicc-opt %s --split-input-file -pass-pipeline='builtin.module(func.func(graph-fold-constants{max-bytes=4}))' | FileCheck %s --check-prefix=CAP

// SDPA's scale as torch's dynamo exporter writes it: 1 / sqrt(head_dim) from a constant,
// folded in one run (the chain in program order).
// CHECK-LABEL: func.func @scale
// CHECK: %[[C:.*]] = graph.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT: %[[Y:.*]] = graph.mul %arg0, %[[C]]
// CHECK-NEXT: return %[[Y]]
func.func @scale(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %d = graph.constant dense<64.0> : tensor<f32>
  %s = graph.sqrt %d : tensor<f32>
  %r = graph.reciprocal %s : tensor<f32>
  %y = graph.mul %x, %r : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// A causal mask from a bool constant: where(tril, 0, -inf) in f16 becomes the additive mask
// constant (the form graph-recompose-attention recognizes as causal).
// CHECK-LABEL: func.func @mask
// CHECK: graph.constant dense<{{\[}}[0.000000e+00, 0xFC00, 0xFC00], [0.000000e+00, 0.000000e+00, 0xFC00], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x3xf16>
// CHECK-NOT: graph.where
func.func @mask(%x: tensor<3x3xf16>) -> tensor<3x3xf16> {
  %t = graph.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %z = graph.constant dense<0.0> : tensor<f16>
  %n = graph.constant dense<0xFC00> : tensor<f16>
  %m = graph.where %t, %z, %n : (tensor<3x3xi1>, tensor<f16>, tensor<f16>) -> tensor<3x3xf16>
  %y = graph.add %x, %m : (tensor<3x3xf16>, tensor<3x3xf16>) -> tensor<3x3xf16>
  return %y : tensor<3x3xf16>
}

// -----

// A weight transpose folds even past the cap: it leaves its operand unused (no growth).
// Not folded: an expand of a scalar past the cap (it would grow the bundle); an op whose
// result the function returns; an op with a non-constant operand.
// CAP-LABEL: func.func @cap
// CAP: graph.constant dense<{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CAP-NOT: graph.transpose
// CAP: graph.neg
// CAP: graph.expand
// CAP: graph.add %arg0
func.func @cap(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wt = graph.transpose %w, [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.matmul %x, %wt : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.constant dense<[1.0, 2.0, 3.0, 5.0]> : tensor<4xf32>
  %e = graph.neg %s : tensor<4xf32>
  %o = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.expand %o : tensor<2xf32> -> tensor<2x2xf32>
  %z = graph.add %x, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y, %z, %e : tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>
}

// -----

// A cast that grows the constants folds when its one user, a compare of constants, folds next
// to no more than the cast frees (torch's masked_fill(mask == 0) over a causal mask at 1024
// positions: f16 -> f32 -> i1). The where after it reads a non-constant: left alone.
// CHECK-LABEL: func.func @grow_then_shrink
// CAP-LABEL: func.func @grow_then_shrink
// CAP: graph.constant dense<{{\[}}[false, true], [false, false]]> : tensor<2x2xi1>
// CAP-NOT: graph.cast
// CAP-NOT: graph.equal
// CAP: graph.where
func.func @grow_then_shrink(%x: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %m = graph.constant dense<[[1.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf16>
  %c = graph.cast %m : tensor<2x2xf16> -> tensor<2x2xf32>
  %z = graph.constant dense<0.0> : tensor<f32>
  %e = graph.equal %c, %z : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xi1>
  %n = graph.constant dense<0xFC00> : tensor<f16>
  %y = graph.where %e, %n, %x : (tensor<2x2xi1>, tensor<f16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  return %y : tensor<2x2xf16>
}

// -----

// Folds that must give what the kernel computes (helper-found cases): the sign of a zero
// survives (no splat of +0 and -0); not folded: an i64 beyond 2^53 cast to f32 (rounded
// twice through float64), a float reduction (float64 accumulation: no overflow where the
// kernel's f32 sum overflows), NaN / inf cast to an integer (undefined; the target's
// conversion differs).
// CHECK-LABEL: func.func @faithful
// CHECK-DAG: graph.constant dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: graph.cast %{{.*}} : tensor<2xi64> -> tensor<2xf32>
// CHECK-DAG: graph.reduce_sum
// CHECK-DAG: graph.cast %{{.*}} : tensor<2xf32> -> tensor<2xi64>
func.func @faithful(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<2xi64>) {
  %a = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %z = graph.constant dense<0.0> : tensor<f32>
  %m = graph.mul %a, %z : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %y = graph.div %x, %m : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %i = graph.constant dense<[1152921573326323713, 3]> : tensor<2xi64>
  %f = graph.cast %i : tensor<2xi64> -> tensor<2xf32>
  %g = graph.add %x, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = graph.constant dense<[3.0e38, 3.0e38, -3.0e38]> : tensor<3xf32>
  %s = graph.reduce_sum %r {axes = array<i64: 0>, keepdims = false} : (tensor<3xf32>) -> tensor<f32>
  %t = graph.add %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %n = graph.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %c = graph.cast %n : tensor<2xf32> -> tensor<2xi64>
  %d = graph.add %c, %c : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %y, %g, %t, %d : tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<2xi64>
}
