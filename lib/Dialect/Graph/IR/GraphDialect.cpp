//===- GraphDialect.cpp - aicc graph dialect -------------------------------===//
#include "aicc/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace aicc::graph;

#include "aicc/Dialect/Graph/IR/GraphOpsDialect.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "aicc/Dialect/Graph/IR/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                             Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
