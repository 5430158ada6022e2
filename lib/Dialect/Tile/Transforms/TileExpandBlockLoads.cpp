//===- TileExpandBlockLoads.cpp - block_load/store, im2col_load -> load/store ===//
//
// Targets without a block-load unit read a tile.block_load as a gather: i32 element offsets
// and an in-bounds mask over the block, then a masked tile.load that pads with zero. The
// formula is the one of the op's description (TileOps.td):
//   v(i, j) = in bounds ? ptr[(batch * dims[1] + row + i) * dims[2] + col + j] : 0
// evaluated as (row + i) * dims[2] + (col + j) + batch * dims[1] * dims[2], the order the
// matmul template used before it emitted block loads. A tile.block_store becomes a tile.store
// at the same offsets (a transposed one with the tile's dims swapped), masked where the
// block leaves the matrix (what TMA clips).
//===----------------------------------------------------------------------===//
#include "aicc/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <optional>
#include <string>

namespace aicc::tile {
#define GEN_PASS_DEF_TILEEXPANDBLOCKLOADS
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace aicc::tile

using namespace mlir;
using namespace aicc::tile;

namespace {

/// Why `op` cannot be expanded, or nullopt when it can.
std::optional<std::string> whyNotExpandable(BlockLoadOp op) {
  ArrayRef<int64_t> dims = op.getDims();
  if (dims.size() != 3)
    return std::string("dims must have 3 entries");
  constexpr int64_t kLimit = int64_t(1) << 31;
  // Each dim is below 2^31 (verifier): dims[0] * dims[1] fits int64; check before the third.
  int64_t rowsTotal = dims[0] * dims[1];
  if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || rowsTotal >= kLimit ||
      rowsTotal * dims[2] >= kLimit)
    return "its matrices (dims [" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) +
           ", " + std::to_string(dims[2]) +
           "]) hold 2^31 elements or more, beyond tile.load's i32 offsets";
  Type elem = op.getType().getElementType();
  if (!isa<FloatType, IntegerType>(elem))
    return std::string("tile.load pads only float and integer tiles with zero");
  return std::nullopt;
}

/// True when the coordinates start, ..., start + n - 1 are all inside [0, dim): `start` is a
/// constant and the run fits.
bool knownInBounds(Value start, int64_t n, int64_t dim) {
  APInt c;
  if (!matchPattern(start, m_ConstantInt(&c)))
    return false;
  int64_t s = c.getSExtValue();
  return s >= 0 && s + n <= dim;
}

/// The op of the function body (the entry block of the region, around `op`, whose parent is
/// isolated from above) that is or contains `op`: values built before it dominate `op` when
/// they use no other values.
Operation *outermostAncestor(Operation *op) {
  Region *region = op->getParentRegion();
  while (Operation *parent = region->getParentOp()) {
    if (parent->hasTrait<OpTrait::IsIsolatedFromAbove>() || !parent->getParentRegion())
      break;
    region = parent->getParentRegion();
  }
  return region->front().findAncestorOpInBlock(*op);
}

/// The i32 tile of `shape` whose element (i0, i1) is i_d (make_range [0, shape[d]),
/// expand_dims, broadcast when the other dim is not 1), built in the function body before
/// `at` (see outermostAncestor), out of any loop. Reuses the pieces of such a chain found
/// there before `at`, so the block loads of a function share their index tiles.
Value getOrCreateIndexTile(PatternRewriter &rewriter, Operation *at, Location loc,
                           ArrayRef<int64_t> shape, unsigned d) {
  Block *body = at->getBlock();
  auto usable = [&](Operation *o) { return o->getBlock() == body && o->isBeforeInBlock(at); };
  int64_t n = shape[d];
  Type i32 = rewriter.getI32Type();
  auto rangeType = RankedTensorType::get({n}, i32);
  SmallVector<int64_t> expanded{n, n};
  expanded[1 - d] = 1;
  auto expandedType = RankedTensorType::get(expanded, i32);
  auto tileType = RankedTensorType::get(shape, i32);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(at);

  MakeRangeOp range;
  for (auto r : body->getOps<MakeRangeOp>())
    if (usable(r) && r.getType() == rangeType && r.getStart() == 0) {
      range = r;
      break;
    }
  if (!range)
    range = MakeRangeOp::create(rewriter, loc, rangeType, rewriter.getI32IntegerAttr(0),
                                rewriter.getI32IntegerAttr(n));
  ExpandDimsOp ed;
  for (Operation *u : range->getUsers())
    if (auto e = dyn_cast<ExpandDimsOp>(u);
        e && usable(e) && e.getType() == expandedType &&
        static_cast<int32_t>(e.getAxis()) == static_cast<int32_t>(1 - d)) {
      ed = e;
      break;
    }
  if (!ed)
    ed =
        ExpandDimsOp::create(rewriter, loc, expandedType, range, rewriter.getI32IntegerAttr(1 - d));
  if (expandedType == tileType)
    return ed;
  for (Operation *u : ed->getUsers())
    if (auto bc = dyn_cast<BroadcastOp>(u); bc && usable(bc) && bc.getType() == tileType)
      return bc;
  return BroadcastOp::create(rewriter, loc, tileType, ed);
}

