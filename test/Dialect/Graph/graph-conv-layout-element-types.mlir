// graph-conv-layout{element-types=...}: only the convs of the listed element types change
// layout (conv-layout=auto on GPU targets passes f16,bf16: the tensor-core types). The f16
// conv's 3 channels are padded to 8 (graph-conv-layout-propagate.mlir).
// RUN: aicc-opt %s -graph-conv-layout="element-types=f16,bf16" | FileCheck %s
// RUN: not aicc-opt %s -graph-conv-layout="element-types=f64" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: graph-conv-layout: element-types takes f16, bf16 and f32, got 'f64'

// CHECK-LABEL: func.func @mixed
// CHECK:         graph.conv {{.*}}layout = "NHWC"{{.*}} : (tensor<1x8x8x8xf16>
// CHECK:         graph.conv {{.*}} : (tensor<1x3x8x8xf32>
// CHECK-NOT:     layout = "NHWC"
func.func @mixed(%x: tensor<1x3x8x8xf16>, %w: tensor<16x3x3x3xf16>, %y: tensor<1x3x8x8xf32>, %v: tensor<16x3x3x3xf32>) -> (tensor<1x16x6x6xf16>, tensor<1x16x6x6xf32>) {
  %a = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf16>
  %b = graph.conv %y, %v {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %a, %b : tensor<1x16x6x6xf16>, tensor<1x16x6x6xf32>
}
