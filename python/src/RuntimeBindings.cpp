//===- RuntimeBindings.cpp - Bundles, sessions, DLPack and TensorProtos ---===//
//
// The runtime half of aicc._aicc (no compiler needed): bundle inspection, a Session over
// a loaded Model (host runs, runs on caller-owned memory, the addresses of the session's
// own buffers, benchmarks), reading a DLPack capsule, and ONNX TensorProto files. Tensors
// cross as raw bytes plus a dtype name and a shape; aicc/_tensors.py maps them to numpy /
// torch / DLPack objects.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"
#include "DLPack.h"

#include "aicc/Runtime/Bundle.h"
#include "aicc/Runtime/Model.h"
#include "aicc/Runtime/ONNXData.h"
#include "aicc/Runtime/Session.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>

namespace py = pybind11;
namespace rt = aicc::runtime;
using aicc::python::raise;

namespace {

void check(const rt::Status &status) {
  if (!status.ok)
    raise("RuntimeError", status.message);
}

rt::DType dtypeOf(const std::string &name) {
  std::optional<rt::DType> d = rt::parseDType(name);
  if (!d)
    raise("Error", "unknown dtype '" + name + "'");
  return *d;
}

/// A 1-D uint8 array that owns `data` (no copy).
py::array ownedBytes(std::vector<uint8_t> &&data) {
  if (data.empty())
    return py::array_t<uint8_t>(0);
  auto *owned = new std::vector<uint8_t>(std::move(data));
  py::capsule owner(owned, [](void *p) { delete static_cast<std::vector<uint8_t> *>(p); });
  return py::array(py::dtype("uint8"), {static_cast<py::ssize_t>(owned->size())}, {1},
                   owned->data(), owner);
}

/// (dtype name, shape, uint8 array of the bytes): what Python turns into a tensor.
py::tuple hostTensorToPython(rt::HostTensor &&t) {
  std::string dtype = rt::dtypeName(t.dtype);
  std::vector<int64_t> shape = t.shape;
  return py::make_tuple(dtype, shape, ownedBytes(std::move(t.data)));
}

/// Copies a C-contiguous buffer into a HostTensor of `dtype` and `shape`.
rt::HostTensor hostTensorFromPython(const std::string &dtype, const std::vector<int64_t> &shape,
                                    const py::buffer &data) {
  rt::HostTensor t;
  t.dtype = dtypeOf(dtype);
  t.shape = shape;
  py::buffer_info info = data.request();
  size_t bytes = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
  const auto *src = static_cast<const uint8_t *>(info.ptr);
  t.data.assign(src, src + bytes);
  return t;
}

py::object tensorInfos(const std::vector<rt::TensorInfo> &infos) {
  py::list out;
  for (const rt::TensorInfo &info : infos) {
    py::object symbolic = py::none();
    if (info.symbolic)
      symbolic = py::make_tuple(info.symbolic->axis, info.symbolic->symbol, info.symbolic->factor);
    out.append(py::make_tuple(info.name, rt::dtypeName(info.dtype), info.shape, symbolic));
  }
  return out;
}

/// What aicc.Module shows of a bundle without loading it (any target, any machine).
py::dict describeBundle(const py::bytes &bytes) {
  rt::Bundle bundle;
  std::string_view view = bytes;
  check(rt::parseBundle(view, bundle).withContext("not a valid aicc bundle"));
  std::vector<std::optional<rt::SymbolicDim>> symbolicOf(bundle.buffers.size());
  for (const rt::SymDimDesc &d : bundle.symDims)
    symbolicOf[d.bufferId] = rt::SymbolicDim{d.axis, d.symbol, d.factor};
  auto infos = [&](const std::vector<rt::IODesc> &ios) {
    std::vector<rt::TensorInfo> out;
    for (const rt::IODesc &io : ios) {
      const rt::BufferDesc &b = bundle.buffers[io.bufferId];
      out.push_back({io.name, b.dtype, b.shape, symbolicOf[io.bufferId]});
    }
    return out;
  };
  py::dict d;
  d["target"] = bundle.target;
  d["format_version"] = bundle.formatVersion;
  d["inputs"] = tensorInfos(infos(bundle.inputs));
  d["outputs"] = tensorInfos(infos(bundle.outputs));
  py::list symbols, bound;
  for (const rt::SymbolDesc &s : bundle.symbols)
    symbols.append(py::make_tuple(s.name, s.min, s.max));
  for (const rt::BoundInputDesc &b : bundle.boundInputs)
    bound.append(py::make_tuple(b.name, rt::dtypeName(b.dtype), b.shape));
  d["symbols"] = symbols;
  d["bound_inputs"] = bound;
  // Whole plans per range of a symbol (`plan` records, --specialize).
  py::list plans;
  for (size_t i = 0; i < bundle.plans.size(); ++i) {
    const rt::PlanDesc &p = bundle.plans[i];
    size_t end = i + 1 < bundle.plans.size() ? bundle.plans[i + 1].firstLaunch
                                             : bundle.launches.size();
    plans.append(py::make_tuple(bundle.symbols[p.symbol].name, p.lo, p.hi, p.packed,
                                end - p.firstLaunch));
  }
  d["plans"] = plans;
  d["num_kernels"] = bundle.kernels.size();
  d["num_launches"] = bundle.launches.size();
  d["code_bytes"] = bundle.code.size();
  d["weight_bytes"] = bundle.weights.size();
  return d;
}

/// One loaded model and one session of it on one device.
class PySession {
public:
  PySession(const py::bytes &bytes, const std::string &deviceName, int deviceIndex,
            bool cudaGraphs) {
    std::optional<rt::Device> device = rt::parseDevice(deviceName);
    if (!device)
      raise("Error", "unknown device '" + deviceName + "' (cpu or cuda)");
    std::string_view view = bytes;
    rt::Bundle bundle;
    check(rt::parseBundle(view, bundle).withContext("not a valid aicc bundle"));
    rt::ModelOptions modelOptions;
    modelOptions.deviceIndex = deviceIndex;
    rt::SessionOptions sessionOptions;
    sessionOptions.cudaGraphs = cudaGraphs;
    rt::Status status;
    {
      py::gil_scoped_release release;
      status = rt::Model::load(bundle, *device, model, modelOptions);
      if (status.ok)
        status = rt::Session::create(model, session, sessionOptions);
    }
    check(status);
  }

