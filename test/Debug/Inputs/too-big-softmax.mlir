// A softmax over more elements than the kernel templates' i32 offsets address (2^31).
func.func @main(%x: tensor<2x1073741824xf32>) -> tensor<2x1073741824xf32> {
  %s = graph.softmax %x {axis = 1 : i64} : tensor<2x1073741824xf32>
  return %s : tensor<2x1073741824xf32>
}
