// A model whose declared input is 10^15 f32 elements (8 PB as the reference evaluator holds it).
func.func @main(%x: tensor<100000x100000x100000xf32>) -> tensor<100000x100000x100000xf32> {
  %0 = graph.relu %x : tensor<100000x100000x100000xf32>
  return %0 : tensor<100000x100000x100000xf32>
}
