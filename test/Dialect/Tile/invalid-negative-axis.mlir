// Negative axes are rejected with the axis the user wrote.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics
//
// Regression test (fixed): ExpandDimsOp::verify and ReduceOp::verify (lib/Dialect/Tile/IR/TileOps.cpp) read the
// I32Attr axis through the ODS getter, which returns uint32_t: -1 becomes 4294967295, so
// `axis < 0` never holds and the messages read "axis 4294967295 out of range [0, 1]". (The op
// is still rejected through the `axis > rank` comparison.) Same bug as graph.softmax, see
// test/Dialect/Graph/invalid-softmax-negative-axis.mlir.

func.func @expand_dims_negative(%v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 out of range [0, 1]}}
  %0 = "tile.expand_dims"(%v) <{axis = -1 : i32}> : (tensor<16xf32>) -> tensor<16x1xf32>
  return
}

// -----

func.func @reduce_negative(%v: tensor<16xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis -1 out of range [0, 1)}}
  %0 = "tile.reduce"(%v) <{axis = -1 : i32, kind = 0 : i32}> : (tensor<16xf32>) -> tensor<f32>
  return
}
