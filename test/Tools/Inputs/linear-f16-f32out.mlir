// fp16 Linear (Gemm transB = 1, bias) whose result is Cast to f32, M = 4096, N = 4100,
// K = 4096: an mma.sync kernel (sm_80 / sm_90) that stores f32, at the template's 128 x 256 x 32
// x 4 config (128 accumulators per thread). Rows of 4100 f32 are 16-byte multiples (rows of
// 4100 f16 would not be).
func.func @main(%x: tensor<4096x4096xf16>, %w: tensor<4100x4096xf16>, %b: tensor<4100xf16>) -> tensor<4096x4100xf32> {
  %0 = graph.gemm %x, %w, %b {transB = true} : (tensor<4096x4096xf16>, tensor<4100x4096xf16>, tensor<4100xf16>) -> tensor<4096x4100xf16>
  %1 = graph.cast %0 : tensor<4096x4100xf16> -> tensor<4096x4100xf32>
  return %1 : tensor<4096x4100xf32>
}