/// The element offsets and in-bounds mask (null when every element is in bounds) of tile
/// element (i, j) of a `shape` tile loaded or stored as the block at (`row`, `col`) of matrix
/// `batch` (the op description's formula), untransposed (r, c) = (i, j) or transposed (r, c) = (j,
/// i):
///   offset(i, j) = (row + r) * dims[2] + (col + c) + batch * dims[1] * dims[2]
///   mask(i, j)   = (row + r) ult dims[1] & (col + c) ult dims[2] & batch ult dims[0]
///                  [& (row + r) ult rowLimit: a block load's run-time `rows`]
/// for the block loads and stores alike (shared index tiles, unsigned compares, checks that
/// hold everywhere left out).
std::pair<Value, Value> blockOffsetsAndMask(PatternRewriter &rewriter, Operation *op,
                                            ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                                            Value batch, Value row, Value col, bool transpose,
                                            Value rowLimit = {}) {
  Location loc = op->getLoc();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  auto splat = [&](Value scalar, Type elem) -> Value {
    return SplatOp::create(rewriter, loc, RankedTensorType::get(shape, elem), scalar);
  };
  // The block's row index runs along tile dim rowDim (1 when transposed).
  unsigned rowDim = transpose ? 1 : 0, colDim = transpose ? 0 : 1;
  Operation *at = outermostAncestor(op);
  Value rowIndex = getOrCreateIndexTile(rewriter, at, loc, shape, rowDim);
  Value colIndex = getOrCreateIndexTile(rewriter, at, loc, shape, colDim);
  auto shifted = [&](Value index, Value start) -> Value {
    if (isConstantIntValue(start, 0))
      return index;
    return arith::AddIOp::create(rewriter, loc, index, splat(start, i32));
  };
  Value rows = shifted(rowIndex, row);
  Value cols = shifted(colIndex, col);
  Value numCols = splat(constant(dims[2]), i32);
  Value offsets = rows;
  if (dims[2] != 1)
    offsets = arith::MulIOp::create(rewriter, loc, offsets, numCols);
  offsets = arith::AddIOp::create(rewriter, loc, offsets, cols);
  if (!isConstantIntValue(batch, 0)) {
    Value base = arith::MulIOp::create(rewriter, loc, batch, constant(dims[1] * dims[2]));
    offsets = arith::AddIOp::create(rewriter, loc, offsets, splat(base, i32));
  }
  Value mask;
  auto andMask = [&](Value m) {
    mask = mask ? arith::AndIOp::create(rewriter, loc, mask, m).getResult() : m;
  };
  if (!knownInBounds(row, shape[rowDim], dims[1]))
    andMask(arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, rows,
                                  splat(constant(dims[1]), i32)));
  if (rowLimit)
    andMask(arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, rows,
                                  splat(rowLimit, i32)));
  if (!knownInBounds(col, shape[colDim], dims[2]))
    andMask(arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, cols, numCols));
  if (!knownInBounds(batch, 1, dims[0])) {
    Value inBatch =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, batch, constant(dims[0]));
    andMask(splat(inBatch, rewriter.getI1Type()));
  }
  return {offsets, mask};
}

