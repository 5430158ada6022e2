// Round trip of the integer graph ops (custom and generic form).
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
// RUN: aicc-opt %s --mlir-print-op-generic | aicc-opt | FileCheck %s

// CHECK-LABEL: func.func @bit_shift
// CHECK:         graph.bit_shift %{{.*}}, %{{.*}} {direction = "left"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK:         graph.bit_shift %{{.*}}, %{{.*}} {direction = "right"} : (tensor<4xui64>, tensor<ui64>) -> tensor<4xui64>
func.func @bit_shift(%x: tensor<2x3xui8>, %n: tensor<3xui8>, %w: tensor<4xui64>, %m: tensor<ui64>) -> (tensor<2x3xui8>, tensor<4xui64>) {
  %0 = graph.bit_shift %x, %n {direction = "left"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %1 = graph.bit_shift %w, %m {direction = "right"} : (tensor<4xui64>, tensor<ui64>) -> tensor<4xui64>
  return %0, %1 : tensor<2x3xui8>, tensor<4xui64>
}
