// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// Groups whose results carry a symbol behind non-unit dims (aicc.symdims = [axis, symbol,
// factor, max] per result, which checkSymbolicDims writes): the kernels take rows of the
// bound's buffers, grid (ceil(inner / BLOCK), rows), and record tile.symgrid along x
// (symbolRows, TemplateSupport.h; run on models in test/Tools/symbolic-rows.test).

// q [1, 4, seq, 8] (4 rows of seq x 8): grid (1, 4), 8 elements per symbol value; program
// (x, y) starts at y * 512 + x * BLOCK.
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      tile.schedule = #tile.schedule<grid = [1, 4, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 512 : i64}>
// CHECK-SAME:      tile.symgrid = array<i64: 0, 0, 8, 512, 1>
// CHECK:         %[[X:.*]] = tile.program_id 0 : i32
// CHECK:         %[[ROW:.*]] = tile.program_id 1 : i32
// CHECK:         arith.muli %[[ROW]], %{{.*}} : i32
func.func @rows(%x: tensor<1x4x64x8xf32>) -> tensor<1x4x64x8xf32> {
  %0 = graph.fusion_group "elementwise" (%x) {aicc.symdims = [array<i64: 2, 0, 1, 64>]} : (tensor<1x4x64x8xf32>) -> tensor<1x4x64x8xf32> {
  ^bb0(%a: tensor<1x4x64x8xf32>):
    %r = graph.neg %a : tensor<1x4x64x8xf32>
    graph.yield %r : tensor<1x4x64x8xf32>
  }
  return %0 : tensor<1x4x64x8xf32>
}

// -----

// Two results with other rows (q [1, 4, seq, 8] and k [seq, 1, 2, 8]: 16 elements per value,
// one row): k's elements of value s take the slots j = y * 8 + lane mod 8 < 16 of q's rows at
// s, stored at (j / 16) * 1024 + s * 16 + j mod 16; q keeps its own offsets.
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      grid = [1, 4, 1]
// CHECK-SAME:      tile.symgrid = array<i64: 0, 0, 8, 512, 1>
// CHECK:         %[[LANE:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<512xi32>
// CHECK:         %[[ROW:.*]] = tile.program_id 1 : i32
// CHECK:         %[[OFFS:.*]] = arith.addi %{{.*}}, %[[LANE]] : tensor<512xi32>
// CHECK:         %[[S:.*]] = arith.divsi %[[LANE]], %{{.*}} : tensor<512xi32>
// CHECK:         %[[J:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<512xi32>
// CHECK:         %[[HAS:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : tensor<512xi32>
// CHECK:         tile.store %{{.*}}[%[[OFFS]]]
// CHECK:         tile.store %{{.*}}[%{{.*}}], %{{.*}}
func.func @slots(%x: tensor<1x4x64x8xf32>, %y: tensor<64x1x2x8xf32>) -> (tensor<1x4x64x8xf32>, tensor<64x1x2x8xf32>) {
  %0:2 = graph.fusion_group "elementwise" (%x, %y) {aicc.symdims = [array<i64: 2, 0, 1, 64>, array<i64: 0, 0, 1, 64>]} : (tensor<1x4x64x8xf32>, tensor<64x1x2x8xf32>) -> (tensor<1x4x64x8xf32>, tensor<64x1x2x8xf32>) {
  ^bb0(%a: tensor<1x4x64x8xf32>, %b: tensor<64x1x2x8xf32>):
    %r = graph.neg %a : tensor<1x4x64x8xf32>
    %s = graph.neg %b : tensor<64x1x2x8xf32>
    graph.yield %r, %s : tensor<1x4x64x8xf32>, tensor<64x1x2x8xf32>
  }
  return %0#0, %0#1 : tensor<1x4x64x8xf32>, tensor<64x1x2x8xf32>
}

// -----

// More rows than grid y holds (70000 > 65535): the flat grid of the whole bound, no symgrid
// (the symbol is not the first non-unit dim).
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      grid = [274, 1, 1]
// CHECK-NOT:       tile.symgrid
func.func @too_many_rows(%x: tensor<70000x4xf32>) -> tensor<70000x4xf32> {
  %0 = graph.fusion_group "elementwise" (%x) {aicc.symdims = [array<i64: 1, 0, 1, 4>]} : (tensor<70000x4xf32>) -> tensor<70000x4xf32> {
  ^bb0(%a: tensor<70000x4xf32>):
    %r = graph.neg %a : tensor<70000x4xf32>
    graph.yield %r : tensor<70000x4xf32>
  }
  return %0 : tensor<70000x4xf32>
}

// -----

// A result without a symbolic dim: every program runs (no symgrid, flat grid).
// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:      grid = [2, 1, 1]
// CHECK-NOT:       tile.symgrid
func.func @one_static(%x: tensor<1x4x64x8xf32>, %y: tensor<4x64x8xf32>) -> (tensor<1x4x64x8xf32>, tensor<4x64x8xf32>) {
  %0:2 = graph.fusion_group "elementwise" (%x, %y) {aicc.symdims = [array<i64: 2, 0, 1, 64>, array<i64>]} : (tensor<1x4x64x8xf32>, tensor<4x64x8xf32>) -> (tensor<1x4x64x8xf32>, tensor<4x64x8xf32>) {
  ^bb0(%a: tensor<1x4x64x8xf32>, %b: tensor<4x64x8xf32>):
    %r = graph.neg %a : tensor<1x4x64x8xf32>
    %s = graph.neg %b : tensor<4x64x8xf32>
    graph.yield %r, %s : tensor<1x4x64x8xf32>, tensor<4x64x8xf32>
  }
  return %0#0, %0#1 : tensor<1x4x64x8xf32>, tensor<4x64x8xf32>
}

// -----

// Layer norm rows of [2, seq, 16]: grid (64 rows per y, 2), program (x, y) takes row
// y * 64 + x; a run launches v programs along x.
// CHECK-LABEL: func.func @fused_0_softmax
// CHECK-SAME:      grid = [64, 2, 1]
// CHECK-SAME:      tile.symgrid = array<i64: 0, 0, 16, 16, 1>
// CHECK:         %[[X:.*]] = tile.program_id 0 : i32
// CHECK:         %[[Y:.*]] = tile.program_id 1 : i32
// CHECK:         %[[YR:.*]] = arith.muli %[[Y]], %{{.*}} : i32
// CHECK:         arith.addi %[[YR]], %[[X]] : i32
func.func @norm_rows(%x: tensor<2x64x16xf32>, %g: tensor<16xf32>) -> tensor<2x64x16xf32> {
  %0 = graph.fusion_group "softmax" (%x, %g) {aicc.symdims = [array<i64: 1, 0, 1, 64>]} : (tensor<2x64x16xf32>, tensor<16xf32>) -> tensor<2x64x16xf32> {
  ^bb0(%a: tensor<2x64x16xf32>, %c: tensor<16xf32>):
    %r = graph.layer_norm %a scale %c {axis = 2 : i64} : (tensor<2x64x16xf32>, tensor<16xf32>) -> tensor<2x64x16xf32>
    graph.yield %r : tensor<2x64x16xf32>
  }
  return %0 : tensor<2x64x16xf32>
}
