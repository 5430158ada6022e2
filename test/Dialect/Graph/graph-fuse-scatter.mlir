// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s

// A scatter is a kernel of its own ("single" group): the producer of its data and its
// elementwise consumer are not fused into it (rule template: the data is copied or updated
// in place from memory).
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

// -----

// The updates' producers join the scatter's kernel (formScatters): elementwise ops and
// remap views read only by it (a KV cache's rotated keys: slice, transpose, the rotation),
// evaluated per update element; the data's and the indices' producers stay kernels.
// CHECK-LABEL: func.func @updates_computed
// CHECK:         %[[I:.*]] = graph.fusion_group "elementwise"
// CHECK:         graph.fusion_group "single" (%{{.*}}, %{{.*}}, %[[D:.*]], %[[I]]) {refusals = [{input = 3 : i64, rule = "template"}]}
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.slice
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.transpose
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.scatter_nd
// CHECK-NEXT:      graph.yield
func.func @updates_computed(%qkv: tensor<2x12xf32>, %c: tensor<4x2xf32>, %d: tensor<8x4x2xf32>, %i: tensor<2x1xi64>) -> tensor<8x4x2xf32> {
  %i2 = graph.add %i, %i : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x1xi64>
  %k = graph.slice %qkv {starts = array<i64: 0, 4>, steps = array<i64: 1, 1>} : tensor<2x12xf32> -> tensor<2x8xf32>
  %r = graph.reshape %k : (tensor<2x8xf32>) -> tensor<2x2x4xf32>
  %t = graph.transpose %r, [0, 2, 1] : (tensor<2x2x4xf32>) -> tensor<2x4x2xf32>
  %m = graph.mul %t, %c : (tensor<2x4x2xf32>, tensor<4x2xf32>) -> tensor<2x4x2xf32>
  %s = graph.scatter_nd %d, %i2, %m : (tensor<8x4x2xf32>, tensor<2x1xi64>, tensor<2x4x2xf32>) -> tensor<8x4x2xf32>
  return %s : tensor<8x4x2xf32>
}

// -----

// An update value another op reads too (here the function's result) stays its own kernel:
// it must be written to memory anyway.
// CHECK-LABEL: func.func @updates_returned
// CHECK:         %[[N:.*]] = graph.fusion_group "elementwise"
// CHECK:           graph.neg
// CHECK:         graph.fusion_group "single" (%{{.*}}, %{{.*}}, %[[N]]) {refusals = [{input = 2 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.scatter_nd
func.func @updates_returned(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  %n = graph.neg %u : tensor<2x3xf32>
  %s = graph.scatter_nd %d, %i, %n : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s, %n : tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// Updates behind reshapes alone: the reshape stays a view of the input's buffer between
// kernels (joining would only add index arithmetic).
// CHECK-LABEL: func.func @updates_reshaped
// CHECK:         graph.fusion_group "single"
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.scatter_nd
// CHECK-NEXT:      graph.yield
func.func @updates_reshaped(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<6xf32>) -> tensor<4x3xf32> {
  %r = graph.reshape %u : (tensor<6xf32>) -> tensor<2x3xf32>
  %s = graph.scatter_nd %d, %i, %r : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}

// -----

// A value the scatter reads as its data (or indices) and its updates read too stays a
// kernel input: only its slice and the multiply join.
// CHECK-LABEL: func.func @data_also_updates
// CHECK:         %[[X:.*]] = graph.fusion_group "elementwise"
// CHECK:           graph.relu
// CHECK:         graph.fusion_group "single" (%[[X]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      graph.slice
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.scatter_nd
func.func @data_also_updates(%a: tensor<32x4xf32>, %i: tensor<20x1xi64>) -> tensor<32x4xf32> {
  %x = graph.relu %a : tensor<32x4xf32>
  %s = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<32x4xf32> -> tensor<20x4xf32>
  %m = graph.mul %s, %s : (tensor<20x4xf32>, tensor<20x4xf32>) -> tensor<20x4xf32>
  %r = graph.scatter_nd %x, %i, %m : (tensor<32x4xf32>, tensor<20x1xi64>, tensor<20x4xf32>) -> tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}
