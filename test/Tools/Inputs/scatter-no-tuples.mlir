// scatter_nd of no index tuples into a model input (in place): the result is the data
// (test/Tools/scatter-in-place.test).
func.func @main(%x: tensor<4x5x6xf32>, %i: tensor<0x2xi64>, %u: tensor<0x6xf32>) -> tensor<4x5x6xf32> {
  %s = graph.scatter_nd %x, %i, %u : (tensor<4x5x6xf32>, tensor<0x2xi64>, tensor<0x6xf32>) -> tensor<4x5x6xf32>
  return %s : tensor<4x5x6xf32>
}
