// fp16 4096^3 MatMul + bias + GELU (the benchmark's Linear + GELU shape), for the tile config
// rule and the staged erf epilogue on sm_90a (aicc-compile-wgmma.test, aicc-compile-wgmma-ptxas.test).
func.func @main(%x: tensor<4096x4096xf16>, %w: tensor<4096x4096xf16>, %b: tensor<4096xf16>) -> tensor<4096x4096xf16> {
  %0 = graph.matmul %x, %w : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %1 = graph.add %0, %b : (tensor<4096x4096xf16>, tensor<4096xf16>) -> tensor<4096x4096xf16>
  %2 = graph.gelu %1 : tensor<4096x4096xf16>
  return %2 : tensor<4096x4096xf16>
}
