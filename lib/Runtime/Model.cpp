//===- Model.cpp - A bundle's code and weights loaded on one device -------===//

#include "aicc/Runtime/Model.h"

#include "Backend.h"
#include "BundleInternal.h"

#include <algorithm>
#include <cstring>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

const char *aicc::runtime::deviceName(Device device) {
  return device == Device::cuda ? "cuda" : "cpu";
}

std::optional<Device> aicc::runtime::parseDevice(std::string_view name) {
  if (name == "cpu")
    return Device::cpu;
  if (name == "cuda")
    return Device::cuda;
  return std::nullopt;
}

Device aicc::runtime::defaultDeviceForTarget(std::string_view target) {
  return target.substr(0, 3) == "sm_" ? Device::cuda : Device::cpu;
}

std::vector<int64_t> TensorInfo::shapeAt(const std::vector<int64_t> &values) const {
  std::vector<int64_t> out = shape;
  if (symbolic && static_cast<size_t>(symbolic->symbol) < values.size() &&
      static_cast<size_t>(symbolic->axis) < out.size())
    out[symbolic->axis] = symbolic->factor * values[symbolic->symbol];
  return out;
}

TensorInfo::RowLayout TensorInfo::layoutAt(const std::vector<int64_t> &values) const {
  RowLayout l;
  // Validated bundles bound every size (Limits::maxBufferBytes): no product overflows.
  auto bytesOf = [&](const std::vector<int64_t> &s) {
    return static_cast<size_t>(shapeNumElements(s).value_or(0)) * dtypeSize(dtype);
  };
  const size_t bound = bytesOf(shape), compact = bytesOf(shapeAt(values));
  const bool packed = std::any_of(packedAt.begin(), packedAt.end(), [&](const PackedRange &r) {
    return static_cast<size_t>(r.symbol) < values.size() && values[r.symbol] >= r.lo &&
           values[r.symbol] <= r.hi;
  });
  if (symbolic && !packed)
    for (int k = 0; k < symbolic->axis && static_cast<size_t>(k) < shape.size(); ++k)
      l.rows *= static_cast<size_t>(shape[k]);
  if (l.rows <= 1 || compact == 0) {
    l.rows = 1;
    l.rowBytes = compact;
    return l;
  }
  l.rowBytes = compact / l.rows;
  l.pitch = bound / l.rows;
  return l;
}

std::string aicc::runtime::formatTensorInfo(const TensorInfo &info,
                                            const std::vector<SymbolInfo> &symbols) {
  if (!info.symbolic || static_cast<size_t>(info.symbolic->symbol) >= symbols.size())
    return formatTensorType(info.dtype, info.shape);
  std::string s = std::string(dtypeName(info.dtype)) + "[";
  for (size_t i = 0; i < info.shape.size(); ++i) {
    if (i)
      s += ',';
    if (static_cast<int>(i) != info.symbolic->axis) {
      s += std::to_string(info.shape[i]);
      continue;
    }
    if (info.symbolic->factor != 1)
      s += std::to_string(info.symbolic->factor) + "*";
    s += symbols[info.symbolic->symbol].name;
  }
  return s + "]";
}

std::string aicc::runtime::formatSymbolRange(const SymbolInfo &symbol) {
  return symbol.name + " in [" + std::to_string(symbol.min) + ", " + std::to_string(symbol.max) +
         "]";
}

std::string aicc::runtime::formatSymbolValues(const std::vector<SymbolInfo> &symbols,
                                              const std::vector<int64_t> &values) {
  std::string s;
  for (size_t i = 0; i < symbols.size() && i < values.size(); ++i)
    s += (i ? ", " : "") + symbols[i].name + " = " + std::to_string(values[i]);
  return s;
}

