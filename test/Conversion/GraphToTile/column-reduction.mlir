// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// Column reductions (the innermost non-unit dims are kept ones): one program per BLOCK
// consecutive outputs; an scf.for over the reduced index loads BLOCK consecutive input
// elements per step (1-D, coalesced), 4 per iteration, accumulated per lane: no tile.reduce.

// Sum over axis 0 of 1000 x 512: 2 programs of 256 columns; row r of the program's
// columns starts at r * 512.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<512000xf32>, %[[Y:[^:]*]]: memref<512xf32>)
// CHECK-SAME:      grid = [2, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 256 : i64}
// CHECK:         %[[PID:.*]] = tile.program_id 0 : i32
// CHECK:         %[[IB:.*]] = arith.remsi %[[PID]]
// CHECK:         %[[R:.*]] = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
// CHECK:         %[[LANE:.*]] = arith.addi %{{.*}}, %[[R]] : tensor<256xi32>
// CHECK:         %[[MASK:.*]] = arith.cmpi slt, %[[LANE]], %{{.*}} : tensor<256xi32>
// CHECK:         %[[LOOP:.*]] = scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<256xf32>) {
// CHECK:           %[[K:.*]] = arith.index_cast %[[IV]] : index to i32
// CHECK:           %[[ROW:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK:           %[[ROWT:.*]] = tile.splat %[[ROW]] : tensor<256xi32>
// CHECK:           %[[OFFS:.*]] = arith.addi %[[LANE]], %[[ROWT]] : tensor<256xi32>
// CHECK:           %[[X0:.*]] = tile.load %[[X]][%[[OFFS]]], %[[MASK]] {padding = 0.000000e+00 : f32} : memref<512000xf32>, tensor<256xi32>, tensor<256xi1> -> tensor<256xf32>
// CHECK-COUNT-3:   tile.load %[[X]]
// CHECK:           %[[S01:.*]] = arith.addf %[[X0]], %{{.*}} : tensor<256xf32>
// CHECK:           %[[S23:.*]] = arith.addf
// CHECK:           %[[S:.*]] = arith.addf %[[S01]], %[[S23]] : tensor<256xf32>
// CHECK:           %[[NEXT:.*]] = arith.addf %[[ACC]], %[[S]] : tensor<256xf32>
// CHECK:           scf.yield %[[NEXT]] : tensor<256xf32>
// CHECK:         }
// CHECK-NOT:     tile.reduce
// CHECK:         tile.store %[[Y]][%{{.*}}], %[[LOOP]], %[[MASK]] : memref<512xf32>, tensor<256xi32>, tensor<256xf32>, tensor<256xi1>
func.func @column_sum(%x: tensor<1000x512xf32>) -> tensor<512xf32> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<1000x512xf32>) -> tensor<512xf32> {
  ^bb0(%a: tensor<1000x512xf32>):
    %r = graph.reduce_sum %a {axes = array<i64: 0>, keepdims = false} : (tensor<1000x512xf32>) -> tensor<512xf32>
    graph.yield %r : tensor<512xf32>
  }
  return %0 : tensor<512xf32>
}

// -----

// Mean over the non-adjacent axes {0, 2} of 6 x 50 x 7 x 300 f16: 50 * 2 programs; the
// reduced index k (42 positions) is delinearized into (k / 7) * 105000 + (k % 7) * 300;
// 40 positions in the unrolled loop, 2 in a tail loop; f32 accumulation, divided by 42,
// rounded to f16 at the store.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<630000xf16>, %[[Y:[^:]*]]: memref<15000xf16>)
// CHECK-SAME:      grid = [100, 1, 1]
// CHECK:         %[[MAIN:.*]] = scf.for {{.*}} -> (tensor<256xf32>) {
// CHECK:           %[[K:.*]] = arith.index_cast
// CHECK:           %[[Q:.*]] = arith.divsi %[[K]], %{{.*}} : i32
// CHECK:           arith.muli %[[Q]], %{{.*}} : i32
// CHECK:           %[[M:.*]] = arith.remsi %[[K]], %{{.*}} : i32
// CHECK:           arith.muli %[[M]], %{{.*}} : i32
// CHECK:           tile.load %[[X]]{{.*}} -> tensor<256xf16>
// CHECK:           arith.extf {{.*}} : tensor<256xf16> to tensor<256xf32>
// CHECK:         }
// CHECK:         %[[C40:.*]] = arith.constant 40 : index
// CHECK:         %[[C42:.*]] = arith.constant 42 : index
// CHECK:         %[[TAIL:.*]] = scf.for %{{.*}} = %[[C40]] to %[[C42]] step %{{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK:         %[[N:.*]] = arith.constant 4.200000e+01 : f32
// CHECK:         %[[NT:.*]] = tile.splat %[[N]] : tensor<256xf32>
// CHECK:         %[[MEAN:.*]] = arith.divf %[[TAIL]], %[[NT]] : tensor<256xf32>
// CHECK:         %[[H:.*]] = arith.truncf %[[MEAN]] : tensor<256xf32> to tensor<256xf16>
// CHECK:         tile.store %[[Y]][%{{.*}}], %[[H]]
func.func @column_mean_f16(%x: tensor<6x50x7x300xf16>) -> tensor<1x50x1x300xf16> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<6x50x7x300xf16>) -> tensor<1x50x1x300xf16> {
  ^bb0(%a: tensor<6x50x7x300xf16>):
    %r = graph.reduce_mean %a {axes = array<i64: 0, 2>} : (tensor<6x50x7x300xf16>) -> tensor<1x50x1x300xf16>
    graph.yield %r : tensor<1x50x1x300xf16>
  }
  return %0 : tensor<1x50x1x300xf16>
}

// -----

// Fewer than 32 kept elements innermost: the per-output kernel (one program per output,
// cross-lane tile.reduce).
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      grid = [3, 1, 1]
// CHECK:         tile.reduce max
func.func @narrow_columns(%x: tensor<5000x3xf32>) -> tensor<3xf32> {
  %0 = graph.fusion_group "reduction" (%x) : (tensor<5000x3xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<5000x3xf32>):
    %r = graph.reduce_max %a {axes = array<i64: 0>, keepdims = false} : (tensor<5000x3xf32>) -> tensor<3xf32>
    graph.yield %r : tensor<3xf32>
  }
  return %0 : tensor<3xf32>
}
