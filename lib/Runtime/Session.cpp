//===- Session.cpp - Device-independent part of a runtime session ---------===//

#include "aicc/Runtime/Session.h"

#include "Backend.h"

#include <algorithm>
#include <cstdlib>

using namespace aicc::runtime;
using namespace aicc::runtime::detail;

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(t.numElements()) * dtypeSize(dtype), 0);
  return t;
}

int64_t HostTensor::numElements() const {
  return shapeNumElements(shape).value_or(0);
}

Session::Session() = default;
Session::~Session() = default;

Status Session::create(const Bundle &bundle, Device device, std::unique_ptr<Session> &out,
                       const Limits &limits) {
  SessionOptions options;
  options.limits = limits;
  return create(bundle, device, out, options);
}

Status Session::create(const Bundle &bundle, Device device, std::unique_ptr<Session> &out,
                       const SessionOptions &options) {
  ModelOptions modelOptions;
  modelOptions.deviceIndex = options.deviceIndex;
  modelOptions.limits = options.limits;
  std::shared_ptr<const Model> model;
  if (Status s = Model::load(bundle, device, model, modelOptions); !s.ok)
    return s;
  return create(std::move(model), out, options);
}

Status Session::create(std::shared_ptr<const Model> model, std::unique_ptr<Session> &out,
                       const SessionOptions &options) {
  if (!model)
    return Status::error("Session::create: no model (null pointer)");
  std::unique_ptr<Session> session(new Session());
  const Bundle &plan = model->loaded->plan;
  for (const BufferDesc &b : plan.buffers)
    // validateBundle bounded the sum (Limits::maxBufferBytes): no overflow.
    if (b.kind != BufferKind::alias && b.kind != BufferKind::constant &&
        !(b.kind == BufferKind::temp && plan.arenaBytes))
      session->allocatedBytes += std::max<uint64_t>(b.sizeBytes, 1);
  if (plan.arenaBytes)
    session->allocatedBytes += std::max<uint64_t>(*plan.arenaBytes, 1);

  detail::BackendOptions backendOptions;
  const char *graphsEnv = std::getenv("AICC_CUDA_GRAPHS");
  backendOptions.cudaGraphs =
      options.cudaGraphs && !(graphsEnv && std::string_view(graphsEnv) == "0");
  Status s = model->getDevice() == Device::cuda
                 ? createCUDABackend(model->loaded, backendOptions, session->backend)
                 : createCPUBackend(model->loaded, session->backend);
  if (!s.ok)
    return s;
  session->symbolValues = symbolMaxima(model->loaded->plan);
  session->model = std::move(model);
  out = std::move(session);
  return Status::success();
}

std::vector<int64_t> Session::getSymbolValues() const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return symbolValues;
}

size_t Session::getRunLaunchCount() const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  size_t n = 0;
  for (const std::array<int64_t, 3> &g : launchGridsAt(model->loaded->plan, symbolValues))
    n += g[0] > 0 && g[1] > 0 && g[2] > 0;
  return n;
}

Status Session::bindSymbols(const std::vector<int64_t> &values) {
  if (values == symbolValues)
    return Status::success(); // the backend has it (both start at the maxima)
  if (Status s = backend->bindSymbols(values); !s.ok)
    return s;
  symbolValues = values;
  return Status::success();
}

namespace {

/// Bytes of a tensor of `dtype` and `shape` (validated sizes: no overflow).
size_t tensorBytes(DType dtype, const std::vector<int64_t> &shape) {
  return static_cast<size_t>(shapeNumElements(shape).value_or(0)) * dtypeSize(dtype);
}

/// "input 0 ('x')".
std::string ioLabel(const char *what, size_t i, const TensorInfo &info) {
  return std::string(what) + " " + std::to_string(i) + " ('" + info.name + "')";
}

/// Binds the symbols one input at a time (Session::run / runAsync): the first
/// input that carries a symbol sets its value, later ones must agree.
class SymbolBinder {
public:
  SymbolBinder(const std::vector<SymbolInfo> &symbols, const std::vector<TensorInfo> &inputs)
      : symbols(symbols), inputs(inputs), values(symbols.size(), 0), boundBy(symbols.size(), -1) {}

