// RUN: aicc-opt %s -split-input-file -graph-recompose-attention | FileCheck %s

// HF's StaticCache mask (bench/llm_decode.py): key j visible from query i when
// j <= pos[i], added as where(mask, 0, finfo.min): graph.attention gets key_bound = pos and
// adds finfo.min past it itself (key_bound_mask), the [4, 16] mask gone.
// CHECK-LABEL: func.func @static_cache_mask
// CHECK-SAME:      %[[POS:[^:]*]]: tensor<4x1xi64>
// CHECK-NOT:     graph.where
// CHECK:         graph.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} key_bound %[[POS]] {key_bound_mask = -6.550400e+04 : f64, scale
func.func @static_cache_mask(%q: tensor<1x2x4x8xf16>, %kt: tensor<1x2x8x16xf16>, %v: tensor<1x2x16x8xf16>, %pos: tensor<4x1xi64>) -> tensor<1x2x4x8xf16> {
  %keys = graph.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi64>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %low = graph.constant dense<-65504.0> : tensor<f16>
  %c = graph.constant dense<0.35355339> : tensor<f16>
  %vis = graph.less_equal %keys, %pos : (tensor<1x16xi64>, tensor<4x1xi64>) -> tensor<4x16xi1>
  %m = graph.where %vis, %zero, %low : (tensor<4x16xi1>, tensor<f16>, tensor<f16>) -> tensor<4x16xf16>
  %s = graph.matmul %q, %kt : (tensor<1x2x4x8xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x4x16xf16>
  %t = graph.mul %s, %c : (tensor<1x2x4x16xf16>, tensor<f16>) -> tensor<1x2x4x16xf16>
  %a = graph.add %t, %m : (tensor<1x2x4x16xf16>, tensor<4x16xf16>) -> tensor<1x2x4x16xf16>
  %p = graph.softmax %a {axis = 3 : i64} : tensor<1x2x4x16xf16>
  %y = graph.matmul %p, %v : (tensor<1x2x4x16xf16>, tensor<1x2x16x8xf16>) -> tensor<1x2x4x8xf16>
  return %y : tensor<1x2x4x8xf16>
}

// -----

// The mask as masked_fill(keys > pos, -inf) with the comparison's operands swapped
// (pos < keys), the positions [1, 4, 1] (i32): the same bound, and with -inf the mask is
// exactly "-inf past the bound".
// CHECK-LABEL: func.func @masked_fill_swapped
// CHECK-SAME:      %[[POS:[^:]*]]: tensor<1x4x1xi32>
// CHECK-NOT:     graph.where
// CHECK:         graph.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} key_bound %[[POS]] {key_bound_mask = 0xFFF0000000000000 : f64, scale
func.func @masked_fill_swapped(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x6xf32>, %v: tensor<1x2x6x8xf32>, %pos: tensor<1x4x1xi32>) -> tensor<1x2x4x8xf32> {
  %keys = graph.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
  %ninf = graph.constant dense<0xFF800000> : tensor<f32>
  %masked = graph.less %pos, %keys : (tensor<1x4x1xi32>, tensor<6xi32>) -> tensor<1x4x6xi1>
  %s = graph.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x6xf32>) -> tensor<1x2x4x6xf32>
  %w = graph.where %masked, %ninf, %s : (tensor<1x4x6xi1>, tensor<f32>, tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %p = graph.softmax %w {axis = 3 : i64} : tensor<1x2x4x6xf32>
  %y = graph.matmul %p, %v : (tensor<1x2x4x6xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32>
  return %y : tensor<1x2x4x8xf32>
}

// -----

// No bound where the mask does not promise one: keys that are not 0, 1, .. (a permuted
// table), a masked value a softmax can still weigh (-1000), a strict comparison (keys < pos:
// the bound would be pos - 1), positions varying along the keys ([4, 16]).
// CHECK-LABEL: func.func @refusals
// CHECK-COUNT-4: graph.attention %{{[^ ]*}}, %{{[^ ]*}}, %{{[^ ]*}} bias %{{[^ ]*}} {
// CHECK-NOT:     key_bound
func.func @refusals(%q: tensor<1x1x4x8xf16>, %kt: tensor<1x1x8x4xf16>, %v: tensor<1x1x4x8xf16>, %pos: tensor<4x1xi64>, %pos2: tensor<4x4xi64>) -> (tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>) {
  %keys = graph.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
  %perm = graph.constant dense<[[0, 2, 1, 3]]> : tensor<1x4xi64>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %low = graph.constant dense<-65504.0> : tensor<f16>
  %weak = graph.constant dense<-1000.0> : tensor<f16>
  %vis1 = graph.less_equal %perm, %pos : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %m1 = graph.where %vis1, %zero, %low : (tensor<4x4xi1>, tensor<f16>, tensor<f16>) -> tensor<4x4xf16>
  %vis2 = graph.less_equal %keys, %pos : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %m2 = graph.where %vis2, %zero, %weak : (tensor<4x4xi1>, tensor<f16>, tensor<f16>) -> tensor<4x4xf16>
  %vis3 = graph.less %keys, %pos : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %m3 = graph.where %vis3, %zero, %low : (tensor<4x4xi1>, tensor<f16>, tensor<f16>) -> tensor<4x4xf16>
  %vis4 = graph.less_equal %keys, %pos2 : (tensor<1x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
  %m4 = graph.where %vis4, %zero, %low : (tensor<4x4xi1>, tensor<f16>, tensor<f16>) -> tensor<4x4xf16>
  %s1 = graph.matmul %q, %kt : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
  %a1 = graph.add %s1, %m1 : (tensor<1x1x4x4xf16>, tensor<4x4xf16>) -> tensor<1x1x4x4xf16>
  %p1 = graph.softmax %a1 {axis = 3 : i64} : tensor<1x1x4x4xf16>
  %y1 = graph.matmul %p1, %v : (tensor<1x1x4x4xf16>, tensor<1x1x4x8xf16>) -> tensor<1x1x4x8xf16>
  %s2 = graph.matmul %q, %kt : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
  %a2 = graph.add %s2, %m2 : (tensor<1x1x4x4xf16>, tensor<4x4xf16>) -> tensor<1x1x4x4xf16>
  %p2 = graph.softmax %a2 {axis = 3 : i64} : tensor<1x1x4x4xf16>
  %y2 = graph.matmul %p2, %v : (tensor<1x1x4x4xf16>, tensor<1x1x4x8xf16>) -> tensor<1x1x4x8xf16>
  %s3 = graph.matmul %q, %kt : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
  %a3 = graph.add %s3, %m3 : (tensor<1x1x4x4xf16>, tensor<4x4xf16>) -> tensor<1x1x4x4xf16>
  %p3 = graph.softmax %a3 {axis = 3 : i64} : tensor<1x1x4x4xf16>
  %y3 = graph.matmul %p3, %v : (tensor<1x1x4x4xf16>, tensor<1x1x4x8xf16>) -> tensor<1x1x4x8xf16>
  %s4 = graph.matmul %q, %kt : (tensor<1x1x4x8xf16>, tensor<1x1x8x4xf16>) -> tensor<1x1x4x4xf16>
  %a4 = graph.add %s4, %m4 : (tensor<1x1x4x4xf16>, tensor<4x4xf16>) -> tensor<1x1x4x4xf16>
  %p4 = graph.softmax %a4 {axis = 3 : i64} : tensor<1x1x4x4xf16>
  %y4 = graph.matmul %p4, %v : (tensor<1x1x4x4xf16>, tensor<1x1x4x8xf16>) -> tensor<1x1x4x8xf16>
  return %y1, %y2, %y3, %y4 : tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>
}

// -----

// A -inf mask (a bool mask as where(mask, 0, -inf)) in a grouped-query decode step: the
// mask becomes the op's (no bias, no where),
// and the one bound of the step's query holds for the packed rows (4 query heads per K / V
// head). A prompt of 2 positions keeps its per-row mask and is not packed (the packing keeps
// only a bound that holds for every row).
// CHECK-LABEL: func.func @sdpa_bool_mask_gqa
// CHECK-SAME:      %[[POS1:[^:]*]]: tensor<1x1xi64>, %[[POS2:[^:]*]]: tensor<2x1xi64>
// CHECK-NOT:     graph.where
// CHECK:         %[[Q:.*]] = graph.reshape %arg0 : (tensor<1x2x4x1x8xf16>) -> tensor<1x2x1x4x8xf16>
// CHECK:         graph.attention %[[Q]], %{{[^ ]*}}, %{{[^ ]*}} key_bound %[[POS1]] {key_bound_mask = 0xFFF0000000000000 : f64, scale = {{.*}}} : (tensor<1x2x1x4x8xf16>, tensor<1x2x1x8x16xf16>, tensor<1x2x1x16x8xf16>, tensor<1x1xi64>)
// CHECK-NOT:     graph.reshape %arg3
// CHECK:         graph.attention %arg3, %{{[^ ]*}}, %{{[^ ]*}} key_bound %[[POS2]] {key_bound_mask = 0xFFF0000000000000 : f64, scale = {{.*}}} : (tensor<1x2x4x2x8xf16>, tensor<1x2x1x8x16xf16>, tensor<1x2x1x16x8xf16>, tensor<2x1xi64>)
func.func @sdpa_bool_mask_gqa(%q: tensor<1x2x4x1x8xf16>, %kt: tensor<1x2x1x8x16xf16>, %v: tensor<1x2x1x16x8xf16>, %q2: tensor<1x2x4x2x8xf16>, %pos1: tensor<1x1xi64>, %pos2: tensor<2x1xi64>) -> (tensor<1x2x4x1x8xf16>, tensor<1x2x4x2x8xf16>) {
  %keys = graph.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi64>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %ninf = graph.constant dense<0xFC00> : tensor<f16>
  %vis1 = graph.less_equal %keys, %pos1 : (tensor<1x16xi64>, tensor<1x1xi64>) -> tensor<1x16xi1>
  %m1 = graph.where %vis1, %zero, %ninf : (tensor<1x16xi1>, tensor<f16>, tensor<f16>) -> tensor<1x16xf16>
  %y1 = graph.attention %q, %kt, %v bias %m1 {scale = 0.35355339 : f64} : (tensor<1x2x4x1x8xf16>, tensor<1x2x1x8x16xf16>, tensor<1x2x1x16x8xf16>, tensor<1x16xf16>) -> tensor<1x2x4x1x8xf16>
  %vis2 = graph.less_equal %keys, %pos2 : (tensor<1x16xi64>, tensor<2x1xi64>) -> tensor<2x16xi1>
  %m2 = graph.where %vis2, %zero, %ninf : (tensor<2x16xi1>, tensor<f16>, tensor<f16>) -> tensor<2x16xf16>
  %y2 = graph.attention %q2, %kt, %v bias %m2 {scale = 0.35355339 : f64} : (tensor<1x2x4x2x8xf16>, tensor<1x2x1x8x16xf16>, tensor<1x2x1x16x8xf16>, tensor<2x16xf16>) -> tensor<1x2x4x2x8xf16>
  return %y1, %y2 : tensor<1x2x4x1x8xf16>, tensor<1x2x4x2x8xf16>
}
