// fp16 4096^3 MatMul + bias (a plain epilogue), for the sm_90a tile-config heuristic
// (aicc-compile-matmul-config.test).
func.func @main(%x: tensor<4096x4096xf16>, %w: tensor<4096x4096xf16>, %b: tensor<4096xf16>) -> tensor<4096x4096xf16> {
  %0 = graph.matmul %x, %w : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %1 = graph.add %0, %b : (tensor<4096x4096xf16>, tensor<4096xf16>) -> tensor<4096x4096xf16>
  return %1 : tensor<4096x4096xf16>
}
