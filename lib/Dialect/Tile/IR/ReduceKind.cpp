//===- ReduceKind.cpp - tile.reduce's identities and combiners ---------------===//
//
// The one definition of what a tile.reduce kind means, used by every lowering of it
// (convert-tile-to-linalg, convert-tile-to-gpu-registers) and by the graph -> tile
// templates that combine partial tiles themselves.
//
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;
using namespace aicc::tile;

double aicc::tile::reduceIdentityValue(ReduceKind kind) {
  double inf = std::numeric_limits<double>::infinity();
  switch (kind) {
  case ReduceKind::add:
    return 0.0;
  case ReduceKind::mul:
    return 1.0;
  case ReduceKind::max:
    return -inf;
  case ReduceKind::min:
    return inf;
  }
  return 0.0;
}

TypedAttr aicc::tile::reduceIdentity(Builder &b, ReduceKind kind, Type elem) {
  if (isa<FloatType>(elem))
    return b.getFloatAttr(elem, reduceIdentityValue(kind));
  unsigned w = elem.getIntOrFloatBitWidth();
  switch (kind) {
  case ReduceKind::add:
    return b.getIntegerAttr(elem, 0);
  case ReduceKind::mul:
    return b.getIntegerAttr(elem, 1);
  case ReduceKind::max:
    return b.getIntegerAttr(elem, APInt::getSignedMinValue(w));
  case ReduceKind::min:
    return b.getIntegerAttr(elem, APInt::getSignedMaxValue(w));
  }
  return {};
}

Value aicc::tile::reduceCombine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  bool f = isa<FloatType>(getElementTypeOrSelf(x.getType()));
  switch (kind) {
  case ReduceKind::add:
    return f ? arith::AddFOp::create(b, loc, x, y).getResult()
             : arith::AddIOp::create(b, loc, x, y).getResult();
  case ReduceKind::mul:
    return f ? arith::MulFOp::create(b, loc, x, y).getResult()
             : arith::MulIOp::create(b, loc, x, y).getResult();
  case ReduceKind::max:
    return f ? arith::MaximumFOp::create(b, loc, x, y).getResult()
             : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case ReduceKind::min:
    return f ? arith::MinimumFOp::create(b, loc, x, y).getResult()
             : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  return {};
}
