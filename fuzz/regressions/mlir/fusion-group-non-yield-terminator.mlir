3func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.fusion_group"(%a) <{kind = "single"}> ({
  ^bb0(%x: tensor<2xf32>):
    "func.return"(%x) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