struct ExpandBlockLoad : OpRewritePattern<BlockLoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BlockLoadOp op, PatternRewriter &rewriter) const override {
    if (auto why = whyNotExpandable(op))
      return rewriter.notifyMatchFailure(op, *why);
    RankedTensorType resultType = op.getType();
    auto [offsets, mask] =
        blockOffsetsAndMask(rewriter, op, resultType.getShape(), op.getDims(), op.getBatch(),
                            op.getRow(), op.getCol(), op.getTranspose(), op.getRows());
    Type elem = resultType.getElementType();
    TypedAttr zero = isa<FloatType>(elem) ? TypedAttr(rewriter.getFloatAttr(elem, 0.0))
                                          : TypedAttr(rewriter.getIntegerAttr(elem, 0));
    rewriter.replaceOpWithNewOp<LoadOp>(op, resultType, op.getPtr(), offsets, mask,
                                        mask ? zero : TypedAttr());
    return success();
  }
};

/// tile.im2col_load -> the masked gather of its description (TileOps.td): per element the
/// pixel p = row + i and reduction index q = col + j are split into (n, oh, ow) and
/// (c, kh, kw), the input position is checked against the input (the padding reads zero) and
/// the NCHW or NHWC offset is formed. Indices are nonnegative wherever the mask holds, so
/// the splits use unsigned division (masked-off lanes compute garbage offsets they never
/// read).
struct ExpandIm2ColLoad : OpRewritePattern<Im2ColLoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Im2ColLoadOp op, PatternRewriter &rewriter) const override {
    Type elem = op.getType().getElementType();
    if (!isa<FloatType, IntegerType>(elem))
      return rewriter.notifyMatchFailure(op, "tile.load pads only float and integer tiles");
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getType().getShape();
    Type i32 = rewriter.getI32Type();
    auto tileOf = [&](Type e) { return RankedTensorType::get(shape, e); };
    auto cst = [&](int64_t v) -> Value {
      return SplatOp::create(rewriter, loc, tileOf(i32),
                             arith::ConstantIntOp::create(rewriter, loc, i32, v));
    };
    auto add = [&](Value a, Value b) -> Value {
      return arith::AddIOp::create(rewriter, loc, a, b);
    };
    auto mul = [&](Value a, int64_t c) -> Value {
      return c == 1 ? a : arith::MulIOp::create(rewriter, loc, a, cst(c)).getResult();
    };
    auto div = [&](Value a, int64_t c) -> Value {
      return c == 1 ? a : arith::DivUIOp::create(rewriter, loc, a, cst(c)).getResult();
    };
    auto rem = [&](Value a, int64_t c) -> Value {
      return c == 1 ? cst(0) : arith::RemUIOp::create(rewriter, loc, a, cst(c)).getResult();
    };
    auto below = [&](Value a, int64_t c) -> Value {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, a, cst(c));
    };
    auto shifted = [&](Value index, Value start) -> Value {
      if (isConstantIntValue(start, 0))
        return index;
      return add(index, SplatOp::create(rewriter, loc, tileOf(i32), start));
    };
    Operation *at = outermostAncestor(op);
    Value p = shifted(getOrCreateIndexTile(rewriter, at, loc, shape, 0), op.getRow());
    Value q = shifted(getOrCreateIndexTile(rewriter, at, loc, shape, 1), op.getCol());
    ArrayRef<int64_t> in = op.getInput(), k = op.getKernel(), out = op.getOutput();
    int64_t C = in[1], H = in[2], W = in[3], OH = out[0], OW = out[1], KH = k[0], KW = k[1];
    Value n = div(p, OH * OW), pix = rem(p, OH * OW);
    Value oh = div(pix, OW), ow = rem(pix, OW);
    Value c, kh, kw;
    if (op.isNHWC()) {
      kh = div(q, KW * C);
      Value r = rem(q, KW * C);
      kw = div(r, C);
      c = rem(r, C);
    } else {
      c = div(q, KH * KW);
      Value r = rem(q, KH * KW);
      kh = div(r, KW);
      kw = rem(r, KW);
    }
    auto position = [&](Value o, Value kk, int d) -> Value {
      Value pos = add(mul(o, op.getStrides()[d]), mul(kk, op.getDilations()[d]));
      int64_t pad = op.getPads()[d];
      return pad ? arith::SubIOp::create(rewriter, loc, pos, cst(pad)).getResult() : pos;
    };
    Value ih = position(oh, kh, 0), iw = position(ow, kw, 1);
    Value mask = below(p, op.getNumRows());
    for (Value m : {below(q, op.getNumCols()), below(ih, H), below(iw, W)})
      mask = arith::AndIOp::create(rewriter, loc, mask, m);
    Value offsets = op.isNHWC() ? add(mul(add(mul(add(mul(n, H), ih), W), iw), C), c)
                                : add(mul(add(mul(add(mul(n, C), c), H), ih), W), iw);
    TypedAttr zero = isa<FloatType>(elem) ? TypedAttr(rewriter.getFloatAttr(elem, 0.0))
                                          : TypedAttr(rewriter.getIntegerAttr(elem, 0));
    rewriter.replaceOpWithNewOp<LoadOp>(op, op.getType(), op.getPtr(), offsets, mask, zero);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tile.block_store -> masked tile.store
