//===- Module.cpp - The aicc._aicc extension module -------------------------===//
//
// Python's entry point (PyInit__aicc): registers the parts declared in Bindings.h.
//
//===----------------------------------------------------------------------===//
#include "Bindings.h"

namespace py = pybind11;

void aicc::python::raise(const char *className, const std::string &message) {
  py::object cls = py::module_::import("aicc._errors").attr(className);
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

PYBIND11_MODULE(_aicc, m) {
  m.doc() = "aicc's C++ compiler and runtime (private: use the aicc package)";
  aicc::python::bindRuntime(m);
  aicc::python::bindCompiler(m);
}
