//===- StdioCapture.h - Run a function with stdout/stderr captured -*- C++ -*-===//
//
// aicc-run's reference and bisect modes print their report with printf and their errors
// to stderr; the bindings hand both to Python as strings. The capture redirects the
// process's file descriptors 1 and 2 into temporary files for the duration of the call
// (C stdio is flushed before and after), so it covers printf, std::cerr and
// llvm::errs() alike. File descriptors are process-wide: output other threads write
// meanwhile lands in the capture too, and two captures must not overlap (runCaptured
// serializes its callers).
//
//===----------------------------------------------------------------------===//
#ifndef AICC_PYTHON_STDIOCAPTURE_H
#define AICC_PYTHON_STDIOCAPTURE_H

#include <functional>
#include <string>

namespace aicc::python {

struct CapturedRun {
  /// What the function returned (an exit status).
  int status = 0;
  /// Everything written to stdout / stderr during the call.
  std::string out, err;
};

/// Calls `fn` with fds 1 and 2 redirected; fills `run`. Returns "" on success, else why
/// the capture could not be set up (then `fn` was not called).
std::string runCaptured(const std::function<int()> &fn, CapturedRun &run);

} // namespace aicc::python

#endif // AICC_PYTHON_STDIOCAPTURE_H
