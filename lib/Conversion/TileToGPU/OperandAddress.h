//===- OperandAddress.h - element addresses of tensor-core dot operands -*- C++ -*-===//
//
// Shared by the tensor-core lowerings (convert-tile-dot-to-wgmma, convert-tile-dot-to-mma-sync)
// where they gather a dot operand into shared memory themselves (an im2col block of an
// implicit-GEMM convolution, a weight block whose rows break the 16-byte copy granule): the
// global element offset of one element of the operand block and whether it is inside the
// operand (else the lowering stores 0).
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_CONVERSION_TILETOGPU_OPERANDADDRESS_H
#define AICC_LIB_CONVERSION_TILETOGPU_OPERANDADDRESS_H

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"

namespace aicc {

/// The row terms of element (p, *) of `l`'s implicit im2col matrix: they depend on the row p
/// (the output pixel) only, so a gather computes them once per row and reuses them for every
/// column q it copies from that row.
struct Im2ColRow {
  /// i32: the image n, oh * strides[0] - pads[0], ow * strides[1] - pads[1].
  mlir::Value n, ih0, iw0;
  /// i1: 0 <= p < N * OH * OW.
  mlir::Value ok;
};

/// The row terms of row `p` (i32, the absolute row of the implicit matrix) of
/// `tile.im2col_load` `l` (formula: TileOps.td, Tile_Im2ColLoadOp).
Im2ColRow im2colRow(mlir::OpBuilder &b, mlir::Location loc, tile::Im2ColLoadOp l, mlir::Value p);

/// (element offset into `l`'s input buffer, in bounds) of element (p, q) of `l`'s implicit
/// matrix, p given by its row terms `row`, q (i32) the absolute column. In bounds: p and q
/// inside the matrix and the input position (ih, iw) outside the padding; where it is false
/// the offset is meaningless (the caller reads 0 instead). Unsigned splits: exact where the
/// bounds hold, the rest is masked. The offset is i32 (the template checks < 2^31 elements).
std::pair<mlir::Value, mlir::Value> im2colElement(mlir::OpBuilder &b, mlir::Location loc,
                                                  tile::Im2ColLoadOp l, const Im2ColRow &row,
                                                  mlir::Value q);

/// (element offset, in bounds) of element (`row`, `col`) (i32, absolute: block origin
/// included) of matrix `batch` of `tile.block_load` `l`'s buffer (formula: TileOps.td,
/// Tile_BlockLoadOp): (batch * dims[1] + row) * dims[2] + col, in bounds when each coordinate
/// is below its dim (unsigned compares: negative ones are out of bounds too), and `row` below
/// `rows` when given (the load's run-time `rows` operand, mapped into the caller's kernel).
std::pair<mlir::Value, mlir::Value> blockLoadElement(mlir::OpBuilder &b, mlir::Location loc,
                                                     tile::BlockLoadOp l, mlir::Value batch,
                                                     mlir::Value row, mlir::Value col,
                                                     mlir::Value rows = {});

} // namespace aicc

#endif
