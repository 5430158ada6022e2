//===- MemoryPlan.h - Temps packed into one arena by lifetime --*- C++ -*-===//
//
// A launch plan runs its launches in manifest order on one stream, so a temp
// buffer is live from the first launch that passes it (or an alias of it) to
// the last one. Two temps whose lifetimes are disjoint may share memory. The
// compiler places every temp at an offset of one arena (planMemory, written to
// the bundle's `arena` record and the temps' OFFSET fields, format version 4);
// the runtime allocates the arena once and checks the placement when it reads
// a bundle (checkMemoryPlan, called by validateBundle).
//
// Model inputs, outputs and constants are never placed in the arena: the
// caller reads outputs after a run, and inputs and constants must survive
// every run.
//
// Nothing here depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_MEMORYPLAN_H
#define AICC_RUNTIME_MEMORYPLAN_H

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aicc::runtime {

/// Alignment of every temp's arena offset, in bytes: 256, the alignment
/// cuMemAlloc guarantees (CUDA driver API, cuMemAlloc: "suitably aligned for
/// any kind of variable"), so a temp in the arena is as aligned as one
/// allocated on its own (TMA needs 16 bytes, vector loads 16).
constexpr uint64_t kArenaAlignment = 256;

/// When one temp's memory is in use: launches first..last (manifest indices,
/// inclusive), counting every launch that passes the temp or an alias of it.
struct TempLifetime {
  /// Buffer id of the temp (kind temp, never an alias).
  int buffer = 0;
  /// Launch indices of its first and last use; first <= last.
  size_t first = 0, last = 0;
  /// Its bytes rounded up to kArenaAlignment (at least kArenaAlignment): what
  /// it occupies in the arena.
  uint64_t paddedBytes = 0;
};

/// The lifetimes of every temp that some launch uses, in buffer-id order. A
/// temp behind a model output (the output is an alias of it) is live to the
/// last launch: the caller reads it after the run.
/// Temps no launch passes (nothing reads or writes them) are left out: they
/// need no memory of their own and may sit anywhere in the arena. Requires a
/// bundle whose launches name valid buffer ids and whose alias sources precede
/// their aliases (validateBundle's checks). Linear in the records, plus the
/// number of launch parameters. Fails only when a padded size overflows.
Status computeTempLifetimes(const Bundle &bundle, std::vector<TempLifetime> &out);

/// What planMemory did, for reports (aicc-compile --memory-report).
struct MemoryPlanStats {
  /// Temps placed (those some launch uses) and temps no launch uses.
  size_t numTemps = 0, numUnusedTemps = 0;
  /// Temps placed at the bytes of a temp that their first launch reads for the
  /// last time, as that launch's kernel allows (InPlaceDesc).
  size_t numInPlace = 0;
  /// The arena's size in bytes.
  uint64_t arenaBytes = 0;
  /// The lower bound of any arena for this plan without in-place reuse: the
  /// largest sum of padded sizes of temps live at one launch. With in-place
  /// records the arena can be smaller.
  uint64_t peakLiveBytes = 0;
  /// Sum of every temp's padded size (used or not): what one allocation per
  /// temp takes.
  uint64_t unplannedBytes = 0;
  /// Bytes of the buffers outside the arena: model inputs, outputs and
  /// constants (each SIZE_BYTES once; aliases own nothing).
  uint64_t inputBytes = 0, outputBytes = 0, constantBytes = 0;
};

/// Places every temp of `bundle` in one arena: sets each temp's `offset` (a
/// multiple of kArenaAlignment) and `bundle.arenaBytes`, so that two temps live
/// at the same launch never overlap. Algorithm: the greedy placement of
/// Pisarchyk and Lee, "Efficient Memory Management for Deep Neural Net
/// Inference" (2020, arXiv:2001.03288, section 4.3): temps one at a time each go
/// into the smallest gap between the already-placed temps whose lifetimes
/// overlap theirs that fits, else above them all; run in three orders (by
/// decreasing size, their "greedy by size"; by the widest launch a temp is live
/// at, then size, a form of their "greedy by breadth"; by first use, then size)
/// and the smallest arena kept (ties: that order; size ties: earlier first
/// use, then lower id). In-place reuse first: where a launch's kernel declares an
/// (input, output) pair in place (KernelDesc::inPlace) over two temps of equal
/// SIZE_BYTES, the input first used by an earlier launch and not behind a
/// model output, its last use and the output's first use being that launch
/// and each passed once, the output takes the input's bytes (handoffs
/// taken in launch order; a chain of them is placed as one temp). Afterwards
/// each kernel keeps only the in-place records some handoff used. Deterministic.
/// O(n^2) in the number of temps, three times (a model of 10,000
/// temps plans in well under a second). Unused temps get offset 0. Requires a
/// validated bundle (validateBundle); the arena holds the unused temps too (their
/// contents can still be read). Fails only on size overflow (a sum above
/// 2^64), leaving the bundle unchanged.
Status planMemory(Bundle &bundle, MemoryPlanStats *stats = nullptr);

/// Checks the placement of a bundle with an arena (`bundle.arenaBytes` set):
/// every temp's offset is a multiple of kArenaAlignment, its bytes lie inside
/// the arena, and no two temps live at the same launch overlap, except a temp
/// that takes exactly the bytes of one its first launch may write over in
/// place (the conditions planMemory uses, from the bundle's inplace records).
/// Errors name
/// both temps, their byte ranges and the launch. O(n log n) in the temps, so a
/// hostile manifest cannot make it slow. Requires the checks validateBundle
/// makes before it (launch buffer ids in range, alias order). Bundles without
/// an arena pass.
Status checkMemoryPlan(const Bundle &bundle);

/// The memory report of aicc-compile --memory-report: arena bytes against the
/// peak-live lower bound and one allocation per temp, the bytes outside the
/// arena, then one line per temp (id, type, offset, padded bytes, launches).
std::string formatMemoryReport(const Bundle &bundle, const MemoryPlanStats &stats);

} // namespace aicc::runtime

#endif // AICC_RUNTIME_MEMORYPLAN_H
