// RUN: aicc-opt %s -split-input-file -graph-recompose | FileCheck %s

// GELU as PyTorch 1.13 exports it (erf form).
// CHECK-LABEL: func.func @gelu_erf
// CHECK-SAME:      (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = graph.erf %0 : tensor<4x8xf32>
  %2 = graph.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = graph.mul %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.mul %3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// Refused: the scale is 0.6, not 0.5 (not a GELU).
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT:     graph.gelu
// CHECK:         graph.erf
func.func @not_gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.6> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = graph.erf %0 : tensor<4x8xf32>
  %2 = graph.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = graph.mul %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.mul %3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// LayerNorm as exported before opset 17 (Pow(d, 2) already canonicalized to d * d), with
// its affine scale and bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[L:.*]] = graph.layer_norm %[[X]] scale %[[W]] bias %[[B]] {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64}
// CHECK-NEXT:    return %[[L]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %eps = graph.constant dense<9.99999974E-6> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %d = graph.sub %x, %m : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = graph.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %s = graph.sqrt %ve : tensor<2x4x1xf32>
  %n = graph.div %d, %s : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %y = graph.mul %n, %w : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %z = graph.add %y, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %z : tensor<2x4x8xf32>
}

// -----

// Not a LayerNorm: the variance is taken over other dims than the mean. It is still the RMS
// norm of d = x - mean(x) over dims 1, 2.
// CHECK-LABEL: func.func @not_layer_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK:         %[[M:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 2>}
// CHECK:         %[[D:.*]] = graph.sub %[[X]], %[[M]]
// CHECK:         %[[N:.*]] = graph.layer_norm %[[D]] {axis = 1 : i64, {{.*}}, rms = true}
// CHECK:         return %[[N]]
func.func @not_layer_norm(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = graph.constant dense<9.99999974E-6> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %d = graph.sub %x, %m : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = graph.mul %d, %d : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = graph.sqrt %ve : tensor<2x1x1xf32>
  %n = graph.div %d, %s : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  return %n : tensor<2x4x8xf32>
}

// -----

// GELU, tanh form, as PyTorch 1.13 exports gelu(approximate="tanh") at opset 14:
// 0.5 * (x * (1 + tanh(beta * (x + kappa * (x * (x * x)))))).
// CHECK-LABEL: func.func @gelu_tanh_torch
// CHECK-SAME:      (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %[[X]] {approximate = "tanh"} : tensor<4x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_tanh_torch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kappa = graph.constant dense<4.471500e-02> : tensor<f32>
  %beta = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = graph.mul %kappa, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = graph.add %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.mul %beta, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = graph.tanh %4 : tensor<4x8xf32>
  %6 = graph.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = graph.mul %x, %6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = graph.mul %half, %7 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// -----

