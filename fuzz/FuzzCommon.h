//===- FuzzCommon.h - Shared pieces of the aicc libFuzzer targets -*- C++ -*-===//
//
// Small helpers the targets in fuzz/ share: the MLIR context and diagnostics setup, a pass
// instrumentation that treats "a pass succeeded but left IR that does not verify" as a crash,
// and environment knobs. Only the fuzz targets include this.
//
//===----------------------------------------------------------------------===//
#ifndef AICC_FUZZ_FUZZCOMMON_H
#define AICC_FUZZ_FUZZCOMMON_H

#include <cstdlib>
#include <string>

#ifdef AICC_FUZZ_WITH_MLIR
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>
#endif

namespace aicc::fuzz {

/// True when the environment variable `name` is set to a non-empty value other than "0".
inline bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

/// The value of environment variable `name`, or `fallback` when unset or empty.
inline std::string envString(const char *name, const char *fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : std::string(fallback);
}

#ifdef AICC_FUZZ_WITH_MLIR
/// Collects every diagnostic of one input instead of printing it (a fuzzer's inputs are
/// mostly invalid, and printing costs more than the run). AICC_FUZZ_VERBOSE=1 prints them as
/// they come, which is what a reproduction run wants; crashes print the collected ones.
class DiagnosticSink {
public:
  explicit DiagnosticSink(mlir::MLIRContext &ctx)
      : verbose(envFlag("AICC_FUZZ_VERBOSE")),
        handler(&ctx, [this](mlir::Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag;
          for (const mlir::Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note;
          if (verbose)
            llvm::errs() << text << "\n";
          else
            messages.push_back(std::move(text));
          return mlir::success();
        }) {}

  /// Prints the collected diagnostics to stderr (before a deliberate crash).
  void dump() const {
    for (const std::string &m : messages)
      llvm::errs() << m << "\n";
  }

private:
  bool verbose;
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler;
};

/// Verifies the IR after every pass that reports success and aborts (a crash libFuzzer
/// records) when it does not verify: a pass that returns success with broken IR is a compiler
/// bug whatever the input was, and MLIR without assertions would go on to undefined behaviour.
/// Install with `pm.enableVerifier(false); pm.addInstrumentation(...)`.
class AbortOnInvalidIR : public mlir::PassInstrumentation {
public:
  explicit AbortOnInvalidIR(const DiagnosticSink &sink) : sink(sink) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (succeeded(mlir::verify(op)))
      return;
    sink.dump();
    llvm::errs() << "aicc-fuzz: pass '" << pass->getArgument()
                 << "' succeeded but left IR that does not verify (diagnostics above)\n";
    std::abort();
  }

private:
  const DiagnosticSink &sink;
};
#endif

} // namespace aicc::fuzz

#endif // AICC_FUZZ_FUZZCOMMON_H
