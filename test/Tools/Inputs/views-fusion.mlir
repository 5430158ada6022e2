func.func @main(%x: tensor<2x4x8xf32>) -> (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<4x4x4xf32>, tensor<2x4x8xf32>) {
  %w = graph.constant dense<0.125> : tensor<24x8xf32>
  %b = graph.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]> : tensor<24xf32>
  %s = graph.constant dense<0.5> : tensor<1xf32>
  %wo = graph.constant dense<0.25> : tensor<8x8xf32>
  %xr = graph.reshape %x : (tensor<2x4x8xf32>) -> tensor<8x1x8xf32>
  %wr = graph.reshape %w : (tensor<24x8xf32>) -> tensor<1x24x8xf32>
  %p = graph.mul %xr, %wr : (tensor<8x1x8xf32>, tensor<1x24x8xf32>) -> tensor<8x24x8xf32>
  %r = graph.reduce_sum %p {axes = array<i64: 2>, keepdims = false} : (tensor<8x24x8xf32>) -> tensor<8x24xf32>
  %rr = graph.reshape %r : (tensor<8x24xf32>) -> tensor<2x4x24xf32>
  %qkv = graph.add %rr, %b : (tensor<2x4x24xf32>, tensor<24xf32>) -> tensor<2x4x24xf32>
  %t = graph.transpose %qkv, [1, 0, 2] : (tensor<2x4x24xf32>) -> tensor<4x2x24xf32>
  %t5 = graph.reshape %t : (tensor<4x2x24xf32>) -> tensor<4x2x3x8xf32>
  %u = graph.transpose %t5, [2, 0, 1, 3] : (tensor<4x2x3x8xf32>) -> tensor<3x4x2x8xf32>
  %q = graph.slice %u {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x4x2x8xf32> -> tensor<1x4x2x8xf32>
  %k = graph.slice %u {starts = array<i64: 1, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x4x2x8xf32> -> tensor<1x4x2x8xf32>
  %v = graph.slice %u {starts = array<i64: 2, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x4x2x8xf32> -> tensor<1x4x2x8xf32>
  %q3 = graph.reshape %q : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
  %q4 = graph.transpose %q3, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %q5 = graph.reshape %q4 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
  %qs = graph.mul %q5, %s : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
  %k3 = graph.reshape %k : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
  %k4 = graph.transpose %k3, [1, 2, 0] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %k5 = graph.reshape %k4 : (tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32>
  %ks = graph.mul %k5, %s : (tensor<2x2x4x4xf32>, tensor<1xf32>) -> tensor<2x2x4x4xf32>
  %v3 = graph.reshape %v : (tensor<1x4x2x8xf32>) -> tensor<4x4x4xf32>
  %v4 = graph.transpose %v3, [1, 0, 2] : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %v5 = graph.reshape %v4 : (tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %m = graph.transpose %qs, [0, 2, 1, 3] : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
  %m2 = graph.reshape %m : (tensor<2x4x2x4xf32>) -> tensor<8x1x8xf32>
  %wo3 = graph.reshape %wo : (tensor<8x8xf32>) -> tensor<1x8x8xf32>
  %po = graph.mul %m2, %wo3 : (tensor<8x1x8xf32>, tensor<1x8x8xf32>) -> tensor<8x8x8xf32>
  %ro = graph.reduce_sum %po {axes = array<i64: 2>, keepdims = false} : (tensor<8x8x8xf32>) -> tensor<8x8xf32>
  %ro3 = graph.reshape %ro : (tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %y = graph.gelu %ro3 : tensor<2x4x8xf32>
  return %qs, %ks, %v5, %y : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<4x4x4xf32>, tensor<2x4x8xf32>
}
