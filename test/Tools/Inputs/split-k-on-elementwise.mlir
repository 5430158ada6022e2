// A hand-written split_k on an elementwise group: refused (split_k is the matmul template's).
module attributes {aicc.hardware = "h200", aicc.target = "cpu"} {
  func.func @main(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = graph.fusion_group "elementwise" (%arg0) {tile.matmul_config = #tile.matmul_config<BLOCK_M = 64, BLOCK_N = 64, BLOCK_K = 64, num_warps = 4, num_stages = 2, path = generic, split_k = 2>} : (tensor<1024xf32>) -> tensor<1024xf32> {
    ^bb0(%arg1: tensor<1024xf32>):
      %1 = graph.relu %arg1 : tensor<1024xf32>
      graph.yield %1 : tensor<1024xf32>
    }
    return %0 : tensor<1024xf32>
  }
}
