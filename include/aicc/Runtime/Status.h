//===- Status.h - Error reporting for the aicc runtime ---------*- C++ -*-===//
//
// The runtime links neither LLVM nor MLIR, so it reports errors with this small
// value type instead of llvm::Error. Every fallible runtime entry point returns a
// Status; on failure `message` is a complete, user-facing sentence fragment
// (lower-case start, no trailing period) that callers may prefix with context.
//
//===----------------------------------------------------------------------===//

#ifndef AICC_RUNTIME_STATUS_H
#define AICC_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace aicc::runtime {

/// The outcome of a runtime operation: `ok` or an error with a message.
struct Status {
  /// True on success; `message` is then empty.
  bool ok = true;
  /// Human-readable description of the failure; empty on success.
  std::string message;

  /// Returns a successful status.
  static Status success() { return Status(); }
  /// Returns a failed status carrying `message`.
  static Status error(std::string message) {
    Status s;
    s.ok = false;
    s.message = std::move(message);
    return s;
  }

  /// Returns this status with `context + ": "` prepended to the message when it
  /// is an error; returns it unchanged on success.
  Status withContext(const std::string &context) const {
    if (ok)
      return *this;
    return error(context + ": " + message);
  }
};

} // namespace aicc::runtime

#endif // AICC_RUNTIME_STATUS_H
