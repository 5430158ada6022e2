func.func @main(%arg0: tensor<64xf32> {aicc.name = "x"}) -> (tensor<64xf32> {aicc.name = "y"}) {
  %0 = graph.sin %arg0 : tensor<64xf32>
  return %0 : tensor<64xf32>
}
