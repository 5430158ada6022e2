//===- TargetAttr.h - the target chip carried in the IR as module attributes -*- C++ -*-===//
//
// A module compiled by aicc carries the chip it is compiled for, and the chip its code is
// tuned for, as two attributes of the top-level builtin.module:
//
//   module attributes {aicc.target = "sm_90a", aicc.hardware = "h200"} { ... }
//
//   - `aicc.target` names a row of the chip table (include/aicc/Target/Chip.h): the
//     instructions the lowerings may use (wgmma, TMA, mma.sync, cp.async) and the shared
//     memory a CTA may take;
//   - `aicc.hardware` names the GPU row whose SM count and roofline numbers the cost model,
//     the fusion rules and the tile configs are tuned with (a product alias such as "h200" or
//     a chip name).
//
// `aicc-attach-target` (the first pass of every pipeline aicc builds, lib/Pipelines) writes
// them; the passes that need a chip read them through resolveChip(). A pass's own option
// (graph-fuse{hardware=...}, convert-tile-dot-to-mma-sync{chip=...}) still overrides the
// attribute, so a pass can be run alone on IR that carries none.
//
//===----------------------------------------------------------------------------------===//
#ifndef AICC_TARGET_TARGETATTR_H
#define AICC_TARGET_TARGETATTR_H

#include "aicc/Target/Chip.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace aicc {

/// Name of the module attribute holding the target chip (a StringAttr, a chip-table name).
inline constexpr llvm::StringLiteral kTargetAttrName = "aicc.target";
/// Name of the module attribute holding the tuning hardware (a StringAttr, a GPU row's
/// name or product alias).
inline constexpr llvm::StringLiteral kHardwareAttrName = "aicc.hardware";

/// Writes `aicc.target = target` and `aicc.hardware = hardware` on `module`. Fails with an
/// error on `module` when a name is not a row of the chip table (hardware: not a GPU row),
/// or when the module already carries a different target or hardware: IR built for one chip
/// (tile configs chosen for its tensor-core path) is not re-lowered for another.
mlir::LogicalResult attachTarget(mlir::ModuleOp module, llvm::StringRef target,
                                 llvm::StringRef hardware);

/// What a pass resolves a chip for: the target chip or the tuning hardware.
enum class ChipRole { Target, Hardware };

/// The chip `op`'s pass works with, in order of precedence:
///   1. `option`, when non-empty (the pass's own option);
///   2. the `aicc.target` / `aicc.hardware` attribute (by `role`) of the nearest enclosing
///      builtin.module carrying it (`op` itself included);
///   3. `fallback` (the pass's documented default, e.g. "h200").
/// Emits "PASS: ..." on `op` and returns nullptr when the name found is not a row of the
/// chip table, or (role Hardware) not a GPU row. The returned row is static.
const ChipInfo *resolveChip(mlir::Operation *op, ChipRole role, llvm::StringRef option,
                            llvm::StringRef fallback, llvm::StringRef pass);

/// The name resolveChip() would look up (steps 1-3), without checking it.
std::string resolveChipName(mlir::Operation *op, ChipRole role, llvm::StringRef option,
                            llvm::StringRef fallback);

} // namespace aicc

#endif // AICC_TARGET_TARGETATTR_H
