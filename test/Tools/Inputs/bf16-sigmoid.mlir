// A bf16 model: kernels load bf16, compute in f32 and truncate back to bf16.
func.func @main(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = graph.sigmoid %x : tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}
