// graph.conv's verifier in both layouts (GraphOps.cpp ConvOp::verify): one case per
// message. Generic form, so the verifier (not the parser) reports.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

func.func @bad_layout(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{layout must be "NCHW" (channels first) or "NHWC" (channels last), got "NWHC"}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NWHC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @nhwc_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{shapes do not match: X, W and Y need one rank >= 3 (X [N, D1..Dk, C], W [M, K1..Kk, C/group], Y [N, O1..Ok, M])}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @nhwc_group_divides(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x1xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{shapes do not match: group 2 must be >= 1 and divide C = 3 (X dim 3) and M = 4 (W dim 0); layout NHWC}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x1xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// An NCHW weight [M, C, K, K] given to an NHWC conv: W's last dim is not C/group.
func.func @nhwc_weight_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<1x7x7x4xf32> {
  // expected-error @+1 {{shapes do not match: W 'tensor<4x3x2x2xf32>' has 2 input channels per group (dim 3, layout NHWC), X 'tensor<1x8x8x3xf32>' has C / group = 3 / 1}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x2x2xf32>) -> tensor<1x7x7x4xf32>
  return %0 : tensor<1x7x7x4xf32>
}

// -----

// An NCHW result [N, M, O, O] from an NHWC conv.
func.func @nhwc_result_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{shapes do not match: Y 'tensor<1x4x6x6xf32>' has 6 channels (dim 3, layout NHWC), W 'tensor<4x3x3x3xf32>' has M = 4}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @nhwc_batch(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x6x6x4xf32> {
  // expected-error @+1 {{shapes do not match: batch N of Y 'tensor<2x6x6x4xf32>' differs from X 'tensor<1x8x8x3xf32>'}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x6x6x4xf32>
  return %0 : tensor<2x6x6x4xf32>
}

// -----

func.func @nhwc_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{bias must have shape [M] = [4]}}
  %0 = "graph.conv"(%x, %w, %b) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// The spatial dims of an NHWC output are dims 1..k: 9 windows of 3 do not fit 8 rows.
func.func @nhwc_output_size(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x9x6x4xf32> {
  // expected-error @+1 {{output size 9 of spatial dim 0 does not fit the padded input}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x9x6x4xf32>
  return %0 : tensor<1x9x6x4xf32>
}

// -----

// A kernel bigger than the padded input (the NHWC kernel dims are W's dims 1..k).
func.func @nhwc_kernel_too_big(%x: tensor<1x2x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x1x6x4xf32> {
  // expected-error @+1 {{output size 1 of spatial dim 0 does not fit the padded input}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x2x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x1x6x4xf32>
  return %0 : tensor<1x1x6x4xf32>
}

// -----

func.func @nhwc_attr_sizes(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{kernel, strides, dilations need 2 entries and pads 4}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// The NCHW messages name the NCHW shapes and dim 1.
func.func @nchw_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{shapes do not match: W 'tensor<4x3x3x3xf32>' has 3 input channels per group (dim 1, layout NCHW), X 'tensor<1x4x8x8xf32>' has C / group = 4 / 1}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_mixed_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op X, W, B and Y must share one element type, got X 'f32', W 'f16', Y 'f32'}}
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
