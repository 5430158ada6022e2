// An f64 Gemm with alpha, beta and a [24, 1] C: the partials are f64 (the accumulator type).
func.func @main(%a: tensor<24x80xf64>, %w: tensor<80x40xf64>, %c: tensor<24x1xf64>) -> tensor<24x40xf64> {
  %y = graph.gemm %a, %w, %c {alpha = -1.5 : f32, beta = 0.25 : f32} : (tensor<24x80xf64>, tensor<80x40xf64>, tensor<24x1xf64>) -> tensor<24x40xf64>
  return %y : tensor<24x40xf64>
}
