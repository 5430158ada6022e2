// A batched matmul (A [4, 8, 96], B [96, 40] broadcast) + bias + Relu.
func.func @main(%a: tensor<4x8x96xf32>, %w: tensor<96x40xf32>, %bias: tensor<40xf32>) -> tensor<4x8x40xf32> {
  %y = graph.matmul %a, %w : (tensor<4x8x96xf32>, tensor<96x40xf32>) -> tensor<4x8x40xf32>
  %z = graph.add %y, %bias : (tensor<4x8x40xf32>, tensor<40xf32>) -> tensor<4x8x40xf32>
  %r = graph.relu %z : tensor<4x8x40xf32>
  return %r : tensor<4x8x40xf32>
}
