// A negative softmax axis is rejected with the axis the user wrote.
// RUN: aicc-opt %s -split-input-file -verify-diagnostics
//
// Regression test (fixed): SoftmaxOp::verify (lib/Dialect/Graph/IR/GraphOps.cpp) compares and prints getAxis(),
// which ODS returns as uint64_t for an I64Attr: `getAxis() < 0` is never true, and the message
// reads "axis 18446744073709551615 out of range [0, 2)" instead of "axis -1 ...". (The op is
// still rejected, through the unsigned `>= rank` comparison.)

func.func @softmax_negative_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.softmax' op axis -1 out of range [0, 2)}}
  %0 = "graph.softmax"(%a) <{axis = -1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