#ifndef AICC_RUNTIME_HAVE_CUDA
static Status noCUDA() {
  return Status::error("this aicc runtime was built without CUDA support "
                       "(cuda.h was not found when it was configured)");
}
Status aicc::runtime::detail::loadCUDAModel(const Bundle &, int,
                                            std::shared_ptr<const LoadedModel> &) {
  return noCUDA();
}
Status aicc::runtime::detail::createCUDABackend(std::shared_ptr<const LoadedModel>,
                                                const BackendOptions &,
                                                std::unique_ptr<Backend> &) {
  return noCUDA();
}
#endif

Bundle aicc::runtime::detail::planOf(const Bundle &bundle) {
  Bundle plan;
  plan.formatVersion = bundle.formatVersion;
  plan.target = bundle.target;
  plan.arenaBytes = bundle.arenaBytes;
  plan.buffers = bundle.buffers;
  plan.symbols = bundle.symbols;
  plan.symDims = bundle.symDims;
  plan.symGrids = bundle.symGrids;
  plan.symRanges = bundle.symRanges;
  plan.plans = bundle.plans;
  plan.symValuesBuffer = bundle.symValuesBuffer;
  plan.symValuesLine = bundle.symValuesLine;
  plan.inputs = bundle.inputs;
  plan.boundInputs = bundle.boundInputs;
  plan.outputs = bundle.outputs;
  plan.kernels = bundle.kernels;
  plan.launches = bundle.launches;
  return plan;
}

void aicc::runtime::detail::copyRows(void *dst, size_t dstPitch, const void *src, size_t srcPitch,
                                     size_t rows, size_t rowBytes) {
  auto *d = static_cast<uint8_t *>(dst);
  const auto *s = static_cast<const uint8_t *>(src);
  for (size_t r = 0; r < rows; ++r)
    std::memcpy(d + r * dstPitch, s + r * srcPitch, rowBytes);
}

std::vector<int64_t> aicc::runtime::detail::symbolMaxima(const Bundle &plan) {
  std::vector<int64_t> values;
  values.reserve(plan.symbols.size());
  for (const SymbolDesc &sym : plan.symbols)
    values.push_back(sym.max);
  return values;
}

std::vector<std::array<int64_t, 3>>
aicc::runtime::detail::launchGridsAt(const Bundle &plan, const std::vector<int64_t> &values) {
  const std::vector<size_t> kernelOf = launchKernelIndices(plan);
  std::vector<std::array<int64_t, 3>> grids;
  grids.reserve(plan.launches.size());
  for (size_t i = 0; i < plan.launches.size(); ++i)
    grids.push_back(plan.kernels[kernelOf[i]].grid);
  for (const SymGridDesc &g : plan.symGrids) {
    // Validated: launch, axis and symbol in range, the count at max within the grid.
    int64_t &n = grids[g.launchIndex][g.axis];
    std::optional<int64_t> programs = static_cast<size_t>(g.symbol) < values.size()
                                          ? symGridPrograms(g, values[g.symbol])
                                          : std::nullopt;
    if (programs)
      n = std::min(n, std::max<int64_t>(*programs, 1));
  }
  // A launch for another shape bucket (`symrange`) or of another plan runs no program at
  // these values.
  for (const SymRangeDesc &r : plan.symRanges) {
    int64_t v = static_cast<size_t>(r.symbol) < values.size() ? values[r.symbol] : -1;
    if (v < r.lo || v > r.hi)
      grids[r.launchIndex] = {0, 0, 0};
  }
  const std::vector<int> planOf = launchPlans(plan);
  for (size_t i = 0; i < planOf.size(); ++i) {
    if (planOf[i] < 0)
      continue;
    const PlanDesc &p = plan.plans[planOf[i]];
    int64_t v = static_cast<size_t>(p.symbol) < values.size() ? values[p.symbol] : -1;
    if (v < p.lo || v > p.hi)
      grids[i] = {0, 0, 0};
  }
  return grids;
}

