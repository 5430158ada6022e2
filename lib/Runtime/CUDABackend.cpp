//===- CUDABackend.cpp - a session of a cuda model (the CUDA driver API) ------===//
//
// Compiled only when cuda.h is available (AICC_RUNTIME_HAVE_CUDA), but never
// linked against libcuda: the driver is dlopen'ed on first use, so binaries
// built here start on machines without an NVIDIA driver and report a clear
// error when a cuda session is requested there.
//
// Only cuda.h's types and prototypes are used; every entry point is resolved
// with dlsym under its versioned ABI name (the name cuda.h's macros map the
// plain name to, e.g. cuMemAlloc -> cuMemAlloc_v2).
//
// Kernels with `tensormap` records (Hopper TMA, docs/bundle-format.md) get one
// CUtensorMap per map and launch, encoded at load time with
// cuTensorMapEncodeTiled over the launch's buffer and passed by value after the
// buffer pointers.
//
// A bundle with `symgrid` records (bounded symbolic dims) launches the grids of the
// current symbol values; since a captured graph bakes its grids, the session keeps one
// graph per binding (at most kMaxCudaGraphsPerSession, the least recently used evicted).
//
//===----------------------------------------------------------------------===//
#include "CUDAModel.h"

#include "aicc/Runtime/Session.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

namespace {

struct CUDALaunch {
  std::string kernel;
  CUfunction function = nullptr;
  /// The grid at the current symbol values (the kernel's recorded grid without
  /// `symgrid` records).
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Device addresses of the buffer parameters.
  std::vector<CUdeviceptr> args;
  /// The kernel's tensor maps (KernelDesc::tensorMaps order), encoded for this
  /// launch's buffers. Heap storage: the addresses survive moving the launch.
  std::vector<TensorMapStorage> tensorMaps;
  /// cuLaunchKernel's kernelParams: `&args[i]` for each buffer, then
  /// `&tensorMaps[j]` for each map. Filled once the launch no longer moves.
  std::vector<void *> params;
};

/// One captured launch plan: its graph, the executable instance, the symbol values it
/// was captured at (empty when no grid depends on them) and when it last ran.
struct CapturedGraph {
  std::vector<int64_t> key;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  uint64_t lastUse = 0;
};

/// One session over a CUDAModel: its stream, its buffers (inputs, outputs, the temps'
/// arena), its launches with their parameters and tensor maps, its captured graph and
/// its pinned host staging.
class CUDABackend final : public Backend {
public:
  CUDABackend(std::shared_ptr<const CUDAModel> model, const BackendOptions &options)
      : model(std::move(model)), api(this->model->api), options(options) {}
  ~CUDABackend() override;

  Status load();
  Status writeBuffer(int id, const void *src, size_t bytes, size_t rows, size_t pitch) override;
  Status readBuffer(int id, void *dst, size_t bytes, size_t rows, size_t pitch) override;
  Status fillBuffer(int id, uint8_t byte, size_t bytes) override;
  Status execute() override;
  Status executeLaunch(size_t index) override;
  Status benchmark(int iters, std::vector<double> &perRunMs) override;
  Status runAsync(const std::vector<DeviceCopy> &inputs, const std::vector<DeviceCopy> &outputs,
                  void *stream) override;
  Status runHost(const std::vector<DeviceCopy> &inputs,
                 const std::vector<DeviceCopy> &outputs) override;
  Status bindSymbols(const std::vector<int64_t> &values) override;
  uint64_t bufferAddress(int id) const override { return addresses[id]; }
  bool usesGraphs() const override { return graphsAvailable(); }

private:
  Status check(CUresult r, const std::string &what) const { return checkResult(api, r, what); }
  Status makeCurrent() const { return model->makeCurrent(); }
  Status encodeTensorMaps(const KernelDesc &kd, const LaunchDesc &l, size_t launchIndex,
                          CUDALaunch &launch) const;
  /// Copies `bytes` bytes between plan buffer memory `buffer` and the caller's contiguous
  /// memory `other` (host memory when `otherHost`, else device memory), enqueued on `s`:
  /// into the buffer when `toBuffer`, else out of it. With `rows` > 1 the buffer's side is
  /// `rows` runs of bytes / rows bytes, `pitch` bytes apart (DeviceCopy).
  Status transfer(bool toBuffer, CUdeviceptr buffer, uint64_t other, bool otherHost, size_t bytes,
                  size_t rows, size_t pitch, CUstream s);
  /// Every launch of the plan on `s`, one cuLaunchKernel each.
  Status enqueueLaunches(CUstream s);
  /// The whole plan on `s`: one cuGraphLaunch of the graph captured for the
  /// current binding (captured on its first use) when graphs are on, else
  /// enqueueLaunches(s).
  Status enqueuePlan(CUstream s);
  /// Captures the plan at the current grids as a graph for `graphKey`, evicting
  /// the least recently used graph beyond kMaxCudaGraphsPerSession.
  Status captureGraph(CapturedGraph *&out);
  void destroyGraph(CapturedGraph &g);
  bool graphsAvailable() const {
    return options.cudaGraphs && api.streamBeginCapture && api.streamEndCapture &&
           api.graphInstantiate && api.graphLaunch && api.graphExecDestroy && api.graphDestroy;
  }
  /// Waits for the work runAsync() left in flight, so that a synchronous call
  /// does not touch buffers that work still uses.
  Status waitForAsync();
  /// Allocates the pinned staging buffer for `inputs` and `outputs` on first use
  /// (false when page-locked memory is not available: runHost then copies from
  /// pageable memory).
  bool ensureStaging(const std::vector<DeviceCopy> &inputs, const std::vector<DeviceCopy> &outputs);
  /// runHost's work on the stream, without the final wait.
  Status enqueueHostRun(const std::vector<DeviceCopy> &inputs,
                        const std::vector<DeviceCopy> &outputs);