  /// Binds input `i`'s symbol to `v` (`where` says how the input gives it,
  /// for the range error).
  Status bind(size_t i, int64_t v, const std::string &where) {
    const TensorInfo &info = inputs[i];
    const int s = info.symbolic->symbol;
    const SymbolInfo &sym = symbols[s];
    if (v < sym.min || v > sym.max)
      return Status::error(ioLabel("input", i, info) + ": " + where + sym.name + " = " +
                           std::to_string(v) + (fromBytes ? ", outside" : " is outside") +
                           " the compiled range [" + std::to_string(sym.min) + ", " +
                           std::to_string(sym.max) + "]" + rangeNote(info, v));
    if (boundBy[s] >= 0 && values[s] != v) {
      const size_t j = static_cast<size_t>(boundBy[s]);
      return Status::error(ioLabel("input", i, info) + ": " + sym.name + " = " + std::to_string(v) +
                           ", but " + ioLabel("input", j, inputs[j]) + " gives " + sym.name +
                           " = " + std::to_string(values[s]));
    }
    values[s] = v;
    boundBy[s] = static_cast<int>(i);
    return Status::success();
  }

  /// Set by a run's bytes (runAsync): the range note names no dim.
  bool fromBytes = false;
  const std::vector<SymbolInfo> &symbols;
  const std::vector<TensorInfo> &inputs;
  std::vector<int64_t> values;

private:
  /// " (dim 0)", or " (dim 0 is 280 = 4 x batch)" for a factor.
  std::string rangeNote(const TensorInfo &info, int64_t v) const {
    if (fromBytes)
      return "";
    const SymbolicDim &d = *info.symbolic;
    std::string note = " (dim " + std::to_string(d.axis);
    if (d.factor != 1)
      note += " is " + std::to_string(d.factor * v) + " = " + std::to_string(d.factor) + " x " +
              symbols[d.symbol].name;
    return note + ")";
  }

  std::vector<int> boundBy;
};

/// Checks host input `i` against the model (the dtype and shape, a symbolic dim within
/// its range) and binds its symbol.
Status checkInput(size_t i, const HostTensor &t, SymbolBinder &binder) {
  const TensorInfo &info = binder.inputs[i];
  const std::string label = ioLabel("input", i, info);
  if (!info.symbolic) {
    if (t.dtype != info.dtype || t.shape != info.shape)
      return Status::error(label + ": expected " + formatTensorType(info.dtype, info.shape) +
                           ", got " + formatTensorType(t.dtype, t.shape));
  } else {
    const SymbolicDim &d = *info.symbolic;
    const SymbolInfo &sym = binder.symbols[d.symbol];
    bool matches =
        t.dtype == info.dtype && t.shape.size() == info.shape.size() && t.shape[d.axis] >= 0;
    for (size_t k = 0; matches && k < info.shape.size(); ++k)
      matches = static_cast<int>(k) == d.axis || t.shape[k] == info.shape[k];
    if (!matches)
      return Status::error(label + ": expected " + formatTensorInfo(info, binder.symbols) + " (" +
                           formatSymbolRange(sym) + "), got " + formatTensorType(t.dtype, t.shape));
    const int64_t dim = t.shape[d.axis];
    const std::string axis = "dim " + std::to_string(d.axis);
    if (dim % d.factor != 0)
      return Status::error(label + ": " + axis + " is " + std::to_string(dim) +
                           ", not a multiple of " + std::to_string(d.factor) + " (" + axis +
                           " is " + std::to_string(d.factor) + " x " + sym.name + ")");
    if (Status s = binder.bind(i, dim / d.factor, ""); !s.ok)
      return s;
  }
  const size_t expected = tensorBytes(t.dtype, t.shape);
  if (t.data.size() != expected)
    return Status::error(label + ": data holds " + std::to_string(t.data.size()) + " bytes but " +
                         formatTensorType(t.dtype, t.shape) + " needs " + std::to_string(expected));
  return Status::success();
}

} // namespace

Status Session::run(const std::vector<HostTensor> &inputTensors,
                    std::vector<HostTensor> &outputTensors) {
  return run(inputTensors, outputTensors, LaunchObserver());
}

bool Session::usesCudaGraphs() const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return backend->usesGraphs();
}

