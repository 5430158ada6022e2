// Round trip of graph.scatter_elements and graph.scatter_nd (custom and generic form).
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
// RUN: aicc-opt %s --mlir-print-op-generic | aicc-opt | FileCheck %s

// CHECK-LABEL: func.func @scatter
// CHECK:         graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK:         graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, reduction = "max"} : (tensor<3x5xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<3x5xf32>
// CHECK:         graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "add"} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
// CHECK:         graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x4x4xf32>, tensor<5x3xi64>, tensor<5xf32>) -> tensor<4x4x4xf32>
func.func @scatter(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>,
                   %i2: tensor<2x2xi32>, %u2: tensor<2x2xf32>, %nd: tensor<4x4x4xf32>,
                   %ni: tensor<2x1xi64>, %nu: tensor<2x4x4xf32>, %ei: tensor<5x3xi64>,
                   %eu: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>) {
  %0 = graph.scatter_elements %d, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %1 = graph.scatter_elements %d, %i2, %u2 {axis = 0 : i64, reduction = "max"} : (tensor<3x5xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<3x5xf32>
  %2 = graph.scatter_nd %nd, %ni, %nu {reduction = "add"} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  %3 = graph.scatter_nd %nd, %ei, %eu : (tensor<4x4x4xf32>, tensor<5x3xi64>, tensor<5xf32>) -> tensor<4x4x4xf32>
  return %0, %1, %2, %3 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<4x4x4xf32>, tensor<4x4x4xf32>
}
