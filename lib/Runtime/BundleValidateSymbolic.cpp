//===- BundleValidateSymbolic.cpp - validateBundle's symbolic records ------===//
//
// The records of bounded symbolic dims (docs/bundle-format.md, "Symbolic dims"): `symbol`,
// `symdim`, `symgrid` (version 6), `symvalues` (7), `symrange` (9) and `plan` (10), each
// checked against the buffers, kernels and launches validateBundle has already checked.
// Messages start with the record's manifest line when it is known.
//
//===----------------------------------------------------------------------===//

#include "aicc/Runtime/Bundle.h"

#include "BundleInternal.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

namespace {

/// "symbol 0 ('batch')".
std::string symbolLabel(const Bundle &bundle, int index) {
  return "symbol " + std::to_string(index) + " ('" + bundle.symbols[index].name + "')";
}

/// The `symbol` records: unique non-empty names, 1 <= MIN <= MAX <= 2^31 - 1.
Status validateSymbols(const Bundle &bundle) {
  std::unordered_map<std::string_view, size_t> names;
  for (size_t i = 0; i < bundle.symbols.size(); ++i) {
    const SymbolDesc &sym = bundle.symbols[i];
    if (sym.name.empty())
      return Status::error(manifestAt(sym.line) + "symbol " + std::to_string(i) + ": empty name");
    const std::string label = manifestAt(sym.line) + symbolLabel(bundle, static_cast<int>(i));
    if (auto [it, fresh] = names.emplace(sym.name, i); !fresh)
      return Status::error(label + ": also the name of symbol " + std::to_string(it->second) +
                           " (symbol names are unique)");
    if (sym.min < 1)
      return Status::error(label + ": MIN " + std::to_string(sym.min) + " is below 1");
    if (sym.max > kMaxSymbolValue)
      return Status::error(label + ": MAX " + std::to_string(sym.max) + " is above the limit of " +
                           std::to_string(kMaxSymbolValue) + " (2^31 - 1)");
    if (sym.min > sym.max)
      return Status::error(label + ": MIN " + std::to_string(sym.min) + " is above MAX " +
                           std::to_string(sym.max));
  }
  return Status::success();
}

/// The `symdim` records (docs/bundle-format.md, "Symbolic dims"): at value v the
/// tensor must be the first sizeBytes / MAX x v bytes of its buffer. Requires
/// validateSymbols().
Status validateSymDims(const Bundle &bundle) {
  const int numBuffers = static_cast<int>(bundle.buffers.size());
  const int numSymbols = static_cast<int>(bundle.symbols.size());
  std::vector<const SymDimDesc *> dimOf(bundle.buffers.size(), nullptr);
  std::vector<bool> inputBinds(bundle.symbols.size(), false);
  for (const SymDimDesc &d : bundle.symDims) {
    if (d.bufferId < 0 || d.bufferId >= numBuffers)
      return Status::error(manifestAt(d.line) + "symdim: BUFFER_ID " + std::to_string(d.bufferId) +
                           " is out of range (" + std::to_string(numBuffers) + " buffers)");
    const BufferDesc &b = bundle.buffers[d.bufferId];
    const std::string type = formatTensorType(b.dtype, b.shape);
    const std::string label = manifestAt(d.line) + "symdim of " + bufferLabel(b.id) + " " + type;
    if (b.kind != BufferKind::input && b.kind != BufferKind::output && b.kind != BufferKind::alias)
      return Status::error(label + ": the buffer has kind " + bufferKindName(b.kind) +
                           "; only input, output and alias buffers carry a symbolic dim");
    if (const SymDimDesc *first = dimOf[d.bufferId])
      return Status::error(
          label + ": the buffer already has a symdim" +
          (first->line ? " (manifest line " + std::to_string(first->line) + ")" : std::string()) +
          "; at most one per buffer");
    dimOf[d.bufferId] = &d;
    if (d.symbol < 0 || d.symbol >= numSymbols)
      return Status::error(label + ": SYMBOL_INDEX " + std::to_string(d.symbol) +
                           " is out of range (" + std::to_string(numSymbols) + " symbols)");
    const int rank = static_cast<int>(b.shape.size());
    if (d.axis < 0 || d.axis >= rank)
      return Status::error(label + ": AXIS " + std::to_string(d.axis) +
                           " is not below the buffer's rank " + std::to_string(rank));
    if (d.factor < 1)
      return Status::error(label + ": FACTOR " + std::to_string(d.factor) + " is below 1");
    const SymbolDesc &sym = bundle.symbols[d.symbol];
    const std::string times = "FACTOR " + std::to_string(d.factor) + " x MAX " +
                              std::to_string(sym.max) + " of '" + sym.name + "'";
    int64_t atMax = 0;
    if (__builtin_mul_overflow(d.factor, sym.max, &atMax))
      return Status::error(label + ": " + times + " overflows int64");
    if (b.shape[d.axis] != atMax)
      return Status::error(label + ": dim " + std::to_string(d.axis) + " is " +
                           std::to_string(b.shape[d.axis]) + ", but " + times + " is " +
                           std::to_string(atMax) + " (the buffer holds the tensor at the bound)");
    for (int k = 0; k < d.axis && bundle.formatVersion < kFormatVersionPitchedSymDims; ++k)
      if (b.shape[k] != 1)
        return Status::error(label + ": dim " + std::to_string(k) + " is " +
                             std::to_string(b.shape[k]) + ", not 1 (the dims before the " +
                             "symbolic dim " + std::to_string(d.axis) +
                             " must be 1 before format version 8: the tensor at a smaller "
                             "value is then a prefix of the buffer)");
    if (b.sizeBytes == 0)
      return Status::error(label + ": the tensor has no elements, so its size cannot carry '" +
                           sym.name + "'");
    if (b.kind == BufferKind::input)
      inputBinds[d.symbol] = true;
  }
  // A run binds each symbol from the inputs' shapes.
  for (int i = 0; i < numSymbols; ++i)
    if (!inputBinds[i])
      return Status::error(manifestAt(bundle.symbols[i].line) + symbolLabel(bundle, i) +
                           " is a dim of no model input (no 'symdim' record of an input buffer "
                           "names it): a run could never bind it");
  return Status::success();
}

/// The `symgrid` records. Requires validateSymbols() and valid launches.
Status validateSymGrids(const Bundle &bundle,
                        const std::unordered_map<std::string_view, const KernelDesc *> &kernels) {
  static constexpr char kAxes[] = "xyz";
  const int numLaunches = static_cast<int>(bundle.launches.size());
  const int numSymbols = static_cast<int>(bundle.symbols.size());
  std::vector<std::array<const SymGridDesc *, 3>> gridOf(bundle.launches.size(),
                                                         {nullptr, nullptr, nullptr});
  for (const SymGridDesc &g : bundle.symGrids) {
    if (g.launchIndex < 0 || g.launchIndex >= numLaunches)
      return Status::error(manifestAt(g.line) + "symgrid: LAUNCH_INDEX " +
                           std::to_string(g.launchIndex) + " is out of range (" +
                           std::to_string(numLaunches) + " launches)");
    const LaunchDesc &l = bundle.launches[g.launchIndex];
    std::string label = manifestAt(g.line) + "symgrid of launch " + std::to_string(g.launchIndex) +
                        " of '" + l.kernel + "'";
    if (g.axis < 0 || g.axis > 2)
      return Status::error(label + ": AXIS " + std::to_string(g.axis) +
                           " is not 0, 1 or 2 (grid x, y, z)");
    label += ", grid " + std::string(1, kAxes[g.axis]);
    if (const SymGridDesc *first = gridOf[g.launchIndex][g.axis])
      return Status::error(
          label + ": the launch already has a symgrid on that axis" +
          (first->line ? " (manifest line " + std::to_string(first->line) + ")" : std::string()) +
          "; at most one per launch and axis");
    gridOf[g.launchIndex][g.axis] = &g;
    if (g.symbol < 0 || g.symbol >= numSymbols)
      return Status::error(label + ": SYMBOL_INDEX " + std::to_string(g.symbol) +
                           " is out of range (" + std::to_string(numSymbols) + " symbols)");
    for (auto [name, v] :
         {std::pair{"UNIT", g.unit}, std::pair{"PER", g.per}, std::pair{"GROUP", g.group}})
      if (v < 1)
        return Status::error(label + ": " + name + " " + std::to_string(v) + " is below 1");
    auto it = kernels.find(l.kernel);
    if (it == kernels.end()) // validateLaunch refused it first
      return Status::error(label + ": no kernel record with that name");
    const int64_t recorded = it->second->grid[g.axis];
    const SymbolDesc &sym = bundle.symbols[g.symbol];
    std::optional<int64_t> programs = symGridPrograms(g, sym.max);
    if (!programs || *programs > recorded)
      return Status::error(
          label + ": at MAX " + std::to_string(sym.max) + " of '" + sym.name + "' it runs GROUP " +
          std::to_string(g.group) + " x ceil(" + std::to_string(sym.max) + " x UNIT " +
          std::to_string(g.unit) + " / PER " + std::to_string(g.per) +
          ") = " + (programs ? std::to_string(*programs) : std::string("more than 2^63")) +
          " programs, more than the kernel's recorded grid " + std::string(1, kAxes[g.axis]) +
          " = " + std::to_string(recorded));
  }
  return Status::success();
}

/// The `plan` records: ascending first launches from 0, each plan at least one launch, one
/// symbol whose [MIN, MAX] the plans' ranges partition. Requires validateSymbols().
Status validatePlans(const Bundle &bundle) {
  const int numLaunches = static_cast<int>(bundle.launches.size());
  const int numSymbols = static_cast<int>(bundle.symbols.size());
  for (size_t i = 0; i < bundle.plans.size(); ++i) {
    const PlanDesc &p = bundle.plans[i];
    const std::string label = manifestAt(p.line) + "plan " + std::to_string(i);
    const int want = i == 0 ? 0 : bundle.plans[i - 1].firstLaunch + 1;
    if (i == 0 && p.firstLaunch != 0)
      return Status::error(label + ": FIRST_LAUNCH is " + std::to_string(p.firstLaunch) +
                           ", not 0 (the first plan starts at the first launch)");
    if (p.firstLaunch < want || p.firstLaunch >= numLaunches)
      return Status::error(label + ": FIRST_LAUNCH " + std::to_string(p.firstLaunch) +
                           " is not in [" + std::to_string(want) + ", " +
                           std::to_string(numLaunches) +
                           ") (plans ascend by first launch, each at least one launch)");
    if (p.symbol < 0 || p.symbol >= numSymbols)
      return Status::error(label + ": SYMBOL_INDEX " + std::to_string(p.symbol) +
                           " is out of range (" + std::to_string(numSymbols) + " symbols)");
    if (p.symbol != bundle.plans.front().symbol)
      return Status::error(label + ": SYMBOL_INDEX " + std::to_string(p.symbol) +
                           " differs from plan 0's " + std::to_string(bundle.plans[0].symbol) +
                           " (the plans divide one symbol's values)");
    const SymbolDesc &sym = bundle.symbols[p.symbol];
    if (p.lo < sym.min || p.lo > p.hi || p.hi > sym.max)
      return Status::error(label + ": [LO, HI] = [" + std::to_string(p.lo) + ", " +
                           std::to_string(p.hi) + "] is not a range inside [" +
                           std::to_string(sym.min) + ", " + std::to_string(sym.max) + "] of '" +
                           sym.name + "'");
  }
  // Coverage: sorted by LO, the ranges go from MIN to MAX without a gap or an overlap.
  std::vector<const PlanDesc *> byLo;
  for (const PlanDesc &p : bundle.plans)
    byLo.push_back(&p);
  std::sort(byLo.begin(), byLo.end(),
            [](const PlanDesc *x, const PlanDesc *y) { return x->lo < y->lo; });
  const SymbolDesc &sym = bundle.symbols[bundle.plans.front().symbol];
  int64_t next = sym.min;
  for (const PlanDesc *p : byLo) {
    if (p->lo != next)
      return Status::error(
          manifestAt(p->line) + "plan ranges of '" + sym.name + "' must partition [" +
          std::to_string(sym.min) + ", " + std::to_string(sym.max) + "]: " +
          (p->lo < next ? "[" + std::to_string(p->lo) + ", " + std::to_string(p->hi) +
                              "] overlaps another plan's range"
                        : "no plan runs at " + std::to_string(next)));
    next = p->hi + 1;
  }
  if (next != sym.max + 1)
    return Status::error(manifestAt(byLo.back()->line) + "plan ranges of '" + sym.name +
                         "' must partition [" + std::to_string(sym.min) + ", " +
                         std::to_string(sym.max) + "]: no plan runs at " + std::to_string(next));
  return Status::success();
}

/// The `symrange` records. Requires validateSymbols() and validatePlans().
Status validateSymRanges(const Bundle &bundle) {
  const int numLaunches = static_cast<int>(bundle.launches.size());
  const int numSymbols = static_cast<int>(bundle.symbols.size());
  std::vector<const SymRangeDesc *> rangeOf(bundle.launches.size(), nullptr);
  for (const SymRangeDesc &r : bundle.symRanges) {
    if (r.launchIndex < 0 || r.launchIndex >= numLaunches)
      return Status::error(manifestAt(r.line) + "symrange: LAUNCH_INDEX " +
                           std::to_string(r.launchIndex) + " is out of range (" +
                           std::to_string(numLaunches) + " launches)");
    std::string label = manifestAt(r.line) + "symrange of launch " + std::to_string(r.launchIndex) +
                        " of '" + bundle.launches[r.launchIndex].kernel + "'";
    if (const SymRangeDesc *first = rangeOf[r.launchIndex])
      return Status::error(
          label + ": the launch already has a symrange" +
          (first->line ? " (manifest line " + std::to_string(first->line) + ")" : std::string()) +
          "; at most one per launch");
    rangeOf[r.launchIndex] = &r;
    if (r.symbol < 0 || r.symbol >= numSymbols)
      return Status::error(label + ": SYMBOL_INDEX " + std::to_string(r.symbol) +
                           " is out of range (" + std::to_string(numSymbols) + " symbols)");
    const SymbolDesc &sym = bundle.symbols[r.symbol];
    if (r.lo < sym.min || r.lo > r.hi || r.hi > sym.max)
      return Status::error(label + ": [LO, HI] = [" + std::to_string(r.lo) + ", " +
                           std::to_string(r.hi) + "] is not a range inside [" +
                           std::to_string(sym.min) + ", " + std::to_string(sym.max) + "] of '" +
                           sym.name + "'");
  }
  // Coverage: the launches with ranges come in runs of consecutive launches (the kernel
  // variants of one group) whose ranges go through the symbol's values in order from MIN to
  // MAX, each bucket one launch or several alike (split-K: partials, then sum); so at every
  // value exactly one bucket of each run writes the group's results. Inside a `plan` of the
  // same symbol the runs go from the plan's LO to its HI instead, and never leave the plan.
  const std::vector<int> planOf = detail::launchPlans(bundle);
  auto bounds = [&](size_t launch, int symbol) -> std::pair<int64_t, int64_t> {
    if (planOf[launch] >= 0 && bundle.plans[planOf[launch]].symbol == symbol)
      return {bundle.plans[planOf[launch]].lo, bundle.plans[planOf[launch]].hi};
    return {bundle.symbols[symbol].min, bundle.symbols[symbol].max};
  };
  const SymRangeDesc *cur = nullptr; // the current bucket while a run is open
  size_t first = 0;                  // the run's first launch
  auto gap = [&](size_t i, const std::string &what) {
    const SymbolDesc &sym = bundle.symbols[cur->symbol];
    const auto [lo, hi] = bounds(first, cur->symbol);
    return Status::error(manifestAt(rangeOf[i] ? rangeOf[i]->line : 0) + "launch " +
                         std::to_string(i) + " of '" + bundle.launches[i].kernel + "'" + what +
                         ": the shape buckets of '" + sym.name + "' from launch " +
                         std::to_string(first) + " cover [" + std::to_string(lo) + ", " +
                         std::to_string(cur->hi) + "] and must go on in order to " +
                         (planOf[first] >= 0 ? "the plan's HI " : "MAX ") + std::to_string(hi) +
                         " (a run at " + std::to_string(cur->hi + 1) + " would run none of them)");
  };
  for (size_t i = 0; i < rangeOf.size(); ++i) {
    const SymRangeDesc *r = rangeOf[i];
    const bool done = cur && cur->hi == bounds(first, cur->symbol).second;
    if (cur && !done && planOf[i] != planOf[first])
      return gap(i, " starts another plan");
    if (!r) {
      if (cur && !done)
        return gap(i, " has no symrange");
      cur = nullptr;
      continue;
    }
    if (cur && r->symbol == cur->symbol && r->lo == cur->lo && r->hi == cur->hi)
      continue; // another launch of the same bucket
    if (cur && !done) {
      if (r->symbol != cur->symbol || r->lo != cur->hi + 1 ||
          r->hi > bounds(first, cur->symbol).second)
        return gap(i, ": its symrange [" + std::to_string(r->lo) + ", " + std::to_string(r->hi) +
                          "] does not continue them");
      cur = r;
      continue;
    }
    const SymbolDesc &sym = bundle.symbols[r->symbol];
    const auto [lo, hi] = bounds(i, r->symbol);
    const std::string label = manifestAt(r->line) + "symrange of launch " + std::to_string(i) +
                              " of '" + bundle.launches[i].kernel + "': [LO, HI] = [" +
                              std::to_string(r->lo) + ", " + std::to_string(r->hi) + "]";
    if (r->lo != lo)
      return Status::error(label + " starts shape buckets of '" + sym.name + "' but not at " +
                           (planOf[i] >= 0 ? "its plan's LO " : "MIN ") + std::to_string(lo) +
                           " (a run at " + std::to_string(lo) + " would run none of them)");
    if (r->hi > hi)
      return Status::error(label + " passes its plan's HI " + std::to_string(hi) +
                           " (the plan does not run there)");
    cur = r;
    first = i;
  }
  if (cur && cur->hi != bounds(first, cur->symbol).second)
    return gap(rangeOf.size() - 1, " (the last)");
  return Status::success();
}

/// The `symvalues` record: a `const` buffer of i32 [symbols.size()] holding each
/// symbol's max (the values at the bound, what the kernels were compiled at).
/// Requires validateSymbols() and valid buffers.
Status validateSymValues(const Bundle &bundle) {
  const std::string label =
      manifestAt(bundle.symValuesLine) + "symvalues " + std::to_string(bundle.symValuesBuffer);
  if (bundle.symbols.empty())
    return Status::error(label + ": the bundle has no symbols");
  if (bundle.symValuesBuffer < 0 ||
      static_cast<size_t>(bundle.symValuesBuffer) >= bundle.buffers.size())
    return Status::error(label + ": BUFFER_ID is out of range (" +
                         std::to_string(bundle.buffers.size()) + " buffers)");
  const BufferDesc &b = bundle.buffers[bundle.symValuesBuffer];
  const size_t n = bundle.symbols.size();
  if (b.kind != BufferKind::constant || b.dtype != DType::i32 || b.shape.size() != 1 ||
      b.shape[0] != static_cast<int64_t>(n))
    return Status::error(label + ": the buffer must be a const i32[" + std::to_string(n) +
                         "] (one element per symbol)");
  // validateBuffers checked that the data lies inside the weights section.
  for (size_t i = 0; i < n; ++i) {
    int32_t v = 0;
    std::memcpy(&v, bundle.weights.data() + b.offset + 4 * i, 4);
    if (v != bundle.symbols[i].max)
      return Status::error(label + ": element " + std::to_string(i) + " is " + std::to_string(v) +
                           ", not the max " + std::to_string(bundle.symbols[i].max) + " of '" +
                           bundle.symbols[i].name + "'");
  }
  return Status::success();
}

} // namespace