/// Checks caller buffers against the model's inputs (`binder` set: binds the symbols
/// from their sizes) or outputs (`values`: their sizes at the bound symbols).
static Status checkDeviceBuffers(const std::vector<DeviceBuffer> &given,
                                 const std::vector<TensorInfo> &expected, const char *what,
                                 const std::vector<int> &bufferIds,
                                 const std::vector<SymbolInfo> &symbols, SymbolBinder *binder,
                                 const std::vector<int64_t> &values,
                                 std::vector<DeviceCopy> &copies) {
  if (given.size() != expected.size())
    return Status::error("expected " + std::to_string(expected.size()) + " " + what +
                         " buffer(s), got " + std::to_string(given.size()));
  copies.clear();
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorInfo &info = expected[i];
    const std::string label = ioLabel(what, i, info);
    const size_t full = tensorBytes(info.dtype, info.shape);
    size_t bytes = full;
    if (info.symbolic && binder) {
      // Validated: the buffer has elements and its size is max x a whole step.
      const SymbolInfo &sym = symbols[info.symbolic->symbol];
      const size_t step = full / static_cast<size_t>(sym.max);
      if (step == 0 || given[i].bytes % step != 0)
        return Status::error(label + ": expected a multiple of " + std::to_string(step) +
                             " bytes (" + formatTensorInfo(info, symbols) + ": " +
                             std::to_string(step) + " bytes per " + sym.name + "), got " +
                             std::to_string(given[i].bytes));
      const auto v = static_cast<int64_t>(given[i].bytes / step);
      if (Status s = binder->bind(i, v, std::to_string(given[i].bytes) + " bytes is "); !s.ok)
        return s;
      bytes = given[i].bytes;
    } else if (info.symbolic) {
      bytes = tensorBytes(info.dtype, info.shapeAt(values));
    }
    if (given[i].bytes != bytes) {
      std::string type =
          formatTensorType(info.dtype, info.symbolic ? info.shapeAt(values) : info.shape);
      if (info.symbolic) {
        const SymbolInfo &sym = symbols[info.symbolic->symbol];
        type += " at " + sym.name + " = " + std::to_string(values[info.symbolic->symbol]);
      }
      return Status::error(label + ": expected " + std::to_string(bytes) + " bytes (" + type +
                           "), got " + std::to_string(given[i].bytes));
    }
    if (bytes && !given[i].address)
      return Status::error(label + ": null address");
    const TensorInfo::RowLayout layout = info.layoutAt(binder ? binder->values : values);
    copies.push_back({bufferIds[i], given[i].address, bytes, layout.rows, layout.pitch});
  }
  return Status::success();
}

namespace {

/// The bytes `copies` move.
uint64_t copyBytes(const std::vector<DeviceCopy> &copies) {
  uint64_t n = 0;
  for (const DeviceCopy &c : copies)
    n += c.bytes;
  return n;
}

/// "0x7f..." for messages.
std::string hexAddress(uint64_t a) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[a & 15]);
    a >>= 4;
  } while (a);
  return "0x" + s;
}

/// [begin, begin + bytes) of one caller or session buffer.
struct Extent {
  uint64_t begin = 0;
  size_t bytes = 0;
  bool overlaps(const Extent &o) const {
    return bytes && o.bytes && begin < o.begin + o.bytes && o.begin < begin + bytes;
  }
};

/// "its 64 bytes at 0x... overlap the session's buffer for input 0 ('x') (96
/// bytes at 0x...)".
std::string overlapText(const Extent &given, const char *what, size_t j, const TensorInfo &info,
                        const Extent &own) {
  return "its " + std::to_string(given.bytes) + " bytes at " + hexAddress(given.begin) +
         " overlap the session's buffer for " + ioLabel(what, j, info) + " (" +
         std::to_string(own.bytes) + " bytes at " + hexAddress(own.begin) + ")";
}

} // namespace

