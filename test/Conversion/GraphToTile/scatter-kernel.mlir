// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// scatter_elements along axis 1 of [3, 5], reduction add: each lane owns one row (the
// coordinates outside the axis); the program copies its rows to the output (a loop of
// [BLOCK_ROWS, BLOCK] tiles), then applies the updates column by column in order: index
// loaded, wrapped (+5 when negative) and clamped, output read, added, written back.
// CHECK-LABEL:   func.func @fused_0_single
// CHECK-SAME:        (%[[D:[^:]*]]: memref<15xf32>, %[[I:[^:]*]]: memref<6xi64>, %[[U:[^:]*]]: memref<6xf32>, %[[Y:[^:]*]]: memref<15xf32>)
// CHECK-SAME:        tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 4 : i64, BLOCK_ROWS = 8 : i64}>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[V:.*]] = tile.load %[[D]]{{\[}}%[[OFF:[0-9a-z_]+]]], %[[M:[0-9a-z_]+]] {{.*}} -> tensor<8x4xf32>
// CHECK-NEXT:        tile.store %[[Y]][%[[OFF]]], %[[V]], %[[M]]
// CHECK:           }
// CHECK:           scf.for
// CHECK:             %[[K:.*]] = tile.load %[[I]]{{\[}}%[[UOFF:[0-9a-z_]+]]], %[[UM:[0-9a-z_]+]] {padding = 0 : i64} : memref<6xi64>, tensor<4xi32>, tensor<4xi1> -> tensor<4xi64>
// CHECK:             %[[NEG:.*]] = arith.cmpi slt, %[[K]], %{{.*}} : tensor<4xi64>
// CHECK:             arith.select %[[NEG]]{{.*}} : tensor<4xi1>, tensor<4xi64>
// CHECK:             arith.maxsi {{.*}} : tensor<4xi64>
// CHECK:             %[[CL:.*]] = arith.minsi {{.*}} : tensor<4xi64>
// CHECK:             arith.trunci %[[CL]] : tensor<4xi64> to tensor<4xi32>
// CHECK:             %[[T:.*]] = arith.addi
// CHECK:             %[[UV:.*]] = tile.load %[[U]][%[[UOFF]]], %[[UM]]
// CHECK-NEXT:        %[[CUR:.*]] = tile.load %[[Y]][%[[T]]], %[[UM]]
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[CUR]], %[[UV]] : tensor<4xf32>
// CHECK-NEXT:        tile.store %[[Y]][%[[T]]], %[[SUM]], %[[UM]]
// CHECK:           }
// CHECK-NEXT:      return
func.func @scatter_elements(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = graph.fusion_group "single" (%d, %i, %u) : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>, %b: tensor<3x2xi64>, %c: tensor<3x2xf32>):
    %1 = graph.scatter_elements %a, %b, %c {axis = 1 : i64, reduction = "add"} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    graph.yield %1 : tensor<3x5xf32>
  }
  return %0 : tensor<3x5xf32>
}

// -----

// scatter_nd of rows (k = 1) of [4, 3], reduction none: lanes own the 3 positions of a
// row; every lane reads the same index element of the tuple, and the update row is
// stored without reading the output.
// CHECK-LABEL:   func.func @fused_0_single
// CHECK-SAME:        (%[[D:[^:]*]]: memref<12xf32>, %[[I:[^:]*]]: memref<2xi32>, %[[U:[^:]*]]: memref<6xf32>, %[[Y:[^:]*]]: memref<12xf32>)
// CHECK-SAME:        blocks = {BLOCK = 4 : i64, BLOCK_ROWS = 4 : i64}
// CHECK:           scf.for
// CHECK:             tile.load %[[D]]
// CHECK:             tile.store %[[Y]]
// CHECK:           scf.for
// CHECK:             tile.load %[[I]][%{{.*}}], %{{.*}} {padding = 0 : i32} : memref<2xi32>, tensor<4xi32>, tensor<4xi1> -> tensor<4xi32>
// CHECK:             %[[UV:.*]] = tile.load %[[U]]
// CHECK-NEXT:        tile.store %[[Y]][%{{.*}}], %[[UV]]
// CHECK:           }
// CHECK-NEXT:      return
func.func @scatter_nd(%d: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.fusion_group "single" (%d, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<2x1xi32>, %c: tensor<2x3xf32>):
    %1 = graph.scatter_nd %a, %b, %c : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    graph.yield %1 : tensor<4x3xf32>
  }
  return %0 : tensor<4x3xf32>
}
