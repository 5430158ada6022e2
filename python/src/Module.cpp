//===- Module.cpp - The aicc._aicc extension module -------------------------===//
//
// Python's entry point (PyInit__aicc): registers the parts declared in Bindings.h.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

#include "aicc/Version.h"

namespace py = pybind11;

void aicc::python::raise(const char *className, const std::string &message) {
  py::object cls = py::module_::import("aicc._errors").attr(className);
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

PYBIND11_MODULE(_aicc, m) {
  m.doc() = "aicc's C++ compiler and runtime (private: use the aicc package)";
  // The tools' --version: "aicc 0.1.0 (commit 1a2b3c4d5e6f)" (include/aicc/Version.h).
  m.attr("version") = aicc::getVersion();
  m.attr("version_line") = aicc::getVersionLine();
  aicc::python::bindRuntime(m);
  aicc::python::bindCompiler(m);
}
