//===- SpecializedPlans.cpp - a whole launch plan for one value of a symbol ----------===//
//
// aicc-compile --specialize NAME=V (docs/symbolic-shapes.md, "Specialized plans"): the
// model compiled for one shape (symbol NAME fixed at V) joins the bundle compiled for the
// symbol's range as a second launch plan over the same inputs, outputs and weights. A run
// at V takes the specialized plan (format version 10 `plan` records), a run at any other
// value the range's. This is TensorRT's optimization profiles and XLA's per-shape
// executables in one bundle: where the bound's graph keeps a run at one value from its best
// code (a decode step of one token: matrix-vector products instead of the bound's GEMMs, a
// batch of prompts whose rows lie at the bound's pitch), the value gets the code a bundle
// for that shape alone has.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "aicc/Runtime/XXHash64.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
namespace rt = aicc::runtime;

llvm::Error aicc::detail::checkSpecializations(
    const std::vector<std::pair<std::string, int64_t>> &specializations,
    llvm::ArrayRef<SymbolRange> symbols, bool bundleOutput) {
  for (const auto &[name, value] : specializations) {
    const std::string what = "--specialize " + name + "=" + std::to_string(value);
    auto sym = llvm::find_if(symbols, [&](const SymbolRange &s) { return s.name == name; });
    if (sym == symbols.end())
      return llvm::createStringError(what + ": '" + name +
                                     "' is not a symbolic range of this compile (--dim " + name +
                                     "=MIN..MAX with MIN < MAX)");
    if (specializations.size() != 1)
      return llvm::createStringError(what + ": one --specialize per compile (a bundle holds "
                                            "the range's plan and one specialized plan)");
    if (symbols.size() != 1)
      return llvm::createStringError(what +
                                     ": a specialized plan needs exactly one symbolic "
                                     "range (this compile has " +
                                     std::to_string(symbols.size()) + ")");
    if (!bundleOutput)
      return llvm::createStringError(
          what + ": the specialized plan is built into the bundle; it does not apply to "
                 "--emit of another stage, --fusion-report or --memory-report (drop "
                 "--specialize there: they show the range's compile)");
    if (value != sym->min && value != sym->max)
      return llvm::createStringError(
          what + ": V must be the range's MIN " + std::to_string(sym->min) + " or MAX " +
          std::to_string(sym->max) + " (the range's plan runs the other values, one range)");
  }
  return llvm::Error::success();
}

std::string aicc::detail::specializedKernelPrefix(StringRef name, int64_t value) {
  // NAME<V>_: a PTX identifier's start (a letter first, then letters, digits, _).
  std::string prefix;
  for (char c : name)
    prefix += llvm::isAlnum(c) ? c : '_';
  if (prefix.empty() || !llvm::isAlpha(prefix[0]))
    prefix = "plan_" + prefix;
  return prefix + std::to_string(value) + "_";
}

llvm::Error aicc::detail::joinSpecializedPlan(ModuleOp range, rt::Bundle &plan, ModuleOp spec,
                                              int64_t value, bool gpu) {
  auto p = buildBundlePlan(spec, collectKernelInfo(spec), gpu);
  if (failed(p) || failed(moveKernels(spec, range)))
    return llvm::createStringError("building its launch plan failed");
  return mergeSpecializedPlan(plan, *p, 0, value);
}

LogicalResult aicc::detail::prefixKernels(ModuleOp top, StringRef prefix) {
  Operation *kernels = findKernels(top);
  if (!kernels)
    return top.emitError("no kernels module to rename"), failure();
  SmallVector<Operation *> symbols;
  for (Operation &op : kernels->getRegion(0).front())
    if (SymbolTable::getSymbolName(&op))
      symbols.push_back(&op);
  for (Operation *op : symbols) {
    StringAttr name = SymbolTable::getSymbolName(op);
    StringAttr renamed = StringAttr::get(top.getContext(), prefix + name.getValue());
    if (failed(SymbolTable::replaceAllSymbolUses(op, renamed, top)))
      return op->emitError("cannot rename the uses of @") << name.getValue(), failure();
    SymbolTable::setSymbolName(op, renamed);
  }
  return success();
}