//===----------------------------------------------------------------------===//

/// Why block store `op` cannot be expanded, or nullopt when it can: its offsets must fit i32
/// (the dims check of whyNotExpandable(BlockLoadOp); a store needs no padding value).
std::optional<std::string> whyNotExpandable(BlockStoreOp op) {
  ArrayRef<int64_t> dims = op.getDims();
  if (dims.size() != 3)
    return std::string("dims must have 3 entries");
  constexpr int64_t kLimit = int64_t(1) << 31;
  int64_t rowsTotal = dims[0] * dims[1]; // each dim < 2^31 (verifier): no int64 wrap
  if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || rowsTotal >= kLimit ||
      rowsTotal * dims[2] >= kLimit)
    return "its matrices (dims [" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) +
           ", " + std::to_string(dims[2]) +
           "]) hold 2^31 elements or more, beyond tile.store's i32 offsets";
  return std::nullopt;
}


/// tile.block_store -> tile.store at the block's offsets (transposed: element (i, j) at block
/// element (j, i)), masked where the block leaves the matrix (the elements TMA would clip).
struct ExpandBlockStore : OpRewritePattern<BlockStoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BlockStoreOp op, PatternRewriter &rewriter) const override {
    if (auto why = whyNotExpandable(op))
      return rewriter.notifyMatchFailure(op, *why);
    auto [offsets, mask] =
        blockOffsetsAndMask(rewriter, op, op.getValue().getType().getShape(), op.getDims(),
                            op.getBatch(), op.getRow(), op.getCol(), op.getTranspose());
    rewriter.replaceOpWithNewOp<StoreOp>(op, op.getPtr(), offsets, op.getValue(), mask);
    return success();
  }
};

struct TileExpandBlockLoadsPass
    : public aicc::tile::impl::TileExpandBlockLoadsBase<TileExpandBlockLoadsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandBlockLoadPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // What the pattern left: block loads it cannot express as tile.load.
    bool failed = false;
    getOperation().walk([&](BlockLoadOp op) {
      auto why = whyNotExpandable(op);
      op.emitError("cannot expand tile.block_load to tile.load: ")
          << (why ? *why : std::string("the rewrite did not apply"));
      failed = true;
    });
    getOperation().walk([&](Im2ColLoadOp op) {
      op.emitError("cannot expand tile.im2col_load to tile.load: tile.load pads only float and "
                   "integer tiles, got ")
          << op.getType().getElementType();
      failed = true;
    });
    getOperation().walk([&](BlockStoreOp op) {
      auto why = whyNotExpandable(op);
      op.emitError("cannot expand tile.block_store to tile.store: ")
          << (why ? *why : std::string("the rewrite did not apply"));
      failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace

void aicc::tile::populateExpandBlockLoadPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandBlockLoad, ExpandIm2ColLoad, ExpandBlockStore>(patterns.getContext());
}
