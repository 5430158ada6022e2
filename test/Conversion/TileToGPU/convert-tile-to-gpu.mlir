// RUN: aicc-opt %s -split-input-file -convert-tile-to-gpu -verify-diagnostics | FileCheck %s

// Input: bufferized kernels as buildTileBufferizePipeline leaves them (produced from
// test/Tools/Inputs/mlp.mlir with aicc-compile --emit=tile, then convert-tile-to-linalg,
// convert-elementwise-to-linalg, linalg-fuse-elementwise-ops, one-shot-bufferize,
// convert-linalg-to-parallel-loops, canonicalize, cse; then cut down by hand; the kernels
// here only need to be bufferized scf.parallel code, whatever fused them).

// The host plan is untouched and keeps naming @kernels::@softmax, now a gpu.module.
// CHECK-LABEL: module attributes {{{.*}}gpu.container_module}
// CHECK:         func.func @main
// CHECK:           tile.launch @kernels::@softmax(
// CHECK-NOT:     module @kernels
// CHECK:         gpu.module @kernels {

// 4 warps = 128 threads per block; grid from the schedule. Tile buffers become 16-byte
// aligned workgroup attributions. (The pass ends with greedy math-approximation rewrites,
// which also fold and hoist constants and drop dead code.)
// CHECK-LABEL:     gpu.func @softmax
// CHECK-SAME:          (%[[IN:[^:]*]]: memref<6xf32>, %[[OUT:[^:]*]]: memref<6xf32>)
// CHECK-SAME:          workgroup(%[[X:[^ ]*]] : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[MX:[^ ]*]] : memref<f32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME:          kernel
// CHECK-SAME:          known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// CHECK-SAME:          tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4
// CHECK-DAG:         %[[T128:.*]] = arith.constant 128 : index
// CHECK-DAG:         %[[N256:.*]] = arith.constant 256 : index
// CHECK:             %[[TID:.*]] = gpu.thread_id x
// program_id / num_programs -> block_id / grid_dim.
// CHECK-NEXT:        %[[BID:.*]] = gpu.block_id x
// CHECK-NEXT:        %[[PID:.*]] = arith.index_cast %[[BID]] : index to i32
// CHECK-NEXT:        %[[GDIM:.*]] = gpu.grid_dim x
// CHECK-NEXT:        %[[NP:.*]] = arith.index_cast %[[GDIM]] : index to i32
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// scf.parallel over 256 elements -> each thread takes tid, tid + 128, ...; then a barrier.
// CHECK-NEXT:        scf.for %[[I:.*]] = %[[TID]] to %[[N256]] step %[[T128]] {
// CHECK:               memref.load %[[IN]]
// CHECK:               memref.store %{{.*}}, %[[X]][%[[I]]] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// A scalar store at tile level runs on thread 0 only, then a barrier.
// CHECK-NEXT:        %[[Z0:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT:        scf.if %[[Z0]] {
// CHECK-NEXT:          memref.store %{{.*}}, %[[MX]][] : memref<f32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// The sequential reduction loop also runs on thread 0.
// CHECK-NEXT:        %[[Z1:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT:        scf.if %[[Z1]] {
// CHECK-NEXT:          scf.for
// CHECK:                 arith.maxnumf
// CHECK:               }
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// Views of a promoted buffer move to the workgroup address space.
// CHECK-NEXT:        %[[MX1:.*]] = memref.expand_shape %[[MX]] [] output_shape [1] : memref<f32, #gpu.address_space<workgroup>> into memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[LIM:.*]] = arith.cmpi slt, %[[PID]], %[[NP]] : i32
// CHECK-NEXT:        scf.for %{{.*}} = %[[TID]] to %[[N256]] step %[[T128]] {
// CHECK:               memref.load %[[MX1]][%{{.*}}] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK:               %[[OK:.*]] = arith.andi %{{.*}}, %[[LIM]] : i1
// CHECK-NEXT:          scf.if %[[OK]] {
// CHECK-NEXT:            memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<6xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        gpu.return
// CHECK-NOT:         memref.alloc
// CHECK-NOT:         memref.dealloc
// CHECK-NOT:         tile.program_id

