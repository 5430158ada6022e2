//===- CompilerBindings.cpp - compile(), reference and bisect -------------===//
//
// The compiler half of aicc._aicc: present only in an extension built with
// AICC_ENABLE_COMPILER (`has_compiler`). compile() goes through CompilerFacade.h; the
// reference and bisect modes are aicc-run's own (include/aicc/Reference/ReferenceModes.h),
// run with the process's stdout and stderr captured into strings.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

#ifdef AICC_PYTHON_WITH_COMPILER
#include "CompilerFacade.h"
#include "StdioCapture.h"

#include "aicc/Reference/ReferenceModes.h"
#endif

#include <pybind11/stl.h>

namespace py = pybind11;

#ifdef AICC_PYTHON_WITH_COMPILER
namespace {

using aicc::python::raise;

py::bytes pyCompile(const py::bytes &model, const std::string &bufferName, bool isMLIR,
                    const std::string &target, const std::string &emit,
                    const std::vector<std::pair<std::string, std::string>> &options,
                    const std::vector<std::pair<std::string, std::string>> &bindInputs,
                    const std::vector<std::pair<std::string, std::vector<int64_t>>> &inputShapes,
                    const std::vector<std::tuple<std::string, int64_t, int64_t, bool>> &dims,
                    const std::string &cudaPath, uint64_t maxTensorBytes,
                    const std::vector<std::pair<std::string, int64_t>> &specializations) {
  aicc::python::CompileRequest request;
  request.model = model;
  request.bufferName = bufferName;
  request.isMLIR = isMLIR;
  request.target = target;
  request.emit = emit;
  request.options = options;
  request.bindInputs = bindInputs;
  request.inputShapes = inputShapes;
  for (const auto &[name, min, max, symbolic] : dims)
    request.dims.push_back({name, min, max, symbolic});
  request.cudaPath = cudaPath;
  request.maxTensorBytes = maxTensorBytes;
  request.specializations = specializations;
  std::string out, error;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = aicc::python::compile(request, out, error);
  }
  if (!ok)
    raise("CompileError", error);
  return py::bytes(out);
}

/// Runs `mode` with stdout and stderr captured: (exit status, stdout text, stderr text).
template <typename Fn> py::tuple captured(Fn &&mode) {
  aicc::python::CapturedRun run;
  std::string problem;
  {
    py::gil_scoped_release release;
    problem = aicc::python::runCaptured(mode, run);
  }
  if (!problem.empty())
    raise("Error", problem);
  return py::make_tuple(run.status, run.out, run.err);
}

aicc::run::ReferenceModeOptions modeOptions(const py::dict &d) {
  aicc::run::ReferenceModeOptions o;
  o.modelPath = d["model"].cast<std::string>();
  if (d.contains("bundle"))
    o.bundlePath = d["bundle"].cast<std::string>();
  if (d.contains("device") && !d["device"].is_none()) {
    std::optional<aicc::runtime::Device> device =
        aicc::runtime::parseDevice(d["device"].cast<std::string>());
    if (!device)
      raise("Error", "unknown device '" + d["device"].cast<std::string>() + "' (cpu or cuda)");
    o.device = device;
  }
  if (d.contains("target"))
    o.target = d["target"].cast<std::string>();
  if (d.contains("inputs"))
    o.inputFiles = d["inputs"].cast<std::vector<std::string>>();
  if (d.contains("test_data_sets"))
    o.testDataSets = d["test_data_sets"].cast<std::vector<std::string>>();
  if (d.contains("rtol") && !d["rtol"].is_none()) {
    o.rtol = d["rtol"].cast<double>();
    o.toleranceGiven = true;
  }
  if (d.contains("atol") && !d["atol"].is_none()) {
    o.atol = d["atol"].cast<double>();
    o.toleranceGiven = true;
  }
  if (d.contains("output_dir"))
    o.outputDir = d["output_dir"].cast<std::string>();
  if (d.contains("poison"))
    o.poison = d["poison"].cast<bool>();
  return o;
}

} // namespace
#endif

void aicc::python::bindCompiler(py::module_ &m) {
#ifdef AICC_PYTHON_WITH_COMPILER
  m.attr("has_compiler") = true;
  m.def("compile", &pyCompile, py::arg("model"), py::arg("buffer_name"), py::arg("is_mlir"),
        py::arg("target"), py::arg("emit"), py::arg("options"), py::arg("bind_inputs"),
        py::arg("input_shapes"), py::arg("dims"), py::arg("cuda_path"),
        py::arg("max_tensor_bytes"),
        py::arg("specialize") = std::vector<std::pair<std::string, int64_t>>());
  m.def("pipeline_options", [] {
    py::list out;
    for (const aicc::python::OptionInfo &o : aicc::python::pipelineOptions())
      out.append(py::make_tuple(o.flag, o.type, o.defaultValue, o.description));
    return out;
  });
  m.def(
      "run_reference_mode",
      [](const py::dict &d) {
        aicc::run::ReferenceModeOptions o = modeOptions(d);
        return captured([o] { return aicc::run::runReferenceMode(o); });
      },
      py::arg("options"));
  m.def(
      "run_bisect_mode",
      [](const py::dict &d) {
        aicc::run::ReferenceModeOptions o = modeOptions(d);
        return captured([o] { return aicc::run::runBisectMode(o); });
      },
      py::arg("options"));
#else
  m.attr("has_compiler") = false;
#endif
}
