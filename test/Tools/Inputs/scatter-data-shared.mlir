// A value that is both the scatter's data and, through a slice, its updates (torch's
// x = a.relu(); x.index_put_(idx, x[:20] * 2)): the slice and the multiply join the scatter's
// kernel, x stays its own kernel (the template reads data from memory); 20 positions, so
// graph-scatter-to-select leaves the scatter (test/Tools/scatter-in-place.test).

func.func @main(%a: tensor<32x4xf32>, %i: tensor<20x1xi64>) -> tensor<32x4xf32> {
  %x = graph.relu %a : tensor<32x4xf32>
  %s = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<32x4xf32> -> tensor<20x4xf32>
  %c = graph.constant dense<2.0> : tensor<1xf32>
  %m = graph.mul %s, %c : (tensor<20x4xf32>, tensor<1xf32>) -> tensor<20x4xf32>
  %r = graph.scatter_nd %x, %i, %m : (tensor<32x4xf32>, tensor<20x1xi64>, tensor<20x4xf32>) -> tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}