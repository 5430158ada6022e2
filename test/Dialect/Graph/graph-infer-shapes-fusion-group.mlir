// graph-infer-shapes carries new types through graph.fusion_group: its block arguments,
// the ops inside and its results (so it also works after graph-fuse).
// RUN: aicc-opt %s --mlir-very-unsafe-disable-verifier-on-parsing -graph-infer-shapes | FileCheck %s
//
// Regression test (fixed): GraphInferShapesPass (lib/Dialect/Graph/Transforms/GraphInferShapes.cpp) re-infers
// only ops implementing InferTypeOpInterface. graph.fusion_group has none, and nothing
// updates its body's block argument types or its result types, so after re-inferring the
// matmul below the IR no longer verifies: "'graph.fusion_group' op body argument type
// 'tensor<4x8xf32>' differs from input type 'tensor<4x16xf32>'", and the pass pipeline fails.

// CHECK-LABEL: func.func @fused
// CHECK-SAME:      -> tensor<4x16xf32>
// CHECK:         %[[M:.*]] = graph.matmul {{.*}} -> tensor<4x16xf32>
// CHECK:         graph.fusion_group "elementwise" (%[[M]]) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4x16xf32>):
// CHECK-NEXT:      graph.relu %{{.*}} : tensor<4x16xf32>
func.func @fused(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %1 = graph.fusion_group "elementwise" (%0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %r = graph.relu %a : tensor<4x8xf32>
    graph.yield %r : tensor<4x8xf32>
  }
  return %1 : tensor<4x8xf32>
}
