//===- CUDABackend.cpp - Run an sm_* bundle through the CUDA driver API ---===//
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
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <cuda.h>

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

/// The driver entry points the backend uses. `decltype(&cuX)` picks up the
/// prototype of the versioned symbol that cuda.h maps cuX to.
struct DriverAPI {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetName) deviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) primaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;
  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuFuncGetAttribute) funcGetAttribute = nullptr;
  decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) memcpyDtoH = nullptr;
  decltype(&::cuMemsetD8) memsetD8 = nullptr;
  decltype(&::cuMemsetD8Async) memsetD8Async = nullptr;
  decltype(&::cuMemcpyHtoDAsync) memcpyHtoDAsync = nullptr;
  decltype(&::cuMemcpyDtoHAsync) memcpyDtoHAsync = nullptr;
  decltype(&::cuMemAllocHost) memAllocHost = nullptr;
  decltype(&::cuMemFreeHost) memFreeHost = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuGetErrorString) getErrorString = nullptr;
  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventDestroy) eventDestroy = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) eventElapsedTime = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamDestroy) streamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuStreamWaitEvent) streamWaitEvent = nullptr;
  decltype(&::cuMemcpyDtoDAsync) memcpyDtoDAsync = nullptr;
  /// CUDA graphs (CUDA 10+; cuGraphInstantiateWithFlags 11.4): optional, the
  /// plan is launched kernel by kernel without them.
  decltype(&::cuStreamBeginCapture) streamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) streamEndCapture = nullptr;
  decltype(&::cuGraphInstantiate) graphInstantiate = nullptr;
  decltype(&::cuGraphLaunch) graphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) graphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) graphDestroy = nullptr;
  // Optional entry points: nullptr when the driver (or the cuda.h the runtime
  // was built with) predates them; only bundles that need them fail then.
#if CUDA_VERSION >= 12000
  /// Hopper TMA descriptors (CUDA 12.0); needed by bundles with tensor maps.
  decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled = nullptr;
#endif
#if CUDA_VERSION >= 12040
  /// Kernel parameter layout (CUDA 12.4); checks the tensor-map parameters.
  decltype(&::cuFuncGetParamInfo) funcGetParamInfo = nullptr;
#endif
};

