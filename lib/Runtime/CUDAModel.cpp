//===- CUDAModel.cpp - load an sm_* bundle's module and constants (CUDAModel.h) ===//
//
// The shared half of a cuda model: the device's primary context, the module (cubin or PTX)
// with each kernel's function checked against the device and its tensor-map parameters,
// and the constants copied to device memory. Kernels with `tensormap` records (Hopper TMA,
// docs/bundle-format.md) are checked here; each session encodes one CUtensorMap per map and
// launch (CUDABackend.cpp).
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

std::string aicc::runtime::detail::describeTensorMap(const TensorMapDesc &t, size_t index) {
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
CUtensorMapDataType aicc::runtime::detail::tensorMapDataType(DType dtype) {
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

CUtensorMapSwizzle aicc::runtime::detail::tensorMapSwizzle(uint32_t bytes) {
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
