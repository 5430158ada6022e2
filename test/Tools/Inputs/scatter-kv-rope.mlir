// The new keys of a KV cache [B 2, H 2, S 32, D 16] computed the way a Llama layer exports
// them: the projection's [B, T, H * D] split into heads, rotated (rotate-half RoPE with
// tables [T, D]), then written at 3 run-time positions (Transpose -> ScatterND -> Transpose
// on a model input). graph-fuse's formScatters puts the head split and the rotation into
// the scatter's kernel (test/Tools/scatter-in-place.test).
func.func @main(%cache: tensor<2x2x32x16xf32>, %pos: tensor<3x1xi64>, %kp: tensor<2x3x32xf32>, %cos: tensor<3x16xf32>, %sin: tensor<3x16xf32>) -> tensor<2x2x32x16xf32> {
  %r = graph.reshape %kp : (tensor<2x3x32xf32>) -> tensor<2x3x2x16xf32>
  %k = graph.transpose %r, [0, 2, 1, 3] : (tensor<2x3x2x16xf32>) -> tensor<2x2x3x16xf32>
  %x1 = graph.slice %k {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x2x3x16xf32> -> tensor<2x2x3x8xf32>
  %x2 = graph.slice %k {starts = array<i64: 0, 0, 0, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<2x2x3x16xf32> -> tensor<2x2x3x8xf32>
  %n2 = graph.neg %x2 : tensor<2x2x3x8xf32>
  %rot = graph.concat %n2, %x1 {axis = 3 : i64} : (tensor<2x2x3x8xf32>, tensor<2x2x3x8xf32>) -> tensor<2x2x3x16xf32>
  %kc = graph.mul %k, %cos : (tensor<2x2x3x16xf32>, tensor<3x16xf32>) -> tensor<2x2x3x16xf32>
  %rs = graph.mul %rot, %sin : (tensor<2x2x3x16xf32>, tensor<3x16xf32>) -> tensor<2x2x3x16xf32>
  %kr = graph.add %kc, %rs : (tensor<2x2x3x16xf32>, tensor<2x2x3x16xf32>) -> tensor<2x2x3x16xf32>
  %d = graph.transpose %cache, [2, 0, 1, 3] : (tensor<2x2x32x16xf32>) -> tensor<32x2x2x16xf32>
  %u = graph.transpose %kr, [2, 0, 1, 3] : (tensor<2x2x3x16xf32>) -> tensor<3x2x2x16xf32>
  %s = graph.scatter_nd %d, %pos, %u : (tensor<32x2x2x16xf32>, tensor<3x1xi64>, tensor<3x2x2x16xf32>) -> tensor<32x2x2x16xf32>
  %y = graph.transpose %s, [1, 2, 0, 3] : (tensor<32x2x2x16xf32>) -> tensor<2x2x32x16xf32>
  return %y : tensor<2x2x32x16xf32>
}