/// Loads libcuda.so.1 and calls cuInit once per process; later calls return
/// the same result. The library stays loaded for the life of the process.
Status getDriver(const DriverAPI *&api) {
  static DriverAPI driver;
  static Status loadStatus;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *err = ::dlerror();
      loadStatus = Status::error(
          std::string("cannot load the CUDA driver library libcuda.so.1 (") +
          (err ? err : "dlopen failed") +
          "); a cuda session needs an NVIDIA GPU and its driver");
      return;
    }
    bool missing = false;
    std::string missingName;
    auto bind = [&](auto &fn, std::initializer_list<const char *> names) {
      for (const char *name : names) {
        if (void *sym = ::dlsym(lib, name)) {
          fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
          return;
        }
      }
      if (!missing)
        missingName = *names.begin();
      missing = true;
    };
    bind(driver.init, {"cuInit"});
    bind(driver.driverGetVersion, {"cuDriverGetVersion"});
    bind(driver.deviceGetCount, {"cuDeviceGetCount"});
    bind(driver.deviceGet, {"cuDeviceGet"});
    bind(driver.deviceGetName, {"cuDeviceGetName"});
    bind(driver.deviceGetAttribute, {"cuDeviceGetAttribute"});
    bind(driver.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
    bind(driver.primaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"});
    bind(driver.ctxSetCurrent, {"cuCtxSetCurrent"});
    bind(driver.ctxSynchronize, {"cuCtxSynchronize"});
    bind(driver.moduleLoadData, {"cuModuleLoadData"});
    bind(driver.moduleUnload, {"cuModuleUnload"});
    bind(driver.moduleGetFunction, {"cuModuleGetFunction"});
    bind(driver.funcGetAttribute, {"cuFuncGetAttribute"});
    bind(driver.funcSetAttribute, {"cuFuncSetAttribute"});
    bind(driver.memAlloc, {"cuMemAlloc_v2"});
    bind(driver.memFree, {"cuMemFree_v2"});
    bind(driver.memcpyHtoD, {"cuMemcpyHtoD_v2"});
    bind(driver.memcpyDtoH, {"cuMemcpyDtoH_v2"});
    bind(driver.memsetD8, {"cuMemsetD8_v2"});
    bind(driver.memsetD8Async, {"cuMemsetD8Async"});
    bind(driver.memcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"});
    bind(driver.memcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"});
    bind(driver.memAllocHost, {"cuMemAllocHost_v2"});
    bind(driver.memFreeHost, {"cuMemFreeHost"});
    bind(driver.launchKernel, {"cuLaunchKernel"});
    bind(driver.getErrorName, {"cuGetErrorName"});
    bind(driver.getErrorString, {"cuGetErrorString"});
    bind(driver.eventCreate, {"cuEventCreate"});
    bind(driver.eventDestroy, {"cuEventDestroy_v2"});
    bind(driver.eventRecord, {"cuEventRecord"});
    bind(driver.eventSynchronize, {"cuEventSynchronize"});
    // cuEventElapsedTime_v2 appeared in CUDA 12.8; older drivers only have
    // the original symbol, with the same signature.
    bind(driver.eventElapsedTime,
         {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
    bind(driver.streamCreate, {"cuStreamCreate"});
    bind(driver.streamDestroy, {"cuStreamDestroy_v2"});
    bind(driver.streamSynchronize, {"cuStreamSynchronize"});
    bind(driver.streamWaitEvent, {"cuStreamWaitEvent"});
    bind(driver.memcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
    auto bindOptional = [&](auto &fn, const char *name) {
      if (void *sym = ::dlsym(lib, name))
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
    };
    bindOptional(driver.streamBeginCapture, "cuStreamBeginCapture_v2");
    bindOptional(driver.streamEndCapture, "cuStreamEndCapture");
    bindOptional(driver.graphInstantiate, "cuGraphInstantiateWithFlags");
    bindOptional(driver.graphLaunch, "cuGraphLaunch");
    bindOptional(driver.graphExecDestroy, "cuGraphExecDestroy");
    bindOptional(driver.graphDestroy, "cuGraphDestroy");
#if CUDA_VERSION >= 12000
    bindOptional(driver.tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
#endif
#if CUDA_VERSION >= 12040
    bindOptional(driver.funcGetParamInfo, "cuFuncGetParamInfo");
#endif
    (void)bindOptional;
    if (missing) {
      loadStatus = Status::error("the CUDA driver library libcuda.so.1 lacks '" +
                                 missingName + "' (driver too old?)");
      return;
    }
    CUresult r = driver.init(0);
    if (r != CUDA_SUCCESS) {
      const char *name = nullptr;
      driver.getErrorName(r, &name);
      loadStatus = Status::error(std::string("cuInit failed: ") +
                                 (name ? name : "unknown error") +
                                 " (is a CUDA device visible?)");
    }
  });
  api = &driver;
  return loadStatus;
}

#if CUDA_VERSION >= 12000
/// Storage of one kernel-parameter CUtensorMap: 128 bytes that
/// cuTensorMapEncodeTiled writes at a 64-byte aligned address (cuda.h of CUDA
/// 12 aligns the type to 64 bytes, CUDA 13's to 128) and cuLaunchKernel copies
/// into the parameter buffer.
struct alignas(64) TensorMapStorage {
  CUtensorMap map;
};
#else
struct alignas(64) TensorMapStorage {
  uint64_t opaque[16];
};
#endif
static_assert(sizeof(TensorMapStorage) == 128, "a CUtensorMap is 128 bytes");

struct CUDALaunch {
  std::string kernel;
  CUfunction function = nullptr;
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

/// Turns a driver result into a Status naming the failed call.
Status checkResult(const DriverAPI &api, CUresult r, const std::string &what) {
  if (r == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  api.getErrorName(r, &name);
  api.getErrorString(r, &text);
  return Status::error(what + " failed: " + (name ? name : "unknown error") +
                       (text ? std::string(" (") + text + ")" : std::string()));
}

/// The shared half of a cuda Model: the device's primary context (retained), the
/// module, each kernel's function (checked against the device) and the constants in
/// device memory. Read-only after load(), so sessions on several threads use it at once.
class CUDAModel final : public LoadedModel {
public:
  explicit CUDAModel(const DriverAPI &api) : api(api) {}
  ~CUDAModel() override;

  Status load(const Bundle &bundle, int deviceIndex);
  Status check(CUresult r, const std::string &what) const { return checkResult(api, r, what); }
  Status makeCurrent() const { return check(api.ctxSetCurrent(context), "cuCtxSetCurrent"); }

  const DriverAPI &api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  /// "device 0 (NVIDIA H200, sm_90)", for messages.
  std::string deviceDescription;
  /// Each kernel's function, by kernel index.
  std::vector<CUfunction> functions;

private:
  Status loadModule(const Bundle &bundle);
  Status checkKernel(const KernelDesc &kd, CUfunction function, const int maxGrid[3],
                     const int maxBlock[3]) const;
  Status checkTensorMapParams(const KernelDesc &kd, CUfunction function) const;

  CUmodule module = nullptr;
  std::vector<CUdeviceptr> constants;
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
  Status writeBuffer(int id, const void *src, size_t bytes) override;
  Status readBuffer(int id, void *dst, size_t bytes) override;
  Status fillBuffer(int id, uint8_t byte, size_t bytes) override;
  Status execute() override;
  Status executeLaunch(size_t index) override;
  Status benchmark(int iters, std::vector<double> &perRunMs) override;
  Status runAsync(const std::vector<DeviceCopy> &inputs, const std::vector<DeviceCopy> &outputs,
                  void *stream) override;
  Status runHost(const std::vector<DeviceCopy> &inputs,
                 const std::vector<DeviceCopy> &outputs) override;
  bool usesGraphs() const override { return graphsAvailable(); }

private:
  Status check(CUresult r, const std::string &what) const { return checkResult(api, r, what); }
  Status makeCurrent() const { return model->makeCurrent(); }
  Status encodeTensorMaps(const KernelDesc &kd, const LaunchDesc &l, size_t launchIndex,
                          CUDALaunch &launch) const;
  /// Every launch of the plan on `s`, one cuLaunchKernel each.
  Status enqueueLaunches(CUstream s);
  /// The whole plan on `s`: one cuGraphLaunch of the captured graph (captured
  /// on the first call) when graphs are on, else enqueueLaunches(s).
  Status enqueuePlan(CUstream s);
  Status captureGraph();
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
  CUgraph graph = nullptr;
  CUgraphExec graphExec = nullptr;
  /// Recorded after the last runAsync() on its caller's stream.
  CUevent asyncDone = nullptr;
  bool asyncPending = false;
  std::vector<CUdeviceptr> allocations;
  std::vector<CUdeviceptr> addresses;
  std::vector<CUDALaunch> launches;
  /// benchmark(): one event before the first pass and one after each pass of a chunk.
  std::vector<CUevent> benchEvents;
  /// Page-locked host memory (cuMemAllocHost) for run()'s copies: one slot per model
  /// input then per output, each at a 256-byte aligned offset, so that the copies are
  /// DMA transfers enqueued on the stream, not staged by the driver one by one.
  uint8_t *staging = nullptr;
  std::vector<size_t> stagingOffsets;
  bool stagingTried = false;
  /// The last enqueueHostRun() copied through `staging`.
  bool stagingInUse = false;
};

} // namespace

CUDAModel::~CUDAModel() {
  if (!context)
    return;
  // Every session holds the model, so none is left: their work has finished.
  api.ctxSetCurrent(context);
  for (CUdeviceptr p : constants)
    api.memFree(p);
  if (module)
    api.moduleUnload(module);
  api.primaryCtxRelease(device);
}

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
  if (graphExec)
    api.graphExecDestroy(graphExec);
  if (graph)
    api.graphDestroy(graph);
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

Status CUDAModel::loadModule(const Bundle &bundle) {
  // A cubin is ELF; the driver also JIT-compiles PTX text (NUL-terminated,
  // which std::string guarantees).
  CUresult r = api.moduleLoadData(&module, bundle.code.data());
  if (r == CUDA_SUCCESS)
    return Status::success();
  return check(r, "cuModuleLoadData").withContext(
      "cannot load the bundle's code (target " + bundle.target + ") on " +
      deviceDescription);
}

/// "tensor map J (param P, f16 dims [..] strides [..] box [..] swizzle S)".
static std::string describeTensorMap(const TensorMapDesc &t, size_t index) {
  return "tensor map " + std::to_string(index) + " (" + formatTensorMap(t) + ")";
}

Status CUDAModel::checkTensorMapParams(const KernelDesc &kd, CUfunction function) const {
  std::string label = "kernel '" + kd.name + "'";
#if CUDA_VERSION >= 12000
  if (!api.tensorMapEncodeTiled)
    return Status::error(label + " has " + std::to_string(kd.tensorMaps.size()) +
                         " TMA tensor map(s) but the CUDA driver library lacks "
                         "cuTensorMapEncodeTiled (a CUDA 12 or newer driver is needed)");
#else
  return Status::error(label + " has TMA tensor maps but this aicc runtime was built "
                               "against a cuda.h older than CUDA 12 (no cuTensorMapEncodeTiled)");
#endif
  int major = 0;
  api.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (major < 9)
    return Status::error(label +
                         " has TMA tensor maps, which need compute capability 9.0 or "
                         "newer; " +
                         deviceDescription + " has not");
#if CUDA_VERSION >= 12040
  // The kernel must take the parameters the launch passes: numParams pointers,
  // then a 128-byte CUtensorMap per map. A mismatch would otherwise read
  // garbage descriptors. cuFuncGetParamInfo (CUDA 12.4) takes "paramIndex
  // less than the number of parameters that func takes" (cuda.h): only
  // indices below the manifest's count are asked, so a consistent bundle makes
  // no failing driver call (compute-sanitizer reports every one, and probing
  // one index past the end did so for every bundle with tensor maps). A
  // cubin taking fewer parameters shows as CUDA_ERROR_INVALID_VALUE at the
  // first missing index; one taking more cannot be seen without such a call
  // and is left to the bundle's checksums (the compiler writes the manifest
  // from the kernel it generated). Skipped when the driver predates 12.4.
  int driverVersion = 0;
  if (!api.funcGetParamInfo || api.driverGetVersion(&driverVersion) != CUDA_SUCCESS ||
      driverVersion < 12040)
    return Status::success();
  const size_t numBuffers = static_cast<size_t>(kd.numParams);
  const size_t total = numBuffers + kd.tensorMaps.size();
  const std::string expected = std::to_string(kd.numParams) + " buffer pointers then " +
                               std::to_string(kd.tensorMaps.size()) +
                               " CUtensorMap (.param .align 64 .b8 NAME[128])";
  for (size_t i = 0; i < total; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = api.funcGetParamInfo(function, i, &offset, &size);
    // Parameter 0 exists (a kernel with maps has parameters): an error there
    // means the driver cannot tell, not a short parameter list.
    if (r == CUDA_ERROR_INVALID_VALUE && i > 0)
      return Status::error(label + ": the cubin's .entry takes " + std::to_string(i) +
                           " parameters; the manifest passes " + expected);
    if (r != CUDA_SUCCESS)
      return Status::success(); // the driver cannot tell: no check
    const bool isMap = i >= numBuffers;
    if (size != (isMap ? 128u : 8u))
      return Status::error(
          label + ": parameter " + std::to_string(i) + " is " + std::to_string(size) +
          " bytes in the cubin, expected " +
          (isMap ? "128 (a CUtensorMap, " +
                       describeTensorMap(kd.tensorMaps[i - numBuffers], i - numBuffers) + ")"
                 : std::string("8 (a buffer pointer)")) +
          "; the manifest passes " + expected);
    // No alignment check on the offset: the driver reports offsets in its packed parameter
    // buffer (a CUtensorMap after three pointers shows at 48 even when the PTX declares
    // `.param .align 64`); measured on an H200, driver 580 (2026-11-29).
    (void)offset;
  }
#else
  (void)function;
#endif
  return Status::success();
}

#if CUDA_VERSION >= 12000
/// The TMA element type of `dtype`. TMA moves bytes; the type only matters for
/// the (unused) NaN out-of-bounds fill and tf32 rounding, so integer types map
/// to the unsigned type of their size.
static CUtensorMapDataType tensorMapDataType(DType dtype) {
  switch (dtype) {
  case DType::f16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::bf16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::f32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::f64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::i32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::i64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::u32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::u64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  case DType::i16:
  case DType::u16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case DType::i8:
  case DType::u8:
  case DType::boolean:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

static CUtensorMapSwizzle tensorMapSwizzle(uint32_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}
#endif

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

Status CUDAModel::load(const Bundle &bundle, int deviceIndex) {
  plan = planOf(bundle);
  int count = 0;
  if (Status s = check(api.deviceGetCount(&count), "cuDeviceGetCount"); !s.ok)
    return s;
  if (count == 0)
    return Status::error("no CUDA device is visible");
  if (deviceIndex < 0 || deviceIndex >= count)
    return Status::error("CUDA device " + std::to_string(deviceIndex) + " does not exist: " +
                         std::to_string(count) + " device(s) are visible (0 to " +
                         std::to_string(count - 1) + "; CUDA_VISIBLE_DEVICES chooses which)");
  if (Status s = check(api.deviceGet(&device, deviceIndex), "cuDeviceGet"); !s.ok)
    return s;
  if (Status s = check(api.primaryCtxRetain(&context, device),
                       "cuDevicePrimaryCtxRetain");
      !s.ok) {
    context = nullptr;
    return s;
  }
  if (Status s = makeCurrent(); !s.ok)
    return s;

  char name[256] = {0};
  api.deviceGetName(name, sizeof(name) - 1, device);
  int major = 0, minor = 0;
  api.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         device);
  api.deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         device);
  deviceDescription = "device " + std::to_string(deviceIndex) + " (" + std::string(name) + ", sm_" +
                      std::to_string(major) + std::to_string(minor) + ")";

  // A model without kernels (e.g. an identity) needs no code.
  if (!bundle.kernels.empty())
    if (Status s = loadModule(bundle); !s.ok)
      return s;

  // Device limits for clearer errors than the launch's CUDA_ERROR_INVALID_VALUE.
  int maxGrid[3] = {0, 0, 0}, maxBlock[3] = {0, 0, 0};
  const CUdevice_attribute gridAttrs[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  const CUdevice_attribute blockAttrs[3] = {
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (int d = 0; d < 3; ++d) {
    api.deviceGetAttribute(&maxGrid[d], gridAttrs[d], device);
    api.deviceGetAttribute(&maxBlock[d], blockAttrs[d], device);
  }

  functions.assign(bundle.kernels.size(), nullptr);
  for (size_t k = 0; k < bundle.kernels.size(); ++k) {
    const KernelDesc &kd = bundle.kernels[k];
    CUresult r = api.moduleGetFunction(&functions[k], module, kd.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      return Status::error("kernel '" + kd.name + "': no .entry of that name in the cubin");
    if (Status s = check(r, "cuModuleGetFunction"); !s.ok)
      return s.withContext("kernel '" + kd.name + "'");
    if (Status s = checkKernel(kd, functions[k], maxGrid, maxBlock); !s.ok)
      return s;
  }

  // The constants are copied on a stream of the model's own and waited for there:
  // sessions launch on non-blocking streams (not ordered after the legacy stream), and
  // a context-wide wait would both wait for other sessions' work and be illegal while
  // another thread's session captures its graph (CUDA Programming Guide, "CUDA Graphs":
  // synchronizing a context that has a capturing stream).
  CUstream copies = nullptr;
  if (Status s = check(api.streamCreate(&copies, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); !s.ok)
    return s;
  auto copyConstants = [&]() -> Status {
    constantAddresses.assign(bundle.buffers.size(), 0);
    for (size_t i = 0; i < bundle.buffers.size(); ++i) {
      const BufferDesc &b = bundle.buffers[i];
      if (b.kind != BufferKind::constant)
        continue;
      // Never allocate 0 bytes: cuMemAlloc rejects it.
      size_t size = std::max<uint64_t>(b.sizeBytes, 1);
      CUdeviceptr p = 0;
      if (Status s =
              check(api.memAlloc(&p, size), "cuMemAlloc(" + std::to_string(size) + " bytes)");
          !s.ok)
        return s.withContext("constant buffer " + std::to_string(i));
      constants.push_back(p);
      constantAddresses[i] = p;
      constantBytes += size;
      // From pageable memory: the driver has read the source when the call returns.
      if (Status s =
              check(api.memcpyHtoDAsync(p, bundle.weights.data() + b.offset, b.sizeBytes, copies),
                    "cuMemcpyHtoDAsync");
          !s.ok)
        return s.withContext("constant buffer " + std::to_string(i));
    }
    return Status::success();
  };
  Status copied = copyConstants();
  // Always wait (also after a failed copy: the ones queued before it use the memory).
  Status waited =
      check(api.streamSynchronize(copies), "copying the constants (cuStreamSynchronize)");
  api.streamDestroy(copies);
  return !copied.ok ? copied : waited;
}

Status CUDAModel::checkKernel(const KernelDesc &kd, CUfunction function, const int maxGrid[3],
                              const int maxBlock[3]) const {
  std::string label = "kernel '" + kd.name + "'";
  static const char *kDims = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (maxGrid[d] > 0 && kd.grid[d] > maxGrid[d])
      return Status::error(label + ": grid " + kDims[d] + " = " + std::to_string(kd.grid[d]) +
                           " exceeds the " + deviceDescription + " limit of " +
                           std::to_string(maxGrid[d]));
    if (maxBlock[d] > 0 && kd.block[d] > maxBlock[d])
      return Status::error(label + ": block " + kDims[d] + " = " + std::to_string(kd.block[d]) +
                           " exceeds the " + deviceDescription + " limit of " +
                           std::to_string(maxBlock[d]));
  }
  int maxThreads = 0;
  if (Status s = check(
          api.funcGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
          "cuFuncGetAttribute");
      !s.ok)
    return s.withContext(label);
  int64_t threads = kd.block[0] * kd.block[1] * kd.block[2];
  if (threads > maxThreads)
    return Status::error(
        label + ": block " + std::to_string(kd.block[0]) + "x" + std::to_string(kd.block[1]) + "x" +
        std::to_string(kd.block[2]) + " has " + std::to_string(threads) +
        " threads but the compiled kernel allows at most " + std::to_string(maxThreads) +
        " per block (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: register or "
        "shared-memory use, or .maxntid)");
  if (kd.sharedBytes > static_cast<uint64_t>(INT32_MAX))
    return Status::error(label + ": " + std::to_string(kd.sharedBytes) +
                         " bytes of shared memory is not launchable");
  // Above 48 KiB of dynamic shared memory a kernel must opt in.
  if (kd.sharedBytes > 48 * 1024)
    if (Status s =
            check(api.funcSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(kd.sharedBytes)),
                  "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                      std::to_string(kd.sharedBytes) + ")");
        !s.ok)
      return s.withContext(label);
  if (!kd.tensorMaps.empty())
    if (Status s = checkTensorMapParams(kd, function); !s.ok)
      return s;
  return Status::success();
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

Status CUDABackend::writeBuffer(int id, const void *src, size_t bytes) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = check(api.memcpyHtoDAsync(addresses[id], src, bytes, stream), "cuMemcpyHtoDAsync");
      !s.ok)
    return s;
  return check(api.streamSynchronize(stream), "cuStreamSynchronize");
}

Status CUDABackend::readBuffer(int id, void *dst, size_t bytes) {
  if (Status s = waitForAsync(); !s.ok)
    return s;
  if (Status s = check(api.memcpyDtoHAsync(dst, addresses[id], bytes, stream), "cuMemcpyDtoHAsync");
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
  // Sizes were checked against the plan's buffers, whose sum validateBundle bounds
  // (Limits::maxBufferBytes): the 256-byte rounding cannot overflow.
  size_t total = 0;
  for (const std::vector<DeviceCopy> *list : {&inputs, &outputs})
    for (const DeviceCopy &c : *list) {
      stagingOffsets.push_back(total);
      total += (c.bytes + 255) / 256 * 256;
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
    if (Status s = check(api.memcpyHtoDAsync(addresses[c.buffer], src, c.bytes, stream),
                         "cuMemcpyHtoDAsync");
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
    if (Status s = check(api.memcpyDtoHAsync(dst, addresses[c.buffer], c.bytes, stream),
                         "cuMemcpyDtoHAsync");
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
    CUresult r = api.launchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                  l.block[1], l.block[2], l.sharedBytes, s, l.params.data(),
                                  /*extra=*/nullptr);
    if (Status st = check(r, "cuLaunchKernel"); !st.ok)
      return st.withContext("launch " + std::to_string(i) + " of '" + l.kernel + "'");
  }
  return Status::success();
}

Status CUDABackend::captureGraph() {
  // Stream capture records the launches with their parameters as they are now: the
  // buffers never move after load, and the tensor maps were encoded at load, so one
  // capture serves every run (CUDA Programming Guide, "CUDA Graphs": stream capture).
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
  graph = captured;
  graphExec = exec;
  return Status::success();
}

Status CUDABackend::enqueuePlan(CUstream s) {
  if (launches.empty())
    return Status::success();
  if (!graphsAvailable())
    return enqueueLaunches(s);
  if (!graphExec)
    if (Status st = captureGraph(); !st.ok)
      return st;
  return check(api.graphLaunch(graphExec, s), "cuGraphLaunch");
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
      if (Status st = check(api.memcpyDtoDAsync(addresses[c.buffer], c.address, c.bytes, s),
                            "cuMemcpyDtoDAsync");
          !st.ok)
        return st.withContext("copying an input into buffer " + std::to_string(c.buffer));
  if (Status st = enqueuePlan(s); !st.ok)
    return st;
  for (const DeviceCopy &c : outputs)
    if (c.bytes)
      if (Status st = check(api.memcpyDtoDAsync(c.address, addresses[c.buffer], c.bytes, s),
                            "cuMemcpyDtoDAsync");
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

Status aicc::runtime::detail::loadCUDAModel(const Bundle &bundle, int deviceIndex,
                                            std::shared_ptr<const LoadedModel> &out) {
  const DriverAPI *api = nullptr;
  if (Status s = getDriver(api); !s.ok)
    return s;
  auto model = std::make_shared<CUDAModel>(*api);
  if (Status s = model->load(bundle, deviceIndex); !s.ok)
    return s;
  out = std::move(model);
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