// GELU, tanh form, as GPT-2's hand-written "new GELU" exports (f16 constants,
// x^3 already canonicalized from graph.pow): (0.5 * x) * (1 + tanh(...)).
// CHECK-LABEL: func.func @gelu_tanh_gpt2_f16
// CHECK-SAME:      (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %[[X]] {approximate = "tanh"} : tensor<4x8xf16>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_tanh_gpt2_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %half = graph.constant dense<0.5> : tensor<f16>
  %kappa = graph.constant dense<4.471500e-02> : tensor<f16>
  %beta = graph.constant dense<0.7978> : tensor<f16>
  %one = graph.constant dense<1.0> : tensor<f16>
  %0 = graph.mul %half, %x : (tensor<f16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %1 = graph.mul %x, %x : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %2 = graph.mul %1, %x : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %3 = graph.mul %2, %kappa : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %4 = graph.add %x, %3 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  %5 = graph.mul %4, %beta : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %6 = graph.tanh %5 : tensor<4x8xf16>
  %7 = graph.add %6, %one : (tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
  %8 = graph.mul %0, %7 : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  return %8 : tensor<4x8xf16>
}

// -----

// Refused: kappa is 0.05, not 0.044715 (not a GELU).
// CHECK-LABEL: func.func @not_gelu_tanh
// CHECK-NOT:     graph.gelu
// CHECK:         graph.tanh
func.func @not_gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %kappa = graph.constant dense<5.0e-02> : tensor<f32>
  %beta = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = graph.mul %kappa, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = graph.add %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.mul %beta, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = graph.tanh %4 : tensor<4x8xf32>
  %6 = graph.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = graph.mul %x, %6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = graph.mul %half, %7 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// -----

// Refused: the inner product x * (1 + tanh(...)) has another user, so it cannot disappear.
// CHECK-LABEL: func.func @gelu_tanh_shared_inner
// CHECK-NOT:     graph.gelu
func.func @gelu_tanh_shared_inner(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %kappa = graph.constant dense<4.471500e-02> : tensor<f32>
  %beta = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mul %x, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = graph.mul %kappa, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = graph.add %x, %2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.mul %beta, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = graph.tanh %4 : tensor<4x8xf32>
  %6 = graph.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = graph.mul %x, %6 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = graph.mul %half, %7 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %8, %7 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// RMSNorm as in ONNX RMSNormalization's function body: x / sqrt(mean(x * x) + eps), then
// the scale.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:      (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[L:.*]] = graph.layer_norm %[[X]] scale %[[W]] {axis = 1 : i64, epsilon = 9.9999997473787516E-6 : f64, rms = true}
// CHECK-NEXT:    return %[[L]]
func.func @rms_norm(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %eps = graph.constant dense<9.99999974E-6> : tensor<f32>
  %sq = graph.mul %x, %x : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1, 2>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x1x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = graph.sqrt %ve : tensor<2x1x1xf32>
  %n = graph.div %x, %s : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  %y = graph.mul %n, %w : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// RMSNorm as PyTorch exports Hugging Face's LlamaRMSNorm: w * (x * reciprocal(sqrt(...))).
// CHECK-LABEL: func.func @rms_norm_reciprocal
// CHECK-SAME:      (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK-NEXT:    %[[L:.*]] = graph.layer_norm %[[X]] scale %[[W]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64, rms = true}
// CHECK-NEXT:    return %[[L]]
func.func @rms_norm_reciprocal(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %sq = graph.mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = graph.add %eps, %v : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : tensor<2x1xf32>
  %r = graph.reciprocal %s : tensor<2x1xf32>
  %n = graph.mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = graph.mul %w, %n : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Refused: the mean square is of another tensor than the one divided.
// CHECK-LABEL: func.func @not_rms_norm
// CHECK-NOT:     graph.layer_norm
func.func @not_rms_norm(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %sq = graph.mul %z, %z : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : tensor<2x1xf32>
  %n = graph.div %x, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %n : tensor<2x8xf32>
}

// -----

// torch's f16 RMSNorm (LlamaRMSNorm, bench/models.py's RMSNorm): the norm in f32 between
// two casts, then the weight in f16. An f16 layer_norm is computed in f32 and rounded once
// (the same value), so the casts go and the weight becomes its scale (graph-norm-scale-into-
// weights can then fold it into a projection).
// CHECK-LABEL: func.func @rms_norm_f16_casts
// CHECK-SAME:      (%[[X:.*]]: tensor<2x8xf16>, %[[W:.*]]: tensor<8xf16>)
// CHECK-NEXT:    %[[L:.*]] = graph.layer_norm %[[X]] scale %[[W]] {axis = 1 : i64, epsilon = 9.9999999747524271E-7 : f64, rms = true} : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
// CHECK-NEXT:    return %[[L]]
func.func @rms_norm_f16_casts(%x: tensor<2x8xf16>, %w: tensor<8xf16>) -> tensor<2x8xf16> {
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %xf = graph.cast %x : tensor<2x8xf16> -> tensor<2x8xf32>
  %sq = graph.mul %xf, %xf : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : tensor<2x1xf32>
  %r = graph.reciprocal %s : tensor<2x1xf32>
  %n = graph.mul %xf, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %h = graph.cast %n : tensor<2x8xf32> -> tensor<2x8xf16>
  %y = graph.mul %h, %w : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}

// -----

// Not narrowed: the f32 norm's result is used in f32 too (only the cast's value is the f16
// norm's).
// CHECK-LABEL: func.func @rms_norm_f32_used
// CHECK:         graph.layer_norm {{.*}} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK:         graph.cast
func.func @rms_norm_f32_used(%x: tensor<2x8xf16>) -> (tensor<2x8xf16>, tensor<2x8xf32>) {
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %xf = graph.cast %x : tensor<2x8xf16> -> tensor<2x8xf32>
  %sq = graph.mul %xf, %xf : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : tensor<2x1xf32>
  %r = graph.reciprocal %s : tensor<2x1xf32>
  %n = graph.mul %xf, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %h = graph.cast %n : tensor<2x8xf32> -> tensor<2x8xf16>
  return %h, %n : tensor<2x8xf16>, tensor<2x8xf32>
}
