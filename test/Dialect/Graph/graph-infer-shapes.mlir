// The inputs carry stale result types (written by hand), so they are parsed without the
// verifier; graph-infer-shapes must leave IR that verifies.
// RUN: aicc-opt %s --mlir-very-unsafe-disable-verifier-on-parsing -split-input-file -graph-infer-shapes -verify-diagnostics | FileCheck %s

// Types flow down a chain (matmul -> add -> relu -> transpose) into the function's result.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x16xf32>, %[[B:[^:]*]]: tensor<16xf32>) -> tensor<16x4xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[X]], %[[W]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[M]], %[[B]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[A]] : tensor<4x16xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[R]], [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
// CHECK-NEXT:    return %[[T]] : tensor<16x4xf32>
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x8xf32> {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %1 = graph.add %0, %b : (tensor<4x8xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  %3 = graph.transpose %2, [1, 0] : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Batched matmul with broadcasting batch dims, 1-D operands, gemm with transA/transB,
// broadcasting binary ops, softmax/gelu (same type as their operand).
// CHECK-LABEL: func.func @shapes
// CHECK-SAME:      -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<6x5xf32>, tensor<2x1x3xf32>)
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
// CHECK:         graph.softmax %{{.*}} {axis = 3 : i64} : tensor<2x3x4x5xf32>
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
// CHECK:         graph.gemm %{{.*}}, %{{.*}} {transA = true, transB = true} : (tensor<8x6xf32>, tensor<5x8xf32>) -> tensor<6x5xf32>
// CHECK:         graph.gelu %{{.*}} {approximate = "tanh"} : tensor<6x5xf32>
// CHECK:         graph.mul %{{.*}}, %{{.*}} : (tensor<2x1x1xf32>, tensor<1x3xf32>) -> tensor<2x1x3xf32>
func.func @shapes(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %m: tensor<4x8xf32>, %v: tensor<8xf32>,
                  %at: tensor<8x6xf32>, %bt: tensor<5x8xf32>, %p: tensor<2x1x1xf32>, %q: tensor<1x3xf32>)
    -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %0 = graph.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<1xf32>
  %1 = graph.softmax %0 {axis = 3 : i64} : tensor<1xf32>
  %2 = graph.matmul %m, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<1xf32>
  %3 = graph.gemm %at, %bt {transA = true, transB = true} : (tensor<8x6xf32>, tensor<5x8xf32>) -> tensor<1xf32>
  %4 = graph.gelu %3 {approximate = "tanh"} : tensor<1xf32>
  %5 = graph.mul %p, %q : (tensor<2x1x1xf32>, tensor<1x3xf32>) -> tensor<1xf32>
  return %1, %2, %4, %5 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}

// -----

// Reshape has no inference: its declared type is the source of truth for what follows.
// CHECK-LABEL: func.func @reshape_anchors
// CHECK-SAME:      -> tensor<3x2xf32>
// CHECK:         %[[R:.*]] = graph.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK:         %[[E:.*]] = graph.exp %[[R]] : tensor<6xf32>
// CHECK:         graph.reshape %[[E]] : (tensor<6xf32>) -> tensor<3x2xf32>
func.func @reshape_anchors(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "graph.exp"(%0) : (tensor<6xf32>) -> tensor<2x3xf32>
  %2 = graph.reshape %1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// Already consistent IR is unchanged.
// CHECK-LABEL: func.func @unchanged
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[X]], %[[C]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[A]] : tensor<2x3xf32>
func.func @unchanged(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = graph.constant dense<1.0> : tensor<3xf32>
  %0 = graph.add %x, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Declarations have no body to infer.
// CHECK-LABEL: func.func private @external(tensor<2xf32>) -> tensor<3xf32>
func.func private @external(tensor<2xf32>) -> tensor<3xf32>

// -----

// Shapes that cannot be inferred fail the pass with the op's diagnostic.
func.func @bad(%x: tensor<4x8xf32>, %w: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{graph.matmul: contraction dims differ (8 vs 7)}}
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A declaration: nothing to infer. Control flow whose last block is not the return: the
// function's result types follow the func.return wherever it is (the pass used to cast the
// last block's terminator to func.return, issue 14).
// CHECK-LABEL: func.func private @declaration(tensor<2xf32>) -> tensor<2xf32>
// CHECK-LABEL: func.func @return_not_last
// CHECK-SAME:      -> tensor<2x3xf32>
// CHECK:         return %{{.*}} : tensor<2x3xf32>
func.func private @declaration(tensor<2xf32>) -> tensor<2xf32>
func.func @return_not_last(%x: tensor<2x3xf32>, %c: i1) -> tensor<2x3xf32> {
  cf.br ^bb2
^bb1:
  %0 = graph.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
^bb2:
  cf.cond_br %c, ^bb1, ^bb2
}

// -----

func.func @returns_disagree(%x: tensor<2xf32>, %y: tensor<3xf32>, %c: i1) -> tensor<2xf32> {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %x : tensor<2xf32>
^bb2:
  %0 = graph.reshape %y : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @+1 {{graph-infer-shapes: the returns of @returns_disagree return different types}}
  return %0 : tensor<3xf32>
}
