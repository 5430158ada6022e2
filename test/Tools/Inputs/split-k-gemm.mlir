// Gemm with transA, transB, alpha, beta and C, then Tanh: K = 100 (7 k blocks of 16).
func.func @main(%a: tensor<100x24xf32>, %w: tensor<40x100xf32>, %c: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %y = graph.gemm %a, %w, %c {transA = true, transB = true, alpha = 0.5 : f32, beta = 2.0 : f32} : (tensor<100x24xf32>, tensor<40x100xf32>, tensor<24x40xf32>) -> tensor<24x40xf32>
  %t = graph.tanh %y : tensor<24x40xf32>
  return %t : tensor<24x40xf32>
}
