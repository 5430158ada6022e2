// fp16 3x3 conv + bias + relu, 3 x 16 x 24 x 24 -> 3 x 72 x 24 x 24 (pad 1): 576 output pixels
// per image (1152 bytes, a 16-byte multiple), 5 tiles of 128 pixels per image (640 >= 576, at
// most a quarter more): on sm_90a every tile stays within one image and its transposed block
// is TMA-stored (aicc-compile-conv-nchw-tma.test).
func.func @main(%x: tensor<3x16x24x24xf16>, %w: tensor<72x16x3x3xf16>, %b: tensor<72xf16>) -> tensor<3x72x24x24xf16> {
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x16x24x24xf16>, tensor<72x16x3x3xf16>, tensor<72xf16>) -> tensor<3x72x24x24xf16>
  %1 = graph.relu %0 : tensor<3x72x24x24xf16>
  return %1 : tensor<3x72x24x24xf16>
}
