// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s

// A scatter is a kernel of its own ("single" group): its elementwise producer and consumer
// are not fused into it.
// CHECK-LABEL: func.func @scatter
// CHECK:         %[[P:.*]] = graph.fusion_group "elementwise"
// CHECK:           graph.relu
// CHECK:         %[[S:.*]] = graph.fusion_group "single" (%[[P]], %{{.*}}, %{{.*}}) {refusals = [{input = 0 : i64, rule = "template"}]} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<3x5xf32>, %[[A1:.*]]: tensor<3x2xi64>, %[[A2:.*]]: tensor<3x2xf32>):
// CHECK-NEXT:      %[[R:.*]] = graph.scatter_elements %[[A0]], %[[A1]], %[[A2]] {axis = 1 : i64, reduction = "add"}
// CHECK-NEXT:      graph.yield %[[R]] : tensor<3x5xf32>
// CHECK-NEXT:    }
// CHECK:         graph.fusion_group "elementwise" (%[[S]])
// CHECK:           graph.neg
func.func @scatter(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = graph.relu %d : tensor<3x5xf32>
  %1 = graph.scatter_elements %0, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %2 = graph.neg %1 : tensor<3x5xf32>
  return %2 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_nd
// CHECK:         graph.fusion_group "single"
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.scatter_nd
// CHECK-NEXT:      graph.yield
func.func @scatter_nd(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
