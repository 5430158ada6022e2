// graph-conv-layout carries the NHWC layout through what sits between convolutions: max /
// average pools, grouped (depthwise) convs and reductions whose input is a transpose back to
// NCHW move to NHWC, so the transposes between consecutive convs cancel; a transpose that
// moves only size-1 dims becomes a reshape; f16 / bf16 convs of fewer than 8 channels get
// their channels padded to 8 with zeros (constant weights padded at compile time).
// RUN: aicc-opt %s -split-input-file -graph-conv-layout | FileCheck %s

// ResNet's stem: conv -> relu -> max_pool -> conv. The pool pools in NHWC; only the
// model's edges keep transposes.
// CHECK-LABEL: func.func @conv_pool_conv
// CHECK:         graph.transpose %{{.*}}, [0, 2, 3, 1] : (tensor<1x4x8x8xf32>)
// CHECK:         %[[C1:.*]] = graph.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[C1]] : tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.max_pool %[[R]] {{{.*}}layout = "NHWC"{{.*}}} : tensor<1x8x8x4xf32> -> tensor<1x4x4x4xf32>
// CHECK-NOT:     graph.transpose
// CHECK:         %[[C2:.*]] = graph.conv %[[P]], {{.*}}layout = "NHWC"{{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.transpose %[[C2]], [0, 3, 1, 2] : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @conv_pool_conv(%x: tensor<1x4x8x8xf32>, %w1: tensor<4x4x3x3xf32>, %w2: tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %0 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.relu %0 : tensor<1x4x8x8xf32>
  %2 = graph.max_pool %1 {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %3 = graph.conv %2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %3 : tensor<1x2x4x4xf32>
}

// -----

// A pool of a model input stays NCHW (no transpose is put on a computed value or an input
// for it); average pools move like max pools and keep count_include_pad.
// CHECK-LABEL: func.func @pools
// CHECK:         graph.avg_pool %{{.*}} {count_include_pad = true{{.*}}layout = "NHWC"{{.*}}} : tensor<1x8x8x4xf32> -> tensor<1x4x4x4xf32>
// CHECK:         graph.max_pool %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
func.func @pools(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.avg_pool %0 {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %2 = graph.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %1, %2 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// mobilenet's inverted residual: pointwise conv -> depthwise conv -> squeeze-excitation
// (mean over H, W with keepdims, two 1x1 convs, a scale) -> pointwise conv. The depthwise
// conv takes the OHWI weight [4, 3, 3, 1]; the mean reduces NHWC's dims 1 and 2.
// CHECK-LABEL: func.func @inverted_residual
// CHECK:         %[[PW:.*]] = graph.conv {{.*}}group = 1 : i64, layout = "NHWC"{{.*}} -> tensor<1x8x8x4xf16>
// CHECK-NOT:     graph.transpose
// CHECK:         %[[DW:.*]] = graph.conv %[[PW]], %{{.*}} {{{.*}}group = 4 : i64, layout = "NHWC"{{.*}}} : (tensor<1x8x8x4xf16>, tensor<4x3x3x1xf16>) -> tensor<1x8x8x4xf16>
// CHECK-NOT:     graph.transpose
// CHECK:         %[[M:.*]] = graph.reduce_mean %[[DW]] {axes = array<i64: 1, 2>} : (tensor<1x8x8x4xf16>) -> tensor<1x1x1x4xf16>
// CHECK-NOT:     graph.transpose
// CHECK:         %[[S:.*]] = graph.hard_sigmoid
// CHECK-NEXT:    %[[X:.*]] = graph.mul %[[DW]], %[[S]] : (tensor<1x8x8x4xf16>, tensor<1x1x1x4xf16>) -> tensor<1x8x8x4xf16>
// CHECK:         %[[O:.*]] = graph.conv %[[X]], {{.*}}layout = "NHWC"
// CHECK-NEXT:    graph.transpose %[[O]], [0, 3, 1, 2]
func.func @inverted_residual(%x: tensor<1x8x8x8xf16>, %w1: tensor<4x8x1x1xf16>, %wd: tensor<4x1x3x3xf16>, %ws1: tensor<2x4x1x1xf16>, %ws2: tensor<4x2x1x1xf16>, %w2: tensor<8x4x1x1xf16>) -> tensor<1x8x8x8xf16> {
  %0 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf16>, tensor<4x8x1x1xf16>) -> tensor<1x4x8x8xf16>
  %1 = graph.conv %0, %wd {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf16>, tensor<4x1x3x3xf16>) -> tensor<1x4x8x8xf16>
  %2 = graph.reduce_mean %1 {axes = array<i64: 2, 3>} : (tensor<1x4x8x8xf16>) -> tensor<1x4x1x1xf16>
  %3 = graph.conv %2, %ws1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x1x1xf16>, tensor<2x4x1x1xf16>) -> tensor<1x2x1x1xf16>
  %4 = graph.relu %3 : tensor<1x2x1x1xf16>
  %5 = graph.conv %4, %ws2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x1x1xf16>, tensor<4x2x1x1xf16>) -> tensor<1x4x1x1xf16>
  %6 = graph.hard_sigmoid %5 {alpha = 0.16666666666666666 : f64, beta = 5.000000e-01 : f64} : tensor<1x4x1x1xf16>
  %7 = graph.mul %1, %6 : (tensor<1x4x8x8xf16>, tensor<1x4x1x1xf16>) -> tensor<1x4x8x8xf16>
  %8 = graph.conv %7, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf16>, tensor<8x4x1x1xf16>) -> tensor<1x8x8x8xf16>
  return %8 : tensor<1x8x8x8xf16>
}

