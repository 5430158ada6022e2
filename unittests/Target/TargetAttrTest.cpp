//===- TargetAttrTest.cpp - aicc.target / aicc.hardware module attributes ---===//
#include "aicc/Target/TargetAttr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace aicc;

namespace {

struct TargetAttrTest : ::testing::Test {
  MLIRContext ctx;
  std::string diagnostics;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  OwningOpRef<ModuleOp> module;
  void SetUp() override {
    handler = std::make_unique<ScopedDiagnosticHandler>(&ctx, [this](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    module = ModuleOp::create(UnknownLoc::get(&ctx));
  }
};

TEST_F(TargetAttrTest, AttachWritesBothAttributes) {
  ASSERT_TRUE(succeeded(attachTarget(*module, "sm_90a", "h200")));
  EXPECT_EQ((*module)->getAttrOfType<StringAttr>(kTargetAttrName).getValue(), "sm_90a");
  EXPECT_EQ((*module)->getAttrOfType<StringAttr>(kHardwareAttrName).getValue(), "h200");
  // Idempotent for the same chip.
  EXPECT_TRUE(succeeded(attachTarget(*module, "sm_90a", "h200")));
  EXPECT_EQ(diagnostics, "");
}

TEST_F(TargetAttrTest, AttachRefusesAnotherChip) {
  ASSERT_TRUE(succeeded(attachTarget(*module, "cpu", "h200")));
  EXPECT_TRUE(failed(attachTarget(*module, "sm_90", "h200")));
  EXPECT_NE(diagnostics.find("the module is for aicc.target = \"cpu\", not \"sm_90\""),
            std::string::npos)
      << diagnostics;
  // The module keeps what it had.
  EXPECT_EQ((*module)->getAttrOfType<StringAttr>(kTargetAttrName).getValue(), "cpu");
}

TEST_F(TargetAttrTest, AttachRefusesUnknownNames) {
  EXPECT_TRUE(failed(attachTarget(*module, "sm_75", "h200")));
  EXPECT_NE(diagnostics.find("unknown target 'sm_75'"), std::string::npos) << diagnostics;
  diagnostics.clear();
  // The hardware must be a GPU row.
  EXPECT_TRUE(failed(attachTarget(*module, "cpu", "cpu")));
  EXPECT_NE(diagnostics.find("unknown hardware 'cpu'"), std::string::npos) << diagnostics;
  EXPECT_FALSE((*module)->hasAttr(kTargetAttrName));
}

TEST_F(TargetAttrTest, ResolveOrder) {
  // No attribute: the fallback.
  EXPECT_EQ(resolveChip(*module, ChipRole::Target, "", "sm_80", "p")->name, "sm_80");
  ASSERT_TRUE(succeeded(attachTarget(*module, "sm_90a", "a100")));
  // From the nearest module carrying it, also for an op nested in an inner module.
  OpBuilder b(&ctx);
  b.setInsertionPointToStart(module->getBody());
  auto inner = ModuleOp::create(b, UnknownLoc::get(&ctx), llvm::StringRef("kernels"));
  EXPECT_EQ(resolveChip(inner, ChipRole::Target, "", "sm_80", "p")->name, "sm_90a");
  EXPECT_EQ(resolveChip(inner, ChipRole::Hardware, "", "h200", "p")->name, "sm_80");
  // An option wins.
  EXPECT_EQ(resolveChip(inner, ChipRole::Hardware, "h200", "h200", "p")->name, "sm_90");
  // A bad option is an error naming the pass.
  EXPECT_EQ(resolveChip(inner, ChipRole::Hardware, "tpu", "h200", "my-pass"), nullptr);
  EXPECT_NE(diagnostics.find("my-pass: unknown hardware 'tpu'"), std::string::npos) << diagnostics;
}

} // namespace
