// RUN: aicc-opt %s -split-input-file -graph-recompose-attention | FileCheck %s

// torch eager attention (BERT-style): K transposed, the scores divided by sqrt(d), an
// additive [B, 1, 1, S] padding mask, softmax over the keys.
// CHECK-LABEL: func.func @eager_additive_mask
// CHECK-SAME:      (%[[Q:.*]]: tensor<2x4x16x8xf32>, %[[K:.*]]: tensor<2x4x16x8xf32>, %[[V:.*]]: tensor<2x4x16x8xf32>, %[[M:.*]]: tensor<2x1x1x16xf32>)
// CHECK:         %[[KT:.*]] = graph.transpose %[[K]], [0, 1, 3, 2]
// CHECK-NEXT:    %[[Y:.*]] = graph.attention %[[Q]], %[[KT]], %[[V]] bias %[[M]] {scale = 0.353553{{[0-9]+}} : f64}
// CHECK-NOT:     graph.softmax
// CHECK:         return %[[Y]]
func.func @eager_additive_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<2x1x1x16xf32>) -> tensor<2x4x16x8xf32> {
  %c = graph.constant dense<2.82842708> : tensor<f32>
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<2x4x16x8xf32>) -> tensor<2x4x8x16xf32>
  %s = graph.matmul %q, %kt : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %t = graph.div %s, %c : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %a = graph.add %t, %m : (tensor<2x4x16x16xf32>, tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32>
  %p = graph.softmax %a {axis = 3 : i64} : tensor<2x4x16x16xf32>
  %y = graph.matmul %p, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %y : tensor<2x4x16x8xf32>
}

// -----

