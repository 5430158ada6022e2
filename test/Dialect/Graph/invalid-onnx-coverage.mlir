// Verifier errors of the graph ops added for ONNX coverage (generic form, so the verifier
// reports).
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{shapes do not match}}
  %0 = "graph.conv"(%x, %w) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @pool_output(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x9x9xf32> {
  // expected-error @+1 {{does not fit the padded input}}
  %0 = "graph.max_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x9x9xf32>
  return %0 : tensor<1x3x9x9xf32>
}

// -----

func.func @slice_out_of_range(%x: tensor<4x6xf32>) -> tensor<3x6xf32> {
  // expected-error @+1 {{dim 0 reads [2, 6] outside [0, 4)}}
  %0 = "graph.slice"(%x) <{starts = array<i64: 2, 0>, steps = array<i64: 2, 1>}> : (tensor<4x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

func.func @pad_size(%x: tensor<4x6xf32>) -> tensor<5x6xf32> {
  // expected-error @+1 {{result dim 0 must be input + low + high}}
  %0 = "graph.pad"(%x) <{low = array<i64: 1, 0>, high = array<i64: 1, 0>}> : (tensor<4x6xf32>) -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}

// -----

func.func @pad_wrap_empty(%x: tensor<0x6xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{wrap cannot pad an empty dim}}
  %0 = "graph.pad"(%x) <{low = array<i64: 1, 0>, high = array<i64: 1, 0>, mode = "wrap"}> : (tensor<0x6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_sizes(%x: tensor<4x6xf32>) -> tensor<9x6xf32> {
  // expected-error @+1 {{the axis sizes add up to 8, not 9}}
  %0 = "graph.concat"(%x, %x) <{axis = 0 : i64}> : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<9x6xf32>
  return %0 : tensor<9x6xf32>
}

// -----

func.func @tile_multiple(%x: tensor<4x6xf32>) -> tensor<6x6xf32> {
  // expected-error @+1 {{result dim 0 is not a multiple of the input's}}
  %0 = "graph.tile"(%x) : (tensor<4x6xf32>) -> tensor<6x6xf32>
  return %0 : tensor<6x6xf32>
}

// -----

func.func @gather_type(%x: tensor<4x6xf32>, %i: tensor<3xi64>) -> tensor<4x6xf32> {
  // expected-error @+1 {{result type must be 'tensor<3x6xf32>'}}
  %0 = "graph.gather"(%x, %i) <{axis = 0 : i64}> : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @gather_elements_rank(%x: tensor<4x6xf32>, %i: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{indices must have the input's rank}}
  %0 = "graph.gather_elements"(%x, %i) <{axis = 0 : i64}> : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @expand_shape(%x: tensor<2x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{cannot broadcast}}
  %0 = "graph.expand"(%x) : (tensor<2x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @layer_norm_scale(%x: tensor<4x6xf32>, %s: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{must broadcast over the normalized dims}}
  %0 = "graph.layer_norm"(%x, %s) <{axis = 1 : i64, epsilon = 1.0e-5 : f64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @cast_shape(%x: tensor<4x6xf32>) -> tensor<6x4xi64> {
  // expected-error @+1 {{cast keeps the shape}}
  %0 = "graph.cast"(%x) : (tensor<4x6xf32>) -> tensor<6x4xi64>
  return %0 : tensor<6x4xi64>
}

// -----

func.func @where_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{x and y element types differ}}
  %0 = "graph.where"(%c, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_shapes(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{do not broadcast}}
  %0 = "graph.less"(%x, %y) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
