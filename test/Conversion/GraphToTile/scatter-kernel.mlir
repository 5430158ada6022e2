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
// stored without reading the output. The data is returned too, so the result needs a
// buffer of its own (a copy first; not in place).
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
func.func @scatter_nd(%d: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = graph.fusion_group "single" (%d, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<2x1xi32>, %c: tensor<2x3xf32>):
    %1 = graph.scatter_nd %a, %b, %c : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    graph.yield %1 : tensor<4x3xf32>
  }
  return %0, %d : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// A KV cache [B 2, H 2, S 32, D 16] that is a model input read only by its update at the
// step's positions (graph-scatter-in-place's scatter_nd along axis 2): in place. The launch
// passes the input's buffer as data and result, the host plan returns it; the kernel copies
// nothing and runs one program per (tuple, block of the 64-element slice), x the tuple: the
// slice element s sits at (s / 16) * 32 * 16 + position * 16 + s % 16.
// CHECK-LABEL:   func.func @kv_cache_in_place
// CHECK-SAME:        (%[[C:[^:]*]]: memref<2x2x32x16xf32>, %[[P:[^:]*]]: memref<3x1xi64>, %[[K:[^:]*]]: memref<3x2x2x16xf32>)
// CHECK-NEXT:      tile.launch @kernels::@[[KER:fused_0_single]](%[[C]], %[[P]], %[[K]], %[[C]])
// CHECK-NEXT:      return %[[C]]
// CHECK:         func.func @[[KER]]
// CHECK-SAME:        (%[[D:[^:]*]]: memref<2048xf32>, %[[I:[^:]*]]: memref<3xi64>, %[[U:[^:]*]]: memref<192xf32>, %[[Y:[^:]*]]: memref<2048xf32>)
// CHECK-SAME:        grid = [3, 1, 1]
// CHECK-SAME:        blocks = {BLOCK = 64 : i64
// CHECK-NOT:       scf.for
// CHECK-NOT:       tile.load %[[D]]
// CHECK:           tile.program_id 1
// CHECK-DAG:       arith.divsi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK-DAG:       arith.remsi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK-DAG:       arith.constant 512 : i32
// CHECK:           %[[T:.*]] = tile.program_id 0
// CHECK:           tile.load %[[I]]
// CHECK:           %[[UV:.*]] = tile.load %[[U]]
// CHECK-NEXT:      tile.store %[[Y]][%{{.*}}], %[[UV]]
// CHECK-NEXT:      return
func.func @kv_cache_in_place(%cache: tensor<2x2x32x16xf32>, %pos: tensor<3x1xi64>, %k: tensor<3x2x2x16xf32>) -> tensor<2x2x32x16xf32> {
  %0 = graph.fusion_group "single" (%cache, %pos, %k) : (tensor<2x2x32x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<2x2x32x16xf32> {
  ^bb0(%a: tensor<2x2x32x16xf32>, %b: tensor<3x1xi64>, %c: tensor<3x2x2x16xf32>):
    %1 = graph.scatter_nd %a, %b, %c {axis = 2 : i64} : (tensor<2x2x32x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<2x2x32x16xf32>
    graph.yield %1 : tensor<2x2x32x16xf32>
  }
  return %0 : tensor<2x2x32x16xf32>
}

// -----

// In place with a reduction: duplicates must combine in order, so one program per slice
// block loops over the tuples as the copying kernel does, without the copy.
// CHECK-LABEL:   func.func @in_place_add
// CHECK-NEXT:      tile.launch @kernels::@[[KER:fused_0_single]](%arg0, %arg1, %arg2, %arg0)
// CHECK-NEXT:      return %arg0
// CHECK:         func.func @[[KER]]
// CHECK-SAME:        grid = [1, 1, 1]
// CHECK-NOT:       tile.load %arg0
// CHECK:           scf.for
// CHECK:             tile.load %arg1
// CHECK:             tile.load %arg2
// CHECK:             tile.load %arg3
// CHECK:             arith.addf
// CHECK:             tile.store %arg3
func.func @in_place_add(%x: tensor<2x3x4x5xf32>, %i: tensor<6x2xi64>, %u: tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = graph.fusion_group "single" (%x, %i, %u) : (tensor<2x3x4x5xf32>, tensor<6x2xi64>, tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32> {
  ^bb0(%a: tensor<2x3x4x5xf32>, %b: tensor<6x2xi64>, %c: tensor<6x2x5xf32>):
    %1 = graph.scatter_nd %a, %b, %c {axis = 1 : i64, reduction = "add"} : (tensor<2x3x4x5xf32>, tensor<6x2xi64>, tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32>
    graph.yield %1 : tensor<2x3x4x5xf32>
  }
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// An aicc.in_place mark in the input IR is not trusted: the data is also returned, so the
// result gets its own buffer and the kernel copies the data first.
// CHECK-LABEL:   func.func @stale_mark
// CHECK:           %[[R:.*]] = memref.alloc
// CHECK:           tile.launch @kernels::@[[KER:fused_0_single]](%arg0, %arg1, %arg2, %[[R]])
// CHECK:         func.func @[[KER]]
// CHECK:           scf.for
// CHECK:             tile.load %arg0
func.func @stale_mark(%d: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = graph.fusion_group "single" (%d, %i, %u) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %b: tensor<2x1xi32>, %c: tensor<2x3xf32>):
    %1 = graph.scatter_nd %a, %b, %c {aicc.in_place} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    graph.yield %1 : tensor<4x3xf32>
  }
  return %0, %d : tensor<4x3xf32>, tensor<4x3xf32>
}
