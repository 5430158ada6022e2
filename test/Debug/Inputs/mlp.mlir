func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = graph.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %r = graph.relu %a : tensor<4x16xf32>
  %s = graph.softmax %r {axis = 1 : i64} : tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
