//===- Model.h - A bundle's code and weights loaded on one device -*- C++ -*-===//
//
// A Model is the shared, read-only half of running a bundle: its kernels
// loaded on one device (a CUmodule, or the cpu shared object) and its
// constants (weights) copied there once. A Session is the per-run half: the
// inputs, outputs and temps' arena, a stream and a captured CUDA graph. Any
// number of sessions can be made from one model; they share its code and
// weights, so N concurrent sessions of a model with W bytes of weights and an
// arena of A bytes take W + N x (A + I/O) device bytes, not N x (W + A + I/O).
// This is the split of TensorRT's ICudaEngine / IExecutionContext and of ONNX
// Runtime's InferenceSession / per-run state.
//
//   Bundle bundle;                         // readBundleFile(...)
//   std::shared_ptr<const Model> model;
//   if (Status s = Model::load(bundle, Device::cuda, model); !s.ok) ...
//   std::unique_ptr<Session> a, b;         // e.g. one per worker thread
//   Session::create(model, a);
//   Session::create(model, b);
//
// Nothing here depends on MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_MODEL_H
#define AICC_RUNTIME_MODEL_H

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Limits.h"
#include "aicc/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aicc::runtime {

/// Where a model's kernels run.
enum class Device {
  cpu,  ///< host threads calling the kernels of a shared object (target cpu)
  cuda, ///< a CUDA device (target sm_*): ModelOptions::deviceIndex among those
        ///< CUDA_VISIBLE_DEVICES shows, the first by default
};

/// "cpu" or "cuda" (static string).
const char *deviceName(Device device);

/// Parses "cpu" / "cuda"; std::nullopt otherwise.
std::optional<Device> parseDevice(std::string_view name);

/// The device a bundle of `target` runs on by default: cuda for sm_* targets,
/// cpu otherwise.
Device defaultDeviceForTarget(std::string_view target);

/// A bounded symbolic dim of the model (a bundle `symbol` record, format
/// version 6; docs/symbolic-shapes.md): an ONNX dim_param such as `batch` that
/// each run binds to a value in [min, max], read from the input shapes. The
/// bundle is compiled at `max`; a run at a smaller value uses a prefix of the
/// buffers that carry the symbol.
struct SymbolInfo {
  std::string name;
  /// 1 <= min <= max <= 2^31 - 1.
  int64_t min = 1, max = 1;
};

/// Where a model input or output carries a symbol (its buffer's `symdim`
/// record): dim `axis` is `factor` x the symbol's value, and every dim before
/// it is 1, so the tensor at value v is the first v / max of the tensor at the
/// bound (row-major).
struct SymbolicDim {
  /// Index into TensorInfo::shape.
  int axis = 0;
  /// Index into Model::getSymbols().
  int symbol = 0;
  /// >= 1.
  int64_t factor = 1;
};

/// Name and type of a model input or output as recorded in the bundle.
struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  /// The recorded shape, in elements: for a tensor with a symbolic dim, its
  /// shape at the bound (dim `symbolic->axis` is factor x the symbol's max).
  std::vector<int64_t> shape;
  /// The dim that varies from run to run (format version 6); std::nullopt
  /// for a tensor of one shape.
  std::optional<SymbolicDim> symbolic;
  /// Values of a symbol at which a `packed` plan runs (format version 10,
  /// aicc-compile --specialize): there the tensor is compact, row-major, at the
  /// start of its buffer whatever dims precede the symbolic one.
  struct PackedRange {
    int symbol = 0;
    int64_t lo = 1, hi = 1;
  };
  std::vector<PackedRange> packedAt;

  /// The shape at the symbol values `values` (one per model symbol, in
  /// getSymbols() order, each in its range): `shape` with the symbolic dim set
  /// to factor x its symbol's value; `shape` itself without a symbolic dim.
  std::vector<int64_t> shapeAt(const std::vector<int64_t> &values) const;

  /// Where the tensor at `values` (compact, row-major: shapeAt(values)) lies in
  /// its buffer, which holds it at the bound: `rows` runs of `rowBytes` bytes,
  /// the i-th at byte `i x pitch` of the buffer. The rows are the elements of
  /// the dims before the symbolic one (format version 8; earlier bundles have
  /// only 1s there), so one row (rows 1, pitch 0) is a prefix of the buffer:
  /// always without a symbolic dim, and at the values of `packedAt`.
  struct RowLayout {
    size_t rows = 1;
    size_t rowBytes = 0;
    size_t pitch = 0;
  };
  RowLayout layoutAt(const std::vector<int64_t> &values) const;
};

/// Formats `info`'s type with its symbolic dim by name, the way errors and
/// aicc-run print signatures: "f32[batch,10]", "f32[4*batch,10]" (factor 4),
/// plain formatTensorType() ("f32[2,3]") without a symbolic dim. `symbols` is
/// the model's getSymbols().
std::string formatTensorInfo(const TensorInfo &info, const std::vector<SymbolInfo> &symbols);

