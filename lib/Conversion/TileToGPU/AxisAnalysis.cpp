//===- AxisAnalysis.cpp - contiguity / divisibility / constancy of tile offsets -===//
#include "AxisAnalysis.h"

#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace aicc;
namespace tl = aicc::tile;

int64_t aicc::pow2Factor(int64_t c) {
  if (c == 0)
    return kMaxDiv;
  int64_t f = 1;
  while (f < kMaxDiv && c % (f * 2) == 0)
    f *= 2;
  return f;
}

AxisInfo AxisAnalysis::get(Value v) {
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  AxisInfo r = compute(v);
  cache[v] = r;
  return r;
}

namespace {
int64_t size(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getNumElements();
  return 1;
}

/// What divides `x` at the starts of runs of `len` elements (a power of two): a contiguous
/// run cut into shorter runs starts them at (run start + multiples of len).
int64_t runStartDivisibility(const AxisInfo &x, int64_t len) {
  if (x.contiguity > len && x.constancy < x.contiguity)
    return std::min(x.divisibility, len);
  return x.divisibility;
}

/// The value of a constant scalar or constant splat tile (through tile.splat).
std::optional<int64_t> getConstantSplat(Value v) {
  if (auto s = v.getDefiningOp<tl::SplatOp>())
    v = s.getSrc();
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
      return ia.getInt();
    if (auto d = dyn_cast<DenseIntElementsAttr>(c.getValue()); d && d.isSplat())
      return d.getSplatValue<APInt>().getSExtValue();
  }
  return std::nullopt;
}

/// Whether every value of the i32/index scalar or tile `v` is provably >= 0 (offsets built
/// from program ids, non-negative ranges and constants by add, mul, div and rem; wrap-around
/// is not modelled, as in the rest of the analysis).
} // namespace

bool AxisAnalysis::isNonNegative(Value v, int depth) {
  if (depth > 16)
    return false;
  auto rec = [&](Value x) { return isNonNegative(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return forOp && arg == forOp.getInductionVar() && rec(forOp.getLowerBound()) &&
           rec(forOp.getStep());
  }
  Operation *op = v.getDefiningOp();
  if (auto c = getConstantSplat(v))
    return *c >= 0;
  if (isa<tl::ProgramIdOp, tl::NumProgramsOp, arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return true;
  if (auto r = dyn_cast<tl::MakeRangeOp>(op))
    return r.getStart() >= 0;
  if (isa<tl::SplatOp, tl::BroadcastOp, tl::ExpandDimsOp, arith::IndexCastOp, arith::ExtSIOp>(op))
    return rec(op->getOperand(0));
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
          arith::MinSIOp>(op))
    return rec(op->getOperand(0)) && rec(op->getOperand(1));
  if (isa<arith::RemUIOp>(op)) // below its divisor
    return rec(op->getOperand(1));
  if (isa<arith::MaxSIOp>(op))
    return rec(op->getOperand(0)) || rec(op->getOperand(1));
  return false;
}

AxisInfo AxisAnalysis::compute(Value v) {
  int64_t n = size(v);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // scf.for induction variable: lb + k * step.
    if (auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        forOp && arg == forOp.getInductionVar()) {
      AxisInfo lb = get(forOp.getLowerBound()), st = get(forOp.getStep());
      return {1, std::min(lb.divisibility, st.divisibility), 1};
    }
    return {};
  }
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
      return {1, pow2Factor(ia.getInt()), n};
    if (auto d = dyn_cast<DenseIntElementsAttr>(c.getValue()); d && d.isSplat())
      return {1, pow2Factor(d.getSplatValue<APInt>().getSExtValue()), n};
    return {};
  }
  if (auto r = dyn_cast<tl::MakeRangeOp>(op))
    return {n, pow2Factor(r.getStart()), 1};
  if (auto s = dyn_cast<tl::SplatOp>(op))
    return {1, get(s.getSrc()).divisibility, n};
  if (auto e = dyn_cast<tl::ExpandDimsOp>(op))
    return get(e.getSrc());
  if (auto bc = dyn_cast<tl::BroadcastOp>(op)) {
    if (size(bc.getSrc()) == 1)
      return {1, get(bc.getSrc()).divisibility, n};
    return get(bc.getSrc());
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(op))
    return get(op->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp>(op)) {
    AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    AxisInfo r;
    r.contiguity =
        std::max(std::min(a.contiguity, b.constancy), std::min(a.constancy, b.contiguity));
    if (isa<arith::SubIOp>(op)) // x - range is decreasing: only contiguous minus constant
      r.contiguity = std::min(a.contiguity, b.constancy);
    r.divisibility =
        std::min(runStartDivisibility(a, r.contiguity), runStartDivisibility(b, r.contiguity));
    r.constancy = std::min(a.constancy, b.constancy);
    return r;
  }
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    // a mod c, c a constant: runs of L = min(contiguity(a), divisibility(a), pow2(c)) values
    // start at multiples of L and never cross a multiple of c (L divides c), so they stay
    // contiguous. Only for a >= 0: remsi truncates toward zero, so a run [-c, -c + L) maps
    // to 0, -c + 1, ..., -c + L - 1.
    auto c = getConstantSplat(op->getOperand(1));
    if (!c || *c <= 0 || (isa<arith::RemSIOp>(op) && !isNonNegative(op->getOperand(0))))
      return {};
    AxisInfo a = get(op->getOperand(0));
    int64_t p = pow2Factor(*c);
    int64_t l = std::min({a.contiguity, a.divisibility, p});
    return {l, std::min(a.divisibility, p), std::min(a.constancy, p)};
  }
  if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    // a / c, c a constant: as for a mod c, runs of L = min(contiguity(a), divisibility(a),
    // pow2(c)) values start at multiples of L and never cross a multiple of c, so each run
    // has one quotient (Triton's DivOpAxisInfoVisitor); a constant run stays constant. Only
    // for a >= 0 (divsi truncates toward zero: -1 / 8 and 1 / 8 are both 0).
    auto c = getConstantSplat(op->getOperand(1));
    if (!c || *c <= 0 || (isa<arith::DivSIOp>(op) && !isNonNegative(op->getOperand(0))))
      return {};
    AxisInfo a = get(op->getOperand(0));
    int64_t l = std::min({a.contiguity, a.divisibility, pow2Factor(*c)});
    return {1, 1, std::max(a.constancy, l)};
  }
  if (isa<arith::ShLIOp>(op)) {
    // a << c, c a constant in [0, 30]: a * 2^c.
    auto c = getConstantSplat(op->getOperand(1));
    if (!c || *c < 0 || *c > 30)
      return {};
    AxisInfo a = get(op->getOperand(0));
    return {1, std::min(kMaxDiv, runStartDivisibility(a, 1) << *c), a.constancy};
  }
  if (isa<arith::MulIOp>(op)) {
    // Every element is its own run (contiguity 1): what divides each of them.
    AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    return {1, std::min(kMaxDiv, runStartDivisibility(a, 1) * runStartDivisibility(b, 1)),
            std::min(a.constancy, b.constancy)};
  }
  return {};
}
