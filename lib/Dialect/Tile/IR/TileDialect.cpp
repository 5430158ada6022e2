//===- TileDialect.cpp - aicc tile dialect ---------------------------------===//
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace aicc::tile;

#include "aicc/Dialect/Tile/IR/TileOpsDialect.cpp.inc"
#include "aicc/Dialect/Tile/IR/TileOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "aicc/Dialect/Tile/IR/TileOpsAttrDefs.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "aicc/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "aicc/Dialect/Tile/IR/TileOpsAttrDefs.cpp.inc"
      >();
}

ScheduleAttr aicc::tile::getSchedule(Operation *op) {
  return op->getAttrOfType<ScheduleAttr>(kScheduleAttrName);
}

/// tile.schedule: on a func with a body; a GPU kernel's buffers are static 1-D identity
/// memrefs (then its CUtensorMap pointers), and it returns nothing.
static LogicalResult verifyScheduleAttr(Operation *op, Attribute value) {
  if (!isa<ScheduleAttr>(value))
    return op->emitError("'tile.schedule' must be a #tile.schedule attribute");
  auto fi = dyn_cast<FunctionOpInterface>(op);
  if (!fi)
    return op->emitError("'tile.schedule' only applies to functions");
  // The lowerings rewrite the body; a declaration has none (they used to crash on it).
  if (fi.isExternal())
    return op->emitError("a tile kernel needs a body: this 'tile.schedule' function is a "
                         "declaration");
  auto fn = dyn_cast<func::FuncOp>(op);
  // CPU kernels (tile.cpu_kernel) take program ids and grid sizes after their buffers.
  if (!fn || op->hasAttr(kCpuKernelAttrName))
    return success();
  // Kernels lowered to TMA take one CUtensorMap pointer per tile.tensor_maps entry after
  // their buffers.
  unsigned numBuffers = fn.getNumArguments();
  if (auto maps = op->getAttrOfType<ArrayAttr>(kTensorMapsAttrName))
    numBuffers -= std::min<unsigned>(numBuffers, maps.size());
  for (Type t : fn.getArgumentTypes().take_front(numBuffers)) {
    auto m = dyn_cast<MemRefType>(t);
    if (!m || m.getRank() != 1 || !m.hasStaticShape() || !m.getLayout().isIdentity())
      return op->emitError("tile kernel arguments must be static 1-D memrefs with "
                           "identity layout, got ")
             << t;
  }
  if (fn.getNumResults() != 0)
    return op->emitError("tile kernels return nothing");
  return success();
}

namespace {
/// One discardable attribute's value check (TileDialect.td lists them): the name, the
/// predicate on the value, and what the error says the value must be.
struct AttrRule {
  llvm::StringLiteral name;
  bool (*ok)(Attribute);
  const char *mustBe;
};
} // namespace

static bool isPositiveInt(Attribute a) {
  auto i = dyn_cast<IntegerAttr>(a);
  return i && i.getInt() >= 1;
}
static bool isLaunchDims(Attribute a) {
  auto d = dyn_cast<DenseI32ArrayAttr>(a);
  return d && d.size() == 3 && llvm::all_of(d.asArrayRef(), [](int32_t v) { return v >= 1; });
}
static bool isTensorMapList(Attribute a) {
  auto arr = dyn_cast<ArrayAttr>(a);
  return arr && llvm::all_of(arr, [](Attribute e) {
           auto d = dyn_cast<DictionaryAttr>(e);
           return d && isa_and_nonnull<IntegerAttr>(d.get("param")) &&
                  isa_and_nonnull<DenseI64ArrayAttr>(d.get("dims")) &&
                  isa_and_nonnull<DenseI64ArrayAttr>(d.get("box")) &&
                  isa_and_nonnull<IntegerAttr>(d.get("swizzle")) &&
                  isa_and_nonnull<TypeAttr>(d.get("element"));
         });
}

