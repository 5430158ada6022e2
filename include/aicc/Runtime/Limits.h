//===- Limits.h - Caps on what the runtime reads and allocates --*- C++ -*-===//
//
// A bundle and the tensors fed to it are untrusted input: every count the
// runtime derives from them is computed with overflow-checked arithmetic and
// compared with one of these caps before anything is read into memory or
// allocated (docs/bundle-format.md, "Limits"). Errors name the record, the
// field, the value and the cap, e.g.
//   manifest line 9: kernel 'k': grid 2147483648x1x1 is 2147483648 programs,
//   above the limit of 2147483647 (Limits::maxPrograms)
// The defaults admit every model aicc compiles for a single GPU or host and
// stop absurd values early; aicc-run sets the two memory caps with
// --max-file-bytes and --max-buffer-bytes.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_LIMITS_H
#define AICC_RUNTIME_LIMITS_H

#include <cstdint>

namespace aicc::runtime {

struct Limits {
  /// Largest file read whole, in bytes: a bundle (readBundleFile) or an input
  /// tensor file (aicc-run). 64 GiB.
  uint64_t maxFileBytes = uint64_t(64) << 30;
  /// Largest manifest section, in bytes: 16 MiB (a model of 10,000 kernels
  /// needs about 2 MiB). Bounds the number of records, hence the memory of the
  /// parsed plan.
  uint64_t maxManifestBytes = uint64_t(16) << 20;
  /// Largest total device (or host) memory of the plan, in bytes: the sum of
  /// SIZE_BYTES over every buffer the runtime allocates (all but aliases),
  /// which also bounds each buffer. 64 GiB (an H200 has 141 GB).
  uint64_t maxBufferBytes = uint64_t(64) << 30;
  /// Largest number of programs of one kernel, GX * GY * GZ: 2^31 - 1, CUDA's
  /// largest grid x (aicc maps programs to CUDA blocks, at most one to one).
  uint64_t maxPrograms = (uint64_t(1) << 31) - 1;
  /// Largest threads per GPU block, BX * BY * BZ: 1024, the limit of every
  /// NVIDIA GPU since sm_20 (the cpu target needs 1 1 1).
  uint64_t maxThreadsPerBlock = 1024;
  /// Largest dynamic shared memory of a launch, SHARED_BYTES: 256 KiB, above
  /// every GPU's per-block maximum (227 KiB on sm_90 and sm_100); the CUDA
  /// backend then checks the device's own limit.
  uint64_t maxSharedBytes = uint64_t(256) << 10;
  /// Largest NUM_PARAMS of a kernel: 4095, the most 8-byte pointers CUDA's
  /// 32764-byte kernel parameter space holds.
  uint64_t maxKernelParams = 4095;
};

} // namespace aicc::runtime

#endif // AICC_RUNTIME_LIMITS_H