  std::shared_ptr<const CUDAModel> model;
  const DriverAPI &api;
  BackendOptions options;
  /// The session's stream. Non-blocking: sessions of one model on several threads
  /// do not wait for each other's work on the legacy default stream. Every copy,
  /// memset and launch of the session goes on it.
  CUstream stream = nullptr;
  /// Captured graphs, one per binding of the symbols that shrink grids (a single one
  /// without `symgrid` records), at most kMaxCudaGraphsPerSession.
  std::vector<CapturedGraph> graphs;
  /// The cache key of the current binding: its symbol values when the plan has
  /// `symgrid` records, else empty.
  std::vector<int64_t> graphKey;
  uint64_t graphUses = 0;
  /// Recorded after the last runAsync() on its caller's stream.
  CUevent asyncDone = nullptr;
  bool asyncPending = false;
  std::vector<CUdeviceptr> allocations;
  std::vector<CUdeviceptr> addresses;
  /// The session's `symvalues` buffer (i32 per symbol; 0 without one).
  CUdeviceptr symValues = 0;
  std::vector<CUDALaunch> launches;
  /// benchmark(): one event before the first pass and one after each pass of a chunk.
  std::vector<CUevent> benchEvents;
  /// Page-locked host memory (cuMemAllocHost) for run()'s copies: one slot per model
  /// input then per output, each at a 256-byte aligned offset and of its buffer's full
  /// size (a run at a smaller symbol value copies a prefix), so that the copies are
  /// DMA transfers enqueued on the stream, not staged by the driver one by one.
  uint8_t *staging = nullptr;
  std::vector<size_t> stagingOffsets;
  bool stagingTried = false;
  /// The last enqueueHostRun() copied through `staging`.
  bool stagingInUse = false;
};

} // namespace

CUDABackend::~CUDABackend() {
  if (model->makeCurrent().ok == false)
    return;
  // Let this session's in-flight work finish before its memory goes away (its
  // stream, and the last runAsync() on a caller's stream); other sessions' work
  // is not waited for.
  if (stream)
    api.streamSynchronize(stream);
  if (asyncPending)
    api.eventSynchronize(asyncDone);
  for (CapturedGraph &g : graphs)
    destroyGraph(g);
  if (asyncDone)
    api.eventDestroy(asyncDone);
  if (stream)
    api.streamDestroy(stream);
  for (CUevent e : benchEvents)
    api.eventDestroy(e);
  for (CUdeviceptr p : allocations)
    api.memFree(p);
  if (staging)
    api.memFreeHost(staging);
}