// -----

// ResNet's head: a global mean with keepdims then a flatten. The mean runs in NHWC and
// the transpose back ([1, 1, 1, 4] -> [1, 4, 1, 1]: only size-1 dims move) is a reshape,
// which folds into the flatten.
// Without keepdims the kept dims [N, C] keep their order: no transpose at all.
// CHECK-LABEL: func.func @global_mean
// CHECK:         %[[M:.*]] = graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[M]] : (tensor<1x1x1x4xf32>) -> tensor<1x4xf32>
// CHECK:         %[[N:.*]] = graph.reduce_max %{{.*}} {axes = array<i64: 1, 2>, keepdims = false} : (tensor<1x8x8x4xf32>) -> tensor<1x4xf32>
// CHECK-NOT:     graph.transpose
// CHECK:         return
func.func @global_mean(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 2, 3>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %2 = graph.reshape %1 : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %3 = graph.reduce_max %0 {axes = array<i64: 2, 3>, keepdims = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4xf32>
  return %2, %3 : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Without keepdims, over C and W of [N, C, H, W]: NHWC reduces dims 2 and 3 and [N, H]
// keeps its order.
// CHECK-LABEL: func.func @mean_no_keepdims
// CHECK:         graph.reduce_sum %{{.*}} {axes = array<i64: 2, 3>, keepdims = false} : (tensor<2x8x6x4xf32>) -> tensor<2x8xf32>
// CHECK-NOT:     graph.transpose
func.func @mean_no_keepdims(%x: tensor<2x4x8x6xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<2x8xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x8x6xf32>, tensor<4x4x1x1xf32>) -> tensor<2x4x8x6xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1, 3>, keepdims = false} : (tensor<2x4x8x6xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// An f16 first layer of 3 channels: X padded to 8 channels with zeros (a graph.pad after
// the layout transpose), the constant weight padded at compile time (OHWI [2, 1, 1, 8],
// channels 3..7 zero). An f32 conv of 3 channels is not padded.
// CHECK-LABEL: func.func @pad_channels
// CHECK-DAG:     %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<2x1x1x8xf16>
// CHECK-DAG:     %[[XT:.*]] = graph.transpose %{{.*}}, [0, 2, 3, 1] : (tensor<1x3x4x4xf16>) -> tensor<1x4x4x3xf16>
// CHECK:         %[[XP:.*]] = graph.pad %[[XT]] {high = array<i64: 0, 0, 0, 5>, low = array<i64: 0, 0, 0, 0>} : tensor<1x4x4x3xf16> -> tensor<1x4x4x8xf16>
// CHECK:         graph.conv %[[XP]], %[[W]] {{.*}}layout = "NHWC"{{.*}} : (tensor<1x4x4x8xf16>, tensor<2x1x1x8xf16>) -> tensor<1x4x4x2xf16>
// CHECK:         graph.conv %{{.*}} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>) -> tensor<1x4x4x2xf32>
func.func @pad_channels(%x: tensor<1x3x4x4xf16>, %y: tensor<1x3x4x4xf32>, %wf: tensor<2x3x1x1xf32>) -> (tensor<1x2x4x4xf16>, tensor<1x2x4x4xf32>) {
  %w = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]]]> : tensor<2x3x1x1xf16>
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf16>, tensor<2x3x1x1xf16>) -> tensor<1x2x4x4xf16>
  %1 = graph.conv %y, %wf {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf16>, tensor<1x2x4x4xf32>
}

// -----

// A dynamic batch: the mean still moves to NHWC, but the transpose of size-1 dims stays a
// transpose (graph.reshape takes static shapes only).
// CHECK-LABEL: func.func @dynamic_batch_mean
// CHECK:         %[[M:.*]] = graph.reduce_mean %{{.*}} {axes = array<i64: 1, 2>} : (tensor<?x8x8x4xf32>) -> tensor<?x1x1x4xf32>
// CHECK-NEXT:    graph.transpose %[[M]], [0, 3, 1, 2] : (tensor<?x1x1x4xf32>) -> tensor<?x4x1x1xf32>
func.func @dynamic_batch_mean(%x: tensor<?x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<?x4x1x1xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<?x4x8x8xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 2, 3>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x1x1xf32>
  return %1 : tensor<?x4x1x1xf32>
}
