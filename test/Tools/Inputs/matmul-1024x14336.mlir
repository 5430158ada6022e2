// bf16 1024 x 14336 x 4096 MatMul (an LLM up-projection at M = 1024), for the sm_90a
// tile-config heuristic (aicc-compile-matmul-config.test).
func.func @main(%x: tensor<1024x4096xbf16>, %w: tensor<4096x14336xbf16>) -> tensor<1024x14336xbf16> {
  %0 = graph.matmul %x, %w : (tensor<1024x4096xbf16>, tensor<4096x14336xbf16>) -> tensor<1024x14336xbf16>
  return %0 : tensor<1024x14336xbf16>
}