Status CUDABackend::encodeTensorMaps(const KernelDesc &kd, const LaunchDesc &l, size_t launchIndex,
                                     CUDALaunch &launch) const {
  launch.tensorMaps.resize(kd.tensorMaps.size());
#if CUDA_VERSION >= 12000
  for (size_t j = 0; j < kd.tensorMaps.size(); ++j) {
    const TensorMapDesc &t = kd.tensorMaps[j];
    const int bufferId = l.buffers[t.param];
    const CUdeviceptr base = addresses[bufferId];
    char address[32];
    std::snprintf(address, sizeof(address), "0x%llx", static_cast<unsigned long long>(base));
    const std::string label = "launch " + std::to_string(launchIndex) + " of '" + kd.name +
                              "': " + describeTensorMap(t, j) + " over buffer " +
                              std::to_string(bufferId) + " at " + address;
    if (base % 16 != 0)
      return Status::error(label + ": the address is not 16-byte aligned, as TMA needs");
    // cuTensorMapEncodeTiled lists dims innermost first, and globalStrides
    // holds the byte strides of dims 1 .. rank-1 in that order (dim 0 is
    // contiguous): the manifest's outermost-first lists reversed.
    const size_t rank = t.dims.size();
    std::vector<cuuint64_t> globalDim(t.dims.rbegin(), t.dims.rend());
    std::vector<cuuint64_t> globalStrides(t.strides.rbegin(), t.strides.rend());
    std::vector<cuuint32_t> boxDim(t.box.rbegin(), t.box.rend());
    std::vector<cuuint32_t> elementStrides(rank, 1);
    CUresult r = api.tensorMapEncodeTiled(
        &launch.tensorMaps[j].map, tensorMapDataType(t.dtype), static_cast<cuuint32_t>(rank),
        reinterpret_cast<void *>(static_cast<uintptr_t>(base)), globalDim.data(),
        globalStrides.data(), boxDim.data(), elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
        tensorMapSwizzle(t.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (Status s = check(r, "cuTensorMapEncodeTiled"); !s.ok)
      return s.withContext(label);
  }
  return Status::success();
#else
  (void)l;
  return Status::error("launch " + std::to_string(launchIndex) + " of '" + kd.name +
                       "': TMA tensor maps need a runtime built against CUDA 12 or newer");
#endif
}

Status CUDABackend::load() {
  if (Status s = makeCurrent(); !s.ok)
    return s;
  if (Status s = check(api.streamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); !s.ok)
    return s;
  const Bundle &plan = model->plan;
  const size_t numBuffers = plan.buffers.size();
  std::vector<uint64_t> own(numBuffers, 0);
  // One zero-filled device allocation of `bytes` (at least 1: cuMemAlloc
  // rejects 0), kept in `allocations`.
  auto allocate = [&](uint64_t bytes, const std::string &what, CUdeviceptr &p) -> Status {
    size_t size = std::max<uint64_t>(bytes, 1);
    if (Status s = check(api.memAlloc(&p, size), "cuMemAlloc(" + std::to_string(size) + " bytes)");
        !s.ok)
      return s.withContext(what);
    allocations.push_back(p);
    return check(api.memsetD8Async(p, 0, size, stream), "cuMemsetD8Async").withContext(what);
  };
  // The memory plan (format version 4): every temp at its offset in one
  // zero-filled arena, which validateBundle checked.
  CUdeviceptr arena = 0;
  if (plan.arenaBytes)
    if (Status s = allocate(*plan.arenaBytes, "the temps' arena", arena); !s.ok)
      return s;
  for (size_t i = 0; i < numBuffers; ++i) {
    const BufferDesc &b = plan.buffers[i];
    if (b.kind == BufferKind::alias || b.kind == BufferKind::constant ||
        (b.kind == BufferKind::temp && plan.arenaBytes))
      continue;
    CUdeviceptr p = 0;
    if (Status s = allocate(b.sizeBytes, "buffer " + std::to_string(i), p); !s.ok)
      return s;
    own[i] = p;
  }
  for (uint64_t a : layoutBuffers(*model, arena, own))
    addresses.push_back(static_cast<CUdeviceptr>(a));
  // The symbol values the kernels read (`symvalues`): the session's own copy of the const
  // buffer (the model's constants are shared by its sessions), written by bindSymbols().
  if (plan.symValuesBuffer >= 0) {
    if (Status s = allocate(4 * plan.symbols.size(), "the symbol values", symValues); !s.ok)
      return s;
    addresses[plan.symValuesBuffer] = symValues;
  }
  if (Status s =
          check(api.streamSynchronize(stream), "zero-filling the buffers (cuStreamSynchronize)");
      !s.ok)
    return s;

  launches.reserve(plan.launches.size());
  const std::vector<size_t> kernelOf = launchKernelIndices(plan);
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const LaunchDesc &l = plan.launches[i];
    const KernelDesc &k = plan.kernels[kernelOf[i]];
    CUDALaunch launch;
    launch.kernel = l.kernel;
    launch.function = model->functions[kernelOf[i]];
    for (int d = 0; d < 3; ++d) {
      launch.grid[d] = static_cast<unsigned>(k.grid[d]);
      launch.block[d] = static_cast<unsigned>(k.block[d]);
    }
    launch.sharedBytes = static_cast<unsigned>(k.sharedBytes);
    for (int id : l.buffers)
      launch.args.push_back(addresses[id]);
    if (!k.tensorMaps.empty())
      if (Status s = encodeTensorMaps(k, l, i, launch); !s.ok)
        return s;
    launches.push_back(std::move(launch));
  }
  if (Status s = bindSymbols(symbolMaxima(plan)); !s.ok)
    return s;
  // Take the parameter addresses once the vectors no longer move: buffer
  // pointers, then the tensor maps (passed by value: the driver copies the 128
  // bytes each entry points at).
  for (CUDALaunch &launch : launches) {
    for (CUdeviceptr &arg : launch.args)
      launch.params.push_back(&arg);
    for (TensorMapStorage &map : launch.tensorMaps)
      launch.params.push_back(&map);
  }
  return Status::success();
}

// The synchronous members below leave the session's stream idle when they return:
// the caller may free or reuse its host memory, and runAsync() on another stream
// needs to wait only for the last runAsync().

Status CUDABackend::transfer(bool toBuffer, CUdeviceptr buffer, uint64_t other, bool otherHost,
                             size_t bytes, size_t rows, size_t pitch, CUstream s) {
  void *otherPtr = reinterpret_cast<void *>(static_cast<uintptr_t>(other));
  const char *what = !otherHost ? "cuMemcpyDtoDAsync"
                     : toBuffer ? "cuMemcpyHtoDAsync"
                                : "cuMemcpyDtoHAsync";
  if (rows <= 1) {
    CUresult r = !otherHost ? (toBuffer ? api.memcpyDtoDAsync(buffer, other, bytes, s)
                                        : api.memcpyDtoDAsync(other, buffer, bytes, s))
                 : toBuffer ? api.memcpyHtoDAsync(buffer, otherPtr, bytes, s)
                            : api.memcpyDtoHAsync(otherPtr, buffer, bytes, s);
    return check(r, what);
  }
  // The buffer's rows `pitch` bytes apart, the caller's contiguous (cuMemcpy2DAsync).
  CUDA_MEMCPY2D m;
  std::memset(&m, 0, sizeof(m));
  const size_t rowBytes = bytes / rows;
  m.WidthInBytes = rowBytes;
  m.Height = rows;
  const CUmemorytype otherType = otherHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  if (toBuffer) {
    m.srcMemoryType = otherType;
    if (otherHost)
      m.srcHost = otherPtr;
    else
      m.srcDevice = static_cast<CUdeviceptr>(other);
    m.srcPitch = rowBytes;
    m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    m.dstDevice = buffer;
    m.dstPitch = pitch;
  } else {
    m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    m.srcDevice = buffer;
    m.srcPitch = pitch;
    m.dstMemoryType = otherType;
    if (otherHost)
      m.dstHost = otherPtr;
    else
      m.dstDevice = static_cast<CUdeviceptr>(other);
    m.dstPitch = rowBytes;
  }
  return check(api.memcpy2DAsync(&m, s), "cuMemcpy2DAsync").withContext(what);
}

Status CUDABackend::writeBuffer(int id, const void *src, size_t bytes, size_t rows, size_t pitch) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = transfer(true, addresses[id], reinterpret_cast<uintptr_t>(src), true, bytes, rows,
                          pitch, stream);
      !s.ok)
    return s;
  return check(api.streamSynchronize(stream), "cuStreamSynchronize");
}

