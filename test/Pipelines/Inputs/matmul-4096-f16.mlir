// The case of issue 15: a 4096^3 f16 matmul. aicc-compile --target=sm_90a builds the
// 128x256x64 cooperative wgmma kernel for it; aicc-opt's aicc-pipeline{target=sm_90a} must
// build the same.
func.func @main(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %c = graph.matmul %a, %b : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %c : tensor<4096x4096xf16>
}
