//===- Benchmark.h - aicc-run --benchmark and --json -------------*- C++ -*-===//
#ifndef AICC_TOOLS_AICC_RUN_BENCHMARK_H
#define AICC_TOOLS_AICC_RUN_BENCHMARK_H

#include "aicc/Runtime/Session.h"

#include <string>
#include <vector>

namespace aicc::run {

/// aicc-run --benchmark ITERS: times ITERS passes of the launch plan
/// (Session::benchmark: mean, median, p90, min, max ms), then min(ITERS, 1000)
/// whole runs of `wallInputs` with host copies (wall clock, after one warm-up),
/// and prints both and the device bytes the plan's buffers take. A non-empty
/// `jsonPath` also gets the figures as one JSON object ('-': stdout). A bundle
/// with symbolic dims is measured at the session's current symbol values
/// (Session::getSymbolValues(): `wallInputs` must have their shapes), which
/// the output names (and the JSON's "symbols" object). Errors: a failed run
/// or an unwritable `jsonPath`.
runtime::Status runBenchmark(runtime::Session &session, int iters,
                             const std::vector<runtime::HostTensor> &wallInputs,
                             const std::string &jsonPath);

} // namespace aicc::run

#endif // AICC_TOOLS_AICC_RUN_BENCHMARK_H