/// runAsync's buffers that are the session's own (Session.h): drops the copies of
/// those taken in place from `copies` (parallel to `given` and `infos`), refuses any
/// other overlap with a session buffer of the same side that the copies read or write.
/// `own` is each input's or output's session memory. Overlapping the other side's is
/// left alone: inputs are read before the launches, outputs written after them.
static Status takeInPlace(const std::vector<DeviceBuffer> &given,
                          const std::vector<TensorInfo> &infos, const char *what,
                          const std::vector<Extent> &own, const std::vector<int64_t> &values,
                          const std::vector<SymbolInfo> &symbols, bool isInput,
                          std::vector<DeviceCopy> &copies) {
  std::vector<bool> inPlace(given.size(), false);
  for (size_t i = 0; i < given.size(); ++i) {
    const Extent g{given[i].address, given[i].bytes};
    if (!g.overlaps(own[i]))
      continue;
    const TensorInfo::RowLayout l = infos[i].layoutAt(values);
    const bool identity = l.rows <= 1 || l.rowBytes == l.pitch;
    if (g.begin == own[i].begin && identity) {
      inPlace[i] = true;
      continue;
    }
    std::string why = "pass the session's address exactly, or memory outside it";
    if (g.begin == own[i].begin) {
      const SymbolicDim &d = *infos[i].symbolic; // identity without a symbolic dim
      const SymbolInfo &sym = symbols[d.symbol];
      why = "at " + sym.name + " = " + std::to_string(values[d.symbol]) + " the run places " +
            std::to_string(l.rows) + " rows of " + std::to_string(l.rowBytes) + " bytes " +
            std::to_string(l.pitch) + " bytes apart in that buffer, so only " + sym.name + " = " +
            std::to_string(sym.max) + " is taken in place: pass memory outside it";
    }
    return Status::error(ioLabel(what, i, infos[i]) + ": " +
                         overlapText(g, what, i, infos[i], own[i]) +
                         " but cannot be taken in place: " + why);
  }
  // Inputs: the copies write the session's buffers of the inputs not taken in place, in
  // index order, so no input may be read from one of them. Outputs: each output's
  // session buffer holds its result until copied out (or for the caller to read, in
  // place), so no output may be written into another's.
  for (size_t i = 0; i < given.size(); ++i) {
    const Extent g{given[i].address, given[i].bytes};
    for (size_t j = 0; j < given.size(); ++j) {
      if (j == i || own[j].begin == own[i].begin || (isInput && inPlace[j]) || !g.overlaps(own[j]))
        continue;
      return Status::error(
          ioLabel(what, i, infos[i]) + ": " + overlapText(g, what, j, infos[j], own[j]) +
          (isInput
               ? ", which this run copies input " + std::to_string(j) + " into first"
               : ", which holds output " + std::to_string(j) + "'s result at the end of the run") +
          ": pass memory outside it");
    }
  }
  std::vector<DeviceCopy> kept;
  for (size_t i = 0; i < copies.size(); ++i)
    if (!inPlace[i])
      kept.push_back(copies[i]);
  copies = std::move(kept);
  return Status::success();
}

DeviceBuffer Session::ownBuffer(bool output, size_t index, bool *constant) const {
  const TensorInfo &info = output ? model->outputs[index] : model->inputs[index];
  const int id = output ? model->outputBuffers[index] : model->inputBuffers[index];
  if (constant) {
    const Bundle &plan = model->loaded->plan;
    *constant = output && plan.buffers[resolveAliasRoot(plan, id)].kind == BufferKind::constant;
  }
  return {backend->bufferAddress(id), tensorBytes(info.dtype, info.shape)};
}

Status Session::getInputBuffer(size_t inputIndex, DeviceBuffer &out) const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (inputIndex >= model->inputs.size())
    return Status::error("input " + std::to_string(inputIndex) + " out of range (the model has " +
                         std::to_string(model->inputs.size()) + " inputs)");
  out = ownBuffer(/*output=*/false, inputIndex);
  return Status::success();
}

Status Session::getOutputBuffer(size_t outputIndex, DeviceBuffer &out) const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (outputIndex >= model->outputs.size())
    return Status::error("output " + std::to_string(outputIndex) + " out of range (the model has " +
                         std::to_string(model->outputs.size()) + " outputs)");
  bool constant = false;
  DeviceBuffer own = ownBuffer(/*output=*/true, outputIndex, &constant);
  if (constant)
    return Status::error(ioLabel("output", outputIndex, model->outputs[outputIndex]) +
                         " is a constant of the model, shared by all its sessions: the session "
                         "has no buffer of its own for it");
  out = own;
  return Status::success();
}

