//===- StdioCapture.cpp - Run a function with stdout/stderr captured ------===//
#include "StdioCapture.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

using namespace aicc::python;

namespace {

/// Reads the whole temporary file `f` from its start.
std::string slurp(std::FILE *f) {
  std::string text;
  std::fflush(f);
  std::rewind(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    text.append(buf, n);
  return text;
}

} // namespace

std::string aicc::python::runCaptured(const std::function<int()> &fn, CapturedRun &run) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::FILE *out = std::tmpfile(), *err = std::tmpfile();
  if (!out || !err) {
    std::string why = std::strerror(errno);
    if (out)
      std::fclose(out);
    if (err)
      std::fclose(err);
    return "cannot create a temporary file to capture the output: " + why;
  }
  std::fflush(nullptr);
  int savedOut = ::dup(1), savedErr = ::dup(2);
  if (savedOut < 0 || savedErr < 0 || ::dup2(::fileno(out), 1) < 0 ||
      ::dup2(::fileno(err), 2) < 0) {
    std::string why = std::strerror(errno);
    if (savedOut >= 0)
      ::dup2(savedOut, 1), ::close(savedOut);
    if (savedErr >= 0)
      ::dup2(savedErr, 2), ::close(savedErr);
    std::fclose(out);
    std::fclose(err);
    return "cannot redirect stdout/stderr: " + why;
  }
  run.status = fn();
  std::fflush(nullptr);
  ::dup2(savedOut, 1);
  ::dup2(savedErr, 2);
  ::close(savedOut);
  ::close(savedErr);
  run.out = slurp(out);
  run.err = slurp(err);
  std::fclose(out);
  std::fclose(err);
  return "";
}
