//===- AttachTarget.cpp - aicc-attach-target: the chip as module attributes ===//
#include "aicc/Conversion/Passes.h"
#include "aicc/Target/TargetAttr.h"

namespace aicc {
#define GEN_PASS_DEF_ATTACHTARGET
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

namespace {
struct AttachTargetPass : public aicc::impl::AttachTargetBase<AttachTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    if (mlir::failed(aicc::attachTarget(getOperation(), target, hardware)))
      signalPassFailure();
  }
};
} // namespace