Status aicc::runtime::detail::validateSymbolicRecords(
    const Bundle &bundle, const std::unordered_map<std::string_view, const KernelDesc *> &kernels) {
  const bool symbolic =
      !bundle.symbols.empty() || !bundle.symDims.empty() || !bundle.symGrids.empty();
  if (symbolic) {
    if (Status s = validateSymbols(bundle); !s.ok)
      return s;
    if (Status s = validateSymDims(bundle); !s.ok)
      return s;
    if (Status s = validateSymGrids(bundle, kernels); !s.ok)
      return s;
  }
  // Records that need format version `version` and, when `needSymbols`, the bundle's
  // symbols; `what` is the message's subject and verb ("'plan' records need").
  auto records = [&](const char *what, int version, bool needSymbols, size_t line) {
    if (bundle.formatVersion < version)
      return Status::error(std::string(what) + " format version " + std::to_string(version) +
                           ", not " + std::to_string(bundle.formatVersion));
    if (needSymbols && !symbolic)
      return Status::error(manifestAt(line) + what + " symbols: the bundle has none");
    return Status::success();
  };
  if (!bundle.plans.empty()) {
    if (Status s = records("'plan' records need", kFormatVersionPlans, true, bundle.plans[0].line);
        !s.ok)
      return s;
    if (Status s = validatePlans(bundle); !s.ok)
      return s;
  }
  if (!bundle.symRanges.empty()) {
    if (Status s = records("'symrange' records need", kFormatVersionSymRanges, true,
                           bundle.symRanges[0].line);
        !s.ok)
      return s;
    if (Status s = validateSymRanges(bundle); !s.ok)
      return s;
  }
  if (bundle.symValuesBuffer >= 0 || bundle.symValuesLine) {
    if (Status s = records("the 'symvalues' record needs", kFormatVersionSymValues, false, 0);
        !s.ok)
      return s;
    if (Status s = validateSymValues(bundle); !s.ok)
      return s;
  }
  return Status::success();
}