/// tile.matmul_buckets: [{symbol, lo, hi, config}, ...], at least two buckets of one symbol,
/// 1 <= lo <= hi, each bucket starting right after the previous one.
static bool isMatmulBucketList(Attribute a) {
  auto arr = dyn_cast<ArrayAttr>(a);
  if (!arr || arr.size() < 2)
    return false;
  int64_t symbol = -1, next = 1;
  for (auto [i, e] : llvm::enumerate(arr)) {
    auto d = dyn_cast<DictionaryAttr>(e);
    if (!d || d.size() != 4 || !isa_and_nonnull<MatmulConfigAttr>(d.get("config")))
      return false;
    auto sym = dyn_cast_or_null<IntegerAttr>(d.get("symbol"));
    auto lo = dyn_cast_or_null<IntegerAttr>(d.get("lo"));
    auto hi = dyn_cast_or_null<IntegerAttr>(d.get("hi"));
    if (!sym || !lo || !hi || sym.getInt() < 0 || lo.getInt() < 1 || hi.getInt() < lo.getInt())
      return false;
    if (i == 0)
      symbol = sym.getInt();
    else if (sym.getInt() != symbol || lo.getInt() != next)
      return false;
    next = hi.getInt() + 1;
  }
  return true;
}

static const AttrRule kAttrRules[] = {
    {kCpuKernelAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
     "must be an integer (buffer parameter count)"},
    {kLayoutAttrName, [](Attribute a) { return isa<BlockedLayoutAttr>(a); },
     "must be a #tile.blocked attribute"},
    {kLayoutsAttrName,
     [](Attribute a) {
       auto arr = dyn_cast<ArrayAttr>(a);
       return arr && llvm::all_of(arr, [](Attribute e) { return isa<BlockedLayoutAttr>(e); });
     },
     "must be an array of #tile.blocked attributes"},
    {kProgramsPerCTAAttrName, isPositiveInt, "must be a positive integer"},
    // Why a lowering left a kernel on a slower path: convert-tile-to-gpu-registers,
    // convert-tile-dot-to-wgmma (wgmma, its TMA store), convert-tile-dot-to-mma-sync (mma.sync,
    // its staged store); see their pass descriptions.
    {kRegisterPathRefusedAttrName, [](Attribute a) { return isa<StringAttr>(a); },
     "must be a string (the reason)"},
    {kWgmmaRefusedAttrName, [](Attribute a) { return isa<StringAttr>(a); },
     "must be a string (the reason)"},
    {kTmaStoreRefusedAttrName, [](Attribute a) { return isa<StringAttr>(a); },
     "must be a string (the reason)"},
    {kSmemStoreRefusedAttrName, [](Attribute a) { return isa<StringAttr>(a); },
     "must be a string (the reason)"},
    {kMmaSyncRefusedAttrName, [](Attribute a) { return isa<StringAttr>(a); },
     "must be a string (the reason)"},
    {kMatmulConfigAttrName, [](Attribute a) { return isa<MatmulConfigAttr>(a); },
     "must be a #tile.matmul_config attribute (the chosen tile config)"},
    {kWgmmaAttrName, [](Attribute a) { return isa<WgmmaConfigAttr>(a); },
     "must be a #tile.wgmma_config attribute (the kernel's MMA config)"},
    {kMmaSyncAttrName, [](Attribute a) { return isa<MmaSyncConfigAttr>(a); },
     "must be a #tile.mma_sync_config attribute (the kernel's MMA config)"},
    {kLaunchGridAttrName, isLaunchDims, "must be array<i32: x, y, z>, each >= 1"},
    {kLaunchBlockAttrName, isLaunchDims, "must be array<i32: x, y, z>, each >= 1"},
    {kDynamicSharedBytesAttrName,
     [](Attribute a) {
       auto i = dyn_cast<IntegerAttr>(a);
       return i && i.getInt() >= 0;
     },
     "must be a non-negative integer"},
    {kTensorMapsAttrName, isTensorMapList,
     "must be an array of {param, dims, box, swizzle, element} dictionaries"},
    {kTensorMapAttrName, [](Attribute a) { return isa<UnitAttr>(a); }, "must be a unit attribute"},
    {kInPlaceAttrName,
     [](Attribute a) {
       auto arr = dyn_cast<DenseI32ArrayAttr>(a);
       return arr && arr.size() % 2 == 0 &&
              llvm::all_of(arr.asArrayRef(), [](int32_t i) { return i >= 0; });
     },
     "must be array<i32: input, output, ...>: pairs of parameter indices"},
    {kSymGridAttrName,
     [](Attribute a) {
       auto arr = dyn_cast<DenseI64ArrayAttr>(a);
       return arr && arr.size() == 5 && arr[0] >= 0 && arr[0] <= 2 && arr[1] >= 0 && arr[2] >= 1 &&
              arr[3] >= 1 && arr[4] >= 1;
     },
     "must be array<i64: axis (0..2), symbol, unit, per, group>, unit, per and group >= 1"},
    {kMatmulBucketsAttrName, isMatmulBucketList,
     "must be an array of at least two {symbol, lo, hi, config = #tile.matmul_config} "
     "dictionaries of one symbol, 1 <= lo <= hi, each bucket's lo the previous bucket's hi + 1"},
    {kSymRangeAttrName,
     [](Attribute a) {
       auto arr = dyn_cast<DenseI64ArrayAttr>(a);
       return arr && arr.size() == 3 && arr[0] >= 0 && arr[1] >= 1 && arr[2] >= arr[1];
     },
     "must be array<i64: symbol, lo, hi>, 1 <= lo <= hi"},
    {kSymValuesAttrName,
     [](Attribute a) {
       auto i = dyn_cast<IntegerAttr>(a);
       return i && i.getInt() >= 0;
     },
     "must be the index of a parameter (an integer >= 0)"},
};

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  llvm::StringRef name = attr.getName().getValue();
  if (name == kScheduleAttrName)
    return verifyScheduleAttr(op, attr.getValue());
  for (const AttrRule &rule : kAttrRules)
    if (name == rule.name)
      return rule.ok(attr.getValue())
                 ? success()
                 : LogicalResult(op->emitError() << "'" << name << "' " << rule.mustBe);
  return op->emitError("unknown tile dialect attribute ") << attr.getName();
}

