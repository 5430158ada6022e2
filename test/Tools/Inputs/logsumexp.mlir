// ReduceLogSumExp as the ONNX importer decomposes it, keepdims = 0 (a row of 5000: the
// chunked loops) and keepdims = 1 over a middle axis: each is one row kernel.
func.func @main(%x: tensor<3x5000xf32>, %y: tensor<4x6x5xf32>) -> (tensor<3xf32>, tensor<4x1x5xf32>) {
  %m = graph.reduce_max %x {axes = array<i64: 1>} : (tensor<3x5000xf32>) -> tensor<3x1xf32>
  %d = graph.sub %x, %m : (tensor<3x5000xf32>, tensor<3x1xf32>) -> tensor<3x5000xf32>
  %e = graph.exp %d : tensor<3x5000xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = false} : (tensor<3x5000xf32>) -> tensor<3xf32>
  %l = graph.log %s : tensor<3xf32>
  %mr = graph.reshape %m : (tensor<3x1xf32>) -> tensor<3xf32>
  %o = graph.add %l, %mr : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %m2 = graph.reduce_max %y {axes = array<i64: 1>} : (tensor<4x6x5xf32>) -> tensor<4x1x5xf32>
  %d2 = graph.sub %y, %m2 : (tensor<4x6x5xf32>, tensor<4x1x5xf32>) -> tensor<4x6x5xf32>
  %e2 = graph.exp %d2 : tensor<4x6x5xf32>
  %s2 = graph.reduce_sum %e2 {axes = array<i64: 1>} : (tensor<4x6x5xf32>) -> tensor<4x1x5xf32>
  %l2 = graph.log %s2 : tensor<4x1x5xf32>
  %o2 = graph.add %m2, %l2 : (tensor<4x1x5xf32>, tensor<4x1x5xf32>) -> tensor<4x1x5xf32>
  return %o, %o2 : tensor<3xf32>, tensor<4x1x5xf32>
}