// 2-D parallel loops are linearized (last dim fastest) and delinearized per thread; the
// K loop (an scf.for holding parallel work) is run by every thread, its body distributed.
// CHECK-LABEL:     gpu.func @matmul
// CHECK-SAME:          workgroup(%[[ACC:[^ ]*]] : memref<8x8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME:          known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 4>
// CHECK-DAG:         %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:         %[[N56:.*]] = arith.constant 56 : index
// CHECK-DAG:         %[[N64:.*]] = arith.constant 64 : index
// CHECK-DAG:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:             %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT:        %[[BZ:.*]] = gpu.block_id z
// CHECK-NEXT:        %[[PZ:.*]] = arith.index_cast %[[BZ]] : index to i32
// 8 x 8 iterations, 64 threads: one round.
// CHECK-NEXT:        scf.for %[[L:.*]] = %[[TID]] to %[[N64]] step %[[N64]] {
// CHECK-NEXT:          %[[J:.*]] = arith.remui %[[L]], %[[C8]] : index
// CHECK-NEXT:          %[[I:.*]] = arith.divui %[[L]], %[[C8]] : index
// CHECK-NEXT:          memref.store %{{.*}}, %[[ACC]][%[[I]], %[[J]]]
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[C8]] {
// (0, 2) to (8, 16) step (1, 2): 8 x 7 iterations; j = (l mod 7) * 2 + 2.
// CHECK-NEXT:          scf.for %[[L2:.*]] = %[[TID]] to %[[N56]] step %[[N64]] {
// CHECK-NEXT:            %[[R:.*]] = arith.remui %[[L2]], %[[C7]] : index
// CHECK-NEXT:            %[[JS:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK-NEXT:            %[[I2:.*]] = arith.divui %[[L2]], %[[C7]] : index
// CHECK-NEXT:            %[[KZ:.*]] = arith.index_cast %[[PZ]] : i32 to index
// CHECK-NEXT:            %[[KK:.*]] = arith.addi %[[K]], %[[KZ]] : index
// CHECK-NEXT:            memref.load %{{.*}}[%[[KK]]] : memref<64xf32>
// CHECK:                 memref.store %{{.*}}, %[[ACC]][%[[I2]], %{{.*}}]
// CHECK-NEXT:          }
// CHECK-NEXT:          gpu.barrier
// CHECK-NEXT:        }
// CHECK:             scf.if
// CHECK-NEXT:          memref.copy %[[ACC]], %[[ACC]]
// CHECK-NEXT:        }
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        gpu.return
module {
  func.func @main(%arg0: memref<2x3xf32>) -> memref<2x3xf32> {
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
    tile.launch @kernels::@softmax(%arg0, %alloc) : memref<2x3xf32>, memref<2x3xf32>
    return %alloc : memref<2x3xf32>
  }
  module @kernels {
    func.func private @softmax(%in: memref<6xf32>, %out: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [2, 1, 1], num_warps = 4, num_stages = 1, blocks = {BLOCK = 256 : i64}>} {
      %c256 = arith.constant 256 : index
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %ninf = arith.constant 0xFF800000 : f32
      %c3_i32 = arith.constant 3 : i32
      %pid = tile.program_id 0 : i32
      %np = tile.num_programs 0 : i32
      %base = arith.muli %pid, %c3_i32 : i32
      %x = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
      scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
        %i32 = arith.index_cast %i : index to i32
        %off = arith.addi %base, %i32 : i32
        %m = arith.cmpi slt, %i32, %c3_i32 : i32
        %idx = arith.index_cast %off : i32 to index
        %v = scf.if %m -> (f32) {
          %l = memref.load %in[%idx] : memref<6xf32>
          scf.yield %l : f32
        } else {
          scf.yield %ninf : f32
        }
        memref.store %v, %x[%i] : memref<256xf32>
        scf.reduce
      }
      %mx = memref.alloc() {alignment = 64 : i64} : memref<f32>
      memref.store %ninf, %mx[] : memref<f32>
      scf.for %i = %c0 to %c256 step %c1 {
        %a = memref.load %x[%i] : memref<256xf32>
        %b = memref.load %mx[] : memref<f32>
        %c = arith.maxnumf %a, %b : f32
        memref.store %c, %mx[] : memref<f32>
      }
      %mx1 = memref.expand_shape %mx [] output_shape [1] : memref<f32> into memref<1xf32>
      %lim = arith.cmpi slt, %pid, %np : i32
      scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
        %i32 = arith.index_cast %i : index to i32
        %m = arith.cmpi slt, %i32, %c3_i32 : i32
        %a = memref.load %x[%i] : memref<256xf32>
        %b = memref.load %mx1[%c0] : memref<1xf32>
        %d = arith.subf %a, %b : f32
        %off = arith.addi %base, %i32 : i32
        %idx = arith.index_cast %off : i32 to index
        %ok = arith.andi %m, %lim : i1
        scf.if %ok {
          memref.store %d, %out[%idx] : memref<6xf32>
        }
        scf.reduce
      }
      memref.dealloc %x : memref<256xf32>
      return
    }
    func.func private @matmul(%a: memref<64xf32>, %o: memref<64xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 4], num_warps = 2, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %cst = arith.constant 0.0 : f32
      %pidz = tile.program_id 2 : i32
      %acc = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
      scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
        memref.store %cst, %acc[%i, %j] : memref<8x8xf32>
        scf.reduce
      }
      scf.for %k = %c0 to %c16 step %c8 {
        scf.parallel (%i, %j) = (%c0, %c2) to (%c8, %c16) step (%c1, %c2) {
          %kz = arith.index_cast %pidz : i32 to index
          %kk = arith.addi %k, %kz : index
          %v = memref.load %a[%kk] : memref<64xf32>
          %jj = arith.subi %j, %c2 : index
          %jh = arith.divui %jj, %c2 : index
          %p = memref.load %acc[%i, %jh] : memref<8x8xf32>
          %s = arith.addf %p, %v : f32
          memref.store %s, %acc[%i, %jh] : memref<8x8xf32>
          scf.reduce
        }
      }
      memref.copy %acc, %acc : memref<8x8xf32> to memref<8x8xf32>
      return
    }
  }
}

