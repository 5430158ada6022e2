//===- Benchmark.cpp - aicc-run --benchmark and --json --------------------===//
//
// The launch plan timed pass by pass (Session::benchmark), then whole runs with host copies
// (wall clock), the device bytes, and optionally the same figures as JSON.
//
//===----------------------------------------------------------------------===//
#include "Benchmark.h"

#include "aicc/Runtime/ONNXData.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace aicc::runtime;

namespace {
/// Escapes `s` as the body of a JSON string (RFC 8259 section 7).
std::string jsonEscape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string statsJson(const BenchmarkStats &s) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"runs\": %d, \"mean\": %.6g, \"median\": %.6g, \"p90\": %.6g, "
                "\"min\": %.6g, \"max\": %.6g}",
                s.runs, s.meanMs, s.medianMs, s.p90Ms, s.minMs, s.maxMs);
  return buf;
}

/// Writes --benchmark's figures as one JSON object to `path` ('-': stdout; a file
/// through writeFileAtomically).
Status writeBenchmarkJson(const std::string &path, const Session &session,
                          const BenchmarkStats &plan, const BenchmarkStats &whole) {
  std::string j =
      "{\"device\": \"" + std::string(deviceName(session.getDevice())) + "\", \"target\": \"" +
      jsonEscape(session.getTarget()) +
      "\", \"cuda_graphs\": " + (session.usesCudaGraphs() ? "true" : "false") +
      // The launches a run makes at these symbol values (shape buckets: the others' skip).
      ", \"launches\": " + std::to_string(session.getRunLaunchCount()) +
      ", \"launch_records\": " + std::to_string(session.getLaunches().size()) +
      ", \"device_bytes\": " +
      std::to_string(session.getAllocatedBytes() + session.getModel().getConstantBytes()) +
      ", \"constant_bytes\": " + std::to_string(session.getModel().getConstantBytes()) +
      ", \"session_bytes\": " + std::to_string(session.getAllocatedBytes()) +
      ", \"plan_ms\": " + statsJson(plan) +
      ", \"whole_run_with_host_copies_ms\": " + statsJson(whole);
  // Bundles with symbolic dims: the symbol values both measurements ran at.
  if (!session.getSymbols().empty()) {
    const std::vector<int64_t> values = session.getSymbolValues();
    j += ", \"symbols\": {";
    for (size_t i = 0; i < values.size(); ++i)
      j += (i ? ", \"" : "\"") + jsonEscape(session.getSymbols()[i].name) +
           "\": " + std::to_string(values[i]);
    j += "}";
  }
  j += "}\n";
  if (path == "-") {
    std::fputs(j.c_str(), stdout);
    return Status::success();
  }
  return writeFileAtomically(path, j);
}

} // namespace

Status aicc::run::runBenchmark(Session &session, int iters,
                               const std::vector<HostTensor> &wallInputs,
                               const std::string &jsonPath) {
  BenchmarkStats plan;
  if (Status s = session.benchmark(iters, plan); !s.ok)
    return s;
  // With symbolic dims: the values of the last run, which both measurements use.
  std::string at;
  if (!session.getSymbols().empty())
    at = " at " + formatSymbolValues(session.getSymbols(), session.getSymbolValues());
  std::printf("benchmark: %d runs on %s%s, %.4f ms/run (%s%s); per run: median %.4f, p90 "
              "%.4f, min %.4f, max %.4f ms\n",
              iters, deviceName(session.getDevice()), at.c_str(), plan.meanMs,
              session.getDevice() == Device::cuda ? "CUDA events" : "steady_clock",
              session.getDevice() != Device::cuda ? ""
              : session.usesCudaGraphs()          ? ", one CUDA graph per run"
                                                  : ", one cuLaunchKernel per kernel",
              plan.medianMs, plan.p90Ms, plan.minMs, plan.maxMs);
  // Whole runs as a caller sees them: host inputs copied in, the plan, outputs copied
  // out, each run timed on its own (wall clock).
  std::vector<HostTensor> wallOutputs;
  const int wallRuns = std::min(iters, 1000);
  std::vector<double> wall;
  for (int i = 0; i < wallRuns + 1; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (Status s = session.run(wallInputs, wallOutputs); !s.ok)
      return s;
    std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - t0;
    if (i > 0) // the first is a warm-up
      wall.push_back(d.count());
  }
  BenchmarkStats whole = summarizeRuns(wall);
  std::printf("benchmark: %d whole runs with host copies (wall clock): mean %.4f, median "
              "%.4f, p90 %.4f, min %.4f ms\n",
              wallRuns, whole.meanMs, whole.medianMs, whole.p90Ms, whole.minMs);
  const uint64_t constants = session.getModel().getConstantBytes();
  std::printf("benchmark: %llu bytes allocated for the plan's buffers on %s (%llu of "
              "constants, shared by every session of the model; %llu of the session's "
              "inputs, outputs and temps)\n",
              static_cast<unsigned long long>(session.getAllocatedBytes() + constants),
              deviceName(session.getDevice()), static_cast<unsigned long long>(constants),
              static_cast<unsigned long long>(session.getAllocatedBytes()));
  if (!jsonPath.empty())
    return writeBenchmarkJson(jsonPath, session, plan, whole);
  return Status::success();
}
