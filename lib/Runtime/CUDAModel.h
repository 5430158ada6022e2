//===- CUDAModel.h - the CUDA driver table and the shared half of a cuda model -*- C++ -*-===//
//
// Private to lib/Runtime's CUDA backend (CUDADriver.cpp, CUDAModel.cpp, CUDABackend.cpp;
// compiled only with AICC_RUNTIME_HAVE_CUDA). The driver is dlopen'ed, never linked: every
// entry point is resolved with dlsym under its versioned ABI name (DriverAPI). CUDAModel is
// what sessions of one model share (Backend.h, LoadedModel); CUDABackend.cpp is a session.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_LIB_RUNTIME_CUDAMODEL_H
#define AICC_LIB_RUNTIME_CUDAMODEL_H

#include "Backend.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aicc::runtime::detail {

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
  decltype(&::cuMemsetD32Async) memsetD32Async = nullptr;
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
  decltype(&::cuMemcpy2DAsync) memcpy2DAsync = nullptr;
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
Status getDriver(const DriverAPI *&api);

/// Turns a driver result into a Status naming the failed call.
Status checkResult(const DriverAPI &api, CUresult r, const std::string &what);

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

/// "tensor map J (param P, f16 dims [..] strides [..] box [..] swizzle S)".
std::string describeTensorMap(const TensorMapDesc &t, size_t index);

#if CUDA_VERSION >= 12000
/// The TMA element type of `dtype`. TMA moves bytes; the type only matters for
/// the (unused) NaN out-of-bounds fill and tf32 rounding, so integer types map
/// to the unsigned type of their size.
CUtensorMapDataType tensorMapDataType(DType dtype);

/// The CUtensorMapSwizzle of a manifest swizzle width in bytes (0: none).
CUtensorMapSwizzle tensorMapSwizzle(uint32_t bytes);
#endif

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

} // namespace aicc::runtime::detail

#endif // AICC_LIB_RUNTIME_CUDAMODEL_H
