// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// Fused reduction kernels (graph-fuse formReductions): sibling reduce ops over one input
// read it once per step, with one accumulator each; the prologue (elementwise producers of
// the reduce inputs) is evaluated per loaded element, the epilogue (elementwise consumers)
// before the stores; one store per result. All tiles 1-D (or 0-D).

// Per-output kernel: one load of x, x * x, two tile.reduce, exp, two stores.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<32768xf32>, %[[V:[^:]*]]: memref<64xf32>, %[[E:[^:]*]]: memref<64xf32>)
// CHECK-SAME:      grid = [64, 1, 1]
// CHECK:         %[[L:.*]] = tile.load %[[X]]
// CHECK-NOT:     tile.load
// CHECK:         %[[SQ:.*]] = arith.mulf %[[L]], %[[L]] : tensor<512xf32>
// CHECK:         %[[S0:.*]] = tile.reduce add %[[L]]
// CHECK:         %[[M:.*]] = arith.divf %[[S0]]
// CHECK:         %[[M1:.*]] = tile.expand_dims %[[M]]
// CHECK:         %[[S1:.*]] = tile.reduce add %[[SQ]]
// CHECK:         %[[MS:.*]] = arith.divf %[[S1]]
// CHECK:         %[[MS1:.*]] = tile.expand_dims %[[MS]]
// CHECK:         %[[EXP:.*]] = math.exp %[[M1]] : tensor<1xf32>
// CHECK:         tile.store %[[V]][%{{.*}}], %[[MS1]]
// CHECK:         tile.store %[[E]][%{{.*}}], %[[EXP]]
// CHECK-NOT:     tile.store
func.func @row_siblings(%x: tensor<64x512xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %0:2 = graph.fusion_group "reduction" (%x) : (tensor<64x512xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: tensor<64x512xf32>):
    %m = graph.reduce_mean %a {axes = array<i64: 1>, keepdims = false} : (tensor<64x512xf32>) -> tensor<64xf32>
    %sq = graph.mul %a, %a : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
    %v = graph.reduce_mean %sq {axes = array<i64: 1>, keepdims = false} : (tensor<64x512xf32>) -> tensor<64xf32>
    %e = graph.exp %m : tensor<64xf32>
    graph.yield %v, %e : tensor<64xf32>, tensor<64xf32>
  }
  return %0#1, %0#0 : tensor<64xf32>, tensor<64xf32>
}

// -----

// Column kernel, f16 accumulated in f32: each step loads x (and the bias, broadcast along
// the kept dim) 4 times, adds the bias for the max, and carries two accumulators (100 rows: no tail loop); exp and
// the truncation to f16 follow the loop; two stores.
// CHECK-LABEL: func.func @fused_0_reduction
// CHECK-SAME:      (%[[X:[^:]*]]: memref<51200xf16>, %[[B:[^:]*]]: memref<100xf16>, %[[S:[^:]*]]: memref<512xf16>, %[[E:[^:]*]]: memref<512xf16>)
// CHECK:         %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}, %[[ACC1:.*]] = %{{.*}}) -> (tensor<256xf32>, tensor<256xf32>) {
// CHECK:           %[[X0:.*]] = tile.load %[[X]]
// CHECK:           %[[X0F:.*]] = arith.extf %[[X0]] : tensor<256xf16> to tensor<256xf32>
// CHECK:           %[[B0:.*]] = tile.load %[[B]]
// CHECK:           %[[B0F:.*]] = arith.extf %[[B0]]
// CHECK:           arith.addf %[[X0F]], %[[B0F]] : tensor<256xf32>
// CHECK-COUNT-3:   tile.load %[[X]]
// CHECK:           %[[SUM:.*]] = arith.addf %[[ACC0]], %{{.*}} : tensor<256xf32>
// CHECK:           %[[MAX:.*]] = arith.maximumf %[[ACC1]], %{{.*}} : tensor<256xf32>
// CHECK:           scf.yield %[[SUM]], %[[MAX]]
// CHECK:         %[[EXP:.*]] = math.exp %[[LOOP]]#1 : tensor<256xf32>
// CHECK:         %[[T0:.*]] = arith.truncf %[[LOOP]]#0 : tensor<256xf32> to tensor<256xf16>
// CHECK:         tile.store %[[S]][%{{.*}}], %[[T0]]
// CHECK:         %[[T1:.*]] = arith.truncf %[[EXP]]
// CHECK:         tile.store %[[E]][%{{.*}}], %[[T1]]
// CHECK-NOT:     tile.store
func.func @column_siblings(%x: tensor<100x512xf16>, %b: tensor<100x1xf16>) -> (tensor<512xf16>, tensor<512xf16>) {
  %0:2 = graph.fusion_group "reduction" (%x, %b) : (tensor<100x512xf16>, tensor<100x1xf16>) -> (tensor<512xf16>, tensor<512xf16>) {
  ^bb0(%a: tensor<100x512xf16>, %c: tensor<100x1xf16>):
    %s = graph.reduce_sum %a {axes = array<i64: 0>, keepdims = false} : (tensor<100x512xf16>) -> tensor<512xf16>
    %ab = graph.add %a, %c : (tensor<100x512xf16>, tensor<100x1xf16>) -> tensor<100x512xf16>
    %mx = graph.reduce_max %ab {axes = array<i64: 0>, keepdims = false} : (tensor<100x512xf16>) -> tensor<512xf16>
    %e = graph.exp %mx : tensor<512xf16>
    graph.yield %s, %e : tensor<512xf16>, tensor<512xf16>
  }
  return %0#0, %0#1 : tensor<512xf16>, tensor<512xf16>
}
