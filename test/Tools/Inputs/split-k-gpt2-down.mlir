// GPT-2's MLP down projection at 2 x 128 tokens: [256, 3072] x [768, 3072]^T + bias + residual.
func.func @main(%a: tensor<256x3072xf16>, %w: tensor<768x3072xf16>, %bias: tensor<768xf16>, %r: tensor<256x768xf16>) -> tensor<256x768xf16> {
  %y = graph.gemm %a, %w, %bias {transB = true} : (tensor<256x3072xf16>, tensor<768x3072xf16>, tensor<768xf16>) -> tensor<256x768xf16>
  %z = graph.add %y, %r : (tensor<256x768xf16>, tensor<256x768xf16>) -> tensor<256x768xf16>
  return %z : tensor<256x768xf16>
}
