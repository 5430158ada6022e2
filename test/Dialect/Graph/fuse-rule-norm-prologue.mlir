// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// RUN: aicc-opt %s -split-input-file -aicc-attach-target="target=sm_90a" -graph-fuse | FileCheck %s --check-prefix=GPU
// Rule norm-prologue (normPrologueRefusal, FusionRules.h): a scale-free RMS norm over the
// last dim read only as a matmul / Gemm's left operand joins the GEMM's kernel (the matmul
// template sums each row's squares in its K loop and scales the accumulator rows); rule
// norm-prologue-cost keeps it apart where the recompute costs more than the norm kernel.

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
// folds only constants); a LayerNorm (mean subtracted); the normalized value also returned.
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
