//===- Backend.h - Device backends behind aicc::runtime::Session -*- C++ -*-===//
//
// Private to lib/Runtime. A LoadedModel holds a bundle's code and constants on one
// device; a backend (one per session) owns the device copy of every other buffer and
// executes the launch plan. Session does the input checking (and binds the symbols of
// a bundle with symbolic dims); a backend may assume valid buffer ids, sizes and symbol
// values.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_LIB_RUNTIME_BACKEND_H
#define AICC_LIB_RUNTIME_BACKEND_H

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace aicc::runtime::detail {

/// What Session::create passes to a backend (SessionOptions, resolved).
struct BackendOptions {
  /// CUDA: replay the plan as one captured CUDA graph.
  bool cudaGraphs = true;
};

/// One copy between a caller's buffer and a plan buffer (runAsync).
struct DeviceCopy {
  /// The plan buffer.
  int buffer = 0;
  /// The caller's memory: a CUdeviceptr (cuda) or a host address (cpu).
  uint64_t address = 0;
  /// The caller's bytes, contiguous.
  size_t bytes = 0;
  /// In the plan buffer: `rows` runs of bytes / rows bytes, `pitch` bytes apart
  /// (TensorInfo::layoutAt); rows 1: the first `bytes` bytes.
  size_t rows = 1;
  size_t pitch = 0;
};

/// Copies `rows` runs of `rowBytes` bytes from `src` (runs `srcPitch` bytes
/// apart) to `dst` (runs `dstPitch` bytes apart), host memory.
void copyRows(void *dst, size_t dstPitch, const void *src, size_t srcPitch, size_t rows,
              size_t rowBytes);

class Backend {
public:
  virtual ~Backend() = default;

  /// Copies `bytes` contiguous bytes from host memory `src` into buffer `id`: the
  /// first `bytes`, or with `rows` > 1 `rows` runs of bytes / rows bytes, `pitch`
  /// bytes apart (DeviceCopy).
  virtual Status writeBuffer(int id, const void *src, size_t bytes, size_t rows, size_t pitch) = 0;
  /// Copies `bytes` bytes of buffer `id` to host memory `dst`, contiguous (`rows`,
  /// `pitch`: as writeBuffer).
  virtual Status readBuffer(int id, void *dst, size_t bytes, size_t rows, size_t pitch) = 0;
  /// Sets the first `bytes` bytes of buffer `id` to `byte`; done on the device
  /// before any later launch or copy starts.
  virtual Status fillBuffer(int id, uint8_t byte, size_t bytes) = 0;
  /// Runs every launch in order and waits until all have finished.
  virtual Status execute() = 0;
  /// Runs launch `index` (manifest order, in range) alone and waits until it
  /// has finished.
  virtual Status executeLaunch(size_t index) = 0;
  /// One warm-up execute(), then `iters` back-to-back passes; `perRunMs`
  /// gets each pass's milliseconds in order (cuda: between consecutive events
  /// recorded on the stream between passes, so they sum to the time of all
  /// passes).
  virtual Status benchmark(int iters, std::vector<double> &perRunMs) = 0;
  /// Copies `inputs` from the caller's memory into their buffers, runs the
  /// plan and copies the buffers of `outputs` to the caller's memory, all
  /// enqueued on `stream` (a CUstream; nullptr: the legacy default stream)
  /// without waiting (cuda); the cpu backend runs it before returning and
  /// takes only a null stream.
  virtual Status runAsync(const std::vector<DeviceCopy> &inputs,
                          const std::vector<DeviceCopy> &outputs, void *stream) = 0;
  /// Session::run() without an observer: copies `inputs` from host memory (each
  /// `address` a host pointer) into their buffers, runs the plan, copies the buffers
  /// of `outputs` to host memory, and waits for all of it. The cuda backend stages
  /// the copies through page-locked memory of its own, allocated at the first call
  /// (DMA transfers enqueued with the launches, one wait), and copies from pageable
  /// memory when none can be had.
  virtual Status runHost(const std::vector<DeviceCopy> &inputs,
                         const std::vector<DeviceCopy> &outputs) = 0;
  /// Sets the symbol values (one per plan symbol, Bundle::symbols order, each in its
  /// range) that the later execute(), executeLaunch(), benchmark(), runAsync() and
  /// runHost() calls run at: each launch runs the grid launchGridsAt() gives (the
  /// kernels' recorded grids without `symgrid` records). A backend starts with every
  /// symbol at its max. Work already enqueued keeps the grids it was enqueued with.
  virtual Status bindSymbols(const std::vector<int64_t> &values) = 0;
  /// The address of buffer `id`'s memory in this session (a CUdeviceptr, or a host
  /// address for cpu): the session's own for inputs, outputs and temps, the model's
  /// for constants, the root's for aliases (layoutBuffers), the session's copy for the
  /// `symvalues` buffer. Fixed from load() on.
  virtual uint64_t bufferAddress(int id) const = 0;
  /// True when execute() replays a CUDA graph.
  virtual bool usesGraphs() const { return false; }
};

/// Every symbol of `plan` at its max: the binding a backend starts with.
std::vector<int64_t> symbolMaxima(const Bundle &plan);

/// The grid (x, y, z programs) of every launch of `plan`, in manifest order, at symbol
/// values `values` (one per plan symbol, each in its range): the launch's kernel's
/// recorded grid, with the axis of each of the launch's `symgrid` records set to
/// GROUP x ceil(v x UNIT / PER) (symGridPrograms), never above the recorded count;
/// {0, 0, 0} for a launch whose `symrange` excludes the values (another shape bucket's
/// kernel: the backends skip it). Requires a validated plan (which bounds every product;
/// docs/bundle-format.md, "Symbolic dims").
std::vector<std::array<int64_t, 3>> launchGridsAt(const Bundle &plan,
                                                  const std::vector<int64_t> &values);

/// Follows alias records to the buffer that owns the memory of buffer `id`.
/// Requires a validated bundle (alias sources precede the alias).
inline int resolveAliasRoot(const Bundle &bundle, int id) {
  while (bundle.buffers[id].kind == BufferKind::alias)
    id = static_cast<int>(bundle.buffers[id].offset);
  return id;
}

/// Index into bundle.kernels of each launch's kernel, by hashed name lookup (linear in the
/// number of records, however many a manifest holds). Requires a validated bundle (every
/// launch names a kernel).
inline std::vector<size_t> launchKernelIndices(const Bundle &bundle) {
  std::unordered_map<std::string_view, size_t> byName;
  for (size_t k = 0; k < bundle.kernels.size(); ++k)
    byName.emplace(bundle.kernels[k].name, k);
  std::vector<size_t> out;
  out.reserve(bundle.launches.size());
  for (const LaunchDesc &l : bundle.launches) {
    auto it = byName.find(l.kernel);
    out.push_back(it == byName.end() ? 0 : it->second); // validated: always found
  }
  return out;
}

/// A bundle's code and constants loaded on one device: the state every session of
/// one Model shares. Immutable after loading, so sessions on several threads read it
/// at once. Each backend derives its own kind (CPUBackend.cpp, CUDABackend.cpp) and
/// makes sessions only of models it loaded.
class LoadedModel {
public:
  virtual ~LoadedModel() = default;
  /// The bundle without its code and weights sections (planOf): buffers, IO, kernels,
  /// launches and the arena, which each session lays out again.
  Bundle plan;
  /// Address of each constant buffer on the device (a CUdeviceptr, or a host address
  /// for cpu), by buffer id; 0 for every other kind.
  std::vector<uint64_t> constantAddresses;
  /// Bytes allocated for the constants (each SIZE_BYTES, at least 1).
  uint64_t constantBytes = 0;
};

/// `bundle` without its code and weights (copies every other field).
Bundle planOf(const Bundle &bundle);

/// The address of every buffer of a session: constants at the model's addresses, temps
/// at `arena + offset` when the plan has an arena, inputs, outputs and (without an arena)
/// temps from `own`, aliases at their root's. `own` is indexed by buffer id.
std::vector<uint64_t> layoutBuffers(const LoadedModel &model, uint64_t arena,
                                    const std::vector<uint64_t> &own);

/// Loads the code and constants of a validated cpu-target bundle (CPUBackend.cpp).
Status loadCPUModel(const Bundle &bundle, std::shared_ptr<const LoadedModel> &out);
/// A session backend over a model loadCPUModel made.
Status createCPUBackend(std::shared_ptr<const LoadedModel> model, std::unique_ptr<Backend> &out);

/// Loads the code and constants of a validated sm_*-target bundle on CUDA device
/// `deviceIndex` through the driver (CUDABackend.cpp; a stub that always fails when the
/// runtime is built without cuda.h).
Status loadCUDAModel(const Bundle &bundle, int deviceIndex,
                     std::shared_ptr<const LoadedModel> &out);
/// A session backend (its own stream, buffers and graph) over a model loadCUDAModel
/// made.
Status createCUDABackend(std::shared_ptr<const LoadedModel> model, const BackendOptions &options,
                         std::unique_ptr<Backend> &out);

} // namespace aicc::runtime::detail

#endif // AICC_LIB_RUNTIME_BACKEND_H
