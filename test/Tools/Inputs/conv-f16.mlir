// fp16 3x3 conv + bias + relu, 2 x 16 x 15 x 15 -> 2 x 24 x 15 x 15 (pad 1): the implicit-GEMM
// conv template and its tensor-core lowerings (aicc-compile-conv-tc.test).
func.func @main(%x: tensor<2x16x15x15xf16>, %w: tensor<24x16x3x3xf16>, %b: tensor<24xf16>) -> tensor<2x24x15x15xf16> {
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x15x15xf16>, tensor<24x16x3x3xf16>, tensor<24xf16>) -> tensor<2x24x15x15xf16>
  %1 = graph.relu %0 : tensor<2x24x15x15xf16>
  return %1 : tensor<2x24x15x15xf16>
}
