// The same with N = 130: rows of 130 f32 (520 bytes) are not 16-byte multiples, so the
// mma.sync kernel keeps its register pair stores.
func.func @main(%x: tensor<40x24xf16>, %w: tensor<130x24xf16>) -> tensor<40x130xf32> {
  %0 = graph.gemm %x, %w {transB = true} : (tensor<40x24xf16>, tensor<130x24xf16>) -> tensor<40x130xf16>
  %1 = graph.cast %0 : tensor<40x130xf16> -> tensor<40x130xf32>
  return %1 : tensor<40x130xf32>
}