Status CUDABackend::readBuffer(int id, void *dst, size_t bytes, size_t rows, size_t pitch) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = transfer(false, addresses[id], reinterpret_cast<uintptr_t>(dst), true, bytes, rows,
                          pitch, stream);
      !s.ok)
    return s;
  return check(api.streamSynchronize(stream), "cuStreamSynchronize");
}

Status CUDABackend::fillBuffer(int id, uint8_t byte, size_t bytes) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = check(api.memsetD8Async(addresses[id], byte, bytes, stream), "cuMemsetD8Async");
      !s.ok)
    return s;
  return check(api.streamSynchronize(stream), "cuStreamSynchronize");
}

bool CUDABackend::ensureStaging(const std::vector<DeviceCopy> &inputs,
                                const std::vector<DeviceCopy> &outputs) {
  if (stagingTried)
    return staging != nullptr;
  stagingTried = true;
  // Each slot holds its buffer whole: later runs may copy more of it (a larger symbol
  // value) than this one. validateBundle bounds the buffers' sum
  // (Limits::maxBufferBytes): the 256-byte rounding cannot overflow.
  size_t total = 0;
  for (const std::vector<DeviceCopy> *list : {&inputs, &outputs})
    for (const DeviceCopy &c : *list) {
      stagingOffsets.push_back(total);
      total += (model->plan.buffers[c.buffer].sizeBytes + 255) / 256 * 256;
    }
  void *p = nullptr;
  if (total == 0 || api.memAllocHost(&p, total) != CUDA_SUCCESS) {
    stagingOffsets.clear();
    return false; // no pinned memory: copy from pageable memory
  }
  staging = static_cast<uint8_t *>(p);
  return true;
}

