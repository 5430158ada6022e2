// A hand-edited fused matmul group with two results (graph-fuse makes one): refused.
module attributes {aicc.hardware = "h200", aicc.target = "cpu"} {
  func.func @main(%arg0: tensor<24x80xf32>, %arg1: tensor<80x40xf32>) -> (tensor<24x40xf32>, tensor<24x40xf32>) {
    %0:2 = graph.fusion_group "epilogue" (%arg0, %arg1) : (tensor<24x80xf32>, tensor<80x40xf32>) -> (tensor<24x40xf32>, tensor<24x40xf32>) {
    ^bb0(%arg3: tensor<24x80xf32>, %arg4: tensor<80x40xf32>):
      %2 = graph.matmul %arg3, %arg4 : (tensor<24x80xf32>, tensor<80x40xf32>) -> tensor<24x40xf32>
      %3 = graph.sigmoid %2 : tensor<24x40xf32>
      graph.yield %3, %2 : tensor<24x40xf32>, tensor<24x40xf32>
    }
    return %0#0, %0#1 : tensor<24x40xf32>, tensor<24x40xf32>
  }
}
