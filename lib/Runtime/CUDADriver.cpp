//===- CUDADriver.cpp - the CUDA driver API, dlopen'ed on first use ---------===//
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
//===----------------------------------------------------------------------===//
#include "CUDAModel.h"

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

Status aicc::runtime::detail::getDriver(const DriverAPI *&api) {
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
    bind(driver.memsetD32Async, {"cuMemsetD32Async"});
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
    bind(driver.memcpy2DAsync, {"cuMemcpy2DAsync_v2"});
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

Status aicc::runtime::detail::checkResult(const DriverAPI &api, CUresult r, const std::string &what) {
  if (r == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  api.getErrorName(r, &name);
  api.getErrorString(r, &text);
  return Status::error(what + " failed: " + (name ? name : "unknown error") +
                       (text ? std::string(" (") + text + ")" : std::string()));
}
