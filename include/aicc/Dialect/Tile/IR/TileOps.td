//===- TileOps.td - aicc tile dialect ops ------------------*- tablegen -*-===//
#ifndef AICC_DIALECT_TILE_IR_TILEOPS_TD
#define AICC_DIALECT_TILE_IR_TILEOPS_TD

include "aicc/Dialect/Tile/IR/TileDialect.td"
include "aicc/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_I32Tensor : RankedTensorOf<[I32]>;
def Tile_I1Tensor : RankedTensorOf<[I1]>;
def Tile_GlobalBuffer : MemRefRankOf<[AnyType], [1]>;

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program instance along a grid axis (CUDA blockIdx)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of program instances along a grid axis (CUDA gridDim)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "1-D tile [start, start+1, ..., end-1] of i32";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs Tile_I32Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"element type matches", "result", "src",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "tile with every element equal to a scalar";
  let arguments = (ins AnyType:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "stretch size-1 dims of a tile to the result shape (same rank)";
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a size-1 dim at `axis`";
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SwapPairsOp : Tile_Op<"swap_pairs", [Pure, SameOperandsAndResultType]> {
  let summary = "exchange the elements of each adjacent pair along the last dim";
  let description = [{
    result[..., j] = src[..., j ^ 1]: elements 2i and 2i + 1 of the last dim (even size)
    trade places. A GEMM epilogue reads a product's column pairs with it: SwiGLU's gate and
    up projections as one product of interleaved weight columns (gate j at column 2j, up j
    at 2j + 1), silu(acc) * swap_pairs(acc) at the even columns. On the tensor-core paths
    it costs nothing: both MMA accumulator layouts give a thread adjacent column pairs in
    registers 2i, 2i + 1 (AccumulatorEpilogue.h).
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "gather a tile from global memory at element offsets, under a mask";
  let description = [{
    result[i] = mask[i] ? ptr[offsets[i]] : padding. `ptr` is a flat 1-D buffer; offsets are in
    elements. Without a mask every offset must be in bounds. `padding` (Triton's `other`)
    defaults to zero.

    ```mlir
    %x = tile.load %ptr[%offs], %mask {padding = 0.0 : f32} : memref<4096xf32>, tensor<1024xi32>, tensor<1024xi1> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins Tile_GlobalBuffer:$ptr, Tile_I32Tensor:$offsets,
                   Optional<Tile_I1Tensor>:$mask, OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` (`,` $mask^)? attr-dict `:` type($ptr) `,` type($offsets) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "scatter a tile to global memory at element offsets, under a mask";
  let arguments = (ins Tile_GlobalBuffer:$ptr, Tile_I32Tensor:$offsets, Tile_Tensor:$value,
                   Optional<Tile_I1Tensor>:$mask);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `,` $value (`,` $mask^)? attr-dict `:` type($ptr) `,` type($offsets) `,` type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_BlockLoadOp : Tile_Op<"block_load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "load a 2-D block of a batch of row-major matrices, zero outside (TMA-shaped)";
  let description = [{
    `ptr` holds `dims[0]` row-major matrices of `dims[1]` rows x `dims[2]` columns, stored one
    after the other (flat, batch outermost; the buffer holds at least dims[0]*dims[1]*dims[2]
    elements). The op reads the [BR, BC] block whose top-left element is (`row`, `col`) of
    matrix `batch`; elements outside the matrix (any coordinate < 0 or >= its dim, or `batch`
    outside [0, dims[0])) read as zero. Without `transpose` the result is that block
    ([BR, BC]); with `transpose` it is the block transposed ([BC, BR]):

      v(i, j)  = in bounds ? ptr[(batch * dims[1] + row + i) * dims[2] + col + j] : 0
      result[i, j] = v(i, j)        (no transpose, result [BR, BC])
      result[j, i] = v(i, j)        (transpose,    result [BC, BR])

    This is the shape of one Hopper TMA box load (cp.async.bulk.tensor with a 3-D tensor map
    of dims {dims[2], dims[1], dims[0]} innermost first, out-of-bounds fill zero), the way
    tile.dot operands are fed on sm_90a; other targets expand it to tile.load with offsets and
    a mask (tile-expand-block-loads). Coordinates are elements.

    `rows` (optional, i32): the number of rows of each matrix that hold data in this run
    (bounded symbolic dims, docs/symbolic-shapes.md: the buffers are laid out for dims[1]
    rows, a run fills the first `rows`). Rows at or past it read as zero, as if dims[1] were
    `rows` for the bounds while the matrices stay dims[1] rows apart:

      in bounds = batch < dims[0], 0 <= row + i < min(rows, dims[1]), 0 <= col + j < dims[2]

    A value outside [0, dims[1]] is undefined behaviour; the kernel that computes it reads it
    from the session's symbol values, which the runtime checks against the symbol's range.

    ```mlir
    %a = tile.block_load %A[%b, %m0, %k0] {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16> -> tensor<128x64xf16>
    %v = tile.block_load %V[%b, %n0, %c0] rows %skv {dims = array<i64: 4, 2048, 64>} : memref<524288xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_GlobalBuffer:$ptr, I32:$batch, I32:$row, I32:$col,
                   Optional<I32>:$rows, DenseI64ArrayAttr:$dims, UnitAttr:$transpose);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr `[` $batch `,` $row `,` $col `]` (`rows` $rows^)? attr-dict `:` type($ptr) `->` type($result)
  }];
  let builders = [
    // Every row of the matrices holds data (no `rows` operand).
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$ptr, "::mlir::Value":$batch,
                   "::mlir::Value":$row, "::mlir::Value":$col,
                   "::llvm::ArrayRef<int64_t>":$dims, CArg<"bool", "false">:$transpose), [{
      build($_builder, $_state, result, ptr, batch, row, col, ::mlir::Value(), dims, transpose);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_Im2ColLoadOp : Tile_Op<"im2col_load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "load a block of the implicit im2col matrix of a 2-D convolution input";
  let description = [{
    Implicit-GEMM convolution (the im2col formulation of "cuDNN: Efficient Primitives for
    Deep Learning", Chetlur et al. 2014, section 3, without materializing the matrix): a 2-D
    convolution with group 1 is the GEMM Y[P, M] = A[P, K] x W[K, M] over the output pixels
    P = N * OH * OW (p = (n, oh, ow), row-major) and the reduction K = C * KH * KW. This op
    reads the [BR, BC] block of A whose top-left element is (`row`, `col`); elements outside
    A, or whose input position lies in the padding, read as zero:

      p = row + i, q = col + j, 0 <= p < N*OH*OW, 0 <= q < C*KH*KW
      (n, oh, ow) = p split over [N, OH, OW]
      layout NCHW: (c, kh, kw) = q split over [C, KH, KW]   (ONNX weight [M, C, KH, KW])
      layout NHWC: (kh, kw, c) = q split over [KH, KW, C]   (weight [M, KH, KW, C], OHWI)
      ih = oh * strides[0] - pads[0] + kh * dilations[0]    (iw likewise with index 1)
      result[i, j] = 0 <= ih < H and 0 <= iw < W ? X[n, c, ih, iw] : 0

    `input` gives the logical input sizes [N, C, H, W] in that order for both layouts;
    `layout` says how `ptr` stores them (NCHW: ((n*C + c)*H + ih)*W + iw, NHWC:
    ((n*H + ih)*W + iw)*C + c, elements). `pads` are the begin pads (the end pads only shape
    `output`). Tensor-core lowerings gather this block into shared memory (16-byte vectors
    where 8 f16 / 4 f32 consecutive q are contiguous: NHWC with C a multiple of them); other
    targets expand it into a masked tile.load (tile-expand-block-loads).

    ```mlir
    %a = tile.im2col_load %X[%p0, %k0] {input = array<i64: 8, 64, 56, 56>, layout = "NHWC",
           kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1>,
           dilations = array<i64: 1, 1>, output = array<i64: 56, 56>}
           : memref<1605632xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_GlobalBuffer:$ptr, I32:$row, I32:$col,
                   DenseI64ArrayAttr:$input, StrAttr:$layout, DenseI64ArrayAttr:$kernel,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$output);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $ptr `[` $row `,` $col `]` attr-dict `:` type($ptr) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isNHWC() { return getLayout() == "NHWC"; }
    /// Rows of the implicit matrix (N * OH * OW) and its columns (C * KH * KW).
    int64_t getNumRows() { return getInput()[0] * getOutput()[0] * getOutput()[1]; }
    int64_t getNumCols() { return getInput()[1] * getKernel()[0] * getKernel()[1]; }
  }];
}

def Tile_BlockStoreOp : Tile_Op<"block_store", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "store a 2-D block into a batch of row-major matrices, clipped (TMA-shaped)";
  let description = [{
    The mirror of `tile.block_load`. `ptr` holds `dims[0]` row-major matrices of `dims[1]`
    rows x `dims[2]` columns, stored one after the other (flat, batch outermost; the buffer
    holds at least dims[0]*dims[1]*dims[2] elements). The op writes the [BR, BC] tile `value`
    (without `transpose`) or its transpose [BC, BR] (with `transpose`) as the block whose
    top-left element is (`row`, `col`) of matrix `batch`; elements that fall outside the
    matrix (any coordinate < 0 or >= its dim, or `batch` outside [0, dims[0])) are not
    written:

      ptr[(batch * dims[1] + row + i) * dims[2] + col + j] = value[i, j]   (no transpose)
      ptr[(batch * dims[1] + row + j) * dims[2] + col + i] = value[i, j]   (transpose)
                                                                            where in bounds

    This is the shape of one Hopper TMA box store (cp.async.bulk.tensor shared::cta ->
    global with a 3-D tensor map of dims {dims[2], dims[1], dims[0]} innermost first, which
    clips out-of-bounds elements), the way the sm_90a matmul epilogue writes its tile (a
    transposed store is staged in shared memory transposed: the NCHW implicit-GEMM conv
    output, whose [pixels, channels] tile is a [channels, pixels] block of an image); other
    targets expand it to a masked tile.store with offsets (tile-expand-block-loads).
    Coordinates are elements; they may be negative (the elements there are not written).

    ```mlir
    tile.block_store %C[%b, %m0, %n0], %acc {dims = array<i64: 1, 4096, 4096>} : memref<16777216xf16>, tensor<128x128xf16>
    // The [128 pixels, 64 channels] tile of an NCHW conv as rows oc0.. of image %img at
    // column (pixel) %p0 of its [OC = 256, OH*OW = 3136] matrix.
    tile.block_store %Y[%img, %oc0, %p0], %y {dims = array<i64: 8, 256, 3136>, transpose} : memref<6422528xf16>, tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_GlobalBuffer:$ptr, I32:$batch, I32:$row, I32:$col,
                   Tile_Tensor:$value, DenseI64ArrayAttr:$dims, UnitAttr:$transpose);
  let assemblyFormat = [{
    $ptr `[` $batch `,` $row `,` $col `]` `,` $value attr-dict `:` type($ptr) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_InputPrecision : I32EnumAttr<"InputPrecision", "dot input precision", [
  I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>]> {
  let cppNamespace = "::aicc::tile";
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "tile matrix multiply-accumulate: acc + a @ b";
  let description = [{
    a: [M, K], b: [K, N], acc: [M, N] -> [M, N]. Products are accumulated in acc's element
    type (f32 for f16/bf16/f32 inputs). `input_precision = tf32` lets the GPU path round f32
    inputs to tf32 on tensor cores; `ieee` (default) is exact f32 math.
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc,
                   DefaultValuedAttr<Tile_InputPrecision, "::aicc::tile::InputPrecision::ieee">:$input_precision);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`input_precision` `=` $input_precision^)? attr-dict `:` type($a) `,`
    type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>,
  I32EnumAttrCase<"mul", 3>]> {
  let cppNamespace = "::aicc::tile";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one axis with an associative combiner";
  let description = [{
    The result drops dim `axis`. `max`/`min` propagate NaN on floats (IEEE 754-2019
    maximum / minimum, arith.maximumf / minimumf; docs/numerics.md).
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis, Tile_ReduceKind:$kind);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LaunchOp : Tile_Op<"launch", [MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "host plan: run a tile kernel over its schedule's grid";
  let description = [{
    Appears in the host function made by convert-graph-to-tile. Buffers are passed in the
    kernel's parameter order; each must hold exactly as many elements as the kernel's
    matching flat parameter (the runtime passes its base address).

    ```mlir
    tile.launch @kernels::@fused_0(%x, %w, %y) : memref<2x4xf32>, memref<4x3xf32>, memref<2x3xf32>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<AnyStaticShapeMemRef>:$buffers);
  let assemblyFormat = "$kernel `(` $buffers `)` attr-dict (`:` type($buffers)^)?";
}

#endif
