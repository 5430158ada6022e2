// RUN: aicc-opt %s -split-input-file -tile-cpu-emit-entry-points -verify-diagnostics | FileCheck %s

// K_entry(void **args, int64_t pid[3], int64_t grid[3]) loads the buffer pointers and the
// ids and calls K. K keeps its tile.cpu_kernel tag (the bundle writer reads it); the entry
// point has none.

// CHECK-LABEL: llvm.func @k(
// CHECK-SAME:      attributes {tile.cpu_kernel = 2 : i64}
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @not_kernel(
// CHECK-LABEL: llvm.func @k_entry(
// CHECK-SAME:      %[[ARGS:[^:]*]]: !llvm.ptr, %[[PID:[^:]*]]: !llvm.ptr, %[[GRID:[^:]*]]: !llvm.ptr) {{{$}}
// CHECK-NEXT:    %[[A0P:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A0:.*]] = llvm.load %[[A0P]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[A1P:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A1:.*]] = llvm.load %[[A1P]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P0P:.*]] = llvm.getelementptr %[[PID]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[P0:.*]] = llvm.load %[[P0P]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P1P:.*]] = llvm.getelementptr %[[PID]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[P1:.*]] = llvm.load %[[P1P]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P2P:.*]] = llvm.getelementptr %[[PID]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[P2:.*]] = llvm.load %[[P2P]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[G0P:.*]] = llvm.getelementptr %[[GRID]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[G0:.*]] = llvm.load %[[G0P]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[G1P:.*]] = llvm.getelementptr %[[GRID]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[G1:.*]] = llvm.load %[[G1P]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[G2P:.*]] = llvm.getelementptr %[[GRID]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[G2:.*]] = llvm.load %[[G2P]] : !llvm.ptr -> i64
// CHECK-NEXT:    llvm.call @k(%[[A0]], %[[A1]], %[[P0]], %[[P1]], %[[P2]], %[[G0]], %[[G1]], %[[G2]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NOT:   llvm.func @not_kernel_entry
module {
  llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr, %p0: i64, %p1: i64, %p2: i64, %g0: i64, %g1: i64, %g2: i64) attributes {tile.cpu_kernel = 2 : i64} {
    llvm.return
  }
  llvm.func @not_kernel(%a: !llvm.ptr) {
    llvm.return
  }
}

// -----

// A kernel lowered without bare pointers (memref descriptors) is rejected.
module {
  // expected-error @+1 {{tile-cpu-emit-entry-points: expected 2 pointer params + 6 i64 (pid, grid); lower with bare pointers}}
  llvm.func @descriptors(%a: !llvm.ptr, %b: !llvm.ptr) attributes {tile.cpu_kernel = 2 : i64} {
    llvm.return
  }
}
