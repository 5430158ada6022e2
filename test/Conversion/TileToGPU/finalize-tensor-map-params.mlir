// RUN: aicc-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(finalize-tensor-map-params))' -verify-diagnostics | FileCheck %s

// The last N parameters of a kernel with N tile.tensor_maps become by-value CUtensorMaps, and
// the dynamic shared memory global becomes extern and 1024-byte aligned.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // CHECK-LABEL: llvm.func @k(
    // CHECK-SAME: %{{.*}}: !llvm.ptr,
    // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
    // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
    llvm.func @k(%buf: !llvm.ptr, %a: !llvm.ptr, %b: !llvm.ptr) attributes {nvvm.kernel, tile.tensor_maps = [{box = array<i64: 1, 128, 64>, dims = array<i64: 1, 256, 256>, element = f16, param = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 64, 64>, dims = array<i64: 1, 256, 256>, element = f16, param = 0 : i64, swizzle = 128 : i64}]} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{finalize-tensor-map-params: tensor map parameter 0 is not a pointer}}
    llvm.func @bad(%x: i32) attributes {nvvm.kernel, tile.tensor_maps = [{box = array<i64: 1, 64, 64>, dims = array<i64: 1, 64, 64>, element = f16, param = 0 : i64, swizzle = 128 : i64}]} {
      llvm.return
    }
  }
}
