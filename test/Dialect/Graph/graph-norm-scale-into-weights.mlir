// RUN: aicc-opt %s -split-input-file -graph-norm-scale-into-weights | FileCheck %s
// An RMS norm's constant scale g becomes part of the constant weights of the projections
// that read the normalized value: (x r g) @ W = (x r) @ (diag(g) W), W'[k, n] = g[k] W[k, n]
// (W[n, k] g[k] under Gemm's transB), rounded once to W's type. The scale-free norm is what
// graph-fuse's rule norm-prologue puts into the GEMM (fuse-rule-norm-prologue.mlir).
// A LayerNorm's bias beta becomes beta @ W added to the projection's result: into the
// constant of its bias add (a Linear's), else a new add.

// CHECK-LABEL: func.func @matmul
// CHECK-NOT:     graph.constant
// CHECK:         %[[N:.*]] = graph.layer_norm %arg0 {axis = 1 : i64, epsilon = 9.9999999999999995E-7 : f64, rms = true} : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00], [-4.000000e+00, -5.000000e+00, -6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    graph.matmul %[[N]], %[[W]]
func.func @matmul(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %g = graph.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %n = graph.layer_norm %x scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y = graph.matmul %n, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Two projections (q and k before graph-merge-sibling-matmuls; a Gemm with transB: W [N, K]
// scaled along its columns) both take the scale.
// CHECK-LABEL: func.func @two_projections
// CHECK:         %[[N:.*]] = graph.layer_norm %arg0 {axis = 1 : i64, {{.*}}rms = true} : (tensor<8x2xf16>) -> tensor<8x2xf16>
// CHECK-NEXT:    %[[W1:.*]] = graph.constant dense<{{\[}}[3.000000e+00], [5.000000e+00]]> : tensor<2x1xf16>
// CHECK-NEXT:    graph.matmul %[[N]], %[[W1]]
// CHECK-NEXT:    %[[W2:.*]] = graph.constant dense<{{\[}}[3.000000e+00, 1.000000e+01]]> : tensor<1x2xf16>
// CHECK-NEXT:    graph.gemm %[[N]], %[[W2]] {transB = true}
func.func @two_projections(%x: tensor<8x2xf16>) -> (tensor<8x1xf16>, tensor<8x1xf16>) {
  %g = graph.constant dense<[3.0, 5.0]> : tensor<2xf16>
  %w1 = graph.constant dense<[[1.0], [1.0]]> : tensor<2x1xf16>
  %w2 = graph.constant dense<[[1.0, 2.0]]> : tensor<1x2xf16>
  %n = graph.layer_norm %x scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<8x2xf16>, tensor<2xf16>) -> tensor<8x2xf16>
  %y1 = graph.matmul %n, %w1 : (tensor<8x2xf16>, tensor<2x1xf16>) -> tensor<8x1xf16>
  %y2 = graph.gemm %n, %w2 {transB = true} : (tensor<8x2xf16>, tensor<1x2xf16>) -> tensor<8x1xf16>
  return %y1, %y2 : tensor<8x1xf16>, tensor<8x1xf16>
}

// -----

// Refused: the normalized value is also returned (it must keep its scale).
// CHECK-LABEL: func.func @also_returned
// CHECK:         graph.layer_norm %arg0 scale
func.func @also_returned(%x: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x2xf32>) {
  %g = graph.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %n = graph.layer_norm %x scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y = graph.matmul %n, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y, %n : tensor<4x3xf32>, tensor<4x2xf32>
}

// -----

// Refused: the scale is not a constant; the weights are not a constant; an RMS norm with a
// bias; a norm over more than the last dim; the normalized value as the right operand.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-5: graph.layer_norm {{.*}} scale
func.func @refused(%x: tensor<4x2xf32>, %ga: tensor<2xf32>, %wa: tensor<2x3xf32>, %x3: tensor<2x2x2xf32>, %l: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>) {
  %g = graph.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %g4 = graph.constant dense<[[2.0, -1.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %n1 = graph.layer_norm %x scale %ga {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y1 = graph.matmul %n1, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %n2 = graph.layer_norm %x scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y2 = graph.matmul %n2, %wa : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %n3 = graph.layer_norm %x scale %g bias %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y3 = graph.matmul %n3, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %n4 = graph.layer_norm %x3 scale %g4 {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<2x2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>
  %y4 = graph.matmul %n4, %w : (tensor<2x2x2xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
  %wl = graph.constant dense<[[1.0, 2.0], [4.0, 5.0], [1.0, 1.0], [2.0, 2.0]]> : tensor<4x2xf32>
  %n5 = graph.layer_norm %wl scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y5 = graph.matmul %l, %n5 : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %y1, %y2, %y3, %y4, %y5 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x2x3xf32>, tensor<3x2xf32>
}

// -----

// LayerNorm with scale and bias before a Linear (matmul + add of a constant bias):
// W' = diag(g) W, b' = b + beta @ W = [0.5 + 1 + 2, 0.5 + 2 + 2.5, 0.5 + 3 + 3].
// CHECK-LABEL: func.func @layer_norm_linear
// CHECK:         %[[N:.*]] = graph.layer_norm %arg0 {axis = 1 : i64} : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00], [-4.000000e+00, -5.000000e+00, -6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.matmul %[[N]], %[[W]]
// CHECK-NEXT:    %[[B:.*]] = graph.constant dense<[3.500000e+00, 5.000000e+00, 6.500000e+00]> : tensor<3xf32>
// CHECK-NEXT:    graph.add %[[Y]], %[[B]]
func.func @layer_norm_linear(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %g = graph.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %beta = graph.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = graph.constant dense<[0.5, 0.5, 0.5]> : tensor<3xf32>
  %n = graph.layer_norm %x scale %g bias %beta {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y = graph.matmul %n, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %z = graph.add %y, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %z : tensor<4x3xf32>
}

// -----

// A bias alone (weights unchanged) before a product with no bias add: a new add of
// beta @ W after it, which also takes the product's other users. A Gemm (transB, alpha 2):
// alpha beta @ W added after it.
// CHECK-LABEL: func.func @layer_norm_bias_only
// CHECK:         %[[N:.*]] = graph.layer_norm %arg0 {axis = 1 : i64} : (tensor<4x2xf16>) -> tensor<4x2xf16>
// CHECK:         %[[Y:.*]] = graph.matmul %[[N]], %[[W:.*]] :
// CHECK-NEXT:    %[[B:.*]] = graph.constant dense<[3.000000e+00, 4.500000e+00, 6.000000e+00]> : tensor<3xf16>
// CHECK-NEXT:    %[[Z:.*]] = graph.add %[[Y]], %[[B]]
// CHECK-NEXT:    %[[G:.*]] = graph.gemm %[[N]], %[[W2:.*]] {alpha = 2.000000e+00 : f32, transB = true}
// CHECK-NEXT:    %[[B2:.*]] = graph.constant dense<[6.000000e+00, 9.000000e+00]> : tensor<2xf16>
// CHECK-NEXT:    %[[Z2:.*]] = graph.add %[[G]], %[[B2]]
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[Z]]
// CHECK-NEXT:    return %[[Z]], %[[R]], %[[Z2]]
func.func @layer_norm_bias_only(%x: tensor<4x2xf16>) -> (tensor<4x3xf16>, tensor<4x3xf16>, tensor<4x2xf16>) {
  %beta = graph.constant dense<[1.0, 0.5]> : tensor<2xf16>
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %w2 = graph.constant dense<[[1.0, 4.0], [2.0, 5.0]]> : tensor<2x2xf16>
  %n = graph.layer_norm %x bias %beta {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x2xf16>, tensor<2xf16>) -> tensor<4x2xf16>
  %y = graph.matmul %n, %w : (tensor<4x2xf16>, tensor<2x3xf16>) -> tensor<4x3xf16>
  %y2 = graph.gemm %n, %w2 {alpha = 2.0 : f32, transB = true} : (tensor<4x2xf16>, tensor<2x2xf16>) -> tensor<4x2xf16>
  %r = graph.relu %y : tensor<4x3xf16>
  return %y, %r, %y2 : tensor<4x3xf16>, tensor<4x3xf16>, tensor<4x2xf16>
}