std::vector<uint64_t> aicc::runtime::detail::layoutBuffers(const LoadedModel &model, uint64_t arena,
                                                           const std::vector<uint64_t> &own) {
  const Bundle &plan = model.plan;
  std::vector<uint64_t> addresses(plan.buffers.size(), 0);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferDesc &b = plan.buffers[i];
    if (b.kind == BufferKind::constant)
      addresses[i] = model.constantAddresses[i];
    else if (b.kind == BufferKind::temp && plan.arenaBytes)
      addresses[i] = arena + b.offset;
    else if (b.kind != BufferKind::alias)
      addresses[i] = own[i];
  }
  // Alias sources precede their aliases (validated), so one pass resolves chains.
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == BufferKind::alias)
      addresses[i] = addresses[resolveAliasRoot(plan, static_cast<int>(i))];
  return addresses;
}

Model::Model() = default;
Model::~Model() = default;

Status Model::load(const Bundle &bundle, Device device, std::shared_ptr<const Model> &out,
                   const ModelOptions &options) {
  if (Status s = validateBundle(bundle, options.limits); !s.ok)
    return s.withContext("invalid bundle");
  Device wanted = defaultDeviceForTarget(bundle.target);
  if (wanted != device)
    return Status::error("a bundle for target '" + bundle.target + "' cannot run on device " +
                         deviceName(device) + " (it needs " + deviceName(wanted) + ")");

  std::shared_ptr<Model> model(new Model());
  model->device = device;
  model->deviceIndex = device == Device::cuda ? options.deviceIndex : 0;
  model->target = bundle.target;
  for (const SymbolDesc &sym : bundle.symbols)
    model->symbols.push_back({sym.name, sym.min, sym.max});
  // The symbolic dim of each buffer (validateBundle: at most one).
  std::vector<std::optional<SymbolicDim>> symbolicOf(bundle.buffers.size());
  for (const SymDimDesc &d : bundle.symDims)
    symbolicOf[d.bufferId] = SymbolicDim{d.axis, d.symbol, d.factor};
  // Packed plans (--specialize): their values' inputs and outputs are compact.
  std::vector<TensorInfo::PackedRange> packed;
  for (const PlanDesc &p : bundle.plans)
    if (p.packed)
      packed.push_back({p.symbol, p.lo, p.hi});
  for (const IODesc &io : bundle.inputs) {
    const BufferDesc &b = bundle.buffers[io.bufferId];
    model->inputs.push_back({io.name, b.dtype, b.shape, symbolicOf[io.bufferId], packed});
    model->inputBuffers.push_back(io.bufferId);
  }
  for (const IODesc &io : bundle.outputs) {
    const BufferDesc &b = bundle.buffers[io.bufferId];
    model->outputs.push_back({io.name, b.dtype, b.shape, symbolicOf[io.bufferId], packed});
    model->outputBuffers.push_back(io.bufferId);
  }
  for (const BufferDesc &b : bundle.buffers)
    model->buffers.push_back({b.dtype, b.kind, b.shape});
  for (const LaunchDesc &l : bundle.launches)
    model->launches.push_back({l.kernel, l.buffers});
  for (size_t i = 0; i < bundle.plans.size(); ++i) {
    const PlanDesc &p = bundle.plans[i];
    const size_t end =
        i + 1 < bundle.plans.size() ? bundle.plans[i + 1].firstLaunch : bundle.launches.size();
    model->plans.push_back(
        {p.symbol, p.lo, p.hi, p.packed, static_cast<size_t>(p.firstLaunch), end - p.firstLaunch});
  }

  std::shared_ptr<const LoadedModel> loaded;
  Status s = device == Device::cuda ? loadCUDAModel(bundle, options.deviceIndex, loaded)
                                    : loadCPUModel(bundle, loaded);
  if (!s.ok)
    return s;
  model->constantBytes = loaded->constantBytes;
  model->loaded = std::move(loaded);
  out = std::move(model);
  return Status::success();
}
