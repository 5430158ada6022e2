// A graph op outside any fusion group: convert-graph-to-tile rejects it.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.relu %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