Status Session::runAsync(const std::vector<DeviceBuffer> &inputBuffersGiven,
                         const std::vector<DeviceBuffer> &outputBuffersGiven, void *stream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::vector<DeviceCopy> in, out;
  SymbolBinder binder(model->symbols, model->inputs);
  binder.fromBytes = true;
  if (Status s = checkDeviceBuffers(inputBuffersGiven, model->inputs, "input", model->inputBuffers,
                                    model->symbols, &binder, {}, in);
      !s.ok)
    return s;
  if (Status s =
          checkDeviceBuffers(outputBuffersGiven, model->outputs, "output", model->outputBuffers,
                             model->symbols, nullptr, binder.values, out);
      !s.ok)
    return s;
  // The session's own memory of each input and output (getInputBuffer, getOutputBuffer),
  // whole: an output that is a constant is never taken in place (nor written).
  std::vector<Extent> ownIn, ownOut;
  for (size_t i = 0; i < model->inputs.size(); ++i) {
    DeviceBuffer own = ownBuffer(/*output=*/false, i);
    ownIn.push_back({own.address, own.bytes});
  }
  for (size_t i = 0; i < model->outputs.size(); ++i) {
    bool constant = false;
    DeviceBuffer own = ownBuffer(/*output=*/true, i, &constant);
    ownOut.push_back({own.address, constant ? 0 : own.bytes});
  }
  if (Status s = takeInPlace(inputBuffersGiven, model->inputs, "input", ownIn, binder.values,
                             model->symbols, true, in);
      !s.ok)
    return s;
  if (Status s = takeInPlace(outputBuffersGiven, model->outputs, "output", ownOut, binder.values,
                             model->symbols, false, out);
      !s.ok)
    return s;
  if (Status s = bindSymbols(binder.values); !s.ok)
    return s;
  if (Status s = backend->runAsync(in, out, stream); !s.ok)
    return s;
  lastRunCopyBytes = copyBytes(in) + copyBytes(out);
  return Status::success();
}

uint64_t Session::getLastRunCopyBytes() const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return lastRunCopyBytes;
}

Status Session::readBuffer(int bufferId, HostTensor &out) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (bufferId < 0 || static_cast<size_t>(bufferId) >= model->buffers.size())
    return Status::error("buffer id " + std::to_string(bufferId) + " out of range (the plan has " +
                         std::to_string(model->buffers.size()) + " buffers)");
  const BufferInfo &b = model->buffers[bufferId];
  HostTensor t = HostTensor::zeros(b.dtype, b.shape);
  if (Status s = backend->readBuffer(bufferId, t.data.data(), t.data.size(), 1, 0); !s.ok)
    return s.withContext("reading buffer " + std::to_string(bufferId));
  out = std::move(t);
  return Status::success();
}

