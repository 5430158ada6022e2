// scatter_nd along dims 1 and 2 of a model input with reduction "add" (the axis form
// graph-scatter-in-place writes): in place, the tuples in order (test/Tools/scatter-in-place.test).
func.func @main(%x: tensor<2x3x4x5xf32>, %i: tensor<6x2xi64>, %u: tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32> {
  %s = graph.scatter_nd %x, %i, %u {axis = 1 : i64, reduction = "add"} : (tensor<2x3x4x5xf32>, tensor<6x2xi64>, tensor<6x2x5xf32>) -> tensor<2x3x4x5xf32>
  return %s : tensor<2x3x4x5xf32>
}
