// Every graph op round-trips through its custom assembly and through the generic form.
// RUN: aicc-opt %s | aicc-opt | FileCheck %s
// RUN: aicc-opt %s --mlir-print-op-generic | aicc-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x3xf32>, tensor<2xf32>, tensor<i64>, tensor<3xi1>) {
  // CHECK:       %[[D:.*]] = graph.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
  %d = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  // CHECK:       %[[R:.*]] = graph.constant dense_resource<blob1> : tensor<2xf32>
  %r = graph.constant dense_resource<blob1> : tensor<2xf32>
  // CHECK:       %[[S:.*]] = graph.constant dense<-3> : tensor<i64>
  %s = graph.constant dense<-3> : tensor<i64>
  // CHECK:       %[[B:.*]] = graph.constant dense<[true, false, true]> : tensor<3xi1>
  %b = graph.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK:       return %[[D]], %[[R]], %[[S]], %[[B]]
  return %d, %r, %s, %b : tensor<2x3xf32>, tensor<2xf32>, tensor<i64>, tensor<3xi1>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:      %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<8x16xf32>, %[[BA:[^:]*]]: tensor<2x1x4x8xf16>, %[[BB:[^:]*]]: tensor<3x8x5xf16>, %[[V:[^:]*]]: tensor<8xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %ba: tensor<2x1x4x8xf16>,
                  %bb: tensor<3x8x5xf16>, %v: tensor<8xf32>)
    -> (tensor<4x16xf32>, tensor<2x3x4x5xf16>, tensor<4xf32>, tensor<16xf32>, tensor<f32>) {
  // CHECK:       %[[M0:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %0 = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // Batch dims [2, 1] and [3] broadcast to [2, 3].
  // CHECK:       %[[M1:.*]] = graph.matmul %[[BA]], %[[BB]] : (tensor<2x1x4x8xf16>, tensor<3x8x5xf16>) -> tensor<2x3x4x5xf16>
  %1 = graph.matmul %ba, %bb : (tensor<2x1x4x8xf16>, tensor<3x8x5xf16>) -> tensor<2x3x4x5xf16>
  // 1-D operands: matrix-vector, vector-matrix, dot product.
  // CHECK:       %[[M2:.*]] = graph.matmul %[[A]], %[[V]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %2 = graph.matmul %a, %v : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // CHECK:       %[[M3:.*]] = graph.matmul %[[V]], %[[B]] : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %3 = graph.matmul %v, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  // CHECK:       %[[M4:.*]] = graph.matmul %[[V]], %[[V]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %4 = graph.matmul %v, %v : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  // CHECK:       return %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[M4]]
  return %0, %1, %2, %3, %4 : tensor<4x16xf32>, tensor<2x3x4x5xf16>, tensor<4xf32>, tensor<16xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:      %[[A:[^:]*]]: tensor<4x8xf32>, %[[AT:[^:]*]]: tensor<8x4xf32>, %[[B:[^:]*]]: tensor<8x16xf32>, %[[BT:[^:]*]]: tensor<16x8xf32>, %[[C:[^:]*]]: tensor<16xf32>, %[[C2:[^:]*]]: tensor<4x1xf32>
func.func @gemm(%a: tensor<4x8xf32>, %at: tensor<8x4xf32>, %b: tensor<8x16xf32>,
                %bt: tensor<16x8xf32>, %c: tensor<16xf32>, %c2: tensor<4x1xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  // Default attributes are elided.
  // CHECK:       %[[G0:.*]] = graph.gemm %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %0 = graph.gemm %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK:       %[[G1:.*]] = graph.gemm %[[AT]], %[[BT]], %[[C]] {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transA = true, transB = true} : (tensor<8x4xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %1 = graph.gemm %at, %bt, %c {alpha = 0.5 : f32, beta = 2.0 : f32, transA = true, transB = true}
      : (tensor<8x4xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK:       %[[G2:.*]] = graph.gemm %[[A]], %[[B]], %[[C2]] : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %2 = graph.gemm %a, %b, %c2 : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  // CHECK:       return %[[G0]], %[[G1]], %[[G2]]
  return %0, %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>, %[[R:[^:]*]]: tensor<3xf32>, %[[COL:[^:]*]]: tensor<2x1xf32>, %[[S:[^:]*]]: tensor<f32>, %[[I:[^:]*]]: tensor<4xi64>
func.func @binary(%x: tensor<2x3xf32>, %r: tensor<3xf32>, %col: tensor<2x1xf32>,
                  %s: tensor<f32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>) {
  // CHECK:       %[[ADD:.*]] = graph.add %[[X]], %[[R]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = graph.add %x, %r : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK:       %[[SUB:.*]] = graph.sub %[[COL]], %[[R]] : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = graph.sub %col, %r : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK:       %[[MUL:.*]] = graph.mul %[[ADD]], %[[SUB]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = graph.mul %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK:       %[[DIV:.*]] = graph.div %[[S]], %[[MUL]] : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.div %s, %2 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // Integer tensors are allowed for the binary ops.
  // CHECK:       %[[IADD:.*]] = graph.add %[[I]], %[[I]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = graph.add %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK:       return %[[DIV]], %[[IADD]]
  return %3, %4 : tensor<2x3xf32>, tensor<4xi64>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3xf32>, %[[H:[^:]*]]: tensor<4xf16>
func.func @unary(%x: tensor<2x3xf32>, %h: tensor<4xf16>) -> (tensor<2x3xf32>, tensor<4xf16>) {
  // CHECK:       %[[RELU:.*]] = graph.relu %[[X]] : tensor<2x3xf32>
  %0 = graph.relu %x : tensor<2x3xf32>
  // CHECK:       %[[TANH:.*]] = graph.tanh %[[RELU]] : tensor<2x3xf32>
  %1 = graph.tanh %0 : tensor<2x3xf32>
  // CHECK:       %[[SIG:.*]] = graph.sigmoid %[[TANH]] : tensor<2x3xf32>
  %2 = graph.sigmoid %1 : tensor<2x3xf32>
  // CHECK:       %[[EXP:.*]] = graph.exp %[[SIG]] : tensor<2x3xf32>
  %3 = graph.exp %2 : tensor<2x3xf32>
  // CHECK:       %[[ERF:.*]] = graph.erf %[[EXP]] : tensor<2x3xf32>
  %4 = graph.erf %3 : tensor<2x3xf32>
  // approximate = "none" is the default and is elided.
  // CHECK:       %[[GN:.*]] = graph.gelu %[[ERF]] : tensor<2x3xf32>
  %5 = graph.gelu %4 {approximate = "none"} : tensor<2x3xf32>
  // CHECK:       %[[GT:.*]] = graph.gelu %[[H]] {approximate = "tanh"} : tensor<4xf16>
  %6 = graph.gelu %h {approximate = "tanh"} : tensor<4xf16>
  // CHECK:       return %[[GN]], %[[GT]]
  return %5, %6 : tensor<2x3xf32>, tensor<4xf16>
}

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
func.func @data_movement(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>) {
  // CHECK:       %[[SM:.*]] = graph.softmax %[[X]] {axis = 2 : i64} : tensor<2x3x4xf32>
  %0 = graph.softmax %x {axis = 2 : i64} : tensor<2x3x4xf32>
  // CHECK:       %[[SM0:.*]] = graph.softmax %[[SM]] {axis = 0 : i64} : tensor<2x3x4xf32>
  %1 = graph.softmax %0 {axis = 0 : i64} : tensor<2x3x4xf32>
  // CHECK:       %[[RS:.*]] = graph.reshape %[[SM0]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = graph.reshape %1 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK:       %[[TR:.*]] = graph.transpose %[[X]], [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %3 = graph.transpose %x, [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK:       return %[[SM0]], %[[RS]], %[[TR]]
  return %1, %2, %3 : tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME:      %[[X:[^:]*]]: tensor<2x3x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<1x1x1xf32>, tensor<f32>) {
  // keepdims = true is the default and is elided.
  // CHECK:       %[[S:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK:       %[[M:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // Empty axes reduce every dim.
  // CHECK:       %[[MX:.*]] = graph.reduce_max %[[X]] {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = graph.reduce_max %x {axes = array<i64>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK:       %[[MN:.*]] = graph.reduce_min %[[X]] {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = graph.reduce_min %x {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK:       return %[[S]], %[[M]], %[[MX]], %[[MN]]
  return %0, %1, %2, %3 : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<1x1x1xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @fusion_group
// CHECK-SAME:      %[[X:[^:]*]]: tensor<4x8xf32>, %[[W:[^:]*]]: tensor<8x16xf32>, %[[BIAS:[^:]*]]: tensor<16xf32>
func.func @fusion_group(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %bias: tensor<16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK:       %[[G:.*]]:2 = graph.fusion_group "epilogue" (%[[X]], %[[W]], %[[BIAS]]) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK-NEXT:  ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<16xf32>):
  // CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %[[B]]
  // CHECK-NEXT:    %[[S:.*]] = graph.add %[[M]], %[[C]]
  // CHECK-NEXT:    %[[R:.*]] = graph.relu %[[S]]
  // CHECK-NEXT:    graph.yield %[[S]], %[[R]] : tensor<4x16xf32>, tensor<4x16xf32>
  // CHECK-NEXT:  }
  %0:2 = graph.fusion_group "epilogue" (%x, %w, %bias)
      : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>):
    %m = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %s = graph.add %m, %c : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %r = graph.relu %s : tensor<4x16xf32>
    graph.yield %s, %r : tensor<4x16xf32>, tensor<4x16xf32>
  }
  // CHECK:       %[[E:.*]] = graph.fusion_group "elementwise" (%[[G]]#1) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK-NEXT:  ^bb0(%[[IN:.*]]: tensor<4x16xf32>):
  // CHECK-NEXT:    %[[T:.*]] = graph.tanh %[[IN]]
  // CHECK-NEXT:    graph.yield %[[T]] : tensor<4x16xf32>
  %1 = graph.fusion_group "elementwise" (%0#1) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%in: tensor<4x16xf32>):
    %t = graph.tanh %in : tensor<4x16xf32>
    graph.yield %t : tensor<4x16xf32>
  }
  // The other kinds, and a group without inputs or results.
  // CHECK:       graph.fusion_group "softmax" (%[[E]])
  %2 = graph.fusion_group "softmax" (%1) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%in: tensor<4x16xf32>):
    %t = graph.softmax %in {axis = 1 : i64} : tensor<4x16xf32>
    graph.yield %t : tensor<4x16xf32>
  }
  // CHECK:       graph.fusion_group "reduction" (%[[E]])
  %r = graph.fusion_group "reduction" (%1) : (tensor<4x16xf32>) -> tensor<4x1xf32> {
  ^bb0(%in: tensor<4x16xf32>):
    %t = graph.reduce_max %in {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
    graph.yield %t : tensor<4x1xf32>
  }
  // CHECK:       graph.fusion_group "single" (%[[X]])
  %3 = graph.fusion_group "single" (%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%in: tensor<4x8xf32>):
    %t = graph.transpose %in, [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    graph.yield %t : tensor<8x4xf32>
  }
  // CHECK:       graph.fusion_group "elementwise" () : () -> () {
  // CHECK-NEXT:  }
  graph.fusion_group "elementwise" () : () -> () {
    graph.yield
  }
  // CHECK:       return %[[G]]#0, %[[E]]
  return %0#0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @conv_layouts
func.func @conv_layouts(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %xl: tensor<1x8x8x3xf32>, %wl: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x8x8x4xf32>) {
  // The default layout (NCHW) is not printed.
  // CHECK:       graph.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %0 = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  // CHECK:       graph.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %1 = graph.conv %xl, %wl, %b {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  return %0, %1 : tensor<1x4x8x8xf32>, tensor<1x8x8x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