Status CUDABackend::runHost(const std::vector<DeviceCopy> &inputs,
                            const std::vector<DeviceCopy> &outputs) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  Status s = enqueueHostRun(inputs, outputs);
  // Leave the stream idle on every path: after a failed call, copies queued before it
  // must not race a later runAsync() on another stream (or overwrite the staging).
  Status waited =
      check(api.streamSynchronize(stream), "running the launches and copies (cuStreamSynchronize)");
  if (!s.ok)
    return s;
  if (!waited.ok)
    return waited;
  if (stagingInUse)
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].bytes)
        std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(outputs[i].address)),
                    staging + stagingOffsets[inputs.size() + i], outputs[i].bytes);
  return Status::success();
}

Status CUDABackend::enqueueHostRun(const std::vector<DeviceCopy> &inputs,
                                   const std::vector<DeviceCopy> &outputs) {
  const bool pinned = stagingInUse = ensureStaging(inputs, outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const DeviceCopy &c = inputs[i];
    if (!c.bytes)
      continue;
    const void *src = reinterpret_cast<const void *>(static_cast<uintptr_t>(c.address));
    if (pinned) {
      std::memcpy(staging + stagingOffsets[i], src, c.bytes);
      src = staging + stagingOffsets[i];
    }
    // From pageable memory the driver stages the copy itself and returns once the
    // source has been read.
    if (Status s = transfer(true, addresses[c.buffer], reinterpret_cast<uintptr_t>(src), true,
                            c.bytes, c.rows, c.pitch, stream);
        !s.ok)
      return s.withContext("copying input " + std::to_string(i) + " to the device");
  }
  if (Status s = enqueuePlan(stream); !s.ok)
    return s;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const DeviceCopy &c = outputs[i];
    if (!c.bytes)
      continue;
    void *dst = pinned ? staging + stagingOffsets[inputs.size() + i]
                       : reinterpret_cast<void *>(static_cast<uintptr_t>(c.address));
    if (Status s = transfer(false, addresses[c.buffer], reinterpret_cast<uintptr_t>(dst), true,
                            c.bytes, c.rows, c.pitch, stream);
        !s.ok)
      return s.withContext("copying output " + std::to_string(i) + " from the device");
  }
  return Status::success();
}

Status CUDABackend::waitForAsync() {
  if (Status s = makeCurrent(); !s.ok)
    return s;
  if (!asyncPending)
    return Status::success();
  asyncPending = false;
  return check(api.eventSynchronize(asyncDone), "waiting for the last asynchronous run "
                                                "(cuEventSynchronize)");
}

Status CUDABackend::enqueueLaunches(CUstream s) {
  for (size_t i = 0; i < launches.size(); ++i) {
    CUDALaunch &l = launches[i];
    if (l.grid[0] == 0) // another shape bucket's launch (`symrange`): nothing to run
      continue;
    CUresult r = api.launchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                  l.block[1], l.block[2], l.sharedBytes, s, l.params.data(),
                                  /*extra=*/nullptr);
    if (Status st = check(r, "cuLaunchKernel"); !st.ok)
      return st.withContext("launch " + std::to_string(i) + " of '" + l.kernel + "'");
  }
  return Status::success();
}

