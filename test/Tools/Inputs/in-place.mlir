// In-place reuse (issue 16), at the fused stage: a softmax kernel, then two elementwise
// kernels that may each write their result over the dead temp they read, then a reduction.
func.func @main(%arg0: tensor<8x256xf32>) -> tensor<8xf32> {
  %0 = graph.fusion_group "softmax" (%arg0) : (tensor<8x256xf32>) -> tensor<8x256xf32> {
  ^bb0(%a: tensor<8x256xf32>):
    %s = graph.softmax %a {axis = 1 : i64} : tensor<8x256xf32>
    graph.yield %s : tensor<8x256xf32>
  }
  %1 = graph.fusion_group "elementwise" (%0) : (tensor<8x256xf32>) -> tensor<8x256xf32> {
  ^bb0(%a: tensor<8x256xf32>):
    %e = graph.exp %a : tensor<8x256xf32>
    graph.yield %e : tensor<8x256xf32>
  }
  %2 = graph.fusion_group "elementwise" (%1) : (tensor<8x256xf32>) -> tensor<8x256xf32> {
  ^bb0(%a: tensor<8x256xf32>):
    %r = graph.relu %a : tensor<8x256xf32>
    %m = graph.mul %r, %a : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
    graph.yield %m : tensor<8x256xf32>
  }
  %3 = graph.fusion_group "reduction" (%2) : (tensor<8x256xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8x256xf32>):
    %r = graph.reduce_sum %a {axes = array<i64: 1>, keepdims = false} : (tensor<8x256xf32>) -> tensor<8xf32>
    graph.yield %r : tensor<8xf32>
  }
  return %3 : tensor<8xf32>
}