LogicalResult aicc::detail::moveKernels(ModuleOp from, ModuleOp into) {
  Operation *src = findKernels(from), *dst = findKernels(into);
  if (!src || !dst)
    return into.emitError("no kernels module to merge"), failure();
  SymbolTable table(dst);
  Block &to = dst->getRegion(0).front();
  for (Operation &op : llvm::make_early_inc_range(src->getRegion(0).front())) {
    if (StringAttr name = SymbolTable::getSymbolName(&op); name && table.lookup(name))
      return op.emitError("kernel @")
                 << name.getValue() << " of the specialized plan is already in the module",
             failure();
    op.moveBefore(&to, to.end());
  }
  return success();
}

namespace {
/// The root buffer of `id` (aliases followed to their source).
int rootOf(const rt::Bundle &b, int id) {
  while (b.buffers[id].kind == rt::BufferKind::alias)
    id = static_cast<int>(b.buffers[id].offset);
  return id;
}

/// The records of `list` (inputs or outputs) of the two plans agree: names, order, dtypes.
llvm::Error sameIO(const std::vector<rt::IODesc> &a, const std::vector<rt::IODesc> &b,
                   const rt::Bundle &ab, const rt::Bundle &bb, const char *what) {
  if (a.size() != b.size())
    return llvm::createStringError(std::string("the specialized plan has ") +
                                   std::to_string(b.size()) + " " + what + ", the range's " +
                                   std::to_string(a.size()));
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].index != b[i].index ||
        ab.buffers[a[i].bufferId].dtype != bb.buffers[b[i].bufferId].dtype)
      return llvm::createStringError(std::string(what) + " " + std::to_string(i) + " ('" +
                                     a[i].name + "') differs between the two plans");
  return llvm::Error::success();
}
} // namespace

