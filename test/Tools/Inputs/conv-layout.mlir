// Two 3x3 convs with a relu between (a ResNet-style pair), for aicc-compile-conv-layout.test.
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w1 = graph.constant dense<0.25> : tensor<4x3x3x3xf32>
  %w2 = graph.constant dense<0.5> : tensor<4x4x3x3xf32>
  %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = graph.conv %x, %w1, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.relu %0 : tensor<1x4x8x8xf32>
  %2 = graph.conv %1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %2 : tensor<1x4x8x8xf32>
}
