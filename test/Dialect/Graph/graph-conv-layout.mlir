// graph-conv-layout: 2-D group-1 convs to NHWC with transposes around them (weights OHWI,
// folded when constant), transposes sunk below elementwise ops, cancelling pairs removed;
// layout=nchw the reverse.
// RUN: aicc-opt %s -split-input-file -graph-conv-layout | FileCheck %s
// RUN: aicc-opt %s -split-input-file -graph-conv-layout=layout=nchw | FileCheck %s --check-prefix=NCHW
// RUN: not aicc-opt %s -split-input-file -graph-conv-layout=layout=chwn 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: graph-conv-layout: layout must be nhwc or nchw, got 'chwn'

// A weight that is an argument: its transpose stays an op.
// CHECK-LABEL: func.func @conv_arg_weight
// CHECK-SAME:      %[[X:[^:]*]]: tensor<1x3x8x8xf32>, %[[W:[^:]*]]: tensor<16x3x3x3xf32>, %[[B:[^:]*]]: tensor<16xf32>
// CHECK-DAG:     %[[XT:.*]] = graph.transpose %[[X]], [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-DAG:     %[[WT:.*]] = graph.transpose %[[W]], [0, 2, 3, 1] : (tensor<16x3x3x3xf32>) -> tensor<16x3x3x3xf32>
// CHECK:         %[[C:.*]] = graph.conv %[[XT]], %[[WT]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
// CHECK:         %[[Y:.*]] = graph.transpose %[[C]], [0, 3, 1, 2] : (tensor<1x4x4x16xf32>) -> tensor<1x16x4x4xf32>
// CHECK:         return %[[Y]]
// NCHW-LABEL: func.func @conv_arg_weight
// NCHW-NOT:     graph.transpose
func.func @conv_arg_weight(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  %0 = graph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// A constant weight [M=1, C=2, 1, 2] (OIHW) becomes the OHWI constant [1, 1, 2, 2]:
// W'[0, 0, kw, c] = W[0, c, 0, kw].
// CHECK-LABEL: func.func @conv_constant_weight
// CHECK-NOT:     graph.transpose %{{.*}} : (tensor<1x2x1x2xf32>)
// CHECK-DAG:     %[[W:.*]] = graph.constant dense<{{\[\[\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG:     %[[XT:.*]] = graph.transpose %{{.*}}, [0, 2, 3, 1] : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK:         %[[C:.*]] = graph.conv %[[XT]], %[[W]] {{.*}}layout = "NHWC"{{.*}} : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x3x1xf32>
// One output channel: the transpose back moves only a size-1 dim, a reshape.
// CHECK:         graph.reshape %[[C]] : (tensor<1x4x3x1xf32>) -> tensor<1x1x4x3xf32>
func.func @conv_constant_weight(%x: tensor<1x2x4x4xf32>) -> tensor<1x1x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]]]> : tensor<1x2x1x2xf32>
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x1x2xf32>) -> tensor<1x1x4x3xf32>
  return %0 : tensor<1x1x4x3xf32>
}

// -----

// conv -> relu -> add(constant [1, C, 1, 1]) -> conv: the relu and the add run in NHWC (the
// constant transposed to [1, 1, 1, C]); the transposes between the convs cancel.
// CHECK-LABEL: func.func @conv_relu_conv
// CHECK-DAG:     %[[S:.*]] = graph.constant dense<{{\[\[\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x1x4xf32>
// CHECK-DAG:     %[[XT:.*]] = graph.transpose %{{.*}}, [0, 2, 3, 1]
// CHECK:         %[[C1:.*]] = graph.conv %[[XT]], {{.*}}layout = "NHWC"{{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[C1]] : tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[R]], %[[S]] : (tensor<1x8x8x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[W2:.*]] = graph.reshape %{{.*}} : (tensor<2x4x1x1xf32>) -> tensor<2x1x1x4xf32>
// CHECK-NEXT:    %[[C2:.*]] = graph.conv %[[A]], %[[W2]] {{.*}}layout = "NHWC"{{.*}} -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.transpose %[[C2]], [0, 3, 1, 2] : (tensor<1x8x8x2xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @conv_relu_conv(%x: tensor<1x3x8x8xf32>, %w1: tensor<4x3x3x3xf32>, %w2: tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32> {
  %s = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %0 = graph.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.relu %0 : tensor<1x4x8x8xf32>
  %2 = graph.add %1, %s : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %3 = graph.conv %2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<2x4x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %3 : tensor<1x2x8x8xf32>
}

// -----

// Not moved: below an add with a computed NCHW operand (that would transpose %r), and
// below non-elementwise ops (softmax). The transposes stay in front of them.
// CHECK-LABEL: func.func @conv_transpose_stays
// CHECK:         %[[C:.*]] = graph.conv {{.*}}layout = "NHWC"
// CHECK-NEXT:    %[[Y:.*]] = graph.transpose %[[C]], [0, 3, 1, 2]
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[Y]], %{{.*}} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
// CHECK-NEXT:    graph.softmax %[[A]]
func.func @conv_transpose_stays(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %r: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.add %0, %r : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = graph.softmax %1 {axis = 1 : i64} : tensor<1x4x8x8xf32>
  return %2 : tensor<1x4x8x8xf32>
}

// -----

// Grouped (depthwise) and 1-D convs are left alone.
// CHECK-LABEL: func.func @grouped_and_1d_stay
// CHECK-NOT:     graph.transpose
// CHECK-NOT:     layout = "NHWC"
func.func @grouped_and_1d_stay(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %y: tensor<1x4x8xf32>, %v: tensor<2x4x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x2x6xf32>) {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = graph.conv %y, %v {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x4x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6xf32>
  return %0, %1 : tensor<1x4x6x6xf32>, tensor<1x2x6xf32>
}

// -----

// layout=nchw: an NHWC conv goes back to NCHW (X, W by [0, 3, 1, 2], Y by [0, 2, 3, 1]);
// layout=nhwc leaves it.
// CHECK-LABEL: func.func @nhwc_to_nchw
// CHECK-NOT:     graph.transpose
// NCHW-LABEL: func.func @nhwc_to_nchw
// NCHW-SAME:      %[[X:[^:]*]]: tensor<1x8x8x3xf32>, %[[W:[^:]*]]: tensor<4x3x3x3xf32>
// NCHW-DAG:     %[[XT:.*]] = graph.transpose %[[X]], [0, 3, 1, 2] : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
// NCHW-DAG:     %[[WT:.*]] = graph.transpose %[[W]], [0, 3, 1, 2] : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
// NCHW:         %[[C:.*]] = graph.conv %[[XT]], %[[WT]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// NCHW:         %[[Y:.*]] = graph.transpose %[[C]], [0, 2, 3, 1] : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
// NCHW:         return %[[Y]]
func.func @nhwc_to_nchw(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// A sunk op keeps its attributes (leaky_relu's alpha).
// CHECK-LABEL: func.func @sink_keeps_attributes
// CHECK:         %[[C:.*]] = graph.conv {{.*}}layout = "NHWC"
// CHECK-NEXT:    %[[L:.*]] = graph.leaky_relu %[[C]] {alpha = 2.500000e-01 : f64} : tensor<1x8x8x4xf32>
// CHECK-NEXT:    graph.transpose %[[L]], [0, 3, 1, 2]
func.func @sink_keeps_attributes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = graph.leaky_relu %0 {alpha = 0.25 : f64} : tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}
