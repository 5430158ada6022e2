// Each registered pipeline, run in aicc-compile's order on y = softmax(relu(x @ w + b)).
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline)" | FileCheck %s --check-prefix=GRAPH
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline,aicc-fusion-pipeline)" | FileCheck %s --check-prefix=FUSED
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline,aicc-fusion-pipeline,aicc-tile-pipeline)" | FileCheck %s --check-prefix=TILE
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline,aicc-fusion-pipeline,aicc-tile-pipeline,aicc-cpu-pipeline)" | FileCheck %s --check-prefix=CPU
// The GPU pipeline needs no CUDA toolkit: it stops at PTX (gpu.binary with format isa).
// Every stage records its target on the module (aicc-attach-target) and checks it there.
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline{target=sm_90},aicc-fusion-pipeline{target=sm_90},aicc-tile-pipeline{target=sm_90},aicc-gpu-pipeline{target=sm_90})" | FileCheck %s --check-prefix=GPU
// RUN: aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline{target=sm_80},aicc-fusion-pipeline{target=sm_80},aicc-tile-pipeline{target=sm_80},aicc-gpu-pipeline{target=sm_80 ptx-features=+ptx75})" | FileCheck %s --check-prefix=SM80
// Tile kernels built for the CPU are not lowered for a GPU.
// RUN: not aicc-opt %s --pass-pipeline="builtin.module(aicc-graph-pipeline,aicc-fusion-pipeline,aicc-tile-pipeline,aicc-gpu-pipeline{target=sm_90})" 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: aicc-attach-target: the module is for aicc.target = "cpu", not "sm_90" (IR built for one chip is not re-lowered for another: compile it again from an earlier stage)
// The pipeline flags work on their own too.
// RUN: aicc-opt %s --aicc-graph-pipeline --aicc-fusion-pipeline | FileCheck %s --check-prefix=FUSED

// aicc-graph-pipeline: the duplicate constant is CSE'd, the no-op reshape folded.
// GRAPH-LABEL: func.func @main
// GRAPH-SAME:      (%[[X:[^:]*]]: tensor<2x4xf32>) -> tensor<2x3xf32>
// GRAPH-NEXT:    %[[W:.*]] = graph.constant dense<{{.*}}> : tensor<4x3xf32>
// GRAPH-NEXT:    %[[B:.*]] = graph.constant dense<[1.000000e-01, -2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// GRAPH-NEXT:    %[[M:.*]] = graph.matmul %[[X]], %[[W]]
// GRAPH-NEXT:    %[[A:.*]] = graph.add %[[M]], %[[B]]
// GRAPH-NEXT:    %[[R:.*]] = graph.relu %[[A]]
// GRAPH-NEXT:    %[[S:.*]] = graph.softmax %[[R]] {axis = 1 : i64}
// GRAPH-NEXT:    return %[[S]]

// aicc-fusion-pipeline: one epilogue group and one softmax group.
// FUSED-LABEL: func.func @main
// FUSED:         %[[E:.*]] = graph.fusion_group "epilogue" (%{{.*}}, %{{.*}}, %{{.*}})
// FUSED:           graph.matmul
// FUSED-NEXT:      graph.add
// FUSED-NEXT:      graph.relu
// FUSED-NEXT:      graph.yield
// FUSED:         %[[S:.*]] = graph.fusion_group "softmax" (%[[E]])
// FUSED-NEXT:    ^bb0
// FUSED-NEXT:      graph.softmax
// FUSED-NEXT:      graph.yield
// FUSED:         return %[[S]]

// aicc-tile-pipeline: globals, the host plan and two kernels.
// TILE-DAG:    memref.global "private" constant @__constant_{{[01]}} : memref<4x3xf32>
// TILE-DAG:    memref.global "private" constant @__constant_{{[01]}} : memref<3xf32>
// TILE-LABEL:  func.func @main
// TILE-SAME:       (%[[X:[^:]*]]: memref<2x4xf32>) -> memref<2x3xf32>
// TILE:          %[[Y0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// TILE-NEXT:     tile.launch @kernels::@fused_0_epilogue(%[[X]], %{{.*}}, %{{.*}}, %[[Y0]])
// TILE-NEXT:     %[[Y1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
// TILE-NEXT:     tile.launch @kernels::@fused_1_softmax(%[[Y0]], %[[Y1]])
// TILE-NEXT:     return %[[Y1]]
// TILE:        module @kernels {
// TILE:          func.func @fused_0_epilogue({{.*}}) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1]
// TILE:            tile.dot
// TILE:          func.func @fused_1_softmax({{.*}}) attributes {tile.schedule = #tile.schedule<grid = [2, 1, 1]
// TILE:            tile.reduce max
// TILE:            tile.reduce add

// aicc-cpu-pipeline: the host plan stays; kernels are LLVM functions taking bare pointers
// and the six ids, plus C entry points.
// CPU-LABEL:   func.func @main
// CPU:           tile.launch @kernels::@fused_0_epilogue(
// CPU:           tile.launch @kernels::@fused_1_softmax(
// CPU:         module @kernels {
// CPU-NOT:       func.func
// CPU-DAG:       llvm.func @fused_0_epilogue(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CPU-DAG:       llvm.func @fused_1_softmax(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CPU-DAG:       llvm.func @expf(f32) -> f32
// CPU-DAG:       llvm.func @fused_0_epilogue_entry(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CPU-DAG:       llvm.func @fused_1_softmax_entry(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CPU-NOT:       tile.program_id
// CPU-NOT:       tile.cpu_kernel
// CPU-NOT:       scf.
// CPU-NOT:       memref.

// aicc-gpu-pipeline: the kernels become one gpu.binary holding PTX for sm_90.
// GPU:         module attributes {{{.*}}gpu.container_module}
// GPU-LABEL:   func.func @main
// GPU:           tile.launch @kernels::@fused_0_epilogue(
// GPU:           tile.launch @kernels::@fused_1_softmax(
// GPU:         gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">, {{.*}}assembly = "{{.*}}.target sm_90{{.*}}.entry fused_0_epilogue({{.*}}.entry fused_1_softmax({{.*}}">]
// GPU-NOT:     gpu.module
// SM80:        gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx75">, {{.*}}assembly = "{{.*}}.target sm_80{{.*}}">]

func.func @main(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = graph.constant dense<[[0.5, -1.0, 0.25], [1.5, 0.75, -0.5], [-0.25, 1.0, 2.0], [0.125, -0.375, 1.25]]> : tensor<4x3xf32>
  %b = graph.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %b2 = graph.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %0 = graph.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = graph.add %0, %b2 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = graph.relu %1 : tensor<2x3xf32>
  %r = graph.reshape %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = graph.softmax %r {axis = 1 : i64} : tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
