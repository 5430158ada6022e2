//===- TileAssignLayouts.cpp - attach blocked layouts to tile ops ----------===//
#include "aicc/Dialect/Tile/Transforms/Passes.h"

namespace aicc::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "aicc/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace aicc::tile

using namespace mlir;
using namespace aicc::tile;

namespace {
struct TileAssignLayoutsPass
    : public aicc::tile::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  void runOnOperation() override {
    ScheduleAttr schedule = getSchedule(getOperation());
    if (!schedule)
      return;
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      auto t = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!t || !t.hasStaticShape() || t.getRank() == 0)
        return;
      op->setAttr("tile.layout",
                  BlockedLayoutAttr::getDefault(op->getContext(), t.getShape(),
                                                schedule.getNumWarps(), vecWidth));
    });
  }
};
} // namespace
