// graph.max_pool / graph.avg_pool verifier in both layouts (GraphOps.cpp verifyPool): one
// case per message. Generic form, so the verifier (not the parser) reports.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

func.func @bad_layout(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  // expected-error @+1 {{layout must be "NCHW" (channels first) or "NHWC" (channels last), got "NWHC"}}
  %0 = "graph.max_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NWHC"}> : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// NHWC: channels are the last dim; a result that changes them is refused.
func.func @nhwc_channels(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{shapes do not match: batch (dim 0) and channels (dim 3, layout NHWC) of the result 'tensor<1x4x4x4xf32>' must be the input's 'tensor<1x8x8x3xf32>'}}
  %0 = "graph.avg_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC"}> : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// NHWC: the window reads dims 1 and 2; an output that does not fit them is refused.
func.func @nhwc_window(%x: tensor<1x8x8x3xf32>) -> tensor<1x5x4x3xf32> {
  // expected-error @+1 {{output size 5 of spatial dim 0 does not fit the padded input}}
  %0 = "graph.max_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC"}> : (tensor<1x8x8x3xf32>) -> tensor<1x5x4x3xf32>
  return %0 : tensor<1x5x4x3xf32>
}

// -----

// NCHW (the default): batch and channels kept.
func.func @nchw_batch(%x: tensor<2x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{shapes do not match: batch (dim 0) and channels (dim 1, layout NCHW)}}
  %0 = "graph.max_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<2x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
