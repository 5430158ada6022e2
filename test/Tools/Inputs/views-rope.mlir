// Rotary position embedding as HF's Llama writes it (apply_rotary_pos_emb: q * cos +
// rotate_half(q) * sin, rotate_half(x) = concat(-x2, x1)), for q of a projection (a kernel
// input here) and k computed in the kernel (its bias add): the concats read their inputs by
// index arithmetic in the elementwise kernels (views-fusion.test).
func.func @main(%q: tensor<2x3x5x8xf32>, %kin: tensor<2x1x5x8xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> (tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32>) {
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x3x5x8xf32> -> tensor<2x3x5x4xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 4>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x3x5x8xf32> -> tensor<2x3x5x4xf32>
  %qn = graph.neg %q2 : tensor<2x3x5x4xf32>
  %qr = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x5x8xf32>
  %qa = graph.mul %q, %cos : (tensor<2x3x5x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5x8xf32>
  %qb = graph.mul %qr, %sin : (tensor<2x3x5x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5x8xf32>
  %qo = graph.add %qa, %qb : (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  %kb = graph.constant dense<[0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0, -2.0]> : tensor<8xf32>
  %k = graph.add %kin, %kb : (tensor<2x1x5x8xf32>, tensor<8xf32>) -> tensor<2x1x5x8xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x1x5x8xf32> -> tensor<2x1x5x4xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 4>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x1x5x8xf32> -> tensor<2x1x5x4xf32>
  %kn = graph.neg %k2 : tensor<2x1x5x4xf32>
  %kr = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<2x1x5x4xf32>, tensor<2x1x5x4xf32>) -> tensor<2x1x5x8xf32>
  %ka = graph.mul %k, %cos : (tensor<2x1x5x8xf32>, tensor<5x8xf32>) -> tensor<2x1x5x8xf32>
  %kq = graph.mul %kr, %sin : (tensor<2x1x5x8xf32>, tensor<5x8xf32>) -> tensor<2x1x5x8xf32>
  %ko = graph.add %ka, %kq : (tensor<2x1x5x8xf32>, tensor<2x1x5x8xf32>) -> tensor<2x1x5x8xf32>
  return %qo, %ko : tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32>
}
