func.func @main(%x: tensor<2x7x5x12xf32>) -> (tensor<2x12xf32>, tensor<2x7x5xf32>, tensor<12x2xf32>) {
  %t = graph.transpose %x, [0, 3, 1, 2] : (tensor<2x7x5x12xf32>) -> tensor<2x12x7x5xf32>
  %m = graph.reduce_mean %t {axes = array<i64: 2, 3>, keepdims = false} : (tensor<2x12x7x5xf32>) -> tensor<2x12xf32>
  %s = graph.slice %x {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 2>} : tensor<2x7x5x12xf32> -> tensor<2x7x5x6xf32>
  %r = graph.reduce_max %s {axes = array<i64: 3>, keepdims = false} : (tensor<2x7x5x6xf32>) -> tensor<2x7x5xf32>
  %u = graph.transpose %x, [3, 0, 1, 2] : (tensor<2x7x5x12xf32>) -> tensor<12x2x7x5xf32>
  %v = graph.reshape %u : (tensor<12x2x7x5xf32>) -> tensor<12x2x35xf32>
  %w = graph.reduce_sum %v {axes = array<i64: 2>, keepdims = false} : (tensor<12x2x35xf32>) -> tensor<12x2xf32>
  return %m, %r, %w : tensor<2x12xf32>, tensor<2x7x5xf32>, tensor<12x2xf32>
}
