// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// RUN: aicc-opt %s -split-input-file -aicc-attach-target="target=sm_90a" -graph-fuse | FileCheck %s --check-prefix=GPU
// Rule norm-prologue (normPrologueRefusal, FusionRules.h): a scale-free RMS norm or
// LayerNorm over the last dim read only as a matmul / Gemm's left operand joins the GEMM's
// kernel (the matmul template sums each row's squares, and for a LayerNorm each row, in its
// K loop and corrects the accumulator rows; a LayerNorm's GEMM also reads the column sums c
// of its constant B, the group's last input); rule norm-prologue-cost keeps it apart where
// the recompute costs more than the norm kernel.

// Accept: one kernel (cpu and sm_90a).
// CHECK-LABEL: func.func @accepted
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%arg0, %arg1, %arg2)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[N:.*]] = graph.layer_norm
// CHECK-NEXT:      %[[Y:.*]] = graph.matmul %[[N]]
// CHECK-NEXT:      %[[R:.*]] = graph.add %[[Y]]
// CHECK-NEXT:      graph.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
// GPU-LABEL: func.func @accepted
// GPU-NEXT:    graph.fusion_group "epilogue"
// GPU-NEXT:    ^bb0
// GPU-NEXT:      graph.layer_norm
// GPU-NEXT:      graph.matmul
func.func @accepted(%x: tensor<2x64x128xf16>, %w: tensor<128x256xf16>, %r: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %n = graph.layer_norm %x {axis = 2 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<2x64x128xf16>) -> tensor<2x64x128xf16>
  %y = graph.matmul %n, %w : (tensor<2x64x128xf16>, tensor<128x256xf16>) -> tensor<2x64x256xf16>
  %z = graph.add %y, %r : (tensor<2x64x256xf16>, tensor<2x64x256xf16>) -> tensor<2x64x256xf16>
  return %z : tensor<2x64x256xf16>
}

// -----

// Refused (norm-prologue): a scale the weights did not absorb (graph-norm-scale-into-weights
// folds only constants); a LayerNorm (mean subtracted) whose weights are not a constant (the
// GEMM would need their column sums); the normalized value also returned.
// CHECK-LABEL: func.func @refused
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
func.func @refused(%x: tensor<64x128xf16>, %g: tensor<128xf16>, %w: tensor<128x256xf16>) -> (tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x128xf16>) {
  %n1 = graph.layer_norm %x scale %g {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<64x128xf16>, tensor<128xf16>) -> tensor<64x128xf16>
  %y1 = graph.matmul %n1, %w : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %n2 = graph.layer_norm %x {axis = 1 : i64, epsilon = 1.0e-6 : f64} : (tensor<64x128xf16>) -> tensor<64x128xf16>
  %y2 = graph.matmul %n2, %w : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %n3 = graph.layer_norm %x {axis = 1 : i64, epsilon = 1.0e-5 : f64, rms = true} : (tensor<64x128xf16>) -> tensor<64x128xf16>
  %y3 = graph.matmul %n3, %w : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  return %y1, %y2, %y3, %n3 : tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x256xf16>, tensor<64x128xf16>
}

// -----

