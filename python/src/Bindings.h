//===- Bindings.h - Pieces of the aicc._aicc extension module ----*- C++ -*-===//
//
// The extension (python/aicc/_aicc*.so) is one pybind11 module made of these parts, each
// in its own file; python/aicc/*.py is the public API over it (docs/python.md). Built with
// RTTI and exceptions; includes only plain-C++ aicc headers (the runtime's, the reference
// modes', CompilerFacade.h), never an LLVM or MLIR one.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PYTHON_BINDINGS_H
#define AICC_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>

#include <string>

namespace aicc::python {

/// Raises the exception class `className` of aicc._errors (Error, CompileError,
/// RuntimeError, CompilerUnavailableError) with `message`.
[[noreturn]] void raise(const char *className, const std::string &message);

/// Model, Session, bundle inspection, DLPack and TensorProto helpers (RuntimeBindings.cpp).
void bindRuntime(pybind11::module_ &m);

/// compile(), pipeline_options(), and the reference / bisect modes (CompilerBindings.cpp);
/// without the compiler, only `has_compiler = False`.
void bindCompiler(pybind11::module_ &m);

} // namespace aicc::python

#endif // AICC_PYTHON_BINDINGS_H
