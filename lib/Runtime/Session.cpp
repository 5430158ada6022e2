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
  session->model = std::move(model);
  out = std::move(session);
  return Status::success();
}

Status Session::run(const std::vector<HostTensor> &inputTensors,
                    std::vector<HostTensor> &outputTensors) {
  return run(inputTensors, outputTensors, LaunchObserver());
}

bool Session::usesCudaGraphs() const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  return backend->usesGraphs();
}

/// Checks caller buffers against the model's inputs or outputs.
static Status checkDeviceBuffers(const std::vector<DeviceBuffer> &given,
                                 const std::vector<TensorInfo> &expected, const char *what,
                                 const std::vector<int> &bufferIds,
                                 std::vector<DeviceCopy> &copies) {
  if (given.size() != expected.size())
    return Status::error("expected " + std::to_string(expected.size()) + " " + what +
                         " buffer(s), got " + std::to_string(given.size()));
  copies.clear();
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorInfo &info = expected[i];
    size_t bytes = static_cast<size_t>(shapeNumElements(info.shape).value_or(0)) *
                   dtypeSize(info.dtype);
    if (given[i].bytes != bytes)
      return Status::error(std::string(what) + " " + std::to_string(i) + " ('" + info.name +
                           "'): expected " + std::to_string(bytes) + " bytes (" +
                           formatTensorType(info.dtype, info.shape) + "), got " +
                           std::to_string(given[i].bytes));
    if (bytes && !given[i].address)
      return Status::error(std::string(what) + " " + std::to_string(i) + " ('" + info.name +
                           "'): null address");
    copies.push_back({bufferIds[i], given[i].address, bytes});
  }
  return Status::success();
}

Status Session::runAsync(const std::vector<DeviceBuffer> &inputBuffersGiven,
                         const std::vector<DeviceBuffer> &outputBuffersGiven, void *stream) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::vector<DeviceCopy> in, out;
  if (Status s =
          checkDeviceBuffers(inputBuffersGiven, model->inputs, "input", model->inputBuffers, in);
      !s.ok)
    return s;
  if (Status s = checkDeviceBuffers(outputBuffersGiven, model->outputs, "output",
                                    model->outputBuffers, out);
      !s.ok)
    return s;
  return backend->runAsync(in, out, stream);
}

Status Session::readBuffer(int bufferId, HostTensor &out) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (bufferId < 0 || static_cast<size_t>(bufferId) >= model->buffers.size())
    return Status::error("buffer id " + std::to_string(bufferId) + " out of range (the plan has " +
                         std::to_string(model->buffers.size()) + " buffers)");
  const BufferInfo &b = model->buffers[bufferId];
  HostTensor t = HostTensor::zeros(b.dtype, b.shape);
  if (Status s = backend->readBuffer(bufferId, t.data.data(), t.data.size());
      !s.ok)
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
  for (size_t i = 0; i < getInputs().size(); ++i) {
    const TensorInfo &info = model->inputs[i];
    const HostTensor &t = inputTensors[i];
    std::string label =
        "input " + std::to_string(i) + " ('" + info.name + "')";
    if (t.dtype != info.dtype || t.shape != info.shape)
      return Status::error(label + ": expected " +
                           formatTensorType(info.dtype, info.shape) + ", got " +
                           formatTensorType(t.dtype, t.shape));
    size_t expected =
        static_cast<size_t>(t.numElements()) * dtypeSize(t.dtype);
    if (t.data.size() != expected)
      return Status::error(label + ": data holds " +
                           std::to_string(t.data.size()) + " bytes but " +
                           formatTensorType(t.dtype, t.shape) + " needs " +
                           std::to_string(expected));
  }
  // The results go to a vector of our own, moved into `outputTensors` on success: the
  // caller may pass the same vector as inputs and outputs (feeding a run's outputs back).
  std::vector<HostTensor> results;
  results.reserve(model->outputs.size());
  for (const TensorInfo &info : model->outputs)
    results.push_back(HostTensor::zeros(info.dtype, info.shape));
  if (!afterEachLaunch) {
    std::vector<DeviceCopy> in, out;
    for (size_t i = 0; i < inputTensors.size(); ++i)
      in.push_back({model->inputBuffers[i],
                    reinterpret_cast<uintptr_t>(inputTensors[i].data.data()),
                    inputTensors[i].data.size()});
    for (size_t i = 0; i < results.size(); ++i)
      out.push_back({model->outputBuffers[i], reinterpret_cast<uintptr_t>(results[i].data.data()),
                     results[i].data.size()});
    if (Status s = backend->runHost(in, out); !s.ok)
      return s;
    outputTensors = std::move(results);
    return Status::success();
  }
  for (size_t i = 0; i < model->inputs.size(); ++i)
    if (Status s = backend->writeBuffer(model->inputBuffers[i], inputTensors[i].data.data(),
                                        inputTensors[i].data.size());
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
                                       results[i].data.size());
        !s.ok)
      return s.withContext("copying output " + std::to_string(i) + " ('" + model->outputs[i].name +
                           "') from the device");
  outputTensors = std::move(results);
  return Status::success();
}

Status Session::poisonBuffers(uint8_t byte) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  for (size_t id = 0; id < model->buffers.size(); ++id) {
    const BufferInfo &b = model->buffers[id];
    if (b.kind != BufferKind::output && b.kind != BufferKind::temp)
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