// -----

// exp, tanh and erf become polynomial approximations (no libdevice calls in the PTX).
// CHECK-LABEL: gpu.func @math
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK:         gpu.return
module {
  module @kernels {
    func.func private @math(%in: memref<64xf32>, %out: memref<64xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 2, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
        %x = memref.load %in[%i] : memref<64xf32>
        %e = math.exp %x : f32
        %t = math.tanh %e : f32
        %r = math.erf %t : f32
        memref.store %r, %out[%i] : memref<64xf32>
        scf.reduce
      }
      return
    }
  }
}

// -----

// No @kernels module: nothing to do.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @host_only
// CHECK-NEXT:      return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @host_only() {
  return
}

// -----

module {
  module @kernels {
    // expected-error @+1 {{convert-tile-to-gpu: function without tile.schedule in @kernels}}
    func.func private @no_schedule(%in: memref<6xf32>) {
      return
    }
  }
}

// -----

module {
  module @kernels {
    func.func private @dynamic_bounds(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %p = tile.program_id 0 : i32
      %n = arith.index_cast %p : i32 to index
      // expected-error @+1 {{convert-tile-to-gpu: tile loops must have static bounds}}
      scf.parallel (%i) = (%c0) to (%n) step (%c1) {
        scf.reduce
      }
      return
    }
  }
}

// -----

module {
  module @kernels {
    func.func private @nested_parallel(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %cst = arith.constant 0.0 : f32
      %p = tile.program_id 0 : i32
      %z = arith.constant 0 : i32
      %b = arith.cmpi eq, %p, %z : i32
      // expected-error @+1 {{convert-tile-to-gpu: cannot distribute parallel loops nested in scf.if}}
      scf.if %b {
        scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
          memref.store %cst, %in[%i] : memref<6xf32>
          scf.reduce
        }
      }
      return
    }
  }
}

// -----

module {
  module @kernels {
    func.func private @parallel_reduction(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %cst = arith.constant 0.0 : f32
      // expected-error @+1 {{convert-tile-to-gpu: parallel reductions are not supported}}
      %r = scf.parallel (%i) = (%c0) to (%c6) step (%c1) init (%cst) -> f32 {
        %v = memref.load %in[%i] : memref<6xf32>
        scf.reduce(%v : f32) {
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          scf.reduce.return %s : f32
        }
      }
      return
    }
  }
}

// -----

module {
  module @kernels {
    func.func private @dynamic_alloc(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %c6 = arith.constant 6 : index
      // expected-error @+1 {{convert-tile-to-gpu: tile buffers must have static shapes}}
      %a = memref.alloc(%c6) : memref<?xf32>
      return
    }
  }
}

// -----

module {
  module @kernels {
    func.func private @write_with_result(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      // expected-error @+1 {{convert-tile-to-gpu: a memory-writing op with results cannot be run on one thread}}
      %r = memref.atomic_rmw addf %one, %in[%c0] : (f32, memref<6xf32>) -> f32
      return
    }
  }
}

// -----

// Tile buffers live in static shared memory, at most 48 KiB per kernel: 2 x 32 KiB is too much.
module {
  module @kernels {
    // expected-error @+1 {{convert-tile-to-gpu: kernel @too_much_shared needs 65536 bytes of shared memory for its tile buffers, over the 48 KiB static limit; use smaller block sizes}}
    func.func private @too_much_shared(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %a = memref.alloc() : memref<8192xf32>
      %b = memref.alloc() : memref<64x128xf32>
      return
    }
  }
}

// -----

// Exactly 48 KiB is fine; i1 buffers take a byte per element, and each buffer is padded to 16.
// CHECK-LABEL: gpu.func @just_fits
// CHECK-SAME:      workgroup(%{{.*}} : memref<12284xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<1xi1, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
module {
  module @kernels {
    func.func private @just_fits(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %a = memref.alloc() : memref<12284xf32>
      %b = memref.alloc() : memref<1xi1>
      return
    }
  }
}

// -----

module {
  module @kernels {
    // expected-error @+1 {{convert-tile-to-gpu: kernel @just_too_much needs 49168 bytes}}
    func.func private @just_too_much(%in: memref<6xf32>) attributes {tile.schedule = #tile.schedule<grid = [1, 1, 1], num_warps = 1, num_stages = 1, blocks = {}>} {
      %a = memref.alloc() : memref<12285xf32>
      %b = memref.alloc() : memref<1xi1>
      return
    }
  }
}
