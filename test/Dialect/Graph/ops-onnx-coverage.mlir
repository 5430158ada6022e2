// Round trip of the graph ops added for ONNX coverage (custom and generic form).
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
// RUN: aicc-opt %s --mlir-print-op-generic | aicc-opt | FileCheck %s

// CHECK-LABEL: func.func @window
// CHECK:         graph.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK:         graph.max_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK:         graph.avg_pool %{{.*}} {count_include_pad = true, dilations
func.func @window(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %2 = graph.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %0, %1, %2 : tensor<1x4x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @views
// CHECK:         graph.slice %{{.*}} {starts = array<i64: 1, 0>, steps = array<i64: 2, 1>}
// CHECK:         graph.pad %{{.*}} {high = array<i64: 1, 0>, low = array<i64: 0, 2>, mode = "reflect"}
// CHECK:         graph.concat %{{.*}}, %{{.*}} {axis = 0 : i64}
// CHECK:         graph.tile %{{.*}} : tensor<4x6xf32> -> tensor<8x12xf32>
// CHECK:         graph.gather %{{.*}}, %{{.*}} {axis = 0 : i64}
// CHECK:         graph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64}
// CHECK:         graph.expand %{{.*}} : tensor<1x6xf32> -> tensor<4x6xf32>
func.func @views(%x: tensor<4x6xf32>, %i: tensor<3xi64>, %j: tensor<4x2xi64>, %r: tensor<1x6xf32>) -> (tensor<2x6xf32>, tensor<5x8xf32>, tensor<8x6xf32>, tensor<8x12xf32>, tensor<3x6xf32>, tensor<4x2xf32>, tensor<4x6xf32>) {
  %0 = graph.slice %x {starts = array<i64: 1, 0>, steps = array<i64: 2, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  %1 = graph.pad %x {low = array<i64: 0, 2>, high = array<i64: 1, 0>, mode = "reflect"} : tensor<4x6xf32> -> tensor<5x8xf32>
  %2 = graph.concat %x, %x {axis = 0 : i64} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %3 = graph.tile %x : tensor<4x6xf32> -> tensor<8x12xf32>
  %4 = graph.gather %x, %i {axis = 0 : i64} : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  %5 = graph.gather_elements %x, %j {axis = 1 : i64} : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %6 = graph.expand %r : tensor<1x6xf32> -> tensor<4x6xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x6xf32>, tensor<5x8xf32>, tensor<8x6xf32>, tensor<8x12xf32>, tensor<3x6xf32>, tensor<4x2xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @elementwise_and_rows
// CHECK:         graph.less %{{.*}}, %{{.*}} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xi1>
// CHECK:         graph.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
// CHECK:         graph.cast %{{.*}} : tensor<4x6xf32> -> tensor<4x6xi64>
// CHECK:         graph.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK:         graph.trilu %{{.*}} {k = 1 : i64, upper = true}
// CHECK:         graph.shrink %{{.*}} {bias = 1.000000e-01 : f64}
// CHECK:         graph.log_softmax %{{.*}} {axis = 1 : i64}
// CHECK:         graph.layer_norm %{{.*}} scale %{{.*}} bias %{{.*}} {axis = 1 : i64}
// CHECK:         graph.reduce_prod %{{.*}} {axes = array<i64: 1>, keepdims = false}
func.func @elementwise_and_rows(%x: tensor<4x6xf32>, %v: tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4x6xi64>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4xf32>) {
  %c = graph.less %x, %v : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xi1>
  %0 = graph.where %c, %x, %v : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %1 = graph.cast %x : tensor<4x6xf32> -> tensor<4x6xi64>
  %2 = graph.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x6xf32>
  %3 = graph.trilu %x {k = 1 : i64, upper = true} : tensor<4x6xf32>
  %4 = graph.shrink %x {lambd = 0.5 : f64, bias = 0.1 : f64} : tensor<4x6xf32>
  %5 = graph.log_softmax %x {axis = 1 : i64} : tensor<4x6xf32>
  %6 = graph.layer_norm %x scale %v bias %v {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %7 = graph.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<4x6xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x6xf32>, tensor<4x6xi64>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @rms_norm
// CHECK:         graph.layer_norm %{{.*}} scale %{{.*}} {axis = 1 : i64, epsilon = {{.*}} : f64, rms = true}
func.func @rms_norm(%x: tensor<4x6xf32>, %v: tensor<6xf32>) -> tensor<4x6xf32> {
  %0 = graph.layer_norm %x scale %v {axis = 1 : i64, epsilon = 1.0e-6 : f64, rms = true} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
