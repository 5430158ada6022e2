// test/Tools/Inputs/mlp.mlir at a batch of 8 rows: y = softmax(relu(x @ w + b)), every op
// row-wise (mlp8-cpu.v4.aicc, README.md).
func.func @main(%x: tensor<8x4xf32>) -> tensor<8x3xf32> {
  %w = graph.constant dense<[[0.5, -1.0, 0.25], [1.5, 0.75, -0.5], [-0.25, 1.0, 2.0], [0.125, -0.375, 1.25]]> : tensor<4x3xf32>
  %b = graph.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %0 = graph.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %1 = graph.add %0, %b : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %2 = graph.relu %1 : tensor<8x3xf32>
  %3 = graph.softmax %2 {axis = 1 : i64} : tensor<8x3xf32>
  return %3 : tensor<8x3xf32>
}
