// Two named inputs for aicc-run's --input tests (aicc-run-input-files.test): z = x * 2 + y.
func.func @main(%x: tensor<2x3xf32> {aicc.name = "x"}, %y: tensor<2x3xf32> {aicc.name = "y"})
    -> (tensor<2x3xf32> {aicc.name = "z"}) {
  %0 = graph.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %0, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
