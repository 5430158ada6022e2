// A float64 model whose kernel needs libdevice on the GPU: exp, log and tanh of f64.
func.func @main(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %0 = graph.exp %x : tensor<4x8xf64>
  %1 = graph.log %0 : tensor<4x8xf64>
  %2 = graph.tanh %1 : tensor<4x8xf64>
  return %2 : tensor<4x8xf64>
}