KernelPath aicc::tile::getKernelPath(Operation *fn) {
  if (fn->hasAttr(kWgmmaAttrName))
    return KernelPath::Wgmma;
  if (fn->hasAttr(kMmaSyncAttrName))
    return KernelPath::MmaSync;
  if (fn->hasAttr(kLayoutsAttrName))
    return KernelPath::Registers;
  return KernelPath::Portable;
}

//===----------------------------------------------------------------------===//
// MatmulConfigAttr
//===----------------------------------------------------------------------===//
LogicalResult MatmulConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t blockM,
                                       int64_t blockN, int64_t blockK, int64_t numWarps,
                                       int64_t numStages, MatmulPath, int64_t splitK) {
  // The bounds of --matmul-config (applyMatmulConfigOverride): past every target's space.
  for (int64_t b : {blockM, blockN, blockK})
    if (b < 1 || b > 1024)
      return emitError() << "BLOCK sizes must be in [1, 1024], got " << b;
  if (numWarps < 1 || numWarps > 32)
    return emitError() << "num_warps must be in [1, 32], got " << numWarps;
  if (numStages < 1 || numStages > 16)
    return emitError() << "num_stages must be in [1, 16], got " << numStages;
  if (splitK < 1 || splitK > kMaxSplitK)
    return emitError() << "split_k must be in [1, " << kMaxSplitK << "], got " << splitK;
  return success();
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//
LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> grid, int64_t numWarps, int64_t numStages,
                     DictionaryAttr blocks) {
  if (grid.size() != 3)
    return emitError() << "grid must have 3 entries [x, y, z], got " << grid.size();
  for (int64_t g : grid)
    if (g < 1 || g > 2147483647)
      return emitError() << "grid entries must be in [1, 2^31), got " << g;
  if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)))
    return emitError() << "num_warps must be a power of two in [1, 32], got " << numWarps;
  if (numStages < 1)
    return emitError() << "num_stages must be >= 1, got " << numStages;
  for (NamedAttribute a : blocks) {
    auto i = dyn_cast<IntegerAttr>(a.getValue());
    if (!i || i.getInt() < 1)
      return emitError() << "block size " << a.getName() << " must be a positive integer";
  }
  return success();
}

