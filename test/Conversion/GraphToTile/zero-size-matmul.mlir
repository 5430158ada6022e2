// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile -verify-diagnostics | FileCheck %s

// Matmuls with zero-size dims (found by aicc-fuzz-onnx: the templates built block loads with
// a dim of 0, which tile.block_load's verifier rejects -- a crash in a checked build).

// An empty result: no kernel, the result is an empty buffer.
// CHECK-LABEL: func.func @empty_result
// CHECK-NOT:     tile.launch
// CHECK:         %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<0x8xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @empty_result(%a: tensor<0x8xf32>, %w: tensor<8x8xf32>) -> tensor<0x8xf32> {
  %0 = graph.fusion_group "epilogue" (%a, %w) : (tensor<0x8xf32>, tensor<8x8xf32>) -> tensor<0x8xf32> {
  ^bb0(%x: tensor<0x8xf32>, %y: tensor<8x8xf32>):
    %1 = graph.matmul %x, %y : (tensor<0x8xf32>, tensor<8x8xf32>) -> tensor<0x8xf32>
    graph.yield %1 : tensor<0x8xf32>
  }
  return %0 : tensor<0x8xf32>
}

// -----

// An empty contraction (K = 0) with a non-empty result: refused with the op's location.
func.func @empty_contraction(%a: tensor<0xf32>) -> tensor<f32> {
  %0 = graph.fusion_group "epilogue" (%a) : (tensor<0xf32>) -> tensor<f32> {
  ^bb0(%x: tensor<0xf32>):
    // expected-error @+1 {{graph.matmul with an empty operand 'tensor<0xf32>' and a non-empty result is not supported (an empty contraction)}}
    %1 = graph.matmul %x, %x : (tensor<0xf32>, tensor<0xf32>) -> tensor<f32>
    graph.yield %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}
