// Verifier errors of graph.scatter_elements and graph.scatter_nd (generic form, so the
// verifier reports).
// RUN: aicc-opt %s -split-input-file -verify-diagnostics

func.func @se_result(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{result type must be the data type 'tensor<3x5xf32>'}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 1 : i64}> : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @se_shapes(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x3xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{indices and updates must share one shape of the data's rank}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 1 : i64}> : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @se_axis(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{axis 2 out of range}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 2 : i64}> : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @se_dim(%d: tensor<3x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{indices dim 0 exceeds the data's}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 1 : i64}> : (tensor<3x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @se_reduction(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{reduction must be none, add, mul, max or min, got "sub"}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 1 : i64, reduction = "sub"}> : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @se_indices(%d: tensor<3x5xf32>, %i: tensor<3x2xf32>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{indices must be an integer tensor}}
  %0 = "graph.scatter_elements"(%d, %i, %u) <{axis = 1 : i64}> : (tensor<3x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @snd_k(%d: tensor<4x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{the last indices dim (3) must be in [1, data rank]}}
  %0 = "graph.scatter_nd"(%d, %i, %u) : (tensor<4x4xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @snd_updates(%d: tensor<4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{updates must have type 'tensor<2x4xf32>'}}
  %0 = "graph.scatter_nd"(%d, %i, %u) : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @snd_elem(%d: tensor<4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf16>) -> tensor<4x4xf32> {
  // expected-error @+1 {{updates must have the data's element type}}
  %0 = "graph.scatter_nd"(%d, %i, %u) : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf16>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @snd_axis_range(%d: tensor<4x4x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x4xf32>) -> tensor<4x4x3xf32> {
  // expected-error @+1 {{axis 2 must be in [0, data rank - 2]}}
  %0 = "graph.scatter_nd"(%d, %i, %u) <{axis = 2 : i64}> : (tensor<4x4x3xf32>, tensor<2x2xi64>, tensor<2x4xf32>) -> tensor<4x4x3xf32>
  return %0 : tensor<4x4x3xf32>
}

// -----

func.func @snd_axis_updates(%d: tensor<4x5x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x5x3xf32>) -> tensor<4x5x3xf32> {
  // expected-error @+1 {{updates must have type 'tensor<2x4x3xf32>'}}
  %0 = "graph.scatter_nd"(%d, %i, %u) <{axis = 1 : i64}> : (tensor<4x5x3xf32>, tensor<2x1xi64>, tensor<2x5x3xf32>) -> tensor<4x5x3xf32>
  return %0 : tensor<4x5x3xf32>
}