Status Session::run(const std::vector<HostTensor> &inputTensors,
                    std::vector<HostTensor> &outputTensors,
                    const LaunchObserver &afterEachLaunch) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (inputTensors.size() != getInputs().size())
    return Status::error("expected " + std::to_string(getInputs().size()) + " input(s), got " +
                         std::to_string(inputTensors.size()));
  SymbolBinder binder(model->symbols, model->inputs);
  for (size_t i = 0; i < getInputs().size(); ++i)
    if (Status s = checkInput(i, inputTensors[i], binder); !s.ok)
      return s;
  // validateBundle: every symbol is a dim of some input, so all are bound now.
  if (Status s = bindSymbols(binder.values); !s.ok)
    return s;
  // The results go to a vector of our own, moved into `outputTensors` on success: the
  // caller may pass the same vector as inputs and outputs (feeding a run's outputs back).
  // An output with a symbolic dim is the prefix of its buffer at the bound values.
  std::vector<HostTensor> results;
  results.reserve(model->outputs.size());
  for (const TensorInfo &info : model->outputs)
    results.push_back(HostTensor::zeros(info.dtype, info.shapeAt(binder.values)));
  if (!afterEachLaunch) {
    std::vector<DeviceCopy> in, out;
    for (size_t i = 0; i < inputTensors.size(); ++i) {
      const TensorInfo::RowLayout l = model->inputs[i].layoutAt(binder.values);
      in.push_back({model->inputBuffers[i],
                    reinterpret_cast<uintptr_t>(inputTensors[i].data.data()),
                    inputTensors[i].data.size(), l.rows, l.pitch});
    }
    for (size_t i = 0; i < results.size(); ++i) {
      const TensorInfo::RowLayout l = model->outputs[i].layoutAt(binder.values);
      out.push_back({model->outputBuffers[i], reinterpret_cast<uintptr_t>(results[i].data.data()),
                     results[i].data.size(), l.rows, l.pitch});
    }
    if (Status s = backend->runHost(in, out); !s.ok)
      return s;
    lastRunCopyBytes = copyBytes(in) + copyBytes(out);
    outputTensors = std::move(results);
    return Status::success();
  }
  for (size_t i = 0; i < model->inputs.size(); ++i)
    if (Status s = backend->writeBuffer(model->inputBuffers[i], inputTensors[i].data.data(),
                                        inputTensors[i].data.size(),
                                        model->inputs[i].layoutAt(binder.values).rows,
                                        model->inputs[i].layoutAt(binder.values).pitch);
        !s.ok)
      return s.withContext("copying input " + std::to_string(i) + " ('" + model->inputs[i].name +
                           "') to the device");
  for (size_t i = 0; i < model->launches.size(); ++i) {
    if (Status s = backend->executeLaunch(i); !s.ok)
      return s;
    if (Status s = afterEachLaunch(i); !s.ok)
      return s.withContext("after launch " + std::to_string(i) + " of '" +
                           model->launches[i].kernel + "'");
  }
  for (size_t i = 0; i < model->outputs.size(); ++i)
    if (Status s = backend->readBuffer(model->outputBuffers[i], results[i].data.data(),
                                       results[i].data.size(),
                                       model->outputs[i].layoutAt(binder.values).rows,
                                       model->outputs[i].layoutAt(binder.values).pitch);
        !s.ok)
      return s.withContext("copying output " + std::to_string(i) + " ('" + model->outputs[i].name +
                           "') from the device");
  lastRunCopyBytes = 0;
  for (const HostTensor &t : inputTensors)
    lastRunCopyBytes += t.data.size();
  for (const HostTensor &t : results)
    lastRunCopyBytes += t.data.size();
  outputTensors = std::move(results);
  return Status::success();
}

Status Session::poisonBuffers(uint8_t byte, bool symbolicInputs) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  // Inputs with a symbolic dim too: a run writes only their part at its values.
  std::vector<bool> partial(model->buffers.size(), false);
  for (size_t i = 0; i < model->inputs.size() && symbolicInputs; ++i)
    if (model->inputs[i].symbolic)
      partial[model->inputBuffers[i]] = true;
  for (size_t id = 0; id < model->buffers.size(); ++id) {
    const BufferInfo &b = model->buffers[id];
    if (b.kind != BufferKind::output && b.kind != BufferKind::temp && !partial[id])
      continue;
    size_t bytes = static_cast<size_t>(shapeNumElements(b.shape).value_or(0)) * dtypeSize(b.dtype);
    if (bytes == 0)
      continue; // nothing to poison (and no zero-byte driver call)
    if (Status s = backend->fillBuffer(static_cast<int>(id), byte, bytes); !s.ok)
      return s.withContext("poisoning buffer " + std::to_string(id));
  }
  return Status::success();
}

BenchmarkStats aicc::runtime::summarizeRuns(std::vector<double> perRunMs) {
  BenchmarkStats st;
  if (perRunMs.empty())
    return st;
  st.runs = static_cast<int>(perRunMs.size());
  double total = 0;
  for (double ms : perRunMs)
    total += ms;
  st.meanMs = total / perRunMs.size();
  std::sort(perRunMs.begin(), perRunMs.end());
  auto at = [&](double p) {
    return perRunMs[std::min(perRunMs.size() - 1, static_cast<size_t>(p * perRunMs.size()))];
  };
  st.medianMs = at(0.5);
  st.p90Ms = at(0.9);
  st.minMs = perRunMs.front();
  st.maxMs = perRunMs.back();
  return st;
}

Status Session::benchmark(int iters, BenchmarkStats &stats) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (iters < 1)
    return Status::error("benchmark needs at least 1 iteration, got " +
                         std::to_string(iters));
  std::vector<double> perRun;
  if (Status s = backend->benchmark(iters, perRun); !s.ok)
    return s;
  stats = summarizeRuns(std::move(perRun));
  return Status::success();
}

Status Session::benchmark(int iters, double &msPerRun) {
  BenchmarkStats stats;
  if (Status s = benchmark(iters, stats); !s.ok)
    return s;
  msPerRun = stats.meanMs;
  return Status::success();
}
