// Input of fusion-report.test: a matmul + bias + relu epilogue, a scaled and masked
// softmax (loop fusion), a residual add + layer_norm whose sum is used again, and a
// reduction. Locations are ONNX-style node names.
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %mask: tensor<8x16xf32>, %g: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x1xf32>) {
  %c = graph.constant dense<0.25> : tensor<f32> loc("scale_const")
  %m = graph.matmul %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32> loc("MatMul_0")
  %a = graph.add %m, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> loc("Add_bias")
  %r = graph.relu %a : tensor<8x16xf32> loc("Relu_0")
  %s = graph.mul %r, %c : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32> loc("Mul_scale")
  %sm_in = graph.add %s, %mask : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> loc("Add_mask")
  %sm = graph.softmax %sm_in {axis = 1 : i64} : tensor<8x16xf32> loc("Softmax_0")
  %h = graph.add %sm, %x : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> loc("Add_residual")
  %ln = graph.layer_norm %h scale %g {axis = 1 : i64} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> loc("LayerNorm_0")
  %o = graph.add %h, %ln : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32> loc("Add_out")
  %red = graph.reduce_sum %o {axes = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8x1xf32> loc("ReduceSum_0")
  return %sm, %o, %red : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x1xf32>
}
