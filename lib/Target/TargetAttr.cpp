//===- TargetAttr.cpp - aicc.target / aicc.hardware module attributes -----===//
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

static llvm::StringRef attrName(aicc::ChipRole role) {
  return role == aicc::ChipRole::Target ? aicc::kTargetAttrName : aicc::kHardwareAttrName;
}

LogicalResult aicc::attachTarget(ModuleOp module, llvm::StringRef target,
                                 llvm::StringRef hardware) {
  if (!lookupChip(target))
    return module.emitError("aicc-attach-target: unknown target '")
           << target << "' (" << chipNames() << ")";
  if (const ChipInfo *hw = lookupChip(hardware); !hw || !hw->isGPU)
    return module.emitError("aicc-attach-target: ") << unknownHardwareMessage(hardware);
  for (auto [name, value] : {std::pair{kTargetAttrName, target}, {kHardwareAttrName, hardware}}) {
    if (auto old = module->getAttrOfType<StringAttr>(name)) {
      if (old.getValue() != value)
        return module.emitError("aicc-attach-target: the module is for ")
               << name << " = \"" << old.getValue() << "\", not \"" << value
               << "\" (IR built for one chip is not re-lowered for another: compile it "
                  "again from an earlier stage)";
      continue;
    }
    if (module->hasAttr(name))
      return module.emitError("aicc-attach-target: ") << name << " is not a string";
    module->setAttr(name, StringAttr::get(module.getContext(), value));
  }
  return success();
}

std::string aicc::resolveChipName(Operation *op, ChipRole role, llvm::StringRef option,
                                  llvm::StringRef fallback) {
  if (!option.empty())
    return option.str();
  for (Operation *p = op; p; p = p->getParentOp())
    if (isa<ModuleOp>(p))
      if (auto a = p->getAttrOfType<StringAttr>(attrName(role)))
        return a.getValue().str();
  return fallback.str();
}

const aicc::ChipInfo *aicc::resolveChip(Operation *op, ChipRole role, llvm::StringRef option,
                                        llvm::StringRef fallback, llvm::StringRef pass) {
  std::string name = resolveChipName(op, role, option, fallback);
  const ChipInfo *c = lookupChip(name);
  if (role == ChipRole::Hardware && (!c || !c->isGPU)) {
    op->emitError() << pass << ": " << unknownHardwareMessage(name);
    return nullptr;
  }
  if (!c) {
    op->emitError() << pass << ": unknown target '" << name << "' (" << chipNames() << ")";
    return nullptr;
  }
  return c;
}
