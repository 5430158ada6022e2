// Rotary position embedding of grouped-query attention's q (3 heads) and k (1 head),
// both slices of one QKV projection [B, S, (3 + 1 + 1) * 8] split into heads: one
// elementwise kernel of two results of different element counts (horizontal fusion,
// mergeSiblings; the programs cover q, k's stores are masked past its 80 elements).
func.func @main(%qkv: tensor<2x5x40xf32>, %cos: tensor<5x8xf32>, %sin: tensor<5x8xf32>) -> (tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32>) {
  %qs = graph.slice %qkv {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x5x40xf32> -> tensor<2x5x24xf32>
  %qv = graph.reshape %qs : (tensor<2x5x24xf32>) -> tensor<2x5x3x8xf32>
  %q = graph.transpose %qv, [0, 2, 1, 3] : (tensor<2x5x3x8xf32>) -> tensor<2x3x5x8xf32>
  %ks = graph.slice %qkv {starts = array<i64: 0, 0, 24>, steps = array<i64: 1, 1, 1>} : tensor<2x5x40xf32> -> tensor<2x5x8xf32>
  %kv = graph.reshape %ks : (tensor<2x5x8xf32>) -> tensor<2x5x1x8xf32>
  %k = graph.transpose %kv, [0, 2, 1, 3] : (tensor<2x5x1x8xf32>) -> tensor<2x1x5x8xf32>
  %q1 = graph.slice %q {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x3x5x8xf32> -> tensor<2x3x5x4xf32>
  %q2 = graph.slice %q {starts = array<i64: 0, 0, 0, 4>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x3x5x8xf32> -> tensor<2x3x5x4xf32>
  %qn = graph.neg %q2 : tensor<2x3x5x4xf32>
  %qr = graph.concat %qn, %q1 {axis = 3 : i64} : (tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x5x8xf32>
  %qa = graph.mul %q, %cos : (tensor<2x3x5x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5x8xf32>
  %qb = graph.mul %qr, %sin : (tensor<2x3x5x8xf32>, tensor<5x8xf32>) -> tensor<2x3x5x8xf32>
  %qo = graph.add %qa, %qb : (tensor<2x3x5x8xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  %k1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x1x5x8xf32> -> tensor<2x1x5x4xf32>
  %k2 = graph.slice %k {starts = array<i64: 0, 0, 0, 4>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x1x5x8xf32> -> tensor<2x1x5x4xf32>
  %kn = graph.neg %k2 : tensor<2x1x5x4xf32>
  %kr = graph.concat %kn, %k1 {axis = 3 : i64} : (tensor<2x1x5x4xf32>, tensor<2x1x5x4xf32>) -> tensor<2x1x5x8xf32>
  %ka = graph.mul %k, %cos : (tensor<2x1x5x8xf32>, tensor<5x8xf32>) -> tensor<2x1x5x8xf32>
  %kq = graph.mul %kr, %sin : (tensor<2x1x5x8xf32>, tensor<5x8xf32>) -> tensor<2x1x5x8xf32>
  %ko = graph.add %ka, %kq : (tensor<2x1x5x8xf32>, tensor<2x1x5x8xf32>) -> tensor<2x1x5x8xf32>
  return %qo, %ko : tensor<2x3x5x8xf32>, tensor<2x1x5x8xf32>
}