// Refused (norm-prologue-cost): a wide CUDA-core GEMM of a small activation, f32 [64, 64] x
// [64, 131072]: its 1024 column tiles each recompute the sums on the units the GEMM uses
// (+0.13 us of roofline time on the H200) against a 0.007 us norm kernel. On sm_90a an f32
// GEMM runs on CUDA cores too, and the GPU matmul lowerings sum rows of 16-bit A only
// (norm-prologue).
// CHECK-LABEL: func.func @cost
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue-cost"}]
// GPU-LABEL: func.func @cost
// GPU:         graph.fusion_group "softmax"
// GPU:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
func.func @cost(%x: tensor<64x64xf32>, %w: tensor<64x131072xf32>) -> tensor<64x131072xf32> {
  %n = graph.layer_norm %x {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = graph.matmul %n, %w : (tensor<64x64xf32>, tensor<64x131072xf32>) -> tensor<64x131072xf32>
  return %y : tensor<64x131072xf32>
}

// -----

// Accepted: the same f32 GEMM at a width where the recompute is cheaper than the norm
// (256 columns: 2 column tiles).
// CHECK-LABEL: func.func @cost_pays
// CHECK-NEXT:    graph.fusion_group "epilogue"
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.layer_norm
func.func @cost_pays(%x: tensor<64x64xf32>, %w: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %n = graph.layer_norm %x {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = graph.matmul %n, %w : (tensor<64x64xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// LayerNorm (mean subtracted) before a GEMM by constant weights: one kernel, whose last
// input is c, the column sums of B in f32 (128 x 0.5 = 64; under Gemm's transB the row
// sums of the stored [N, K] B: 128 x 0.25 = 32), made before the norm.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT:    %[[W:.*]] = graph.constant dense<5.000000e-01> : tensor<128x256xf16>
// CHECK-NEXT:    %[[W2:.*]] = graph.constant dense<2.500000e-01> : tensor<64x128xf16>
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<6.400000e+01> : tensor<256xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%arg0, %[[W]], %arg1, %[[C]])
// CHECK-NEXT:    ^bb0({{.*}}, %{{.*}}: tensor<256xf32>):
// CHECK-NEXT:      %[[N:.*]] = graph.layer_norm
// CHECK-NEXT:      %[[Y:.*]] = graph.matmul %[[N]]
// CHECK-NEXT:      graph.add %[[Y]]
// CHECK:         %[[C2:.*]] = graph.constant dense<3.200000e+01> : tensor<64xf32>
// CHECK-NEXT:    graph.fusion_group "epilogue" (%arg2, %[[W2]], %[[C2]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.layer_norm
// CHECK-NEXT:      graph.gemm
// GPU-LABEL: func.func @layer_norm
// GPU:         graph.fusion_group "epilogue"
// GPU-NEXT:    ^bb0
// GPU-NEXT:      graph.layer_norm
// GPU-NEXT:      graph.matmul
// GPU:         graph.fusion_group "epilogue"
// GPU-NEXT:    ^bb0
// GPU-NEXT:      graph.layer_norm
// GPU-NEXT:      graph.gemm
func.func @layer_norm(%x: tensor<2x64x128xf16>, %r: tensor<2x64x256xf16>, %x2: tensor<64x128xf16>) -> (tensor<2x64x256xf16>, tensor<64x64xf16>) {
  %w = graph.constant dense<0.5> : tensor<128x256xf16>
  %w2 = graph.constant dense<0.25> : tensor<64x128xf16>
  %n = graph.layer_norm %x {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x64x128xf16>) -> tensor<2x64x128xf16>
  %y = graph.matmul %n, %w : (tensor<2x64x128xf16>, tensor<128x256xf16>) -> tensor<2x64x256xf16>
  %z = graph.add %y, %r : (tensor<2x64x256xf16>, tensor<2x64x256xf16>) -> tensor<2x64x256xf16>
  %n2 = graph.layer_norm %x2 {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<64x128xf16>) -> tensor<64x128xf16>
  %y2 = graph.gemm %n2, %w2 {transB = true} : (tensor<64x128xf16>, tensor<64x128xf16>) -> tensor<64x64xf16>
  return %z, %y2 : tensor<2x64x256xf16>, tensor<64x64xf16>
}

// -----

// Refused (norm-prologue): a LayerNorm whose normalized value is also returned, and one
// before a batched product (B of rank 3: no one vector of column sums).
// CHECK-LABEL: func.func @layer_norm_refused
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
// CHECK:         graph.fusion_group "softmax"
// CHECK:         graph.fusion_group "epilogue" {{.*}}refusals = [{input = 0 : i64, rule = "norm-prologue"}]
func.func @layer_norm_refused(%x: tensor<2x64x128xf16>) -> (tensor<2x64x256xf16>, tensor<2x64x128xf16>, tensor<2x64x256xf16>) {
  %w = graph.constant dense<0.5> : tensor<128x256xf16>
  %w3 = graph.constant dense<0.5> : tensor<2x128x256xf16>
  %n = graph.layer_norm %x {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x64x128xf16>) -> tensor<2x64x128xf16>
  %y = graph.matmul %n, %w : (tensor<2x64x128xf16>, tensor<128x256xf16>) -> tensor<2x64x256xf16>
  %n2 = graph.layer_norm %x {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x64x128xf16>) -> tensor<2x64x128xf16>
  %y2 = graph.matmul %n2, %w3 : (tensor<2x64x128xf16>, tensor<2x128x256xf16>) -> tensor<2x64x256xf16>
  return %y, %n, %y2 : tensor<2x64x256xf16>, tensor<2x64x128xf16>, tensor<2x64x256xf16>
}