  /// Session::run: host tensors in, host tensors out (copies both ways).
  py::list runHost(const std::vector<py::tuple> &inputs) {
    std::vector<rt::HostTensor> in;
    for (const py::tuple &t : inputs)
      in.push_back(hostTensorFromPython(t[0].cast<std::string>(), t[1].cast<std::vector<int64_t>>(),
                                        t[2].cast<py::buffer>()));
    std::vector<rt::HostTensor> out;
    rt::Status status;
    {
      py::gil_scoped_release release;
      status = session->run(in, out);
    }
    check(status);
    py::list result;
    for (rt::HostTensor &t : out)
      result.append(hostTensorToPython(std::move(t)));
    return result;
  }

  /// Session::runAsync on caller-owned memory: (address, bytes) per input and output.
  void runBuffers(const std::vector<std::pair<uint64_t, size_t>> &inputs,
                  const std::vector<std::pair<uint64_t, size_t>> &outputs, uint64_t stream) {
    std::vector<rt::DeviceBuffer> in, out;
    for (const auto &[address, bytes] : inputs)
      in.push_back({address, bytes});
    for (const auto &[address, bytes] : outputs)
      out.push_back({address, bytes});
    rt::Status status;
    {
      py::gil_scoped_release release;
      status = session->runAsync(in, out, reinterpret_cast<void *>(stream));
    }
    check(status);
  }

  /// Session::getInputBuffer / getOutputBuffer: (address, bytes) of the session's own
  /// memory for input or output `index` (bytes at the recorded shape, the bound).
  std::pair<uint64_t, size_t> ownBuffer(bool input, size_t index) const {
    rt::DeviceBuffer b;
    check(input ? session->getInputBuffer(index, b) : session->getOutputBuffer(index, b));
    return {b.address, b.bytes};
  }
  uint64_t lastRunCopyBytes() const { return session->getLastRunCopyBytes(); }

  py::dict benchmark(int iters) {
    if (iters < 1)
      raise("Error", "benchmark iterations must be >= 1, got " + std::to_string(iters));
    rt::BenchmarkStats stats;
    rt::Status status;
    {
      py::gil_scoped_release release;
      status = session->benchmark(iters, stats);
    }
    check(status);
    py::dict d;
    d["runs"] = stats.runs;
    d["mean_ms"] = stats.meanMs;
    d["median_ms"] = stats.medianMs;
    d["p90_ms"] = stats.p90Ms;
    d["min_ms"] = stats.minMs;
    d["max_ms"] = stats.maxMs;
    return d;
  }