int64_t ScheduleAttr::getNumPrograms() const {
  int64_t n = 1;
  for (int64_t g : getGrid())
    n *= g;
  return n;
}

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr
//===----------------------------------------------------------------------===//
LogicalResult BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        ArrayRef<unsigned> sizePerThread,
                                        ArrayRef<unsigned> threadsPerWarp,
                                        ArrayRef<unsigned> warpsPerCTA,
                                        ArrayRef<unsigned> order) {
  size_t r = sizePerThread.size();
  if (threadsPerWarp.size() != r || warpsPerCTA.size() != r || order.size() != r)
    return emitError() << "all blocked layout fields must have the same rank";
  unsigned lanes = 1;
  for (unsigned t : threadsPerWarp)
    lanes *= t;
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  SmallVector<bool> seen(r, false);
  for (unsigned o : order) {
    if (o >= r || seen[o])
      return emitError() << "order must be a permutation of [0, " << r << ")";
    seen[o] = true;
  }
  for (unsigned s : sizePerThread)
    if (s == 0)
      return emitError() << "sizePerThread entries must be positive";
  for (unsigned w : warpsPerCTA)
    if (w == 0)
      return emitError() << "warpsPerCTA entries must be positive";
  return success();
}

BlockedLayoutAttr::Owner BlockedLayoutAttr::getOwner(ArrayRef<int64_t> coord,
                                                     ArrayRef<int64_t> shape) const {
  // Per dim d: the CTA covers a "layout tile" of spt*tpw*wpc elements; coordinates repeat
  // cyclically past it. Within it, c = (((w * tpw) + l) * spt) + e.
  size_t r = coord.size();
  int64_t lane = 0, warp = 0, reg = 0, laneStride = 1, warpStride = 1, regStride = 1;
  for (unsigned i = 0; i < r; ++i) {
    unsigned d = getOrder()[i];
    int64_t spt = getSizePerThread()[d], tpw = getThreadsPerWarp()[d],
            wpc = getWarpsPerCTA()[d];
    int64_t span = spt * tpw * wpc;
    int64_t c = coord[d] % span, rep = coord[d] / span;
    int64_t reps = (shape[d] + span - 1) / span;
    int64_t e = c % spt, l = (c / spt) % tpw, w = c / (spt * tpw);
    lane += l * laneStride;
    laneStride *= tpw;
    warp += w * warpStride;
    warpStride *= wpc;
    reg += (rep * spt + e) * regStride;
    regStride *= reps * spt;
  }
  return {warp * 32 + lane, reg};
}

BlockedLayoutAttr BlockedLayoutAttr::getDefault(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                                unsigned numWarps, unsigned vecWidth) {
  size_t r = shape.size();
  SmallVector<unsigned> spt(r, 1), tpw(r, 1), wpc(r, 1), order;
  for (size_t i = 0; i < r; ++i)
    order.push_back(r - 1 - i);
  if (r == 0)
    return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
  spt[r - 1] = std::max<unsigned>(1, std::min<int64_t>(vecWidth, shape[r - 1]));
  // Lanes: fill the contiguous dim first, then outer dims.
  unsigned lanesLeft = 32;
  for (int64_t d = r - 1; d >= 0 && lanesLeft > 1; --d) {
    int64_t want = std::max<int64_t>(1, shape[d] / (d == (int64_t)r - 1 ? spt[d] : 1));
    unsigned t = 1;
    while (t < lanesLeft && t * 2 <= want)
      t *= 2;
    if (d == 0)
      t = lanesLeft;
    tpw[d] = t;
    lanesLeft /= t;
  }
  tpw[r - 1] *= lanesLeft;
  unsigned warpsLeft = numWarps;
  for (size_t d = 0; d < r && warpsLeft > 1; ++d) {
    int64_t want = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned w = 1;
    while (w < warpsLeft && w * 2 <= want)
      w *= 2;
    wpc[d] = w;
    warpsLeft /= w;
  }
  wpc[0] *= warpsLeft;
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}
