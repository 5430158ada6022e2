// RUN: aicc-opt %s -convert-graph-to-tile | FileCheck %s
// RUN: aicc-compile %s -o %t.aicc && aicc-run %t.aicc | FileCheck %s --check-prefix=EXEC

// A group whose output has no elements (found by aicc-fuzz-onnx from Clip on a [0] tensor,
// fuzz/regressions/onnx/clip-zero-size-grid0.onnx): zero programs used to make an invalid
// #tile.schedule (grid entries must be >= 1; an assertion in a checked build). One program
// runs with every lane masked off.

// CHECK-LABEL: func.func @fused_0_elementwise
// CHECK-SAME:    tile.schedule = #tile.schedule<grid = [1, 1, 1]
// EXEC: output 0 ('y'): f32[0]
func.func @main(%arg0: tensor<0xf32> {aicc.name = "x"}) -> (tensor<0xf32> {aicc.name = "y"}) {
  %0 = graph.fusion_group "elementwise" (%arg0) : (tensor<0xf32>) -> tensor<0xf32> {
  ^bb0(%arg1: tensor<0xf32>):
    %1 = graph.clip %arg1 : tensor<0xf32>
    graph.yield %1 : tensor<0xf32>
  }
  return %0 : tensor<0xf32>
}
