// fp16 3x3 conv + bias + relu, 5 x 16 x 12 x 12 -> 5 x 72 x 12 x 12 (pad 1): 144 output pixels
// per image (288 bytes, a 16-byte multiple: the sm_90a TMA store takes the NCHW output); the
// 128-pixel tiles straddle images (aicc-compile-conv-nchw-tma.test).
func.func @main(%x: tensor<5x16x12x12xf16>, %w: tensor<72x16x3x3xf16>, %b: tensor<72xf16>) -> tensor<5x72x12x12xf16> {
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<5x16x12x12xf16>, tensor<72x16x3x3xf16>, tensor<72xf16>) -> tensor<5x72x12x12xf16>
  %1 = graph.relu %0 : tensor<5x72x12x12xf16>
  return %1 : tensor<5x72x12x12xf16>
}
