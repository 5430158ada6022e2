// bf16 whole-tensor mean for big-reductions.test (graph-split-reduction: f32 partials).
func.func @main(%x: tensor<2048x2048xbf16>) -> tensor<bf16> {
  %r = graph.reduce_mean %x {axes = array<i64>, keepdims = false} : (tensor<2048x2048xbf16>) -> tensor<bf16>
  return %r : tensor<bf16>
}
