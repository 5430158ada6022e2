// ResNet-50's 28 x 28 3x3 layer at batch 32, fp16, + bias + Relu, NCHW: tiles straddle images
// (784 pixels per image), stored by offsets; as per-image transposed block stores its sm_90a
// register epilogue spilled 256 bytes (aicc-compile-conv-nchw-tma.test checks ptxas).
func.func @main(%x: tensor<32x128x28x28xf16>, %w: tensor<128x128x3x3xf16>, %b: tensor<128xf16>) -> tensor<32x128x28x28xf16> {
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x128x28x28xf16>, tensor<128x128x3x3xf16>, tensor<128xf16>) -> tensor<32x128x28x28xf16>
  %1 = graph.relu %0 : tensor<32x128x28x28xf16>
  return %1 : tensor<32x128x28x28xf16>
}
