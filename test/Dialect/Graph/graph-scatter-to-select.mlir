// RUN: aicc-opt %s -split-input-file -graph-scatter-to-select | FileCheck %s
// RUN: aicc-opt %s -split-input-file -graph-scatter-to-select=max-updates=0 | FileCheck %s --check-prefix=OFF
// RUN: not aicc-opt %s -split-input-file -graph-scatter-to-select=max-updates=-1 2>&1 | FileCheck %s --check-prefix=BAD

// torch's index_copy of a decode step's k into a KV cache at `pos` (exported transpose ->
// ScatterND -> transpose): one select of the update's row against iota(32) == pos (a
// negative pos counts from the end; out of range, clamped to [0, 31] as the scatter kernel
// does), views and elementwise ops only.
// CHECK-LABEL: func.func @kv_cache_index_copy
// CHECK-DAG:     %[[N:.*]] = graph.constant dense<32> : tensor<i64>
// CHECK-DAG:     %[[Z:.*]] = graph.constant dense<0> : tensor<i64>
// CHECK-DAG:     %[[LAST:.*]] = graph.constant dense<31> : tensor<i64>
// CHECK-DAG:     %[[IOTA:.*]] = graph.constant dense<{{\[}}{{\[}}{{\[}}[0]]], {{.*}}[31]]]]> : tensor<32x1x1x1xi64>
// CHECK:         %[[IOTAX:.*]] = graph.expand %[[IOTA]] : tensor<32x1x1x1xi64> -> tensor<32x2x2x16xi64>
// CHECK:         %[[I:.*]] = graph.slice %arg1 {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<1x1xi64> -> tensor<1x1xi64>
// CHECK:         %[[R:.*]] = graph.reshape %[[I]] : (tensor<1x1xi64>) -> tensor<1x1x1x1xi64>
// CHECK:         %[[X:.*]] = graph.expand %[[R]] : tensor<1x1x1x1xi64> -> tensor<32x2x2x16xi64>
// CHECK:         %[[NEG:.*]] = graph.less %[[X]], %[[Z]]
// CHECK:         %[[ADD:.*]] = graph.add %[[X]], %[[N]]
// CHECK:         %[[WRAP:.*]] = graph.where %[[NEG]], %[[ADD]], %[[X]]
// CHECK:         %[[LO:.*]] = graph.max %[[WRAP]], %[[Z]]
// CHECK:         %[[POS:.*]] = graph.min %[[LO]], %[[LAST]]
// CHECK:         %[[HIT:.*]] = graph.equal %[[IOTAX]], %[[POS]] : (tensor<32x2x2x16xi64>, tensor<32x2x2x16xi64>) -> tensor<32x2x2x16xi1>
// CHECK:         %[[U:.*]] = graph.slice %{{.*}} {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x16xf32> -> tensor<1x2x2x16xf32>
// CHECK:         %[[UX:.*]] = graph.expand %[[U]] : tensor<1x2x2x16xf32> -> tensor<32x2x2x16xf32>
// CHECK:         graph.where %[[HIT]], %[[UX]], %{{.*}} : (tensor<32x2x2x16xi1>, tensor<32x2x2x16xf32>, tensor<32x2x2x16xf32>) -> tensor<32x2x2x16xf32>
// CHECK-NOT:     graph.scatter_nd
// OFF-LABEL:     func.func @kv_cache_index_copy
// OFF:           graph.scatter_nd
// BAD:           max-updates must be >= 0, got -1
func.func @kv_cache_index_copy(%cache: tensor<2x2x32x16xf32>, %pos: tensor<1x1xi64>, %k: tensor<2x2x1x16xf32>) -> tensor<2x2x32x16xf32> {
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %u = graph.transpose %k, [2, 0, 1, 3] : (tensor<2x2x1x16xf32>) -> tensor<1x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<1x1xi64>, tensor<1x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y : tensor<2x2x32x16xf32>
}

// -----

// Three positions (a prefill's tail): three selects, the last position written last.
// CHECK-LABEL: func.func @three_rows
// CHECK-COUNT-3: graph.equal
// CHECK:         graph.slice %arg2 {starts = array<i64: 2, 0>
// CHECK-NEXT:    graph.expand
// CHECK-NEXT:    graph.where
// CHECK-NOT:     graph.scatter_nd
func.func @three_rows(%data: tensor<8x4xf16>, %pos: tensor<3x1xi32>, %upd: tensor<3x4xf16>) -> tensor<8x4xf16> {
  %s = graph.scatter_nd %data, %pos, %upd : (tensor<8x4xf16>, tensor<3x1xi32>, tensor<3x4xf16>) -> tensor<8x4xf16>
  return %s : tensor<8x4xf16>
}

// -----

// Left to the scatter kernel: a reduction, index tuples into two dims, more positions than
// max-updates (17), positions narrower than i32 (an i8 could not count the iota's rows).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: graph.scatter_nd
// CHECK-NOT:     graph.equal
func.func @left_alone(%data: tensor<8x4xf32>, %p1: tensor<2x1xi64>, %u1: tensor<2x4xf32>, %p2: tensor<2x2xi64>, %u2: tensor<2xf32>, %big: tensor<64x4xf32>, %p3: tensor<17x1xi64>, %u3: tensor<17x4xf32>, %p4: tensor<2x1xi8>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<64x4xf32>, tensor<8x4xf32>) {
  %a = graph.scatter_nd %data, %p1, %u1 {reduction = "add"} : (tensor<8x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<8x4xf32>
  %b = graph.scatter_nd %data, %p2, %u2 : (tensor<8x4xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<8x4xf32>
  %c = graph.scatter_nd %big, %p3, %u3 : (tensor<64x4xf32>, tensor<17x1xi64>, tensor<17x4xf32>) -> tensor<64x4xf32>
  %d = graph.scatter_nd %data, %p4, %u1 : (tensor<8x4xf32>, tensor<2x1xi8>, tensor<2x4xf32>) -> tensor<8x4xf32>
  return %a, %b, %c, %d : tensor<8x4xf32>, tensor<8x4xf32>, tensor<64x4xf32>, tensor<8x4xf32>
}
