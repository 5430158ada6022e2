//===- StepMode.cpp - aicc-opt --step / --dump-steps -----------------------===//
//
//   aicc-opt FILE --pass-pipeline='builtin.module(...)' --step [-o OUT] [--dump-steps=DIR]
//
// Runs the pipeline one leaf pass at a time over the whole module (aicc::flattenPipeline).
// Commands, read from the terminal or, when stdin is not one, from stdin line by line:
//   <Enter> / n / next   run the next pass
//   c / continue         run every remaining pass
//   r PASS               run until PASS has run (the next pass whose flag is PASS)
//   p                    print the IR
//   d                    unified diff of the last pass (before/after)
//   w FILE               save the IR to FILE
//   l                    list the pipeline, '->' marking the next pass, '*' those done
//   q                    quit without running the rest (no output written)
// End of input finishes the pipeline as `c` does. After the last pass the IR is written
// to -o (default: stdout) — in a terminal the transcript goes to stderr.
//
//===----------------------------------------------------------------------===//
#include "StepMode.h"

#include "aicc/Support/PipelineSteps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "aicc/Support/InputFile.h"
#include "aicc/Support/OutputFile.h"
#include "aicc/Support/ParserGuard.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/IR/SymbolTable.h"

#include <iostream>

using namespace mlir;
using namespace aicc;

bool aicc::wantsStepMode(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a == "--step" || a == "-step" || a.starts_with("--dump-steps=") ||
        a.starts_with("-dump-steps="))
      return true;
  }
  return false;
}

namespace {
struct StepArgs {
  std::string input = "-", output = "-", pipeline, dumpDir;
  bool interactive = false;
};

int usage(llvm::StringRef msg) {
  llvm::errs() << "aicc-opt: " << msg
               << "\nstep mode: aicc-opt FILE --pass-pipeline='builtin.module(...)' "
                  "[--step] [--dump-steps=DIR] [-o OUT]\n";
  return 2;
}

/// Printed text of every symbol-defining op (functions, kernels, globals), keyed by its
/// nested symbol path (e.g. `@kernels::@fused_0_epilogue`), in IR order.
std::vector<std::pair<std::string, std::string>> symbolTexts(Operation *root) {
  std::vector<std::pair<std::string, std::string>> out;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == root)
      return WalkResult::advance();
    auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      return WalkResult::advance();
    std::string path = "@" + name.getValue().str();
    for (Operation *p = op->getParentOp(); p && p != root; p = p->getParentOp())
      if (auto pn = p->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        path = "@" + pn.getValue().str() + "::" + path;
    // Containers (modules) are reported through their contents.
    if (op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::advance();
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os, OpPrintingFlags().enableDebugInfo(false));
    out.push_back({path, text});
    return WalkResult::skip();
  });
  return out;
}

/// "changed: @a, @b; added: @c; removed: @d; unchanged: 3 ops" from two snapshots.
std::string symbolDelta(const std::vector<std::pair<std::string, std::string>> &before,
                        const std::vector<std::pair<std::string, std::string>> &after) {
  llvm::StringMap<const std::string *> old;
  for (auto &[k, v] : before)
    old[k] = &v;
  SmallVector<std::string> changed, added;
  unsigned unchanged = 0;
  llvm::StringSet<> seen;
  for (auto &[k, v] : after) {
    seen.insert(k);
    auto it = old.find(k);
    if (it == old.end())
      added.push_back(k);
    else if (*it->second != v)
      changed.push_back(k);
    else
      ++unchanged;
  }
  SmallVector<std::string> removed;
  for (auto &[k, v] : before)
    if (!seen.contains(k))
      removed.push_back(k);
  std::string s;
  auto list = [&](llvm::StringRef what, ArrayRef<std::string> names) {
    if (names.empty())
      return;
    s += (s.empty() ? "" : "; ") + what.str() + ": ";
    for (size_t i = 0; i < names.size() && i < 6; ++i)
      s += (i ? ", " : "") + names[i];
    if (names.size() > 6)
      s += ", ... (" + std::to_string(names.size()) + ")";
  };
  list("changed", changed);
  list("added", added);
  list("removed", removed);
  if (unchanged)
    s += (s.empty() ? "" : "; ") + std::string("unchanged: ") + std::to_string(unchanged) +
         (unchanged == 1 ? " op" : " ops");
  return s;
}

