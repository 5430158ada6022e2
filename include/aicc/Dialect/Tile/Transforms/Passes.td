//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//
#ifndef AICC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define AICC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileFuseElementwise : Pass<"tile-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg ops of tile kernels, recomputing cheap producers";
  let description = [{
    Runs after convert-tile-to-linalg / convert-elementwise-to-linalg. Like upstream
    linalg-fuse-elementwise-ops, but a producer with several users is also fused into each of
    them when it is cheap to recompute: its body reads no memory (index and mask
    arithmetic, splats, broadcasts). Such values then never become tile buffers (shared
    memory on the GPU). Producers that load from memory are fused only into their single user.
    Finally, a parallel generic that an scf.for yields, reading the loop's accumulator at the
    identity map and writing a fresh tensor.empty, is made to write the accumulator in place
    (so bufferization keeps one buffer per loop-carried tile).

    ```mlir
    %offs = linalg.generic ... { index arithmetic }    // used by a load and by a mask
    // after: each user computes the offsets inline; %offs disappears
    ```
  }];
  let dependentDialects = ["mlir::affine::AffineDialect", "mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"];
}

def TileExpandBlockLoads : Pass<"tile-expand-block-loads", "mlir::func::FuncOp"> {
  let summary = "Expand tile.block_load / tile.im2col_load into tile.load with offsets and a mask";
  let description = [{
    For targets without a block-load unit (the CPU, GPUs before sm_90a, and sm_90a kernels
    the TMA path does not take): each `tile.block_load` becomes the element offsets
    `(batch * dims[1] + row + i) * dims[2] + col + j` (i32), a mask that holds where
    `0 <= row + i < dims[1]`, `0 <= col + j < dims[2]` and `0 <= batch < dims[0]`, and a
    `tile.load` that reads zero where the mask is off. A transposed block is built directly in
    its transposed [BC, BR] shape: the row index runs along dim 1, the column index along
    dim 0. The index tiles [0, n) placed along a dim (make_range, expand_dims, broadcast)
    are built in the function body before the loop that holds the block load and shared by
    all block loads of the function; per load only splat(row / col) is added to them, which
    the bufferizing lowerings fuse into the load. Each range check is one unsigned compare
    (`x ult d` is `0 <= x < d` for i32 x and 0 < d < 2^31); checks that hold for every element
    (a constant coordinate whose block lies inside the matrix) are left out. A block_load whose matrices hold 2^31 elements or more
    cannot be addressed with i32 offsets: the pass fails on it.

    A `tile.im2col_load` (implicit-GEMM convolution) becomes its description's gather: the
    pixel p = row + i and reduction index q = col + j split (unsigned division by constants)
    into (n, oh, ow) and (c, kh, kw) (NHWC: (kh, kw, c)), the input position
    ih = oh * stride - pad + kh * dilation (iw likewise), the NCHW or NHWC offset, and the mask
    p < N*OH*OW, q < C*KH*KW, ih < H, iw < W (unsigned compares, also false below zero).

    ```mlir
    %a = tile.block_load %A[%b, %m0, %k0] {dims = array<i64: 2, 100, 40>} : memref<8000xf32> -> tensor<32x16xf32>
    // after (abridged; %i, %j: [0, 32) along dim 0 and [0, 16) along dim 1, [32, 16] each):
    %r = arith.addi %i, %splat_m0 : tensor<32x16xi32>              // row + i
    %c = arith.addi %j, %splat_k0 : tensor<32x16xi32>              // col + j
    %offs = (%r * 40 + %c) + splat(%b * 4000) : tensor<32x16xi32>
    %mask = (%r ult 100) & (%c ult 40) & splat(%b ult 2) : tensor<32x16xi1>
    %a = tile.load %A[%offs], %mask {padding = 0.0 : f32} : memref<8000xf32>, tensor<32x16xi32>, tensor<32x16xi1> -> tensor<32x16xf32>
    ```

    `tile.block_store` (the mirror op) becomes a `tile.store` of its value at the same
    offsets under the same mask: elements outside the matrix are not written (what a TMA
    store clips). The same 2^31-element limit applies.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

#endif
