// RUN: aicc-opt %s -split-input-file -convert-graph-to-tile | FileCheck %s

// Unsigned tensors: the host plan keeps ui8 / ui64 buffers (their bundle dtypes), the kernel
// takes signless i8 / i64 memrefs, and the graph ops' unsignedness picks the unsigned arith
// ops: divui, maxui, remui, shrui (a shift by >= 8 bits gives 0), cmpi ult, uitofp, extui.

// CHECK-LABEL: func.func @unsigned
// CHECK-SAME:      (%[[X:[^:]*]]: memref<8xui8>, %[[Y:[^:]*]]: memref<8xui8>) -> (memref<8xui8>, memref<8xi1>, memref<8xf32>, memref<8xui64>)
// CHECK:         tile.launch @kernels::@fused_0_elementwise(%[[X]], %[[Y]], %{{.*}}) : memref<8xui8>, memref<8xui8>, memref<8xui8>, memref<8xi1>, memref<8xf32>, memref<8xui64>
// CHECK-LABEL:   func.func @fused_0_elementwise
// CHECK-SAME:        (%[[PA:[^:]*]]: memref<8xi8>, %[[PB:[^:]*]]: memref<8xi8>, %[[PS:[^:]*]]: memref<8xi8>, %[[PL:[^:]*]]: memref<8xi1>, %[[PF:[^:]*]]: memref<8xf32>, %[[PW:[^:]*]]: memref<8xi64>)
// CHECK:           %[[A:.*]] = tile.load %[[PA]][%{{.*}}], %{{.*}} {padding = 0 : i8} : memref<8xi8>, tensor<128xi32>, tensor<128xi1> -> tensor<128xi8>
// CHECK:           %[[B:.*]] = tile.load %[[PB]][%{{.*}}], %{{.*}} {padding = 0 : i8} : memref<8xi8>, tensor<128xi32>, tensor<128xi1> -> tensor<128xi8>
// A zero divisor (e.g. a masked-off lane) divides by 1.
// CHECK:           %[[BZ:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : tensor<128xi8>
// CHECK:           %[[BS:.*]] = arith.select %[[BZ]], %{{.*}}, %[[B]]
// CHECK:           %[[D:.*]] = arith.divui %[[A]], %[[BS]] : tensor<128xi8>
// CHECK:           %[[M:.*]] = arith.maxui %[[D]], %[[B]] : tensor<128xi8>
// CHECK:           %[[R:.*]] = arith.remui %[[M]], %{{.*}} : tensor<128xi8>
// CHECK:           %[[EIGHT:.*]] = arith.constant 8 : i8
// CHECK:           %[[W8:.*]] = tile.splat %[[EIGHT]] : tensor<128xi8>
// CHECK:           %[[FAR:.*]] = arith.cmpi uge, %[[B]], %[[W8]] : tensor<128xi8>
// CHECK:           %[[AMT:.*]] = arith.select %[[FAR]], %{{.*}}, %[[B]]
// CHECK:           %[[SH:.*]] = arith.shrui %[[R]], %[[AMT]] : tensor<128xi8>
// CHECK:           %[[S:.*]] = arith.select %[[FAR]], %{{.*}}, %[[SH]]
// CHECK:           %[[L:.*]] = arith.cmpi ult, %[[S]], %[[A]] : tensor<128xi8>
// CHECK:           %[[F:.*]] = arith.uitofp %[[S]] : tensor<128xi8> to tensor<128xf32>
// CHECK:           %[[W:.*]] = arith.extui %[[S]] : tensor<128xi8> to tensor<128xi64>
// CHECK:           tile.store %[[PS]][%{{.*}}], %[[S]]
// CHECK:           tile.store %[[PL]][%{{.*}}], %[[L]]
// CHECK:           tile.store %[[PF]][%{{.*}}], %[[F]]
// CHECK:           tile.store %[[PW]][%{{.*}}], %[[W]]
func.func @unsigned(%x: tensor<8xui8>, %y: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xi1>, tensor<8xf32>, tensor<8xui64>) {
  %0:4 = graph.fusion_group "elementwise" (%x, %y) : (tensor<8xui8>, tensor<8xui8>) -> (tensor<8xui8>, tensor<8xi1>, tensor<8xf32>, tensor<8xui64>) {
  ^bb0(%a: tensor<8xui8>, %b: tensor<8xui8>):
    %d = graph.div %a, %b : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
    %m = graph.max %d, %b : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
    %r = graph.mod %m, %a : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
    %s = graph.bit_shift %r, %b {direction = "right"} : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xui8>
    %l = graph.less %s, %a : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xi1>
    %f = graph.cast %s : tensor<8xui8> -> tensor<8xf32>
    %w = graph.cast %s : tensor<8xui8> -> tensor<8xui64>
    graph.yield %s, %l, %f, %w : tensor<8xui8>, tensor<8xi1>, tensor<8xf32>, tensor<8xui64>
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<8xui8>, tensor<8xi1>, tensor<8xf32>, tensor<8xui64>
}

// -----

// Signed i16 keeps the signed ops; float -> ui32 converts through i64 (truncation toward
// zero, then wrap), ui32 -> i16 truncates, i16 -> f32 is sitofp; clip bounds saturate to
// the unsigned range.

// CHECK-LABEL:   func.func @fused_0_elementwise
// CHECK-SAME:        (%[[PX:[^:]*]]: memref<4xi16>, %[[PF:[^:]*]]: memref<4xf32>, %{{.*}}: memref<4xi16>, %{{.*}}: memref<4xf32>)
// CHECK:           %[[X:.*]] = tile.load %[[PX]]
// CHECK:           %[[MIN:.*]] = arith.minsi %[[X]], %[[X]] : tensor<128xi16>
// CHECK:           %[[F:.*]] = tile.load %[[PF]]
// CHECK:           %[[WIDE:.*]] = arith.fptosi %[[F]] : tensor<128xf32> to tensor<128xi64>
// CHECK:           %[[U:.*]] = arith.trunci %[[WIDE]] : tensor<128xi64> to tensor<128xi32>
// CHECK:           %[[HI:.*]] = arith.constant -1 : i32
// CHECK:           %[[HIS:.*]] = tile.splat %[[HI]] : tensor<128xi32>
// CHECK:           %[[C:.*]] = arith.minui %[[U]], %[[HIS]] : tensor<128xi32>
// CHECK:           %[[N:.*]] = arith.trunci %[[C]] : tensor<128xi32> to tensor<128xi16>
// CHECK:           %[[S:.*]] = arith.addi %[[MIN]], %[[N]] : tensor<128xi16>
// CHECK:           %[[G:.*]] = arith.sitofp %[[S]] : tensor<128xi16> to tensor<128xf32>
func.func @signed16(%x: tensor<4xi16>, %f: tensor<4xf32>) -> (tensor<4xi16>, tensor<4xf32>) {
  %0:2 = graph.fusion_group "elementwise" (%x, %f) : (tensor<4xi16>, tensor<4xf32>) -> (tensor<4xi16>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xi16>, %b: tensor<4xf32>):
    %m = graph.min %a, %a : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
    %u = graph.cast %b : tensor<4xf32> -> tensor<4xui32>
    %c = graph.clip %u {max = 1.0e+10 : f64} : tensor<4xui32>
    %n = graph.cast %c : tensor<4xui32> -> tensor<4xi16>
    %s = graph.add %m, %n : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
    %g = graph.cast %s : tensor<4xi16> -> tensor<4xf32>
    graph.yield %s, %g : tensor<4xi16>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<4xi16>, tensor<4xf32>
}
