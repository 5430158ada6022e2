// RUN: aicc-opt %s -split-input-file -graph-fuse | FileCheck %s
// graph-fuse leaves existing groups alone: a second run changes nothing (no nested groups).
// RUN: aicc-opt %s -split-input-file -graph-fuse -graph-fuse | FileCheck %s

// Epilogue: matmul + bias add + relu become one group; the bias is an input of the group.
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x16xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%[[X]], %[[W]], %[[B]]) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<4x8xf32>, %[[A1:.*]]: tensor<8x16xf32>, %[[A2:.*]]: tensor<16xf32>):
// CHECK-NEXT:      %[[M:.*]] = graph.matmul %[[A0]], %[[A1]]
// CHECK-NEXT:      %[[S:.*]] = graph.add %[[M]], %[[A2]]
// CHECK-NEXT:      %[[R:.*]] = graph.relu %[[S]]
// CHECK-NEXT:      graph.yield %[[R]] : tensor<4x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @epilogue(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = graph.add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = graph.relu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

// -----

// Gemm anchors an epilogue too; its bias operand C stays an operand of the gemm.
// CHECK-LABEL: func.func @gemm_epilogue
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<2x4xf32>, %[[W:[^:]*]]: tensor<3x4xf32>, %[[C:[^:]*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%[[X]], %[[W]], %[[C]])
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<2x4xf32>, %[[A1:.*]]: tensor<3x4xf32>, %[[A2:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[GM:.*]] = graph.gemm %[[A0]], %[[A1]], %[[A2]] {transB = true}
// CHECK-NEXT:      %[[T:.*]] = graph.tanh %[[GM]]
// CHECK-NEXT:      graph.yield %[[T]]
// CHECK:         return %[[G]]
func.func @gemm_epilogue(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.gemm %x, %w, %c {transB = true} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.tanh %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Softmax and its elementwise consumer.
// CHECK-LABEL: func.func @softmax_consumer
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x16xf32>, %[[S:[^:]*]]: tensor<4x16xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "softmax" (%[[X]], %[[S]]) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<4x16xf32>, %[[A1:.*]]: tensor<4x16xf32>):
// CHECK-NEXT:      %[[SM:.*]] = graph.softmax %[[A0]] {axis = 1 : i64}
// CHECK-NEXT:      %[[MUL:.*]] = graph.mul %[[SM]], %[[A1]]
// CHECK-NEXT:      graph.yield %[[MUL]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @softmax_consumer(%x: tensor<4x16xf32>, %s: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x16xf32>
  %1 = graph.mul %0, %s : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// An elementwise DAG (two producers feeding an add, then a broadcasting mul by a smaller
// operand) is one group with one result.
// CHECK-LABEL: func.func @elementwise_dag
// CHECK-SAME:      (%[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<2x3xf32>, %[[C:[^:]*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "elementwise" (%[[A]], %[[B]], %[[C]]) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<2x3xf32>, %[[A1:.*]]: tensor<2x3xf32>, %[[A2:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[A0]]
// CHECK-NEXT:      %[[T:.*]] = graph.tanh %[[A1]]
// CHECK-NEXT:      %[[S:.*]] = graph.add %[[E]], %[[T]]
// CHECK-NEXT:      %[[M:.*]] = graph.mul %[[S]], %[[A2]]
// CHECK-NEXT:      graph.yield %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @elementwise_dag(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.exp %a : tensor<2x3xf32>
  %1 = graph.tanh %b : tensor<2x3xf32>
  %2 = graph.add %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.mul %2, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// -----

// Refusal: the matmul result has a second user (the function result), so the relu cannot
// join its group; the relu becomes an elementwise group of its own reading the group result.
// CHECK-LABEL: func.func @producer_two_users
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x16xf32>)
// CHECK-NEXT:    %[[G:.*]] = graph.fusion_group "epilogue" (%[[X]], %[[W]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      %[[M:.*]] = graph.matmul
// CHECK-NEXT:      graph.yield %[[M]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%[[G]]) {refusals = [{input = 0 : i64, rule = "no-aliasing"}]}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<4x16xf32>):
// CHECK-NEXT:      %[[R:.*]] = graph.relu %[[IN]]
// CHECK-NEXT:      graph.yield %[[R]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]], %[[E]]
func.func @producer_two_users(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = graph.relu %0 : tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Recompute + horizontal fusion: exp has two users; recomputing it in each consumer is
// cheaper than storing it (recompute-cost), and the two consumers' groups read the same
// input, so they merge into one kernel with two results.
// CHECK-LABEL: func.func @elementwise_two_users
// CHECK-SAME:      (%[[A:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[G:.*]]:2 = graph.fusion_group "elementwise" (%[[A]]) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[E1:.*]] = graph.exp %[[IN]]
// CHECK-NEXT:      %[[E2:.*]] = graph.exp %[[IN]]
// CHECK-NEXT:      %[[R:.*]] = graph.relu %[[E2]]
// CHECK-NEXT:      %[[T:.*]] = graph.tanh %[[E1]]
// CHECK-NEXT:      graph.yield %[[R]], %[[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]#0, %[[G]]#1
func.func @elementwise_two_users(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = graph.exp %a : tensor<2x3xf32>
  %1 = graph.relu %0 : tensor<2x3xf32>
  %2 = graph.tanh %0 : tensor<2x3xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Refusal (iteration space): exp on [3] feeding an add that broadcasts to [2, 3] would be
// recomputed per output row; the two stay separate groups.
// CHECK-LABEL: func.func @broadcasting_producer
// CHECK-SAME:      (%[[A:[^:]*]]: tensor<3xf32>, %[[B:[^:]*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%[[A]]) : (tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.exp
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[S:.*]] = graph.fusion_group "elementwise" (%[[E]], %[[B]]) {refusals = [{input = 0 : i64, rule = "iteration-space"}]} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[S]]
func.func @broadcasting_producer(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.exp %a : tensor<3xf32>
  %1 = graph.add %0, %b : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Refusal (iteration space) for an epilogue: an add that broadcasts the [4, 1] matmul result
// to [4, 16] does not join the epilogue.
// CHECK-LABEL: func.func @broadcasting_epilogue
// CHECK:         %[[G:.*]] = graph.fusion_group "epilogue" ({{.*}}) : (tensor<4x8xf32>, tensor<8x1xf32>) -> tensor<4x1xf32> {
// CHECK:           graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%[[G]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "iteration-space"}]} : (tensor<4x1xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
// CHECK:           graph.add
// CHECK:         return %[[E]]
func.func @broadcasting_epilogue(%x: tensor<4x8xf32>, %w: tensor<8x1xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x1xf32>) -> tensor<4x1xf32>
  %1 = graph.add %0, %b : (tensor<4x1xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// A transpose (a view op) joins its consumer's elementwise group and reads a kernel input;
// constants stay outside groups; a reshape between a matmul and its consumer ends the
// epilogue (the matmul template does not continue through it) and joins the consumer's
// elementwise kernel, which reads the matmul's result at the same linear index.
// CHECK-LABEL: func.func @single_and_outside
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x4xf32>)
// CHECK-NEXT:    %[[K:.*]] = graph.constant dense<1.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.fusion_group "elementwise" (%[[X]], %[[K]]) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<4x8xf32>, %[[KIN:.*]]: tensor<8x4xf32>):
// CHECK-NEXT:      %[[TR:.*]] = graph.transpose %[[IN]], [1, 0]
// CHECK-NEXT:      graph.add %[[TR]], %[[KIN]]
// CHECK:         %[[M:.*]] = graph.fusion_group "epilogue" (%[[X]], %[[W]])
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = graph.fusion_group "elementwise" (%[[M]]) {refusals = [{input = 0 : i64, rule = "template"}]}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      graph.reshape
// CHECK-NEXT:      graph.exp
// CHECK:         return %[[A]], %[[E]]
func.func @single_and_outside(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<16xf32>) {
  %k = graph.constant dense<1.0> : tensor<8x4xf32>
  %0 = graph.transpose %x, [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = graph.add %0, %k : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %3 = graph.reshape %2 : (tensor<4x4xf32>) -> tensor<16xf32>
  %4 = graph.exp %3 : tensor<16xf32>
  return %1, %4 : tensor<8x4xf32>, tensor<16xf32>
}

// -----

// Two anchors in a row: the second matmul consumes the first one's result; each is its own
// epilogue (a matmul is not an elementwise consumer).
// CHECK-LABEL: func.func @two_matmuls
// CHECK:         %[[G0:.*]] = graph.fusion_group "epilogue"
// CHECK:           graph.matmul
// CHECK-NEXT:      graph.relu
// CHECK-NEXT:      graph.yield
// CHECK:         %[[G1:.*]] = graph.fusion_group "epilogue" (%[[G0]], %{{.*}}) {refusals = [{input = 0 : i64, rule = "template"}]}
// CHECK:           graph.matmul
// CHECK-NEXT:      graph.yield
// CHECK:         return %[[G1]]
func.func @two_matmuls(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  %2 = graph.matmul %1, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A reduction kernel ("reduction") evaluates its elementwise producer per loaded element
// (prologue) and applies its elementwise consumer before the store (epilogue).
// CHECK-LABEL: func.func @reduction
// CHECK-SAME:      (%[[X:[^:]*]]: tensor<4x16xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.fusion_group "reduction" (%[[X]]) : (tensor<4x16xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: tensor<4x16xf32>):
// CHECK-NEXT:      %[[E:.*]] = graph.exp %[[IN]]
// CHECK-NEXT:      %[[S:.*]] = graph.reduce_sum %[[E]] {axes = array<i64: 1>}
// CHECK-NEXT:      %[[L:.*]] = graph.relu %[[S]]
// CHECK-NEXT:      graph.yield %[[L]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @reduction(%x: tensor<4x16xf32>) -> tensor<4x1xf32> {
  %0 = graph.exp %x : tensor<4x16xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
  %2 = graph.relu %1 : tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}

// -----

// A declaration has no body: nothing to fuse (the pass used to dereference the missing
// entry block and crash, issue 14).
// CHECK-LABEL: func.func private @declaration(tensor<2xf32>) -> tensor<2xf32>
// CHECK-LABEL: func.func @uses_declaration
// CHECK:         graph.fusion_group
func.func private @declaration(tensor<2xf32>) -> tensor<2xf32>
func.func @uses_declaration(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = graph.relu %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
