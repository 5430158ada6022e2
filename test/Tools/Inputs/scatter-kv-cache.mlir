// A KV cache [B 2, H 2, S 32, D 16] updated at 3 run-time positions, exported form
// (Transpose -> ScatterND -> Transpose on a model input): graph-scatter-in-place makes it
// scatter_nd {axis = 2} and convert-graph-to-tile writes the updates into the input's buffer
// (test/Tools/scatter-in-place.test).
func.func @main(%cache: tensor<2x2x32x16xf32>, %pos: tensor<3x1xi64>, %k: tensor<2x2x3x16xf32>) -> tensor<2x2x32x16xf32> {
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %u = graph.transpose %k, [2, 0, 1, 3] : (tensor<2x2x3x16xf32>) -> tensor<3x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y : tensor<2x2x32x16xf32>
}
