func.func @main(%a: tensor<1024x4096xf16>, %b: tensor<4096x2048xf16>) -> tensor<1024x2048xf16> {
  %0 = graph.matmul %a, %b : (tensor<1024x4096xf16>, tensor<4096x2048xf16>) -> tensor<1024x2048xf16>
  return %0 : tensor<1024x2048xf16>
}
