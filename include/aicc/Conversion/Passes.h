//===- Passes.h - aicc conversion passes ------------------------*- C++ -*-===//
#ifndef AICC_CONVERSION_PASSES_H
#define AICC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace aicc {
/// Name of the nested module holding the tile kernels (builtin.module before
/// convert-tile-to-gpu, gpu.module after it).
constexpr llvm::StringLiteral kKernelModuleName = "kernels";

/// The `builtin.module @kernels` nested in `top` (tile kernels before the target lowering), or
/// null when there is none.
inline mlir::ModuleOp getTileKernelModule(mlir::ModuleOp top) {
  for (auto m : top.getOps<mlir::ModuleOp>())
    if (m.getSymName() == kKernelModuleName)
      return m;
  return {};
}

#define GEN_PASS_DECL
#include "aicc/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "aicc/Conversion/Passes.h.inc"
} // namespace aicc

#endif
