// RUN: aicc-opt %s -convert-graph-to-tile | FileCheck %s
// RUN: aicc-compile %s -o %t.aicc && aicc-run %t.aicc | FileCheck %s --check-prefix=EXEC

// A group whose output has no elements (found by aicc-fuzz-onnx from Clip on a [0] tensor,
// fuzz/regressions/onnx/clip-zero-size-grid0.onnx): zero programs used to make an invalid
// #tile.schedule (grid entries must be >= 1; an assertion in a checked build). Such a group
// computes nothing: no kernel, an empty result buffer; the bundle runs.

// CHECK-LABEL: func.func @main
// CHECK-NOT:     tile.launch
// CHECK:         %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<0xf32>
// CHECK-NEXT:    return %[[Y]]
// EXEC: output 0 ('y'): f32[0]
func.func @main(%arg0: tensor<0xf32> {aicc.name = "x"}) -> (tensor<0xf32> {aicc.name = "y"}) {
  %0 = graph.fusion_group "elementwise" (%arg0) : (tensor<0xf32>) -> tensor<0xf32> {
  ^bb0(%arg1: tensor<0xf32>):
    %1 = graph.clip %arg1 : tensor<0xf32>
    graph.yield %1 : tensor<0xf32>
  }
  return %0 : tensor<0xf32>
}
