// graph-infer-shapes skips ops of unregistered dialects (their dialect is null: the pass
// used to dereference it, issue 14) and still re-infers the graph ops around them.
// RUN: aicc-opt %s --allow-unregistered-dialect -graph-infer-shapes | FileCheck %s

// CHECK-LABEL: func.func @unregistered
// CHECK:         %[[U:.*]] = "foo.bar"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         graph.relu %[[U]] : tensor<2x3xf32>
func.func @unregistered(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "foo.bar"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