llvm::Error aicc::detail::mergeSpecializedPlan(rt::Bundle &a, const rt::Bundle &b, int symbol,
                                               int64_t value) {
  if (symbol < 0 || symbol >= (int)a.symbols.size())
    return llvm::createStringError("no symbol #" + std::to_string(symbol));
  const rt::SymbolDesc &sym = a.symbols[symbol];
  if (!a.plans.empty())
    return llvm::createStringError("--specialize: one value per bundle (the bundle already "
                                   "has specialized plans)");
  if (sym.min == sym.max || (value != sym.min && value != sym.max))
    return llvm::createStringError(
        "--specialize " + sym.name + "=" + std::to_string(value) + ": the value must be the " +
        "range's MIN " + std::to_string(sym.min) + " or MAX " + std::to_string(sym.max) +
        " (the range's plan then runs the rest of [MIN, MAX], one range)");
  if (!b.symbols.empty() || !b.symRanges.empty() || !b.symGrids.empty() || b.symValuesBuffer >= 0)
    return llvm::createStringError("the specialized plan must be for one shape");
  if (llvm::Error e = sameIO(a.inputs, b.inputs, a, b, "inputs"))
    return e;
  if (llvm::Error e = sameIO(a.outputs, b.outputs, a, b, "outputs"))
    return e;
  if (a.boundInputs.size() != b.boundInputs.size())
    return llvm::createStringError("the two plans bind different inputs");
  const int64_t lo = value == sym.min ? sym.min + 1 : sym.min;
  const int64_t hi = value == sym.min ? sym.max : sym.max - 1;

  // The range's launches: shape buckets clipped to [lo, hi]; a bucket outside it is dropped
  // (with its symgrid records and, when no launch is left, its kernel record).
  {
    std::vector<int> newIndex(a.launches.size(), -1);
    std::vector<const rt::SymRangeDesc *> rangeOf(a.launches.size(), nullptr);
    for (const rt::SymRangeDesc &r : a.symRanges)
      rangeOf[r.launchIndex] = &r;
    std::vector<rt::LaunchDesc> launches;
    std::vector<rt::SymRangeDesc> ranges;
    for (size_t i = 0; i < a.launches.size(); ++i) {
      const rt::SymRangeDesc *r = rangeOf[i];
      if (r && r->symbol == symbol && (r->hi < lo || r->lo > hi))
        continue;
      newIndex[i] = (int)launches.size();
      launches.push_back(a.launches[i]);
      if (r) {
        rt::SymRangeDesc c = *r;
        c.launchIndex = newIndex[i];
        if (c.symbol == symbol) {
          c.lo = std::max(c.lo, lo);
          c.hi = std::min(c.hi, hi);
        }
        ranges.push_back(c);
      }
    }
    std::vector<rt::SymGridDesc> grids;
    for (rt::SymGridDesc g : a.symGrids)
      if (newIndex[g.launchIndex] >= 0) {
        g.launchIndex = newIndex[g.launchIndex];
        grids.push_back(g);
      }
    a.launches = std::move(launches);
    a.symRanges = std::move(ranges);
    a.symGrids = std::move(grids);
    llvm::erase_if(a.kernels, [&](const rt::KernelDesc &k) {
      return llvm::none_of(a.launches, [&](const rt::LaunchDesc &l) { return l.kernel == k.name; });
    });
  }
  if (a.launches.empty() || b.launches.empty())
    return llvm::createStringError("a plan without launches cannot be specialized");

  // b's inputs and outputs live in a's: the same memory for the same tensor, as an alias of
  // b's shape where it is smaller. An output is its root buffer's memory: the model's own
  // (input / output), a temp it is a view of (a Reshape at the end), or a constant (an
  // output computed from initializers alone, which the constants below share by content).
  // The two plans must agree on which of them share memory (an output written over an
  // input in one plan and beside it in the other would not).
  std::map<int, int> ioRoot; // b's root -> a's root
  std::map<int, int> ioRootBack;
  auto bindIO = [&](int bId, int aId, const std::string &what) -> llvm::Error {
    int rb = rootOf(b, bId), ra = rootOf(a, aId);
    auto kb = b.buffers[rb].kind, ka = a.buffers[ra].kind;
    if ((kb == rt::BufferKind::constant) != (ka == rt::BufferKind::constant))
      return llvm::createStringError(what + " is a constant in one plan and computed in the "
                                            "other");
    if (kb == rt::BufferKind::constant)
      return llvm::Error::success(); // shared by content below (checked there)
    auto [it, fresh] = ioRoot.emplace(rb, ra);
    auto [back, freshBack] = ioRootBack.emplace(ra, rb);
    if (it->second != ra || back->second != rb)
      return llvm::createStringError(
          what + " shares memory with another input or output in one plan and not in the "
                 "other (each plan updates it in place or not: compile both the same way)");
    return llvm::Error::success();
  };
  for (size_t i = 0; i < b.inputs.size(); ++i)
    if (llvm::Error e = bindIO(b.inputs[i].bufferId, a.inputs[i].bufferId,
                               "input '" + b.inputs[i].name + "'"))
      return e;
  for (size_t i = 0; i < b.outputs.size(); ++i)
    if (llvm::Error e = bindIO(b.outputs[i].bufferId, a.outputs[i].bufferId,
                               "output '" + b.outputs[i].name + "'"))
      return e;

  // Constants by content: the specialized plan reads a's copy of a weight both hold.
  std::map<std::pair<uint64_t, uint64_t>, std::vector<int>> constOf; // (bytes, hash) -> ids
  auto bytesOf = [](const rt::Bundle &x, const rt::BufferDesc &d) {
    return std::string_view(x.weights).substr(d.offset, d.sizeBytes);
  };
  for (const rt::BufferDesc &d : a.buffers)
    if (d.kind == rt::BufferKind::constant && d.id != a.symValuesBuffer)
      constOf[{d.sizeBytes, rt::xxHash64(bytesOf(a, d))}].push_back(d.id);

  std::vector<int> map(b.buffers.size(), -1);
  auto add = [&](rt::BufferDesc d) {
    d.id = (int)a.buffers.size();
    d.line = 0;
    a.buffers.push_back(d);
    return d.id;
  };
  for (const rt::BufferDesc &d : b.buffers) {
    // The root of an input or output (of any kind but const): a's root of the same tensor.
    if (auto it = ioRoot.find(d.id); it != ioRoot.end()) {
      const rt::BufferDesc &q = a.buffers[it->second];
      if (q.shape == d.shape && q.dtype == d.dtype) {
        map[d.id] = q.id;
        continue;
      }
      if (rt::dtypeSize(q.dtype) != rt::dtypeSize(d.dtype) || d.sizeBytes > q.sizeBytes)
        return llvm::createStringError("buffer " + std::to_string(d.id) + " " +
                                       rt::formatTensorType(d.dtype, d.shape) +
                                       " of the specialized plan does not fit the range's " +
                                       rt::formatTensorType(q.dtype, q.shape));
      rt::BufferDesc v = d;
      v.kind = rt::BufferKind::alias;
      v.offset = q.id;
      map[d.id] = add(v);
      continue;
    }
    switch (d.kind) {
    case rt::BufferKind::input:
    case rt::BufferKind::output:
      return llvm::createStringError("buffer " + std::to_string(d.id) +
                                     " of the specialized plan is an input or output of none");
    case rt::BufferKind::constant: {
      std::string_view bytes = bytesOf(b, d);
      int found = -1;
      auto it = constOf.find({d.sizeBytes, rt::xxHash64(bytes)});
      if (it != constOf.end())
        for (int id : it->second)
          if (a.buffers[id].dtype == d.dtype && a.buffers[id].shape == d.shape &&
              bytesOf(a, a.buffers[id]) == bytes) {
            found = id;
            break;
          }
      if (found < 0) {
        while (a.weights.size() % 64)
          a.weights.push_back(0);
        rt::BufferDesc c = d;
        c.offset = a.weights.size();
        a.weights += bytes;
        found = add(c);
      }
      map[d.id] = found;
      break;
    }
    case rt::BufferKind::temp: {
      rt::BufferDesc t = d;
      t.offset = 0; // planMemory places it
      map[d.id] = add(t);
      break;
    }
    case rt::BufferKind::alias: {
      rt::BufferDesc v = d;
      v.offset = map[d.offset];
      map[d.id] = add(v);
      break;
    }
    }
  }
  // An output computed from constants alone: the same constant in both plans.
  for (size_t i = 0; i < b.outputs.size(); ++i) {
    int rb = rootOf(b, b.outputs[i].bufferId), ra = rootOf(a, a.outputs[i].bufferId);
    if (b.buffers[rb].kind == rt::BufferKind::constant && rootOf(a, map[rb]) != ra)
      return llvm::createStringError("output '" + b.outputs[i].name +
                                     "' is a different constant in the two plans");
  }
  for (const rt::KernelDesc &k : b.kernels) {
    if (a.findKernel(k.name))
      return llvm::createStringError("kernel '" + k.name + "' is in both plans");
    a.kernels.push_back(k);
  }
  const int first = (int)a.launches.size();
  for (rt::LaunchDesc l : b.launches) {
    for (int &id : l.buffers)
      id = map[id];
    l.line = 0;
    a.launches.push_back(std::move(l));
  }
  a.plans.push_back({0, symbol, lo, hi, /*packed=*/false, 0});
  a.plans.push_back({first, symbol, value, value, /*packed=*/true, 0});
  return llvm::Error::success();
}
