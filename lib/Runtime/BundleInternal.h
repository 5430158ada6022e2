//===- BundleInternal.h - Shared pieces of the bundle reader/writer -*- C++ -*-===//
//
// Private to lib/Runtime: constants of docs/bundle-format.md that the writer
// (Bundle.cpp), the validator (BundleValidate.cpp) and the reader
// (BundleParse.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_LIB_RUNTIME_BUNDLEINTERNAL_H
#define AICC_LIB_RUNTIME_BUNDLEINTERNAL_H

#include "aicc/Runtime/Bundle.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace aicc::runtime::detail {

/// The file's first 8 bytes (every version).
inline constexpr char kMagic[8] = {'A', 'I', 'C', 'C', 'B', 'N', 'D', '1'};
/// Version 1: no tensor maps; version 2 adds the `tensormap` record; version 3
/// adds `param` records and the closing `checksum` record; version 4 the
/// `arena` record (the memory plan) and the temps' arena offsets; version 5 the
/// `inplace` record; version 6 the `symbol`, `symdim` and `symgrid` records
/// (bounded symbolic dims); version 7 the `symvalues` record; version 8
/// `symdim` records whose dims before AXIS are not all 1 (rows at the bound's
/// pitch: TensorInfo::layoutAt); version 9 the `symrange` record (launches
/// that run at some values of a symbol only: kernel variants per shape bucket);
/// version 10 the `plan` record (whole launch plans per range of a symbol).
inline constexpr int kFormatVersionPlain = 1;
inline constexpr int kFormatVersionTensorMaps = 2;
inline constexpr int kFormatVersionChecksums = 3;
inline constexpr int kFormatVersionArena = 4;
inline constexpr int kFormatVersionInPlace = 5;
inline constexpr int kFormatVersionSymbols = 6;
inline constexpr int kFormatVersionSymValues = 7;
inline constexpr int kFormatVersionPitchedSymDims = 8;
inline constexpr int kFormatVersionSymRanges = 9;
inline constexpr int kFormatVersionPlans = 10;
/// The newest version this reader knows (kBundleFormatVersion).
inline constexpr int kFormatVersionNewest = kFormatVersionPlans;
static_assert(kFormatVersionNewest == kBundleFormatVersion);
/// The largest MAX of a `symbol` record: 2^31 - 1.
inline constexpr int64_t kMaxSymbolValue = 2147483647;
/// Alignment of const data and bound values inside the weights section.
inline constexpr uint64_t kConstAlignment = 64;
/// The checksum record's first two fields; the hash name is part of the
/// format so that another hash could follow.
inline constexpr std::string_view kChecksumRecord = "checksum xxh64 ";

/// True for `cpu`, `sm_NN`, `sm_NNa`, `sm_NNf`.
bool isValidTarget(std::string_view target);

/// 16 lower-case hex digits of `v` (a checksum field).
std::string formatHex64(uint64_t v);

/// The programs a `symgrid` record asks for at symbol value `value` (>= 0):
/// GROUP x ceil(value x UNIT / PER). std::nullopt when a factor is below 1 or
/// the product overflows int64_t.
std::optional<int64_t> symGridPrograms(const SymGridDesc &g, int64_t value);

/// "manifest line N: " for a record read from a file; "" when built in memory.
inline std::string manifestAt(size_t line) {
  return line ? "manifest line " + std::to_string(line) + ": " : std::string();
}

/// "buffer ID", for messages.
inline std::string bufferLabel(int id) { return "buffer " + std::to_string(id); }

/// validateBundle's checks of the symbolic records (BundleValidateSymbolic.cpp): symbols,
/// symdims, symgrids (against `kernels`, by name), plans, symranges, symvalues, each with
/// its format version. Requires valid buffers, kernels and launches.
Status
validateSymbolicRecords(const Bundle &bundle,
                        const std::unordered_map<std::string_view, const KernelDesc *> &kernels);

/// The index into bundle.plans of the plan each launch belongs to (the last plan whose
/// firstLaunch is at or before it), -1 for launches before the first plan and for every
/// launch of a bundle without plans. One entry per launch.
std::vector<int> launchPlans(const Bundle &bundle);

} // namespace aicc::runtime::detail

#endif // AICC_LIB_RUNTIME_BUNDLEINTERNAL_H
