//===- SymbolGrids.cpp - the programs a run at a symbol value launches ------===//
//
// Bounded symbolic dims (docs/symbolic-shapes.md): the templates' tile.symgrid records, from
// the group's per-result symbolic dims (kGroupSymDimsAttrName): a flat grid over results
// that hold the run's elements as a prefix (setFlatSymGrid), and grids of rows for results
// whose symbol sits behind non-unit dims (symbolRows, setRowsSymGrid).
//
//===----------------------------------------------------------------------===//
#include "TemplateSupport.h"

namespace aicc::templates {

std::optional<ResultSymDim> groupResultSymDim(FusionGroupOp group, unsigned i) {
  auto list = group->getAttrOfType<ArrayAttr>(kGroupSymDimsAttrName);
  if (!list || i >= list.size())
    return std::nullopt;
  auto e = dyn_cast<DenseI64ArrayAttr>(list[i]);
  if (!e || e.size() != 4 || e[3] < 1)
    return std::nullopt;
  return ResultSymDim{e[0], e[1], e[2], e[3]};
}

void setFlatSymGrid(KernelContext &kc, int64_t axis, int64_t per, int64_t group,
                    bool equalResults) {
  std::optional<int64_t> symbol;
  int64_t unit = 0;
  int64_t first = cast<RankedTensorType>(kc.group->getResult(0).getType()).getNumElements();
  for (auto [i, r] : llvm::enumerate(kc.group->getResults())) {
    auto sd = groupResultSymDim(kc.group, i);
    auto t = cast<RankedTensorType>(r.getType());
    if (!sd || (symbol && *symbol != sd->symbol) || t.getNumElements() % sd->max != 0 ||
        (equalResults && t.getNumElements() != first))
      return;
    // Only a result whose symbolic dim is its first non-unit one holds a run's elements as
    // a prefix (buffers inside the model may keep the symbol in another dim).
    for (int64_t d = 0; d < sd->axis; ++d)
      if (t.getDimSize(d) != 1)
        return;
    symbol = sd->symbol;
    unit = std::max(unit, t.getNumElements() / sd->max);
  }
  if (!symbol || unit < 1 || per < 1 || group < 1)
    return;
  Builder b(kc.kernel.getContext());
  kc.kernel->setAttr(tl::kSymGridAttrName,
                     b.getDenseI64ArrayAttr({axis, *symbol, unit, per, group}));
}

std::optional<SymbolRows> symbolRows(FusionGroupOp group, bool sameInner) {
  SymbolRows rows;
  int64_t largest = -1;
  bool behind = false;
  for (auto [i, r] : llvm::enumerate(group->getResults())) {
    auto sd = groupResultSymDim(group, i);
    if (!sd || (i > 0 && sd->symbol != rows.symbol))
      return std::nullopt;
    auto t = cast<RankedTensorType>(r.getType());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < t.getRank(); ++d)
      (d < sd->axis ? outer : inner) *= t.getDimSize(d);
    if (inner % sd->max != 0)
      return std::nullopt;
    behind |= outer > 1;
    rows.symbol = sd->symbol;
    rows.results.push_back({outer, inner / sd->max});
    if (t.getNumElements() > largest) {
      largest = t.getNumElements();
      rows.outer = outer;
      rows.inner = inner;
      rows.unit = inner / sd->max;
    }
  }
  if (!behind || rows.outer > 65535)
    return std::nullopt;
  if (sameInner && llvm::any_of(rows.results, [&](auto &r) { return r.second != rows.unit; }))
    return std::nullopt;
  return rows;
}

Value rowsProgramIndex(OpBuilder &b, Location loc, int64_t perRow) {
  Value x = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  Value y = tl::ProgramIdOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(1));
  Value per = arith::ConstantIntOp::create(b, loc, b.getI32Type(), perRow);
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, y, per), x);
}

void setRowsSymGrid(KernelContext &kc, const SymbolRows &rows, int64_t per) {
  Builder b(kc.kernel.getContext());
  kc.kernel->setAttr(tl::kSymGridAttrName,
                     b.getDenseI64ArrayAttr({0, rows.symbol, rows.unit, per, 1}));
}

} // namespace aicc::templates