Status CUDABackend::bindSymbols(const std::vector<int64_t> &values) {
  const Bundle &plan = model->plan;
  if (symValues) {
    // Kernels of a run still in flight may read the old values: wait for them, then write
    // the new ones before the next run is enqueued (Session binds only changed values, so
    // a loop at one shape never waits here). Session checked each value (<= 2^31 - 1).
    if (Status s = waitForAsync(); !s.ok)
      return s;
    for (size_t i = 0; i < values.size() && i < plan.symbols.size(); ++i)
      if (Status s = check(
              api.memsetD32Async(symValues + 4 * i, static_cast<unsigned>(values[i]), 1, stream),
              "cuMemsetD32Async");
          !s.ok)
        return s.withContext("writing the symbol values");
    if (Status s = check(api.streamSynchronize(stream), "cuStreamSynchronize"); !s.ok)
      return s.withContext("writing the symbol values");
  }
  if (plan.symGrids.empty() && plan.symRanges.empty() && plan.plans.empty())
    return Status::success(); // every launch keeps its recorded grid: one graph serves all
  const std::vector<std::array<int64_t, 3>> grids = launchGridsAt(plan, values);
  for (size_t i = 0; i < launches.size(); ++i)
    for (int d = 0; d < 3; ++d)
      // Never above the recorded grid, which CUDAModel checked against the device.
      launches[i].grid[d] = static_cast<unsigned>(grids[i][d]);
  graphKey = values;
  return Status::success();
}

void CUDABackend::destroyGraph(CapturedGraph &g) {
  // An instance still in flight is freed when it completes (cuGraphExecDestroy).
  if (g.exec)
    api.graphExecDestroy(g.exec);
  if (g.graph)
    api.graphDestroy(g.graph);
  g.exec = nullptr;
  g.graph = nullptr;
}

Status CUDABackend::captureGraph(CapturedGraph *&out) {
  // Stream capture records the launches with their parameters as they are now: the
  // buffers never move after load, and the tensor maps were encoded at load, so one
  // capture serves every run at the same grids (CUDA Programming Guide, "CUDA Graphs":
  // stream capture); the grids change only with the symbol values (graphKey).
  if (Status s = check(api.streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                       "cuStreamBeginCapture");
      !s.ok)
    return s;
  Status enqueued = enqueueLaunches(stream);
  CUgraph captured = nullptr;
  // Always end the capture, also after a failed launch (which invalidates it).
  Status ended = check(api.streamEndCapture(stream, &captured), "cuStreamEndCapture");
  if (!enqueued.ok || !ended.ok) {
    if (captured)
      api.graphDestroy(captured);
    return (!enqueued.ok ? enqueued : ended).withContext("capturing the launch plan as a CUDA graph");
  }
  CUgraphExec exec = nullptr;
  if (Status s = check(api.graphInstantiate(&exec, captured, 0), "cuGraphInstantiateWithFlags");
      !s.ok) {
    api.graphDestroy(captured);
    return s;
  }
  if (graphs.size() >= kMaxCudaGraphsPerSession) {
    auto oldest = std::min_element(
        graphs.begin(), graphs.end(),
        [](const CapturedGraph &a, const CapturedGraph &b) { return a.lastUse < b.lastUse; });
    destroyGraph(*oldest);
    graphs.erase(oldest);
  }
  graphs.push_back({graphKey, captured, exec, 0});
  out = &graphs.back();
  return Status::success();
}

Status CUDABackend::enqueuePlan(CUstream s) {
  if (launches.empty())
    return Status::success();
  if (!graphsAvailable())
    return enqueueLaunches(s);
  CapturedGraph *g = nullptr;
  for (CapturedGraph &c : graphs)
    if (c.key == graphKey)
      g = &c;
  if (!g)
    if (Status st = captureGraph(g); !st.ok)
      return st;
  g->lastUse = ++graphUses;
  return check(api.graphLaunch(g->exec, s), "cuGraphLaunch");
}

Status CUDABackend::execute() {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = enqueuePlan(stream); !s.ok)
    return s;
  return check(api.streamSynchronize(stream), "running the launches (cuStreamSynchronize)");
}