// A bool mask through where(mask, s, -inf) (masked_fill): the bias is where(mask, 0, -inf)
// of the mask's own shape; scales on Q and K^T (ONNX Attention's sqrt(scale) on each) fold
// into the op's scale, f16 throughout.
// CHECK-LABEL: func.func @where_mask_scaled_operands
// CHECK-DAG:     %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<f16>
// CHECK-DAG:     %[[NINF:.*]] = graph.constant dense<0xFC00> : tensor<f16>
// CHECK:         %[[B:.*]] = graph.where %{{.*}}, %[[Z]], %[[NINF]] : (tensor<16x16xi1>, tensor<f16>, tensor<f16>) -> tensor<16x16xf16>
// CHECK-NEXT:    %[[Y:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} bias %[[B]] {scale = 2.500000e-01 : f64}
// CHECK-NOT:     graph.matmul
func.func @where_mask_scaled_operands(%q: tensor<1x2x16x16xf16>, %kt: tensor<1x2x16x16xf16>, %v: tensor<1x2x16x16xf16>, %mask: tensor<16x16xi1>) -> tensor<1x2x16x16xf16> {
  %c = graph.constant dense<0.5> : tensor<f16>
  %ninf = graph.constant dense<0xFC00> : tensor<f16>
  %qs = graph.mul %q, %c : (tensor<1x2x16x16xf16>, tensor<f16>) -> tensor<1x2x16x16xf16>
  %ks = graph.mul %c, %kt : (tensor<f16>, tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %s = graph.matmul %qs, %ks : (tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %w = graph.where %mask, %s, %ninf : (tensor<16x16xi1>, tensor<1x2x16x16xf16>, tensor<f16>) -> tensor<1x2x16x16xf16>
  %p = graph.softmax %w {axis = 3 : i64} : tensor<1x2x16x16xf16>
  %y = graph.matmul %p, %v : (tensor<1x2x16x16xf16>, tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  return %y : tensor<1x2x16x16xf16>
}

// -----

// torch's scaled_dot_product_attention with a bool mask, as the dynamo exporter writes it:
// the softmax's NaN rows (no visible key) zeroed by where(isnan(p), 0, p), IsNaN imported as
// not(p == p). One attention whose undefined rows are 0 (zero_undefined_rows); the
// cleanup ops go with the chain.
// CHECK-LABEL: func.func @sdpa_bool_mask_nan_cleanup
// CHECK:         graph.attention %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} {scale = {{.*}} : f64, zero_undefined_rows}
// CHECK-NOT:     graph.softmax
// CHECK-NOT:     graph.not
func.func @sdpa_bool_mask_nan_cleanup(%q: tensor<2x4x1x64xf32>, %kt: tensor<2x4x64x128xf32>, %v: tensor<2x4x128x64xf32>, %mask: tensor<1x128xi1>) -> tensor<2x4x1x64xf32> {
  %c = graph.constant dense<0.353553385> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %ninf = graph.constant dense<0xFF800000> : tensor<f32>
  %qs = graph.mul %q, %c : (tensor<2x4x1x64xf32>, tensor<f32>) -> tensor<2x4x1x64xf32>
  %ks = graph.mul %kt, %c : (tensor<2x4x64x128xf32>, tensor<f32>) -> tensor<2x4x64x128xf32>
  %b = graph.where %mask, %zero, %ninf : (tensor<1x128xi1>, tensor<f32>, tensor<f32>) -> tensor<1x128xf32>
  %s = graph.matmul %qs, %ks : (tensor<2x4x1x64xf32>, tensor<2x4x64x128xf32>) -> tensor<2x4x1x128xf32>
  %a = graph.add %s, %b : (tensor<2x4x1x128xf32>, tensor<1x128xf32>) -> tensor<2x4x1x128xf32>
  %p = graph.softmax %a {axis = 3 : i64} : tensor<2x4x1x128xf32>
  %same = graph.equal %p, %p : (tensor<2x4x1x128xf32>, tensor<2x4x1x128xf32>) -> tensor<2x4x1x128xi1>
  %isnan = graph.not %same : tensor<2x4x1x128xi1>
  %pz = graph.where %isnan, %zero, %p : (tensor<2x4x1x128xi1>, tensor<f32>, tensor<2x4x1x128xf32>) -> tensor<2x4x1x128xf32>
  %y = graph.matmul %pz, %v : (tensor<2x4x1x128xf32>, tensor<2x4x128x64xf32>) -> tensor<2x4x1x64xf32>
  return %y : tensor<2x4x1x64xf32>
}

// -----

// Not the cleanup: NaN probabilities replaced by 1 (not 0) is no attention's semantics, and
// a cleanup whose probabilities are also returned keeps them in memory: both stay matmul,
// softmax, matmul.
// CHECK-LABEL: func.func @nan_cleanup_refused
// CHECK-NOT:     graph.attention
// CHECK:         graph.softmax
// CHECK-NOT:     graph.attention
// CHECK:         graph.softmax
// CHECK-NOT:     graph.attention
func.func @nan_cleanup_refused(%q: tensor<2x4x8xf32>, %kt: tensor<2x8x4xf32>, %v: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>) {
  %one = graph.constant dense<1.0> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %s = graph.matmul %q, %kt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<2x4x4xf32>
  %same = graph.equal %p, %p : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xi1>
  %isnan = graph.not %same : tensor<2x4x4xi1>
  %p1 = graph.where %isnan, %one, %p : (tensor<2x4x4xi1>, tensor<f32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %y = graph.matmul %p1, %v : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s2 = graph.matmul %q, %kt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %p2 = graph.softmax %s2 {axis = 2 : i64} : tensor<2x4x4xf32>
  %same2 = graph.equal %p2, %p2 : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xi1>
  %isnan2 = graph.not %same2 : tensor<2x4x4xi1>
  %pz = graph.where %isnan2, %zero, %p2 : (tensor<2x4x4xi1>, tensor<f32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %y2 = graph.matmul %pz, %v : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y, %y2, %p2 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>
}

// A constant causal bias (0 on and below the diagonal, -inf above) becomes `causal`; the
// scale multiplies the scores (GPT-2's eager attention).
// CHECK-LABEL: func.func @causal_constant
// CHECK:         %[[Y:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f64} : (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NOT:     bias
func.func @causal_constant(%q: tensor<2x4x4xf32>, %kt: tensor<2x4x4xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c = graph.constant dense<0.5> : tensor<f32>
  %mask = graph.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %s = graph.matmul %q, %kt : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t = graph.mul %s, %c : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %a = graph.add %t, %mask : (tensor<2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %p = graph.softmax %a {axis = 2 : i64} : tensor<2x4x4xf32>
  %y = graph.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

// Two mask layers. GPT-2's eager attention: where(causal, s, -inf) + attention_mask -> causal
// with the padding mask as the bias. torch eager with a mask and a constant causal mask
// added after it -> the same. Two non-causal masks -> their sum as the bias.
// CHECK-LABEL: func.func @two_masks
// CHECK:         %[[A:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} bias %arg3 {causal, scale = 5.000000e-01 : f64}
// CHECK:         %[[B:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} bias %arg3 {causal, scale = 5.000000e-01 : f64}
// CHECK:         %[[S:.*]] = graph.add %arg4, %arg3 : (tensor<1x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK:         %[[C:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} bias %[[S]] {scale = 5.000000e-01 : f64}
// CHECK-NOT:     graph.softmax
func.func @two_masks(%q: tensor<2x4x4xf32>, %kt: tensor<2x4x4xf32>, %v: tensor<2x4x4xf32>, %m: tensor<2x1x4xf32>, %m2: tensor<1x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %c = graph.constant dense<0.5> : tensor<f32>
  %ninf = graph.constant dense<0xFF800000> : tensor<f32>
  %tril = graph.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %mask = graph.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %s = graph.matmul %q, %kt : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t = graph.mul %s, %c : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %w = graph.where %tril, %t, %ninf : (tensor<4x4xi1>, tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %a = graph.add %w, %m : (tensor<2x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
  %p = graph.softmax %a {axis = 2 : i64} : tensor<2x4x4xf32>
  %y = graph.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s1 = graph.matmul %q, %kt : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t1 = graph.mul %s1, %c : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %a1 = graph.add %t1, %m : (tensor<2x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
  %b1 = graph.add %a1, %mask : (tensor<2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %p1 = graph.softmax %b1 {axis = 2 : i64} : tensor<2x4x4xf32>
  %y1 = graph.matmul %p1, %v : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s2 = graph.matmul %q, %kt : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t2 = graph.mul %s2, %c : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %a2 = graph.add %m, %t2 : (tensor<2x1x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %b2 = graph.add %a2, %m2 : (tensor<2x4x4xf32>, tensor<1x4x4xf32>) -> tensor<2x4x4xf32>
  %p2 = graph.softmax %b2 {axis = 2 : i64} : tensor<2x4x4xf32>
  %y2 = graph.matmul %p2, %v : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y, %y1, %y2 : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>
}

// -----

// A scale above a mask scales the mask: not the attention's form, left alone.
// CHECK-LABEL: func.func @scale_above_mask
// CHECK-NOT:     graph.attention
func.func @scale_above_mask(%q: tensor<2x4x4xf32>, %kt: tensor<2x4x4xf32>, %v: tensor<2x4x4xf32>, %m: tensor<2x1x4xf32>, %m2: tensor<1x4x4xf32>) -> tensor<2x4x4xf32> {
  %c = graph.constant dense<0.5> : tensor<f32>
  %s = graph.matmul %q, %kt : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %a = graph.add %s, %m : (tensor<2x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
  %t = graph.mul %a, %c : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %b = graph.add %t, %m2 : (tensor<2x4x4xf32>, tensor<1x4x4xf32>) -> tensor<2x4x4xf32>
  %p = graph.softmax %b {axis = 2 : i64} : tensor<2x4x4xf32>
  %y = graph.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

// Grouped-query attention as aicc imports ONNX Attention (4 query heads on 2 KV heads):
// queries [B, kv_heads, reps, S, D] against keys / values broadcast over reps. With at most
// 16 queries and no causal mask the reps are packed as query rows (PackGroupedQueries).
// CHECK-LABEL: func.func @grouped_query
// CHECK:         graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64} : (tensor<1x2x1x16x64xf32>, tensor<1x2x1x64x8xf32>, tensor<1x2x1x8x64xf32>) -> tensor<1x2x1x16x64xf32>
func.func @grouped_query(%q: tensor<1x2x2x8x64xf32>, %kt: tensor<1x2x1x64x8xf32>, %v: tensor<1x2x1x8x64xf32>) -> tensor<1x2x2x8x64xf32> {
  %c = graph.constant dense<0.125> : tensor<f32>
  %s = graph.matmul %q, %kt : (tensor<1x2x2x8x64xf32>, tensor<1x2x1x64x8xf32>) -> tensor<1x2x2x8x8xf32>
  %t = graph.mul %s, %c : (tensor<1x2x2x8x8xf32>, tensor<f32>) -> tensor<1x2x2x8x8xf32>
  %p = graph.softmax %t {axis = 4 : i64} : tensor<1x2x2x8x8xf32>
  %y = graph.matmul %p, %v : (tensor<1x2x2x8x8xf32>, tensor<1x2x1x8x64xf32>) -> tensor<1x2x2x8x64xf32>
  return %y : tensor<1x2x2x8x64xf32>
}

// -----

// Refused: the softmax is over the queries (axis 1), not the keys.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT:     graph.attention
func.func @softmax_wrong_axis(%q: tensor<8x4xf32>, %kt: tensor<4x8xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %s = graph.matmul %q, %kt : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %p = graph.softmax %s {axis = 0 : i64} : tensor<8x8xf32>
  %y = graph.matmul %p, %v : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Refused: the probabilities are also returned (output_attentions), so they must reach
// memory.
// CHECK-LABEL: func.func @probabilities_used
// CHECK-NOT:     graph.attention
func.func @probabilities_used(%q: tensor<8x4xf32>, %kt: tensor<4x8xf32>, %v: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x8xf32>) {
  %s = graph.matmul %q, %kt : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %p = graph.softmax %s {axis = 1 : i64} : tensor<8x8xf32>
  %y = graph.matmul %p, %v : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y, %p : tensor<8x4xf32>, tensor<8x8xf32>
}

// -----

// Refused: the mask broadcasts the scores up ([8, 8] + [2, 8, 8]): the softmax rows are
// not the matmul's rows, so no block of the kernel sees its mask.
// CHECK-LABEL: func.func @mask_widens_scores
// CHECK-NOT:     graph.attention
func.func @mask_widens_scores(%q: tensor<8x4xf32>, %kt: tensor<4x8xf32>, %v: tensor<8x4xf32>, %m: tensor<2x8x8xf32>) -> tensor<2x8x4xf32> {
  %s = graph.matmul %q, %kt : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %a = graph.add %s, %m : (tensor<8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = graph.softmax %a {axis = 2 : i64} : tensor<2x8x8xf32>
  %y = graph.matmul %p, %v : (tensor<2x8x8xf32>, tensor<8x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// Refused: a scale that is a tensor, not a scalar (per-head temperatures).
// CHECK-LABEL: func.func @tensor_scale
// CHECK-NOT:     graph.attention
func.func @tensor_scale(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>, %c: tensor<2x1x1xf32>) -> tensor<2x8x4xf32> {
  %s = graph.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %t = graph.mul %s, %c : (tensor<2x8x8xf32>, tensor<2x1x1xf32>) -> tensor<2x8x8xf32>
  %p = graph.softmax %t {axis = 2 : i64} : tensor<2x8x8xf32>
  %y = graph.matmul %p, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// Refused: no keys (an empty contraction, which the matmul path refuses as well).
// CHECK-LABEL: func.func @no_keys
// CHECK-NOT:     graph.attention
func.func @no_keys(%q: tensor<4x3xf32>, %kt: tensor<3x0xf32>, %v: tensor<0x3xf32>) -> tensor<4x3xf32> {
  %s = graph.matmul %q, %kt : (tensor<4x3xf32>, tensor<3x0xf32>) -> tensor<4x0xf32>
  %p = graph.softmax %s {axis = 1 : i64} : tensor<4x0xf32>
  %y = graph.matmul %p, %v : (tensor<4x0xf32>, tensor<0x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// HF Llama's softmax in f32 (softmax(x.float()).to(x.dtype)) and a causal mask the importer
// keeps as a dense_resource: one causal graph.attention on the 16-bit scores.
// CHECK-LABEL: func.func @f32_softmax_round_trip_resource_causal
// CHECK:         %[[Y:.*]] = graph.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f64} : (tensor<1x2x4xf16>, tensor<1x4x2xf16>, tensor<1x2x4xf16>) -> tensor<1x2x4xf16>
// CHECK-NOT:     graph.softmax
// CHECK-NOT:     graph.cast
// CHECK:         return %[[Y]]
func.func @f32_softmax_round_trip_resource_causal(%q: tensor<1x2x4xf16>, %kt: tensor<1x4x2xf16>, %v: tensor<1x2x4xf16>) -> tensor<1x2x4xf16> {
  %c = graph.constant dense<5.000000e-01> : tensor<f16>
  %m = graph.constant dense_resource<mask> : tensor<2x2xf16>
  %s = graph.matmul %q, %kt : (tensor<1x2x4xf16>, tensor<1x4x2xf16>) -> tensor<1x2x2xf16>
  %t = graph.mul %s, %c : (tensor<1x2x2xf16>, tensor<f16>) -> tensor<1x2x2xf16>
  %a = graph.add %t, %m : (tensor<1x2x2xf16>, tensor<2x2xf16>) -> tensor<1x2x2xf16>
  %w = graph.cast %a : tensor<1x2x2xf16> -> tensor<1x2x2xf32>
  %p = graph.softmax %w {axis = 2 : i64} : tensor<1x2x2xf32>
  %n = graph.cast %p : tensor<1x2x2xf32> -> tensor<1x2x2xf16>
  %y = graph.matmul %n, %v : (tensor<1x2x2xf16>, tensor<1x2x4xf16>) -> tensor<1x2x4xf16>
  return %y : tensor<1x2x4xf16>
}

{-#
  dialect_resources: {
    builtin: {
      mask: "0x02000000000000FC00000000"
    }
  }
#-}

// -----

// The round trip must narrow back to the scores' own type: bf16 scores through an f32
// softmax into an f16 product stay as they are.
// CHECK-LABEL: func.func @mismatched_round_trip
// CHECK-NOT:     graph.attention
// CHECK:         graph.softmax
func.func @mismatched_round_trip(%q: tensor<1x2x4xbf16>, %kt: tensor<1x4x2xbf16>, %v: tensor<1x2x4xf16>) -> tensor<1x2x4xf16> {
  %s = graph.matmul %q, %kt : (tensor<1x2x4xbf16>, tensor<1x4x2xbf16>) -> tensor<1x2x2xbf16>
  %w = graph.cast %s : tensor<1x2x2xbf16> -> tensor<1x2x2xf32>
  %p = graph.softmax %w {axis = 2 : i64} : tensor<1x2x2xf32>
  %n = graph.cast %p : tensor<1x2x2xf32> -> tensor<1x2x2xf16>
  %y = graph.matmul %n, %v : (tensor<1x2x2xf16>, tensor<1x2x4xf16>) -> tensor<1x2x4xf16>
  return %y : tensor<1x2x4xf16>
}

// -----

// Grouped-query decode: one query of 4 query heads per K / V head (K^T and V broadcast over
// them) becomes one attention of 4 rows per K / V head between reshapes; the causal flag,
// void for one query, goes.
// CHECK-LABEL: func.func @gqa_decode_packed
// CHECK: %[[Q:.*]] = graph.reshape %arg0 : (tensor<2x8x4x1x64xf16>) -> tensor<2x8x1x4x64xf16>
// CHECK: %[[Y:.*]] = graph.attention %[[Q]], %arg1, %arg2 {scale = 1.250000e-01 : f64} : (tensor<2x8x1x4x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>) -> tensor<2x8x1x4x64xf16>
// CHECK: %[[R:.*]] = graph.reshape %[[Y]] : (tensor<2x8x1x4x64xf16>) -> tensor<2x8x4x1x64xf16>
// CHECK: return %[[R]]
func.func @gqa_decode_packed(%q: tensor<2x8x4x1x64xf16>, %kt: tensor<2x8x1x64x500xf16>, %v: tensor<2x8x1x500x64xf16>) -> tensor<2x8x4x1x64xf16> {
  %y = graph.attention %q, %kt, %v {causal, scale = 0.125 : f64} : (tensor<2x8x4x1x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>) -> tensor<2x8x4x1x64xf16>
  return %y : tensor<2x8x4x1x64xf16>
}

// -----

// A few queries per head (not causal) and a padding mask constant over the heads and rows:
// 4 heads x 2 queries = 8 rows per K / V head, the mask as it is.
// CHECK-LABEL: func.func @gqa_rows_packed
// CHECK: %[[Q:.*]] = graph.reshape %arg0 : (tensor<2x8x4x2x64xf16>) -> tensor<2x8x1x8x64xf16>
// CHECK: %[[Y:.*]] = graph.attention %[[Q]], %arg1, %arg2 bias %arg3 {scale = 1.250000e-01 : f64} : (tensor<2x8x1x8x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>, tensor<2x1x1x1x500xf16>) -> tensor<2x8x1x8x64xf16>
// CHECK: graph.reshape %[[Y]] : (tensor<2x8x1x8x64xf16>) -> tensor<2x8x4x2x64xf16>
func.func @gqa_rows_packed(%q: tensor<2x8x4x2x64xf16>, %kt: tensor<2x8x1x64x500xf16>, %v: tensor<2x8x1x500x64xf16>, %m: tensor<2x1x1x1x500xf16>) -> tensor<2x8x4x2x64xf16> {
  %y = graph.attention %q, %kt, %v bias %m {scale = 0.125 : f64} : (tensor<2x8x4x2x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>, tensor<2x1x1x1x500xf16>) -> tensor<2x8x4x2x64xf16>
  return %y : tensor<2x8x4x2x64xf16>
}

// -----

// Not packed: two causal queries per head (their rows would need their own causal limits),
// a K / V head per query head, a bias varying over the query heads.
// CHECK-LABEL: func.func @gqa_not_packed
// CHECK-NOT: graph.reshape
// CHECK-COUNT-3: graph.attention
// CHECK-NOT: graph.reshape
func.func @gqa_not_packed(%q: tensor<2x8x4x2x64xf16>, %kt: tensor<2x8x1x64x500xf16>, %v: tensor<2x8x1x500x64xf16>, %q1: tensor<2x8x4x1x64xf16>, %kt4: tensor<2x8x4x64x500xf16>, %v4: tensor<2x8x4x500x64xf16>, %bias: tensor<2x8x4x1x500xf16>) -> (tensor<2x8x4x2x64xf16>, tensor<2x8x4x1x64xf16>, tensor<2x8x4x1x64xf16>) {
  %a = graph.attention %q, %kt, %v {causal, scale = 0.125 : f64} : (tensor<2x8x4x2x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>) -> tensor<2x8x4x2x64xf16>
  %b = graph.attention %q1, %kt4, %v4 {scale = 0.125 : f64} : (tensor<2x8x4x1x64xf16>, tensor<2x8x4x64x500xf16>, tensor<2x8x4x500x64xf16>) -> tensor<2x8x4x1x64xf16>
  %c = graph.attention %q1, %kt, %v bias %bias {scale = 0.125 : f64} : (tensor<2x8x4x1x64xf16>, tensor<2x8x1x64x500xf16>, tensor<2x8x1x500x64xf16>, tensor<2x8x4x1x500xf16>) -> tensor<2x8x4x1x64xf16>
  return %a, %b, %c : tensor<2x8x4x2x64xf16>, tensor<2x8x4x1x64xf16>, tensor<2x8x4x1x64xf16>
}

// -----

// HF's repeat_kv in a decode step: K and V [B, Hkv, S, D] unsqueezed, expanded to G = 4
// copies and viewed [B, H, S, D], K^T a transpose of the last two dims; one query. Packed
// over the unrepeated K and V (the reshapes of reshapes fold away): 4 query rows per K / V
// head.
// CHECK-LABEL: func.func @repeat_kv_decode
// CHECK-NOT: graph.expand
// CHECK: %[[KT:.*]] = graph.transpose %arg1, [0, 1, 3, 2] : (tensor<2x2x300x64xf16>) -> tensor<2x2x64x300xf16>
// CHECK: %[[Q:.*]] = graph.reshape %arg0 : (tensor<2x8x1x64xf16>) -> tensor<2x2x4x64xf16>
// CHECK: %[[Y:.*]] = graph.attention %[[Q]], %[[KT]], %arg2 {scale = 1.250000e-01 : f64}
// CHECK: graph.reshape %[[Y]] : (tensor<2x2x4x64xf16>) -> tensor<2x8x1x64xf16>
func.func @repeat_kv_decode(%q: tensor<2x8x1x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x64xf16>) -> tensor<2x8x1x64xf16> {
  %k3 = graph.reshape %k : (tensor<2x2x300x64xf16>) -> tensor<2x2x1x300x64xf16>
  %k4 = graph.expand %k3 : tensor<2x2x1x300x64xf16> -> tensor<2x2x4x300x64xf16>
  %k5 = graph.reshape %k4 : (tensor<2x2x4x300x64xf16>) -> tensor<2x8x300x64xf16>
  %kt = graph.transpose %k5, [0, 1, 3, 2] : (tensor<2x8x300x64xf16>) -> tensor<2x8x64x300xf16>
  %v3 = graph.reshape %v : (tensor<2x2x300x64xf16>) -> tensor<2x2x1x300x64xf16>
  %v4 = graph.expand %v3 : tensor<2x2x1x300x64xf16> -> tensor<2x2x4x300x64xf16>
  %v5 = graph.reshape %v4 : (tensor<2x2x4x300x64xf16>) -> tensor<2x8x300x64xf16>
  %y = graph.attention %q, %kt, %v5 {causal, scale = 0.125 : f64} : (tensor<2x8x1x64xf16>, tensor<2x8x64x300xf16>, tensor<2x8x300x64xf16>) -> tensor<2x8x1x64xf16>
  return %y : tensor<2x8x1x64xf16>
}

// -----

// Three queries per head with HF's attention_mask [B, 1, 1, Skv]: 4 x 3 = 12 rows per K / V
// head over the unrepeated K and V, the mask as it is.
// CHECK-LABEL: func.func @repeat_kv_rows_masked
// CHECK: %[[Q:.*]] = graph.reshape %arg0 : (tensor<2x8x3x64xf16>) -> tensor<2x2x12x64xf16>
// CHECK: %[[Y:.*]] = graph.attention %[[Q]], %{{.*}}, %arg2 bias %arg3
// CHECK-SAME: -> tensor<2x2x12x64xf16>
// CHECK: graph.reshape %[[Y]] : (tensor<2x2x12x64xf16>) -> tensor<2x8x3x64xf16>
func.func @repeat_kv_rows_masked(%q: tensor<2x8x3x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x64xf16>, %m: tensor<2x1x1x300xf16>) -> tensor<2x8x3x64xf16> {
  %k3 = graph.reshape %k : (tensor<2x2x300x64xf16>) -> tensor<2x2x1x300x64xf16>
  %k4 = graph.expand %k3 : tensor<2x2x1x300x64xf16> -> tensor<2x2x4x300x64xf16>
  %k5 = graph.reshape %k4 : (tensor<2x2x4x300x64xf16>) -> tensor<2x8x300x64xf16>
  %kt = graph.transpose %k5, [0, 1, 3, 2] : (tensor<2x8x300x64xf16>) -> tensor<2x8x64x300xf16>
  %v3 = graph.reshape %v : (tensor<2x2x300x64xf16>) -> tensor<2x2x1x300x64xf16>
  %v4 = graph.expand %v3 : tensor<2x2x1x300x64xf16> -> tensor<2x2x4x300x64xf16>
  %v5 = graph.reshape %v4 : (tensor<2x2x4x300x64xf16>) -> tensor<2x8x300x64xf16>
  %y = graph.attention %q, %kt, %v5 bias %m {scale = 0.125 : f64} : (tensor<2x8x3x64xf16>, tensor<2x8x64x300xf16>, tensor<2x8x300x64xf16>, tensor<2x1x1x300xf16>) -> tensor<2x8x3x64xf16>
  return %y : tensor<2x8x3x64xf16>
}

// -----

// Not packed: two causal queries per head; V repeated but K not.
// CHECK-LABEL: func.func @repeat_kv_not_packed
// CHECK-COUNT-2: graph.attention %arg
func.func @repeat_kv_not_packed(%q: tensor<2x8x2x64xf16>, %q1: tensor<2x8x1x64xf16>, %k: tensor<2x8x300x64xf16>, %v: tensor<2x2x300x64xf16>) -> (tensor<2x8x2x64xf16>, tensor<2x8x1x64xf16>) {
  %kt = graph.transpose %k, [0, 1, 3, 2] : (tensor<2x8x300x64xf16>) -> tensor<2x8x64x300xf16>
  %v3 = graph.reshape %v : (tensor<2x2x300x64xf16>) -> tensor<2x2x1x300x64xf16>
  %v4 = graph.expand %v3 : tensor<2x2x1x300x64xf16> -> tensor<2x2x4x300x64xf16>
  %v5 = graph.reshape %v4 : (tensor<2x2x4x300x64xf16>) -> tensor<2x8x300x64xf16>
  %a = graph.attention %q, %kt, %v5 {causal, scale = 0.125 : f64} : (tensor<2x8x2x64xf16>, tensor<2x8x64x300xf16>, tensor<2x8x300x64xf16>) -> tensor<2x8x2x64xf16>
  %b = graph.attention %q1, %kt, %v5 {scale = 0.125 : f64} : (tensor<2x8x1x64xf16>, tensor<2x8x64x300xf16>, tensor<2x8x300x64xf16>) -> tensor<2x8x1x64xf16>
  return %a, %b : tensor<2x8x2x64xf16>, tensor<2x8x1x64xf16>
}