  void poison(int byte) {
    rt::Status status;
    {
      py::gil_scoped_release release;
      status = session->poisonBuffers(static_cast<uint8_t>(byte));
    }
    check(status);
  }

  std::string device() const { return rt::deviceName(session->getDevice()); }
  int deviceIndex() const { return model->getDeviceIndex(); }
  std::vector<int64_t> symbolValues() const { return session->getSymbolValues(); }
  bool usesCudaGraphs() const { return session->usesCudaGraphs(); }
  uint64_t allocatedBytes() const { return session->getAllocatedBytes(); }
  uint64_t constantBytes() const { return model->getConstantBytes(); }

private:
  std::shared_ptr<const rt::Model> model;
  std::unique_ptr<rt::Session> session;
};

/// Reads a "dltensor" capsule without taking ownership (the capsule's own destructor
/// still calls the producer's deleter): (address of the first element, device type,
/// device id, dtype code, bits, lanes, shape, strides in elements or None).
py::tuple dlpackInfo(const py::capsule &capsule) {
  if (std::strcmp(capsule.name(), "dltensor") != 0)
    raise("Error", std::string("expected a DLPack capsule named 'dltensor', got '") +
                       capsule.name() + "' (a capsule can be consumed once)");
  auto *managed = capsule.get_pointer<aicc::python::dlpack::DLManagedTensor>();
  const auto &t = managed->dl_tensor;
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  py::object strides = py::none();
  if (t.strides)
    strides = py::cast(std::vector<int64_t>(t.strides, t.strides + t.ndim));
  uint64_t address = reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
  return py::make_tuple(address, t.device.device_type, t.device.device_id, t.dtype.code,
                        t.dtype.bits, t.dtype.lanes, shape, strides);
}

} // namespace

void aicc::python::bindRuntime(py::module_ &m) {
  m.def("describe_bundle", &describeBundle, py::arg("bundle"),
        "Parses a bundle (bytes) and returns its target, inputs, outputs and symbols.");
  py::class_<PySession>(m, "Session")
      .def(py::init<const py::bytes &, const std::string &, int, bool>(), py::arg("bundle"),
           py::arg("device"), py::arg("device_index") = 0, py::arg("cuda_graphs") = true)
      .def("run_host", &PySession::runHost, py::arg("inputs"))
      .def("run_buffers", &PySession::runBuffers, py::arg("inputs"), py::arg("outputs"),
           py::arg("stream") = 0)
      .def(
          "input_buffer", [](const PySession &s, size_t i) { return s.ownBuffer(true, i); },
          py::arg("index"))
      .def(
          "output_buffer", [](const PySession &s, size_t i) { return s.ownBuffer(false, i); },
          py::arg("index"))
      .def("benchmark", &PySession::benchmark, py::arg("iters"))
      .def("poison", &PySession::poison, py::arg("byte") = 0xFF)
      .def_property_readonly("device", &PySession::device)
      .def_property_readonly("device_index", &PySession::deviceIndex)
      .def_property_readonly("symbol_values", &PySession::symbolValues)
      .def_property_readonly("uses_cuda_graphs", &PySession::usesCudaGraphs)
      .def_property_readonly("last_run_copy_bytes", &PySession::lastRunCopyBytes)
      .def_property_readonly("allocated_bytes", &PySession::allocatedBytes)
      .def_property_readonly("constant_bytes", &PySession::constantBytes);
  m.def("dlpack_info", &dlpackInfo, py::arg("capsule"));
  m.def(
      "read_tensor_proto",
      [](const std::string &path) {
        rt::HostTensor t;
        std::string name;
        check(rt::readTensorProtoFile(path, t, &name));
        return py::make_tuple(name, hostTensorToPython(std::move(t)));
      },
      py::arg("path"));
  m.def(
      "write_tensor_proto",
      [](const std::string &path, const std::string &dtype, const std::vector<int64_t> &shape,
         const py::buffer &data, const std::string &name) {
        check(rt::writeTensorProtoFile(path, hostTensorFromPython(dtype, shape, data), name));
      },
      py::arg("path"), py::arg("dtype"), py::arg("shape"), py::arg("data"), py::arg("name") = "");
}