/// "batch in [1, 64]": a symbol and its range, for messages.
std::string formatSymbolRange(const SymbolInfo &symbol);

/// "batch = 3, seq = 17": each symbol with its value (`values` parallel to
/// `symbols`, as Session::getSymbolValues() gives them); "" without symbols.
std::string formatSymbolValues(const std::vector<SymbolInfo> &symbols,
                               const std::vector<int64_t> &values);

/// One buffer of the launch plan (a bundle `buffer` record), for observers.
struct BufferInfo {
  DType dtype = DType::f32;
  BufferKind kind = BufferKind::temp;
  /// Dimensions in elements, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
};

/// One launch of the plan (a bundle `launch` record), for observers.
struct LaunchInfo {
  /// The kernel's name.
  std::string kernel;
  /// Buffer ids passed as the kernel's parameters, in order (indices into
  /// getBuffers()).
  std::vector<int> buffers;
};

/// One whole launch plan of a bundle with `plan` records (format version 10,
/// aicc-compile --specialize), for observers: launches [firstLaunch,
/// firstLaunch + numLaunches) of getLaunches() run at values of symbol
/// `symbol` in [lo, hi]; `packed`: there inputs and outputs are compact at the
/// start of their buffers (TensorInfo::packedAt).
struct PlanInfo {
  int symbol = 0;
  int64_t lo = 1, hi = 1;
  bool packed = false;
  size_t firstLaunch = 0, numLaunches = 0;
};

/// How a model is loaded (Model::load).
struct ModelOptions {
  /// The CUDA device ordinal (0 .. count-1 of the devices the driver shows;
  /// CUDA_VISIBLE_DEVICES chooses and renumbers them). Ignored for cpu.
  int deviceIndex = 0;
  /// Caps checked by validateBundle before anything is loaded.
  Limits limits;
};

namespace detail {
class LoadedModel;
} // namespace detail

/// A bundle's code and constants loaded on one device. Immutable once loaded:
/// every member is safe to call from any thread, and sessions made from one
/// model on several threads at once only read it. Held by std::shared_ptr:
/// each Session keeps its model alive, so the caller may drop its own pointer
/// while sessions still run.
class Model {
public:
  /// Validates `bundle` against `options.limits` (validateBundle), checks that
  /// its target matches `device` (cpu needs target cpu, cuda needs sm_*),
  /// loads its code (cpu: from an anonymous memory file, see Session::create;
  /// cuda: cuModuleLoadData in the device's primary context, each kernel's
  /// block and shared memory checked against the device) and copies its
  /// constants to the device. The model copies what it needs: `bundle` may be
  /// destroyed afterwards. Fails, leaving `out` unchanged, with a Status
  /// naming the record, kernel or driver call. A bundle is code: only load
  /// bundles you built or trust (docs/bundle-format.md, "Trust model").
  static Status load(const Bundle &bundle, Device device, std::shared_ptr<const Model> &out,
                     const ModelOptions &options = ModelOptions());

  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /// The device the model is loaded on, and its CUDA ordinal (0 for cpu).
  Device getDevice() const { return device; }
  int getDeviceIndex() const { return deviceIndex; }
  /// The bundle's target ("cpu", "sm_90a", ...).
  const std::string &getTarget() const { return target; }
  /// Model inputs in index order (name, dtype, shape at the bound, symbolic dim).
  const std::vector<TensorInfo> &getInputs() const { return inputs; }
  /// Model outputs in index order (name, dtype, shape at the bound, symbolic dim).
  const std::vector<TensorInfo> &getOutputs() const { return outputs; }
  /// The bounded symbolic dims, in bundle order (TensorInfo::symbolic indexes
  /// them); empty for a model of one shape.
  const std::vector<SymbolInfo> &getSymbols() const { return symbols; }
  /// Every buffer of the launch plan, indexed by buffer id.
  const std::vector<BufferInfo> &getBuffers() const { return buffers; }
  /// The launches in execution (manifest) order.
  const std::vector<LaunchInfo> &getLaunches() const { return launches; }
  /// The whole launch plans per range of a symbol, in launch order; empty for
  /// a bundle of one plan (every launch, at every value).
  const std::vector<PlanInfo> &getPlans() const { return plans; }
  /// Device bytes the model holds for the constants (each constant buffer's
  /// SIZE_BYTES, at least 1), shared by all its sessions. Code and driver
  /// overhead not included.
  uint64_t getConstantBytes() const { return constantBytes; }

private:
  friend class Session;
  Model();

  Device device = Device::cpu;
  int deviceIndex = 0;
  std::string target;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  std::vector<SymbolInfo> symbols;
  /// Buffer id behind each model input / output.
  std::vector<int> inputBuffers;
  std::vector<int> outputBuffers;
  std::vector<BufferInfo> buffers;
  std::vector<LaunchInfo> launches;
  std::vector<PlanInfo> plans;
  uint64_t constantBytes = 0;
  std::shared_ptr<const detail::LoadedModel> loaded;
};

} // namespace aicc::runtime

#endif // AICC_RUNTIME_MODEL_H
