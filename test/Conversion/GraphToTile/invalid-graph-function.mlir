// convert-graph-to-tile checks a graph function before lowering it (issue 14: a non-tensor
// argument was cast to a tensor type and crashed the pass; 2^32 x 2^32 elements wrapped to
// 0 and compiled). Every value must be a ranked tensor of static shape, a supported element
// type and at most 16 GiB; the function has one block; @kernels is free. Declarations are
// left alone.
// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -verify-diagnostics

// expected-error @+1 {{convert-graph-to-tile: argument #0 of @main has type 'i32': graph functions compute on ranked tensors of static shape}}
func.func @main(%a: i32, %x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'memref<2xf32>': graph functions compute on ranked tensors of static shape}}
func.func @main(%a: memref<2xf32>) -> () {
  return
}

// -----

// expected-error @+1 {{result #0 of @main has type 'index': graph functions compute on ranked tensors of static shape}}
func.func @main() -> index {
  %c = arith.constant 0 : index
  return %c : index
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<*xf32>': unranked tensors are not supported}}
func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<?x4xf32>': dynamic dims are not supported (the kernel templates need static shapes)}}
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<4294967296x4294967296xf32>': larger than the 16 GiB limit on one tensor}}
func.func @main(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %x : tensor<4294967296x4294967296xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<9223372036854775807xf32>': larger than the 16 GiB limit on one tensor}}
func.func @main(%x: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  return %x : tensor<9223372036854775807xf32>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<4xcomplex<f32>>': unsupported element type (supported: f16, bf16, f32, f64, i1 and 8-, 16-, 32- and 64-bit integers)}}
func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  return %x : tensor<4xcomplex<f32>>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<4xindex>': unsupported element type}}
func.func @main(%x: tensor<4xindex>) -> tensor<4xindex> {
  return %x : tensor<4xindex>
}

// -----

// expected-error @+1 {{argument #0 of @main has type 'tensor<4xf8E4M3FN>': unsupported element type}}
func.func @main(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  return %x : tensor<4xf8E4M3FN>
}

// -----

func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 of graph.constant has type 'tensor<1000000000000xf32>': larger than the 16 GiB limit on one tensor}}
  %c = graph.constant dense<1.0> : tensor<1000000000000xf32>
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{convert-graph-to-tile: @main has 2 blocks; a graph function has one (no control flow)}}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{convert-graph-to-tile: the symbol @kernels is taken; it names the kernels module this pass creates}}
func.func @kernels(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// A declaration is not converted (and not an error).
func.func private @declared(tensor<2xf32>) -> tensor<2xf32>