/// Counts lines only in `a` and only in `b` (a cheap size for "what changed").
std::pair<size_t, size_t> lineDelta(llvm::StringRef a, llvm::StringRef b) {
  llvm::StringMap<int> count;
  llvm::SmallVector<llvm::StringRef> la, lb;
  a.split(la, '\n');
  b.split(lb, '\n');
  for (auto l : la)
    ++count[l];
  size_t added = 0;
  for (auto l : lb) {
    auto it = count.find(l);
    if (it != count.end() && it->second > 0)
      --it->second;
    else
      ++added;
  }
  size_t removed = 0;
  for (auto &e : count)
    removed += e.second;
  return {added, removed};
}
} // namespace

int aicc::runStepMode(int argc, char **argv, DialectRegistry &registry) {
  StepArgs args;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    auto value = [&](llvm::StringRef flag, std::string &out) {
      if (a.consume_front(flag)) {
        if (a.consume_front("=")) {
          out = a.str();
          return true;
        }
        if (a.empty() && i + 1 < argc) {
          out = argv[++i];
          return true;
        }
      }
      return false;
    };
    a.consume_front("-");
    if (a == "-step" || a == "step")
      args.interactive = true;
    else if (value("-pass-pipeline", args.pipeline) || value("pass-pipeline", args.pipeline) ||
             value("-dump-steps", args.dumpDir) || value("dump-steps", args.dumpDir) ||
             value("o", args.output))
      continue;
    else if (!llvm::StringRef(argv[i]).starts_with("-") || llvm::StringRef(argv[i]) == "-")
      args.input = argv[i];
    else
      return usage(("unsupported option in step mode: " + llvm::StringRef(argv[i])).str());
  }
  if (args.pipeline.empty())
    return usage("step mode needs --pass-pipeline='builtin.module(...)'");

  MLIRContext ctx(registry);
  ctx.disableMultithreading(); // deterministic order of diagnostics while stepping
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler diagHandler(sm, &ctx);
  auto read = aicc::readInputFile(args.input, aicc::kMaxMLIRFileBytes, "input", /*allowStdin=*/true);
  if (!read) {
    llvm::errs() << "aicc-opt: error: " << llvm::toString(read.takeError()) << "\n";
    return 1;
  }
  auto file =
      llvm::MemoryBuffer::getMemBufferCopy((*read)->getBuffer(), (*read)->getBufferIdentifier());
  if (!aicc::checkParserHazards(*file, llvm::errs()))
    return 1;
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &ctx);
  if (!module)
    return 1;
  // Expand registered pipelines (aicc-*-pipeline) into their passes first.
  std::string perr;
  llvm::raw_string_ostream pos(perr);
  FailureOr<OpPassManager> parsed = parsePassPipeline(args.pipeline, pos);
  if (failed(parsed))
    return usage("bad --pass-pipeline: " + perr);
  std::string err;
  auto steps = flattenPipeline(printPipeline(*parsed), err);
  if (failed(steps))
    return usage("bad --pass-pipeline: " + err);
  // Check every step parses before running any.
  for (PipelineStep &s : *steps) {
    if (!s.nesting.empty() && s.nesting.front() == "any")
      s.nesting.front() = "builtin.module";
    if (s.nesting.empty() || s.nesting.front() != "builtin.module")
      return usage("the pipeline must be rooted at builtin.module(...)");
    PassManager probe(&ctx);
    std::string perr;
    llvm::raw_string_ostream pos(perr);
    if (failed(parsePassPipeline(s.pipeline(), probe, pos)))
      return usage("cannot parse pass '" + s.pass + "': " + perr);
  }

  bool tty = llvm::sys::Process::StandardInIsUserInput();
  llvm::raw_ostream &out = tty ? llvm::errs() : llvm::outs();
  std::string lastDump;
  if (!args.dumpDir.empty()) {
    if (auto ec = llvm::sys::fs::create_directories(args.dumpDir)) {
      llvm::errs() << "aicc-opt: cannot create " << args.dumpDir << ": " << ec.message() << "\n";
      return 1;
    }
    llvm::SmallString<256> p(args.dumpDir);
    llvm::sys::path::append(p, "00-input.mlir");
    if (failed(writeFileAtomically(p, "// aicc step 00: input " + args.input + "\n" +
                                          printIR(*module),
                                   err))) {
      llvm::errs() << "aicc-opt: " << err << "\n";
      return 1;
    }
    lastDump = std::string(p);
  }

  size_t next = 0;
  std::string before, after; // IR around the last pass run
  auto runOne = [&]() -> bool {
    const PipelineStep &s = (*steps)[next];
    before = printIR(*module);
    auto symsBefore = symbolTexts(*module);
    if (failed(runStep(*module, s))) {
      out << "pass " << s.name << " failed (step " << next + 1 << ")\n";
      return false;
    }
    after = printIR(*module);
    ++next;
    if (args.interactive) {
      if (before == after) {
        out << "[" << next << "/" << steps->size() << "] " << s.name << ": IR unchanged\n";
      } else {
        auto [added, removed] = lineDelta(before, after);
        out << "[" << next << "/" << steps->size() << "] " << s.name << ": changed (+" << added
            << " -" << removed << " lines)\n";
        std::string delta = symbolDelta(symsBefore, symbolTexts(*module));
        if (!delta.empty())
          out << "    " << delta << "\n";
      }
    }
    if (!args.dumpDir.empty()) {
      std::string written;
      if (failed(writeStepDump(args.dumpDir, next, s, lastDump, after, err, &written))) {
        llvm::errs() << "aicc-opt: " << err << "\n";
        return false;
      }
      lastDump = written;
    }
    return true;
  };
  auto finish = [&]() -> int {
    while (next < steps->size())
      if (!runOne())
        return 1;
    if (llvm::Error e = aicc::writeOutputFile(args.output, printIR(*module))) {
      llvm::errs() << "aicc-opt: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    return 0;
  };

  if (!args.interactive)
    return finish();

  out << "aicc-opt step mode: " << steps->size()
      << " passes. <Enter>/n next, c continue, r PASS run until PASS, p print, d diff, "
         "w FILE save, l list, q quit\n";
  std::string line;
  while (true) {
    if (next < steps->size())
      out << "next [" << next + 1 << "/" << steps->size() << "]: " << (*steps)[next].pipeline()
          << "\n";
    else
      out << "pipeline done (c or <Enter> writes the output)\n";
    out << "(aicc-step) ";
    out.flush();
    if (!std::getline(std::cin, line)) {
      out << "\nend of input: running the remaining passes\n";
      return finish();
    }
    llvm::StringRef cmd = llvm::StringRef(line).trim();
    auto [verb, arg] = cmd.split(' ');
    arg = arg.trim();
    if (verb.empty() || verb == "n" || verb == "next") {
      if (next == steps->size())
        return finish();
      if (!runOne())
        return 1;
    } else if (verb == "c" || verb == "continue") {
      return finish();
    } else if (verb == "r") {
      size_t target = next;
      while (target < steps->size() && (*steps)[target].name != arg)
        ++target;
      if (arg.empty() || target == steps->size()) {
        out << "no pass '" << arg << "' ahead in the pipeline\n";
        continue;
      }
      while (next <= target)
        if (!runOne())
          return 1;
    } else if (verb == "p") {
      out << printIR(*module);
    } else if (verb == "d") {
      if (before.empty() && after.empty())
        out << "no pass has run yet\n";
      else if (before == after)
        out << "the last pass left the IR unchanged\n";
      else
        out << unifiedDiff(before, after, "before " + (*steps)[next - 1].name,
                           "after " + (*steps)[next - 1].name);
    } else if (verb == "w") {
      if (arg.empty()) {
        out << "w needs a file name\n";
        continue;
      }
      if (failed(writeFileAtomically(arg, printIR(*module), err)))
        out << "cannot write " << arg << ": " << err << "\n";
      else
        out << "wrote " << arg << "\n";
    } else if (verb == "l") {
      for (size_t i = 0; i < steps->size(); ++i)
        out << (i == next ? "-> " : i < next ? " * " : "   ") << i + 1 << " "
            << (*steps)[i].pipeline() << "\n";
    } else if (verb == "q") {
      out << "quit after " << next << " of " << steps->size() << " passes; no output written\n";
      return 0;
    } else {
      out << "unknown command '" << cmd << "'\n";
    }
  }
}