Status CUDABackend::executeLaunch(size_t index) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  CUDALaunch &l = launches[index];
  if (l.grid[0] == 0) // another shape bucket's launch (`symrange`): nothing to run
    return Status::success();
  CUresult r = api.launchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                l.block[1], l.block[2], l.sharedBytes, stream, l.params.data(),
                                /*extra=*/nullptr);
  if (Status s = check(r, "cuLaunchKernel"); !s.ok)
    return s.withContext("launch " + std::to_string(index) + " of '" + l.kernel + "'");
  return check(api.streamSynchronize(stream), "running launch " + std::to_string(index) +
                                                  " of '" + l.kernel + "' (cuStreamSynchronize)");
}

Status CUDABackend::benchmark(int iters, std::vector<double> &perRunMs) {
  if (Status s = execute(); !s.ok)
    return s;
  // Passes are enqueued back to back in chunks of kChunk, an event recorded before the
  // first and after each one; the chunk is waited for before its events are read.
  constexpr int kChunk = 1024;
  while (benchEvents.size() < static_cast<size_t>(std::min(iters, kChunk)) + 1) {
    CUevent e = nullptr;
    if (Status s = check(api.eventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate"); !s.ok)
      return s;
    benchEvents.push_back(e);
  }
  perRunMs.clear();
  perRunMs.reserve(iters);
  for (int done = 0; done < iters;) {
    int n = std::min(kChunk, iters - done);
    if (Status s = check(api.eventRecord(benchEvents[0], stream), "cuEventRecord"); !s.ok)
      return s;
    for (int i = 0; i < n; ++i) {
      if (Status s = enqueuePlan(stream); !s.ok)
        return s;
      if (Status s = check(api.eventRecord(benchEvents[i + 1], stream), "cuEventRecord"); !s.ok)
        return s;
    }
    if (Status s = check(api.eventSynchronize(benchEvents[n]), "cuEventSynchronize"); !s.ok)
      return s;
    for (int i = 0; i < n; ++i) {
      float ms = 0;
      if (Status s = check(api.eventElapsedTime(&ms, benchEvents[i], benchEvents[i + 1]),
                           "cuEventElapsedTime");
          !s.ok)
        return s;
      perRunMs.push_back(static_cast<double>(ms));
    }
    done += n;
  }
  return Status::success();
}

Status CUDABackend::runAsync(const std::vector<DeviceCopy> &inputs,
                             const std::vector<DeviceCopy> &outputs, void *callerStream) {
  if (Status s = makeCurrent(); !s.ok)
    return s;
  CUstream s = static_cast<CUstream>(callerStream);
  // The session's buffers are shared by every run: work of an earlier run on
  // another stream must finish first.
  if (asyncPending)
    if (Status st = check(api.streamWaitEvent(s, asyncDone, 0), "cuStreamWaitEvent"); !st.ok)
      return st;
  for (const DeviceCopy &c : inputs)
    if (c.bytes)
      if (Status st =
              transfer(true, addresses[c.buffer], c.address, false, c.bytes, c.rows, c.pitch, s);
          !st.ok)
        return st.withContext("copying an input into buffer " + std::to_string(c.buffer));
  if (Status st = enqueuePlan(s); !st.ok)
    return st;
  for (const DeviceCopy &c : outputs)
    if (c.bytes)
      if (Status st =
              transfer(false, addresses[c.buffer], c.address, false, c.bytes, c.rows, c.pitch, s);
          !st.ok)
        return st.withContext("copying buffer " + std::to_string(c.buffer) + " to an output");
  if (!asyncDone)
    if (Status st = check(api.eventCreate(&asyncDone, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        !st.ok)
      return st;
  if (Status st = check(api.eventRecord(asyncDone, s), "cuEventRecord"); !st.ok)
    return st;
  asyncPending = true;
  return Status::success();
}

Status aicc::runtime::detail::createCUDABackend(std::shared_ptr<const LoadedModel> model,
                                                const BackendOptions &options,
                                                std::unique_ptr<Backend> &out) {
  // Model::load pairs cuda models with cuda sessions.
  auto backend = std::make_unique<CUDABackend>(
      std::static_pointer_cast<const CUDAModel>(std::move(model)), options);
  if (Status s = backend->load(); !s.ok)
    return s;
  out = std::move(backend);
  return Status::success();
}
